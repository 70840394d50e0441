// SPDX-License-Identifier: Apache-2.0
/// @file plan/lifetime.hpp
/// Live intervals of allocations over program-order op positions (analysis/liveness.hpp, shared
/// with init_storage's last uses). An allocation is live from
/// the first to the last op that defines or reads a Tile value stored in it, or a window cut from
/// such a value (a read through a slice reads the source's bytes); an interval that
/// reaches into a loop from outside covers the whole loop (the next iteration may read it).
#pragma once

#include <cstdint>
#include <vector>

#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/liveness.hpp"
#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/analysis/windows.hpp"
#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {

struct live_interval {
  std::uint32_t start = no_id;
  std::uint32_t end = 0;
  [[nodiscard]] constexpr bool empty() const noexcept { return start == no_id; }
  [[nodiscard]] constexpr bool overlaps(const live_interval& o) const noexcept {
    return !empty() && !o.empty() && start <= o.end && o.start <= end;
  }
};

/// The largest sum of sizes of the allocations live at one op position, and a position where it
/// is reached: what no placement in that space can go below. `n` allocations, read through
/// `size_of(i)` and `live_of(i)` (the caller keeps only those of one space), so the memory map and
/// the plan pass's PTOAS warning compute it alike.
struct live_peak {
  std::int64_t bytes = 0;
  std::uint32_t at = 0;
};
template <class SizeOf, class LiveOf>
constexpr live_peak largest_live_sum(std::size_t n, SizeOf size_of, LiveOf live_of) {
  live_peak peak;
  for (std::size_t a = 0; a < n; ++a) {
    const live_interval la = live_of(a);
    // The largest sum over a clique of intervals is reached at one of their starts.
    if (la.empty()) continue;
    std::int64_t live = 0;
    for (std::size_t b = 0; b < n; ++b) {
      const live_interval lb = live_of(b);
      if (!lb.empty() && lb.start <= la.start && la.start <= lb.end) live += size_of(b);
    }
    if (live > peak.bytes) peak = live_peak{live, la.start};
  }
  return peak;
}

namespace detail {
/// Extends every interval of `live` that overlaps a loop of `loops` without lying inside it to
/// cover that loop, visiting loops in program order (`loops` is pre-order; loops nest or are
/// disjoint). `positions` bounds every position.
///
/// Why not "for each loop, for each interval": that is O(loops * intervals), quadratic on chains of
/// small loops. Because loops nest, visiting them in order extends [a, b] exactly to cover the two
/// loops directly below the innermost loop containing both a and b (LCA) on the way to a and to b
/// (the loop entered on the way to a is visited first and covers a; every loop inside the grown
/// interval is then contained in it; the one on the way to b covers b; no loop outside the LCA's
/// subtree meets the interval). So each interval walks the loop tree from its two ends:
/// O(positions + loops + intervals * depth).
template <class = void>
constexpr void cover_loops(std::vector<live_interval>& live, const std::vector<live_interval>& loops, std::uint32_t positions) {
  if (loops.empty()) return;
  std::vector<std::uint32_t> parent(loops.size(), no_id), depth(loops.size(), 0);
  std::vector<std::uint32_t> inner(positions, no_id);  // innermost loop containing each position
  std::vector<std::uint32_t> open;
  std::size_t k = 0;
  for (std::uint32_t p = 0; p < positions; ++p) {
    while (!open.empty() && loops[open.back()].end < p) open.pop_back();
    for (; k < loops.size() && loops[k].start == p; ++k) {
      while (!open.empty() && loops[open.back()].end < p) open.pop_back();
      if (!open.empty()) {
        parent[k] = open.back();
        depth[k] = depth[open.back()] + 1;
      }
      open.push_back(static_cast<std::uint32_t>(k));
    }
    if (!open.empty()) inner[p] = open.back();
  }
  for (auto& l : live) {
    if (l.empty() || l.start >= positions || l.end >= positions) continue;
    std::uint32_t x = inner[l.start], y = inner[l.end];
    if (x == y) continue;  // both ends directly in the same loop (or in none): nothing crosses
    // Climb to the common ancestor, remembering the last loop below it on each side.
    std::uint32_t below_x = no_id, below_y = no_id;
    const auto dep = [&](std::uint32_t n) { return n == no_id ? 0u : depth[n] + 1; };
    while (dep(x) > dep(y)) {
      below_x = x;
      x = parent[x];
    }
    while (dep(y) > dep(x)) {
      below_y = y;
      y = parent[y];
    }
    while (x != y) {
      below_x = x;
      x = parent[x];
      below_y = y;
      y = parent[y];
    }
    if (below_x != no_id) l.start = std::min(l.start, loops[below_x].start);
    if (below_y != no_id) l.end = std::max(l.end, loops[below_y].end);
  }
}
}  // namespace detail

/// One interval per allocation of `facts`, in the same order. `windows` (when given) maps each
/// window to the storage tile it reads.
template <class = void>
constexpr std::vector<live_interval> live_intervals(const function& f, const storage_facts& facts,
                                                    const window_facts* windows = nullptr) {
  std::vector<live_interval> live(facts.allocations().size());
  const program_order order(f);
  const auto touch = [&](value_id v, std::uint32_t p) {
    if (windows != nullptr) v = windows->storage_of(v);
    if (!f.type_of(v).is_tile() || !f.has_storage(v)) return;
    const std::uint32_t a = facts.index_of(f.storage_of(v).mem);
    if (a == no_id) return;
    live[a].start = std::min(live[a].start, p);
    live[a].end = std::max(live[a].end, p);
  };
  const auto touch_operand = [&](const operand& x, std::uint32_t p, auto& self) -> void {
    if (x.is_value()) touch(x.value(), p);
    if (x.kind == operand_kind::tuple)
      for (const operand& e : f.elements(x)) self(e, p, self);
  };
  for (op_id o : order.ops()) {
    const op_node& n = f.op(o);
    const std::uint32_t p = order.pos(o);
    for (const operand& x : f.args(o)) touch_operand(x, p, touch_operand);
    for (std::uint32_t i = 0; i < n.results.count; ++i) touch(f.result(o, i), p);
    for (std::uint32_t r = 0; r < n.region_count; ++r) {
      const region_info& reg = f.region(region_id{n.regions_begin + r});
      for (std::uint32_t i = 0; i < reg.args.count; ++i) touch(value_id{reg.args.begin + i}, p);
    }
  }
  // Loops: an interval with events both inside and outside a loop covers the loop.
  std::vector<live_interval> loops;  // [position of the loop op, end of its subtree], pre-order
  for (op_id o : order.ops())
    if (is_loop_op(f.op(o).code())) loops.push_back(live_interval{order.pos(o), order.end(o)});
  detail::cover_loops(live, loops, order.size());
  return live;
}


constexpr std::int64_t align32(std::int64_t n) { return (n + 31) / 32 * 32; }

}  // namespace v0
}  // namespace tile2buffer
