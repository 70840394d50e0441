// SPDX-License-Identifier: Apache-2.0
/// @file checked_test.cpp
/// detail/checked.hpp: exact 64-bit sum comparisons, at compile time and against 128-bit
/// arithmetic on the values where plain sums overflow.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "tile2buffer/detail/checked.hpp"

using tile2buffer::detail::checked_sum;
using tile2buffer::detail::sum_exceeds;

namespace {
constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();

// The overflow a malformed window hit: offset 2^63 - 1 plus an extent of 8 exceeds 16.
static_assert(sum_exceeds(hi, 8, 16));
static_assert(!sum_exceeds(8, 8, 16) && sum_exceeds(8, 9, 16));
static_assert(sum_exceeds(hi, hi, hi) && !sum_exceeds(lo, lo, lo));
static_assert(!sum_exceeds(lo, -1, lo) && sum_exceeds(hi, lo, -2) && !sum_exceeds(hi, lo, -1));
static_assert(sum_exceeds(hi, -1, hi - 2) && !sum_exceeds(0, -3, hi));
static_assert(!checked_sum(hi, 1) && !checked_sum(lo, -1) && *checked_sum(hi, lo) == -1 && *checked_sum(hi - 1, 1) == hi);
}  // namespace

TEST_CASE("sum_exceeds and checked_sum agree with 128-bit arithmetic near the ends of the range") {
  __extension__ typedef __int128 wide;
  const std::vector<std::int64_t> edge = {lo, lo + 1, lo / 2, -4096, -2, -1, 0, 1, 2, 4096, hi / 2, hi - 1, hi};
  int checked = 0;
  for (const std::int64_t a : edge)
    for (const std::int64_t b : edge) {
      const wide sum = static_cast<wide>(a) + b;
      for (const std::int64_t bound : edge) {
        CHECK_MESSAGE(sum_exceeds(a, b, bound) == (sum > bound), a, " + ", b, " > ", bound);
        ++checked;
      }
      const bool fits = sum >= lo && sum <= hi;
      REQUIRE(checked_sum(a, b).has_value() == fits);
      if (fits) CHECK(*checked_sum(a, b) == static_cast<std::int64_t>(sum));
    }
  CHECK(checked == 13 * 13 * 13);
}
