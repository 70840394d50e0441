// SPDX-License-Identifier: Apache-2.0
/// @file passes/verify_tile_storage.hpp
/// verify_tile_storage (TileStorageLegalized/Allocated): the storage closure of every selected
/// kernel (checks/tile_storage.hpp, which `lower` asks again, even with verification off).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/checks/tile_storage.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/options.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The pass: checks every selected device function (or every device Tile function when
/// `selected_only` is false, as `lower` does for explicit pipelines).
/// The pass's diagnostics alone (the pipeline uses this to check without copying the program).
template <class = void>
constexpr std::vector<diagnostic> tile_storage_errors(const program& p, const options& opts, analysis_cache& cache,
                                                      bool selected_only = true) {
  std::vector<diagnostic> out;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    if (!f.is_device() || f.stage != ir_stage::tile) continue;
    if (selected_only && !(f.buffer_ir_selected && *f.buffer_ir_selected)) continue;
    auto errors = check_tile_storage(f, cache.get(p, i), addressed(opts.planner));
    if (errors.empty()) cache.mark_storage_checked(i);
    name_function(errors, f.name_of());
    for (auto& d : errors) out.push_back(static_cast<diagnostic&&>(d));
  }
  return out;
}
template <class = void>
constexpr std::vector<diagnostic> tile_storage_errors(const program& p, const options& opts, bool selected_only = true) {
  analysis_cache cache;
  return tile_storage_errors(p, opts, cache, selected_only);
}
template <class = void>
constexpr result<program> verify_tile_storage(const program& p, const options& opts, analysis_cache& cache,
                                              bool selected_only = true) {
  result<program> r;
  r.errors = tile_storage_errors(p, opts, cache, selected_only);
  if (r.ok()) r.value = p;
  return r;
}
template <class = void>
constexpr result<program> verify_tile_storage(const program& p, const options& opts, bool selected_only = true) {
  analysis_cache cache;
  return verify_tile_storage(p, opts, cache, selected_only);
}

/// The pass as pass sets register it (passes/table.hpp).
struct verify_tile_storage_pass {
  static constexpr std::string_view name = "verify_tile_storage";
  static constexpr bool buffer_ir_only = true;
  static constexpr std::vector<diagnostic> check(const program& p, const options& opts, analysis_cache& cache) {
    return tile_storage_errors(p, opts, cache);
  }
};

}  // namespace v0
}  // namespace tile2buffer
