// SPDX-License-Identifier: Apache-2.0
/// @file support/kernels.hpp
/// Tiny programs built with the builder API, shared by unit and static tests.
#pragma once

#include "tile2buffer/ir/builder.hpp"

namespace t2b_test {
using namespace tile2buffer;

/// The spec's default-selection kernel: load -> add -> mul -> store (unplanned), FP32 [16, 32].
constexpr function add_mul_kernel(dtype dt = dtype::fp32) {
  function_builder b(function_kind::aiv, "add_mul", {1, 1});
  const auto t = tensor_type(16, 32, dt);
  const value_id A = b.param("A", t);
  const value_id B = b.param("B", t);
  const value_id Out = b.param("Out", t, direction::out);
  b.result_type(t);
  const auto tt = tile_type(16, 32, dt);
  const value_id lhs = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32)}, tt, "lhs", {2, 3});
  const value_id rhs = b.emit1(opcode::tile_load, {operand::of(B), b.pair(0, 0), b.pair(16, 32)}, tt, "rhs", {3, 3});
  const value_id total = b.emit1(opcode::tile_add, {operand::of(lhs), operand::of(rhs)}, tt, "total", {4, 3});
  const value_id product = b.emit1(opcode::tile_mul, {operand::of(total), operand::of(rhs)}, tt, "product", {5, 3});
  const value_id r = b.emit1(opcode::tile_store, {operand::of(product), b.pair(0, 0), operand::of(Out)}, t, "result", {6, 3});
  b.emit0(opcode::cf_return, {operand::of(r)}, {7, 3});
  return b.finish();
}

/// load -> row_max -> store: the whole kernel stays Tile.
constexpr function row_max_kernel() {
  function_builder b(function_kind::aiv, "row_max", {10, 1});
  const value_id A = b.param("A", tensor_type(16, 32, dtype::fp32));
  const auto out_t = tensor_type(16, 1, dtype::fp32);
  const value_id Out = b.param("Out", out_t, direction::out);
  b.result_type(out_t);
  const value_id x =
      b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32)}, tile_type(16, 32, dtype::fp32), "x", {11, 3});
  const value_id m = b.emit1(opcode::tile_row_max, {operand::of(x)}, tile_type(16, 1, dtype::fp32), "m", {12, 3});
  const value_id r = b.emit1(opcode::tile_store, {operand::of(m), b.pair(0, 0), operand::of(Out)}, out_t, "result", {13, 3});
  b.emit0(opcode::cf_return, {operand::of(r)}, {14, 3});
  return b.finish();
}

/// An orchestration submitting both kernels, the second depending on the first.
constexpr function main_orchestration() {
  function_builder b(function_kind::orchestration, "main", {20, 1});
  const auto t = tensor_type(16, 32, dtype::fp32);
  const value_id A = b.param("A", t);
  const value_id B = b.param("B", t);
  const value_id Out = b.param("Out", t, direction::out);
  const value_id Peak = b.param("Peak", tensor_type(16, 1, dtype::fp32), direction::out);
  const value_id t0 = b.emit1(opcode::orch_submit,
                              {b.symbol("add_mul"), b.tuple({operand::of(A), operand::of(B), operand::of(Out)}), b.tuple({})},
                              task_type(), "t0", {21, 3});
  b.emit1(opcode::orch_submit, {b.symbol("row_max"), b.tuple({operand::of(Out), operand::of(Peak)}), b.tuple({operand::of(t0)})},
          task_type(), "t1", {22, 3});
  b.emit0(opcode::cf_return, {}, {23, 3});
  return b.finish();
}

constexpr program single(function f) {
  program p;
  p.functions.push_back(static_cast<function&&>(f));
  return p;
}
constexpr program mixed_program() {
  program p;
  p.functions.push_back(add_mul_kernel());
  p.functions.push_back(row_max_kernel());
  p.functions.push_back(main_orchestration());
  return p;
}

/// Ops of a function's body, as opcodes, in order.
constexpr int count_ops(const function& f, opcode c) {
  int n = 0;
  for (const auto& node : f.ops)
    if (node.code() == c) ++n;
  return n;
}

}  // namespace t2b_test
