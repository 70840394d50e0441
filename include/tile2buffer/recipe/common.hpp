// SPDX-License-Identifier: Apache-2.0
/// @file recipe/common.hpp
/// Small pieces every recipe family shares: recipe names built from mnemonics, operand checks,
/// element scalar conversion.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/concepts/recipe.hpp"
#include "tile2buffer/ir/create.hpp"
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

/// Equal Buffer descriptors and structurally equal valid extents (the same literal or the same SSA
/// value per axis): two runtime descriptor dimensions alone do not prove equal runtime values.
/// (`buffer_descriptor` clears the kind and the storage and derives its valid extents from the
/// type's own, so with equal valid extents this is every other member equal.)
constexpr bool same_descriptor(const type& a, const type& b) { return &a == &b || equal_but_kind(a, b); }

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

/// `v` converted to scalar type `to` through `scalar.cast`.
constexpr operand cast_scalar(lowering& l, const operand& v, dtype to, location loc) {
  return operand::of(l.builder().create<scalar::cast>({.value = built(v), .to = to}, scalar_type(to), {}, loc));
}

/// Converts an element scalar operand to `target` explicitly (reference §5.6 step 12): literals
/// are converted exactly, values through `cast` (INDEX goes through INT64 first).
constexpr operand element_scalar(lowering& l, const operand& src, dtype target, location loc, std::string_view recipe) {
  if (src.kind == operand_kind::int_lit) return is_float(target) ? operand::decimal(src.num, 0) : src;
  if (src.kind == operand_kind::float_lit) {
    if (is_float(target)) return src;
    if (src.exp10 >= 0 && src.exp10 <= 18) {
      std::int64_t n = src.num;
      for (int i = 0; i < src.exp10; ++i) n *= 10;
      return operand::integer(n);
    }
    l.fail(loc, recipe, text("element scalar conversion requires an integral literal for ") << name(target));
    return operand::integer(0);
  }
  if (src.kind != operand_kind::value) {
    l.fail(loc, recipe, text("element scalar conversion requires a numeric scalar operand"));
    return operand::integer(0);
  }
  operand v = l.rw().lookup(src.value());
  if (v.kind != operand_kind::value) return element_scalar(l, v, target, loc, recipe);
  dtype d = l.source().type_of(src.value()).dt;
  if (d == target) return v;
  if (d == dtype::index) {
    v = cast_scalar(l, v, dtype::int64, loc);
    d = dtype::int64;
    if (d == target) return v;
  }
  return cast_scalar(l, v, target, loc);
}

/// Static positive valid extents: what windows, relabels and assembles need (runtime or empty
/// extents there stay Tile by the spec).
constexpr text static_valid_problem(const type& t, std::string_view what) {
  if (t.static_valid() && t.valid[0].number > 0 && t.valid[1].number > 0) return {};
  return text(what) << " with runtime or empty valid extents stay Tile";
}

/// A tile whose valid metadata can change (a runtime or empty extent) owns one dynamic handle:
/// every tile in its allocation must name the same window (offset, dtype, shape), since a
/// dynamic descriptor cannot be a byte-root view. Empty when `v` is static or alone.
constexpr text dynamic_storage_problem(const function& f, const kernel_analyses& k, value_id v) {
  if (descriptor_static_valid(f.type_of(v)) || !f.has_storage(v)) return {};
  if (const value_id other = k.shared_storage.differing(f, k.windows, f.stored(v)); other.valid())
    return text("a runtime-valid tile needs its own allocation; '")
           << f.name_of(v) << "' shares one with '" << f.name_of(other) << "'";
  return {};
}

/// Why elementwise op `c` on column vector `dst` does not lower (extended rollout §2.5), or
/// empty: FP32 only, `R * esize` a multiple of 32, static valid `[r, 1]`.
constexpr text column_elementwise_problem(opcode c, const type& dst) {
  if (dst.dt != dtype::fp32)
    return text(mnemonic(c)) << " on " << name(dst.dt) << " column vectors is not in the extended rollout";
  if (dst.bytes() % 32 != 0)
    return text("a column vector needs R * element bytes aligned to 32 (")
           << dst.shape[0] << " x " << name(dst.dt) << " is " << dst.bytes() << " bytes)";
  if (!dst.static_valid() || dst.valid[1].number != 1) return text("dynamic-valid column vectors stay Tile for elementwise use");
  return {};
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
