// SPDX-License-Identifier: Apache-2.0
/// @file recipe/broadcast.hpp
/// Extended-tier recipes for the broadcasts (extended-rollout.md §3.3-§3.5), one recipe template
/// for the plain ones and one for the fused arithmetic, along rows or columns, and for tile.cast
/// (§3.7). Row-broadcast arithmetic uses mode 2 (an explicit block `blk`); mode 1 (the column
/// vector as the per-row operand) would use the a2a3 library's implicit UB window, so it is never
/// emitted.
#pragma once

#include <string_view>

#include "tile2buffer/ir/cast.hpp"
#include "tile2buffer/recipe/reduction.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Why `v` is not the column vector a broadcast reads for `rows` valid rows, or empty: an [R, 1]
/// col_major FP32 column, R * esize a multiple of 32, static valid [r, 1] with r equal to `rows`.
constexpr text broadcast_column_problem(const type& v, std::int64_t physical_rows, const extent& rows) {
  if (!is_column_vector(v) || v.shape[0] != physical_rows)
    return text("the broadcast operand must be a [") << physical_rows << ", 1] column vector (col_major, no boxes)";
  if (v.bytes() % 32 != 0)
    return text("a column vector needs R * element bytes aligned to 32 (")
           << v.shape[0] << " x " << name(v.dt) << " is " << v.bytes() << " bytes)";
  if (!v.static_valid() || v.valid[1].number != 1) return text("a column vector with runtime valid rows stays Tile");
  if (!(v.valid[0] == rows)) return text("the column vector's valid rows must equal the broadcast's");
  return {};
}

/// Why `w` is not the row a column broadcast reads for `dst`, or empty: a dense row-major [1, C]
/// row of dst's columns and dtype, one valid row, valid columns structurally equal to dst's.
constexpr text broadcast_row_problem(const type& w, const type& dst) {
  if (!is_dense_vec(w) || w.shape[0] != 1 || w.shape[1] != dst.shape[1] || w.dt != dst.dt)
    return text("the broadcast operand must be a dense row-major [1, ") << dst.shape[1] << "] row of the result's dtype";
  if (!(w.valid[0] == extent::of(1)) || !(w.valid[1] == dst.valid[1]))
    return text("the row's valid columns must equal the broadcast's");
  return {};
}

/// Whether broadcast `c` spreads an [R, 1] column along each row (row_expand*) rather than a
/// [1, C] row down each column (col_expand*).
constexpr bool expands_rows(opcode c) {
  return family_of(c) == op_family::row_broadcast || family_of(c) == op_family::row_broadcast_arith;
}

/// Why the destination of broadcast `c` does not qualify, or empty: an extended-rollout dtype, dense.
constexpr text broadcast_result_problem(opcode c, const type& dst) {
  if (!extended_allows(dst.dt))
    return text(mnemonic(c)) << " on " << tile2buffer::name(dst.dt) << " is not in the extended rollout";
  return dense_vec_problem(dst);
}
/// Why operand `role` (the vector) of broadcast `c` does not fit `dst` along c's axis, or empty.
constexpr text broadcast_operand_problem(opcode c, const function& f, const type& dst, const operand& vector,
                                         std::string_view role) {
  if (!vector.is_value() || !f.type_of(vector.value()).is_tile()) return text(mnemonic(c)) << ' ' << role << " must be a tile";
  const type& v = f.type_of(vector.value());
  return expands_rows(c) ? broadcast_column_problem(v, dst.shape[0], dst.valid[0]) : broadcast_row_problem(v, dst);
}

}  // namespace detail

/// The plain broadcasts: `tile.row_expand(v)` to `buffer.row_expand(v, dst)` (§3.3) and
/// `tile.col_expand(w)` to `buffer.col_expand(w, dst)` (§3.5), the result's type written on the op.
template <opcode C>
struct lower_expand {
  using source = op_t<C>;
  static constexpr std::string_view name = detail::recipe_name<C>::value;
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = false;
  static constexpr std::span<const dtype> dtypes = extended_arithmetic_dtypes;
  static constexpr opcode target = *buffer_counterpart(C);

  static constexpr match_result match(typed<source> op, const match_context& ctx) {
    const type& dst = op.result_type();
    if (auto why = detail::broadcast_result_problem(C, dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (auto why = detail::broadcast_operand_problem(C, op.fn(), dst, op.source(), "source"); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    if (auto why = detail::dynamic_storage_problem(op.fn(), ctx.kernel(), op.result()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<source> op, lowering& l) {
    const value_id v = l.typed_handle(op.source().value(), op.loc());
    const value_id dst = l.typed_handle(op.result(), op.loc());
    l.builder().create<op_t<target>>({.source = v, .dest = dst}, op.loc());
  }
};

/// The fused broadcast arithmetic, `x op vector` keeping x's type: `tile.row_expand_sub/div/mul(x,
/// v, blk)` to the block fill `buffer.row_expand(v, blk)` then the mode-2 native op
/// `buffer.row_expand_<op>(x, blk, dst)` (§3.4), and `tile.col_expand_<op>(x, w)` to
/// `buffer.col_expand_<op>(x, w, dst)` (§3.5b; no scratch).
template <opcode C>
struct lower_expand_arith {
  using source = op_t<C>;
  static constexpr std::string_view name = detail::recipe_name<C>::value;
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = false;
  static constexpr std::span<const dtype> dtypes = extended_arithmetic_dtypes;
  static constexpr opcode target = *buffer_counterpart(C);
  static constexpr bool rows = detail::expands_rows(C);

  static constexpr match_result match(typed<source> op, const match_context& ctx) {
    const type& dst = op.result_type();
    if (auto why = detail::broadcast_result_problem(C, dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    const type* x = op.tile_type(op.source());
    if (x == nullptr || !detail::same_descriptor(*x, dst))
      return match_result::no(text(mnemonic(C))
                              << " source and destination must have matching physical shapes, dtypes and valid extents");
    if (auto why = detail::broadcast_operand_problem(C, op.fn(), dst, op.vector(), "vector"); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    if constexpr (rows) {
      if (const operand blk = op.blk(); blk.is_value()) {
        const type& b = op.fn().type_of(blk.value());
        const type& v = op.fn().type_of(op.vector().value());
        const std::int64_t lanes = 32 / element_bytes(dst.dt);
        if (!b.is_tile() || !is_dense_vec(b) || b.dt != dst.dt || b.shape[0] != dst.shape[0] || b.shape[1] != lanes ||
            !(b.valid[0] == v.valid[0]) || !(b.valid[1] == extent::of(lanes)))
          return match_result::no(text("scratch tile smaller than the native rule (blk must be a dense row-major [")
                                  << dst.shape[0] << ", " << lanes << "] block with the vector's valid rows)");
      }
    }
    if (auto why = detail::dynamic_storage_problem(op.fn(), ctx.kernel(), op.result()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }

  static constexpr void rewrite(typed<source> op, lowering& l) {
    const value_id x = l.typed_handle(op.source().value(), op.loc());
    const value_id v = l.typed_handle(op.vector().value(), op.loc());
    if constexpr (rows) {
      if (!op.blk().is_value()) {
        l.fail(op.loc(), name, text("needs its scratch blk: run materialize_native_scratch before init_storage"));
        return;
      }
      const value_id blk = l.typed_handle(op.blk().value(), op.loc());
      const value_id dst = l.typed_handle(op.result(), op.loc());
      l.builder().create<buffer::row_expand>({.source = v, .dest = blk}, op.loc());
      l.builder().create<op_t<target>>({.source = x, .blk = blk, .dest = dst}, op.loc());
    } else {
      const value_id dst = l.typed_handle(op.result(), op.loc());
      l.builder().create<op_t<target>>({.source = x, .vector = v, .dest = dst}, op.loc());
    }
  }
};

/// tile.cast (§3.7): the pairs of `extended_cast_pairs` (ir/cast.hpp) with their modes, both rows
/// 32-byte aligned; other pairs stay Tile.
struct lower_cast {
  using source = tile::cast;
  static constexpr std::string_view name = "lower-cast";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = false;
  static constexpr std::span<const dtype> dtypes = {};

  static constexpr match_result match(typed<source> op, const match_context& ctx) {
    const type& dst = op.result_type();
    const type* src = op.tile_type(op.source());
    if (src == nullptr) return match_result::no(text("tile.cast source must be a tile"));
    if (auto why = dense_vec_problem(*src, ctx.int8_vec()); !why.empty()) return match_result::no(text("source: ") << why);
    if (auto why = dense_vec_problem(dst, ctx.int8_vec()); !why.empty()) return match_result::no(text("result: ") << why);
    const auto m = op.kwarg_of(keyword::mode);
    const std::int64_t mode = m && m->kind == operand_kind::int_lit ? m->num : 1;
    const cast_pair* pair = extended_cast_pair(src->dt, dst.dt);
    if (pair == nullptr)
      return match_result::no(text("tile.cast from ") << tile2buffer::name(src->dt) << " to " << tile2buffer::name(dst.dt)
                                                      << " is not in the extended rollout");
    if (mode < pair->min_mode || mode > pair->max_mode)
      return match_result::no(text("tile.cast to ") << tile2buffer::name(dst.dt) << " takes rounding modes " << pair->min_mode
                                                    << " to " << pair->max_mode << " in the extended rollout, got " << mode);
    if (auto why = detail::dynamic_storage_problem(op.fn(), ctx.kernel(), op.result()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<source> op, lowering& l) {
    const value_id x = l.typed_handle(op.source().value(), op.loc());
    const value_id dst = l.typed_handle(op.result(), op.loc());
    std::array<kwarg, 1> kws{};
    std::size_t n = 0;
    if (const auto m = op.kwarg_of(keyword::mode)) kws[n++] = kwarg{keyword::mode, *m};
    const operand args[] = {operand::of(x), operand::of(dst)};
    l.builder().emit(opcode::buffer_cast, args, std::span<const kwarg>(kws.data(), n), {}, {}, op.loc());
  }
};

}  // namespace v0
}  // namespace tile2buffer
