// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/scalar_rules.hpp
/// Models of the scalar ops: const, cast, not, and one model for every op whose record takes
/// `lhs` and `rhs` (arithmetic, comparisons, and/or), where a literal adopts the other operand's dtype.
#pragma once

#include <cstdint>

#include "tile2buffer/ir/verify/op_rule.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

template <class V>
struct op_rule<opcode::scalar_const, V> : model<opcode::scalar_const> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* r = s.expect_result(v, type_kind::scalar);
    if (r != nullptr && !s.operand_has_type(op(s.f, v.id).value(), *r)) s.fail(v.loc, v.mn, " value must have the result type");
  }
};

template <class V>
struct op_rule<opcode::scalar_cast, V> : model<opcode::scalar_cast> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op cast(s.f, v.id);
    const type* r = s.expect_result(v, type_kind::scalar);
    if (!s.scalar_operand(cast.value())) s.fail(v.loc, v.mn, " operand must be a scalar");
    if (r != nullptr && r->dt != static_cast<dtype>(cast.to().num))
      s.fail(v.loc, v.mn, " result dtype must equal its dtype operand");
  }
};

template <class V>
struct op_rule<opcode::scalar_not, V> : model<opcode::scalar_not> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const operand arg = op(s.f, v.id).arg();
    const type* r = s.expect_result(v, type_kind::scalar);
    if (!s.scalar_operand(arg)) {
      s.fail(v.loc, v.mn, " operand must be a scalar");
      return;
    }
    const type* t = s.type_of(arg);
    if (r != nullptr && (t != nullptr ? t->dt != r->dt : !verify_state::literal_fits(arg, r->dt)))
      s.fail(v.loc, v.mn, " result dtype must equal the operand dtype");
  }
};

/// Binary scalar ops: both operands agree on one dtype; a literal adopts the other side's.
template <class = void>
struct scalar_binary_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* r = s.expect_result(v, type_kind::scalar);
    const operand lhs = family_operand<"lhs">(v), rhs = family_operand<"rhs">(v);
    if (!s.scalar_operand(lhs) || !s.scalar_operand(rhs)) {
      s.fail(v.loc, v.mn, " operands must be scalars");
      return;
    }
    const type* x = s.type_of(lhs);
    const type* y = s.type_of(rhs);
    if (x != nullptr && y != nullptr && x->dt != y->dt) {
      s.fail(v.loc, v.mn, " operands must have the same dtype");
      return;
    }
    const bool compare = is_comparison(v.code);
    dtype d = dtype::index;
    if (x != nullptr || y != nullptr) {
      d = x != nullptr ? x->dt : y->dt;
    } else if (!compare && r != nullptr) {
      d = r->dt;
    } else if (lhs.kind == operand_kind::float_lit || rhs.kind == operand_kind::float_lit) {
      d = dtype::fp32;  // Why: two literals compared take the widest literal kind
    } else if (lhs.kind == operand_kind::bool_lit) {
      d = dtype::bool_;
    }
    if ((x == nullptr && !verify_state::literal_fits(lhs, d)) || (y == nullptr && !verify_state::literal_fits(rhs, d))) {
      s.fail(v.loc, v.mn, " literal operand does not fit dtype ", dtype_text(d));
      return;
    }
    const bool logical = v.code == opcode::scalar_and || v.code == opcode::scalar_or;
    if (logical && d != dtype::bool_ && !is_integer(d)) s.fail(v.loc, v.mn, " operands must be BOOL or integer");
    if (!compare && !logical && d == dtype::bool_) s.fail(v.loc, v.mn, " operands must be numeric");
    if (r == nullptr) return;
    if (compare && r->dt != dtype::bool_) s.fail(v.loc, v.mn, " result must be BOOL");
    if (!compare && r->dt != d) s.fail(v.loc, v.mn, " result dtype must equal the operand dtype");
  }
};
/// The scalar ops whose record takes exactly `lhs` and `rhs`.
constexpr bool scalar_binary_op(opcode c) { return dialect_of(c) == dialect::scalar && operand_names(c) == "lhs rhs"; }
template <opcode C, class V>
  requires(scalar_binary_op(C))
struct op_rule<C, V> : scalar_binary_rule<V> {};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
