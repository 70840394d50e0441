// SPDX-License-Identifier: Apache-2.0
/// @file detail/decimal.hpp
/// Exact decimal text of a literal `mantissa * 10^exp10`, shared by the `.t2b` printer and the
/// PTO emitter (which must not pull in the whole printer for it).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "tile2buffer/detail/text.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Writes `mantissa * 10^exp10` exactly. Canonical rule: plain decimal with at least one digit
/// after the point when the value is in [1e-5, 1e16) (`2.0`, `0.001`, `123.45`), otherwise one
/// digit before the point and an exponent (`1.5e-20`, `1.0e16`). Zero is `0.0`.
constexpr void append_decimal(text& out, std::int64_t mantissa, int exp10) {
  if (mantissa == 0) {
    out << "0.0";
    return;
  }
  std::uint64_t mag = mantissa < 0 ? 0 - static_cast<std::uint64_t>(mantissa) : static_cast<std::uint64_t>(mantissa);
  int e = exp10;
  while (mag % 10 == 0) {
    mag /= 10;
    ++e;
  }
  char buf[24];
  int d = 0;
  for (std::uint64_t m = mag; m != 0; m /= 10) buf[d++] = static_cast<char>('0' + m % 10);
  std::array<char, 24> digits{};
  for (int i = 0; i < d; ++i) digits[static_cast<std::size_t>(i)] = buf[d - 1 - i];
  const auto ds = std::string_view(digits.data(), static_cast<std::size_t>(d));
  const int point = d + e;  // digits before the decimal point
  if (mantissa < 0) out << '-';
  if (e >= 0 && point <= 16) {
    out << ds;
    for (int i = 0; i < e; ++i) out << '0';
    out << ".0";
  } else if (e < 0 && point > 0) {
    out << ds.substr(0, static_cast<std::size_t>(point)) << '.' << ds.substr(static_cast<std::size_t>(point));
  } else if (e < 0 && point > -5) {
    out << "0.";
    for (int i = point; i < 0; ++i) out << '0';
    out << ds;
  } else {
    out << ds[0] << '.';
    if (d > 1) out << ds.substr(1);
    else out << '0';
    out << 'e' << static_cast<std::int64_t>(point - 1);
  }
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
