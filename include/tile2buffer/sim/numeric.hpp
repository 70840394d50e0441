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

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "tile2buffer/ir/cast.hpp"
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

/// Rounds a float to what the storage type `d` can hold (identity for FP32).
inline float round_to(dtype d, float v) {
  switch (d) {
    case dtype::fp16: return fp16_to_float(float_to_fp16(v));
    case dtype::bf16: return bf16_to_float(float_to_bf16(v));
    default: return v;
  }
}

//===--- conversion by rounding mode (tile.cast) ---===//

namespace detail {
/// A binary floating-point format: `precision` significant bits (the hidden one included), the
/// exponents of its smallest normal and largest finite binade, its width in bits.
struct float_format {
  int precision, min_exp, max_exp, width;
};
inline constexpr float_format fp32_format{24, -126, 127, 32}, fp16_format{11, -14, 15, 16}, bf16_format{8, -126, 127, 16};
constexpr const float_format& format_of(dtype d) {
  return d == dtype::fp16 ? fp16_format : d == dtype::bf16 ? bf16_format : fp32_format;
}

/// A finite number as sign, magnitude and binary exponent: the value is (-1)^negative · m · 2^e.
struct scaled {
  bool negative = false;
  std::uint64_t m = 0;
  int e = 0;
};
inline scaled decompose(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t biased = (x >> 23) & 0xFFu, frac = x & 0x7FFFFFu;
  return {(x >> 31) != 0, biased == 0 ? frac : (frac | 0x800000u), biased == 0 ? -149 : static_cast<int>(biased) - 150};
}
inline scaled decompose(double d) {
  const std::uint64_t x = std::bit_cast<std::uint64_t>(d);
  const std::uint64_t biased = (x >> 52) & 0x7FFu, frac = x & ((std::uint64_t{1} << 52) - 1u);
  return {(x >> 63) != 0, biased == 0 ? frac : (frac | (std::uint64_t{1} << 52)),
          biased == 0 ? -1074 : static_cast<int>(biased) - 1075};
}
inline scaled decompose(std::int64_t v) {
  // Why through v + 1: the magnitude of INT64_MIN does not fit an int64.
  return {v < 0, v < 0 ? static_cast<std::uint64_t>(-(v + 1)) + 1u : static_cast<std::uint64_t>(v), 0};
}

/// m · 2^-s (s > 0) rounded to an integer by `mode`; `negative` is the sign the directed modes see.
inline std::uint64_t round_scaled(bool negative, std::uint64_t m, int s, round_mode mode) {
  enum class rest { zero, below, half, above };
  std::uint64_t q = 0;
  rest r{};
  if (s > 64) {
    r = m == 0 ? rest::zero : rest::below;
  } else {
    const std::uint64_t low = s == 64 ? m : m & ((std::uint64_t{1} << s) - 1u);
    const std::uint64_t h = std::uint64_t{1} << (s - 1);
    q = s == 64 ? 0 : m >> s;
    r = low == 0 ? rest::zero : low < h ? rest::below : low == h ? rest::half : rest::above;
  }
  switch (mode) {
    case round_mode::round: return q + (r == rest::half || r == rest::above ? 1u : 0u);
    case round_mode::floor: return q + (negative && r != rest::zero ? 1u : 0u);
    case round_mode::ceil: return q + (!negative && r != rest::zero ? 1u : 0u);
    case round_mode::trunc: return q;
    case round_mode::odd: return r == rest::zero ? q : (q | 1u);
    default: return q + (r == rest::above || (r == rest::half && (q & 1u) != 0) ? 1u : 0u);
  }
}

/// The bit pattern of `v` rounded to format `f` by `mode`, IEEE overflow included: nearest modes
/// go to infinity, a directed mode to infinity only in its own direction, else to the largest
/// finite value (TRUNC and ODD both stop there).
inline std::uint32_t round_to_format(const float_format& f, const scaled& v, round_mode mode) {
  const std::uint32_t sign = v.negative ? std::uint32_t{1} << (f.width - 1) : 0u;
  if (v.m == 0) return sign;
  const int frac_bits = f.precision - 1;
  const int top = static_cast<int>(std::bit_width(v.m)) - 1;  // the leading digit is 2^(e + top)
  int exp = std::max(v.e + top, f.min_exp);                   // the result's leading place
  const int s = exp - frac_bits - v.e;                        // digits of m below its last place
  std::uint64_t q = s <= 0 ? v.m << -s : round_scaled(v.negative, v.m, s, mode);
  if ((q >> f.precision) != 0) {  // rounding carried into a new leading digit: q was 2^precision
    q >>= 1;
    ++exp;
  }
  const std::uint32_t inf = ((std::uint32_t{1} << (f.width - 1 - frac_bits)) - 1u) << frac_bits;
  if (exp > f.max_exp) {
    const bool to_infinity = mode == round_mode::rint || mode == round_mode::round || (mode == round_mode::ceil && !v.negative) ||
                             (mode == round_mode::floor && v.negative);
    return sign | (to_infinity ? inf : inf - 1u);
  }
  if ((q >> frac_bits) == 0) return sign | static_cast<std::uint32_t>(q);  // subnormal or zero
  const auto biased = static_cast<std::uint32_t>(exp - f.min_exp + 1);
  return sign | (biased << frac_bits) | (static_cast<std::uint32_t>(q) & ((std::uint32_t{1} << frac_bits) - 1u));
}
inline float from_format_bits(dtype d, std::uint32_t bits) {
  if (d == dtype::fp16) return fp16_to_float(static_cast<std::uint16_t>(bits));
  if (d == dtype::bf16) return bf16_to_float(static_cast<std::uint16_t>(bits));
  return std::bit_cast<float>(bits);
}
}  // namespace detail

/// Rounds `v` to float type `d` (FP16, BF16 or FP32) by rounding `mode`. NaN stays a quiet NaN
/// (round_to's payload rule; to FP32 the pattern with its quiet bit set, so that an FP16, BF16 or
/// FP32 signalling NaN does not come out signalling: IEEE 754 §6.2, docs/ops.md), infinities stay;
/// finite values round once, with IEEE overflow.
inline float round_to_mode(dtype d, float v, round_mode mode) {
  if (std::isnan(v) && d == dtype::fp32) return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) | 0x00400000u);
  if (std::isnan(v) || std::isinf(v) || d == dtype::fp32) return round_to(d, v);
  if (mode == round_mode::rint) return round_to(d, v);
  return detail::from_format_bits(d, detail::round_to_format(detail::format_of(d), detail::decompose(v), mode));
}

/// An integer converted to float type `d` by rounding `mode`, rounded once (no detour through a
/// float, which would round twice for BF16 and for INT64 -> FP16).
inline float int_to_float_by_mode(dtype d, std::int64_t v, round_mode mode) {
  return detail::from_format_bits(d, detail::round_to_format(detail::format_of(d), detail::decompose(v), mode));
}

/// A double rounded once to float type `d`, nearest even (a scalar entering a tile: rounding to
/// FP32 first and then to FP16/BF16 would round twice). NaN and infinities go through round_to.
inline float round_double_to(dtype d, double v) {
  if (std::isnan(v) || std::isinf(v)) return round_to(d, static_cast<float>(v));
  return detail::from_format_bits(d, detail::round_to_format(detail::format_of(d), detail::decompose(v), round_mode::rint));
}

/// The range an integer type holds, as [lo, hi] in int64.
inline std::int64_t integer_min(dtype d) {
  if (is_unsigned(d)) return 0;
  return bit_width(d) >= 64 ? INT64_MIN : -(std::int64_t{1} << (bit_width(d) - 1));
}
inline std::int64_t integer_max(dtype d) {
  if (bit_width(d) >= 64) return INT64_MAX;
  return is_unsigned(d) ? (std::int64_t{1} << bit_width(d)) - 1 : (std::int64_t{1} << (bit_width(d) - 1)) - 1;
}

/// A float rounded to an integer by `mode`, then, when `saturate`, clamped to `to`'s range (NaN
/// gives 0, an infinity the bound of its sign); without saturation the rounded integer wraps
/// (values past the int64 range first stop at its bounds).
inline std::int64_t float_to_int_by_mode(dtype to, float v, round_mode mode, bool saturate) {
  if (std::isnan(v)) return 0;
  const detail::scaled x = detail::decompose(v);
  const int top = x.m == 0 ? 0 : static_cast<int>(std::bit_width(x.m)) - 1;
  std::int64_t n = 0;
  if (std::isinf(v) || (x.m != 0 && x.e + top >= 63)) {
    n = x.negative ? INT64_MIN : INT64_MAX;
  } else {
    const std::uint64_t mag = x.e >= 0 ? x.m << x.e : detail::round_scaled(x.negative, x.m, -x.e, mode);
    n = x.negative ? -static_cast<std::int64_t>(mag) : static_cast<std::int64_t>(mag);
  }
  if (!saturate) return wrap_integer(to, n);
  return n < integer_min(to) ? integer_min(to) : n > integer_max(to) ? integer_max(to) : n;
}

/// One element of `tile.cast` / `buffer.cast` from `from` to `to` with keyword `mode` (ir/cast.hpp
/// says which rounding and whether it saturates; docs/ops.md states the policy).
inline element cast_by_mode(dtype from, dtype to, element x, int mode) {
  const round_mode r = cast_rounding(from, to, mode);
  element out;
  if (is_float(from) && is_float(to)) out.f = round_to_mode(to, x.f, r);
  else if (is_float(from)) out.i = float_to_int_by_mode(to, x.f, r, cast_saturates(from, to));
  else if (is_float(to)) out.f = int_to_float_by_mode(to, x.i, r);
  else out.i = wrap_integer(to, x.i);
  return out;
}

/// Converts a scalar between element types (`scalar.cast`, fills): float->int truncates toward
/// zero (stopping at the int64 range) then wraps, int->float rounds to nearest, int->int wraps.
inline element convert(dtype from, dtype to, element v) {
  element r;
  if (is_float(from) && is_float(to)) {
    r.f = round_to(to, v.f);
  } else if (is_float(from)) {
    const double t = std::trunc(static_cast<double>(v.f));
    const std::int64_t n = std::isnan(t) ? 0 : t >= 9.2e18 ? INT64_MAX : t <= -9.2e18 ? INT64_MIN : static_cast<std::int64_t>(t);
    r.i = wrap_integer(to, n);
  } else if (is_float(to)) {
    r.f = int_to_float_by_mode(to, v.i, round_mode::rint);
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

/// An element holding the number `v` in type `d` (used for sentinels and fills), rounded once.
inline element element_of(dtype d, double v) {
  element e;
  if (is_float(d)) e.f = round_double_to(d, v);
  else e.i = wrap_integer(d, static_cast<std::int64_t>(v));
  return e;
}
/// The element as a double (for comparisons and reports).
inline double as_double(dtype d, element e) { return is_float(d) ? static_cast<double>(e.f) : static_cast<double>(e.i); }

/// Human-readable element text: integers exactly, floats with 9 significant digits.
inline std::string format_element(dtype d, element e) {
  char buf[48];
  if (is_float(d)) std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(e.f));
  else std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(e.i));
  return buf;
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
