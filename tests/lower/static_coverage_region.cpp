// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_region.cpp
/// Compiling is passing: control flow through the public pipeline in constant evaluation. The
/// spec's branch and swap-loop kernels lower with every planner to Buffer IR whose region ops
/// carry only scalars (the branch keeps its offset, the loop its two INDEX carries), with one
/// scratch copy breaking the swap cycle; a dynamic step, a changing GM alias and a runtime-valid
/// load inside a loop keep their kernels Tile with the spec's reasons.
#include <string_view>

#include "static_coverage_text.hpp"

namespace t2b_coverage {
namespace {

// Why one kernel per evaluation: clang 14 bounds the steps of one constant evaluation.
constexpr std::string_view branch_text =
    R"(aiv @branch(A: Tensor[[16, 32], FP32], B: Tensor[[16, 32], FP32], Out: out Tensor[[32, 64], FP32], flag: Scalar[BOOL]) -> Tensor[[32, 64], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  b = tile.load(B, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  chosen, offset = if flag -> (Tile[[16, 32], FP32, Vec], INDEX) {
    product = tile.mul(a, b) : Tile[[16, 32], FP32, Vec]
    yield product, 16
  } else {
    yield a, 0
  }
  result = tile.store(chosen, (offset, 0), Out) : Tensor[[32, 64], FP32]
  return result
}
)";
constexpr std::string_view swap_loop_text =
    R"(aiv @swap_loop(A: Tensor[[16, 32], FP32], B: Tensor[[16, 32], FP32], Out: out Tensor[[64, 64], FP32], count: Scalar[INDEX]) -> Tensor[[64, 64], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  b = tile.load(B, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  left_out, row_out, right_out, column_out = for i in range(0, count, 1) iter(left = a, row = 0, right = b, column = 0) -> (Tile[[16, 32], FP32, Vec], INDEX, Tile[[16, 32], FP32, Vec], INDEX) {
    row_next = row + 1
    column_next = column + 2
    yield right, row_next, left, column_next
  }
  result = tile.store(left_out, (row_out, column_out), Out) : Tensor[[64, 64], FP32]
  return result
}
)";
constexpr std::string_view dynamic_step_text =
    R"(aiv @dynamic_step(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], step: Scalar[INDEX]) -> Tensor[[16, 32], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  r = for i in range(0, 4, step) iter(x = a) -> (Tile[[16, 32], FP32, Vec]) {
    y = tile.adds(x, 1.0) : Tile[[16, 32], FP32, Vec]
    yield y
  }
  s = tile.store(r, (0, 0), Out) : Tensor[[16, 32], FP32]
  return s
}
)";
constexpr std::string_view gm_alias_text =
    R"(aiv @gm_alias(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], Other: out Tensor[[16, 32], FP32], count: Scalar[INDEX]) -> Tensor[[16, 32], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  o_out = for i in range(0, count, 1) iter(o = Out) -> (Tensor[[16, 32], FP32]) {
    s = tile.store(a, (0, 0), o) : Tensor[[16, 32], FP32]
    yield Other
  }
  return o_out
}
)";
constexpr std::string_view dynamic_valid_in_loop_text =
    R"(aiv @dynamic_valid_in_loop(A: Tensor[[64, 32], FP32], Out: out Tensor[[64, 32], FP32], rows: Scalar[INDEX]) -> Tensor[[64, 32], FP32] {
  k_out = for i in range(0, 4, 1) iter(k = 0) -> (INDEX) {
    o = i * 16
    a = tile.load(A, (o, 0), (16, 32), (rows, 32)) : Tile[[16, 32], FP32, Vec, valid=[rows, 32]]
    s = tile.store(a, (o, 0), Out) : Tensor[[64, 32], FP32]
    k_next = k + 1
    yield k_next
  }
  return Out
}
)";

/// Every region op's results and region arguments (but a For's induction variable) are scalars.
constexpr bool scalar_regions_only(const function& f) {
  for (std::uint32_t i = 0; i < f.ops.size(); ++i) {
    const op_node& n = f.ops[i];
    if (!is_region_op(n.code())) continue;
    for (std::uint32_t r = 0; r < n.results.count; ++r)
      if (!f.type_of(value_id{n.results.begin + r}).is_scalar()) return false;
    for (std::uint32_t g = 0; g < n.regions.count; ++g) {
      const region_info& reg = f.regions[n.regions.begin + g];
      for (std::uint32_t a = 0; a < reg.args.count; ++a)
        if (!f.type_of(value_id{reg.args.begin + a}).is_scalar()) return false;
    }
  }
  return true;
}

// The branch: a retargeted mul in one arm, a copy in the other, an if with one (scalar) result.
constexpr bool branch_lowers(planner_kind planner) {
  const function f = lowered_kernel(branch_text, planner);
  if (f.stage != ir_stage::buffer || !scalar_regions_only(f)) return false;
  for (const auto& n : f.ops)
    if (n.code() == opcode::cf_if && n.results.count != 1) return false;
  return count(f, opcode::buffer_mul) == 1 && count(f, opcode::buffer_copy) == 1 && count(f, opcode::cf_if) == 1;
}
// The swap loop: one for with two INDEX carries, and 1 snapshot + 2 moves for the swap.
constexpr bool loop_lowers(planner_kind planner) {
  const function f = lowered_kernel(swap_loop_text, planner);
  return f.stage == ir_stage::buffer && scalar_regions_only(f) && count(f, opcode::buffer_copy) == 3 &&
         count(f, opcode::cf_for) == 1;
}
static_assert(branch_lowers(planner_kind::pypto));
static_assert(branch_lowers(planner_kind::dsa_rp));
static_assert(branch_lowers(planner_kind::ptoas));
static_assert(loop_lowers(planner_kind::pypto));
static_assert(loop_lowers(planner_kind::dsa_rp));
static_assert(loop_lowers(planner_kind::ptoas));
static_assert(kernel_stays_tile(dynamic_step_text, "provably positive constant step"));
static_assert(kernel_stays_tile(gm_alias_text, "GM loop results must retain their initial parameter alias"));
static_assert(kernel_stays_tile(dynamic_valid_in_loop_text, "user control flow with dynamic valid state stays Tile"));

}  // namespace
}  // namespace t2b_coverage
