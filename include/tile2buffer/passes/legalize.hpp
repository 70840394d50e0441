// SPDX-License-Identifier: Apache-2.0
/// @file passes/legalize.hpp
/// Storage legalization for selected kernels. Today: a `tile.recip` whose result overlaps its
/// source's storage gets a distinct destination allocation (the native op needs disjoint storage).
/// Overlap means the same bytes of one allocation, or, for addressed planners, two allocations
/// whose placed (`addr =`) byte ranges intersect.
/// Region entry copies and parallel-move yields arrive with the control-flow recipes.
#pragma once

#include <cstdint>
#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/passes/init_storage.hpp"
#include "tile2buffer/passes/verify_tile_storage.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Two Tile values in different allocations that both carry an address share bytes. Why only
/// then: an allocation still without an address is placed later around the addressed ones, and
/// addressless planners drop every address (their allocations are always fresh storage).
constexpr bool placed_ranges_overlap(const storage_facts& facts, const type& a, const type& b) {
  const allocation* pa = facts.find(a.mem);
  const allocation* pb = facts.find(b.mem);
  if (pa == nullptr || pb == nullptr || pa == pb || pa->space != pb->space || !pa->address || !pb->address) return false;
  const std::int64_t sa = *pa->address + a.mem_offset;
  const std::int64_t sb = *pb->address + b.mem_offset;
  return sa < sb + b.bytes() && sb < sa + a.bytes();
}

}  // namespace detail

constexpr result<program> legalize(const program& p, const options& opts, analysis_cache& cache) {
  result<program> r;
  r.value.file = p.file;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    std::vector<op_id> recips;
    if (f.is_device() && f.stage == ir_stage::tile && f.buffer_ir_selected && *f.buffer_ir_selected) {
      const storage_facts& facts = cache.get(p, i).storage;
      walk(f, [&](op_id o) {
        if (f.op(o).code() != opcode::tile_recip) return;
        const operand source = typed<tile::recip>(f, o).source();
        if (!source.is_value()) return;
        const type& src = f.type_of(source.value());
        const type& dst = f.type_of(f.result(o));
        if (!src.has_storage() || !dst.has_storage()) return;
        if (detail::storage_overlaps(src, dst) ||
            (addressed(opts.planner) && detail::placed_ranges_overlap(facts, src, dst)))
          recips.push_back(o);
      });
    }
    if (recips.empty()) {
      r.value.functions.push_back(f);
      continue;
    }
    rewriter rw(f);
    for (op_id o : recips) rw.set_storage(f.result(o), detail::emit_alloc_for(rw, f.result(o), f.op(o).loc), 0);
    rw.clone_ops(f.body);
    r.value.functions.push_back(rw.finish());
    cache.invalidate(i);
  }
  return r;
}
constexpr result<program> legalize(const program& p, const options& opts) {
  analysis_cache cache;
  return legalize(p, opts, cache);
}

}  // namespace v0
}  // namespace tile2buffer
