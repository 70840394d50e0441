// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/region_rules.hpp
/// Models of the structured control flow: `if` conditions, `for` bounds and carries, `while`
/// carries, and the arity and types of the trailing `yield` / `return` of each region.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "tile2buffer/ir/verify/op_rule.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// The argument values of region `i` of a region op, or an empty span when malformed.
template <class = void>
constexpr span32 region_args(const verify_state& s, const op_view& v, std::uint32_t i) {
  if (i >= v.regions.count) return {};
  const region_info& r = s.f.regions[v.regions.begin + i];
  return in_bounds(r.args, s.f.values.size()) ? r.args : span32{};
}

/// Carried values: region args `args[first..]`, the op's results and the inits agree in count and type.
template <class = void>
constexpr void check_carries(verify_state& s, const op_view& v, std::span<const operand> inits, span32 args, std::uint32_t first,
                             std::string_view region) {
  if (args.count != inits.size() + first) {
    s.fail(v.loc, v.mn, ' ', region, " region must take ", first == 1 ? "the induction variable and " : "",
           "one argument per iteration value");
    return;
  }
  if (v.results.count != inits.size()) {
    s.fail(v.loc, v.mn, " must have one result per iteration value");
    return;
  }
  for (std::uint32_t i = 0; i < inits.size(); ++i) {
    const type& at = s.f.type_of(value_id{args.begin + first + i});
    const type* rt = s.result_type(v, i);
    if (rt == nullptr || !(at == *rt) || !s.operand_has_type(inits[i], at)) {
      s.fail(v.loc, v.mn, " iteration value ", static_cast<std::int64_t>(i), " must have the same type as its init and result");
    }
  }
}

template <class V>
struct op_rule<opcode::cf_if, V> : model<opcode::cf_if> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    if (!s.bool_operand(op(s.f, v.id).cond())) s.fail(v.loc, v.mn, " condition must be a BOOL scalar");
    for (std::uint32_t i = 0; i < v.regions.count; ++i)
      if (region_args(s, v, i).count != 0) s.fail(v.loc, v.mn, " arms take no arguments");
  }
};

template <class V>
struct op_rule<opcode::cf_for, V> : model<opcode::cf_for> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op loop(s.f, v.id);
    for (const operand& bound : {loop.start(), loop.stop(), loop.step()})
      if (!s.integer_operand(bound)) {
        s.fail(v.loc, v.mn, " bounds (start, stop, step) must be integer scalars");
        break;
      }
    const span32 args = region_args(s, v, 0);
    if (args.count >= 1) {
      const type& iv = s.f.type_of(value_id{args.begin});
      if (!iv.is_scalar() || !is_integer(iv.dt)) s.fail(v.loc, v.mn, " induction variable must be an integer scalar");
    }
    check_carries(s, v, loop.inits(), args, 1, "body");
  }
};

template <class V>
struct op_rule<opcode::cf_while, V> : model<opcode::cf_while> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const auto inits = op(s.f, v.id).inits();
    check_carries(s, v, inits, region_args(s, v, 0), 0, "condition");
    check_carries(s, v, inits, region_args(s, v, 1), 0, "body");
  }
};

/// A `yield` ends region `at.which` of `at.owner` (none: the function body, where it is not allowed).
template <class V>
struct op_rule<opcode::cf_yield, V> : model<opcode::cf_yield> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region& at) {
    if (!at.owner.valid()) {
      s.fail(v.loc, v.mn, " is only allowed at the end of an if, for or while region");
      return;
    }
    const op_view owner = checked_view(s.f, at.owner);
    const auto values = op(s.f, v.id).values();
    if (has_trait(owner.code, trait::condition_region) && at.which == 0) {
      if (values.size() != 1 || !s.bool_operand(values.front()))
        s.fail(v.loc, v.mn, " in a while condition region must yield one BOOL");
      return;
    }
    if (values.size() != owner.results.count) {
      s.fail(v.loc, v.mn, " must yield ", static_cast<std::int64_t>(owner.results.count), " value(s) to match the ", owner.mn,
             " results, got ", static_cast<std::int64_t>(values.size()));
      return;
    }
    for (std::uint32_t i = 0; i < owner.results.count; ++i) {
      const type* rt = s.result_type(owner, i);
      if (rt != nullptr && !s.operand_has_type(values[i], *rt))
        s.fail(v.loc, v.mn, " operand ", static_cast<std::int64_t>(i), " must have the type of ", owner.mn, " result ",
               static_cast<std::int64_t>(i));
    }
  }
};

template <class V>
struct op_rule<opcode::cf_return, V> : model<opcode::cf_return> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region& at) {
    if (at.owner.valid()) {
      s.fail(v.loc, v.mn, " is only allowed in the function body");
      return;
    }
    const auto values = op(s.f, v.id).values();
    const auto& results = s.f.results;
    if (values.size() != results.size()) {
      s.fail(v.loc, v.mn, " must return ", static_cast<std::int64_t>(results.size()),
             " value(s) matching the function's result types, got ", static_cast<std::int64_t>(values.size()));
      return;
    }
    for (std::size_t i = 0; i < results.size(); ++i)
      if (!s.operand_has_type(values[i], results[i]))
        s.fail(v.loc, v.mn, " operand ", static_cast<std::int64_t>(i), " must have the function's result type");
  }
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
