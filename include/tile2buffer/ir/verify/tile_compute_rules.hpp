// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/tile_compute_rules.hpp
/// Models of the Tile compute ops (reference §2.6): matmul, matmul_acc, the row reductions and
/// one model shared by every elementwise op whose record gives it a binary, unary or
/// tile-and-scalar shape.
#pragma once

#include <string_view>

#include "tile2buffer/ir/verify/op_rule.hpp"
#include "tile2buffer/ir/verify/shared_checks.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

template <class V>
struct op_rule<opcode::tile_matmul, V> : model<opcode::tile_matmul> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op mm(s.f, v.id);
    check_matmul(s, v, s.expect(v, mm.lhs(), type_kind::tile, label("lhs")), s.expect(v, mm.rhs(), type_kind::tile, label("rhs")),
                 s.expect_result(v, type_kind::tile));
  }
};

template <class V>
struct op_rule<opcode::tile_matmul_acc, V> : model<opcode::tile_matmul_acc> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op mm(s.f, v.id);
    const type* acc = s.expect(v, mm.acc(), type_kind::tile, label("acc"));
    const type* r = s.expect_result(v, type_kind::tile);
    if (acc != nullptr && r != nullptr && !(*acc == *r)) s.fail(v.loc, v.mn, " accumulator must have the result's type");
    check_matmul(s, v, s.expect(v, mm.lhs(), type_kind::tile, label("lhs")), s.expect(v, mm.rhs(), type_kind::tile, label("rhs")),
                 r);
    for (const auto& kw : v.kws) {
      const bool lit = kw.value.kind == operand_kind::bool_lit || kw.value.kind == operand_kind::int_lit;
      if (kw.key == keyword::init_cond && !lit && !s.bool_operand(kw.value) && !s.integer_operand(kw.value))
        s.fail(v.loc, v.mn, " init_cond must be a BOOL or integer scalar");
    }
  }
};

/// The row reductions (Axis 0: each row to one element of an [R, 1] column) and the column
/// reductions (Axis 1: each column to one element of a [1, C] row); the optional scratch `tmp` is
/// a tile of the source's dtype other than the source.
template <int Axis>
struct tile_reduction_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const operand source = family_operand<"source">(v);
    const type* src = s.expect(v, source, type_kind::tile, family_label<"source">(v));
    const type* r = s.expect_result(v, type_kind::tile);
    constexpr std::size_t kept = Axis == 0 ? 0 : 1;  // the dimension the result keeps
    if (src != nullptr && r != nullptr && (r->shape[kept] != src->shape[kept] || r->shape[1 - kept] != 1 || r->dt != src->dt))
      s.fail(v.loc, v.mn,
             Axis == 0 ? " result must be [R, 1] with the source's rows and dtype"
                       : " result must be [1, C] with the source's columns and dtype");
    const operand tmp = family_operand<"tmp">(v);
    if (!present(tmp)) return;
    const type* t = s.expect(v, tmp, type_kind::tile, family_label<"tmp">(v));
    if (t == nullptr || src == nullptr) return;
    if (t->dt != src->dt) s.fail(v.loc, v.mn, " scratch tmp must have the source's dtype");
    if (tmp.is_value() && source.is_value() && tmp.value() == source.value())
      s.fail(v.loc, v.mn, " scratch tmp must not be the source");
  }
};
template <opcode C, class V>
  requires(is_tile_op(C) && family_of(C) == op_family::row_reduction)
struct op_rule<C, V> : tile_reduction_rule<0> {};
template <opcode C, class V>
  requires(is_tile_op(C) && family_of(C) == op_family::col_reduction)
struct op_rule<C, V> : tile_reduction_rule<1> {};

/// tile.cast: the result is the source's shape, space and valid extents in dtype `to`.
template <class V>
struct op_rule<opcode::tile_cast, V> : model<opcode::tile_cast> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::tile, family_label<"source">(v));
    const type* r = s.expect_result(v, type_kind::tile);
    check_rounding_mode(s, v);
    if (src == nullptr || r == nullptr) return;
    const operand to = op(s.f, v.id).to();
    if (to.kind != operand_kind::dtype || static_cast<dtype>(to.num) != r->dt) s.fail(v.loc, v.mn, " result dtype must be `to`");
    if (r->shape != src->shape || r->space != src->space || !(r->valid[0] == src->valid[0]) || !(r->valid[1] == src->valid[1]))
      s.fail(v.loc, v.mn, " result must have the source's shape, space and valid extents");
  }
};

/// tile.row_expand: an [R, 1] column broadcast along the rows of the result (its type is written
/// on the op), which has the column's rows, dtype and space.
template <class V>
struct op_rule<opcode::tile_row_expand, V> : model<opcode::tile_row_expand> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::tile, family_label<"source">(v));
    const type* r = s.expect_result(v, type_kind::tile);
    if (src == nullptr || r == nullptr) return;
    if (src->shape[1] != 1 || r->shape[0] != src->shape[0] || r->dt != src->dt || r->space != src->space)
      s.fail(v.loc, v.mn, " source must be an [R, 1] column with the result's rows, dtype and space");
  }
};

/// tile.col_expand: a [1, C] row broadcast down the columns of the result (its type is written on
/// the op), which has the row's columns, dtype and space.
template <class V>
struct op_rule<opcode::tile_col_expand, V> : model<opcode::tile_col_expand> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::tile, family_label<"source">(v));
    const type* r = s.expect_result(v, type_kind::tile);
    if (src == nullptr || r == nullptr) return;
    if (src->shape[0] != 1 || r->shape[1] != src->shape[1] || r->dt != src->dt || r->space != src->space)
      s.fail(v.loc, v.mn, " source must be a [1, C] row with the result's columns, dtype and space");
  }
};

/// tile.col_expand_<op>: the result is the source's type; `vector` a [1, C] row of its columns.
template <opcode C, class V>
  requires(is_tile_op(C) && family_of(C) == op_family::col_broadcast_arith)
struct op_rule<C, V> : model<C> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::tile, family_label<"source">(v));
    const type* vec = s.expect(v, family_operand<"vector">(v), type_kind::tile, family_label<"vector">(v));
    const type* r = s.expect_result(v, type_kind::tile);
    if (src == nullptr || vec == nullptr || r == nullptr) return;
    if (r->dt != src->dt || r->space != src->space || r->shape != src->shape)
      s.fail(v.loc, v.mn, " result must have the source's shape, dtype and space");
    if (vec->shape[0] != 1 || vec->shape[1] != src->shape[1] || vec->dt != src->dt)
      s.fail(v.loc, v.mn, " vector must be a [1, C] row with the source's columns and dtype");
  }
};

/// tile.row_expand_<op>: the result is the source's type; `vector` is an [R, 1] column of
/// the source's rows and dtype; the optional `blk` a tile of the source's dtype.
template <class = void>
struct tile_row_expand_arith_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::tile, family_label<"source">(v));
    const type* vec = s.expect(v, family_operand<"vector">(v), type_kind::tile, family_label<"vector">(v));
    const type* r = s.expect_result(v, type_kind::tile);
    if (src == nullptr || vec == nullptr || r == nullptr) return;
    if (r->dt != src->dt || r->space != src->space || r->shape != src->shape)
      s.fail(v.loc, v.mn, " result must have the source's shape, dtype and space");
    if (vec->shape[1] != 1 || vec->shape[0] != src->shape[0] || vec->dt != src->dt)
      s.fail(v.loc, v.mn, " vector must be an [R, 1] column with the source's rows and dtype");
    const operand blk = family_operand<"blk">(v);
    if (!present(blk)) return;
    const type* b = s.expect(v, blk, type_kind::tile, family_label<"blk">(v));
    if (b != nullptr && b->dt != src->dt) s.fail(v.loc, v.mn, " scratch blk must have the source's dtype");
  }
};
template <opcode C, class V>
  requires(is_tile_op(C) && family_of(C) == op_family::row_broadcast_arith)
struct op_rule<C, V> : tile_row_expand_arith_rule<V> {};

/// Elementwise Tile ops: every tile operand and the result agree on dtype and space. Physical
/// shapes and valid extents may differ: such a kernel is valid Tile IR that does not qualify for
/// lowering ("matching valid extents alone do not qualify"), so selection keeps it Tile with a reason.
template <class = void>
struct tile_elementwise_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const ew_kind ew = info(v.code).ew;
    const type* r = s.expect_result(v, type_kind::tile);
    bool dtype_ok = true, space_ok = true;
    const auto input = [&](const operand& o, std::string_view what) {
      const type* a = s.expect(v, o, type_kind::tile, what);
      if (a == nullptr || r == nullptr) return;
      dtype_ok = dtype_ok && a->dt == r->dt;
      space_ok = space_ok && a->space == r->space;
    };
    if (ew == ew_kind::binary) {
      input(family_operand<"lhs">(v), family_label<"lhs">(v));
      input(family_operand<"rhs">(v), family_label<"rhs">(v));
    } else {
      input(family_operand<"source">(v), family_label<"source">(v));
    }
    if (!dtype_ok) s.fail(v.loc, v.mn, " operands must have matching dtypes");
    if (!space_ok) s.fail(v.loc, v.mn, " operands must be in the same memory space");
    if (ew == ew_kind::scalar_form && !s.scalar_operand(family_operand<"scalar">(v)))
      s.fail(v.loc, v.mn, ' ', family_label<"scalar">(v), " must be a scalar");
    if (!info(v.code).scratch.empty()) unary_scratch_check(s, v, type_kind::tile, r);
  }
};
/// The Tile ops whose record gives them an elementwise tile shape (tile.full, a fill, has its own).
constexpr bool tile_elementwise_op(opcode c) {
  const ew_kind ew = info(c).ew;
  return is_tile_op(c) && (ew == ew_kind::binary || ew == ew_kind::unary || ew == ew_kind::scalar_form);
}
template <opcode C, class V>
  requires(tile_elementwise_op(C))
struct op_rule<C, V> : tile_elementwise_rule<V> {};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
