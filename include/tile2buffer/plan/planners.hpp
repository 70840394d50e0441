// SPDX-License-Identifier: Apache-2.0
/// @file plan/planners.hpp
/// The three planners behind one interface: `place(allocs, live) -> addresses`.
/// - pypto: first fit in program order; a range is reused once every value in it is dead.
/// - dsa_rp: best fit in program order, and a range freed by the last `dsa_cooldown` ops is not
///   reused while another fit exists in the space: fewer write-after-read waits between
///   pipes at the cost of a higher peak (a different placement than pypto by design).
/// - ptoas: addressless; allocation identities only.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/plan/lifetime.hpp"

namespace tile2buffer {
inline namespace v0 {

/// How many ops a freed range rests before dsa_rp reuses it (when the space allows).
inline constexpr std::uint32_t dsa_cooldown = 2;

struct placed_range {
  std::int64_t begin = 0;
  std::int64_t end = 0;  // exclusive
};

namespace detail {
/// Lowest 32-byte aligned address >= 0 where [addr, addr + size) avoids every range in `busy`.
/// Sorts `busy`. Why by reference: a copy per placed allocation was a heap allocation each.
template <class = void>
constexpr std::int64_t first_fit(std::vector<placed_range>& busy, std::int64_t size) {
  std::sort(busy.begin(), busy.end(), [](const placed_range& a, const placed_range& b) { return a.begin < b.begin; });
  std::int64_t addr = 0;
  for (const auto& r : busy) {
    if (addr + size <= r.begin) break;
    addr = std::max(addr, align32(r.end));
  }
  return addr;
}
/// Smallest gap between `busy` ranges that holds `size` bytes (the space above them otherwise).
/// Sorts `busy`.
template <class = void>
constexpr std::int64_t best_fit(std::vector<placed_range>& busy, std::int64_t size) {
  std::sort(busy.begin(), busy.end(), [](const placed_range& a, const placed_range& b) { return a.begin < b.begin; });
  std::int64_t cursor = 0, best = -1, best_gap = 0;
  for (const auto& r : busy) {
    if (r.begin - cursor >= size && (best < 0 || r.begin - cursor < best_gap)) {
      best = cursor;
      best_gap = r.begin - cursor;
    }
    cursor = std::max(cursor, align32(r.end));
  }
  return best >= 0 ? best : cursor;
}

/// Orders `order` (allocation indices, ascending) by live start, ties by index. Why a counting
/// sort: starts are op positions, so it is linear, and a comparison sort of one index per
/// allocation was 6% of the pipeline. A start far beyond the count (not from a walk) falls back.
template <class = void>
constexpr void sort_by_start(std::vector<std::uint32_t>& order, const std::vector<live_interval>& live) {
  std::uint32_t top = 0;
  for (const std::uint32_t i : order) top = std::max(top, live[i].start);
  if (top > 4 * order.size() + 4096) {
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return live[a].start != live[b].start ? live[a].start < live[b].start : a < b;
    });
    return;
  }
  std::vector<std::uint32_t> first(std::size_t{top} + 2, 0);  // first[s + 1]: how many start at s, then prefix sums
  for (const std::uint32_t i : order) ++first[live[i].start + 1];
  for (std::size_t s = 1; s < first.size(); ++s) first[s] += first[s - 1];
  std::vector<std::uint32_t> sorted(order.size(), 0);                      // not `(n)`: clang 14 cannot constant-evaluate that
  for (const std::uint32_t i : order) sorted[first[live[i].start]++] = i;  // stable: ties keep index order
  order.swap(sorted);
}
}  // namespace detail

/// Addresses for `allocs` (std::nullopt entries are left unplaced). Allocations that already have
/// an address keep it and are treated as live throughout.
///
/// Allocations are placed in order of live start. Why a sweep: a placed allocation overlaps the
/// one being placed iff it has not ended yet (it started no later), so per memory space only the
/// still-live ones (`active`) and those ended within `dsa_cooldown` ops (`cooling`) are looked at,
/// instead of every allocation. Both lists are kept in allocation-index order, which is the order
/// the fit functions have always received their ranges in, so addresses are exactly those of the
/// all-pairs scan this replaces. Cost: O(n + P + n * A), P = op positions, A = allocations live at once in one
/// space (at most the space's capacity over the smallest allocation when the placement fits).
template <class = void>
constexpr std::vector<std::optional<std::int64_t>> place(planner_kind planner, const std::vector<allocation>& allocs,
                                                         std::vector<live_interval> live) {
  std::vector<std::optional<std::int64_t>> addr(allocs.size());
  if (planner == planner_kind::ptoas) return addr;
  struct space_state {
    std::vector<std::uint32_t> active;   // placed (or pre-addressed), not ended, by index
    std::vector<std::uint32_t> cooling;  // placed, ended within the cooldown (dsa_rp only)
  };
  std::array<space_state, detail::space_names.size()> spaces;
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < allocs.size(); ++i) {
    if (allocs[i].address) {
      addr[i] = allocs[i].address;
      live[i] = live_interval{0, no_id - 1};
      spaces[static_cast<std::size_t>(allocs[i].space)].active.push_back(i);
    } else if (!live[i].empty()) {
      order.push_back(i);
    }
  }
  detail::sort_by_start(order, live);
  const auto range_of = [&](std::uint32_t j) { return placed_range{*addr[j], *addr[j] + allocs[j].capacity}; };
  const auto by_index = [](std::vector<std::uint32_t>& v, std::uint32_t j) {
    v.insert(std::lower_bound(v.begin(), v.end(), j), j);
  };
  std::vector<placed_range> busy, avoid;
  for (std::uint32_t i : order) {
    space_state& s = spaces[static_cast<std::size_t>(allocs[i].space)];
    const std::uint32_t start = live[i].start;
    // Starts never decrease along `order`, so an allocation that ended before this start ends
    // before every later one: it leaves `active` for good (and `cooling` once past the cooldown).
    std::size_t kept = 0;
    for (std::uint32_t j : s.active) {
      if (live[j].end >= start) s.active[kept++] = j;
      else if (planner == planner_kind::dsa_rp && start - live[j].end <= dsa_cooldown) by_index(s.cooling, j);
    }
    s.active.resize(kept);
    kept = 0;
    for (std::uint32_t j : s.cooling)
      if (start - live[j].end <= dsa_cooldown) s.cooling[kept++] = j;
    s.cooling.resize(kept);

    busy.clear();
    for (std::uint32_t j : s.active) busy.push_back(range_of(j));
    if (planner == planner_kind::pypto) {
      addr[i] = detail::first_fit(busy, allocs[i].capacity);
    } else {
      avoid = busy;
      for (std::uint32_t j : s.cooling) avoid.push_back(range_of(j));
      const std::int64_t cool = detail::best_fit(avoid, allocs[i].capacity);
      addr[i] = cool + allocs[i].capacity <= space_capacity(allocs[i].space) ? cool : detail::best_fit(busy, allocs[i].capacity);
    }
    by_index(s.active, i);
  }
  return addr;
}

}  // namespace v0
}  // namespace tile2buffer
