// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/orchestration_rules.hpp
/// Model of `submit`, the orchestration call: callee, argument types, dependencies.
#pragma once

#include <cstdint>
#include <string_view>

#include "tile2buffer/ir/verify/op_rule.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// `t = submit @kernel((args...), (deps...))`: a device callee of this program, one argument per
/// parameter (tensors by shape and dtype, scalars by dtype), task-valued dependencies.
template <class V>
struct op_rule<opcode::orch_submit, V> : model<opcode::orch_submit> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op submit(s.f, v.id);
    const type* r = s.result_type(v);
    if (r == nullptr || r->kind != type_kind::task) s.fail(v.loc, v.mn, " result must be a task");
    for (const auto& dep : s.elements(submit.deps())) {
      const type* t = s.type_of(dep);
      if (t == nullptr || t->kind != type_kind::task) {
        s.fail(v.loc, v.mn, " dependencies must be task values");
        break;
      }
    }
    const std::string_view callee_name = s.f.symbol(submit.callee());
    const function* callee = s.index.find(s.prog, callee_name);
    if (callee == nullptr) {
      s.fail(v.loc, v.mn, " callee '@", callee_name, "' is not defined");
      return;
    }
    if (!enum_ok(callee->kind, function_kind::orchestration) || !callee->is_device()) {
      s.fail(v.loc, v.mn, " callee '@", callee_name, "' is not a device function");
      return;
    }
    const auto args = s.elements(submit.call_args());
    if (args.size() != callee->params.size()) {
      s.fail(v.loc, v.mn, " @", callee_name, " expects ", static_cast<std::int64_t>(callee->params.size()), " arguments, got ",
             static_cast<std::int64_t>(args.size()));
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
          s.fail(v.loc, v.mn, " @", callee_name, " argument ", static_cast<std::int64_t>(i), " must be a scalar of dtype ",
                 dtype_text(pt.dt));
      }
    }
  }
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
