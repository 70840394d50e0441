// SPDX-License-Identifier: Apache-2.0
/// @file ir/types.hpp
/// Type descriptors: scalar, GM tensor (with TensorView), Tile (with TileView), Buffer,
/// allocation handle and task. All rank-2 where shaped (the contract is rank 2). A planned Tile
/// value's storage is not part of its type: it is the function's per-value `value_storage`.
#pragma once

#include <array>
#include <cstdint>

#include "tile2buffer/ir/enums.hpp"
#include "tile2buffer/ir/ids.hpp"

namespace tile2buffer {
inline namespace v0 {

/// A valid extent: a static number, a scalar SSA value (Tile), or `?` (Buffer runtime extent).
struct extent {
  static constexpr std::uint32_t static_ref = no_id;
  static constexpr std::uint32_t runtime_ref = no_id - 1;  // Buffer `?`
  std::int64_t number = 0;
  std::uint32_t ref = static_ref;

  static constexpr extent of(std::int64_t n) { return {n, static_ref}; }
  static constexpr extent of(value_id v) { return {0, v.index}; }
  static constexpr extent runtime() { return {-1, runtime_ref}; }
  [[nodiscard]] constexpr bool is_static() const noexcept { return ref == static_ref; }
  [[nodiscard]] constexpr bool is_runtime() const noexcept { return ref == runtime_ref; }
  [[nodiscard]] constexpr bool is_value() const noexcept { return !is_static() && !is_runtime(); }
  [[nodiscard]] constexpr value_id value() const noexcept { return value_id{ref}; }
  friend constexpr bool operator==(extent, extent) = default;
};

enum class type_kind : std::uint8_t { none, scalar, tensor, tile, buffer, mem, task };

/// One descriptor struct for every kind: trivially copyable, so it lives inline in values.
struct type {
  type_kind kind = type_kind::none;
  dtype dt = dtype::fp32;
  memory_space space = memory_space::vec;
  tensor_layout tlayout = tensor_layout::nd;
  box_layout blayout = box_layout::row_major;
  box_layout slayout = box_layout::none_box;
  pad_value pad = pad_value::null;
  compact_mode compact = compact_mode::null;
  bool has_stride = false;  ///< Tensor: explicit TensorView strides present
  std::uint32_t fractal = 512;
  std::array<std::int64_t, 2> shape{0, 0};
  std::array<extent, 2> valid{};  ///< Tile/Buffer valid extents (== shape when full)
  std::array<std::int64_t, 2> stride{0, 0};

  /// Every member (ir/type_hash.hpp checks at compile time that changing any one of them makes
  /// two types differ). Why not `= default`: g++ compares the `std::array` members through calls
  /// to `memcmp`, about 120 instructions per comparison, and the verifier and the recipes compare
  /// a type with itself (the same interned entry) far more often than with another.
  friend constexpr bool operator==(const type& a, const type& b) noexcept {
    if (&a == &b) return true;
    return a.kind == b.kind && equal_but_kind(a, b);
  }
  /// Every member but `kind`: what a Tile and the Buffer lowered from it share. Why here: recipes
  /// and the verifier compared copies with the kind cleared.
  friend constexpr bool equal_but_kind(const type& a, const type& b) noexcept {
    return a.dt == b.dt && a.space == b.space && a.tlayout == b.tlayout && a.blayout == b.blayout && a.slayout == b.slayout &&
           a.pad == b.pad && a.compact == b.compact && a.has_stride == b.has_stride && a.fractal == b.fractal &&
           a.shape[0] == b.shape[0] && a.shape[1] == b.shape[1] && a.valid[0] == b.valid[0] && a.valid[1] == b.valid[1] &&
           a.stride[0] == b.stride[0] && a.stride[1] == b.stride[1];
  }

  [[nodiscard]] constexpr bool is_scalar() const noexcept { return kind == type_kind::scalar; }
  [[nodiscard]] constexpr bool is_tensor() const noexcept { return kind == type_kind::tensor; }
  [[nodiscard]] constexpr bool is_tile() const noexcept { return kind == type_kind::tile; }
  [[nodiscard]] constexpr bool is_buffer() const noexcept { return kind == type_kind::buffer; }
  [[nodiscard]] constexpr bool is_shaped() const noexcept { return is_tensor() || is_tile() || is_buffer(); }
  [[nodiscard]] constexpr bool full_valid() const noexcept {
    return valid[0] == extent::of(shape[0]) && valid[1] == extent::of(shape[1]);
  }
  [[nodiscard]] constexpr bool static_valid() const noexcept { return valid[0].is_static() && valid[1].is_static(); }
  [[nodiscard]] constexpr std::int64_t elements() const noexcept { return shape[0] * shape[1]; }
  [[nodiscard]] constexpr std::int64_t bytes() const noexcept { return elements() * element_bytes(dt); }
  [[nodiscard]] constexpr std::int64_t row_bytes() const noexcept { return shape[1] * element_bytes(dt); }
};

/// The layout a memory space implies when a view does not say otherwise (reference §1.2).
struct default_view {
  box_layout blayout;
  box_layout slayout;
  std::uint32_t fractal;
};
constexpr default_view default_view_of(memory_space s, std::array<std::int64_t, 2> shape) {
  switch (s) {
    case memory_space::vec:
      return {shape[1] == 1 && shape[0] > 1 ? box_layout::col_major : box_layout::row_major, box_layout::none_box, 512};
    case memory_space::mat:
    case memory_space::left: return {box_layout::col_major, box_layout::row_major, 512};
    case memory_space::right: return {box_layout::row_major, box_layout::col_major, 512};
    case memory_space::acc: return {box_layout::col_major, box_layout::row_major, 1024};
  }
  return {box_layout::row_major, box_layout::none_box, 512};
}

constexpr type scalar_type(dtype d) {
  type t;
  t.kind = type_kind::scalar;
  t.dt = d;
  return t;
}
constexpr type tensor_type(std::int64_t rows, std::int64_t cols, dtype d) {
  type t;
  t.kind = type_kind::tensor;
  t.dt = d;
  t.shape = {rows, cols};
  return t;
}
/// A Tile or Buffer descriptor with full valid extents and the space's default layout.
constexpr type shaped_type(type_kind k, std::int64_t rows, std::int64_t cols, dtype d, memory_space s) {
  type t;
  t.kind = k;
  t.dt = d;
  t.space = s;
  t.shape = {rows, cols};
  t.valid = {extent::of(rows), extent::of(cols)};
  const auto v = default_view_of(s, t.shape);
  t.blayout = v.blayout;
  t.slayout = v.slayout;
  t.fractal = v.fractal;
  return t;
}
constexpr type tile_type(std::int64_t rows, std::int64_t cols, dtype d, memory_space s = memory_space::vec) {
  return shaped_type(type_kind::tile, rows, cols, d, s);
}
constexpr type buffer_type(std::int64_t rows, std::int64_t cols, dtype d, memory_space s = memory_space::vec) {
  return shaped_type(type_kind::buffer, rows, cols, d, s);
}
constexpr type mem_type() {
  type t;
  t.kind = type_kind::mem;
  return t;
}
constexpr type task_type() {
  type t;
  t.kind = type_kind::task;
  return t;
}
constexpr type with_valid(type t, extent r, extent c) {
  t.valid = {r, c};
  return t;
}

/// Where a planned Tile value lives: its `tile.alloc` and the byte offset inside it. Why beside
/// the type, in the function's per-value table: tiles that differ only in storage then share one
/// interned type (a planned kernel has a handful of types, not one per tile).
struct value_storage {
  value_id mem;             ///< the tile.alloc result; invalid when unplanned
  std::int64_t offset = 0;  ///< byte offset inside the allocation
  [[nodiscard]] constexpr bool valid() const noexcept { return mem.valid(); }
  friend constexpr bool operator==(const value_storage&, const value_storage&) = default;
};

/// A type with the storage of the value it describes: what builders take for a result (`emit1`,
/// `create`). Converts from a plain type (no storage).
struct placed_type {
  type ty;
  value_storage at;
  constexpr placed_type() = default;
  constexpr placed_type(const type& t, value_storage s = {}) : ty(t), at(s) {}  // NOLINT: implicit by design
};
/// A Tile's type and storage, by reference: what the storage rules compare. A value's comes from
/// `function::stored(v)`; a window a pass composes is a `placed_type`. Only for parameters: it
/// must not outlive what it refers to.
struct stored_tile {
  const type& ty;
  const value_storage& at;
  constexpr stored_tile(const type& t, const value_storage& s) noexcept : ty(t), at(s) {}
  constexpr stored_tile(const placed_type& p) noexcept : ty(p.ty), at(p.at) {}  // NOLINT: implicit by design
  stored_tile(const placed_type&&) = delete;                                    // would outlive the temporary it refers to
};
/// `t` placed at `offset` bytes into allocation `mem` (the text's `in %m[offset]`).
constexpr placed_type in_storage(const type& t, value_id mem, std::int64_t offset = 0) {
  return placed_type(t, value_storage{mem, offset});
}
/// Dense Vec: row-major, no boxes, default fractal, no pad or compaction.
constexpr bool is_dense_vec(const type& t) {
  return t.space == memory_space::vec && t.blayout == box_layout::row_major && t.slayout == box_layout::none_box &&
         t.fractal == 512 && t.pad == pad_value::null && t.compact == compact_mode::null;
}
/// A Vec column vector `[R, 1]` (extended rollout): column-major, unboxed, one element per row
/// contiguous, so `R * esize` bytes must be a multiple of 32 (checked where it is used).
constexpr bool is_column_vector(const type& t) {
  return t.space == memory_space::vec && t.shape[1] == 1 && t.blayout == box_layout::col_major &&
         t.slayout == box_layout::none_box && t.fractal == 512 && t.pad == pad_value::null && t.compact == compact_mode::null;
}
/// The [1, R] row-major relabel of column-vector descriptor `t` (valid [r, 1] -> [1, r]): the same
/// bytes, which the native elementwise instructions take (extended rollout §2.5).
constexpr type row_relabel(type t) {
  t.shape = {1, t.shape[0]};
  t.valid = {extent::of(1), t.valid[0]};
  t.blayout = box_layout::row_major;
  return t;
}

}  // namespace v0
}  // namespace tile2buffer
