// SPDX-License-Identifier: Apache-2.0
/// @file recipe/transfer.hpp
/// Storage and transfer recipes: tile.create, tile.load (GM -> Vec or Mat), tile.store (Vec or
/// Acc -> GM), tile.move (Vec -> Vec, and Mat -> Left/Right, the MTE1 relayout).
#pragma once

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/recipe/common.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {
/// Ordinary packed ND GM tensor: ND layout and, when strides are given, exactly [cols, 1].
constexpr text gm_problem(const type& t) {
  if (!t.is_tensor()) return text("expected a GM tensor operand");
  if (t.tlayout != tensor_layout::nd || (t.has_stride && (t.stride[0] != t.shape[1] || t.stride[1] != 1)))
    return text("only ordinary packed ND GM tensors have a transfer recipe");
  return {};
}

/// The descriptor rules of a Tile that is a transfer endpoint (reference §2.5): loads target
/// dense Vec or Mat, stores read dense Vec or Acc.
constexpr text endpoint_problem(const type& t, bool load, bool int8) {
  if (t.space == memory_space::vec) return dense_vec_problem(t, int8);
  const memory_space matrix = load ? memory_space::mat : memory_space::acc;
  if (t.space != matrix)
    return text(load ? "a load into " : "a store from ") << name(t.space) << " needs a Buffer transfer recipe ("
                                                         << (load ? "loads target Vec or Mat" : "stores read Vec or Acc") << ')';
  return matrix_tile_problem(t);
}

/// The Acc -> GM fix-pipe conversions without scaling (reference §2.5): FP32 to FP32, FP16 or
/// BF16; INT32 to INT32.
constexpr bool acc_store_allows(dtype acc, dtype gm) {
  return acc == dtype::fp32 ? gm == dtype::fp32 || gm == dtype::fp16 || gm == dtype::bf16
                            : acc == dtype::int32 && gm == dtype::int32;
}

/// Why column vector `col` and GM tensor `gm` are not a column transfer (quantized-path.md
/// §2.4), or empty: R * esize a multiple of 32, one valid column, valid rows static or runtime,
/// and a packed ND tensor of its FP16/BF16/FP32/INT32 element type. The GM window is one column,
/// strided by the tensor's row pitch.
constexpr text column_transfer_problem(const type& col, const type* gm) {
  if (col.bytes() % 32 != 0)
    return text("a column vector needs R * element bytes aligned to 32 (")
           << col.shape[0] << " x " << name(col.dt) << " is " << col.bytes() << " bytes)";
  if (!col.valid[1].is_static() || col.valid[1].number != 1) return text("a column vector transfers one valid column");
  if (gm == nullptr || !gm_problem(*gm).empty() || gm->dt != col.dt || !gm_transfer_allows(col.dt))
    return text("a column-vector transfer needs an ND GM tensor of its FP16/BF16/FP32/INT32 element type");
  return {};
}

/// Why `ld`, a load into a column vector, is outside lower-column-load, or empty. The GM column
/// must be contiguous: a2a3 loads a DN (col_major) Vec tile only from a DN view, one burst per
/// column, and refuses any other layout pair (pto-isa tload_common.hpp `TLOAD_TILE_IMPL`; docs/pto-as.md
/// "Column vectors and GM"), so a column of a wider tensor, strided by its row pitch, stays Tile.
constexpr text column_load_problem(typed<tile::load> ld, const match_context& ctx) {
  const type& dst = ld.result_type();
  const type* gm = ld.type_of(ld.tensor());
  if (text why = column_transfer_problem(dst, gm); !why.empty()) return why;
  if (gm->shape[1] != 1)
    return text("a column-vector load needs a contiguous GM column, an [N, 1] tensor: a2a3 loads a DN tile only from a DN "
                "view, and a column of a wider tensor is strided");
  if (ld.kwarg_set(keyword::cache)) return text("cache-policy loads require a Buffer transfer recipe");
  const auto ext = ld.elements(ld.shape());
  if (ext[0].kind != operand_kind::int_lit || ext[0].num != dst.shape[0] || ext[1].kind != operand_kind::int_lit ||
      ext[1].num != 1)
    return text("tile.load shape must equal the tile's physical shape");
  return dynamic_storage_problem(ld.fn(), ctx.kernel(), ld.result());
}

/// Why `st`, a store of a column vector, is outside lower-column-store, or empty.
constexpr text column_store_problem(typed<tile::store> st, const type& src) {
  const type* gm = st.type_of(st.tensor());
  if (text why = column_transfer_problem(src, gm); !why.empty()) return why;
  // TSTORE picks its path by the tile's layout: a DN tile is written as one contiguous run per
  // column whatever the GM row stride (pto-isa TStore.hpp TStoreUb2gmDn2dn), so into a column of a
  // wider tensor it would overwrite that row's neighbours (docs/pto-as.md "Column vectors and GM").
  if (gm->shape[1] != 1)
    return text("a column-vector store needs a contiguous GM column, an [N, 1] tensor: a2a3 writes a DN tile as one "
                "contiguous run, and a column of a wider tensor is strided");
  if (st.kwargs().size() != 0) return text("column-vector stores take no store keywords");
  return {};
}

/// The reason an ordinary transfer recipe gives for a column vector under the extended rollout:
/// the column recipe's, so that a column transfer staying Tile says why (empty `why`: the column
/// recipe, tried next, takes it).
constexpr match_result column_is_elsewhere(text why) {
  if (why.empty()) why = text("a column-vector transfer has its own recipe");
  return match_result::no(static_cast<text&&>(why));
}
}  // namespace detail

/// tile.create: nothing to emit; its handle was declared with its allocation.
struct lower_create {
  using source = tile::create;
  static constexpr std::string_view name = "lower-create";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(typed<tile::create> op, const match_context& ctx) {
    const type& t = op.result_type();
    if (is_matrix_space(t.space)) {
      if (auto why = matrix_tile_problem(t); !why.empty()) return match_result::no(static_cast<text&&>(why));
    } else if (ctx.opts.rollout == rollout_kind::extended && is_column_vector(t)) {
      // Extended rollout §2.1: an [R, 1] column vector, R * esize a multiple of 32.
      if (t.bytes() % 32 != 0) return match_result::no(text("a column vector needs R * element bytes aligned to 32"));
    } else if (auto why = dense_vec_problem(t, ctx.int8_vec()); !why.empty()) {
      return match_result::no(static_cast<text&&>(why));
    }
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::create>, lowering&) {}
};

struct lower_load {
  using source = tile::load;
  static constexpr std::string_view name = "lower-load";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(typed<tile::load> ld, const match_context& ctx) {
    const type& dst = ld.result_type();
    if (ctx.opts.rollout == rollout_kind::extended && is_column_vector(dst))
      return detail::column_is_elsewhere(detail::column_load_problem(ld, ctx));
    if (auto why = detail::endpoint_problem(dst, true, ctx.int8_vec()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    if (auto why = detail::dynamic_storage_problem(ld.fn(), ctx.kernel(), ld.result()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    const type* gm_type = ld.type_of(ld.tensor());
    if (gm_type == nullptr) return match_result::no(text("tile.load needs a GM tensor value"));
    const type& gm = *gm_type;
    if (auto why = detail::gm_problem(gm); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (dst.space == memory_space::mat) {
      // GM ND -> NZ on the way; the element type never changes (INT8 included).
      if (gm.dt != dst.dt)
        return match_result::no(text("GM load into Mat requires matching FP16/BF16/FP32/INT8 element types, got ")
                                << tile2buffer::name(gm.dt) << " -> " << tile2buffer::name(dst.dt));
    } else if (gm.dt != dst.dt || !gm_transfer_allows(dst.dt, ctx.int8_vec())) {
      return match_result::no(text("GM load requires matching ")
                              << gm_transfer_names(ctx.int8_vec()) << " element types, got " << tile2buffer::name(gm.dt) << " -> "
                              << tile2buffer::name(dst.dt));
    }
    if (ld.kwarg_set(keyword::cache)) return match_result::no(text("cache-policy loads require a Buffer transfer recipe"));
    // The shape operand is the physical window (the verifier holds it to the tile's shape); the
    // Buffer load reads Valid(result), which the optional fourth operand only restates.
    const auto ext = ld.elements(ld.shape());
    for (std::size_t i = 0; i < 2; ++i)
      if (ext[i].kind != operand_kind::int_lit || ext[i].num != dst.shape[i])
        return match_result::no(text("tile.load shape must equal the tile's physical shape"));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::load> ld, lowering& l) {
    const value_id result = ld.result();
    l.builder().create<buffer::load>({.tensor = built(l.rw().map(ld.tensor())),
                                      .offsets = built(l.rw().map(ld.offsets())),
                                      .valid = built(l.valid_tuple(result)),
                                      .dest = l.handle(result)},
                                     ld.loc());
  }
};

struct lower_store {
  using source = tile::store;
  static constexpr std::string_view name = "lower-store";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(typed<tile::store> st, const match_context& ctx) {
    const type* src = st.tile_type(st.tile());
    if (src == nullptr) return match_result::no(text("tile.store needs a Tile source"));
    if (ctx.opts.rollout == rollout_kind::extended && is_column_vector(*src))
      return detail::column_is_elsewhere(detail::column_store_problem(st, *src));
    // Extended rollout: an Acc tail (recipe/valid.hpp lower_acc_tail) stores through its view.
    const bool acc_tail = ctx.opts.rollout == rollout_kind::extended && src->space == memory_space::acc && !src->static_valid() &&
                          matrix_descriptor_problem(*src).empty();
    // Why no `acc_tail ? text{} : ...`: g++-12 destroys that conditional's text twice in constant
    // evaluation (the static coverage TUs).
    if (!acc_tail)
      if (auto why = detail::endpoint_problem(*src, false, ctx.int8_vec()); !why.empty())
        return match_result::no(static_cast<text&&>(why));
    if (st.kwarg_set(keyword::atomic) || st.kwarg_set(keyword::st_phase))
      return match_result::no(text("atomic and phased stores require a Buffer transfer recipe"));
    // Quantized-path.md §2.8: the facts found (docs/pto-as.md "Facts of the quantized path") do
    // not pin the fix-pipe's conversion, so the extended rollout says so instead of lowering it.
    if (ctx.int8_vec() && st.kwarg_set(keyword::pre_quant))
      return match_result::no(text("pre_quant stores stay Tile: the fix-pipe's quantization (its i64 scale encoding, "
                                   "rounding and saturation) is not pinned by the public sources"));
    if (st.kwarg_set(keyword::pre_quant) || st.kwarg_set(keyword::pre_relu))
      return match_result::no(text("pre_quant/pre_relu stores require a Buffer transfer recipe"));
    const type* gm_type = st.type_of(st.tensor());
    if (gm_type == nullptr) return match_result::no(text("tile.store needs a GM tensor value"));
    const type& gm = *gm_type;
    if (auto why = detail::gm_problem(gm); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (src->space == memory_space::acc) {
      if (!detail::acc_store_allows(src->dt, gm.dt))
        return match_result::no(
            text("Acc stores drain through the fix-pipe with FP32 -> FP32/FP16/BF16 or INT32 -> INT32 only, got ")
            << tile2buffer::name(src->dt) << " -> " << tile2buffer::name(gm.dt));
    } else if (gm.dt != src->dt || !gm_transfer_allows(src->dt, ctx.int8_vec())) {
      return match_result::no(text("GM store requires matching ")
                              << gm_transfer_names(ctx.int8_vec()) << " element types, got " << tile2buffer::name(src->dt)
                              << " -> " << tile2buffer::name(gm.dt));
    }
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::store> st, lowering& l) {
    const operand gm = l.rw().map(st.tensor());
    const value_id src = st.tile().value();
    l.builder().create<buffer::store>({.source = l.typed_handle(src, st.loc()),
                                       .offsets = built(l.rw().map(st.offsets())),
                                       .valid = built(l.valid_tuple(src)),
                                       .tensor = built(gm)},
                                      st.loc());
    // The store's result is the tensor it wrote: later uses (the return) name the parameter.
    l.rw().bind(st.result(), gm);
  }
};

/// Extended rollout §2.5 and quantized-path.md §2.4: a column vector `[R, 1]` stored into one
/// column of a GM window (the layout mismatch TSTORE tolerates for one column), valid rows static
/// or runtime. `lower_store` defers column vectors to it under the extended rollout.
struct lower_column_store {
  using source = tile::store;
  static constexpr std::string_view name = "lower-column-store";
  static constexpr int benefit = 0;
  static constexpr bool default_rollout = false;
  static constexpr match_result match(typed<tile::store> st, const match_context&) {
    const type* src = st.tile_type(st.tile());
    if (src == nullptr || !is_column_vector(*src)) return match_result::no(text("tile.store: not a column-vector store"));
    if (text why = detail::column_store_problem(st, *src); !why.empty()) return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::store> st, lowering& l) { lower_store::rewrite(st, l); }
};

/// quantized-path.md §2.4: a column of a GM tensor (`x[r0:r0+R, c:c+1]`) loaded into a column
/// vector `[R, 1]`, valid rows static or runtime: a TLOAD of an `[R, 1]` partition view into a
/// DN tile. `lower_load` defers column vectors to it under the extended rollout.
struct lower_column_load {
  using source = tile::load;
  static constexpr std::string_view name = "lower-column-load";
  static constexpr int benefit = 0;
  static constexpr bool default_rollout = false;
  static constexpr match_result match(typed<tile::load> ld, const match_context& ctx) {
    if (!is_column_vector(ld.result_type())) return match_result::no(text("tile.load: not a column-vector load"));
    if (text why = detail::column_load_problem(ld, ctx); !why.empty()) return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::load> ld, lowering& l) { lower_load::rewrite(ld, l); }
};

struct lower_move {
  using source = tile::move;
  static constexpr std::string_view name = "lower-move";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(typed<tile::move> mv, const match_context& ctx) {
    const type& dst = mv.result_type();
    const type* src = mv.tile_type(mv.source());
    if (src == nullptr) return match_result::no(text("tile.move needs a Tile source"));
    if (src->space == memory_space::mat && (dst.space == memory_space::left || dst.space == memory_space::right)) {
      if (auto why = matrix_tiles_problem({src, &dst}); !why.empty()) return match_result::no(static_cast<text&&>(why));
      if (src->dt != dst.dt || src->shape != dst.shape || src->valid != dst.valid)
        return match_result::no(text("tile.move Mat -> ")
                                << tile2buffer::name(dst.space) << " keeps the dtype, shape and valid extents");
      return match_result::yes();
    }
    if (src->space != memory_space::vec || dst.space != memory_space::vec) {
      text why = text("tile.move from ") << tile2buffer::name(src->space) << " to " << tile2buffer::name(dst.space);
      if (src->space == dst.space)
        return match_result::no(why << " has no Buffer copy: same-space matrix transfers cannot execute (no Acc -> Acc move)");
      return match_result::no(why << " needs a Buffer transfer recipe (Vec -> Vec and Mat -> Left/Right only)");
    }
    // Extended rollout §2.5: a static-valid column vector moves as its [1, R] row relabel.
    if (ctx.opts.rollout == rollout_kind::extended && is_column_vector(dst)) {
      if (auto why = detail::column_elementwise_problem(opcode::tile_move, dst); !why.empty())
        return match_result::no(static_cast<text&&>(why));
    } else if (auto why = dense_vec_problem(dst, ctx.int8_vec()); !why.empty()) {
      return match_result::no(static_cast<text&&>(why));
    }
    if (auto why = detail::dynamic_storage_problem(mv.fn(), ctx.kernel(), mv.result()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    if (!detail::same_descriptor(*src, dst)) return match_result::no(text("tile.move Vec -> Vec requires identical descriptors"));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::move> mv, lowering& l) {
    // A K step of a Mat chunk (recipe/cube.hpp lower_mat_window): extracted at its offsets.
    if (const auto* w = l.window_of(mv.source().value()); w != nullptr && w->extract) {
      const auto at = l.builder().fn().elements(w->offsets);
      const operand row = at[0], col = at[1];  // copies: create may grow the operand pool
      l.builder().create<buffer::extract>(
          {.source = w->base, .row = built(row), .col = built(col), .dest = l.handle(mv.result())}, mv.loc());
      return;
    }
    if (l.handle(mv.source().value()) == l.handle(mv.result())) return;  // an exact self-copy disappears
    // A column vector moves as its [1, R] row relabel (extended rollout §2.5).
    const bool column = is_column_vector(mv.result_type());
    const value_id from = column ? l.row_handle(mv.source().value(), mv.loc()) : l.typed_handle(mv.source().value(), mv.loc());
    const value_id to = column ? l.row_handle(mv.result(), mv.loc()) : l.typed_handle(mv.result(), mv.loc());
    l.builder().create<buffer::copy>({.source = from, .dest = to}, mv.loc());
  }
};

}  // namespace v0
}  // namespace tile2buffer
