// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tile2buffer/plan/planners.hpp"

using namespace tile2buffer;

namespace {
/// The order the planner places allocations in: by live start, ties by allocation index.
std::vector<std::uint32_t> by_comparison(std::vector<std::uint32_t> order, const std::vector<live_interval>& live) {
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return live[a].start != live[b].start ? live[a].start < live[b].start : a < b;
  });
  return order;
}

/// `n` intervals with starts below `span` (many ties when span < n), every other one placed.
std::vector<live_interval> intervals(std::uint32_t n, std::uint32_t span, std::uint32_t seed) {
  std::vector<live_interval> live(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    live[i].start = (seed >> 8) % span;
    live[i].end = live[i].start + 3;
  }
  return live;
}

constexpr bool counting_sort_keeps_index_order_on_ties() {
  std::vector<live_interval> live(5);
  const std::uint32_t starts[] = {4, 1, 4, 0, 1};
  for (std::size_t i = 0; i < live.size(); ++i) live[i] = live_interval{starts[i], starts[i] + 1};
  std::vector<std::uint32_t> order{0, 1, 2, 3, 4};
  detail::sort_by_start(order, live);
  const std::uint32_t want[] = {3, 1, 4, 0, 2};
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != want[i]) return false;
  return true;
}
static_assert(counting_sort_keeps_index_order_on_ties());
}  // namespace

TEST_CASE("allocations are ordered by live start, ties by index, on both sorting paths") {
  CHECK(counting_sort_keeps_index_order_on_ties());
  // span <= 4n + 4096 takes the counting sort; a larger one the comparison sort.
  for (const std::uint32_t span : {1u, 7u, 1000u, 5000u, 100000000u}) {
    CAPTURE(span);
    const std::vector<live_interval> live = intervals(3000, span, span);
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < live.size(); i += 2) order.push_back(i);
    const std::vector<std::uint32_t> want = by_comparison(order, live);
    detail::sort_by_start(order, live);
    CHECK(order == want);
  }
}
