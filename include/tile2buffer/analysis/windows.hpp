// SPDX-License-Identifier: Apache-2.0
/// @file analysis/windows.hpp
/// Use-site windows of a Tile-stage function (reference §5.2, §5.7). A window is a `tile.slice`
/// result, or a relabel (reshape, reinterpret_view, transpose_view, set_validshape) of a window:
/// it has no storage of its own, lives in the bytes of the storage tile it was cut from and keeps
/// that tile's row pitch. For every window the facts name the value it was cut from (its parent),
/// its storage tile, whether a relabel made it, whether every offset on the way is a literal (then
/// its byte offset from the storage tile is known), and how many low bits of that byte offset are
/// provably zero (the alignment proof, from scalar SSA divisibility).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tile2buffer/analysis/divisibility.hpp"
#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {

namespace detail {
/// Structurally equal operands of one function: the same value, the same literal, or tuples of
/// equal elements (how an assemble recognises the offsets its source window was cut at).
constexpr bool same_operand(const function& f, const operand& a, const operand& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == operand_kind::tuple) {
    const auto x = f.elements(a);
    const auto y = f.elements(b);
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!same_operand(f, x[i], y[i])) return false;
    return true;
  }
  return a.ref == b.ref && a.num == b.num && a.exp10 == b.exp10;
}
}  // namespace detail

class window_facts {
 public:
  struct window {
    value_id parent;   ///< the Tile value it was cut from or relabels
    value_id storage;  ///< the non-window Tile value whose bytes it lies in
    bool relabel = false;
    /// Every offset from the storage tile to this window is a literal; `offset` is then the
    /// byte offset of its first element from the storage tile's first element.
    bool static_offset = true;
    std::int64_t offset = 0;
    int aligned_bits = scalar_divisibility::top;  ///< known zero low bits of that byte offset
  };

  constexpr window_facts(const function& f, const scalar_divisibility& div) : of_(f.values.size(), no_id) {
    walk(f, [&](op_id o) {
      const opcode c = f.op(o).code();
      if (c == opcode::tile_assemble) {
        if (f.op(o).results.count == 1) sources_.push_back(f.result(o));
        return;
      }
      if (c != opcode::tile_slice && !is_relabel_op(c)) return;
      const operand source = in_place_operand(f, o);
      if (!source.is_value() || f.op(o).results.count != 1) return;
      const value_id src = source.value();
      const window* parent = find(src);
      if (c != opcode::tile_slice && parent == nullptr) return;  // a relabel of a storage tile
      window w;
      w.parent = src;
      w.storage = parent != nullptr ? parent->storage : src;
      w.relabel = c != opcode::tile_slice;
      if (parent != nullptr) {
        w.static_offset = parent->static_offset;
        w.offset = parent->offset;
        w.aligned_bits = parent->aligned_bits;
      }
      if (c == opcode::tile_slice) {
        sources_.push_back(w.storage);
        const type& root = f.type_of(w.storage);
        const std::int64_t pitch = root.row_bytes();
        const std::int64_t es = element_bytes(root.dt);
        const operand offsets = typed<tile::slice>(f, o).offsets();
        const auto off = offsets.kind == operand_kind::tuple ? f.elements(offsets) : std::span<const operand>{};
        if (off.size() != 2) {
          w.static_offset = false;
          w.aligned_bits = 0;
        } else {
          for (int i = 0; i < 2; ++i) {
            const std::int64_t scale = i == 0 ? pitch : es;
            w.aligned_bits = std::min(
                w.aligned_bits, std::min(scalar_divisibility::top, div.of(off[i]) + scalar_divisibility::of_constant(scale)));
            if (off[i].kind == operand_kind::int_lit) w.offset += off[i].num * scale;
            else w.static_offset = false;
          }
        }
      }
      of_[f.result(o).index] = static_cast<std::uint32_t>(windows_.size());
      windows_.push_back(w);
    });
    std::sort(sources_.begin(), sources_.end(), [](value_id x, value_id y) { return x.index < y.index; });
    sources_.erase(std::unique(sources_.begin(), sources_.end()), sources_.end());
  }

  /// The window facts of `v`, or null when `v` is not a window.
  [[nodiscard]] constexpr const window* find(value_id v) const {
    if (!v.valid() || v.index >= of_.size() || of_[v.index] == no_id) return nullptr;
    return &windows_[of_[v.index]];
  }
  [[nodiscard]] constexpr bool is_window(value_id v) const { return find(v) != nullptr; }
  /// How many values are windows.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return windows_.size(); }
  /// The storage tile of `v`: itself unless it is a window.
  [[nodiscard]] constexpr value_id storage_of(value_id v) const {
    const window* w = find(v);
    return w != nullptr ? w->storage : v;
  }
  /// The row pitch of `v`'s bytes: a slice keeps its parent's, a relabel (whose source is dense)
  /// and a storage tile have their own rows'. Not simply the storage tile's: a relabel of a
  /// window starts a new, denser pitch.
  [[nodiscard]] constexpr std::int64_t pitch_of(const function& f, value_id v) const {
    for (const window* w = find(v); w != nullptr && !w->relabel; w = find(v)) v = w->parent;
    return f.type_of(v).row_bytes();
  }
  /// A storage tile that is sliced, or an assemble result (reference §5.2 "window source").
  [[nodiscard]] constexpr bool is_window_source(value_id v) const {
    return std::binary_search(sources_.begin(), sources_.end(), v, [](value_id x, value_id y) { return x.index < y.index; });
  }
  /// Every window source, by value id.
  [[nodiscard]] constexpr std::span<const value_id> sources() const noexcept { return sources_; }

 private:
  std::vector<std::uint32_t> of_;  // value id -> index into windows_
  std::vector<window> windows_;
  std::vector<value_id> sources_;
};

}  // namespace v0
}  // namespace tile2buffer
