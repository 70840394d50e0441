// SPDX-License-Identifier: Apache-2.0
/// @file tools/decimal_arg.hpp
/// Decimal command-line values for the tools (counts, seeds, limits), read strictly: digits only,
/// no sign, no spaces, within the bounds the flag gives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace t2b_tools {

/// The decimal number `v` when it lies in [min, max]; nullopt otherwise (also for anything but
/// digits, and for more digits than a 64-bit count can take).
inline std::optional<std::uint64_t> decimal_in(std::string_view v, std::uint64_t min = 0, std::uint64_t max = UINT64_MAX) {
  if (v.empty() || v.size() > 19) return std::nullopt;  // 19 digits never overflow 64 bits
  std::uint64_t n = 0;
  for (const char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (n < min || n > max) return std::nullopt;
  return n;
}

/// "FLAG: expected a number from MIN to MAX", the bounds spelled from the values that check them.
inline std::string expected_range(std::string_view flag, std::uint64_t min, std::uint64_t max) {
  return std::string(flag) + ": expected a number from " + std::to_string(min) + " to " + std::to_string(max);
}

}  // namespace t2b_tools
