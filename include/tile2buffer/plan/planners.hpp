// SPDX-License-Identifier: Apache-2.0
/// @file plan/planners.hpp
/// The three planners behind one interface: `place(allocs, live) -> addresses`.
/// - pypto: first fit in program order; a range is reused once every value in it is dead.
/// - dsa_rp: best fit in program order, and a range freed by the last `dsa_cooldown` ops is not
///   reused while another fit exists in the space: fewer write-after-read waits between
///   pipes at the cost of a higher peak (a different placement than pypto by design).
/// - ptoas: addressless; allocation identities only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/engine/options.hpp"
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
constexpr std::int64_t first_fit(std::vector<placed_range> busy, std::int64_t size) {
  std::sort(busy.begin(), busy.end(), [](const placed_range& a, const placed_range& b) { return a.begin < b.begin; });
  std::int64_t addr = 0;
  for (const auto& r : busy) {
    if (addr + size <= r.begin) break;
    addr = std::max(addr, align32(r.end));
  }
  return addr;
}
/// Smallest gap between `busy` ranges that holds `size` bytes (the space above them otherwise).
constexpr std::int64_t best_fit(std::vector<placed_range> busy, std::int64_t size) {
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
}  // namespace detail

/// Addresses for `allocs` (std::nullopt entries are left unplaced). Allocations that already have
/// an address keep it and are treated as live throughout.
constexpr std::vector<std::optional<std::int64_t>> place(planner_kind planner, const std::vector<allocation>& allocs,
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
      if (live[j].overlaps(live[i]))
        busy.push_back(range);
      else if (live[j].end < live[i].start && live[i].start - live[j].end <= dsa_cooldown)
        cooling.push_back(range);
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

}  // namespace v0
}  // namespace tile2buffer
