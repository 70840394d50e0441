// SPDX-License-Identifier: Apache-2.0
/// @file passes/plan.hpp
/// The plan pass: places every device Tile function's allocations with the chosen planner
/// (addresses become `addr =` on `tile.alloc`), and fails when a memory space overflows.
#pragma once

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/plan/planners.hpp"

namespace tile2buffer {
inline namespace v0 {

constexpr result<program> plan(const program& p, const options& opts) {
  result<program> r;
  r.value.file = p.file;
  for (const auto& f : p.functions) {
    if (!f.is_device() || f.stage != ir_stage::tile || !addressed(opts.planner)) {
      r.value.functions.push_back(f);
      continue;
    }
    const storage_facts facts(f);
    const auto& allocs = facts.allocations();
    const auto addr = place(opts.planner, allocs, live_intervals(f, facts));
    bool changed = false;
    for (std::size_t i = 0; i < allocs.size(); ++i) {
      if (!addr[i] || allocs[i].address) continue;
      changed = true;
      if (*addr[i] + allocs[i].capacity > space_capacity(allocs[i].space))
        r.fail(f.op(allocs[i].def).loc, "plan",
               text("planner ") << name(opts.planner) << " cannot place " << allocs[i].capacity << " bytes in "
                                << name(allocs[i].space) << ": the space holds " << space_capacity(allocs[i].space) << " bytes");
    }
    if (!changed) {
      r.value.functions.push_back(f);
      continue;
    }
    rewriter rw(f);
    rw.clone_ops(f.body, [&](op_id o) {
      if (f.op(o).code() != opcode::tile_alloc) return false;
      const std::uint32_t i = facts.index_of(f.result(o));
      if (!addr[i] || allocs[i].address) return false;
      const kwarg k[] = {kwarg{keyword::addr, operand::integer(*addr[i])}};
      rw.emit_as(opcode::tile_alloc, o, rw.map(f.args(o)), {}, k);
      return true;
    });
    r.value.functions.push_back(rw.finish());
  }
  if (!r.ok()) r.value = program{};
  return r;
}

}  // namespace v0
}  // namespace tile2buffer
