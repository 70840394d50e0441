// SPDX-License-Identifier: Apache-2.0
/// @file analysis/storage_windows.hpp
/// Which tiles share the storage of a runtime-valid tile while naming another window. A
/// runtime-valid tile owns one dynamic handle, so every tile in its allocation must name the same
/// window (offset, dtype, shape); the recipes ask this of each runtime-valid result.
#pragma once

#include <cstdint>
#include <vector>

#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/windows.hpp"
#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/ir/function.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Which tiles carry dynamic valid state (runtime or empty extents, so a dynamic Buffer
/// descriptor): `any` when some tile does, and the storage values (indices, sorted) holding such
/// a tile, since every tile in them shares that state whatever its own type says (a static
/// setter's result, for one). One scan of the values; most kernels have none.
struct dynamic_valid_state {
  bool any = false;
  std::vector<std::uint32_t> storage;

  constexpr explicit dynamic_valid_state(const function& f) {
    for (std::uint32_t v = 0; v < f.values.size(); ++v) {
      const type& t = f.type_of(value_id{v});
      if (!t.is_tile() || descriptor_static_valid(t)) continue;
      any = true;
      if (f.storage[v].valid()) storage.push_back(f.storage[v].mem.index);
    }
    std::sort(storage.begin(), storage.end());
  }
  /// Whether tile `t` carries dynamic valid state: its own extents, or its storage's.
  [[nodiscard]] constexpr bool holds(stored_tile t) const {
    return t.ty.is_tile() && (!descriptor_static_valid(t.ty) ||
                              (t.at.valid() && std::binary_search(storage.begin(), storage.end(), t.at.mem.index)));
  }
};

/// Per storage value: the first tile in it and the first tile naming a window other than that
/// one's (value order, windows of other tiles left out). Why: scanning every value for every
/// runtime-valid result was quadratic (a 16k-op kernel of runtime-valid tiles took 20 s).
/// Empty (and never asked) when no tile in storage is runtime-valid.
class storage_windows {
 public:
  /// `any`: some tile in storage has runtime or empty valid extents (`dynamic_valid_state`).
  constexpr storage_windows(const function& f, const window_facts& windows, bool any) {
    if (!any) return;
    first_.assign(f.values.size(), no_id);
    other_.assign(f.values.size(), no_id);
    for (std::uint32_t i = 0; i < f.values.size(); ++i) {
      const value_storage& at = f.storage[i];
      if (!at.valid() || !f.type_of(value_id{i}).is_tile() || at.mem.index >= first_.size() || windows.is_window(value_id{i}))
        continue;
      const std::uint32_t m = at.mem.index;
      if (first_[m] == no_id) first_[m] = i;
      else if (other_[m] == no_id && !same_window(f.stored(value_id{first_[m]}), f.stored(value_id{i}))) other_[m] = i;
    }
  }

  /// The first tile (value order, windows left out) in the storage of `t` that names another
  /// window than `t` does; invalid when there is none.
  [[nodiscard]] constexpr value_id differing(const function& f, const window_facts& windows, stored_tile t) const {
    const std::uint32_t m = t.at.mem.index;
    if (m >= first_.size()) return scan(f, windows, t);  // storage naming no value (invalid IR): not indexed
    if (first_[m] == no_id) return {};
    if (!same_window(f.stored(value_id{first_[m]}), t)) return value_id{first_[m]};
    return value_id{other_[m]};
  }

 private:
  static constexpr bool same_window(stored_tile a, stored_tile b) {
    return a.at.offset == b.at.offset && a.ty.dt == b.ty.dt && a.ty.shape == b.ty.shape;
  }
  static constexpr value_id scan(const function& f, const window_facts& windows, stored_tile t) {
    for (std::uint32_t i = 0; i < f.values.size(); ++i) {
      const stored_tile o = f.stored(value_id{i});
      if (o.ty.is_tile() && o.at.mem == t.at.mem && !windows.is_window(value_id{i}) && !same_window(o, t)) return value_id{i};
    }
    return {};
  }

  std::vector<std::uint32_t> first_;  ///< by storage value id
  std::vector<std::uint32_t> other_;  ///< by storage value id
};

}  // namespace v0
}  // namespace tile2buffer
