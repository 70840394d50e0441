// SPDX-License-Identifier: Apache-2.0
/// @file recipe/spec_tables.hpp
/// The spec's default-rollout tables as data: elementwise op x dtype and GM transfer dtypes.
/// Recipes read these rows; tests/static check every row against the registered recipes.
#pragma once

#include <array>
#include <span>
#include <cstddef>

#include "tile2buffer/ir/elementwise.hpp"
#include "tile2buffer/ir/enums.hpp"
#include "tile2buffer/ir/opcode.hpp"

namespace tile2buffer {
inline namespace v0 {

struct elementwise_row {
  opcode op;
  std::array<dtype, 3> dtypes;
  std::size_t count;
  bool default_tier = true;  ///< false: an extended-rollout op (extended-rollout.md §3.6)
};

/// Spec "Default whole-kernel selection" table (add/mul FP16, FP32, INT32; the rest FP32 only),
/// and the extended rollout's elementwise rows (rsqrt), marked as its tier.
inline constexpr std::array<elementwise_row, 22> elementwise_table{{
    {opcode::tile_add, {dtype::fp16, dtype::fp32, dtype::int32}, 3},
    {opcode::tile_mul, {dtype::fp16, dtype::fp32, dtype::int32}, 3},
    {opcode::tile_sub, {dtype::fp32}, 1},
    {opcode::tile_div, {dtype::fp32}, 1},
    {opcode::tile_maximum, {dtype::fp32}, 1},
    {opcode::tile_minimum, {dtype::fp32}, 1},
    {opcode::tile_abs, {dtype::fp32}, 1},
    {opcode::tile_exp, {dtype::fp32}, 1},
    {opcode::tile_sqrt, {dtype::fp32}, 1},
    {opcode::tile_neg, {dtype::fp32}, 1},
    {opcode::tile_relu, {dtype::fp32}, 1},
    {opcode::tile_log, {dtype::fp32}, 1},
    {opcode::tile_recip, {dtype::fp32}, 1},
    {opcode::tile_rsqrt, {dtype::fp32}, 1, false},
    {opcode::tile_adds, {dtype::fp32}, 1},
    {opcode::tile_subs, {dtype::fp32}, 1},
    {opcode::tile_muls, {dtype::fp32}, 1},
    {opcode::tile_divs, {dtype::fp32}, 1},
    {opcode::tile_maximums, {dtype::fp32}, 1},
    {opcode::tile_minimums, {dtype::fp32}, 1},
    {opcode::tile_lrelu, {dtype::fp32}, 1},
    {opcode::tile_full, {dtype::fp32}, 1},
}};
static_assert(covers_tile_elementwise(elementwise_table, [](const elementwise_row& r) { return r.op; }),
              "tile2buffer: elementwise_table must have one row per elementwise op of the op catalogue");

/// The extended rollout's arithmetic element types (extended-rollout.md §2.2): FP32 only, for every
/// op of its catalogue; the ISA's FP16 forms stay Tile until device tests cover their precision.
inline constexpr std::array<dtype, 1> extended_arithmetic_dtypes{dtype::fp32};
constexpr bool extended_allows(dtype d) {
  for (dtype x : extended_arithmetic_dtypes)
    if (x == d) return true;
  return false;
}

/// Ordinary packed ND GM load/store element types (BF16 transfer does not imply BF16 arithmetic).
inline constexpr std::array<dtype, 4> gm_transfer_dtypes{dtype::fp16, dtype::bf16, dtype::fp32, dtype::int32};

constexpr const elementwise_row* elementwise_row_of(opcode op) {
  for (const auto& row : elementwise_table)
    if (row.op == op) return &row;
  return nullptr;
}
constexpr bool elementwise_allows(opcode op, dtype d) {
  const auto* row = elementwise_row_of(op);
  if (row == nullptr) return false;
  for (std::size_t i = 0; i < row->count; ++i)
    if (row->dtypes[i] == d) return true;
  return false;
}
/// The element types the spec's table allows for elementwise op `op` (empty for other ops).
constexpr std::span<const dtype> elementwise_dtypes(opcode op) {
  const auto* row = elementwise_row_of(op);
  return row == nullptr ? std::span<const dtype>{} : std::span<const dtype>(row->dtypes.data(), row->count);
}
/// Cube operand element types (reference §2.6): FP16, BF16 and FP32 accumulate in FP32, INT8 in INT32.
inline constexpr std::array<dtype, 4> cube_operand_dtypes{dtype::fp16, dtype::bf16, dtype::fp32, dtype::int8};
constexpr bool cube_operand_allows(dtype d) {
  for (dtype x : cube_operand_dtypes)
    if (x == d) return true;
  return false;
}
/// With `int8` (the extended rollout, quantized-path.md §2.1), INT8 Vec tiles load and store too.
constexpr bool gm_transfer_allows(dtype d, bool int8 = false) {
  for (dtype x : gm_transfer_dtypes)
    if (x == d) return true;
  return int8 && d == dtype::int8;
}
constexpr std::string_view gm_transfer_names(bool int8) { return int8 ? "FP16/BF16/FP32/INT32/INT8" : "FP16/BF16/FP32/INT32"; }

}  // namespace v0
}  // namespace tile2buffer
