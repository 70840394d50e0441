// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/region_rules.hpp
/// Rules of the structured control flow: `if` conditions, `for` bounds and carries, `while`
/// carries, and the arity and types of the trailing `yield` / `return` of each region.
#pragma once

#include <cstdint>

#include "tile2buffer/ir/verify/state.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// The argument values of region `i` of a region op, or an empty span when malformed.
constexpr span32 region_args(const verify_state& s, const op_view& v, std::uint32_t i) {
  if (i >= v.regions.count) return {};
  const region_info& r = s.f.regions[v.regions.begin + i];
  return in_bounds(r.args, s.f.values.size()) ? r.args : span32{};
}

/// Carried values: region args `args[first..]`, the op's results and the inits agree in count and type.
constexpr void check_carries(verify_state& s, const op_view& v, std::span<const operand> inits, span32 args,
                             std::uint32_t first, std::string_view region) {
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
    if (rt == nullptr || !same_type(at, *rt) || !s.operand_has_type(inits[i], at)) {
      s.fail(v.loc, v.mn, " iteration value ", static_cast<std::int64_t>(i),
             " must have the same type as its init and result");
    }
  }
}

constexpr void check_if(verify_state& s, const op_view& v) {
  if (!s.bool_operand(v.args[0])) s.fail(v.loc, v.mn, " condition must be a BOOL scalar");
  for (std::uint32_t i = 0; i < v.regions.count; ++i)
    if (region_args(s, v, i).count != 0) s.fail(v.loc, v.mn, " arms take no arguments");
}

constexpr void check_for(verify_state& s, const op_view& v) {
  for (std::size_t i = 0; i < 3; ++i)
    if (!s.integer_operand(v.args[i])) {
      s.fail(v.loc, v.mn, " bounds (start, stop, step) must be integer scalars");
      break;
    }
  const span32 args = region_args(s, v, 0);
  if (args.count >= 1) {
    const type& iv = s.f.type_of(value_id{args.begin});
    if (!iv.is_scalar() || !is_integer(iv.dt)) s.fail(v.loc, v.mn, " induction variable must be an integer scalar");
  }
  check_carries(s, v, v.args.subspan(3), args, 1, "body");
}

constexpr void check_while(verify_state& s, const op_view& v) {
  check_carries(s, v, v.args, region_args(s, v, 0), 0, "condition");
  check_carries(s, v, v.args, region_args(s, v, 1), 0, "body");
}

/// A `yield` ends region `which` of `owner` (null: the function body, where it is not allowed).
constexpr void check_yield(verify_state& s, const op_view& v, const op_view* owner, std::uint32_t which) {
  if (owner == nullptr) {
    s.fail(v.loc, v.mn, " is only allowed at the end of an if, for or while region");
    return;
  }
  if (owner->code == opcode::cf_while && which == 0) {
    if (v.args.size() != 1 || !s.bool_operand(v.args[0]))
      s.fail(v.loc, v.mn, " in a while condition region must yield one BOOL");
    return;
  }
  if (v.args.size() != owner->results.count) {
    s.fail(v.loc, v.mn, " must yield ", static_cast<std::int64_t>(owner->results.count), " value(s) to match the ",
           owner->mn, " results, got ", static_cast<std::int64_t>(v.args.size()));
    return;
  }
  for (std::uint32_t i = 0; i < owner->results.count; ++i) {
    const type* rt = s.result_type(*owner, i);
    if (rt != nullptr && !s.operand_has_type(v.args[i], *rt))
      s.fail(v.loc, v.mn, " operand ", static_cast<std::int64_t>(i), " must have the type of ", owner->mn, " result ",
             static_cast<std::int64_t>(i));
  }
}

constexpr void check_return(verify_state& s, const op_view& v, bool in_body) {
  if (!in_body) {
    s.fail(v.loc, v.mn, " is only allowed in the function body");
    return;
  }
  const auto& results = s.f.results;
  if (v.args.size() != results.size()) {
    s.fail(v.loc, v.mn, " must return ", static_cast<std::int64_t>(results.size()),
           " value(s) matching the function's result types, got ", static_cast<std::int64_t>(v.args.size()));
    return;
  }
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!s.operand_has_type(v.args[i], results[i]))
      s.fail(v.loc, v.mn, " operand ", static_cast<std::int64_t>(i), " must have the function's result type");
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
