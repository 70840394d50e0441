// SPDX-License-Identifier: Apache-2.0
/// @file recipe/window.hpp
/// Planned storage views and use-site windows (reference §5.6 steps 5, 6, 8, 9; §5.7):
/// - `tile.reshape` / `tile.reinterpret_view` of a storage tile emit nothing: the typed alias was
///   declared with the allocation; of a window, a `buffer.reshape` of it at the same site;
/// - `tile.slice` is a `buffer.subview` of its storage tile's handle at the slice site: runtime
///   offsets stay operands, the row pitch is the storage tile's, and a nested slice adds its
///   offsets to its parent's (one INDEX sum per runtime axis, bound at the slice);
/// - `tile.assemble` writes in place: target copied first when the result has other storage,
///   then the source copied into a window of the result (nothing when it already is that window).
/// Every window and assemble base must be provably 32-byte aligned (analysis/windows.hpp).
#pragma once

#include <string_view>

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/recipe/common.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Bits of alignment the contract asks of every Vec base address (32 bytes).
inline constexpr int vec_base_bits = 5;

/// Why an addressless (PTOAS) allocation cannot serve `parent` as a window parent, if it cannot:
/// PTOAS cannot subview a byte-root relabel, so a window parent must cover its whole allocation,
/// and one symbolic allocation keeps one window-parent descriptor.
constexpr text addressless_window_parent_problem(const function& f, const kernel_analyses& k, value_id parent) {
  const type& t = f.type_of(parent);
  const value_id mem = f.storage_of(parent).mem;
  const allocation* a = k.storage.find(mem);
  if (a == nullptr) return {};
  if (f.storage_of(parent).offset != 0 || t.bytes() != a->capacity)
    return text("a tile that is sliced or assembled into cannot share an addressless storage root: '")
           << f.name_of(parent) << "' covers only part of its allocation";
  for (value_id other : k.windows.sources()) {
    if (f.storage_of(other).mem == mem && buffer_descriptor(f.type_of(other)) != buffer_descriptor(t))
      return text("one addressless allocation cannot hold several differently shaped or typed window parents ('")
             << f.name_of(parent) << "' and '" << f.name_of(other) << "')";
  }
  return {};
}

/// Valid extents given explicitly to a slice: constants positive and within the window, each
/// literal matching a static result extent, a runtime extent only for a runtime result extent.
constexpr text slice_valid_problem(const typed<tile::slice>& op) {
  const operand v = op.valid();
  const type& r = op.result_type();
  if (v.kind == operand_kind::tuple) {
    const auto e = op.elements(v);
    for (std::size_t i = 0; i < e.size() && i < 2; ++i) {
      if (e[i].kind == operand_kind::int_lit) {
        if (e[i].num <= 0) return text("zero-valid slice windows are rejected");
        if (e[i].num > r.shape[i]) return text("a slice's valid extent must fit its window");
        if (!r.valid[i].is_static() || r.valid[i].number != e[i].num)
          return text("a literal slice valid extent needs the same static result extent");
      } else if (r.valid[i].is_static()) {
        return text("a runtime slice valid extent needs a dynamic result extent");
      }
    }
  }
  if (r.valid[0].number == 0 && r.valid[0].is_static()) return text("zero-valid slice windows are rejected");
  if (r.valid[1].number == 0 && r.valid[1].is_static()) return text("zero-valid slice windows are rejected");
  return {};
}

/// An element offset of a Mat window: a nonnegative literal or a signed integer/INDEX scalar
/// (as tile.extract's, recipe/cube.hpp).
constexpr text mat_window_offset_problem(const function& f, const operand& x) {
  if (x.kind == operand_kind::int_lit) return x.num >= 0 ? text{} : text("Mat window offsets must be nonnegative");
  if (x.is_value() && f.type_of(x.value()).is_scalar() && is_signed_integer(f.type_of(x.value()).dt)) return {};
  return text("Mat window offsets must be nonnegative integer literals or signed integer/INDEX scalars");
}

/// Why `op` is not a Mat window lower_mat_window lowers (below); empty when it is.
constexpr text mat_window_problem(const typed<tile::slice>& op, const match_context& ctx) {
  const function& f = op.fn();
  const type* src = op.tile_type(op.source());
  const type& dst = op.result_type();
  if (src == nullptr || src->space != memory_space::mat || dst.space != memory_space::mat)
    return text("tile.slice: not a Mat window");
  if (auto why = matrix_tiles_problem({src, &dst}); !why.empty()) return why;
  if (src->dt != dst.dt || src->blayout != dst.blayout || src->slayout != dst.slayout || src->fractal != dst.fractal)
    return text("a Mat window keeps its source's element type and box layout");
  if (auto why = slice_valid_problem(op); !why.empty()) return why;
  if (ctx.kernel().windows.is_window(op.source().value()))
    return text("a window of a Mat window stays Tile (slice the Mat chunk itself)");
  const auto off = op.elements(op.offsets());
  if (off.size() != 2) return text("a Mat window needs two offsets");
  // Box extents: row-major boxes are 16 rows of 32 bytes (NZ), column-major ones their transpose (ZN).
  const std::int64_t across = static_cast<std::int64_t>(src->fractal) / element_bytes(src->dt) / 16;
  const bool nz = src->slayout == box_layout::row_major;
  const std::int64_t box[2] = {nz ? 16 : across, nz ? across : 16};
  for (std::size_t i = 0; i < 2; ++i) {
    if (auto why = mat_window_offset_problem(f, off[i]); !why.empty()) return why;
    if (dst.shape[i] % box[i] != 0 || (off[i].kind == operand_kind::int_lit && off[i].num % box[i] != 0) ||
        (off[i].is_value() && (std::int64_t{1} << std::min(ctx.kernel().divisibility.of(off[i]), 62)) % box[i] != 0))
      return text("a Mat window must cover whole fractal boxes of ")
             << box[0] << "x" << box[1] << " " << tile2buffer::name(src->dt)
             << " elements: its offsets and shape must be multiples of the box (runtime offsets proven so)";
  }
  const value_id res = op.result();
  text bad;
  walk(f, [&](op_id x) {
    if (!bad.empty()) return;
    for (const operand& a : f.args(x)) {
      if (!a.is_value() || a.value() != res) continue;
      const bool to_l0 = f.op(x).code() == opcode::tile_move && (f.type_of(f.result(x, 0)).space == memory_space::left ||
                                                                 f.type_of(f.result(x, 0)).space == memory_space::right);
      if (!to_l0)
        bad = text("a Mat window is read only by moves to Left/Right (each one a textract); ")
              << mnemonic(f.op(x).code()) << " reads '" << f.name_of(res) << "'";
    }
  });
  if (!bad.empty()) return bad;
  return {};
}

}  // namespace detail

struct lower_slice {
  using source = tile::slice;
  static constexpr std::string_view name = "lower-slice";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;

  static constexpr match_result match(typed<tile::slice> op, const match_context& ctx) {
    const type& dst = op.result_type();
    const type* src = op.tile_type(op.source());
    if (src == nullptr) return match_result::no(text("tile.slice needs a Tile source"));
    // Why here: a Mat window's own reason, not "Mat is not Vec", is the one to report.
    if (ctx.opts.rollout == rollout_kind::extended && src->space == memory_space::mat)
      if (auto why = detail::mat_window_problem(op, ctx); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (auto why = dense_vec_problem(*src, ctx.int8_vec()); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (auto why = dense_vec_problem(dst, ctx.int8_vec()); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (auto why = detail::slice_valid_problem(op); !why.empty()) return match_result::no(static_cast<text&&>(why));
    const kernel_analyses& k = ctx.kernel();
    const window_facts::window* w = k.windows.find(op.result());
    if (w == nullptr) return match_result::no(text("tile.slice result is not a window of its source"));
    const auto* parent = k.windows.find(w->parent);
    if (parent != nullptr && parent->relabel) return match_result::no(text("slicing a relabelled window stays Tile"));
    if (parent != nullptr && (!dst.static_valid() || !src->static_valid()))
      return match_result::no(text("nested windows with runtime valid extents stay Tile"));
    if (w->aligned_bits < detail::vec_base_bits)
      return match_result::no(text("slice base address is not provably 32-byte aligned (row pitch ")
                              << op.fn().type_of(w->storage).row_bytes() << " bytes; offsets must give a multiple of 32 bytes)");
    if (!ctx.addressed())
      if (auto why = detail::addressless_window_parent_problem(op.fn(), k, w->storage); !why.empty())
        return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }

  static constexpr void rewrite(typed<tile::slice> op, lowering& l) {
    const value_id res = op.result();
    const value_id src = op.source().value();
    auto& b = l.builder();
    value_id base = l.handle(src);
    operand offsets = l.rw().map(op.offsets());
    if (const auto* parent = l.window_of(src)) {
      // Why cumulative: every window is one subview of its storage tile, so its row pitch is
      // that tile's whatever the nesting depth.
      base = parent->base;
      // Why copies: the first sum may emit ops and grow the operand pool the spans point into.
      const auto outer_span = b.fn().elements(parent->offsets);
      const auto inner_span = b.fn().elements(offsets);
      const operand outer[] = {outer_span[0], outer_span[1]};
      const operand inner[] = {inner_span[0], inner_span[1]};
      const operand sum[] = {index_sum(l, outer[0], inner[0], op, "_row"), index_sum(l, outer[1], inner[1], op, "_col")};
      offsets = b.tuple(sum);
    }
    if (!op.result_type().static_valid()) return l.define_window(res, {value_id{}, base, offsets, true});
    const value_id h = b.create<buffer::subview>({.source = base, .offsets = built(offsets), .valid = built(l.valid_tuple(res))},
                                                 buffer_descriptor(op.result_type()), op.fn().name_of(res), op.loc());
    l.define_window(res, {h, base, offsets, false});
  }

 private:
  /// `a + b` as an INDEX operand: folded when both are literals, else one `scalar.add` (operands
  /// of another integer type cast to INDEX first). By value: emitting the cast of `a` may grow
  /// the operand pool a reference to `b` would point into.
  static constexpr operand index_sum(lowering& l, operand a, operand b, const typed<tile::slice>& op, std::string_view axis) {
    if (a.kind == operand_kind::int_lit && b.kind == operand_kind::int_lit) return operand::integer(a.num + b.num);
    if (a.kind == operand_kind::int_lit && a.num == 0) return b;
    if (b.kind == operand_kind::int_lit && b.num == 0) return a;
    auto& fb = l.builder();
    const auto as_index = [&](const operand& x) {
      if (!x.is_value() || fb.fn().type_of(x.value()).dt == dtype::index) return x;
      return detail::cast_scalar(l, x, dtype::index, op.loc());
    };
    const text nm = text(op.fn().name_of(op.result())) << axis;
    return operand::of(fb.create<scalar::add>({.lhs = built(as_index(a)), .rhs = built(as_index(b))}, scalar_type(dtype::index),
                                              nm.view(), op.loc()));
  }
};

/// Extended rollout (quantized-path.md §2.5): a `tile.slice` of a Mat tile (a K step of an L1
/// chunk) read only by moves to Left/Right. It has no handle: each move becomes the
/// `buffer.extract` of `tile.extract` from the sliced tile at the slice's offsets, so a chunk
/// larger than L0A/L0B feeds L0 step by step. Offsets are whole fractal boxes of the source's
/// layout (16 rows by 32 bytes for NZ, the transpose for ZN), literal or proven by the scalar
/// divisibility of runtime offsets; nested slices and other readers stay Tile.
struct lower_mat_window {
  using source = tile::slice;
  static constexpr std::string_view name = "lower-mat-window";
  static constexpr int benefit = 0;
  static constexpr bool default_rollout = false;
  static constexpr match_result match(typed<tile::slice> op, const match_context& ctx) {
    if (auto why = detail::mat_window_problem(op, ctx); !why.empty()) return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::slice> op, lowering& l) {
    lowering::use_site_window w{value_id{}, l.handle(op.source().value()), l.rw().map(op.offsets())};
    w.extract = true;
    l.define_window(op.result(), w);
  }
};

/// tile.reshape and tile.reinterpret_view: storage-preserving relabels.
template <opcode C>
struct lower_relabel {
  using source = op_t<C>;
  static constexpr std::string_view name = detail::recipe_name<C>::value;
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static_assert(C == opcode::tile_reshape || C == opcode::tile_reinterpret_view);

  static constexpr match_result match(typed<source> op, const match_context& ctx) {
    const type& dst = op.result_type();
    const type* src = op.tile_type(op.source());
    if (src == nullptr) return match_result::no(text(mnemonic(C)) << " needs a Tile source");
    // Extended rollout §2.5: a column vector [R, 1] and the row [1, R] are byte-identical.
    const auto vec_problem = [&](const type& t) {
      if (ctx.opts.rollout == rollout_kind::extended && is_column_vector(t) && t.bytes() % 32 == 0) return text{};
      return dense_vec_problem(t, ctx.int8_vec());
    };
    if (auto why = vec_problem(*src); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (auto why = vec_problem(dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    const kernel_analyses& k = ctx.kernel();
    const window_facts::window* w = k.windows.find(op.result());
    for (const type* t : {&dst, src})
      if (auto why = detail::static_valid_problem(*t, "relabels"); !why.empty())
        return match_result::no(w != nullptr ? text("relabelling a window with runtime valid extents (or empty ones) stays Tile")
                                             : static_cast<text&&>(why));
    if (C == opcode::tile_reshape && dst.dt != src->dt) return match_result::no(text("tile.reshape must keep the element type"));
    if (dst.bytes() != src->bytes())
      return match_result::no(text(mnemonic(C))
                              << " must preserve the physical bytes (" << src->bytes() << " -> " << dst.bytes() << ")");
    if (w == nullptr) {
      if (!op.result_storage().valid() || op.result_storage() != op.storage_of(op.source()))
        return match_result::no(text(mnemonic(C)) << " must preserve its validated storage window (its source's)");
      return match_result::yes();
    }
    // A relabel of a window needs the dense row pitch of whole parent rows, "including single-row
    // sources" (spec): a single row of a wider parent keeps the parent's pitch, which PTO's
    // reshape cannot take.
    if (!w->static_offset) return match_result::no(text("relabelling a window at runtime offsets stays Tile"));
    if (const std::int64_t pitch = k.windows.pitch_of(op.fn(), op.source().value()); src->row_bytes() != pitch)
      return match_result::no(text("relabelling a strided window (rows of ")
                              << src->row_bytes() << " bytes in a row pitch of " << pitch << " bytes) stays Tile");
    return match_result::yes();
  }

  static constexpr void rewrite(typed<source> op, lowering& l) {
    const value_id res = op.result();
    if (!l.analyses().windows.is_window(res)) return;  // the typed alias was declared with the allocation
    const value_id h = l.builder().create<buffer::reshape>({.source = l.handle(op.source().value())},
                                                           buffer_descriptor(op.result_type()), op.fn().name_of(res), op.loc());
    l.define_window(res, {h, value_id{}, operand{}});  // never sliced (that stays Tile), never an assemble's own window
  }
};

struct lower_assemble {
  using source = tile::assemble;
  static constexpr std::string_view name = "lower-assemble";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;

  static constexpr match_result match(typed<tile::assemble> op, const match_context& ctx) {
    const type& dst = op.result_type();
    const type* tgt = op.tile_type(op.target());
    const type* src = op.tile_type(op.source());
    if (tgt == nullptr || src == nullptr) return match_result::no(text("tile.assemble needs Tile target and source"));
    for (const type* t : {&dst, tgt, src})
      if (t->space != memory_space::vec)
        return match_result::no(text("tile.assemble into ")
                                << tile2buffer::name(dst.space) << " from " << tile2buffer::name(src->space)
                                << " requires a Buffer transfer recipe (only Vec -> Vec is supported)");
    if (op.kwarg_set(keyword::pre_quant) || op.kwarg_set(keyword::pre_relu))
      return match_result::no(text("pre_quant/pre_relu assembles require a Buffer transfer recipe"));
    for (const type* t : {&dst, tgt, src}) {
      if (auto why = dense_vec_problem(*t, ctx.int8_vec()); !why.empty()) return match_result::no(static_cast<text&&>(why));
      if (auto why = detail::static_valid_problem(*t, "assembles"); !why.empty())
        return match_result::no(static_cast<text&&>(why));
    }
    const kernel_analyses& k = ctx.kernel();
    if (k.windows.is_window(op.target().value()) || k.windows.is_window(op.result()))
      return match_result::no(text("tile.assemble into a window target stays Tile"));
    if (const std::int64_t pitch = k.windows.pitch_of(op.fn(), op.source().value()); pitch != tgt->row_bytes())
      return match_result::no(text("tile.assemble needs matching source and target row pitches (")
                              << pitch << " vs " << tgt->row_bytes() << " bytes)");
    const auto off = op.elements(op.offsets());
    int bits = scalar_divisibility::top;
    for (std::size_t i = 0; i < off.size() && i < 2; ++i)
      bits = std::min(
          bits, k.divisibility.of(off[i]) + scalar_divisibility::of_constant(i == 0 ? dst.row_bytes() : element_bytes(dst.dt)));
    if (off.size() != 2 || bits < detail::vec_base_bits)
      return match_result::no(text("assemble destination is not provably 32-byte aligned (row pitch ")
                              << dst.row_bytes() << " bytes)");
    if (!ctx.addressed())
      if (auto why = detail::addressless_window_parent_problem(op.fn(), k, op.result()); !why.empty())
        return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }

  static constexpr void rewrite(typed<tile::assemble> op, lowering& l) {
    const function& f = op.fn();
    const value_id res = op.result();
    const value_id target = op.target().value();
    const value_id source = op.source().value();
    const value_id dst = l.handle(res);
    const value_id tgt = l.handle(target);
    const type& rt = op.result_type();
    const type& tt = f.type_of(target);
    auto& b = l.builder();
    // The result has other storage than the target: preserve the target first (through a view of
    // its own valid rectangle when the assemble enlarges the valid region). Same bytes: nothing.
    if (tgt != dst && f.storage_of(target) != f.storage_of(res)) {
      value_id into = l.typed_handle(res, op.loc());
      if (buffer_descriptor(tt) != buffer_descriptor(rt)) {
        const text nm = text(f.name_of(res)) << "_target";
        into = b.create<buffer::subview>({.source = dst, .offsets = built(b.pair(0, 0)), .valid = built(l.valid_tuple(target))},
                                         buffer_descriptor(tt), nm.view(), op.loc());
      }
      b.create<buffer::copy>({.source = l.typed_handle(target, op.loc()), .dest = into}, op.loc());
    }
    const operand offsets = l.rw().map(op.offsets());
    if (const auto* w = l.window_of(source); w != nullptr && w->base == dst && detail::same_operand(b.fn(), w->offsets, offsets))
      return;  // the source was written in place: it already is the assembled window
    const text nm = text(f.name_of(res)) << "_window";
    const value_id window =
        b.create<buffer::subview>({.source = dst, .offsets = built(offsets), .valid = built(l.valid_tuple(source))},
                                  buffer_descriptor(f.type_of(source)), nm.view(), op.loc());
    b.create<buffer::copy>({.source = l.typed_handle(source, op.loc()), .dest = window}, op.loc());
  }
};

}  // namespace v0
}  // namespace tile2buffer
