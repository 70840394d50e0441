// SPDX-License-Identifier: Apache-2.0
/// @file static_lower.cpp
/// Compiling is passing: the spec's load -> add -> mul -> store kernel lowers in constant
/// evaluation for every planner. The spec's elementwise and transfer tables are checked through
/// the public pipeline in static_coverage_*.cpp.
#include "support/kernels.hpp"
#include "tile2buffer/lower.hpp"

namespace {
using namespace tile2buffer;
using namespace t2b_test;

// The default set covers every Tile op and is unambiguous (recipe/table.hpp leaves this check
// to the first use of the set).
static_assert(registry<default_recipes>::checked);

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

}  // namespace
