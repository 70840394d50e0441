// SPDX-License-Identifier: Apache-2.0
/// @file static_lower.cpp
/// Compiling is passing: the spec's load -> add -> mul -> store kernel lowers in constant
/// evaluation for every planner, and every row of the spec's tables matches its recipe.
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
constexpr bool recipe_matches(opcode op, dtype d) {
  const function f = one_op_kernel(op, d);
  const op_id o{1};
  const kernel_analyses analyses(f);
  for (const recipe_entry& r : registry<default_recipes>::candidates(op))
    if (r.default_rollout && r.match(f, o, match_context{{}, &analyses}).ok) return true;
  return false;
}
/// Every table row x dtype matches exactly when the spec's table lists it.
constexpr bool elementwise_table_is_registered() {
  constexpr dtype all[] = {dtype::fp16, dtype::bf16, dtype::fp32, dtype::int32};
  for (const auto& row : elementwise_table)
    for (dtype d : all)
      if (recipe_matches(row.op, d) != elementwise_allows(row.op, d)) return false;
  return true;
}
static_assert(elementwise_table_is_registered());
static_assert(elementwise_table.size() == 21);
static_assert(!recipe_matches(opcode::tile_add, dtype::bf16), "BF16 transfer does not imply BF16 arithmetic");

/// GM transfers: load matches for exactly the spec's four dtypes.
constexpr bool load_matches(dtype d) {
  const function f = one_op_kernel(opcode::tile_abs, d);
  const kernel_analyses analyses(f);
  return registry<default_recipes>::candidates(opcode::tile_load)[0].match(f, op_id{0}, match_context{{}, &analyses}).ok;
}
static_assert(load_matches(dtype::fp16) && load_matches(dtype::bf16) && load_matches(dtype::fp32) && load_matches(dtype::int32));
static_assert(!load_matches(dtype::int8) && !load_matches(dtype::uint8));

static_assert(registry<default_recipes>::checked);
}  // namespace
