// SPDX-License-Identifier: Apache-2.0
/// @file sim/memory.hpp
/// The simulator's storage model: per-byte provenance (never written / value / poison), the
/// descriptor index maps of reference §9.1 (dense row/column-major, NZ, ZN and Acc fractal boxes),
/// value images for the Tile interpreter, and sparse byte arenas per memory space for the Buffer
/// interpreter.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tile2buffer/ir/ids.hpp"
#include "tile2buffer/ir/types.hpp"
#include "tile2buffer/sim/numeric.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

//===--- provenance ---===//

/// What a byte holds. `unset` bytes were never written (reading them is a poison read); `poison`
/// bytes were written with a value derived from unset bytes.
enum class cell_state : std::uint8_t { unset, value, poison };

/// Provenance of one byte (arenas, tile images) or one element (GM tensors). Op indices and value
/// ids refer to the function that ran; `no_id` means "none" (e.g. a GM input element).
struct cell_meta {
  cell_state state = cell_state::unset;
  bool inexact = false;            ///< depends on an op with a tolerance (exp/log/sqrt/div/divs/recip)
  std::uint32_t producer = no_id;  ///< op that computed the value; for poison, the op that first read unset data
  std::uint32_t writer = no_id;    ///< op that last wrote these bytes
  std::uint32_t via = no_id;       ///< GM only: op that last wrote the on-chip bytes a store read
  std::uint32_t origin = no_id;    ///< poison only: value whose never-written storage was read
  std::uint32_t root = no_id;      ///< Buffer arenas: allocation (value id) the bytes were written through
};

/// Merges the provenance of the bytes of one element, or of several operands of one op: poison
/// dominates (it keeps the earliest origin), then unset; inexactness is sticky.
inline cell_meta merge(const cell_meta& a, const cell_meta& b) {
  const auto rank = [](cell_state s) { return s == cell_state::poison ? 2 : s == cell_state::unset ? 1 : 0; };
  cell_meta r = rank(b.state) > rank(a.state) ? b : a;
  r.inexact = a.inexact || b.inexact;
  return r;
}

/// The provenance an op gives the element it computes from inputs with provenance `in`:
/// reading unset data creates poison attributed to `op`; poison keeps its origin.
inline cell_meta computed(const cell_meta& in, std::uint32_t op, bool op_inexact) {
  cell_meta r;
  r.inexact = in.inexact || op_inexact;
  r.writer = op;
  if (in.state == cell_state::value) {
    r.state = cell_state::value;
    r.producer = op;
  } else {
    r.state = cell_state::poison;
    r.producer = in.state == cell_state::unset ? op : in.producer;
    r.origin = in.origin;
  }
  return r;
}
/// Provenance of a moved element (copy, load, store): the producer travels with the value.
inline cell_meta moved(const cell_meta& in, std::uint32_t op) {
  cell_meta r = in;
  r.writer = op;
  r.root = no_id;
  if (in.state == cell_state::unset) {
    r.state = cell_state::poison;
    r.producer = op;
  } else if (in.producer == no_id) {
    r.producer = op;  // a GM input element: the load is where it entered
  }
  return r;
}

//===--- descriptor index maps (reference §9.1) ---===//

/// Box geometry of a descriptor: 1x1 boxes for dense layouts.
struct box_shape {
  std::int64_t rows = 1;
  std::int64_t cols = 1;
};
inline box_shape box_of(const type& d) {
  if (d.slayout == box_layout::none_box) return {};
  const std::int64_t elems = static_cast<std::int64_t>(d.fractal) / element_bytes(d.dt);
  // Why: row-major boxes are 16 rows high (NZ, Acc); column-major boxes are 16 columns wide (ZN).
  if (d.slayout == box_layout::row_major) return {16, elems / 16};
  return {elems / 16, 16};
}

/// Whether the descriptor's physical extents are whole boxes (required for boxed layouts).
inline bool whole_boxes(const type& d) {
  const box_shape b = box_of(d);
  return b.rows > 0 && b.cols > 0 && d.shape[0] % b.rows == 0 && d.shape[1] % b.cols == 0;
}

/// Element index of logical (r, c) inside the physical image of descriptor `d`.
/// Dense: row-major r*C+c or column-major c*R+r. Boxed: boxes ordered by `blayout`
/// (col_major = box-columns first, as NZ/Acc), elements inside a box by `slayout`.
inline std::int64_t layout_index(const type& d, std::int64_t r, std::int64_t c) {
  const std::int64_t R = d.shape[0];
  const std::int64_t C = d.shape[1];
  if (d.slayout == box_layout::none_box) return d.blayout == box_layout::col_major ? c * R + r : r * C + c;
  const box_shape b = box_of(d);
  const std::int64_t box = d.blayout == box_layout::col_major ? (c / b.cols) * (R / b.rows) + r / b.rows
                                                              : (r / b.rows) * (C / b.cols) + c / b.cols;
  const std::int64_t inside = d.slayout == box_layout::row_major ? (r % b.rows) * b.cols + (c % b.cols)
                                                                 : (c % b.cols) * b.rows + (r % b.rows);
  return box * b.rows * b.cols + inside;
}

//===--- value images (Tile interpreter) ---===//

/// A Tile value: its own bytes in the physical layout of its descriptor, per-byte provenance, and
/// its valid rectangle. Fresh images are entirely unset (poison when read).
struct image {
  type desc;  ///< shape, dtype, space and layout; desc.valid is ignored (see valid_rows/valid_cols)
  std::int64_t valid_rows = 0;
  std::int64_t valid_cols = 0;
  std::uint32_t value = no_id;  ///< the SSA value holding this image (names never-written reads)
  std::vector<std::uint8_t> bytes;
  std::vector<cell_meta> meta;

  static image fresh(const type& d, std::int64_t vr, std::int64_t vc) {
    image im;
    im.desc = d;
    im.valid_rows = vr;
    im.valid_cols = vc;
    const auto n = static_cast<std::size_t>(d.bytes() > 0 ? d.bytes() : 0);
    im.bytes.assign(n, 0);
    im.meta.assign(n, cell_meta{});
    return im;
  }
  [[nodiscard]] std::size_t offset(std::int64_t r, std::int64_t c) const {
    return static_cast<std::size_t>(layout_index(desc, r, c) * element_bytes(desc.dt));
  }
  /// The stored bytes of (r, c), merging their provenance into `m`.
  [[nodiscard]] element_bits read_bits(std::int64_t r, std::int64_t c, cell_meta& m) const {
    const std::size_t o = offset(r, c);
    m = meta[o];
    for (int k = 1; k < element_bytes(desc.dt); ++k) m = merge(m, meta[o + static_cast<std::size_t>(k)]);
    return sim::read_bits(desc.dt, bytes.data() + o);
  }
  void write_bits(std::int64_t r, std::int64_t c, const element_bits& e, const cell_meta& m) {
    const std::size_t o = offset(r, c);
    sim::write_bits(desc.dt, bytes.data() + o, e);
    for (int k = 0; k < element_bytes(desc.dt); ++k) meta[o + static_cast<std::size_t>(k)] = m;
  }
  [[nodiscard]] element read(std::int64_t r, std::int64_t c, cell_meta& m) const { return decode(desc.dt, read_bits(r, c, m)); }
  void write(std::int64_t r, std::int64_t c, element e, const cell_meta& m) { write_bits(r, c, encode(desc.dt, e), m); }
};

//===--- byte arenas (Buffer interpreter) ---===//

/// One memory space: a sparse, paged byte array addressed by 64-bit byte addresses. Every byte
/// starts unset, so storage that no op wrote reads as poison wherever a planner placed it.
class arena {
 public:
  static constexpr std::uint64_t page_bytes = 4096;

  [[nodiscard]] std::uint8_t byte(std::uint64_t a, cell_meta& m) const {
    const page* p = find(a / page_bytes);
    if (p == nullptr) {
      m = cell_meta{};
      return 0;
    }
    m = p->meta[a % page_bytes];
    return p->bytes[a % page_bytes];
  }
  void set_byte(std::uint64_t a, std::uint8_t v, const cell_meta& m) {
    page& p = page_at(a / page_bytes);
    p.bytes[a % page_bytes] = v;
    p.meta[a % page_bytes] = m;
  }
  /// Reads the `element_bytes(d)` (<= 8) bytes of one element of type `d`, merging their provenance.
  [[nodiscard]] element_bits read_bits(std::uint64_t a, dtype d, cell_meta& m) const {
    const auto n = static_cast<std::uint64_t>(element_bytes(d));
    const std::uint64_t at = a % page_bytes;
    element_bits r;
    // Why a fast path: a matmul reads every operand element once per product, and looking its
    // page up once per byte made one cube kernel's simulation take seconds under the sanitizers.
    if (at + n <= page_bytes) {
      const page* p = find(a / page_bytes);
      if (p == nullptr) {
        m = cell_meta{};
        return r;
      }
      m = p->meta[at];
      for (std::uint64_t k = 1; k < n; ++k) m = merge(m, p->meta[at + k]);
      return sim::read_bits(d, p->bytes.data() + at);
    }
    for (std::uint64_t k = 0; k < n; ++k) {
      cell_meta b;
      r.b[k] = byte(a + k, b);
      m = k == 0 ? b : merge(m, b);
    }
    return r;
  }
  void write_bits(std::uint64_t a, dtype d, const element_bits& e, const cell_meta& m) {
    const auto n = static_cast<std::uint64_t>(element_bytes(d));
    const std::uint64_t at = a % page_bytes;
    if (at + n <= page_bytes) {
      page& p = page_at(a / page_bytes);
      for (std::uint64_t k = 0; k < n; ++k) {
        p.bytes[at + k] = e.b[k];
        p.meta[at + k] = m;
      }
      return;
    }
    for (std::uint64_t k = 0; k < n; ++k) set_byte(a + k, e.b[k], m);
  }
  /// The value of one element of type `d` at `a` (see read_bits).
  [[nodiscard]] element read(std::uint64_t a, dtype d, cell_meta& m) const { return decode(d, read_bits(a, d, m)); }
  void write(std::uint64_t a, dtype d, element e, const cell_meta& m) { write_bits(a, d, encode(d, e), m); }
  [[nodiscard]] std::size_t pages() const noexcept { return pages_.size(); }

 private:
  struct page {
    std::array<std::uint8_t, page_bytes> bytes{};
    std::array<cell_meta, page_bytes> meta{};
  };
  /// The page at `index`, or nullptr. Why the one-entry cache: consecutive accesses are nearly
  /// always to one page, and pages never move (each is its own allocation) or go away.
  const page* find(std::uint64_t index) const {
    if (last_ != nullptr && last_index_ == index) return last_;
    const auto it = pages_.find(index);
    if (it == pages_.end()) return nullptr;
    last_index_ = index;
    last_ = it->second.get();
    return last_;
  }
  page& page_at(std::uint64_t index) {
    if (last_ != nullptr && last_index_ == index) return *last_;
    auto& slot = pages_[index];
    if (!slot) slot = std::make_unique<page>();
    last_index_ = index;
    last_ = slot.get();
    return *slot;
  }
  std::map<std::uint64_t, std::unique_ptr<page>> pages_;
  mutable std::uint64_t last_index_ = 0;
  mutable page* last_ = nullptr;
};

/// The five on-chip memory spaces (Vec/UB, Mat/L1, Left/L0A, Right/L0B, Acc/L0C).
struct arenas {
  std::array<arena, 5> spaces;
  arena& operator[](memory_space s) { return spaces[static_cast<std::size_t>(s)]; }
  const arena& operator[](memory_space s) const { return spaces[static_cast<std::size_t>(s)]; }
};

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
