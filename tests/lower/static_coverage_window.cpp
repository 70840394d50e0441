// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_window.cpp
/// Compiling is passing: windows through the public pipeline in constant evaluation. A slice at
/// a column offset of `block * k` FP32 elements lowers to one buffer.subview exactly when
/// k * 4 bytes is a multiple of 32 (the alignment proof); otherwise the kernel stays Tile with
/// the slice named as the reason. An assemble lowers to one subview and one copy.
#include "static_coverage.hpp"

namespace t2b_coverage {
namespace {

constexpr function slice_kernel(std::int64_t k) {
  function_builder b(function_kind::aiv, "window");
  const auto t = tensor_type(16, 256, dtype::fp32);
  const value_id X = b.param("X", t);
  const value_id Out = b.param("Out", t, direction::out);
  b.result_type(t);
  const value_id block = b.emit1(opcode::tile_get_block_idx, {}, scalar_type(dtype::index), "block");
  const value_id column =
      b.emit1(opcode::scalar_mul, {operand::of(block), operand::integer(k)}, scalar_type(dtype::index), "column");
  const value_id x =
      b.emit1(opcode::tile_load, {operand::of(X), b.pair(0, 0), b.pair(16, 256)}, tile_type(16, 256, dtype::fp32), "x");
  const value_id part = b.emit1(opcode::tile_slice,
                                {operand::of(x), b.pair(16, 8), b.tuple({operand::integer(0), operand::of(column)})},
                                tile_type(16, 8, dtype::fp32), "part");
  const value_id y = b.emit1(opcode::tile_muls, {operand::of(part), operand::decimal(2, 0)}, tile_type(16, 8, dtype::fp32), "y");
  const value_id r = b.emit1(opcode::tile_store, {operand::of(y), b.pair(0, 0), operand::of(Out)}, t, "r");
  b.emit0(opcode::cf_return, {operand::of(r)});
  return b.finish();
}

constexpr int count(const function& f, opcode c) {
  int n = 0;
  for (const auto& node : f.ops) n += node.code() == c ? 1 : 0;
  return n;
}

constexpr bool slice_lowers(std::int64_t k) {
  const auto r = lower(single(slice_kernel(k)), options{});
  return r.ok() && r.value.functions[0].stage == ir_stage::buffer && count(r.value.functions[0], opcode::buffer_subview) == 1;
}
constexpr bool slice_stays_tile(std::int64_t k) {
  const options opts{};
  const auto r = lower(single(slice_kernel(k)), opts);
  if (!r.ok() || r.value.functions[0].stage != ir_stage::tile) return false;
  const auto why = explain_selection(r.value, opts);
  return why.size() == 1 && !why[0].selected && why[0].reason.view().starts_with("tile.slice: ") &&
         contains(why[0].reason.view(), "32-byte aligned");
}
static_assert(slice_lowers(8));
static_assert(slice_lowers(16));
static_assert(slice_lowers(24));
static_assert(slice_lowers(0));
static_assert(slice_stays_tile(1));
static_assert(slice_stays_tile(4));
static_assert(slice_stays_tile(12));

constexpr function assemble_kernel() {
  function_builder b(function_kind::aiv, "assemble");
  const auto big = tensor_type(32, 32, dtype::fp32);
  const value_id C = b.param("C", big);
  const value_id Y = b.param("Y", tensor_type(16, 32, dtype::fp32));
  const value_id Out = b.param("Out", big, direction::out);
  b.result_type(big);
  const value_id c =
      b.emit1(opcode::tile_load, {operand::of(C), b.pair(0, 0), b.pair(32, 32)}, tile_type(32, 32, dtype::fp32), "c");
  const value_id y =
      b.emit1(opcode::tile_load, {operand::of(Y), b.pair(0, 0), b.pair(16, 32)}, tile_type(16, 32, dtype::fp32), "y");
  const value_id p =
      b.emit1(opcode::tile_assemble, {operand::of(c), operand::of(y), b.pair(16, 0)}, tile_type(32, 32, dtype::fp32), "p");
  const value_id r = b.emit1(opcode::tile_store, {operand::of(p), b.pair(0, 0), operand::of(Out)}, big, "r");
  b.emit0(opcode::cf_return, {operand::of(r)});
  return b.finish();
}
constexpr bool assemble_lowers() {
  const auto r = lower(single(assemble_kernel()), options{.planner = planner_kind::ptoas});
  if (!r.ok() || r.value.functions[0].stage != ir_stage::buffer) return false;
  const function& f = r.value.functions[0];
  return count(f, opcode::buffer_subview) == 1 && count(f, opcode::buffer_copy) == 1;
}
static_assert(assemble_lowers());

}  // namespace
}  // namespace t2b_coverage
