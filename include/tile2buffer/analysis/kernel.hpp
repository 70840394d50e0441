// SPDX-License-Identifier: Apache-2.0
/// @file analysis/kernel.hpp
/// The shared-analyses slot: facts about one kernel computed once and read by select, the
/// checking passes, the planner and lower (recipes see them through `match_context` and
/// `lowering`): storage facts, scalar divisibility (the alignment proof), use-site windows, the
/// windows sharing runtime-valid storage and valid-metadata versions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tile2buffer/analysis/divisibility.hpp"
#include "tile2buffer/analysis/metadata.hpp"
#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/analysis/storage_windows.hpp"
#include "tile2buffer/analysis/windows.hpp"
#include "tile2buffer/ir/function.hpp"

namespace tile2buffer {
inline namespace v0 {

struct kernel_analyses {
  storage_facts storage;
  scalar_divisibility divisibility;
  window_facts windows;
  dynamic_valid_state dynamic;     ///< tiles with runtime or empty valid extents, and their storage
  storage_windows shared_storage;  ///< tiles sharing a runtime-valid tile's storage
  metadata_versions versions;
  /// verify_tile_storage found this exact function clean, so lower need not check it again.
  bool storage_checked = false;

  constexpr explicit kernel_analyses(const function& f)
      : storage(f), divisibility(f), windows(f, divisibility), dynamic(f), shared_storage(f, windows, !dynamic.storage.empty()),
        versions(f) {}
  /// The analyses of `planned`: `unplanned`'s function given storage in place (init_storage
  /// appends its allocations, so every op and value keeps its id). What reads no storage (the
  /// scalar factors, the windows, the metadata versions) carries over: the appended allocations
  /// are no scalar, window or setter, and every query bounds its id. The storage facts are
  /// computed anew.
  constexpr kernel_analyses(kernel_analyses&& unplanned, const function& planned)
      : storage(planned), divisibility(static_cast<scalar_divisibility&&>(unplanned.divisibility)),
        windows(static_cast<window_facts&&>(unplanned.windows)), dynamic(planned),
        shared_storage(planned, windows, !dynamic.storage.empty()),
        versions(static_cast<metadata_versions&&>(unplanned.versions)) {}
};

/// Kernel analyses of one program, indexed like `program::functions`, computed on first use.
/// A pass that rewrites a function drops its entry (`invalidate`) or hands over facts it
/// updated itself (`replace`: init_storage appends allocations and the planner adds addresses,
/// neither moving any op or value). After a pass the cache describes that pass's output: one
/// cache serves one run, program after program, never a program and its input again.
class analysis_cache {
 public:
  [[nodiscard]] constexpr const kernel_analyses& get(const program& p, std::size_t fn) {
    if (slots_.size() < p.functions.size()) slots_.resize(p.functions.size());
    if (!slots_[fn]) slots_[fn].emplace(p.functions[fn]);
    return *slots_[fn];
  }
  /// For a pass that updates the program and the facts together (plan: addresses only).
  [[nodiscard]] constexpr kernel_analyses& get_mutable(const program& p, std::size_t fn) {
    static_cast<void>(get(p, fn));
    return *slots_[fn];
  }
  constexpr void invalidate(std::size_t fn) {
    if (fn < slots_.size()) slots_[fn].reset();
  }
  constexpr void replace(std::size_t fn, kernel_analyses a) {
    if (slots_.size() <= fn) slots_.resize(fn + 1);
    slots_[fn].emplace(static_cast<kernel_analyses&&>(a));
  }
  constexpr void mark_storage_checked(std::size_t fn) {
    if (fn < slots_.size() && slots_[fn]) slots_[fn]->storage_checked = true;
  }

 private:
  std::vector<std::optional<kernel_analyses>> slots_;
};

}  // namespace v0
}  // namespace tile2buffer
