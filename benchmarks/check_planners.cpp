// SPDX-License-Identifier: Apache-2.0
/// @file check_planners.cpp
/// Test: `place` (the sweep in plan/planners.hpp) gives exactly the addresses of the all-pairs
/// reference it replaced (kept below verbatim in behaviour), on seeded random allocation sets:
/// mixed spaces, capacities (unaligned and zero included), pre-addressed allocations, empty
/// intervals, ties in live start, and sizes that overflow a space. Likewise `detail::cover_loops`
/// (plan/lifetime.hpp) against the per-loop scan it replaced, on random nested and chained loops.
/// Exit status 1 on a difference.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "tile2buffer/plan/planners.hpp"

namespace {
using namespace tile2buffer;

/// The quadratic planner loop as it was before the sweep: every placement scans all allocations.
std::vector<std::optional<std::int64_t>> reference_place(planner_kind planner, const std::vector<allocation>& allocs,
                                                         std::vector<live_interval> live) {
  std::vector<std::optional<std::int64_t>> addr(allocs.size());
  if (planner == planner_kind::ptoas) return addr;
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < allocs.size(); ++i) {
    if (allocs[i].address) {
      addr[i] = allocs[i].address;
      live[i] = live_interval{0, no_id - 1};
    } else if (!live[i].empty()) {
      order.push_back(i);
    }
  }
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return live[a].start != live[b].start ? live[a].start < live[b].start : a < b;
  });
  for (std::uint32_t i : order) {
    std::vector<placed_range> busy, cooling;
    for (std::uint32_t j = 0; j < allocs.size(); ++j) {
      if (j == i || !addr[j] || allocs[j].space != allocs[i].space) continue;
      const placed_range range{*addr[j], *addr[j] + allocs[j].capacity};
      if (live[j].overlaps(live[i])) busy.push_back(range);
      else if (live[j].end < live[i].start && live[i].start - live[j].end <= dsa_cooldown) cooling.push_back(range);
    }
    if (planner == planner_kind::pypto) {
      addr[i] = detail::first_fit(busy, allocs[i].capacity);
      continue;
    }
    std::vector<placed_range> avoid = busy;
    avoid.insert(avoid.end(), cooling.begin(), cooling.end());
    const std::int64_t cool = detail::best_fit(avoid, allocs[i].capacity);
    addr[i] = cool + allocs[i].capacity <= space_capacity(allocs[i].space) ? cool : detail::best_fit(busy, allocs[i].capacity);
  }
  return addr;
}

/// The loop rule of live_intervals as it was: every loop, in program order, scans every interval.
void reference_cover_loops(std::vector<live_interval>& live, const std::vector<live_interval>& loops) {
  for (const auto& loop : loops) {
    const std::uint32_t s = loop.start, e = loop.end;
    for (auto& l : live) {
      if (l.empty() || l.end < s || l.start > e) continue;
      if (l.start < s || l.end > e) {
        l.start = std::min(l.start, s);
        l.end = std::max(l.end, e);
      }
    }
  }
}

bool same(const std::vector<live_interval>& a, const std::vector<live_interval>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].start != b[i].start || a[i].end != b[i].end) return false;
  return true;
}

}  // namespace

int main() {
  int failures = 0, cases = 0;
  for (std::uint32_t seed = 1; seed <= 400; ++seed) {
    std::mt19937 rng(seed);
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    // A random op sequence: each position may open a loop (its op) or close the innermost one.
    const auto positions = static_cast<std::uint32_t>(pick(1, seed % 10 == 0 ? 3000 : 80));
    std::vector<live_interval> loops;
    std::vector<std::size_t> open;
    for (std::uint32_t p = 0; p < positions; ++p) {
      while (!open.empty() && pick(0, 3) == 0) {
        loops[open.back()].end = p - 1;
        open.pop_back();
      }
      if (pick(0, 4) == 0) {
        open.push_back(loops.size());
        loops.push_back(live_interval{p, p});
      }
    }
    for (std::size_t i : open) loops[i].end = positions - 1;
    for (auto& l : loops) l.end = std::max(l.end, l.start);
    std::vector<live_interval> live;
    const int n = pick(0, 200);
    for (int i = 0; i < n; ++i) {
      if (pick(0, 9) == 0) {
        live.push_back(live_interval{});
        continue;
      }
      const auto a = static_cast<std::uint32_t>(pick(0, static_cast<int>(positions) - 1));
      const auto b = static_cast<std::uint32_t>(
          pick(0, 2) == 0 ? pick(static_cast<int>(a), static_cast<int>(positions) - 1)
                          : std::min<int>(static_cast<int>(a) + pick(0, 5), static_cast<int>(positions) - 1));
      live.push_back(live_interval{a, b});
    }
    std::vector<live_interval> want = live;
    reference_cover_loops(want, loops);
    detail::cover_loops(live, loops, positions);
    ++cases;
    if (!same(live, want)) {
      ++failures;
      std::printf("FAIL: cover_loops seed %u (%zu loops, %d intervals)\n", seed, loops.size(), n);
    }
  }
  for (std::uint32_t seed = 1; seed <= 400; ++seed) {
    std::mt19937 rng(seed);
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int n = pick(0, seed % 10 == 0 ? 600 : 60);
    const int span = pick(1, 3 * n + 2);  // program length: short spans force many ties
    const int spaces = pick(1, 3);
    std::vector<allocation> allocs;
    std::vector<live_interval> live;
    for (int i = 0; i < n; ++i) {
      allocation a;
      a.space = static_cast<memory_space>(pick(0, spaces - 1));
      const int kind = pick(0, 9);
      a.capacity = kind == 0 ? 0 : kind == 1 ? pick(1, 4000) : 32 * pick(1, seed % 7 == 0 ? 2000 : 96);
      if (pick(0, 19) == 0) a.address = 32 * pick(0, 3000);
      allocs.push_back(a);
      if (pick(0, 14) == 0) {
        live.push_back(live_interval{});
      } else {
        const auto s = static_cast<std::uint32_t>(pick(0, span));
        const auto len = static_cast<std::uint32_t>(pick(0, 3) == 0 ? pick(0, span) : pick(0, 6));
        live.push_back(live_interval{s, s + len});
      }
    }
    for (planner_kind p : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
      ++cases;
      if (place(p, allocs, live) != reference_place(p, allocs, live)) {
        ++failures;
        std::printf("FAIL: seed %u planner %.*s (%d allocations)\n", seed, static_cast<int>(name(p).size()), name(p).data(), n);
      }
    }
  }
  std::printf("%d passed, %d failed\n", cases - failures, failures);
  return failures == 0 ? 0 : 1;
}
