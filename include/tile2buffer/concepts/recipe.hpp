// SPDX-License-Identifier: Apache-2.0
/// @file concepts/recipe.hpp
/// `concept recipe`: a compile-time registered rewrite rule from one Tile op to Buffer IR.
///
/// Requirements
///   - `using source = tile::<op>;` : the Tile op struct it rewrites (a `tile_op`).
///   - `static constexpr std::string_view name` : debug name used in diagnostics (`lower-add`).
///   - `static constexpr int benefit` : higher is tried first among recipes of one source.
///   - `static constexpr bool default_rollout` : whether whole-kernel selection may rely on it.
///   - `static constexpr match_result match(const function&, op_id, const match_context&)` : pure;
///     says why when it does not apply.
///   - `static constexpr void rewrite(op_id, lowering&)` : emits Buffer IR through the rewriter.
/// Minimal definition: all of the above; no state, no globals, no static registration.
/// Safe default: a recipe that cannot prove a fact does not match (the kernel stays Tile).
/// Models: recipe/elementwise.hpp, recipe/transfer.hpp, recipe/spmd.hpp.
/// Example: examples/02_custom_recipe.cpp.
#pragma once

#include <concepts>
#include <string_view>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/op.hpp"

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

/// What `match` may read besides the op: the options the pipeline runs with.
struct match_context {
  options opts;
};

class lowering;

template <class R>
concept recipe = requires(const function& f, op_id o, const match_context& c, lowering& l) {
  typename R::source;
  requires tile_op<typename R::source>;
  { R::name } -> std::convertible_to<std::string_view>;
  { R::benefit } -> std::convertible_to<int>;
  { R::default_rollout } -> std::convertible_to<bool>;
  { R::match(f, o, c) } -> std::same_as<match_result>;
  R::rewrite(o, l);
};

}  // namespace v0
}  // namespace tile2buffer
