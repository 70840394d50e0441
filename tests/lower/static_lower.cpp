// SPDX-License-Identifier: Apache-2.0
/// @file static_lower.cpp
/// Compiling is passing: the spec's load -> add -> mul -> store kernel lowers in constant
/// evaluation for every planner, and the GM load recipe matches the spec's transfer dtypes.
/// The elementwise table is checked through the public pipeline in static_coverage_*.cpp.
#include "support/kernels.hpp"
#include "tile2buffer/lower.hpp"

namespace {
using namespace tile2buffer;
using namespace t2b_test;

constexpr bool lowers_with(planner_kind planner) {
  const auto r = lower(single(add_mul_kernel()), options{.planner = planner});
  if (!r.ok()) return false;
  const function& f = r.value.functions[0];
  // The body in order: four allocations, two loads, add, mul, store, return.
  const opcode expected[] = {opcode::buffer_alloc, opcode::buffer_alloc, opcode::buffer_alloc, opcode::buffer_alloc,
                             opcode::buffer_load,  opcode::buffer_load,  opcode::buffer_add,   opcode::buffer_mul,
                             opcode::buffer_store, opcode::cf_return};
  const auto body = f.ops_of(f.body);
  if (body.size() != std::size(expected)) return false;
  for (std::size_t i = 0; i < body.size(); ++i)
    if (f.op(body[i]).code() != expected[i]) return false;
  for (std::size_t i = 0; i < 4; ++i)
    if (f.args(body[i]).size() != (addressed(planner) ? 2u : 1u)) return false;
  return f.stage == ir_stage::buffer;
}
static_assert(lowers_with(planner_kind::pypto));
static_assert(lowers_with(planner_kind::dsa_rp));
static_assert(lowers_with(planner_kind::ptoas));

/// A one-op kernel `dst = op(a[, b | 2.0])` of dtype `d`, planned, for constant-evaluating match.
constexpr function one_op_kernel(opcode op, dtype d) {
  function_builder b(function_kind::aiv, "k");
  const auto tt = tile_type(16, 64, d);
  const value_id A = b.param("A", tensor_type(16, 64, d));
  const value_id x = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 64)}, tt, "x");
  switch (info(op).ew) {
    case ew_kind::binary: b.emit1(op, {operand::of(x), operand::of(x)}, tt, "y"); break;
    case ew_kind::unary: b.emit1(op, {operand::of(x)}, tt, "y"); break;
    case ew_kind::scalar_form: b.emit1(op, {operand::of(x), operand::decimal(2, 0)}, tt, "y"); break;
    case ew_kind::fill: b.emit1(op, {operand::decimal(2, 0)}, tt, "y"); break;
    case ew_kind::none: break;
  }
  return b.finish();
}
/// GM transfers: load matches for exactly the spec's four dtypes.
constexpr bool load_matches(dtype d) {
  const function f = one_op_kernel(opcode::tile_abs, d);
  return dispatch_table<default_recipes>::candidates(opcode::tile_load)[0].match(f, op_id{0}, match_context{}).ok;
}
static_assert(load_matches(dtype::fp16) && load_matches(dtype::bf16) && load_matches(dtype::fp32) && load_matches(dtype::int32));
static_assert(!load_matches(dtype::int8) && !load_matches(dtype::uint8));

static_assert(every_tile_op_has_a_recipe_or_stays_tile);
static_assert(default_recipes_are_unambiguous);
}  // namespace
