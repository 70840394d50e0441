// SPDX-License-Identifier: Apache-2.0
/// @file analysis/metadata.hpp
/// Metadata versions of valid extents (the spec's forward SSA analysis): `t2 =
/// tile.set_validshape(t, r, c)` updates the valid metadata of the storage `t` lives in, so `t` —
/// and every relabel or window made from `t` or from an older version — is stale afterwards: a
/// use of it would read the new extents. The current version may have any number of consumers.
/// For each op, the analysis names the first stale Tile operand it reads, if any.
#pragma once

#include <cstdint>
#include <vector>

#include "tile2buffer/analysis/windows.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {

class metadata_versions {
 public:
  explicit constexpr metadata_versions(const function& f) {
    bool any_setter = false;
    for (const auto& n : f.ops) any_setter = any_setter || n.code() == opcode::tile_set_validshape;
    if (!any_setter) return;                                     // why: the common kernel pays one scan, no per-value tables
    std::vector<std::uint32_t> version(f.values.size(), no_id);  // value -> the version it reads
    std::vector<char> replaced(f.values.size(), 0);              // version -> a setter replaced it
    stale_.assign(f.ops.size(), value_id{});
    const auto version_of = [&](value_id v) { return version[v.index] == no_id ? v.index : version[v.index]; };
    walk(f, [&](op_id o) {
      const op_node& n = f.op(o);
      const auto args = f.args(o);
      for (const operand& x : args)
        if (x.is_value() && f.type_of(x.value()).is_tile() && replaced[version_of(x.value())] && !stale_[o.index].valid())
          stale_[o.index] = x.value();
      const operand source = in_place_operand(f, o);
      if (n.results.count != 1 || !source.is_value()) return;
      const value_id res = f.result(o);
      const opcode c = n.code();
      if (c == opcode::tile_set_validshape) {
        replaced[version_of(source.value())] = 1;
      } else if (has_trait(c, trait::window) || is_relabel_op(c)) {
        version[res.index] = version_of(source.value());  // an alias reads its source's version
      }
    });
  }

  /// The first stale Tile operand op `o` reads, or an invalid id.
  [[nodiscard]] constexpr value_id stale_use(op_id o) const { return o.index < stale_.size() ? stale_[o.index] : value_id{}; }

 private:
  std::vector<value_id> stale_;  // by op id; empty when the kernel has no setter
};

/// The reason a use of `stale` is rejected.
constexpr text stale_version_reason(const function& f, value_id stale) {
  return text("'") << f.name_of(stale) << "' is used after tile.set_validshape replaced its metadata version";
}

}  // namespace v0
}  // namespace tile2buffer
