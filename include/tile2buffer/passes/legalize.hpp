// SPDX-License-Identifier: Apache-2.0
/// @file passes/legalize.hpp
/// Storage legalization for selected kernels. Today: a `tile.recip` whose result overlaps its
/// source's storage gets a distinct destination allocation (the native op needs disjoint storage).
/// Region entry copies and parallel-move yields arrive with the control-flow recipes.
#pragma once

#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/passes/init_storage.hpp"
#include "tile2buffer/passes/verify_tile_storage.hpp"

namespace tile2buffer {
inline namespace v0 {

constexpr result<program> legalize(const program& p, const options&) {
  result<program> r;
  r.value.file = p.file;
  for (const auto& f : p.functions) {
    std::vector<op_id> recips;
    if (f.is_device() && f.stage == ir_stage::tile && f.buffer_ir_selected && *f.buffer_ir_selected)
      walk(f, [&](op_id o) {
        if (f.op(o).code() != opcode::tile_recip || !f.args(o)[0].is_value()) return;
        const type& src = f.type_of(f.args(o)[0].value());
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
  }
  return r;
}

}  // namespace v0
}  // namespace tile2buffer
