// SPDX-License-Identifier: Apache-2.0
/// @file sim/numeric.hpp
/// Element numerics of the reference simulator: FP16/BF16 bit patterns with round-to-nearest-even,
/// two's-complement wrapping for integers, and typed element load/store on little-endian bytes.
///
/// Policy (reference §9.3): FP16/BF16 are stored as 16-bit patterns; arithmetic is done in `float`
/// and rounded once to the storage type. FP32 is IEEE `float`. Integer arithmetic runs in unsigned
/// 64-bit space and wraps to the storage width (INT32 wraps at 2^32). Data movement never converts:
/// it copies `element_bits`, so every bit pattern survives it (signalling NaNs included); only
/// arithmetic and the fix-pipe narrowing go through `element` and may quiet a NaN, as IEEE allows.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "tile2buffer/ir/enums.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

//===--- FP16 (IEEE binary16) ---===//

/// Rounds a float to the nearest binary16 (ties to even); overflow gives infinity, NaN stays NaN.
inline std::uint16_t float_to_fp16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t a = x & 0x7FFFFFFFu;
  if (a >= 0x7F800000u)  // inf or NaN; keep NaN quiet and non-zero
    return static_cast<std::uint16_t>(sign | 0x7C00u | (a > 0x7F800000u ? 0x200u | ((a >> 13) & 0x3FFu) : 0u));
  const int e = static_cast<int>(a >> 23) - 127;
  const std::uint32_t mant = a & 0x7FFFFFu;
  if (e > 15) return static_cast<std::uint16_t>(sign | 0x7C00u);
  if (e >= -14) {
    std::uint32_t h = (static_cast<std::uint32_t>(e + 15) << 10) | (mant >> 13);
    const std::uint32_t rem = mant & 0x1FFFu;
    // Why: a carry out of the mantissa correctly bumps the exponent (and reaches inf at the top).
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0)) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  if (e < -25) return sign;
  // Subnormal: count units of 2^-24. value = full * 2^(e-23) = full * 2^(e+1) units.
  const std::uint32_t full = mant | 0x800000u;
  const int s = -(e + 1);  // in [14, 24]
  std::uint32_t h = full >> s;
  const std::uint32_t rem = full & ((1u << s) - 1u);
  const std::uint32_t half = 1u << (s - 1);
  if (rem > half || (rem == half && (h & 1u) != 0)) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

/// Exact widening of a binary16 pattern to float.
inline float fp16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1Fu;
  std::uint32_t m = h & 0x3FFu;
  if (e == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (m << 13));
  if (e == 0) {
    if (m == 0) return std::bit_cast<float>(sign);
    // Subnormal: normalize into a float exponent.
    int shift = 0;
    while ((m & 0x400u) == 0) {
      m <<= 1;
      ++shift;
    }
    m &= 0x3FFu;
    const auto fe = static_cast<std::uint32_t>(127 - 15 - shift + 1);
    return std::bit_cast<float>(sign | (fe << 23) | (m << 13));
  }
  return std::bit_cast<float>(sign | ((e + 127 - 15) << 23) | (m << 13));
}

//===--- BF16 ---===//

/// Rounds a float to the nearest bfloat16 (ties to even); NaN stays a quiet NaN.
inline std::uint16_t float_to_bf16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  const std::uint32_t bias = 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>((x + bias) >> 16);
}
inline float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

//===--- integers ---===//

/// Two's-complement wrap of any integer to the width of `d` (sign- or zero-extended back to 64 bits).
inline std::int64_t wrap_integer(dtype d, std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  switch (d) {
    case dtype::bool_: return v != 0 ? 1 : 0;
    case dtype::int8: return static_cast<std::int8_t>(static_cast<std::uint8_t>(u));
    case dtype::uint8: return static_cast<std::uint8_t>(u);
    case dtype::int16: return static_cast<std::int16_t>(static_cast<std::uint16_t>(u));
    case dtype::int32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(u));
    case dtype::uint32: return static_cast<std::uint32_t>(u);
    default: return v;
  }
}
inline std::int32_t wrap_i32(std::int64_t v) { return static_cast<std::int32_t>(wrap_integer(dtype::int32, v)); }
/// Wrapping add/sub/mul: computed on unsigned 64-bit values, then narrowed (no signed overflow UB).
inline std::int64_t wrapping_add(dtype d, std::int64_t a, std::int64_t b) {
  return wrap_integer(d, static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b)));
}
inline std::int64_t wrapping_sub(dtype d, std::int64_t a, std::int64_t b) {
  return wrap_integer(d, static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)));
}
inline std::int64_t wrapping_mul(dtype d, std::int64_t a, std::int64_t b) {
  return wrap_integer(d, static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b)));
}

//===--- typed elements ---===//

/// One element value: floats (FP16/BF16/FP32) live in `f`, integers in `i`.
struct element {
  float f = 0.0f;
  std::int64_t i = 0;
};

/// `v` as a float, rounding to nearest; beyond the float range, the infinity of its sign (a plain
/// conversion of such a double is undefined behaviour).
inline float to_float(double v) {
  constexpr double top = static_cast<double>(std::numeric_limits<float>::max());
  if (v > top || v < -top) {
    // Values that round to FLT_MAX stay finite; the rest overflow, as IEEE rounding does.
    const double half_ulp = 0x1p103;  // half a unit in the last place of FLT_MAX
    if (v >= top + half_ulp) return std::numeric_limits<float>::infinity();
    if (v <= -top - half_ulp) return -std::numeric_limits<float>::infinity();
    return v > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
  }
  return static_cast<float>(v);
}

/// Rounds a float to what the storage type `d` can hold (identity for FP32).
inline float round_to(dtype d, float v) {
  switch (d) {
    case dtype::fp16: return fp16_to_float(float_to_fp16(v));
    case dtype::bf16: return bf16_to_float(float_to_bf16(v));
    default: return v;
  }
}

/// Rounds `v` to FP16 or BF16 (`d`) by the ISA's rounding mode (tile.cast's `mode`: 1 RINT nearest
/// even, 2 ROUND nearest away from zero, 3 FLOOR, 4 CEIL, 5 TRUNC, 6 ODD; 0 is taken as RINT).
/// FP32 is returned as is. Overflow of a directed mode stops at the largest finite value, as
/// IEEE's directed roundings do.
inline float round_to_mode(dtype d, float v, int mode) {
  const float nearest = round_to(d, v);
  if ((d != dtype::fp16 && d != dtype::bf16) || mode <= 1 || nearest == v || std::isnan(v)) return nearest;
  const auto bits = [&](float x) { return d == dtype::fp16 ? float_to_fp16(x) : float_to_bf16(x); };
  const auto value = [&](std::uint16_t b) { return d == dtype::fp16 ? fp16_to_float(b) : bf16_to_float(b); };
  // The representable neighbour of `nearest` on the other side of v: one pattern step toward v.
  std::uint16_t b = bits(nearest);
  const bool negative = (b & 0x8000u) != 0;
  const bool up = v > nearest;
  if ((b & 0x7FFFu) == 0) b = up ? 0x0001u : 0x8001u;
  else b = static_cast<std::uint16_t>((up != negative) ? b + 1 : b - 1);
  const float other = value(b);
  const float lo = up ? nearest : other, hi = up ? other : nearest;
  switch (mode) {
    case 2: {  // nearest, ties away from zero
      const double dl = static_cast<double>(v) - static_cast<double>(lo), dh = static_cast<double>(hi) - static_cast<double>(v);
      if (dl != dh) return dl < dh ? lo : hi;
      return v > 0 ? hi : lo;
    }
    case 3: return lo;
    case 4: return hi;
    case 5: return v > 0 ? lo : hi;
    default: return (bits(lo) & 1u) != 0 ? lo : hi;  // 6: round to odd
  }
}

/// Converts an element between element types: float->int truncates toward zero (saturating at the
/// int64 range), int->float rounds to nearest, int->int wraps.
inline element convert(dtype from, dtype to, element v) {
  element r;
  if (is_float(from) && is_float(to)) {
    r.f = round_to(to, v.f);
  } else if (is_float(from)) {
    const double t = std::trunc(static_cast<double>(v.f));
    const std::int64_t n = std::isnan(t) ? 0 : t >= 9.2e18 ? INT64_MAX : t <= -9.2e18 ? INT64_MIN : static_cast<std::int64_t>(t);
    r.i = wrap_integer(to, n);
  } else if (is_float(to)) {
    r.f = round_to(to, static_cast<float>(v.i));
  } else {
    r.i = wrap_integer(to, v.i);
  }
  return r;
}

/// Reads one element of type `d` from little-endian bytes.
inline element read_element(dtype d, const std::uint8_t* p) {
  element e;
  switch (d) {
    case dtype::fp32: std::memcpy(&e.f, p, 4); break;
    case dtype::fp16: {
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      e.f = fp16_to_float(h);
      break;
    }
    case dtype::bf16: {
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      e.f = bf16_to_float(h);
      break;
    }
    case dtype::bool_:
    case dtype::uint8: e.i = p[0]; break;
    case dtype::int8: e.i = static_cast<std::int8_t>(p[0]); break;
    case dtype::int16: {
      std::int16_t v;
      std::memcpy(&v, p, 2);
      e.i = v;
      break;
    }
    case dtype::int32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      e.i = v;
      break;
    }
    case dtype::uint32: {
      std::uint32_t v;
      std::memcpy(&v, p, 4);
      e.i = v;
      break;
    }
    case dtype::int64:
    case dtype::index: std::memcpy(&e.i, p, 8); break;
  }
  return e;
}

/// Writes one element of type `d` (floats rounded to nearest even, integers wrapped).
inline void write_element(dtype d, std::uint8_t* p, element e) {
  switch (d) {
    case dtype::fp32: std::memcpy(p, &e.f, 4); break;
    case dtype::fp16: {
      const std::uint16_t h = float_to_fp16(e.f);
      std::memcpy(p, &h, 2);
      break;
    }
    case dtype::bf16: {
      const std::uint16_t h = float_to_bf16(e.f);
      std::memcpy(p, &h, 2);
      break;
    }
    case dtype::bool_:
    case dtype::int8:
    case dtype::uint8: p[0] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(e.i)); break;
    case dtype::int16: {
      const auto v = static_cast<std::uint16_t>(static_cast<std::uint64_t>(e.i));
      std::memcpy(p, &v, 2);
      break;
    }
    case dtype::int32:
    case dtype::uint32: {
      const auto v = static_cast<std::uint32_t>(static_cast<std::uint64_t>(e.i));
      std::memcpy(p, &v, 4);
      break;
    }
    case dtype::int64:
    case dtype::index: std::memcpy(p, &e.i, 8); break;
  }
}

//===--- element bytes ---===//

/// One element's bytes exactly as stored (little-endian, the first `element_bytes(d)` used). Data
/// movement (load, store, move, copy, slice, assemble, extract, relayout) carries these instead of
/// an `element`: memory spaces are byte arenas (reference §9.1) and a copy is bit-exact, while
/// widening FP16/BF16 to float and rounding back quiets a signalling NaN (0x7c01 became 0x7e01).
struct element_bits {
  std::array<std::uint8_t, 8> b{};
};
inline element_bits read_bits(dtype d, const std::uint8_t* p) {
  element_bits r;
  std::memcpy(r.b.data(), p, static_cast<std::size_t>(element_bytes(d)));
  return r;
}
inline void write_bits(dtype d, std::uint8_t* p, const element_bits& e) {
  std::memcpy(p, e.b.data(), static_cast<std::size_t>(element_bytes(d)));
}
/// The value of stored bytes, for arithmetic (see read_element).
inline element decode(dtype d, const element_bits& e) { return read_element(d, e.b.data()); }
/// The bytes that store a computed value (see write_element: floats round to nearest even).
inline element_bits encode(dtype d, element e) {
  element_bits r;
  write_element(d, r.b.data(), e);
  return r;
}

/// An element holding the number `v` in type `d` (used for sentinels and fills).
inline element element_of(dtype d, double v) {
  element e;
  if (is_float(d))
    e.f = round_to(d, static_cast<float>(v));
  else
    e.i = wrap_integer(d, static_cast<std::int64_t>(v));
  return e;
}
/// The element as a double (for comparisons and reports).
inline double as_double(dtype d, element e) { return is_float(d) ? static_cast<double>(e.f) : static_cast<double>(e.i); }

/// Human-readable element text: integers exactly, floats with 9 significant digits.
inline std::string format_element(dtype d, element e) {
  char buf[48];
  if (is_float(d))
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(e.f));
  else
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(e.i));
  return buf;
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
