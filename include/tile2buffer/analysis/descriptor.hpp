// SPDX-License-Identifier: Apache-2.0
/// @file analysis/descriptor.hpp
/// The Buffer descriptor of a Tile value and the contract checks on it (reference §3.2).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/types.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Bytes each memory space offers on a2a3 (UB, L1, L0A, L0B, L0C); a5 kernels stay Tile, so this
/// is the only table. The planners place within it and `verify_buffer` checks every placed root.
constexpr std::int64_t space_capacity(memory_space s) {
  switch (s) {
    case memory_space::vec: return 192 * 1024;
    case memory_space::mat: return 512 * 1024;
    case memory_space::left: return 64 * 1024;
    case memory_space::right: return 64 * 1024;
    case memory_space::acc: return 128 * 1024;
  }
  return 0;
}

/// Buffer descriptor of a Tile type: same shape, dtype, space and layout; a valid extent that is
/// not a constant makes both dims runtime (`?`), since the native metadata update writes both.
/// Whether the Buffer descriptor of Tile type `tile` has static valid extents (without building
/// the descriptor: the storage index asks this of every value).
constexpr bool descriptor_static_valid(const type& tile) {
  return tile.static_valid() && tile.valid[0].number != 0 && tile.valid[1].number != 0;
}
constexpr type buffer_descriptor(const type& tile) {
  type b = tile;
  b.kind = type_kind::buffer;
  if (!descriptor_static_valid(tile)) b.valid = {extent::runtime(), extent::runtime()};
  return b;
}

/// The element types of a dense Vec tile: FP16, BF16, FP32 and INT32; with `int8`, INT8 too, which
/// the extended rollout moves (create, load, store, move, windows, relabels, valid updates, cast
/// endpoints) but never computes on (quantized-path.md §2.1).
constexpr bool is_vec_transfer_dtype(dtype d, bool int8 = false) {
  return d == dtype::fp16 || d == dtype::bf16 || d == dtype::fp32 || d == dtype::int32 || (int8 && d == dtype::int8);
}

/// Empty when `t` is a Tile the default Vec rollout accepts: rank-2 dense Vec, FP16/BF16/FP32/INT32
/// (and INT8 with `int8`), positive static shape, physical rows 32-byte aligned; otherwise the reason.
constexpr text dense_vec_problem(const type& t, bool int8 = false) {
  text why;
  if (!t.is_tile()) return why << "expected a Tile value";
  if (t.space != memory_space::vec) return why << "memory space " << name(t.space) << " is not Vec";
  if (!is_vec_transfer_dtype(t.dt, int8))
    return why << "Vec descriptor must be dense rank-2 FP16/BF16/FP32/INT32" << (int8 ? "/INT8" : "") << ", got " << name(t.dt);
  if (!is_dense_vec(t)) return why << "Vec descriptor must be dense row-major (no boxes, pad or compaction)";
  if (t.shape[0] <= 0 || t.shape[1] <= 0) return why << "static positive physical extents required";
  if (t.row_bytes() % 32 != 0)
    return why << "physical rows aligned to 32 bytes required (a row of " << t.shape[1] << " x " << name(t.dt) << " is "
               << t.row_bytes() << " bytes)";
  return why;
}

constexpr bool is_matrix_space(memory_space s) {
  return s == memory_space::mat || s == memory_space::left || s == memory_space::right || s == memory_space::acc;
}
constexpr bool is_cube_operand_dtype(dtype d) {
  return d == dtype::fp16 || d == dtype::bf16 || d == dtype::fp32 || d == dtype::int8;
}
/// The accumulator dtype of cube operands of dtype `d` (reference §2.6): FP32 for floats, INT32
/// for INT8.
constexpr dtype accumulator_dtype(dtype d) { return d == dtype::int8 ? dtype::int32 : dtype::fp32; }

/// Rows x cols of one fractal box of `t` (slayout row_major: 16 rows; col_major: 16 cols),
/// or {0, 0} when the fractal size does not divide into 16 element lines.
constexpr std::array<std::int64_t, 2> fractal_box(const type& t) {
  const std::int64_t line = static_cast<std::int64_t>(t.fractal) / 16 / element_bytes(t.dt);
  if (line <= 0 || static_cast<std::int64_t>(t.fractal) % (16 * element_bytes(t.dt)) != 0) return {0, 0};
  return t.slayout == box_layout::row_major ? std::array<std::int64_t, 2>{16, line} : std::array<std::int64_t, 2>{line, 16};
}

/// The matrix descriptor rules shared by the cube recipes, `verify_buffer` and the PTO preflight
/// (reference §3.2, §3.3, §9.1): the space's dtypes, no pad, a fractal layout of whole boxes.
/// Empty when `t` (a Tile or Buffer in Mat/Left/Right/Acc) satisfies them.
constexpr text matrix_descriptor_problem(const type& t) {
  text why;
  const bool acc = t.space == memory_space::acc;
  if (acc ? !(t.dt == dtype::fp32 || t.dt == dtype::int32) : !is_cube_operand_dtype(t.dt))
    return why << "holds " << name(t.dt) << " in " << name(t.space) << "; " << name(t.space) << " tiles are "
               << (acc ? "FP32 or INT32" : "FP16, BF16, FP32 or INT8");
  if (t.pad != pad_value::null) return why << "is a matrix tile with pad; matrix tiles have none";
  if (t.slayout == box_layout::none_box) return why << "is a matrix tile without fractal boxes (slayout none_box)";
  const auto box = fractal_box(t);
  if (box[0] == 0 || t.shape[0] <= 0 || t.shape[1] <= 0 || t.shape[0] % box[0] != 0 || t.shape[1] % box[1] != 0)
    return why << "has physical shape [" << t.shape[0] << ", " << t.shape[1] << "], which is not whole fractal boxes of ["
               << box[0] << ", " << box[1] << ']';
  return why;
}

/// Empty when `t` is a matrix Tile the cube recipes accept: the descriptor rules above and static
/// positive valid extents (matrix descriptors have no runtime metadata); otherwise the reason.
constexpr text matrix_tile_problem(const type& t) {
  if (!t.is_tile()) return text("expected a Tile value");
  if (!is_matrix_space(t.space)) return text("memory space ") << name(t.space) << " is not a matrix space";
  if (text why = matrix_descriptor_problem(t); !why.empty()) return text("the tile ") << why;
  if (!t.static_valid() || t.valid[0].number <= 0 || t.valid[1].number <= 0)
    return text("matrix tiles need static positive valid extents (") << name(t.space) << " descriptors have no runtime metadata)";
  return {};
}

/// The first problem of `tiles` (each a matrix Tile) under `matrix_tile_problem`; empty if none.
constexpr text matrix_tiles_problem(std::initializer_list<const type*> tiles) {
  for (const type* t : tiles)
    if (text why = matrix_tile_problem(*t); !why.empty()) return why;
  return {};
}

}  // namespace v0
}  // namespace tile2buffer
