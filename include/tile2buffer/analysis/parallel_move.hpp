// SPDX-License-Identifier: Apache-2.0
/// @file analysis/parallel_move.hpp
/// Sequencing a parallel move: the transfers of one branch exit, loop backedge or loop entry
/// all read their sources before any destination is written (reference §4.1). The scheduler
/// orders them so that no transfer overwrites a source another transfer still has to read, and
/// snapshots a source into scratch storage when every order would (a cycle: swaps, rotations)
/// or when a source partially overlaps its own destination. Fan-out (one source, several
/// destinations) needs no snapshot. It works on abstract windows: the caller says which
/// windows are identical and which may share bytes. Why an analysis and not part of legalize
/// (passes/legalize_regions.hpp emits the moves): it reads no IR, so it is tested on its own.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tile2buffer {
inline namespace v0 {

/// One transfer: window `source` is copied into window `destination` (caller's window numbers).
struct parallel_move {
  std::uint32_t source = 0;
  std::uint32_t destination = 0;
};

/// A step of the sequence: copy move `move`'s source into fresh scratch storage (`snapshot`;
/// the move then reads the scratch), or perform move `move`.
struct move_step {
  bool snapshot = false;
  std::uint32_t move = 0;
};

/// The scheduler's working lists, kept by a caller that schedules many moves (one per loop or
/// branch) so that scheduling allocates nothing once they have grown.
struct move_schedule_scratch {
  std::vector<std::uint32_t> pending;
  std::vector<char> snapped;
};

/// Orders `moves` into `steps` (cleared first). `identical(a, b)`: windows a and b are the same
/// bytes (such a move is dropped); `overlap(a, b)`: they may share a byte. Destinations must be
/// pairwise disjoint.
template <class Identical, class Overlap>
constexpr void schedule_parallel_moves(std::span<const parallel_move> moves, Identical&& identical, Overlap&& overlap,
                                       std::vector<move_step>& steps, move_schedule_scratch& scratch) {
  steps.clear();
  std::vector<std::uint32_t>& pending = scratch.pending;
  std::vector<char>& snapped = scratch.snapped;
  pending.clear();
  snapped.assign(moves.size(), 0);
  for (std::uint32_t m = 0; m < moves.size(); ++m) {
    if (identical(moves[m].source, moves[m].destination)) continue;
    pending.push_back(m);
    // A native copy needs identical or disjoint windows: a partial self-overlap reads scratch.
    if (overlap(moves[m].source, moves[m].destination)) {
      steps.push_back(move_step{true, m});
      snapped[m] = 1;
    }
  }
  // Why a move may run: no other pending move still reads bytes it writes.
  const auto ready = [&](std::uint32_t m) {
    for (std::uint32_t p : pending)
      if (p != m && !snapped[p] && overlap(moves[m].destination, moves[p].source)) return false;
    return true;
  };
  while (!pending.empty()) {
    std::size_t pick = pending.size();
    for (std::size_t i = 0; i < pending.size() && pick == pending.size(); ++i)
      if (ready(pending[i])) pick = i;
    if (pick == pending.size()) {
      // Every pending move is blocked, so they form cycles: free one by snapshotting its source.
      for (std::uint32_t p : pending)
        if (!snapped[p]) {
          steps.push_back(move_step{true, p});
          snapped[p] = 1;
          break;
        }
      continue;
    }
    steps.push_back(move_step{false, pending[pick]});
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(pick));
  }
}
/// As above, returning the steps.
template <class Identical, class Overlap>
constexpr std::vector<move_step> schedule_parallel_moves(std::span<const parallel_move> moves, Identical&& identical,
                                                         Overlap&& overlap) {
  std::vector<move_step> steps;
  move_schedule_scratch scratch;
  schedule_parallel_moves(moves, identical, overlap, steps, scratch);
  return steps;
}

}  // namespace v0
}  // namespace tile2buffer
