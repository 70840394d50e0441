// SPDX-License-Identifier: Apache-2.0
/// @file sim/gm.hpp
/// GM (global memory) tensors of the simulator: packed row-major storage surrounded by a sentinel
/// band, per-element provenance, and seeded input values.
///
/// Layout: elements are addressed by a flat index f = row * cols + col (strides [cols, 1]), so a
/// window that runs past the last column continues into the next row, as on hardware. The band
/// holds `band` elements before index 0 and after index rows*cols; band elements hold -777 and are
/// never legitimately written (a write there is a "sentinel hit"). The interior of an `out` tensor
/// starts as -555 and unset: reading it before the kernel wrote it is a poison read.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/enums.hpp"
#include "tile2buffer/ir/types.hpp"
#include "tile2buffer/sim/memory.hpp"
#include "tile2buffer/sim/numeric.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

inline constexpr double sentinel_band = -777.0;       ///< value of every band element
inline constexpr double sentinel_unwritten = -555.0;  ///< initial interior value of `out` tensors

/// One GM tensor with its sentinel band.
struct gm_tensor {
  std::string name;
  dtype dt = dtype::fp32;
  direction dir = direction::in;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t band = 0;            ///< band elements on each side
  std::vector<std::uint8_t> bytes;  ///< (band + rows*cols + band) elements
  std::vector<cell_meta> meta;      ///< per element, same indexing as `bytes`

  /// A tensor of type `t` whose band is two rows plus 64 elements on each side. Inputs (`in`,
  /// `inout`) get defined zero values until seeded; `out` interiors are -555 and unset.
  static gm_tensor make(std::string_view name, const type& t, direction dir) {
    gm_tensor g;
    g.name = std::string(name);
    g.dt = t.dt;
    g.dir = dir;
    g.rows = t.shape[0];
    g.cols = t.shape[1];
    g.band = 2 * g.cols + 64;
    const auto total = static_cast<std::size_t>(g.size() + 2 * g.band);
    g.bytes.assign(total * static_cast<std::size_t>(element_bytes(g.dt)), 0);
    g.meta.assign(total, cell_meta{});
    for (std::int64_t f = -g.band; f < g.size() + g.band; ++f) {
      const bool interior = f >= 0 && f < g.size();
      write_element(g.dt, g.ptr(f),
                    element_of(g.dt, interior ? (dir == direction::out ? sentinel_unwritten : 0.0) : sentinel_band));
      if (interior && dir != direction::out) g.meta_at(f).state = cell_state::value;
    }
    return g;
  }

  [[nodiscard]] std::int64_t size() const noexcept { return rows * cols; }
  [[nodiscard]] bool interior(std::int64_t f) const noexcept { return f >= 0 && f < size(); }
  /// Whether flat index `f` lies in the interior or the band (anything else is a wild access).
  [[nodiscard]] bool in_allocation(std::int64_t f) const noexcept { return f >= -band && f < size() + band; }
  [[nodiscard]] std::int64_t flat(std::int64_t r, std::int64_t c) const noexcept { return r * cols + c; }

  [[nodiscard]] element get(std::int64_t f) const { return read_element(dt, ptr(f)); }
  [[nodiscard]] element_bits get_bits(std::int64_t f) const { return read_bits(dt, ptr(f)); }
  [[nodiscard]] const cell_meta& meta_at(std::int64_t f) const { return meta[slot(f)]; }
  cell_meta& meta_at(std::int64_t f) { return meta[slot(f)]; }
  void put(std::int64_t f, element e, const cell_meta& m) { put_bits(f, encode(dt, e), m); }
  void put_bits(std::int64_t f, const element_bits& e, const cell_meta& m) {
    write_bits(dt, ptr(f), e);
    meta[slot(f)] = m;
  }

  /// Fills the interior with small dyadic values drawn from `rng`: floats k/4 with k in [-8, 8]
  /// (so sums and products of a few operands are exact in FP16, BF16 and FP32), signed integers in
  /// [-16, 16] (INT8: [-4, 4]), unsigned integers in [0, 8].
  void seed(std::mt19937_64& rng) {
    for (std::int64_t f = 0; f < size(); ++f) {
      const std::uint64_t u = rng();
      double v;
      if (is_float(dt)) v = static_cast<double>(static_cast<std::int64_t>(u % 17) - 8) / 4.0;
      else if (dt == dtype::int8) v = static_cast<double>(static_cast<std::int64_t>(u % 9) - 4);
      else if (is_signed_integer(dt)) v = static_cast<double>(static_cast<std::int64_t>(u % 33) - 16);
      else v = static_cast<double>(u % 9);
      write_element(dt, ptr(f), element_of(dt, v));
      meta_at(f) = cell_meta{cell_state::value, false, no_id, no_id, no_id};
    }
  }

  /// Overwrites `count` interior elements of a float tensor, drawn from `rng`, with signalling
  /// NaNs of either sign and several payloads. Why: data movement must copy them bit for bit
  /// (reference §9.1), and a pattern that no seeded value has is what shows a conversion on the way.
  void plant_signaling_nans(std::mt19937_64& rng, int count) {
    if (!is_float(dt) || size() == 0) return;
    static constexpr std::uint32_t fp16[] = {0x7C01u, 0xFC01u, 0x7D55u, 0x7DFFu};
    static constexpr std::uint32_t bf16[] = {0x7F81u, 0xFF81u, 0x7FA5u, 0x7FBFu};
    static constexpr std::uint32_t fp32[] = {0x7F800001u, 0xFF800001u, 0x7FA00001u, 0x7FBFFFFFu};
    const std::uint32_t* table = dt == dtype::fp16 ? fp16 : dt == dtype::bf16 ? bf16 : fp32;
    for (int k = 0; k < count; ++k) {
      const std::uint64_t u = rng();
      const std::uint32_t pattern = table[u % 4];
      element_bits e;
      std::memcpy(e.b.data(), &pattern, static_cast<std::size_t>(element_bytes(dt)));  // little-endian low bytes
      put_bits(static_cast<std::int64_t>((u >> 2) % static_cast<std::uint64_t>(size())), e,
               cell_meta{cell_state::value, false, no_id, no_id, no_id});
    }
  }

 private:
  [[nodiscard]] std::size_t slot(std::int64_t f) const { return static_cast<std::size_t>(f + band); }
  [[nodiscard]] std::uint8_t* ptr(std::int64_t f) { return bytes.data() + slot(f) * static_cast<std::size_t>(element_bytes(dt)); }
  [[nodiscard]] const std::uint8_t* ptr(std::int64_t f) const {
    return bytes.data() + slot(f) * static_cast<std::size_t>(element_bytes(dt));
  }
};

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
