// SPDX-License-Identifier: Apache-2.0
/// @file analysis/descriptor.hpp
/// The Buffer descriptor of a Tile value and the contract checks on it (reference §3.2).
#pragma once

#include <cstdint>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/types.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Buffer descriptor of a Tile type: same shape, dtype, space and layout; a valid extent that is
/// not a constant makes both dims runtime (`?`), since the native metadata update writes both.
constexpr type buffer_descriptor(const type& tile) {
  type b = tile;
  b.kind = type_kind::buffer;
  b.mem = value_id{};
  b.mem_offset = 0;
  if (!tile.static_valid() || tile.valid[0].number == 0 || tile.valid[1].number == 0)
    b.valid = {extent::runtime(), extent::runtime()};
  return b;
}

constexpr bool is_vec_transfer_dtype(dtype d) {
  return d == dtype::fp16 || d == dtype::bf16 || d == dtype::fp32 || d == dtype::int32;
}

/// Empty when `t` is a Tile the default Vec rollout accepts: rank-2 dense Vec, FP16/BF16/FP32/INT32,
/// positive static shape, physical rows 32-byte aligned; otherwise the reason.
constexpr text dense_vec_problem(const type& t) {
  text why;
  if (!t.is_tile()) return why << "expected a Tile value";
  if (t.space != memory_space::vec) return why << "memory space " << name(t.space) << " is not Vec";
  if (!is_vec_transfer_dtype(t.dt)) return why << "Vec descriptor must be dense rank-2 FP16/BF16/FP32/INT32, got " << name(t.dt);
  if (!is_dense_vec(t)) return why << "Vec descriptor must be dense row-major (no boxes, pad or compaction)";
  if (t.shape[0] <= 0 || t.shape[1] <= 0) return why << "static positive physical extents required";
  if (t.row_bytes() % 32 != 0)
    return why << "physical rows aligned to 32 bytes required (a row of " << t.shape[1] << " x " << name(t.dt) << " is "
               << t.row_bytes() << " bytes)";
  return why;
}

}  // namespace v0
}  // namespace tile2buffer
