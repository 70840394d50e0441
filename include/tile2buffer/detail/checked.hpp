// SPDX-License-Identifier: Apache-2.0
/// @file detail/checked.hpp
/// Exact comparisons of 64-bit sums. A malformed program may give offsets, extents and
/// addresses near 2^63, where `a + b > bound` overflows (undefined behaviour, and in practice a
/// window that wraps around and passes its bounds check).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Whether `a + b > bound`, for any 64-bit operands.
constexpr bool sum_exceeds(std::int64_t a, std::int64_t b, std::int64_t bound) noexcept {
  constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();
  // a + b > bound  <=>  a > bound - b, evaluated only where `bound - b` fits: when it would fall
  // below the range every `a` exceeds it, when it would rise above the range none does.
  if (b >= 0) return bound < lowest + b || a > bound - b;
  return bound <= highest + b && a > bound - b;
}

/// `a + b` when it fits in 64 bits.
constexpr std::optional<std::int64_t> checked_sum(std::int64_t a, std::int64_t b) noexcept {
  if (b >= 0 ? a > std::numeric_limits<std::int64_t>::max() - b : a < std::numeric_limits<std::int64_t>::min() - b)
    return std::nullopt;
  return a + b;
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
