// SPDX-License-Identifier: Apache-2.0
/// @file engine/lowering.hpp
/// The state one function's conversion runs with: the rewriter building the Buffer-stage
/// function, the kernel's shared analyses, the storage index (allocation -> distinct descriptor
/// windows, each with the Buffer handle a recipe defines for it), the Tile value -> handle map
/// (use-site windows included), and the diagnostics. Recipes use only this; the rules of what to emit live in recipe/.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/options.hpp"

namespace tile2buffer {
inline namespace v0 {

class lowering {
 public:
  /// One distinct descriptor window of an allocation: its byte offset, Buffer descriptor and the
  /// first Tile value naming it (whose name and location the handle takes).
  struct window {
    std::int64_t offset = 0;
    const type* desc = nullptr;  ///< its Buffer descriptor (windows of one kernel mostly share one)
    value_id first;
    bool parent = false;  ///< sliced or assembled into: a use-site window is cut from it
    op_id product;        ///< a matmul's product-shaped view of a wider accumulator (reference §5.6 step 15)
  };

  constexpr lowering(const function& src, const options& opts, const kernel_analyses& analyses)
      : rw_(src), analyses_(&analyses), opts_(opts), value_key_(src.values.size(), key_ref{}),
        key_begin_(analyses.storage.allocations().size() + 1, 0) {
    rw_.target().stage = ir_stage::buffer;
    index_storage();
  }
  // Why not copyable: `window::desc` points into this object's own descriptor list.
  lowering(const lowering&) = delete;
  lowering& operator=(const lowering&) = delete;

  [[nodiscard]] constexpr const function& source() const noexcept { return rw_.source(); }
  [[nodiscard]] constexpr rewriter& rw() noexcept { return rw_; }
  [[nodiscard]] constexpr function_builder& builder() noexcept { return rw_.builder(); }
  [[nodiscard]] constexpr const options& opts() const noexcept { return opts_; }
  [[nodiscard]] constexpr const kernel_analyses& analyses() const noexcept { return *analyses_; }
  [[nodiscard]] constexpr const storage_facts& facts() const noexcept { return analyses_->storage; }
  /// The distinct windows of allocation `alloc` (an index into `facts().allocations()`).
  [[nodiscard]] constexpr std::span<const window> windows(std::uint32_t alloc) const {
    return std::span<const window>(keys_).subspan(key_begin_[alloc], key_begin_[alloc + 1] - key_begin_[alloc]);
  }
  /// The Buffer handle defined for window `key` of allocation `alloc` (invalid until defined).
  [[nodiscard]] constexpr value_id key_handle(std::uint32_t alloc, std::uint32_t key) const { return key_handles_[key_begin_[alloc] + key]; }
  /// The product-shaped view matmul `o` writes through, when its accumulator's valid rectangle is
  /// wider than the product; invalid otherwise (the matmul writes its result's handle).
  [[nodiscard]] constexpr value_id product_view(op_id o) const {
    for (const auto& [op, k] : products_)
      if (op == o) return key_handle(k.alloc, k.key);
    return value_id{};
  }
  /// Declarations placed at a first reference (reference: addressless PTOAS accumulators
  /// referenced entirely within one region are declared there, so their lifetime stays local
  /// instead of spanning loop backedges): `alloc`'s definitions are emitted right before op
  /// `first_reference` is lowered, by the recipe of `alloc` run again while `declaring()` holds.
  constexpr void defer_declaration(op_id first_reference, op_id alloc) { deferred_.emplace_back(first_reference, alloc); }
  [[nodiscard]] constexpr bool declaring() const noexcept { return declaring_; }
  template <class Declare>
  constexpr void declare_deferred(op_id o, Declare&& declare) {
    for (const auto& [first, alloc] : deferred_) {
      if (first != o) continue;
      declaring_ = true;
      declare(alloc);
      declaring_ = false;
    }
  }
  /// Records the Buffer handle that stands for window `key` of allocation `alloc`.
  constexpr void define_handle(std::uint32_t alloc, std::uint32_t key, value_id handle) { key_handles_[key_begin_[alloc] + key] = handle; }
  [[nodiscard]] constexpr const std::vector<diagnostic>& errors() const noexcept { return errors_; }

  constexpr void fail(location loc, std::string_view source, text message) {
    errors_.push_back(diagnostic{loc, text(source), static_cast<text&&>(message), {}});
  }
  constexpr void fail(op_id o, std::string_view source, text message) { fail(rw_.source().op(o).loc, source, static_cast<text&&>(message)); }

  /// A use-site window's handle and where it was cut: the storage handle it is a subview of and
  /// its cumulative (target-side) offsets in it, bound once at the slice; nested slices add to
  /// them and an assemble recognises a source that already is its window by them.
  struct use_site_window {
    value_id handle;
    value_id base;
    operand offsets;
    /// A window with runtime valid extents: its subview is built at each consumer, inside the
    /// consumer's guard, so the empty path never constructs an empty native subview.
    bool deferred = false;
  };
  /// Records the Buffer handle defined at the use site for window `tile` (reference §5.7).
  constexpr void define_window(value_id tile, use_site_window w) {
    if (windows_.empty()) windows_.resize(rw_.source().values.size());
    windows_[tile.index] = w;
  }
  [[nodiscard]] constexpr const use_site_window* window_of(value_id tile) const {
    if (tile.index >= windows_.size() || !(windows_[tile.index].handle.valid() || windows_[tile.index].deferred)) return nullptr;
    return &windows_[tile.index];
  }

  /// The Buffer handle standing for Tile value `v`: its use-site window, or the handle defined
  /// where its allocation was.
  [[nodiscard]] constexpr value_id handle(value_id v) const {
    if (const use_site_window* w = window_of(v)) return w->handle;
    const key_ref k = value_key_[v.index];
    if (k.alloc == no_id) return value_id{};
    return key_handle(k.alloc, k.key);
  }
  /// The handle of Tile value `v` typed by `v`'s own descriptor. A tile whose handle is shared with
  /// other valid descriptors (a dynamic handle for a static tile) gets a zero-offset bridge
  /// subview at this use: it keeps the storage and adds no copy or metadata update (reference:
  /// operands and destination then have matching per-dimension descriptors).
  constexpr value_id typed_handle(value_id v, location loc) {
    const type want = buffer_descriptor(rw_.source().type_of(v));
    if (const use_site_window* w = window_of(v); w != nullptr && w->deferred) {
      return builder().create<buffer::subview>({.source = w->base, .offsets = built(w->offsets), .valid = built(valid_tuple(v))}, want,
                                               rw_.source().name_of(v), loc);
    }
    const value_id h = handle(v);
    if (!h.valid() || builder().fn().type_of(h) == want) return h;
    return builder().create<buffer::subview>({.source = h, .offsets = built(builder().pair(0, 0)), .valid = built(valid_tuple(v))}, want,
                                             rw_.source().name_of(v), loc);
  }

  /// `Valid(tile)`: the tile's own valid extents as a tuple, runtime extents remapped.
  constexpr operand valid_tuple(value_id tile) {
    const type& t = rw_.source().type_of(tile);
    operand e[2];
    for (int i = 0; i < 2; ++i) {
      const extent x = t.valid[i];
      e[i] = x.is_value() ? rw_.lookup(x.value()) : operand::integer(x.number);
    }
    return builder().tuple({e[0], e[1]});
  }

  /// Converts an element scalar operand to `target` explicitly (reference §5.6 step 12): literals
  /// are converted exactly, values through `cast` (INDEX goes through INT64 first).
  constexpr operand element_scalar(const operand& src, dtype target, location loc, std::string_view recipe) {
    if (src.kind == operand_kind::int_lit) return is_float(target) ? operand::decimal(src.num, 0) : src;
    if (src.kind == operand_kind::float_lit) {
      if (is_float(target)) return src;
      if (src.exp10 >= 0 && src.exp10 <= 18) {
        std::int64_t n = src.num;
        for (int i = 0; i < src.exp10; ++i) n *= 10;
        return operand::integer(n);
      }
      fail(loc, recipe, text("element scalar conversion requires an integral literal for ") << name(target));
      return operand::integer(0);
    }
    if (src.kind != operand_kind::value) {
      fail(loc, recipe, text("element scalar conversion requires a numeric scalar operand"));
      return operand::integer(0);
    }
    operand v = rw_.lookup(src.value());
    if (v.kind != operand_kind::value) return element_scalar(v, target, loc, recipe);
    dtype d = rw_.source().type_of(src.value()).dt;
    if (d == target) return v;
    if (d == dtype::index) {
      v = cast(v, dtype::int64, loc);
      d = dtype::int64;
      if (d == target) return v;
    }
    return cast(v, target, loc);
  }
  constexpr operand cast(const operand& v, dtype to, location loc) {
    return operand::of(builder().create<scalar::cast>({.value = built(v), .to = to}, scalar_type(to), {}, loc));
  }

 private:
  struct key_ref {
    std::uint32_t alloc = no_id;
    std::uint32_t key = 0;
  };

  /// One window (key) per distinct (offset, Buffer descriptor) among an allocation's tiles, in
  /// the order of their first tile, then the product views of its matmuls (see
  /// `product_view_candidate`), so an allocation's first window is always a tile's. Stored flat:
  /// allocation a's windows are keys_[key_begin_[a], key_begin_[a + 1]). Why flat: two heap
  /// lists per allocation were a fifth of the lower pass, allocating and freeing them.
  constexpr void index_storage() {
    const function& f = rw_.source();
    // Runtime-valid unification (reference §5.3 step 1): tiles naming the window of a runtime-
    // valid tile (same allocation, offset, dtype and shape) share its one dynamic handle.
    struct dynamic_window {
      value_id mem;
      std::int64_t offset;
      dtype dt;
      std::array<std::int64_t, 2> shape;
    };
    std::vector<dynamic_window> dynamic;
    const auto indexed = [&](std::uint32_t i) {
      const type& t = f.type_of(value_id{i});
      return t.is_tile() && t.has_storage() && !analyses_->windows.is_window(value_id{i}) && facts().index_of(t.mem) != no_id;
    };
    for (std::uint32_t i = 0; i < f.values.size(); ++i)
      if (const type& t = f.type_of(value_id{i}); indexed(i) && !descriptor_static_valid(t))
        dynamic.push_back(dynamic_window{t.mem, t.mem_offset, t.dt, t.shape});
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
    const auto tile_desc = [&](const type& t) {
      type desc = buffer_descriptor(t);
      if (std::binary_search(dynamic.begin(), dynamic.end(), dynamic_window{t.mem, t.mem_offset, t.dt, t.shape}, before))
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
      const std::uint32_t a = facts().index_of(f.type_of(value_id{i}).mem);
      value_key_[i] = key_ref{a, 0};
      found.push_back(candidate{a, value_id{i}, op_id{}});
    }
    for (std::uint32_t i = 0; i < f.ops.size(); ++i)
      if (const auto p = product_view_candidate(op_id{i})) found.push_back(candidate{p->alloc, p->result, op_id{i}});
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
    for (std::size_t a = 0; a < allocs; ++a) {
      const auto first = static_cast<std::uint32_t>(keys_.size());
      key_begin_[a] = first;
      for (std::uint32_t n = start[a]; n < start[a + 1]; ++n) {
        const candidate& c = found[order[n]];
        const std::int64_t offset = f.type_of(c.v).mem_offset;
        const std::uint32_t desc =
            interner.intern(descs_, c.product.valid() ? product_view_candidate(c.product)->desc : tile_desc(f.type_of(c.v))).index;
        std::uint32_t k = first;
        while (k < keys_.size() && !(keys_[k].offset == offset && key_desc[k] == desc)) ++k;
        if (k == keys_.size()) {
          keys_.push_back(window{offset, nullptr, c.v, false, c.product});
          key_desc.push_back(desc);
        }
        const key_ref ref{static_cast<std::uint32_t>(a), k - first};
        if (c.product.valid()) {
          products_.emplace_back(c.product, ref);
        } else {
          keys_[k].parent = keys_[k].parent || analyses_->windows.is_window_source(c.v);
          value_key_[c.v.index] = ref;
        }
      }
    }
    key_begin_[allocs] = static_cast<std::uint32_t>(keys_.size());
    for (std::size_t k = 0; k < keys_.size(); ++k) keys_[k].desc = &descs_[key_desc[k]];  // descs_ is complete
    key_handles_.assign(keys_.size(), value_id{});
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
  constexpr std::optional<product_view_of> product_view_candidate(op_id o) const {
    const function& f = rw_.source();
    const opcode c = f.ops[o.index].code();
    if (c != opcode::tile_matmul && c != opcode::tile_matmul_acc) return std::nullopt;
    const auto args = f.args(o);
    const std::size_t first = c == opcode::tile_matmul_acc ? 1 : 0;
    if (args.size() < first + 2 || !args[first].is_value() || !args[first + 1].is_value() || f.op(o).results.count != 1)
      return std::nullopt;
    const value_id res = f.result(o);
    const type& t = f.type_of(res);
    const std::uint32_t a = value_key_[res.index].alloc;
    if (a == no_id) return std::nullopt;
    type desc = buffer_descriptor(t);
    desc.valid = {f.type_of(args[first].value()).valid[0], f.type_of(args[first + 1].value()).valid[1]};
    if (desc.valid == t.valid || !desc.static_valid()) return std::nullopt;
    return product_view_of{a, res, desc};
  }

  rewriter rw_;
  const kernel_analyses* analyses_;
  options opts_;
  std::vector<key_ref> value_key_;
  std::vector<std::uint32_t> key_begin_;  // allocation -> its first window in keys_
  std::vector<type> descs_;               // the windows' distinct descriptors (`window::desc` points here)
  std::vector<window> keys_;
  std::vector<value_id> key_handles_;     // parallel to keys_
  std::vector<use_site_window> windows_;  // by Tile value id; empty until a window is defined
  std::vector<std::pair<op_id, key_ref>> products_;  // matmul -> its product view
  std::vector<std::pair<op_id, op_id>> deferred_;     // (first reference, tile.alloc)
  bool declaring_ = false;
  std::vector<diagnostic> errors_;
};

}  // namespace v0
}  // namespace tile2buffer
