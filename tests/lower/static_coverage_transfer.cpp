// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_transfer.cpp
/// Compiling is passing: the spec table's "Ordinary packed ND GM load/store" row (FP16, BF16,
/// FP32, INT32) against the public pipeline. A GM load -> GM store kernel lowers to Buffer on
/// exactly those dtypes; on INT8, UINT8 and INT16 it stays Tile with the load named as the reason.
#include "static_coverage.hpp"

namespace t2b_coverage {
namespace {

constexpr function copy_kernel(dtype d) {
  function_builder b(function_kind::aiv, "copy");
  const auto t = tensor_type(16, 64, d);
  const value_id A = b.param("A", t);
  const value_id Out = b.param("Out", t, direction::out);
  b.result_type(t);
  const value_id x = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 64)}, tile_type(16, 64, d), "x");
  const value_id r = b.emit1(opcode::tile_store, {operand::of(x), b.pair(0, 0), operand::of(Out)}, t, "r");
  b.emit0(opcode::cf_return, {operand::of(r)});
  return b.finish();
}

constexpr bool copies_in_buffer(dtype d) {
  const auto r = lower(single(copy_kernel(d)), options{});
  if (!r.ok() || r.value.functions[0].stage != ir_stage::buffer) return false;
  int loads = 0, stores = 0;
  for (const auto& node : r.value.functions[0].ops) {
    loads += mnemonic(node.code()) == "buffer.load";
    stores += mnemonic(node.code()) == "buffer.store";
  }
  return loads == 1 && stores == 1;
}
static_assert(copies_in_buffer(dtype::fp16));
static_assert(copies_in_buffer(dtype::bf16));
static_assert(copies_in_buffer(dtype::fp32));
static_assert(copies_in_buffer(dtype::int32));

constexpr bool copy_stays_tile(dtype d, std::string_view spelled) {
  const options opts{};
  const auto r = lower(single(copy_kernel(d)), opts);
  if (!r.ok() || r.value.functions[0].stage != ir_stage::tile) return false;
  const auto why = explain_selection(r.value, opts);
  if (why.size() != 1 || why[0].selected) return false;
  const std::string_view reason = why[0].reason.view();
  return reason.starts_with("tile.load: ") && contains(reason, spelled);
}
static_assert(copy_stays_tile(dtype::int8, "INT8"));
static_assert(copy_stays_tile(dtype::uint8, "UINT8"));
static_assert(copy_stays_tile(dtype::int16, "INT16"));

}  // namespace
}  // namespace t2b_coverage
