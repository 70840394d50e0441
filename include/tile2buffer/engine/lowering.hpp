// SPDX-License-Identifier: Apache-2.0
/// @file engine/lowering.hpp
/// The state one function's conversion runs with: the rewriter building the Buffer-stage
/// function, the kernel's shared analyses, the Buffer handle a recipe defines for each window of
/// the storage index (analysis/storage_index.hpp), the Tile value -> handle map (use-site windows
/// included), and the diagnostics. Mechanism only: recipes use this, and the rules of what to
/// emit (scalar conversion included) live in recipe/.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/ir/elementwise.hpp"
#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/storage_index.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/options.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The Buffer function's arena sizes, from its Tile function's. Why not the rewriter's default
/// (about the source's): Tile results vanish (Buffer ops write a destination operand) and Buffer
/// types carry no storage, so a planned Tile function's one type per stored value shrinks to a
/// few descriptors; reserving the source's counts held about twice the Buffer function, and a
/// runtime-valid chain outgrew it. Each op becomes one op (a tile.alloc its declaration, a compute
/// op its instruction) and the non-Tile values carry over; a window becomes a view value; a tile
/// with runtime valid extents costs its op a guard (compare, `if`, two regions) and a valid-shape
/// update. An estimate: a kernel it misses costs an arena's growth, not correctness.
constexpr function_builder::arena_sizes buffer_arena_sizes(const function& tile, const kernel_analyses& analyses) {
  std::size_t tiles = 0, dynamic = 0;
  for (const value_info& v : tile.values) {
    const type& t = tile.types[v.ty.index];
    if (!t.is_tile()) continue;
    ++tiles;
    if (!t.static_valid()) ++dynamic;
  }
  const std::size_t windows = analyses.windows.size();
  // Keywords carry over but for the planner's addresses, which Buffer IR states as operands.
  std::size_t kwargs = 0;
  for (const kwarg& k : tile.kwargs) kwargs += k.key == keyword::addr ? 0 : 1;
  const auto with_slack = [](std::size_t n) { return n + n / 8 + 16; };
  return {.values = with_slack(tile.values.size() - tiles + windows + dynamic),
          .ops = with_slack(tile.ops.size() + 3 * dynamic),
          .region_ops = with_slack(tile.region_ops.size() + 3 * dynamic),
          .regions = with_slack(tile.regions.size() + 2 * dynamic),
          .operands = with_slack(tile.operands.size() + tile.operands.size() / 4 + 10 * dynamic),
          .kwargs = kwargs,
          .names = with_slack(tile.names.size() / 2),
          .types = 16};
}

class lowering {
 public:
  using window = storage_window;

  constexpr lowering(const function& src, const options& opts, const kernel_analyses& analyses)
      : rw_(src, buffer_arena_sizes(src, analyses)), analyses_(&analyses), opts_(opts), index_(src, analyses),
        key_handles_(index_.size(), value_id{}) {
    rw_.target().stage = ir_stage::buffer;
    if (opts.rollout == rollout_kind::extended) note_row_relabels(src);
  }
  // Why not copyable: the storage index is not (its windows point into its own descriptor list).
  lowering(const lowering&) = delete;
  lowering& operator=(const lowering&) = delete;

  [[nodiscard]] constexpr const function& source() const noexcept { return rw_.source(); }
  [[nodiscard]] constexpr rewriter& rw() noexcept { return rw_; }
  [[nodiscard]] constexpr function_builder& builder() noexcept { return rw_.builder(); }
  [[nodiscard]] constexpr const options& opts() const noexcept { return opts_; }
  [[nodiscard]] constexpr const kernel_analyses& analyses() const noexcept { return *analyses_; }
  [[nodiscard]] constexpr const storage_facts& facts() const noexcept { return analyses_->storage; }
  /// The distinct windows of allocation `alloc` (an index into `facts().allocations()`).
  [[nodiscard]] constexpr std::span<const window> windows(std::uint32_t alloc) const { return index_.windows(alloc); }
  /// The Buffer handle defined for window `key` of allocation `alloc` (invalid until defined).
  [[nodiscard]] constexpr value_id key_handle(std::uint32_t alloc, std::uint32_t key) const {
    return key_handles_[index_.slot(alloc, key)];
  }
  /// The product-shaped view matmul `o` writes through, when its accumulator's valid rectangle is
  /// wider than the product; invalid otherwise (the matmul writes its result's handle).
  [[nodiscard]] constexpr value_id product_view(op_id o) const {
    const storage_index::key_ref k = index_.product_of(o);
    return k.alloc == no_id ? value_id{} : key_handle(k.alloc, k.key);
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
  /// Records the Buffer handle that stands for window `key` of allocation `alloc`, just emitted.
  /// A column-vector window that elementwise ops or moves use also gets its [1, R] row relabel
  /// here, beside the allocation (extended rollout §2.5), so every use in any region shares it.
  constexpr void define_handle(std::uint32_t alloc, std::uint32_t key, value_id handle) {
    const std::size_t slot = index_.slot(alloc, key);
    key_handles_[slot] = handle;
    if (row_handles_.empty() || row_handles_[slot] != wanted_) return;  // no relabel wanted (see note_row_relabels)
    const function& f = builder().fn();
    const type& t = f.type_of(handle);
    // A shared runtime-valid handle is relabelled at each use instead (its valid state changes).
    if (!is_column_vector(t) || !t.static_valid()) {
      row_handles_[slot] = value_id{};
      return;
    }
    const text name = text(f.name_of(handle)) << "_row";
    row_handles_[slot] = builder().create<buffer::reshape>({.source = handle}, row_relabel(t), name.view(), f.op_locs.back());
  }
  /// The [1, R] row relabel of Tile column vector `v`'s handle: the one declared beside its
  /// allocation, or, for a handle made at this use (a window, a bridge view), one made here.
  constexpr value_id row_handle(value_id v, location loc) {
    const value_id h = typed_handle(v, loc);
    const storage_index::key_ref k = index_.key_of(v);
    if (!row_handles_.empty() && window_of(v) == nullptr && k.alloc != no_id && h == key_handle(k.alloc, k.key)) {
      const value_id r = row_handles_[index_.slot(k.alloc, k.key)];
      if (r.valid() && r != wanted_) return r;
    }
    const text name = text(builder().fn().name_of(h)) << "_row";
    return builder().create<buffer::reshape>({.source = h}, row_relabel(builder().fn().type_of(h)), name.view(), loc);
  }
  [[nodiscard]] constexpr const std::vector<diagnostic>& errors() const noexcept { return errors_; }

  constexpr void fail(location loc, std::string_view source, text message) {
    errors_.push_back(diagnostic{loc, text(source), static_cast<text&&>(message), {}});
  }
  constexpr void fail(op_id o, std::string_view source, text message) {
    fail(rw_.source().loc_of(o), source, static_cast<text&&>(message));
  }

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
    /// A Mat window read only by moves to Left/Right (extended rollout, quantized-path.md §2.5):
    /// no handle of its own, each move extracts it from `base` at `offsets`.
    bool extract = false;
  };
  /// Records the Buffer handle defined at the use site for window `tile` (reference §5.7).
  constexpr void define_window(value_id tile, use_site_window w) {
    if (windows_.empty()) windows_.resize(rw_.source().values.size());
    windows_[tile.index] = w;
  }
  [[nodiscard]] constexpr const use_site_window* window_of(value_id tile) const {
    if (tile.index >= windows_.size()) return nullptr;
    if (const use_site_window& w = windows_[tile.index]; !(w.handle.valid() || w.deferred || w.extract)) return nullptr;
    return &windows_[tile.index];
  }

  /// The Buffer handle standing for Tile value `v`: its use-site window, or the handle defined
  /// where its allocation was.
  [[nodiscard]] constexpr value_id handle(value_id v) const {
    if (const use_site_window* w = window_of(v)) return w->handle;
    const storage_index::key_ref k = index_.key_of(v);
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
      return builder().create<buffer::subview>({.source = w->base, .offsets = built(w->offsets), .valid = built(valid_tuple(v))},
                                               want, rw_.source().name_of(v), loc);
    }
    const value_id h = handle(v);
    if (!h.valid() || builder().fn().type_of(h) == want) return h;
    return builder().create<buffer::subview>(
        {.source = h, .offsets = built(builder().pair(0, 0)), .valid = built(valid_tuple(v))}, want, rw_.source().name_of(v),
        loc);
  }

  /// Marks the windows whose row relabel `define_handle` declares: those of the operands and
  /// results of elementwise ops and moves on column vectors (the ops the extended rollout runs on
  /// `[1, R]` relabels), marked with the `wanted_` placeholder until their handle exists.
  constexpr void note_row_relabels(const function& src) {
    for (const op_node& n : src.ops) {
      const opcode c = n.code();
      if (!is_tile_op(c) || (!is_elementwise(c) && c != opcode::tile_move) || n.results.count != 1) continue;
      const value_id r{n.results.begin};
      if (!is_column_vector(src.type_of(r))) continue;
      const auto want = [&](value_id v) {
        if (!is_column_vector(src.type_of(v))) return;
        const storage_index::key_ref k = index_.key_of(v);
        if (k.alloc == no_id) return;
        if (row_handles_.empty()) row_handles_.assign(index_.size(), value_id{});
        row_handles_[index_.slot(k.alloc, k.key)] = wanted_;
      };
      want(r);
      for (std::uint32_t i = 0; i < n.args.count; ++i)
        if (const operand& x = src.operands[n.args.begin + i]; x.is_value() && src.type_of(x.value()).is_tile()) want(x.value());
    }
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

 private:
  rewriter rw_;
  const kernel_analyses* analyses_;
  options opts_;
  storage_index index_;
  std::vector<value_id> key_handles_;  // by the index's window slot
  std::vector<value_id> row_handles_;  // by window slot: a column vector's [1, R] relabel; empty when none is wanted
  /// Why a placeholder id: it marks a wanted relabel before its handle exists, and no value of the
  /// function being built can have it.
  static constexpr value_id wanted_{0xfffffffeU};
  std::vector<use_site_window> windows_;           // by Tile value id; empty until a window is defined
  std::vector<std::pair<op_id, op_id>> deferred_;  // (first reference, tile.alloc)
  bool declaring_ = false;
  std::vector<diagnostic> errors_;
};

}  // namespace v0
}  // namespace tile2buffer
