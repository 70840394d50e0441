// SPDX-License-Identifier: Apache-2.0
/// @file passes/legalize.hpp
/// Storage legalization for selected kernels. Today: a `tile.recip` whose result overlaps its
/// source's storage gets a distinct destination allocation (the native op needs disjoint storage).
/// Region entry copies and parallel-move yields arrive with the control-flow recipes.
#pragma once

#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/options.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/passes/init_storage.hpp"
#include "tile2buffer/passes/verify_tile_storage.hpp"

namespace tile2buffer {
inline namespace v0 {

constexpr result<program> legalize(const program& p, const options&, analysis_cache& cache) {
  result<program> r;
  r.value.file = p.file;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    std::vector<op_id> recips;
    if (f.is_device() && f.stage == ir_stage::tile && f.buffer_ir_selected && *f.buffer_ir_selected)
      walk(f, [&](op_id o) {
        if (f.op(o).code() != opcode::tile_recip) return;
        const operand source = typed<tile::recip>(f, o).source();
        if (!source.is_value()) return;
        const type& src = f.type_of(source.value());
        const type& dst = f.type_of(f.result(o));
        if (src.has_storage() && dst.has_storage() && detail::storage_overlaps(src, dst)) recips.push_back(o);
      });
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
