// SPDX-License-Identifier: Apache-2.0
/// @file analysis/storage.hpp
/// Storage facts of a Tile-stage function: its `tile.alloc` definitions and, for every Tile
/// value, the allocation and byte offset it lives in. Read-only; passes and recipes query it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {

struct allocation {
  op_id def;
  value_id mem;
  memory_space space = memory_space::vec;
  std::int64_t capacity = 0;            ///< bytes; 0 when not a static positive literal
  std::optional<std::int64_t> address;  ///< set by addressed planners
};

class storage_facts {
 public:
  constexpr explicit storage_facts(const function& f) : alloc_of_(f.values.size(), no_id) {
    for (std::uint32_t i = 0; i < f.ops.size(); ++i) {
      const op_id o{i};
      if (f.op(o).code() != opcode::tile_alloc) continue;
      allocation a{o, f.result(o), memory_space::vec, 0, std::nullopt};
      const typed<tile::alloc> op(f, o);
      if (const operand s = op.space(); s.kind == operand_kind::space) a.space = static_cast<memory_space>(s.num);
      if (const operand c = op.capacity(); c.kind == operand_kind::int_lit && c.num > 0) a.capacity = c.num;
      if (auto addr = op.kwarg_of(keyword::addr); addr && addr->kind == operand_kind::int_lit) a.address = addr->num;
      alloc_of_[a.mem.index] = static_cast<std::uint32_t>(allocs_.size());
      allocs_.push_back(a);
    }
    for (std::uint32_t i = 0; i < f.storage.size() && !any_storage_; ++i)
      any_storage_ = f.storage[i].valid() && f.type_of(value_id{i}).is_tile();
  }

  [[nodiscard]] constexpr const std::vector<allocation>& allocations() const noexcept { return allocs_; }
  /// True when the function has any allocation or storage clause (it has been planned).
  [[nodiscard]] constexpr bool planned() const noexcept { return !allocs_.empty() || any_storage_; }
  /// The allocation a `tile.alloc` result defines, if `mem` is one.
  [[nodiscard]] constexpr const allocation* find(value_id mem) const {
    if (!mem.valid() || mem.index >= alloc_of_.size() || alloc_of_[mem.index] == no_id) return nullptr;
    return &allocs_[alloc_of_[mem.index]];
  }
  [[nodiscard]] constexpr std::uint32_t index_of(value_id mem) const {
    return mem.valid() && mem.index < alloc_of_.size() ? alloc_of_[mem.index] : no_id;
  }
  /// Records the address a planner gave allocation `i` (its `addr =` in the planned function).
  constexpr void set_address(std::uint32_t i, std::optional<std::int64_t> address) { allocs_[i].address = address; }

 private:
  std::vector<allocation> allocs_;
  std::vector<std::uint32_t> alloc_of_;  // value id -> allocation index
  bool any_storage_ = false;
};

namespace detail {
/// The operand whose storage an in-place result shares (assemble's target, matmul_acc's
/// accumulator, the tile of set_validshape, the source of a relabelling view), if any. A
/// window's result is a window of its source, which the window analysis places instead.
template <class = void>
constexpr std::optional<operand> storage_source(const function& f, op_id o) {
  if (has_trait(f.op(o).code(), trait::window)) return std::nullopt;
  const operand x = in_place_operand(f, o);
  return x.kind == operand_kind::none ? std::nullopt : std::optional<operand>(x);
}
}  // namespace detail

}  // namespace v0
}  // namespace tile2buffer
