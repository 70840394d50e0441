// SPDX-License-Identifier: Apache-2.0
/// @file recipe/common.hpp
/// Small pieces every recipe family shares: recipe names built from mnemonics, operand checks.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/concepts/recipe.hpp"
#include "tile2buffer/engine/lowering.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// "tile.add" -> "lower-add", as a static string.
template <opcode C>
struct recipe_name {
  static constexpr std::string_view suffix = mnemonic(C).substr(5);
  static constexpr auto storage = [] {
    std::array<char, 6 + suffix.size()> s{};
    constexpr std::string_view prefix = "lower-";
    for (std::size_t i = 0; i < prefix.size(); ++i) s[i] = prefix[i];
    for (std::size_t i = 0; i < suffix.size(); ++i) s[prefix.size() + i] = suffix[i];
    return s;
  }();
  static constexpr std::string_view value{storage.data(), storage.size()};
};

/// Equal Buffer descriptors: physical shape, dtype, space, layout and valid extents.
constexpr bool same_descriptor(const type& a, const type& b) { return buffer_descriptor(a) == buffer_descriptor(b); }

/// A scalar element operand must be a numeric literal or a signed-integer/INDEX/FP16/BF16/FP32 scalar.
constexpr text element_scalar_problem(const function& f, const operand& s) {
  if (s.kind == operand_kind::int_lit || s.kind == operand_kind::float_lit) return {};
  if (s.is_value()) {
    const type& t = f.type_of(s.value());
    if (t.is_scalar() && (is_signed_integer(t.dt) || is_float(t.dt))) return {};
    return text("element scalar conversion requires a signed integer, INDEX, FP16, BF16 or FP32 scalar, got ")
           << (t.is_scalar() ? name(t.dt) : std::string_view("a non-scalar"));
  }
  return text("element scalar conversion requires a numeric scalar operand");
}

/// Static valid extents (runtime-valid recipes are a later rollout slice).
constexpr text static_valid_problem(const type& t) {
  if (t.static_valid() && t.valid[0].number > 0 && t.valid[1].number > 0) return {};
  return text("runtime or empty valid extents need the runtime-valid recipes, which this rollout lacks");
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
