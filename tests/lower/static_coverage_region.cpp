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
    for (std::uint32_t g = 0; g < n.region_count; ++g) {
      const region_info& reg = f.regions[n.regions_begin + g];
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

// Extended rollout (quantized-path.md §2.6): the same runtime-valid load, read only inside the
// loop body, lowers with its guard inside the body; an accumulator trimmed to the batch tail and
// stored in the loop that computes it stores through a view cut inside the store's guard.
constexpr std::string_view acc_tail_in_loop_text =
    R"(aic @acc_tail_in_loop(A: Tensor[[16, 32], FP16], B: Tensor[[32, 64], FP16], Out: out Tensor[[16, 64], FP32], rows: Scalar[INDEX]) -> Tensor[[16, 64], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP16, Mat]
  al = tile.move(a) : Tile[[16, 32], FP16, Left]
  for j in range(0, 4, 1) {
    o = j * 16
    b = tile.load(B, (0, o), (32, 16)) : Tile[[32, 16], FP16, Mat]
    br = tile.move(b) : Tile[[32, 16], FP16, Right]
    c = tile.matmul(al, br) : Tile[[16, 16], FP32, Acc]
    t = tile.set_validshape(c, rows, 16) : Tile[[16, 16], FP32, Acc, valid=[rows, 16]]
    r = tile.store(t, (0, o), Out) : Tensor[[16, 64], FP32]
  }
  return Out
}
)";
/// Whether the first op `c` of `f` sits in the then arm of an `if` (its guard) that sits directly
/// in the body of a `for`.
constexpr bool guarded_in_loop(const function& f, opcode c) {
  for (std::uint32_t i = 0; i < f.ops.size(); ++i) {
    if (f.ops[i].code() != opcode::cf_if) continue;
    bool holds = false;
    for (const op_id o : f.ops_of(region_id{f.ops[i].regions_begin})) holds = holds || f.op(o).code() == c;
    if (!holds) continue;
    for (std::uint32_t j = 0; j < f.ops.size(); ++j)
      if (f.ops[j].code() == opcode::cf_for)
        for (const op_id o : f.ops_of(region_id{f.ops[j].regions_begin}))
          if (o.index == i) return true;
    return false;
  }
  return false;
}
constexpr bool dynamic_valid_in_loop_lowers(planner_kind planner) {
  const function f = lowered_kernel(dynamic_valid_in_loop_text, planner, rollout_kind::extended);
  return f.stage == ir_stage::buffer && count(f, opcode::cf_for) == 1 && count(f, opcode::buffer_load) == 1 &&
         guarded_in_loop(f, opcode::buffer_load) && guarded_in_loop(f, opcode::buffer_store);
}
constexpr bool acc_tail_in_loop_lowers(planner_kind planner) {
  const function f = lowered_kernel(acc_tail_in_loop_text, planner, rollout_kind::extended);
  return f.stage == ir_stage::buffer && count(f, opcode::buffer_subview) == 1 && count(f, opcode::buffer_set_validshape) == 0 &&
         guarded_in_loop(f, opcode::buffer_subview) && guarded_in_loop(f, opcode::buffer_store);
}
static_assert(dynamic_valid_in_loop_lowers(planner_kind::pypto));
static_assert(dynamic_valid_in_loop_lowers(planner_kind::dsa_rp));
static_assert(dynamic_valid_in_loop_lowers(planner_kind::ptoas));
static_assert(acc_tail_in_loop_lowers(planner_kind::pypto));
static_assert(acc_tail_in_loop_lowers(planner_kind::dsa_rp));
static_assert(acc_tail_in_loop_lowers(planner_kind::ptoas));
static_assert(kernel_stays_tile(acc_tail_in_loop_text, "user control flow with dynamic valid state stays Tile"));

}  // namespace
}  // namespace t2b_coverage
