// SPDX-License-Identifier: Apache-2.0
/// @file sim/models_common.hpp
/// The models every simulator shares (`common_rows<S>`): scalar SSA ops, structured control flow
/// (if/for/while with carries, yield, return) and the SPMD queries of both stages; and how the
/// elementwise family reads its operands (`ew_rows`), one model per kind.
///
/// Why both stages' SPMD queries in every set: a query reads only the launch (`sim_options`), so
/// each interpreter answers it whatever the function's stage.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/sim/interpreter.hpp"
#include "tile2buffer/sim/model_table.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {
namespace detail {

//===--- control flow ---===//

template <class S>
bool model_if(S& s, view<opcode::cf_if> v) {
  scalar_value cond;
  if (v.cond().kind == operand_kind::none || !s.scalar(v.id(), v.cond(), cond)) return s.fail(v.id(), "needs a condition");
  const function& f = s.fn();
  const std::uint32_t nregions = f.op(v.id()).region_count;
  std::vector<slot> yielded;
  bool done = false;
  if (cond.truth()) {
    if (!s.exec_region(f.region_of(v.id(), 0), yielded, done)) return false;
  } else if (nregions > 1) {
    if (!s.exec_region(f.region_of(v.id(), 1), yielded, done)) return false;
  }
  if (s.has_returned_) return true;
  return s.bind_results(v.id(), yielded);
}

template <class S>
bool model_for(S& s, view<opcode::cf_for> v) {
  const op_id o = v.id();
  if (v.start().kind == operand_kind::none || v.stop().kind == operand_kind::none || v.step().kind == operand_kind::none)
    return s.fail(o, "needs start, stop and step");
  std::int64_t start = 0, stop = 0, step = 0;
  if (!s.integer(o, v.start(), start) || !s.integer(o, v.stop(), stop) || !s.integer(o, v.step(), step)) return false;
  if (step <= 0) return s.fail(o, "step must be positive");
  std::vector<slot> carries;
  for (const operand& a : v.inits()) carries.push_back(s.operand_slot(a));
  const function& f = s.fn();
  const region_id body = f.region_of(o, 0);
  const dtype iv_type = f.region(body).args.count > 0 ? f.type_of(f.arg(body, 0)).dt : dtype::index;
  for (std::int64_t i = start; i < stop; i += step) {
    s.bind(f.arg(body, 0), slot::of(scalar_value::of_int(iv_type, i)));
    s.bind_args(body, carries, 1);
    std::vector<slot> yielded;
    bool done = false;
    if (!s.exec_region(body, yielded, done)) return false;
    if (s.has_returned_) return true;
    if (yielded.size() < carries.size()) return s.fail(o, "body yields fewer values than the loop carries");
    yielded.resize(carries.size());
    // Why: all carries update simultaneously (swaps read the old values).
    carries = std::move(yielded);
  }
  return s.bind_results(o, carries);
}

template <class S>
bool model_while(S& s, view<opcode::cf_while> v) {
  const op_id o = v.id();
  const function& f = s.fn();
  std::vector<slot> carries;
  for (const operand& a : v.inits()) carries.push_back(s.operand_slot(a));
  if (f.op(o).region_count < 2) return s.fail(o, "needs a condition and a body region");
  const region_id cond = f.region_of(o, 0);
  const region_id body = f.region_of(o, 1);
  for (;;) {
    s.bind_args(cond, carries);
    std::vector<slot> yielded;
    bool done = false;
    if (!s.exec_region(cond, yielded, done)) return false;
    if (s.has_returned_) return true;
    // The condition is the value the condition region's yield hands over, or else the result of
    // the region's last op.
    slot c;
    if (done && !yielded.empty()) {
      c = yielded.front();
    } else {
      const auto ops = f.ops_of(cond);
      if (ops.empty() || f.op(ops.back()).results.count == 0) return s.fail(o, "condition region computes no value");
      c = s.env_[f.result(ops.back()).index];
    }
    if (c.k != slot::kind::scalar) return s.fail(o, "condition is not a scalar");
    if (!c.s.truth()) break;
    s.bind_args(body, carries);
    yielded.clear();
    done = false;
    if (!s.exec_region(body, yielded, done)) return false;
    if (s.has_returned_) return true;
    if (yielded.size() < carries.size()) return s.fail(o, "body yields fewer values than the loop carries");
    yielded.resize(carries.size());
    carries = std::move(yielded);
  }
  return s.bind_results(o, carries);
}

template <class S>
bool model_yield(S& s, view<opcode::cf_yield> v) {
  s.end_region(v.values());
  return true;
}

template <class S>
bool model_return(S& s, view<opcode::cf_return> v) {
  s.end_region(v.values());
  s.has_returned_ = true;
  return true;
}

//===--- SPMD queries ---===//

template <class S>
bool spmd(S& s, op_id o, std::int64_t value) {
  const function& f = s.fn();
  const dtype d = f.op(o).results.count > 0 ? s.result_type(o).dt : dtype::index;
  if (f.op(o).results.count > 0) s.bind(f.result(o), slot::of(scalar_value::of_int(d, value)));
  return true;
}
template <class S>
bool block_idx(S& s, op_id o) {
  return spmd(s, o, s.options().block_idx);
}
template <class S>
bool block_num(S& s, op_id o) {
  return spmd(s, o, s.options().block_num);
}
template <class S>
bool subblock_idx(S& s, op_id o) {
  return spmd(s, o, s.options().subblock_idx);
}

//===--- scalar SSA ---===//

/// `scalar.const` and `cast`: the `value` operand converted to the result's dtype.
template <class S, opcode C>
bool scalar_convert(S& s, view<C> v) {
  const dtype rt = v.result_type().dt;
  scalar_value a;
  if (v.value().kind == operand_kind::none || !s.scalar(v.id(), v.value(), a)) return false;
  s.bind(v.result(), slot::of(a.as(rt)));
  return true;
}

template <class S>
bool scalar_not(S& s, view<opcode::scalar_not> v) {
  const dtype rt = v.result_type().dt;
  scalar_value a;
  if (v.arg().kind == operand_kind::none || !s.scalar(v.id(), v.arg(), a)) return false;
  s.bind(v.result(), slot::of(scalar_value::of_int(rt, a.truth() ? 0 : 1)));
  return true;
}

/// A comparison or and/or of two scalars (the record's `scalar_fn`), as the BOOL it gives.
inline bool scalar_truth(scalar_fn fn, const scalar_value& a, const scalar_value& b) {
  const bool fp = a.floating() || b.floating();
  const double x = a.number(), y = b.number();
  const std::int64_t i = a.i, j = b.i;
  switch (fn) {
    case scalar_fn::lt: return fp ? x < y : i < j;
    case scalar_fn::le: return fp ? x <= y : i <= j;
    case scalar_fn::eq: return fp ? x == y : i == j;
    case scalar_fn::ne: return fp ? x != y : i != j;
    case scalar_fn::gt: return fp ? x > y : i > j;
    case scalar_fn::ge: return fp ? x >= y : i >= j;
    case scalar_fn::logical_and: return a.truth() && b.truth();
    case scalar_fn::logical_or: return a.truth() || b.truth();
    case scalar_fn::none:
    case scalar_fn::add:
    case scalar_fn::sub:
    case scalar_fn::mul:
    case scalar_fn::floordiv:
    case scalar_fn::mod:
    case scalar_fn::min:
    case scalar_fn::max:
    case scalar_fn::logical_not: return false;  // not a two-scalar truth (scalar_binary routes by family)
  }
  return false;
}

/// Every two-operand scalar op (arithmetic, comparisons, and/or): one model for the families,
/// computing the record's `scalar_fn`, as the elementwise ops share one per kind.
template <class S>
bool scalar_binary(S& s, op_id o) {
  const function& f = s.fn();
  const op_record& rec = info(f.op(o).code());
  const dtype rt = s.result_type(o).dt;
  const operand lhs = named_operand<"lhs">(f, o);
  const operand rhs = named_operand<"rhs">(f, o);
  scalar_value a, b;
  if (lhs.kind == operand_kind::none || rhs.kind == operand_kind::none || !s.scalar(o, lhs, a) || !s.scalar(o, rhs, b))
    return s.fail(o, "needs two scalar operands");
  if (rec.family != op_family::scalar_arith) {
    s.bind(f.result(o), slot::of(scalar_value::of_int(rt, scalar_truth(rec.fn, a, b) ? 1 : 0)));
    return true;
  }
  if (is_float(rt)) {
    const double x = a.number(), y = b.number();
    double r = 0.0;
    switch (rec.fn) {
      case scalar_fn::add: r = x + y; break;
      case scalar_fn::sub: r = x - y; break;
      case scalar_fn::mul: r = x * y; break;
      case scalar_fn::floordiv: r = std::floor(x / y); break;
      case scalar_fn::mod: r = x - std::floor(x / y) * y; break;
      case scalar_fn::min: r = x < y ? x : y; break;
      case scalar_fn::max: r = x > y ? x : y; break;
      case scalar_fn::none:
      case scalar_fn::lt:
      case scalar_fn::le:
      case scalar_fn::eq:
      case scalar_fn::ne:
      case scalar_fn::gt:
      case scalar_fn::ge:
      case scalar_fn::logical_and:
      case scalar_fn::logical_or:
      case scalar_fn::logical_not: return s.fail(o, "unsupported scalar op");
    }
    s.bind(f.result(o), slot::of(scalar_value::of_float(rt, r)));
    return true;
  }
  const std::int64_t x = a.integer(), y = b.integer();
  std::int64_t r = 0;
  switch (rec.fn) {
    case scalar_fn::add: r = wrapping_add(rt, x, y); break;
    case scalar_fn::sub: r = wrapping_sub(rt, x, y); break;
    case scalar_fn::mul: r = wrapping_mul(rt, x, y); break;
    case scalar_fn::floordiv:
    case scalar_fn::mod: {
      const bool quotient = rec.fn == scalar_fn::floordiv;
      if (y == 0) return s.fail(o, "integer division by zero");
      if (y == -1) {  // exact; and x / -1 traps for the smallest INT64 on x86 (the quotient wraps)
        r = quotient ? wrapping_sub(rt, 0, x) : 0;
        break;
      }
      std::int64_t q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0))) --q;  // floor, as Python's //
      r = quotient ? q : wrapping_sub(rt, x, wrapping_mul(rt, q, y));
      break;
    }
    case scalar_fn::min: r = x < y ? x : y; break;
    case scalar_fn::max: r = x > y ? x : y; break;
    case scalar_fn::none:
    case scalar_fn::lt:
    case scalar_fn::le:
    case scalar_fn::eq:
    case scalar_fn::ne:
    case scalar_fn::gt:
    case scalar_fn::ge:
    case scalar_fn::logical_and:
    case scalar_fn::logical_or:
    case scalar_fn::logical_not: return s.fail(o, "unsupported scalar op");
  }
  s.bind(f.result(o), slot::of(scalar_value::of_int(rt, r)));
  return true;
}

/// The scalar ops with two operands (`lhs rhs`), each run by `scalar_binary`: the members of
/// the scalar families but `not`, from their records.
constexpr bool scalar_binary_op(opcode c) {
  const op_record& r = info(c);
  return r.dia == dialect::scalar && r.fn != scalar_fn::none && r.fn != scalar_fn::logical_not;
}
inline constexpr auto scalar_binary_ops = [] {
  constexpr std::size_t n = [] {
    std::size_t k = 0;
    for (std::size_t i = 0; i < opcode_count; ++i) k += scalar_binary_op(static_cast<opcode>(i));
    return k;
  }();
  std::array<opcode, n> out{};
  std::size_t k = 0;
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (scalar_binary_op(static_cast<opcode>(i))) out[k++] = static_cast<opcode>(i);
  return out;
}();

/// The rows of the models above, for a simulator state `S`.
template <class S>
inline constexpr auto common_rows = concat_rows(std::array<model_row<S>, 14>{{
                                                    typed_model<&model_if<S>>,
                                                    typed_model<&model_for<S>>,
                                                    typed_model<&model_while<S>>,
                                                    typed_model<&model_yield<S>>,
                                                    typed_model<&model_return<S>>,
                                                    typed_model<&scalar_convert<S, opcode::scalar_const>>,
                                                    typed_model<&scalar_convert<S, opcode::scalar_cast>>,
                                                    typed_model<&scalar_not<S>>,
                                                    {opcode::tile_get_block_idx, &block_idx<S>},
                                                    {opcode::tile_get_block_num, &block_num<S>},
                                                    {opcode::tile_get_subblock_idx, &subblock_idx<S>},
                                                    {opcode::buffer_get_block_idx, &block_idx<S>},
                                                    {opcode::buffer_get_block_num, &block_num<S>},
                                                    {opcode::buffer_get_subblock_idx, &subblock_idx<S>},
                                                }},
                                                [] {
                                                  std::array<model_row<S>, scalar_binary_ops.size()> r{};
                                                  for (std::size_t i = 0; i < r.size(); ++i)
                                                    r[i] = {scalar_binary_ops[i], &scalar_binary<S>};
                                                  return r;
                                                }());

//===--- the elementwise family (what each op computes: models_tile.hpp, models_buffer.hpp) ---===//

/// The operands of one elementwise op, as its kind names them: `first` and `second` the tile or
/// buffer operands (none for fill; `second` only for binary), `scalar` the scalar (fill and the
/// scalar forms). A Buffer op's `dest` is read by its stage's model.
struct ew_operands {
  std::optional<operand> first, second, scalar;
};
template <ew_kind K>
ew_operands ew_operands_of(const function& f, op_id o) {
  if constexpr (K == ew_kind::binary) return {named_operand<"lhs">(f, o), named_operand<"rhs">(f, o), std::nullopt};
  else if constexpr (K == ew_kind::unary) return {named_operand<"source">(f, o), std::nullopt, std::nullopt};
  else if constexpr (K == ew_kind::scalar_form)
    return {named_operand<"source">(f, o), std::nullopt, named_operand<"scalar">(f, o)};
  else return {std::nullopt, std::nullopt, named_operand<"value">(f, o)};
}
/// The model of elementwise kind K: reads the kind's operands, then runs the stage's semantics.
template <class S, bool (*Elementwise)(S&, op_id, const ew_operands&), ew_kind K>
bool ew_model(S& s, op_id o) {
  return Elementwise(s, o, ew_operands_of<K>(s.fn(), o));
}
/// One row per elementwise op of a stage (`InStage`), each the model of its kind.
template <class S, bool (*Elementwise)(S&, op_id, const ew_operands&), bool (*InStage)(opcode)>
inline constexpr auto ew_rows = [] {
  constexpr std::size_t n = [] {
    std::size_t k = 0;
    for (std::size_t i = 0; i < opcode_count; ++i)
      k += InStage(static_cast<opcode>(i)) && info(static_cast<opcode>(i)).ew != ew_kind::none;
    return k;
  }();
  std::array<model_row<S>, n> rows{};
  std::size_t k = 0;
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const auto c = static_cast<opcode>(i);
    if (!InStage(c)) continue;
    switch (info(c).ew) {
      case ew_kind::binary: rows[k++] = {c, &ew_model<S, Elementwise, ew_kind::binary>}; break;
      case ew_kind::unary: rows[k++] = {c, &ew_model<S, Elementwise, ew_kind::unary>}; break;
      case ew_kind::scalar_form: rows[k++] = {c, &ew_model<S, Elementwise, ew_kind::scalar_form>}; break;
      case ew_kind::fill: rows[k++] = {c, &ew_model<S, Elementwise, ew_kind::fill>}; break;
      case ew_kind::none: break;
    }
  }
  return rows;
}();

/// What the shared models cover: the scalar and control-flow ops every set needs.
constexpr bool common_op(opcode c) { return dialect_of(c) == dialect::scalar || dialect_of(c) == dialect::control; }

}  // namespace detail
}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
