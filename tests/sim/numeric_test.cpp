// SPDX-License-Identifier: Apache-2.0
/// @file numeric_test.cpp
/// Simulator numerics (FP16/BF16 rounding, integer wrapping, element I/O, bit-exact element bytes)
/// and the fractal index maps of reference §9.1.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include "tile2buffer/sim/gm.hpp"
#include "tile2buffer/sim/memory.hpp"
#include "tile2buffer/sim/numeric.hpp"

using namespace tile2buffer;
using namespace tile2buffer::sim;

TEST_CASE("fp16: exact values and round-to-nearest-even on known bit patterns") {
  CHECK(float_to_fp16(1.0f) == 0x3C00);
  CHECK(float_to_fp16(-2.0f) == 0xC000);
  CHECK(float_to_fp16(0.5f) == 0x3800);
  CHECK(float_to_fp16(65504.0f) == 0x7BFF);  // largest finite
  CHECK(float_to_fp16(0.0f) == 0x0000);
  CHECK(float_to_fp16(-0.0f) == 0x8000);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (1.0).
  CHECK(float_to_fp16(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even): rounds up.
  CHECK(float_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);
  // Just above the halfway point rounds up even from an even mantissa.
  CHECK(float_to_fp16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3C01);
  // 65520 is halfway between 65504 and 65536 (not representable): even → overflow to +inf.
  CHECK(float_to_fp16(65520.0f) == 0x7C00);
  CHECK(float_to_fp16(65519.0f) == 0x7BFF);
  CHECK(float_to_fp16(std::numeric_limits<float>::infinity()) == 0x7C00);
  CHECK((float_to_fp16(std::numeric_limits<float>::quiet_NaN()) & 0x7C00) == 0x7C00);
  CHECK((float_to_fp16(std::numeric_limits<float>::quiet_NaN()) & 0x03FF) != 0);
  // Subnormals: 2^-24 is the smallest; 2^-25 ties to even (0); 3 * 2^-25 ties to even (2 units).
  CHECK(float_to_fp16(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(float_to_fp16(std::ldexp(1.0f, -25)) == 0x0000);
  CHECK(float_to_fp16(3 * std::ldexp(1.0f, -25)) == 0x0002);
  CHECK(float_to_fp16(std::ldexp(1.0f, -14)) == 0x0400);  // smallest normal
  // The largest subnormal rounds up into the smallest normal when past the midpoint.
  CHECK(float_to_fp16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)) == 0x0400);

  CHECK(fp16_to_float(0x3C00) == 1.0f);
  CHECK(fp16_to_float(0x7BFF) == 65504.0f);
  CHECK(fp16_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(fp16_to_float(0x03FF) == std::ldexp(1023.0f, -24));
  CHECK(std::isinf(fp16_to_float(0xFC00)));
  CHECK(std::isnan(fp16_to_float(0x7E00)));
  // Every finite pattern round-trips.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00) continue;
    REQUIRE(float_to_fp16(fp16_to_float(static_cast<std::uint16_t>(h))) == h);
  }
}

TEST_CASE("bf16: round-to-nearest-even on known bit patterns") {
  CHECK(float_to_bf16(1.0f) == 0x3F80);
  CHECK(float_to_bf16(-1.0f) == 0xBF80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  CHECK(float_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3F80);
  // 1 + 3 * 2^-8 ties between 0x3F81 (odd) and 0x3F82 (even).
  CHECK(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3F82);
  CHECK(float_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)) == 0x3F81);
  CHECK(float_to_bf16(std::numeric_limits<float>::max()) == 0x7F80);  // rounds to +inf
  CHECK((float_to_bf16(std::numeric_limits<float>::quiet_NaN()) & 0x7F80) == 0x7F80);
  CHECK((float_to_bf16(std::numeric_limits<float>::quiet_NaN()) & 0x007F) != 0);
  CHECK(bf16_to_float(0x4040) == 3.0f);
  CHECK(round_to(dtype::bf16, 777.0f) == 776.0f);  // 777 needs 10 significant bits
  CHECK(round_to(dtype::fp16, 777.0f) == 777.0f);
}

TEST_CASE("int32 arithmetic wraps") {
  CHECK(wrap_i32(std::int64_t{2147483647} + 1) == std::numeric_limits<std::int32_t>::min());
  CHECK(wrapping_add(dtype::int32, 2147483647, 1) == -2147483648LL);
  CHECK(wrapping_sub(dtype::int32, -2147483648LL, 1) == 2147483647);
  CHECK(wrapping_mul(dtype::int32, 65536, 65536) == 0);
  CHECK(wrapping_mul(dtype::int32, 65537, 65537) == 131073);  // (2^16+1)^2 mod 2^32
  CHECK(wrap_integer(dtype::int8, 200) == -56);
  CHECK(wrap_integer(dtype::uint8, -1) == 255);
  // INT64 wrapping goes through unsigned arithmetic (no UB on overflow).
  CHECK(wrapping_add(dtype::int64, std::numeric_limits<std::int64_t>::max(), 1) == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("typed element read/write and conversions") {
  std::uint8_t bytes[8] = {};
  write_element(dtype::fp16, bytes, element{1.5f, 0});
  CHECK(bytes[0] == 0x00);
  CHECK(bytes[1] == 0x3E);
  CHECK(read_element(dtype::fp16, bytes).f == 1.5f);
  write_element(dtype::int32, bytes, element{0.0f, -2});
  CHECK(read_element(dtype::int32, bytes).i == -2);
  CHECK(read_element(dtype::uint32, bytes).i == 0xFFFFFFFELL);
  CHECK(convert(dtype::fp32, dtype::int32, element{-2.75f, 0}).i == -2);        // truncation toward zero
  CHECK(convert(dtype::int32, dtype::fp16, element{0.0f, 2049}).f == 2048.0f);  // RNE in fp16
  CHECK(convert(dtype::fp32, dtype::bf16, element{1.0f + std::ldexp(1.0f, -8), 0}).f == 1.0f);
  CHECK(element_of(dtype::fp32, -777.0).f == -777.0f);
}

namespace {
// The formulas of reference §9.1, written out independently of layout_index.
std::int64_t nz_formula(std::int64_t R, std::int64_t p, std::int64_t r, std::int64_t c) {
  return ((c / p) * (R / 16) + r / 16) * 16 * p + (r % 16) * p + (c % p);
}
std::int64_t zn_formula(std::int64_t C, std::int64_t p, std::int64_t r, std::int64_t c) {
  return ((r / p) * (C / 16) + c / 16) * 16 * p + (c % 16) * p + (r % p);
}
std::int64_t acc_formula(std::int64_t R, std::int64_t r, std::int64_t c) {
  return ((c / 16) * (R / 16) + r / 16) * 256 + (r % 16) * 16 + (c % 16);
}
void check_bijection(const type& t) {
  std::set<std::int64_t> seen;
  for (std::int64_t r = 0; r < t.shape[0]; ++r)
    for (std::int64_t c = 0; c < t.shape[1]; ++c) {
      const std::int64_t i = layout_index(t, r, c);
      REQUIRE(i >= 0);
      REQUIRE(i < t.elements());
      seen.insert(i);
    }
  CHECK(static_cast<std::int64_t>(seen.size()) == t.elements());
}
}  // namespace

TEST_CASE("fractal index maps match the §9.1 formulas") {
  for (const dtype d : {dtype::fp16, dtype::bf16, dtype::fp32, dtype::int8}) {
    CAPTURE(name(d));
    const std::int64_t p = 32 / element_bytes(d);
    const type nz = tile_type(32, 2 * p, d, memory_space::mat);  // Mat and Left default to NZ
    const type left = tile_type(48, 3 * p, d, memory_space::left);
    const type zn = tile_type(2 * p, 48, d, memory_space::right);  // Right defaults to ZN
    CHECK(box_of(nz).rows == 16);
    CHECK(box_of(nz).cols == p);
    CHECK(box_of(zn).rows == p);
    CHECK(box_of(zn).cols == 16);
    for (std::int64_t r = 0; r < nz.shape[0]; ++r)
      for (std::int64_t c = 0; c < nz.shape[1]; ++c) REQUIRE(layout_index(nz, r, c) == nz_formula(nz.shape[0], p, r, c));
    for (std::int64_t r = 0; r < left.shape[0]; ++r)
      for (std::int64_t c = 0; c < left.shape[1]; ++c) REQUIRE(layout_index(left, r, c) == nz_formula(left.shape[0], p, r, c));
    for (std::int64_t r = 0; r < zn.shape[0]; ++r)
      for (std::int64_t c = 0; c < zn.shape[1]; ++c) REQUIRE(layout_index(zn, r, c) == zn_formula(zn.shape[1], p, r, c));
    check_bijection(nz);
    check_bijection(left);
    check_bijection(zn);
  }
  const type acc = tile_type(48, 32, dtype::fp32, memory_space::acc);
  CHECK(box_of(acc).rows == 16);
  CHECK(box_of(acc).cols == 16);
  for (std::int64_t r = 0; r < 48; ++r)
    for (std::int64_t c = 0; c < 32; ++c) REQUIRE(layout_index(acc, r, c) == acc_formula(48, r, c));
  check_bijection(acc);
  // Box-aligned offsets in Acc move by 16 elements per row and R elements per column (§9.1).
  CHECK(layout_index(acc, 1, 0) - layout_index(acc, 0, 0) == 16);
  CHECK(layout_index(acc, 0, 16) - layout_index(acc, 0, 0) == 48 * 16);
  // Dense layouts.
  const type dense = tile_type(16, 32, dtype::fp32);
  CHECK(layout_index(dense, 3, 5) == 3 * 32 + 5);
  const type column = tile_type(16, 1, dtype::fp32);  // [N, 1] Vec defaults to column-major
  CHECK(column.blayout == box_layout::col_major);
  CHECK(layout_index(column, 7, 0) == 7);
}

TEST_CASE("a ZN relabel of an NZ tile's bytes reads its transpose") {
  for (const dtype d : {dtype::fp16, dtype::fp32, dtype::int8}) {
    CAPTURE(name(d));
    const std::int64_t p = 32 / element_bytes(d);
    const std::int64_t R = 32, C = 4 * p;
    const type nz = tile_type(R, C, d, memory_space::mat);
    type zn = tile_type(C, R, d, memory_space::mat);
    zn.blayout = box_layout::row_major;
    zn.slayout = box_layout::col_major;
    for (std::int64_t r = 0; r < R; ++r)
      for (std::int64_t c = 0; c < C; ++c) REQUIRE(layout_index(nz, r, c) == layout_index(zn, c, r));
  }
}

TEST_CASE("arena bytes start unset and keep per-byte provenance") {
  arena a;
  cell_meta m;
  CHECK(a.read(1000, dtype::fp32, m).f == 0.0f);
  CHECK(m.state == cell_state::unset);
  cell_meta w;
  w.state = cell_state::value;
  w.writer = w.producer = 7;
  a.write(4094, dtype::fp32, element{2.5f, 0}, w);  // straddles a page boundary
  CHECK(a.read(4094, dtype::fp32, m).f == 2.5f);
  CHECK(m.state == cell_state::value);
  CHECK(m.writer == 7);
  CHECK(a.pages() == 2);
  // Half-overwritten by an unset-derived (poison) write: the element reads as poison.
  cell_meta p;
  p.state = cell_state::poison;
  p.producer = 9;
  a.write(4096, dtype::fp16, element{1.0f, 0}, p);
  CHECK(a.read(4094, dtype::fp32, m).i == 0);
  CHECK(m.state == cell_state::poison);
  CHECK(m.producer == 9);
}

TEST_CASE("arena elements inside one page merge every byte's provenance, across page switches") {
  arena a;
  cell_meta w;
  w.state = cell_state::value;
  w.writer = w.producer = 3;
  cell_meta p;
  p.state = cell_state::poison;
  p.producer = 9;
  cell_meta m;
  // An FP16 value over the low half of an FP32 element: the high half was never written.
  a.write(200, dtype::fp16, element{1.0f, 0}, w);
  (void)a.read(200, dtype::fp32, m);
  CHECK(m.state == cell_state::unset);
  // A poison write over the high half of a written FP32 element poisons it.
  a.write(100, dtype::fp32, element{4.0f, 0}, w);
  a.write(102, dtype::fp16, element{1.0f, 0}, p);
  (void)a.read(100, dtype::fp32, m);
  CHECK(m.state == cell_state::poison);
  CHECK(m.producer == 9);
  // Reads and writes alternate between pages (and a page nothing wrote) without mixing them up.
  a.write(5 * arena::page_bytes + 8, dtype::fp32, element{7.0f, 0}, w);
  CHECK(a.read(8 * arena::page_bytes, dtype::fp32, m).f == 0.0f);
  CHECK(m.state == cell_state::unset);
  CHECK(a.read(104, dtype::fp32, m).f == 0.0f);
  CHECK(m.state == cell_state::unset);
  CHECK(a.read(5 * arena::page_bytes + 8, dtype::fp32, m).f == 7.0f);
  CHECK(m.state == cell_state::value);
  a.write(104, dtype::fp32, element{6.0f, 0}, w);
  CHECK(a.read(5 * arena::page_bytes + 8, dtype::fp32, m).f == 7.0f);
  CHECK(a.read(104, dtype::fp32, m).f == 6.0f);
  CHECK(m.writer == 3);
  CHECK(a.pages() == 2);
}

TEST_CASE("GM tensors carry sentinel bands and -555 unwritten interiors") {
  const gm_tensor out = gm_tensor::make("Out", tensor_type(4, 32, dtype::fp16), direction::out);
  CHECK(out.band == 2 * 32 + 64);
  CHECK(out.get(-1).f == -777.0f);
  CHECK(out.get(out.size()).f == -777.0f);
  CHECK(out.get(out.size() + out.band - 1).f == -777.0f);
  CHECK(out.get(0).f == -555.0f);
  CHECK(out.meta_at(0).state == cell_state::unset);
  CHECK(out.in_allocation(-out.band));
  CHECK_FALSE(out.in_allocation(-out.band - 1));
  gm_tensor in = gm_tensor::make("In", tensor_type(16, 8, dtype::fp32), direction::in);
  std::mt19937_64 rng(3);
  in.seed(rng);
  std::set<float> distinct;
  for (std::int64_t f = 0; f < in.size(); ++f) {
    const float v = in.get(f).f;
    REQUIRE(v >= -2.0f);
    REQUIRE(v <= 2.0f);
    REQUIRE(v * 4.0f == std::floor(v * 4.0f));  // dyadic: a multiple of 1/4
    REQUIRE(in.meta_at(f).state == cell_state::value);
    distinct.insert(v);
  }
  CHECK(distinct.size() > 8);
}

namespace {
std::uint32_t low_bits(const element_bits& e, dtype d) {
  std::uint32_t u = 0;
  std::memcpy(&u, e.b.data(), static_cast<std::size_t>(element_bytes(d)));
  return u;
}
element_bits bits_of(std::uint32_t u) {
  element_bits e;
  std::memcpy(e.b.data(), &u, 4);
  return e;
}
}  // namespace

TEST_CASE("element bytes travel unconverted: signalling NaNs survive arenas, images and GM") {
  struct pattern {
    dtype d;
    std::uint32_t snan;
  };
  for (const pattern p : {pattern{dtype::fp16, 0x7C01}, pattern{dtype::fp16, 0xFD55}, pattern{dtype::bf16, 0x7F81},
                          pattern{dtype::bf16, 0xFFA5}, pattern{dtype::fp32, 0x7F800001}, pattern{dtype::fp32, 0xFFBFFFFF}}) {
    CAPTURE(name(p.d));
    CAPTURE(p.snan);
    cell_meta w;
    w.state = cell_state::value;
    cell_meta m;
    arena a;
    a.write_bits(100, p.d, bits_of(p.snan), w);
    a.write_bits(arena::page_bytes - 2, p.d, bits_of(p.snan), w);  // straddles a page for FP32
    CHECK(low_bits(a.read_bits(100, p.d, m), p.d) == p.snan);
    CHECK(low_bits(a.read_bits(arena::page_bytes - 2, p.d, m), p.d) == p.snan);
    image im = image::fresh(tile_type(16, 32, p.d), 16, 32);
    im.write_bits(3, 5, bits_of(p.snan), w);
    CHECK(low_bits(im.read_bits(3, 5, m), p.d) == p.snan);
    gm_tensor g = gm_tensor::make("G", tensor_type(2, 32, p.d), direction::in);
    g.put_bits(7, bits_of(p.snan), w);
    CHECK(low_bits(g.get_bits(7), p.d) == p.snan);
    // The value path is for arithmetic: it keeps NaN-ness but may quiet the NaN, which is why
    // no copy goes through it.
    CHECK(std::isnan(decode(p.d, bits_of(p.snan)).f));
    const std::uint32_t round_trip = low_bits(encode(p.d, decode(p.d, bits_of(p.snan))), p.d);
    CHECK(std::isnan(decode(p.d, bits_of(round_trip)).f));
  }
}

TEST_CASE("planted signalling NaNs: float inputs only, drawn apart from the seeded values") {
  const auto snan = [](dtype d, std::uint32_t u) {
    if (d == dtype::fp16) return (u & 0x7C00u) == 0x7C00u && (u & 0x03FFu) != 0 && (u & 0x0200u) == 0;
    if (d == dtype::bf16) return (u & 0x7F80u) == 0x7F80u && (u & 0x007Fu) != 0 && (u & 0x0040u) == 0;
    return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0 && (u & 0x00400000u) == 0;
  };
  for (const dtype d : {dtype::fp16, dtype::bf16, dtype::fp32, dtype::int32}) {
    CAPTURE(name(d));
    gm_tensor plain = gm_tensor::make("X", tensor_type(16, 32, d), direction::in);
    std::mt19937_64 rng(5);
    plain.seed(rng);
    gm_tensor planted = plain;
    std::mt19937_64 nan_rng(6);
    planted.plant_signaling_nans(nan_rng, 12);
    int nans = 0, changed = 0;
    for (std::int64_t f = -plain.band; f < plain.size() + plain.band; ++f) {
      const std::uint32_t was = low_bits(plain.get_bits(f), d), now = low_bits(planted.get_bits(f), d);
      if (was == now) continue;
      ++changed;
      REQUIRE(plain.interior(f));
      REQUIRE(snan(d, now));
      REQUIRE(planted.meta_at(f).state == cell_state::value);
    }
    for (std::int64_t f = 0; f < planted.size(); ++f) nans += is_float(d) && snan(d, low_bits(planted.get_bits(f), d));
    if (is_float(d)) {
      CHECK(nans >= 8);  // 12 draws over 512 elements: a few may land on the same element
      CHECK(changed == nans);
    } else {
      CHECK(changed == 0);
    }
  }
}
