// SPDX-License-Identifier: Apache-2.0
/// @file passes/legalize.hpp
/// Storage legalization for selected kernels:
/// - a `tile.recip` whose result overlaps its source's storage gets a distinct destination
///   allocation (the native op needs disjoint storage);
/// - a `tile.assemble` whose source may overlap the window it writes (a window of the target,
///   say) reads a snapshot instead: the source's full storage tile is copied into new storage
///   right before the assemble and the source window is cut again from the copy with the same
///   offset operands. No snapshot for an exact self-write or for static byte spans proven
///   disjoint (spans run from a window's first to its last byte, gaps between rows included,
///   as the Buffer verifier counts them).
/// Overlap means the same bytes of one allocation, or, for addressed planners, two allocations
/// whose placed (`addr =`) byte ranges intersect.
/// - every Tile region boundary gets canonical storage (passes/legalize_regions.hpp): branch
///   results written in their arms, loop entry copies, parallel-move yields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/inline_vector.hpp"
#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/analysis/storage_overlap.hpp"
#include "tile2buffer/analysis/windows.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/engine/storage_alloc.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/passes/legalize_regions.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Moves every tile.alloc nested in a region (parallel-move scratch, loop-entry copies and
/// snapshots made inside a loop or branch) into the function body, after the allocations that
/// precede its first region op: the reference declares every allocation at function top level,
/// before the first region op. Why this is safe: an allocation reads nothing and storage is named
/// by value, so an earlier definition changes no use, and live intervals start at the first op
/// that touches the storage, not at its tile.alloc.
template <class = void>
constexpr void hoist_nested_allocs(function& f) {
  const std::vector<region_id> enclosing = enclosing_regions(f);
  std::vector<op_id> hoisted;
  walk(f, [&](op_id o) {
    if (has_trait(f.op(o).code(), trait::allocates) && enclosing[o.index] != f.body) hoisted.push_back(o);
  });
  if (hoisted.empty()) return;
  std::vector<char> moved(f.ops.size(), 0);
  for (const op_id o : hoisted) moved[o.index] = 1;
  std::vector<op_id> pool;
  pool.reserve(f.region_ops.size());
  for (std::uint32_t r = 0; r < f.regions.size(); ++r) {
    const std::span<const op_id> ops = f.ops_of(region_id{r});
    const auto begin = static_cast<std::uint32_t>(pool.size());
    if (region_id{r} == f.body) {
      std::size_t at = 0;
      for (std::size_t i = 0; i < ops.size() && !is_region_op(f.op(ops[i]).code()); ++i)
        if (has_trait(f.op(ops[i]).code(), trait::allocates)) at = i + 1;
      pool.insert(pool.end(), ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(at));
      pool.insert(pool.end(), hoisted.begin(), hoisted.end());
      pool.insert(pool.end(), ops.begin() + static_cast<std::ptrdiff_t>(at), ops.end());
    } else {
      for (const op_id o : ops)
        if (!moved[o.index]) pool.push_back(o);
    }
    f.regions[r].ops = span32{begin, static_cast<std::uint32_t>(pool.size()) - begin};
  }
  f.region_ops = static_cast<std::vector<op_id>&&>(pool);
}

/// The bytes a Tile value may touch in its allocation: [begin, end); `precise` when every offset
/// on the way is a literal.
struct byte_span {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  bool precise = true;
};

template <class = void>
constexpr byte_span span_of(const function& f, const window_facts& windows, value_id v) {
  const type& storage = f.type_of(windows.storage_of(v));
  const std::int64_t at = f.storage_of(windows.storage_of(v)).offset;
  const window_facts::window* w = windows.find(v);
  if (w == nullptr) return {at, at + storage.bytes(), true};
  if (!w->static_offset) return {at, at + storage.bytes(), false};
  const type& t = f.type_of(v);
  const std::int64_t begin = at + w->offset;
  const std::int64_t len = w->relabel ? t.bytes() : (t.shape[0] - 1) * storage.row_bytes() + t.row_bytes();
  return {begin, begin + len, true};
}

/// Whether assemble `o` needs its source snapshotted (see the file comment).
template <class = void>
constexpr bool assemble_needs_snapshot(const function& f, const kernel_analyses& k, op_id o, bool with_addresses) {
  const typed<tile::assemble> op(f, o);
  if (!op.source().is_value() || !op.target().is_value() || op.result_count() != 1) return false;
  const value_id src = op.source().value();
  const type& st = f.type_of(k.windows.storage_of(src));
  const value_storage& sat = f.storage_of(k.windows.storage_of(src));
  const type& rt = op.result_type();
  const value_storage& rat = f.storage_of(op.result());
  const type& vt = f.type_of(src);
  if (!sat.valid() || !rat.valid()) return false;
  byte_span s = span_of(f, k.windows, src);
  const auto off = op.elements(op.offsets());
  byte_span d{rat.offset, rat.offset + rt.bytes(), false};
  if (off.size() == 2 && off[0].kind == operand_kind::int_lit && off[1].kind == operand_kind::int_lit) {
    d.begin = rat.offset + off[0].num * rt.row_bytes() + off[1].num * element_bytes(rt.dt);
    d.end = d.begin + (vt.shape[0] - 1) * rt.row_bytes() + vt.row_bytes();
    d.precise = true;
  }
  if (sat.mem != rat.mem) {
    if (!with_addresses) return false;
    const allocation* a = k.storage.find(sat.mem);
    const allocation* b = k.storage.find(rat.mem);
    if (a == nullptr || b == nullptr || a->space != b->space || !a->address || !b->address) return false;
    s.begin += *a->address;
    s.end += *a->address;
    d.begin += *b->address;
    d.end += *b->address;
  }
  if (s.end <= d.begin || d.end <= s.begin) return false;
  if (s.precise && d.precise && s.begin == d.begin && s.end == d.end && st.row_bytes() == rt.row_bytes()) return false;
  // An exact self-write with runtime offsets: the source was cut from the target (or the result)
  // at the very offset operands the assemble writes to.
  if (const window_facts::window* w = k.windows.find(src);
      w != nullptr && !w->relabel && (w->parent == op.target().value() || w->parent == op.result())) {
    const value_info& def = f.value(src);
    if (def.def.valid() && same_operand(f, typed<tile::slice>(f, def.def).offsets(), op.offsets())) return false;
  }
  return true;
}

/// Copies `o`'s source storage tile into new storage and cuts the source window again from it;
/// returns the operand the assemble reads instead of its source.
template <class = void>
constexpr operand snapshot_source(rewriter& rw, const kernel_analyses& k, op_id o) {
  const function& f = rw.source();
  const value_id src = typed<tile::assemble>(f, o).source().value();
  const value_id storage = k.windows.storage_of(src);
  const location loc = f.loc_of(o);
  const value_id mem = emit_alloc_for(rw, storage, loc, "_snapshot");
  const placed_type st = in_storage(rw.mapped_type(storage), mem);
  const text nm = text(f.name_of(storage)) << "_snapshot";
  operand now = operand::of(rw.builder().create<tile::move>({.source = built(rw.map(operand::of(storage)))}, st, nm.view(), loc));
  // The window chain from the storage tile down to the source, outermost first.
  std::vector<value_id> chain;
  for (value_id v = src; k.windows.is_window(v); v = k.windows.find(v)->parent) chain.push_back(v);
  for (std::size_t i = chain.size(); i-- > 0;) {
    const op_id def = f.value(chain[i]).def;
    std::vector<operand> args = rw.map(f.args(def));
    args[static_cast<std::size_t>(detail::trait_positions_of(f, def).in_place_of)] = now;  // the window's source
    const type t = rw.mapped_type(chain[i]);
    const text wn = text(f.name_of(chain[i])) << "_snapshot";
    const std::string_view names[] = {wn.view()};
    const value_id made =
        rw.builder().fn().result(rw.builder().emit(f.op(def).code(), args, {}, std::span<const type>(&t, 1), names, loc));
    rw.builder().set_storage(made, rw.mapped_storage(chain[i]));
    now = operand::of(made);
  }
  return now;
}

}  // namespace detail

/// Legalizes `p` where it is: a function that needs no copy, move or snapshot stays as it is
/// (the pipeline's own program; the common case, which a copy made a whole-function pass).
template <class = void>
constexpr void legalize_in_place(program& p, const options& opts, analysis_cache& cache) {
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    std::vector<op_id> recips;
    std::vector<char> snapshot;  // by op id: the assemble reads a snapshot of its source
    const kernel_analyses* k = nullptr;
    detail::region_plan regions;
    if (f.is_device() && f.stage == ir_stage::tile && f.buffer_ir_selected && *f.buffer_ir_selected) {
      k = &cache.get(p, i);
      const detail::storage_view storage{k->storage, addressed(opts.planner)};
      walk(f, [&](op_id o) {
        if (f.op(o).code() == opcode::tile_assemble && detail::assemble_needs_snapshot(f, *k, o, addressed(opts.planner))) {
          snapshot.resize(f.ops.size());
          snapshot[o.index] = 1;
        }
        // A result that must not share an input's storage (recip, row reductions) or a scratch's
        // (row-broadcast arithmetic may write its source in place, never its block) gets its own
        // allocation.
        const opcode c = f.op(o).code();
        if (!is_tile_op(c) || !has_disjoint_operands(c) || f.op(o).results.count != 1) return;
        if (!f.has_storage(f.result(o))) return;
        const stored_tile dst = f.stored(f.result(o));
        const bool exact_ok = has_trait(c, trait::may_alias_exactly);
        const auto inputs = disjoint_operands(f, o);
        for (const operand& source :
             {exact_ok ? operand{} : inputs[0], exact_ok ? operand{} : inputs[1], scratch_operand(f, o)}) {
          if (!source.is_value() || !f.has_storage(source.value())) continue;
          if (storage.overlaps(f.stored(source.value()), dst)) {
            recips.push_back(o);
            return;
          }
        }
      });
      regions = detail::plan_region_storage(f, *k);
    }
    if (recips.empty() && snapshot.empty() && regions.empty()) continue;
    rewriter rw(f);
    for (op_id o : recips) rw.set_storage(f.result(o), detail::emit_alloc_for(rw, f.result(o), f.loc_of(o)), 0);
    for (const auto& [v, at] : regions.retarget) rw.override_storage(v, at);
    const detail::storage_view storage{k->storage, addressed(opts.planner)};
    const auto overlap = [&](stored_tile a, stored_tile b) { return storage.overlaps(a, b); };
    detail::parallel_move_scratch move_scratch;  // one for the function: no allocation per loop or branch
    // Why `self`: a loop with entry copies is cloned with new initializers, and its regions are
    // cloned through this same callback.
    const auto custom = [&](op_id o, const auto& self) -> bool {
      const op_node& n = f.op(o);
      if (has_trait(n.code(), trait::allocates) && !regions.orphan.empty() && regions.orphan[f.result(o).index])
        return true;  // its only value now writes a branch result
      if (const auto moves = regions.at(o); !moves.empty()) {
        const std::span<const operand> moved = detail::emit_parallel_move(rw, moves, f.loc_of(o), overlap, move_scratch);
        // Why in place: an op's operands are few, and a heap list was an allocation per loop.
        detail::inline_vector<operand, 8> args;
        for (const operand& a : f.args(o)) args.push_back(rw.map(a));
        const std::size_t first = is_terminator(n.code()) ? 0 : loop_init_offset(f, o);
        for (std::size_t m = 0; m < moves.size(); ++m) args[first + moves[m].position] = moved[m];
        if (is_terminator(n.code())) rw.emit_like(o, args);
        else rw.clone_with(o, args, [&](op_id x) { return self(x, self); });
        return true;
      }
      if (o.index >= snapshot.size() || !snapshot[o.index]) return false;
      const operand source = detail::snapshot_source(rw, *k, o);
      detail::inline_vector<operand, 8> args;
      for (const operand& a : f.args(o)) args.push_back(rw.map(a));
      args[static_cast<std::size_t>(detail::operand_positions<"source">[static_cast<std::size_t>(f.op(o).code())])] = source;
      rw.emit_like(o, args);
      return true;
    };
    rw.clone_ops(f.body, [&](op_id o) { return custom(o, custom); });
    function legal = rw.finish();  // built from `f`, which it replaces only once built
    detail::hoist_nested_allocs(legal);
    p.functions[i] = static_cast<function&&>(legal);
    cache.invalidate(i);
  }
}
template <class = void>
constexpr result<program> legalize(const program& p, const options& opts, analysis_cache& cache) {
  result<program> r;
  r.value = p;
  legalize_in_place(r.value, opts, cache);
  return r;
}
template <class = void>
constexpr result<program> legalize(const program& p, const options& opts) {
  analysis_cache cache;
  return legalize(p, opts, cache);
}

/// The pass as pass sets register it (passes/table.hpp).
struct legalize_pass {
  static constexpr std::string_view name = "legalize";
  static constexpr bool buffer_ir_only = true;
  template <class Recipes>
  static constexpr result<program> run(const program& p, const options& opts, analysis_cache& cache) {
    return legalize(p, opts, cache);
  }
  template <class Recipes>
  static constexpr void run_in_place(program& p, const options& opts, analysis_cache& cache, std::vector<diagnostic>&) {
    legalize_in_place(p, opts, cache);
  }
};

}  // namespace v0
}  // namespace tile2buffer
