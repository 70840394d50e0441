// SPDX-License-Identifier: Apache-2.0
/// @file analysis/scalar_contract.hpp
/// Which scalar SSA ops the default contract (and so PTO-AS) can express: arithmetic is signless,
/// so unsigned values take no arithmetic, only identity, same-width reinterpretation and INDEX
/// casts (reference §3.3); floor division and modulo are integer-only. Selection keeps a kernel
/// that breaks these on Tile, and the PTO preflight rejects it: one rule, read by both (so is a
/// runtime high_precision flag, below).
#pragma once

#include <cstdint>
#include <optional>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The scalar dtype of a value operand, if it is one.
constexpr std::optional<dtype> scalar_dtype(const function& f, const operand& o) {
  if (!o.is_value() || o.value().index >= f.values.size()) return std::nullopt;
  const type& t = f.type_of(o.value());
  if (!t.is_scalar()) return std::nullopt;
  return t.dt;
}

/// Whether a `cast` from `from` to `to` has a PTO form. Unsigned values only take the forms
/// the native ABI defines: identity, same-width reinterpretation, and index conversions.
constexpr bool cast_expressible(dtype from, dtype to) {
  if (from == to) return true;
  if (is_unsigned(from) || is_unsigned(to)) {
    const dtype other = is_unsigned(from) ? to : from;
    return other == dtype::index || (is_integer(other) && bit_width(other) == bit_width(is_unsigned(from) ? from : to));
  }
  return true;
}

/// Why scalar op `o` is outside the contract (empty when it is inside).
constexpr text scalar_op_problem(const function& f, op_id o) {
  const op_node& n = f.op(o);
  const opcode c = n.code();
  if (n.results.count != 1) return {};
  const dtype res = f.type_of(f.result(o)).dt;
  if (c == opcode::scalar_cast) {
    const auto from = scalar_dtype(f, typed<scalar::cast>(f, o).value());
    if (from && !cast_expressible(*from, res))
      return text("cast from ")
             << name(*from) << " to " << name(res)
             << " has no PTO form (unsigned casts are identity, same-width reinterpretation, or from/to INDEX)";
    return {};
  }
  bool uns = is_unsigned(res);
  bool flt = is_float(res);
  for (const operand& a : f.args(o))  // every operand, whatever its name
    if (const auto d = scalar_dtype(f, a)) {
      uns = uns || is_unsigned(*d);
      flt = flt || is_float(*d);
    }
  if (uns) return text("'") << mnemonic(c) << "' on unsigned values has no PTO form (arith is signless)";
  if (flt && (c == opcode::scalar_floordiv || c == opcode::scalar_mod))
    return text("'") << mnemonic(c) << "' on floating-point values has no PTO form";
  return {};
}

/// Why the valid extents of tile op `o`'s results are outside the contract: a runtime extent
/// held in an unsigned scalar (lowering guards every runtime extent with a compare against zero,
/// and unsigned scalar arithmetic has no PTO form). Empty when they are inside.
constexpr text unsigned_extent_problem(const function& f, op_id o) {
  for (std::uint32_t i = 0; i < f.op(o).results.count; ++i)
    for (const extent& x : f.type_of(f.result(o, i)).valid)
      if (x.is_value() && is_unsigned(f.type_of(x.value()).dt))
        return text("the runtime valid extent '") << f.name_of(x.value()) << "' is " << name(f.type_of(x.value()).dt)
                                                  << ", and its guard would be unsigned arithmetic, which has no PTO form";
  return {};
}

/// Whether op `o` asks for high precision: a literal `high_precision = true` (a runtime flag is
/// `precision_flag_problem`'s). One test for the recipe, MaterializeNativeScratch and the emitter.
constexpr bool high_precision_set(const function& f, op_id o) {
  const auto hp = f.kwarg_of(o, keyword::high_precision);
  return hp && hp->kind == operand_kind::bool_lit && hp->num != 0;
}

/// Why op `o`'s `high_precision` flag is outside the contract: PTO's precision is an attribute,
/// so a flag known only at run time has no form (it would be dropped, and the op would silently
/// run at low precision). Empty for a literal flag or none.
constexpr text precision_flag_problem(const function& f, op_id o) {
  if (const auto hp = f.kwarg_of(o, keyword::high_precision); hp && hp->kind != operand_kind::bool_lit)
    return text("high_precision must be a literal: PTO's precisionType is an attribute");
  return {};
}

}  // namespace v0
}  // namespace tile2buffer
