// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_cube.cpp
/// Compiling is passing: the cube path through the public pipeline in constant evaluation. The
/// spec's matmul kernel (example 06) lowers with every planner to one typed allocation per matrix
/// window, two copies, a matmul and a matmul_acc; a K loop with a runtime init_cond keeps its Acc
/// carry in one window (the loop carries nothing) and chooses the write in an if; a transposed
/// operand is an alias allocation (addressed) or a reshape (PTOAS); an atomic Acc store keeps its
/// kernel Tile with the spec's reason.
#include <string_view>

#include "static_coverage_text.hpp"

namespace t2b_coverage {
namespace {

// Why one kernel per evaluation: clang 14 bounds the steps of one constant evaluation.
constexpr std::string_view matmul_text =
    R"(aic @mm(A: Tensor[[32, 32], FP16], B: Tensor[[32, 32], FP16], Out: out Tensor[[32, 32], FP32]) -> Tensor[[32, 32], FP32] {
  a = tile.load(A, (0, 0), (32, 32)) : Tile[[32, 32], FP16, Mat]
  b = tile.load(B, (0, 0), (32, 32)) : Tile[[32, 32], FP16, Mat]
  al = tile.move(a) : Tile[[32, 32], FP16, Left]
  br = tile.move(b) : Tile[[32, 32], FP16, Right]
  x = tile.matmul(al, br) : Tile[[32, 32], FP32, Acc]
  y = tile.matmul_acc(x, al, br) : Tile[[32, 32], FP32, Acc]
  r = tile.store(y, (0, 0), Out) : Tensor[[32, 32], FP32]
  return r
}
)";
constexpr std::string_view k_loop_text =
    R"(aic @kloop(A: Tensor[[16, 64], INT8], B: Tensor[[64, 32], INT8], Out: out Tensor[[16, 32], INT32]) -> Tensor[[16, 32], INT32] {
  c0 = tile.create() : Tile[[16, 32], INT32, Acc]
  acc = for k in range(0, 2, 1) iter(c = c0) -> (Tile[[16, 32], INT32, Acc]) {
    off = k * 32
    first = k == 0
    a = tile.load(A, (0, off), (16, 32)) : Tile[[16, 32], INT8, Mat]
    b = tile.load(B, (off, 0), (32, 32)) : Tile[[32, 32], INT8, Mat]
    al = tile.move(a) : Tile[[16, 32], INT8, Left]
    br = tile.move(b) : Tile[[32, 32], INT8, Right]
    y = tile.matmul_acc(c, al, br, init_cond = first) : Tile[[16, 32], INT32, Acc]
    yield y
  }
  r = tile.store(acc, (0, 0), Out) : Tensor[[16, 32], INT32]
  return r
}
)";
constexpr std::string_view transposed_text =
    R"(aic @trans(A: Tensor[[16, 32], BF16], Bt: Tensor[[16, 32], BF16], Out: out Tensor[[16, 16], BF16]) -> Tensor[[16, 16], BF16] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], BF16, Mat]
  bt = tile.load(Bt, (0, 0), (16, 32)) : Tile[[16, 32], BF16, Mat]
  b = tile.transpose_view(bt) : Tile[[32, 16], BF16, Mat, ZN]
  al = tile.move(a) : Tile[[16, 32], BF16, Left]
  br = tile.move(b) : Tile[[32, 16], BF16, Right]
  c = tile.matmul(al, br) : Tile[[16, 16], FP32, Acc]
  r = tile.store(c, (0, 0), Out) : Tensor[[16, 16], BF16]
  return r
}
)";
constexpr std::string_view atomic_text =
    R"(aic @atomic(A: Tensor[[16, 32], FP16], B: Tensor[[32, 16], FP16], Out: out Tensor[[16, 16], FP32]) -> Tensor[[16, 16], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP16, Mat]
  b = tile.load(B, (0, 0), (32, 16)) : Tile[[32, 16], FP16, Mat]
  al = tile.move(a) : Tile[[16, 32], FP16, Left]
  br = tile.move(b) : Tile[[32, 16], FP16, Right]
  c = tile.matmul(al, br) : Tile[[16, 16], FP32, Acc]
  r = tile.store(c, (0, 0), Out, atomic = 1) : Tensor[[16, 16], FP32]
  return r
}
)";

constexpr bool carries_nothing(const function& f) {
  for (const auto& n : f.ops)
    if (is_region_op(n.code()) && n.results.count != 0) return false;
  return true;
}

constexpr bool matmul_lowers(planner_kind planner) {
  const function f = lowered_kernel(matmul_text, planner);
  return f.stage == ir_stage::buffer && count(f, opcode::buffer_alloc) == 5 && count(f, opcode::buffer_copy) == 2 &&
         count(f, opcode::buffer_matmul) == 1 && count(f, opcode::buffer_matmul_acc) == 1 && count(f, opcode::buffer_store) == 1;
}
constexpr bool k_loop_lowers(planner_kind planner) {
  const function f = lowered_kernel(k_loop_text, planner);
  return f.stage == ir_stage::buffer && carries_nothing(f) && count(f, opcode::cf_for) == 1 && count(f, opcode::cf_if) == 1 &&
         count(f, opcode::buffer_matmul) == 1 && count(f, opcode::buffer_matmul_acc) == 1 && count(f, opcode::buffer_copy) == 2;
}
// The transposed Mat window: its own allocation at the same address (addressed) or a reshape.
constexpr bool transposed_lowers(planner_kind planner) {
  const function f = lowered_kernel(transposed_text, planner);
  if (f.stage != ir_stage::buffer) return false;
  if (planner == planner_kind::ptoas) return count(f, opcode::buffer_alloc) == 5 && count(f, opcode::buffer_reshape) == 1;
  return count(f, opcode::buffer_alloc) == 6 && count(f, opcode::buffer_reshape) == 0;
}
static_assert(matmul_lowers(planner_kind::pypto));
static_assert(matmul_lowers(planner_kind::dsa_rp));
static_assert(matmul_lowers(planner_kind::ptoas));
static_assert(k_loop_lowers(planner_kind::pypto));
static_assert(k_loop_lowers(planner_kind::ptoas));
static_assert(transposed_lowers(planner_kind::pypto));
static_assert(transposed_lowers(planner_kind::ptoas));
static_assert(kernel_stays_tile(atomic_text, "atomic and phased stores"));

// Extended rollout (quantized-path.md §2.5): 128-deep Mat windows of a K chunk, the weight's through
// its transposed relabel, each moved to L0 as one buffer.extract (no subview of the chunk); the
// default rollout keeps the kernel on Tile.
constexpr std::string_view mat_window_text =
    R"(aic @mat_window(A: Tensor[[16, 256], BF16], W: Tensor[[32, 256], BF16], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  a = tile.load(A, (0, 0), (16, 256)) : Tile[[16, 256], BF16, Mat]
  w = tile.load(W, (0, 0), (32, 256)) : Tile[[32, 256], BF16, Mat]
  b = tile.transpose_view(w) : Tile[[256, 32], BF16, Mat, ZN]
  c0 = tile.create() : Tile[[16, 32], FP32, Acc]
  acc = for k in range(0, 2, 1) iter(c = c0) -> (Tile[[16, 32], FP32, Acc]) {
    off = k * 128
    first = k == 0
    as = tile.slice(a, (16, 128), (0, off)) : Tile[[16, 128], BF16, Mat]
    bs = tile.slice(b, (128, 32), (off, 0)) : Tile[[128, 32], BF16, Mat, ZN]
    al = tile.move(as) : Tile[[16, 128], BF16, Left]
    br = tile.move(bs) : Tile[[128, 32], BF16, Right]
    y = tile.matmul_acc(c, al, br, init_cond = first) : Tile[[16, 32], FP32, Acc]
    yield y
  }
  r = tile.store(acc, (0, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
)";
constexpr bool mat_window_lowers(planner_kind planner) {
  const function f = lowered_kernel(mat_window_text, planner, rollout_kind::extended);
  return f.stage == ir_stage::buffer && carries_nothing(f) && count(f, opcode::buffer_extract) == 2 &&
         count(f, opcode::buffer_subview) == 0 && count(f, opcode::buffer_copy) == 0 && count(f, opcode::buffer_matmul_acc) == 1;
}
static_assert(mat_window_lowers(planner_kind::pypto));
static_assert(mat_window_lowers(planner_kind::dsa_rp));
static_assert(mat_window_lowers(planner_kind::ptoas));
static_assert(kernel_stays_tile(mat_window_text, "memory space Mat is not Vec"));

}  // namespace
}  // namespace t2b_coverage
