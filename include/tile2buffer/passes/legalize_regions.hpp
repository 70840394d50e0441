// SPDX-License-Identifier: Apache-2.0
/// @file passes/legalize_regions.hpp
/// Canonical storage at every Tile region boundary (reference §4.1, the Buffer-IR part of
/// MaterializeSemanticAliases), so that lowering can drop Tile results and carries:
/// - a branch result keeps the window both arms yield; otherwise each arm ends in the result's
///   window: a fresh, unaliased, non-view producer written directly in the arm is retargeted to
///   write it (its own allocation, orphaned, is removed), any other value is moved in by an
///   explicit `tile.move` before the yield;
/// - a loop initializer in another window than its carry is copied in before the loop
///   (`carry_input_<name>`: storage initialization already gave the carry its initializer's
///   storage whenever nothing reads that storage after the loop starts);
/// - a loop body yielding a value outside its carry's window moves it in before the backedge.
/// The transfers of one yield (or of one loop entry) form a parallel move: they are sequenced
/// by `schedule_parallel_moves`, with `scratch_<name>` snapshots in their own allocations.
/// A part of the legalize pass, not a pass: only passes/legalize.hpp includes it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/parallel_move.hpp"
#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/analysis/storage_overlap.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/engine/storage_alloc.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// One transfer into a carry's window: operand `position` of a yield (or initializer `position`
/// of a loop) reads `source`; the moved value takes the type (and storage) of `destination`.
struct carry_move {
  std::uint32_t position = 0;
  value_id source;
  value_id destination;
  std::string_view suffix;  ///< of the moved value's name: `_then`, `_else`, `_next`; entry copies are `carry_input_<name>`
};

/// What region legalization changes in one function.
struct region_plan {
  std::vector<std::vector<carry_move>> moves;                ///< by op id: before a yield, or before a loop (entry copies)
  std::vector<char> orphan;                                  ///< by value id: a tile.alloc result nothing lives in any more
  std::vector<std::pair<value_id, value_storage>> retarget;  ///< producers' results that now write their branch result's window
  [[nodiscard]] constexpr bool empty() const { return retarget.empty() && orphan.empty() && moves.empty(); }
  constexpr void add(op_id at, carry_move m) {
    if (moves.size() <= at.index) moves.resize(at.index + 1);
    moves[at.index].push_back(m);
  }
  [[nodiscard]] constexpr std::span<const carry_move> at(op_id o) const {
    return o.index < moves.size() ? std::span<const carry_move>(moves[o.index]) : std::span<const carry_move>{};
  }
};

/// Whether arm `arm`'s yielded value `v` may be retargeted to write `dest` (see the file comment).
template <class = void>
constexpr bool retargetable(const function& f, const kernel_analyses& k, const std::vector<region_id>& enclosing,
                            const std::vector<std::uint32_t>& residents, region_id arm, op_id yield, value_id v,
                            stored_tile dest) {
  const value_info& info = f.value(v);
  if (info.origin() != value_origin::result || enclosing[info.def.index] != arm) return false;
  const opcode c = f.op(info.def).code();
  if (!is_tile_op(c) || f.op(info.def).results.count != 1 || k.windows.is_window(v) || storage_source(f, info.def)) return false;
  const allocation* own = k.storage.find(f.storage_of(v).mem);
  const allocation* target = k.storage.find(dest.at.mem);
  // Fresh and unaliased: the only value in its allocation; placed storage is the planner's call.
  if (own == nullptr || target == nullptr || residents[own->mem.index] != 1 || own->address || target->address) return false;
  std::uint32_t uses = 0;
  for (const operand& a : f.args(yield)) uses += a.is_value() && a.value() == v ? 1u : 0u;
  if (uses != 1) return false;
  // The destination is written earlier than the move would: nothing the arm reads may live there.
  bool clash = false;
  walk(f, arm, [&](op_id o) {
    for (const operand& a : f.args(o))
      if (a.is_value() && f.type_of(a.value()).is_tile() && storage_overlaps(f.stored(a.value()), dest)) clash = true;
  });
  return !clash;
}

/// Plans the transfers and retargets of every Tile region boundary of `f`.
template <class = void>
constexpr region_plan plan_region_storage(const function& f, const kernel_analyses& k) {
  region_plan plan;
  bool any = false;
  for (const op_node& n : f.ops) any = any || is_region_op(n.code());
  if (!any) return plan;
  const std::vector<region_id> enclosing = enclosing_regions(f);
  std::vector<std::uint32_t> residents(f.values.size(), 0);  // by allocation value: Tile values in it
  for (std::uint32_t i = 0; i < f.values.size(); ++i)
    if (f.storage[i].valid() && f.type_of(value_id{i}).is_tile()) ++residents[f.storage[i].mem.index];
  walk(f, [&](op_id o) {
    const op_node& n = f.op(o);
    const opcode c = n.code();
    if (is_branch_op(c)) {
      for (std::uint32_t r = 0; r < n.region_count; ++r) {
        const region_id arm = f.region_of(o, r);
        const op_id y = trailing_yield(f, arm);
        if (!y.valid()) continue;
        for (std::uint32_t i = 0; i < n.results.count && i < f.args(y).size(); ++i) {
          const value_id res = f.result(o, i);
          const operand x = f.args(y)[i];
          if (!f.type_of(res).is_tile() || !x.is_value() || same_window(f.stored(x.value()), f.stored(res))) continue;
          if (retargetable(f, k, enclosing, residents, arm, y, x.value(), f.stored(res))) {
            const value_id old_mem = f.storage_of(x.value()).mem;
            plan.retarget.emplace_back(x.value(), f.storage_of(res));
            if (plan.orphan.empty()) plan.orphan.resize(f.values.size(), 0);
            plan.orphan[old_mem.index] = 1;
            continue;
          }
          plan.add(y, carry_move{i, x.value(), res, r == 0 ? "_then" : "_else"});
        }
      }
      return;
    }
    if (!is_loop_op(c)) return;
    const auto inits = loop_inits(f, o);
    const op_id y = trailing_yield(f, loop_body(f, o));
    for (std::uint32_t i = 0; i < n.results.count && i < inits.size(); ++i) {
      const value_id res = f.result(o, i);
      if (!f.type_of(res).is_tile()) continue;
      const stored_tile w = f.stored(res);
      const value_id it = iteration_value(f, o, loop_body(f, o), i);
      if (inits[i].is_value() && !same_window(f.stored(inits[i].value()), w))
        plan.add(o, carry_move{i, inits[i].value(), it, {}});
      if (!y.valid() || i >= f.args(y).size()) continue;
      const operand next = f.args(y)[i];
      if (next.is_value() && !same_window(f.stored(next.value()), w)) plan.add(y, carry_move{i, next.value(), it, "_next"});
    }
  });
  return plan;
}

/// What `emit_parallel_move` works in, kept by the pass across the loops and branches of a
/// function so that their moves allocate nothing once it has grown.
struct parallel_move_scratch {
  std::vector<placed_type> windows;
  std::vector<parallel_move> pm;
  std::vector<move_step> steps;
  move_schedule_scratch schedule;
  std::vector<operand> from;
  std::vector<operand> out;
  text name;
};

/// Emits the parallel move `moves` into the rewriter's current region, at `loc`; returns the
/// operands that replace the moved positions (indexed like `moves`; they live in `s` until its
/// next use). `overlap(a, b)` on source types says whether two windows may share bytes.
template <class Overlap>
constexpr std::span<const operand> emit_parallel_move(rewriter& rw, std::span<const carry_move> moves, location loc,
                                                      Overlap&& overlap, parallel_move_scratch& s) {
  const function& f = rw.source();
  // Windows 2m and 2m+1: move m's source and destination.
  s.windows.clear();
  s.pm.clear();
  for (std::uint32_t m = 0; m < moves.size(); ++m) {
    s.windows.push_back(rw.source_placed(moves[m].source));
    s.windows.push_back(rw.source_placed(moves[m].destination));
    s.pm.push_back(parallel_move{2 * m, 2 * m + 1});
  }
  schedule_parallel_moves(
      s.pm, [&](std::uint32_t a, std::uint32_t b) { return same_window(s.windows[a], s.windows[b]); },
      [&](std::uint32_t a, std::uint32_t b) { return overlap(s.windows[a], s.windows[b]); }, s.steps, s.schedule);
  s.from.resize(moves.size());
  s.out.resize(moves.size());
  for (std::uint32_t m = 0; m < moves.size(); ++m) s.from[m] = s.out[m] = rw.map(operand::of(moves[m].source));
  for (const move_step& step : s.steps) {
    const carry_move& m = moves[step.move];
    s.name.clear();
    if (step.snapshot) {
      const value_id mem = emit_alloc_for(rw, m.source, loc, "_scratch");
      const placed_type t = in_storage(rw.mapped_type(m.source), mem);
      s.name << "scratch_" << f.name_of(m.source);
      s.from[step.move] =
          operand::of(rw.builder().create<tile::move>({.source = built(s.from[step.move])}, t, s.name.view(), loc));
      continue;
    }
    s.name << (m.suffix.empty() ? "carry_input_" : "") << f.name_of(m.destination) << m.suffix;
    s.out[step.move] = operand::of(
        rw.builder().create<tile::move>({.source = built(s.from[step.move])}, rw.mapped(m.destination), s.name.view(), loc));
  }
  return s.out;
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
