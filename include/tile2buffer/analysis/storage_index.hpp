// SPDX-License-Identifier: Apache-2.0
/// @file analysis/storage_index.hpp
/// The storage index of one Tile kernel: for each allocation, its distinct descriptor windows
/// (byte offset and Buffer descriptor), which window each indexed Tile value names, and the
/// product-shaped views of matmuls over wider accumulators. Lowering defines one Buffer handle
/// per window; the index itself is a fact of the Tile function and its analyses.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/ir/type_hash.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {

/// One distinct descriptor window of an allocation: its byte offset, Buffer descriptor and the
/// first Tile value naming it (whose name and location the handle takes).
struct storage_window {
  std::int64_t offset = 0;
  const type* desc = nullptr;  ///< its Buffer descriptor (windows of one kernel mostly share one)
  value_id first;
  bool parent = false;  ///< sliced or assembled into: a use-site window is cut from it
  op_id product;        ///< a matmul's product-shaped view of a wider accumulator (reference §5.6 step 15)
};

class storage_index {
 public:
  /// Window `key` of allocation `alloc`; `alloc == no_id` for a value that names no window.
  struct key_ref {
    std::uint32_t alloc = no_id;
    std::uint32_t key = 0;
  };

  constexpr storage_index(const function& f, const kernel_analyses& analyses)
      : value_key_(f.values.size(), key_ref{}), key_begin_(analyses.storage.allocations().size() + 1, 0) {
    build(f, analyses);
  }
  // Why not copyable: `storage_window::desc` points into this object's own descriptor list.
  storage_index(const storage_index&) = delete;
  storage_index& operator=(const storage_index&) = delete;

  /// The distinct windows of allocation `alloc` (an index into the storage facts' allocations).
  [[nodiscard]] constexpr std::span<const storage_window> windows(std::uint32_t alloc) const {
    return std::span<const storage_window>(keys_).subspan(key_begin_[alloc], key_begin_[alloc + 1] - key_begin_[alloc]);
  }
  /// All windows of all allocations, flat: `slot` numbers them.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return keys_.size(); }
  [[nodiscard]] constexpr std::size_t slot(std::uint32_t alloc, std::uint32_t key) const { return key_begin_[alloc] + key; }
  [[nodiscard]] constexpr key_ref key_of(value_id tile) const { return value_key_[tile.index]; }
  /// The window matmul `o` writes through when its accumulator's valid rectangle is wider than
  /// the product; `alloc == no_id` otherwise.
  [[nodiscard]] constexpr key_ref product_of(op_id o) const {
    for (const auto& [op, k] : products_)
      if (op == o) return k;
    return key_ref{};
  }

 private:
  /// One window (key) per distinct (offset, Buffer descriptor) among an allocation's tiles, in
  /// the order of their first tile, then the product views of its matmuls (see
  /// `product_view_candidate`), so an allocation's first window is always a tile's. Stored flat:
  /// allocation a's windows are keys_[key_begin_[a], key_begin_[a + 1]). Why flat: two heap
  /// lists per allocation were a fifth of the lower pass, allocating and freeing them.
  constexpr void build(const function& f, const kernel_analyses& analyses) {
    const storage_facts& facts = analyses.storage;
    // Runtime-valid unification (reference §5.3 step 1): tiles naming the window of a runtime-
    // valid tile (same allocation, offset, dtype and shape) share its one dynamic handle.
    struct dynamic_window {
      value_id mem;
      std::int64_t offset;
      dtype dt;
      std::array<std::int64_t, 2> shape;
    };
    std::vector<dynamic_window> dynamic;
    // A matrix tile with runtime valid extents is an Acc tail (extended rollout, recipe/valid.hpp
    // lower_acc_tail): a view cut at each store, never a window of its own, so it neither names
    // a window nor makes its accumulator's handle dynamic.
    const auto indexed = [&](std::uint32_t i) {
      const type& t = f.type_of(value_id{i});
      return t.is_tile() && f.storage[i].valid() && !analyses.windows.is_window(value_id{i}) &&
             facts.index_of(f.storage[i].mem) != no_id && !(is_matrix_space(t.space) && !descriptor_static_valid(t));
    };
    for (std::uint32_t i = 0; i < f.values.size(); ++i)
      if (const type& t = f.type_of(value_id{i}); indexed(i) && !descriptor_static_valid(t))
        dynamic.push_back(dynamic_window{f.storage[i].mem, f.storage[i].offset, t.dt, t.shape});
    // Why sorted and searched: every indexed tile asks, and a scan of the list per tile was
    // quadratic in a kernel with many runtime-valid tiles.
    const auto before = [](const dynamic_window& a, const dynamic_window& b) {
      if (a.mem.index != b.mem.index) return a.mem.index < b.mem.index;
      if (a.offset != b.offset) return a.offset < b.offset;
      if (a.dt != b.dt) return a.dt < b.dt;
      return a.shape < b.shape;
    };
    std::sort(dynamic.begin(), dynamic.end(), before);
    // The window each indexed tile names: its Buffer descriptor, dynamic when it shares a
    // runtime-valid tile's storage.
    const auto tile_desc = [&](value_id v) {
      const type& t = f.type_of(v);
      const value_storage& at = f.storage_of(v);
      type desc = buffer_descriptor(t);
      if (std::binary_search(dynamic.begin(), dynamic.end(), dynamic_window{at.mem, at.offset, t.dt, t.shape}, before))
        desc.valid = {extent::runtime(), extent::runtime()};
      return desc;
    };
    // A candidate window: a tile (`product` invalid) or a matmul's product view. Its descriptor
    // is computed where it is numbered, so the list stays small.
    struct candidate {
      std::uint32_t alloc;
      value_id v;
      op_id product;
    };
    std::vector<candidate> found;
    for (std::uint32_t i = 0; i < f.values.size(); ++i) {
      if (!indexed(i)) continue;  // verify_tile_storage reports storage that names no allocation
      const std::uint32_t a = facts.index_of(f.storage[i].mem);
      value_key_[i] = key_ref{a, 0};
      found.push_back(candidate{a, value_id{i}, op_id{}});
    }
    for (std::uint32_t i = 0; i < f.ops.size(); ++i)
      if (const auto p = product_view_candidate(f, op_id{i})) found.push_back(candidate{p->alloc, p->result, op_id{i}});
    // Group by allocation, stably (a counting sort), then number each group's distinct windows.
    const std::size_t allocs = key_begin_.size() - 1;
    std::vector<std::uint32_t> start(allocs + 1, 0);
    for (const candidate& c : found) ++start[c.alloc + 1];
    for (std::size_t a = 0; a < allocs; ++a) start[a + 1] += start[a];
    std::vector<std::uint32_t> order(found.size(), 0);  // not `(n)`: clang 14 cannot constant-evaluate that
    {
      std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
      for (std::uint32_t j = 0; j < found.size(); ++j) order[fill[found[j].alloc]++] = j;
    }
    keys_.reserve(found.size());
    // Why interned: a descriptor per window was 96 of the 120 bytes per allocation at the
    // pipeline's peak, and equal ids compare in one instruction.
    type_interner interner;
    std::vector<std::uint32_t> key_desc;  // parallel to keys_: the id in descs_
    key_desc.reserve(found.size());
    // Without runtime-valid storage a tile's descriptor depends on its type alone, and a planned
    // kernel's tiles share a handful of interned types: each is converted and interned once.
    std::vector<std::uint32_t> desc_of_type(dynamic.empty() ? f.types.size() : 0, no_id);
    const auto tile_desc_id = [&](value_id v) {
      if (desc_of_type.empty()) return interner.intern(descs_, tile_desc(v)).index;
      std::uint32_t& known = desc_of_type[f.values[v.index].ty.index];
      if (known == no_id) known = interner.intern(descs_, tile_desc(v)).index;
      return known;
    };
    for (std::size_t a = 0; a < allocs; ++a) {
      const auto first = static_cast<std::uint32_t>(keys_.size());
      key_begin_[a] = first;
      for (std::uint32_t n = start[a]; n < start[a + 1]; ++n) {
        const candidate& c = found[order[n]];
        const std::int64_t offset = f.storage_of(c.v).offset;
        const std::uint32_t desc = c.product.valid() ? interner.intern(descs_, product_view_candidate(f, c.product)->desc).index
                                                     : tile_desc_id(c.v);
        std::uint32_t k = first;
        while (k < keys_.size() && !(keys_[k].offset == offset && key_desc[k] == desc)) ++k;
        if (k == keys_.size()) {
          keys_.push_back(storage_window{offset, nullptr, c.v, false, c.product});
          key_desc.push_back(desc);
        }
        const key_ref ref{static_cast<std::uint32_t>(a), k - first};
        if (c.product.valid()) {
          products_.emplace_back(c.product, ref);
        } else {
          keys_[k].parent = keys_[k].parent || analyses.windows.is_window_source(c.v);
          value_key_[c.v.index] = ref;
        }
      }
    }
    key_begin_[allocs] = static_cast<std::uint32_t>(keys_.size());
    for (std::size_t k = 0; k < keys_.size(); ++k) keys_[k].desc = &descs_[key_desc[k]];  // descs_ is complete
  }

  /// A matmul whose accumulator is valid beyond the product [lhs valid rows, rhs valid cols]
  /// writes through a view of the accumulator's window with the product as its valid rectangle:
  /// PTOAS requires a native matmul destination to match the product. Such a view of matmul
  /// `o`, when its result is indexed.
  struct product_view_of {
    std::uint32_t alloc;
    value_id result;
    type desc;
  };
  constexpr std::optional<product_view_of> product_view_candidate(const function& f, op_id o) const {
    const opcode c = f.ops[o.index].code();
    if (c != opcode::tile_matmul && c != opcode::tile_matmul_acc) return std::nullopt;
    const operand lhs = named_operand<"lhs">(f, o), rhs = named_operand<"rhs">(f, o);
    if (!lhs.is_value() || !rhs.is_value() || f.op(o).results.count != 1) return std::nullopt;
    const value_id res = f.result(o);
    const type& t = f.type_of(res);
    const std::uint32_t a = value_key_[res.index].alloc;
    if (a == no_id) return std::nullopt;
    type desc = buffer_descriptor(t);
    desc.valid = {f.type_of(lhs.value()).valid[0], f.type_of(rhs.value()).valid[1]};
    if (desc.valid == t.valid || !desc.static_valid()) return std::nullopt;
    return product_view_of{a, res, desc};
  }

  std::vector<key_ref> value_key_;
  std::vector<std::uint32_t> key_begin_;  // allocation -> its first window in keys_
  std::vector<type> descs_;               // the windows' distinct descriptors (`storage_window::desc` points here)
  std::vector<storage_window> keys_;
  std::vector<std::pair<op_id, key_ref>> products_;  // matmul -> its product view
};

}  // namespace v0
}  // namespace tile2buffer
