// SPDX-License-Identifier: Apache-2.0
/// @file concepts/recipe.hpp
/// `concept recipe`: a compile-time registered rewrite rule from one Tile op to Buffer IR, and
/// `concept stays_tile_entry`: a Tile op that deliberately has no recipe in a set, and why.
///
/// Minimal complete definition of a recipe
///   - `using source = tile::<op>;` : the Tile op struct it rewrites (a `tile_op`).
///   - `static constexpr std::string_view name` : used in diagnostics (`lower-add`).
///   - `static constexpr int benefit` : higher is tried first among recipes of one source.
///   - `static constexpr bool default_rollout` : its tier: true, the default rollout; false, the
///     extended tier, which selection and lowering consult only under `options::rollout == extended`.
///   - `static constexpr match_result match(typed<source>, const match_context&)` : pure; says why
///     when it does not apply. `typed<tile::load>` has `tensor()`, `offsets()`, `valid()`, ...
///   - `static constexpr void rewrite(typed<source>, lowering&)` : emits Buffer IR through the
///     rewriter; called only after `match` held.
/// Optional:
///   - `static constexpr std::span<const dtype> dtypes` : the element types `match` accepts, taken
///     from the table `match` reads (so the two cannot disagree); `t2b-opt --list-recipes` and
///     docs/recipes.md show it.
/// No state, no globals, no static registration: a recipe set (`engine/registry.hpp`) lists it.
/// Safe default: a recipe that cannot prove a fact does not match (the kernel stays Tile).
/// Models: recipe/elementwise.hpp, recipe/transfer.hpp, recipe/alloc.hpp, recipe/spmd.hpp.
/// Example: examples/02_custom_recipe.cpp.
#pragma once

#include <concepts>
#include <string_view>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/op.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Outcome of `match`: applies, or the reason it does not.
struct match_result {
  bool ok = false;
  text reason;
  static constexpr match_result yes() { return {true, {}}; }
  static constexpr match_result no(text why) { return {false, static_cast<text&&>(why)}; }
  constexpr explicit operator bool() const noexcept { return ok; }
};

/// What `match` may read besides the op: the options the pipeline runs with and the kernel's
/// shared analyses (computed once per kernel, never by a recipe).
struct match_context {
  options opts;
  const kernel_analyses* analyses = nullptr;
  [[nodiscard]] constexpr const kernel_analyses& kernel() const { return *analyses; }
  /// Whether the kernel's storage is placed at addresses when it is lowered. Selection runs
  /// before the plan pass, so this is the planner's promise, which `plan` makes the IR keep
  /// (an addressed planner places every allocation, an addressless one drops every address) and
  /// `lower_function` checks; a rewrite asks the IR itself (`allocation::address`).
  [[nodiscard]] constexpr bool addressed() const { return tile2buffer::addressed(opts.planner); }
  /// Whether data-movement recipes accept INT8 Vec tiles (extended rollout, quantized-path.md §2.1).
  [[nodiscard]] constexpr bool int8_vec() const { return opts.rollout == rollout_kind::extended; }
};

class lowering;

template <class R>
concept recipe = requires(const typed<typename R::source>& op, const match_context& c, lowering& l) {
  typename R::source;
  requires tile_op<typename R::source>;
  { R::name } -> std::convertible_to<std::string_view>;
  { R::benefit } -> std::convertible_to<int>;
  { R::default_rollout } -> std::convertible_to<bool>;
  { R::match(op, c) } -> std::same_as<match_result>;
  R::rewrite(op, l);
};

/// A set entry saying "this Tile op has no recipe here": `stays_tile<tile::row_sum, "why">`.
template <class E>
concept stays_tile_entry = requires {
  typename E::source;
  requires tile_op<typename E::source>;
  { E::reason } -> std::convertible_to<std::string_view>;
  requires E::is_stays_tile;
};

template <ir_op Op, detail::fixed_string Reason>
struct stays_tile {
  using source = Op;
  static constexpr bool is_stays_tile = true;
  static constexpr std::string_view reason = Reason.view();
};

}  // namespace v0
}  // namespace tile2buffer
