// SPDX-License-Identifier: Apache-2.0
/// @file detail/mlir_float.hpp
/// A float constant spelled as MLIR's printer spells it, so that the emitter's generic form is
/// byte for byte what `mlir-opt --mlir-print-op-generic` writes (tests/pto-dialect). MLIR reads
/// a float literal as a double (correctly rounded) and converts that to the constant's type
/// (ties to even), so it rounds twice; it then prints the value with 6 significant digits in
/// scientific form padded to six decimals (`1.500000e+00`) when that text reads back as the same
/// value; otherwise with the type's round-trip digit count (9 for f32) in APFloat's default
/// notation (`0.123456791`, `1.23456791E+10`); and a value whose text would have no point, an
/// infinity among them, as its bits in hex (`0x4CEB79A3`). Both roundings and the digits are
/// computed with integers, so the result does not depend on the host's floating point.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tile2buffer/detail/text.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// An unsigned integer of up to 1280 bits (enough for every literal the lexer takes, clamped to
/// the double range below), least significant limb first. Loops run over the limbs in use only,
/// which keeps constant evaluation within the compilers' step limits.
class big_uint {
 public:
  static constexpr std::size_t limbs = 40;
  constexpr big_uint() = default;
  constexpr explicit big_uint(std::uint64_t v) : d_{static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32)} {}

  [[nodiscard]] constexpr bool is_zero() const {
    for (std::size_t i = 0; i < used_; ++i)
      if (d_[i] != 0) return false;
    return true;
  }
  [[nodiscard]] constexpr int bit_length() const {
    for (std::size_t i = used_; i-- > 0;)
      if (d_[i] != 0) {
        int b = 0;
        for (std::uint32_t x = d_[i]; x != 0; x >>= 1) ++b;
        return static_cast<int>(i * 32) + b;
      }
    return 0;
  }
  constexpr big_uint& mul_small(std::uint32_t m) {
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < used_; ++i) {
      const std::uint64_t t = static_cast<std::uint64_t>(d_[i]) * m + carry;
      d_[i] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0 && used_ < limbs) d_[used_++] = static_cast<std::uint32_t>(carry);
    return *this;
  }
  /// Divides in place, returning the remainder.
  constexpr std::uint32_t div_small(std::uint32_t m) {
    std::uint64_t rem = 0;
    for (std::size_t i = used_; i-- > 0;) {
      const std::uint64_t t = (rem << 32) | d_[i];
      d_[i] = static_cast<std::uint32_t>(t / m);
      rem = t % m;
    }
    while (used_ > 1 && d_[used_ - 1] == 0) --used_;
    return static_cast<std::uint32_t>(rem);
  }
  constexpr big_uint& shl(int n) {
    const std::size_t words = static_cast<std::size_t>(n) / 32;
    const int bits = n % 32;
    const std::size_t top = used_ + words + 1 < limbs ? used_ + words + 1 : limbs;
    for (std::size_t i = top; i-- > 0;) {
      std::uint32_t v = i >= words ? d_[i - words] << bits : 0;
      if (bits != 0 && i >= words + 1) v |= d_[i - words - 1] >> (32 - bits);
      d_[i] = v;
    }
    used_ = top;
    while (used_ > 1 && d_[used_ - 1] == 0) --used_;
    return *this;
  }
  constexpr big_uint& shr1() {
    for (std::size_t i = 0; i < used_; ++i) d_[i] = (d_[i] >> 1) | (i + 1 < used_ ? d_[i + 1] << 31 : 0u);
    while (used_ > 1 && d_[used_ - 1] == 0) --used_;
    return *this;
  }
  constexpr big_uint& sub(const big_uint& o) {  // requires *this >= o
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < used_; ++i) {
      std::int64_t t = static_cast<std::int64_t>(d_[i]) - o.d_[i] - borrow;
      borrow = t < 0 ? 1 : 0;
      if (t < 0) t += std::int64_t{1} << 32;
      d_[i] = static_cast<std::uint32_t>(t);
    }
    while (used_ > 1 && d_[used_ - 1] == 0) --used_;
    return *this;
  }
  friend constexpr int compare(const big_uint& a, const big_uint& b) {
    for (std::size_t i = (a.used_ > b.used_ ? a.used_ : b.used_); i-- > 0;)
      if (a.d_[i] != b.d_[i]) return a.d_[i] < b.d_[i] ? -1 : 1;
    return 0;
  }

 private:
  std::array<std::uint32_t, limbs> d_{};
  std::size_t used_ = 2;
};

/// A binary float format: significand bits (with the hidden one) and exponent range.
struct float_format {
  int precision;  ///< p
  int max_exp;    ///< the largest finite value is < 2^(max_exp+1)
  int min_exp;    ///< exponent of the smallest normal
  int bits;       ///< storage width
};
inline constexpr float_format binary16{11, 15, -14, 16};
inline constexpr float_format bfloat16{8, 127, -126, 16};
inline constexpr float_format binary32{24, 127, -126, 32};
inline constexpr float_format binary64{53, 1023, -1022, 64};

/// A decimal: digits (at most 19, no leading zeros) times 10^exp10, with a sign.
struct decimal_value {
  bool negative = false;
  std::uint64_t digits = 0;
  int exp10 = 0;
};

/// A finite binary value significand * 2^exp2 (significand < 2^p), or infinity.
struct binary_value {
  bool negative = false;
  bool infinite = false;
  std::uint64_t significand = 0;
  int exp2 = 0;
};

/// Rounds a decimal to the nearest value of format `f` (at most binary64), ties to even.
constexpr binary_value round_to_format(const decimal_value& v, const float_format& f) {
  binary_value r{v.negative, false, 0, 0};
  if (v.digits == 0) return r;
  // Beyond these the answer is infinity or zero in binary64 whatever the digits (10^309 > DBL_MAX,
  // 10^-343 < half the smallest subnormal); the clamp bounds the integers.
  int digit_count = 0;
  for (std::uint64_t x = v.digits; x != 0; x /= 10) ++digit_count;
  if (v.exp10 + digit_count > 309) return {v.negative, true, 0, 0};
  if (v.exp10 + digit_count < -343) return r;
  big_uint num(v.digits), den(1);
  for (int i = 0; i < v.exp10; ++i) num.mul_small(10);
  for (int i = 0; i < -v.exp10; ++i) den.mul_small(10);
  // e2 = exponent of the result's last bit: floor(log2(value)) - (p - 1), at least the subnormal one.
  int lg = num.bit_length() - den.bit_length();
  {
    big_uint a = num, b = den;
    if (lg >= 0) b.shl(lg);
    else a.shl(-lg);
    if (compare(a, b) < 0) --lg;
  }
  int e2 = lg - (f.precision - 1);
  if (e2 < f.min_exp - (f.precision - 1)) e2 = f.min_exp - (f.precision - 1);
  big_uint a = num, b = den;
  if (e2 >= 0) b.shl(e2);
  else a.shl(-e2);
  // q = a / b: below 2^p, as e2 was chosen for.
  std::uint64_t q = 0;
  big_uint shifted = b;
  shifted.shl(f.precision + 1);
  for (int bit = f.precision + 1; bit >= 0; --bit, shifted.shr1()) {
    if (compare(a, shifted) >= 0) {
      a.sub(shifted);
      q |= std::uint64_t{1} << bit;
    }
  }
  big_uint twice = a;
  twice.shl(1);
  const int c = compare(twice, b);
  if (c > 0 || (c == 0 && (q & 1u) != 0)) ++q;
  if (q == std::uint64_t{1} << f.precision) {
    q >>= 1;
    ++e2;
  }
  if (e2 + f.precision - 1 > f.max_exp) return {v.negative, true, 0, 0};
  r.significand = q;
  r.exp2 = e2;
  return r;
}

/// Rounds a binary value to format `f`, ties to even (APFloat::convert).
constexpr binary_value round_binary(const binary_value& v, const float_format& f) {
  if (v.infinite || v.significand == 0) return v;
  int bits = 0;
  for (std::uint64_t x = v.significand; x != 0; x >>= 1) ++bits;
  const int lg = bits - 1 + v.exp2;  // floor(log2(value))
  int e2 = lg - (f.precision - 1);
  if (e2 < f.min_exp - (f.precision - 1)) e2 = f.min_exp - (f.precision - 1);
  binary_value r{v.negative, false, 0, e2};
  if (e2 <= v.exp2) {
    r.significand = v.significand << (v.exp2 - e2);  // exact: fewer than p bits to place
  } else {
    const int shift = e2 - v.exp2;
    if (shift > 62) return binary_value{v.negative, false, 0, 0};  // far below half the smallest step
    std::uint64_t q = v.significand >> shift;
    const std::uint64_t rem = v.significand & ((std::uint64_t{1} << shift) - 1), half = std::uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (q & 1u) != 0)) ++q;
    if (q == std::uint64_t{1} << f.precision) {
      q >>= 1;
      ++r.exp2;
    }
    r.significand = q;
  }
  if (r.significand != 0 && r.exp2 + f.precision - 1 > f.max_exp) return {v.negative, true, 0, 0};
  return r;
}

/// The value MLIR gives the literal `v` in format `f`: read as a double, then converted.
constexpr binary_value mlir_literal_value(const decimal_value& v, const float_format& f) {
  return round_binary(round_to_format(v, binary64), f);
}

/// Decimal digits of a finite binary value, most significant first, and the power of ten of the
/// last digit.
struct exact_digits {
  std::array<char, 400> d{};
  int n = 0;
  int exp10 = 0;
};

/// APFloat::toString's digits, which are not simply the exact ones rounded: the significand
/// (trailing zero bits dropped) times 2^e or 5^-e is first cut to about `precision` digits' worth
/// of bits by a truncating division by a power of ten, and only the digits left are rounded,
/// half up on the first dropped digit.
constexpr exact_digits apfloat_digits(const binary_value& v, int precision) {
  std::uint64_t sig = v.significand;
  int e = v.exp2;
  while ((sig & 1u) == 0) {
    sig >>= 1;
    ++e;
  }
  exact_digits out;
  big_uint x(sig);
  if (e > 0) x.shl(e);
  for (int i = 0; i < -e; ++i) x.mul_small(5);  // sig * 2^-k = sig * 5^k / 10^k
  out.exp10 = e < 0 ? e : 0;
  const int bits = x.bit_length(), required = (precision * 196 + 58) / 59;
  if (bits > required) {
    const int tens = (bits - required) * 59 / 196;
    for (int i = 0; i < tens; ++i) x.div_small(10);
    out.exp10 += tens;
  }
  std::array<char, 400> rev{};  // least significant first, trailing zeros dropped
  int n = 0;
  bool trailing = true;
  while (!x.is_zero()) {
    const auto digit = static_cast<char>('0' + x.div_small(10));
    if (trailing && digit == '0') {
      ++out.exp10;
      continue;
    }
    trailing = false;
    rev[static_cast<std::size_t>(n++)] = digit;
  }
  int first = 0;  // the least significant digit kept
  if (n > precision) {
    first = n - precision;
    if (rev[static_cast<std::size_t>(first - 1)] < '5') {
      while (first < n && rev[static_cast<std::size_t>(first)] == '0') ++first;
    } else {
      while (first < n && rev[static_cast<std::size_t>(first)] == '9') ++first;
      if (first == n) {
        out.exp10 += first;
        out.d[0] = '1';
        out.n = 1;
        return out;
      }
      ++rev[static_cast<std::size_t>(first)];
    }
    out.exp10 += first;
  }
  for (int i = n - 1; i >= first; --i) out.d[static_cast<std::size_t>(out.n++)] = rev[static_cast<std::size_t>(i)];
  return out;
}

/// APFloat::toString(precision, max_padding, truncate_zero) of a finite non-zero value.
constexpr text apfloat_string(const binary_value& v, int precision, int max_padding, bool truncate_zero) {
  const exact_digits x = apfloat_digits(v, precision);
  const auto digit = [&](int i) { return x.d[static_cast<std::size_t>(i)]; };
  text s;
  if (v.negative) s << '-';
  bool scientific = max_padding == 0;
  if (!scientific) {
    if (x.exp10 >= 0) scientific = x.exp10 > max_padding || x.n + x.exp10 > precision;
    else {
      const int msd = x.exp10 + x.n - 1;
      scientific = msd < 0 && -msd > max_padding;
    }
  }
  if (scientific) {
    int e = x.exp10 + x.n - 1;
    s << digit(0) << '.';
    if (x.n == 1 && truncate_zero) s << '0';
    for (int i = 1; i < x.n; ++i) s << digit(i);
    if (!truncate_zero)
      for (int i = x.n - 1; i < precision; ++i) s << '0';
    s << (truncate_zero ? 'E' : 'e') << (e >= 0 ? '+' : '-');
    if (e < 0) e = -e;
    if (!truncate_zero && e < 10) s << '0';
    s << static_cast<std::int64_t>(e);
    return s;
  }
  if (x.exp10 >= 0) {
    for (int i = 0; i < x.n; ++i) s << digit(i);
    for (int i = 0; i < x.exp10; ++i) s << '0';
    return s;
  }
  const int whole = x.exp10 + x.n;
  int i = 0;
  if (whole > 0) {
    for (; i < whole; ++i) s << digit(i);
    s << '.';
  } else {
    s << "0.";
    for (int z = 0; z < -whole; ++z) s << '0';
  }
  for (; i < x.n; ++i) s << digit(i);
  return s;
}

/// Reads back the text apfloat_string wrote (digits, one point, an optional exponent).
constexpr decimal_value parse_decimal(std::string_view s) {
  decimal_value v;
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') {
    v.negative = true;
    ++i;
  }
  int frac = 0;
  bool point = false;
  for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
    if (s[i] == '.') {
      point = true;
      continue;
    }
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (v.digits > (~std::uint64_t{0} - 9) / 10) {
      if (!point) ++v.exp10;  // beyond 19 digits: only the scale matters (never the case here)
      continue;
    }
    v.digits = v.digits * 10 + digit;
    if (point) ++frac;
  }
  int e = 0;
  if (i < s.size()) {
    ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    for (; i < s.size(); ++i) e = e * 10 + (s[i] - '0');
    if (neg) e = -e;
  }
  v.exp10 += e - frac;
  if (v.digits == 0) v.exp10 = 0;
  return v;
}

/// The storage bits of a binary value of format `f` (for the hex spelling).
constexpr std::uint64_t bits_of(const binary_value& v, const float_format& f) {
  const int mant_bits = f.precision - 1;
  const int exp_bits = f.bits - 1 - mant_bits;
  const std::uint64_t sign = v.negative ? std::uint64_t{1} << (f.bits - 1) : 0;
  const std::uint64_t all_ones = (std::uint64_t{1} << exp_bits) - 1;
  if (v.infinite) return sign | all_ones << mant_bits;
  if (v.significand == 0) return sign;
  const bool normal = (v.significand >> mant_bits) != 0;
  const std::uint64_t biased = normal ? static_cast<std::uint64_t>(v.exp2 + mant_bits + static_cast<int>(all_ones >> 1)) : 0;
  return sign | biased << mant_bits | (v.significand & ((std::uint64_t{1} << mant_bits) - 1));
}

/// Appends the literal `decimal` (the `.t2b` spelling, e.g. `1.5`, `2.0e-20`) of a constant of
/// float format `f` as MLIR prints it.
constexpr void append_mlir_float(text& out, std::string_view decimal, const float_format& f) {
  const binary_value v = mlir_literal_value(parse_decimal(decimal), f);
  if (!v.infinite && v.significand == 0) {
    out << (v.negative ? "-" : "") << "0.000000e+00";
    return;
  }
  if (!v.infinite) {
    const text first = apfloat_string(v, 6, 0, false);
    // Why single rounding here: MLIR checks the text with APFloat's own reader, which rounds
    // the decimal straight to the type.
    const binary_value back = round_to_format(parse_decimal(first.view()), f);
    if (back.significand == v.significand && back.exp2 == v.exp2 && !back.infinite) {
      out << first.view();
      return;
    }
    const text natural = apfloat_string(v, 2 + f.precision * 59 / 196, 3, true);
    if (natural.view().find('.') != std::string_view::npos) {
      out << natural.view();
      return;
    }
  }
  constexpr char hex[] = "0123456789ABCDEF";
  const std::uint64_t bits = bits_of(v, f);
  out << "0x";
  bool started = false;
  for (int shift = f.bits - 4; shift >= 0; shift -= 4) {
    const auto nibble = static_cast<std::size_t>((bits >> shift) & 0xFu);
    if (nibble == 0 && !started && shift != 0) continue;
    started = true;
    out << hex[nibble];
  }
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
