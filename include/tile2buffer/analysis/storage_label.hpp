// SPDX-License-Identifier: Apache-2.0
/// @file analysis/storage_label.hpp
/// How a diagnostic names a Tile allocation or an op: by what the user wrote. A scratch tile the
/// pipeline made (MaterializeNativeScratch's `tile.create`, its storage `mem_*_tmp`) is no name
/// the user knows, so it is named by the op that needs it: "scratch of tile.row_max at line 7"
/// (and where the scratch is made, the op it serves is named instead of its tile.create).
#pragma once

#include <cstdint>
#include <optional>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The op that takes a tile stored in `mem` (a tile.alloc result) as its scratch operand, if any.
constexpr std::optional<op_id> scratch_user_of_storage(const function& f, value_id mem) {
  for (std::uint32_t i = 0; i < f.ops.size(); ++i) {
    const op_id o{i};
    if (info(f.op(o).code()).scratch.empty()) continue;
    const operand tmp = scratch_operand(f, o);
    if (tmp.is_value() && f.storage_of(tmp.value()).mem == mem) return o;
  }
  return std::nullopt;
}

/// The op that takes op `o`'s result as its scratch operand, if `o` makes one (a tile.create).
constexpr std::optional<op_id> scratch_user_of_op(const function& f, op_id o) {
  if (f.op(o).code() != opcode::tile_create || f.ops[o.index].results.count != 1) return std::nullopt;
  const value_id made = f.result(o);
  for (std::uint32_t i = 0; i < f.ops.size(); ++i) {
    const op_id u{i};
    if (info(f.op(u).code()).scratch.empty()) continue;
    const operand tmp = scratch_operand(f, u);
    if (tmp.is_value() && tmp.value() == made) return u;
  }
  return std::nullopt;
}

/// "scratch of tile.row_max at line 7" for the storage of a scratch tile, else the allocation's
/// own name (`%N` when it has none).
constexpr text storage_label(const function& f, value_id mem) {
  if (const std::optional<op_id> user = scratch_user_of_storage(f, mem))
    return text("scratch of ") << mnemonic(f.op(*user).code()) << " at line " << static_cast<std::int64_t>(f.loc_of(*user).line);
  const std::string_view name = f.name_of(mem);
  if (name.empty()) return text("%") << static_cast<std::int64_t>(mem.index);
  return text(name);
}

}  // namespace v0
}  // namespace tile2buffer
