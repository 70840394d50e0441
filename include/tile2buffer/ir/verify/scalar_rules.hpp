// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/scalar_rules.hpp
/// Type rules of the scalar ops (literals adopt the other operand's dtype) and of `submit`
/// (the orchestration call: callee, argument types, dependencies).
#pragma once

#include <cstdint>

#include "tile2buffer/ir/verify/state.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

constexpr void check_scalar_op(verify_state& s, const op_view& v) {
  const auto& a = v.args;
  const type* r = s.expect_result(v, type_kind::scalar);
  switch (v.code) {
    case opcode::scalar_const:
      if (r != nullptr && !s.operand_has_type(a[0], *r)) s.fail(v.loc, v.mn, " value must have the result type");
      return;
    case opcode::scalar_cast:
      if (!s.scalar_operand(a[0])) s.fail(v.loc, v.mn, " operand must be a scalar");
      if (r != nullptr && r->dt != static_cast<dtype>(a[1].num))
        s.fail(v.loc, v.mn, " result dtype must equal its dtype operand");
      return;
    case opcode::scalar_not: {
      if (!s.scalar_operand(a[0])) {
        s.fail(v.loc, v.mn, " operand must be a scalar");
        return;
      }
      const type* t = s.type_of(a[0]);
      if (r != nullptr && (t != nullptr ? t->dt != r->dt : !verify_state::literal_fits(a[0], r->dt)))
        s.fail(v.loc, v.mn, " result dtype must equal the operand dtype");
      return;
    }
    default: break;
  }
  // Binary scalar ops: both operands agree on one dtype; a literal adopts the other side's.
  if (!s.scalar_operand(a[0]) || !s.scalar_operand(a[1])) {
    s.fail(v.loc, v.mn, " operands must be scalars");
    return;
  }
  const type* x = s.type_of(a[0]);
  const type* y = s.type_of(a[1]);
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
  } else if (a[0].kind == operand_kind::float_lit || a[1].kind == operand_kind::float_lit) {
    d = dtype::fp32;  // Why: two literals compared take the widest literal kind
  } else if (a[0].kind == operand_kind::bool_lit) {
    d = dtype::bool_;
  }
  if ((x == nullptr && !verify_state::literal_fits(a[0], d)) ||
      (y == nullptr && !verify_state::literal_fits(a[1], d))) {
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

/// `t = submit @kernel((args...), (deps...))`: a device callee of this program, one argument per
/// parameter (tensors by shape and dtype, scalars by dtype), task-valued dependencies.
constexpr void check_submit(verify_state& s, const op_view& v) {
  const auto& a = v.args;
  const type* r = s.result_type(v);
  if (r == nullptr || r->kind != type_kind::task) s.fail(v.loc, v.mn, " result must be a task");
  for (const auto& dep : s.elements(a[2])) {
    const type* t = s.type_of(dep);
    if (t == nullptr || t->kind != type_kind::task) {
      s.fail(v.loc, v.mn, " dependencies must be task values");
      break;
    }
  }
  const std::string_view callee_name = s.f.symbol(a[0]);
  const function* callee = s.index.find(s.prog, callee_name);
  if (callee == nullptr) {
    s.fail(v.loc, v.mn, " callee '@", callee_name, "' is not defined");
    return;
  }
  if (!enum_ok(callee->kind, function_kind::orchestration) || !callee->is_device()) {
    s.fail(v.loc, v.mn, " callee '@", callee_name, "' is not a device function");
    return;
  }
  const auto args = s.elements(a[1]);
  if (args.size() != callee->params.size()) {
    s.fail(v.loc, v.mn, " @", callee_name, " expects ", static_cast<std::int64_t>(callee->params.size()),
           " arguments, got ", static_cast<std::int64_t>(args.size()));
    return;
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const value_id p = callee->params[i].value;
    if (p.index >= callee->values.size() || callee->values[p.index].ty.index >= callee->types.size())
      continue;  // the callee's own verification reports it
    const type& pt = callee->type_of(p);
    const type* at = s.type_of(args[i]);
    if (pt.is_tensor()) {
      if (at == nullptr || !at->is_tensor() || at->shape != pt.shape || at->dt != pt.dt)
        s.fail(v.loc, v.mn, " @", callee_name, " argument ", static_cast<std::int64_t>(i),
               " must be a tensor of the parameter's shape and dtype");
    } else if (pt.is_scalar()) {
      const bool ok = at != nullptr ? at->is_scalar() && at->dt == pt.dt : verify_state::literal_fits(args[i], pt.dt);
      if (!ok)
        s.fail(v.loc, v.mn, " @", callee_name, " argument ", static_cast<std::int64_t>(i),
               " must be a scalar of dtype ", dtype_text(pt.dt));
    }
  }
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
