// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/tile_rules.hpp
/// Models of the Tile ops that allocate, fill, move or relabel tiles (reference §1.5, §2.4):
/// alloc, create, full, load, store, move and the views. The compute ops are in
/// tile_compute_rules.hpp.
#pragma once

#include <array>
#include <cstdint>

#include "tile2buffer/ir/verify/op_rule.hpp"
#include "tile2buffer/ir/verify/shared_checks.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Required shape operands (reshape, slice) are static and restate the result's shape.
constexpr bool restates_shape(const index_pair& shape, const type& r) {
  return shape.known[0] && shape.known[1] && shape.num == r.shape;
}

template <class V>
struct op_rule<opcode::tile_alloc, V> : model<opcode::tile_alloc> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op alloc(s.f, v.id);
    s.expect_result(v, type_kind::mem);
    const operand capacity = alloc.capacity();
    if (capacity.kind != operand_kind::int_lit || capacity.num <= 0)
      s.fail(v.loc, "planned ", v.mn, " capacity must be a positive static byte count");
    for (const auto& kw : v.kws)
      if (kw.key == keyword::addr && (kw.value.kind != operand_kind::int_lit || kw.value.num < 0))
        s.fail(v.loc, v.mn, " requires nonnegative placed addresses: addr must be a nonnegative integer literal");
  }
};

template <class V>
struct op_rule<opcode::tile_create, V> : model<opcode::tile_create> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) { s.expect_result(v, type_kind::tile); }
};

template <class V>
struct op_rule<opcode::tile_full, V> : model<opcode::tile_full> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    s.expect_result(v, type_kind::tile);
    if (!s.scalar_operand(op(s.f, v.id).value())) s.fail(v.loc, v.mn, " value must be a scalar");
  }
};

template <class V>
struct op_rule<opcode::tile_load, V> : model<opcode::tile_load> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op ld(s.f, v.id);
    const type* src = s.expect(v, ld.tensor(), type_kind::tensor, label("tensor"));
    const type* r = s.expect_result(v, type_kind::tile);
    const index_pair off = s.pair(v, ld.offsets(), "offsets");
    const index_pair ext = s.pair(v, ld.shape(), "extents");
    const operand valid = ld.valid();
    const index_pair val = present(valid) ? s.pair(v, valid, "valid extents") : index_pair{};
    if (src != nullptr && r != nullptr && src->dt != r->dt) s.fail(v.loc, v.mn, " result dtype must equal the tensor dtype");
    if (off.ok && !nonnegative(off)) s.fail(v.loc, v.mn, " offsets must be nonnegative");
    if (r == nullptr || !ext.ok) return;
    // One reading (spec, example 05): the shape operand is the physical window, and what is
    // read from GM is Valid(result); the optional `valid` operand restates those valid extents.
    if (!restates_shape(ext, *r))
      s.fail(v.loc, v.mn, " shape operand must equal the tile's physical shape (the valid extents come from the result type)");
    if (val.ok) {
      const auto e = s.elements(valid);
      for (std::size_t i = 0; i < 2; ++i) {
        const extent want = r->valid[i];
        const bool same = e[i].kind == operand_kind::int_lit ? want.is_static() && want.number == e[i].num
                                                             : e[i].is_value() && want.is_value() && want.value() == e[i].value();
        if (!same) {
          s.fail(v.loc, v.mn, " valid extents operand must restate the result's valid extents");
          break;
        }
      }
    }
    if (src != nullptr && off.ok && !static_fits(off, static_extent(*r), src->shape))
      s.fail(v.loc, v.mn, " window must lie within the tensor");
  }
};

template <class V>
struct op_rule<opcode::tile_store, V> : model<opcode::tile_store> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op st(s.f, v.id);
    const type* t = s.expect(v, st.tile(), type_kind::tile, label("tile"));
    const index_pair off = s.pair(v, st.offsets(), "offsets");
    const type* dst = s.expect(v, st.tensor(), type_kind::tensor, label("tensor"));
    if (dst == nullptr) return;
    const type* r = s.result_type(v);
    if (r == nullptr || !(*r == *dst)) s.fail(v.loc, v.mn, " result type must equal the tensor operand's type");
    if (t == nullptr) return;
    if (!store_dtype_ok(*t, *dst, fixpipe_converts(v.kws))) s.fail(v.loc, v.mn, " tile dtype must match the tensor dtype");
    if (off.ok && !nonnegative(off)) s.fail(v.loc, v.mn, " offsets must be nonnegative");
    if (off.ok && !static_fits(off, static_extent(*t), dst->shape)) s.fail(v.loc, v.mn, " window must lie within the tensor");
  }
};

template <class V>
struct op_rule<opcode::tile_move, V> : model<opcode::tile_move> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, op(s.f, v.id).source(), type_kind::tile, label("source"));
    const type* r = s.expect_result(v, type_kind::tile);
    if (src != nullptr && r != nullptr && (src->shape != r->shape || src->dt != r->dt))
      s.fail(v.loc, v.mn, " result must have the source's shape and dtype");
  }
};

template <class V>
struct op_rule<opcode::tile_reshape, V> : model<opcode::tile_reshape> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op rs(s.f, v.id);
    const type* src = s.expect(v, rs.source(), type_kind::tile, label("source"));
    const index_pair shape = s.pair(v, rs.shape(), "shape");
    const type* r = s.expect_result(v, type_kind::tile);
    if (src == nullptr || r == nullptr) return;
    if (shape.ok && !restates_shape(shape, *r)) s.fail(v.loc, v.mn, " shape must be static and equal the result shape");
    if (src->dt != r->dt || src->bytes() != r->bytes()) s.fail(v.loc, v.mn, " must keep the dtype and the physical bytes");
  }
};

template <class V>
struct op_rule<opcode::tile_reinterpret_view, V> : model<opcode::tile_reinterpret_view> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, op(s.f, v.id).source(), type_kind::tile, label("source"));
    const type* r = s.expect_result(v, type_kind::tile);
    if (src != nullptr && r != nullptr && src->bytes() != r->bytes()) s.fail(v.loc, v.mn, " must preserve the physical bytes");
  }
};

template <class V>
struct op_rule<opcode::tile_transpose_view, V> : model<opcode::tile_transpose_view> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, op(s.f, v.id).source(), type_kind::tile, label("source"));
    const type* r = s.expect_result(v, type_kind::tile);
    if (src != nullptr && r != nullptr && (src->dt != r->dt || r->shape[0] != src->shape[1] || r->shape[1] != src->shape[0]))
      s.fail(v.loc, v.mn, " result must have the transposed shape and the source dtype");
  }
};

template <class V>
struct op_rule<opcode::tile_slice, V> : model<opcode::tile_slice> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op sl(s.f, v.id);
    const type* src = s.expect(v, sl.source(), type_kind::tile, label("source"));
    const index_pair shape = s.pair(v, sl.shape(), "shape");
    const index_pair off = s.pair(v, sl.offsets(), "offsets");
    const operand valid = sl.valid();
    const index_pair val = present(valid) ? s.pair(v, valid, "valid extents") : index_pair{};
    const type* r = s.expect_result(v, type_kind::tile);
    if (r == nullptr) return;
    if (shape.ok && !restates_shape(shape, *r)) s.fail(v.loc, v.mn, " shape must be static and equal the result shape");
    if (off.ok && !nonnegative(off)) s.fail(v.loc, v.mn, " offsets must be nonnegative");
    if (val.ok && !within(val, r->shape)) s.fail(v.loc, v.mn, " valid extents must fit the result shape");
    if (src == nullptr) return;
    if (src->dt != r->dt) s.fail(v.loc, v.mn, " result dtype must equal the source dtype");
    if (r->shape[0] > src->shape[0] || r->shape[1] > src->shape[1]) s.fail(v.loc, v.mn, " shape must fit the source");
    else if (off.ok && !static_fits(off, r->shape, src->shape)) s.fail(v.loc, v.mn, " window must lie within the source");
  }
};

template <class V>
struct op_rule<opcode::tile_assemble, V> : model<opcode::tile_assemble> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op as(s.f, v.id);
    const type* target = s.expect(v, as.target(), type_kind::tile, label("target"));
    const type* source = s.expect(v, as.source(), type_kind::tile, label("source"));
    const index_pair off = s.pair(v, as.offsets(), "offsets");
    const type* r = s.expect_result(v, type_kind::tile);
    if (target == nullptr) return;
    if (r != nullptr && (r->shape != target->shape || r->dt != target->dt))
      s.fail(v.loc, v.mn, " result must have the target's shape and dtype");
    if (source == nullptr) return;
    if (source->dt != target->dt) s.fail(v.loc, v.mn, " source dtype must equal the target dtype");
    if (off.ok && !nonnegative(off)) s.fail(v.loc, v.mn, " offsets must be nonnegative");
    if (off.ok && !static_fits(off, source->shape, target->shape))
      s.fail(v.loc, v.mn, " source window must lie within the target");
  }
};

template <class V>
struct op_rule<opcode::tile_set_validshape, V> : model<opcode::tile_set_validshape> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op sv(s.f, v.id);
    const type* src = s.expect(v, sv.tile(), type_kind::tile, label("tile"));
    const type* r = s.expect_result(v, type_kind::tile);
    const std::array<operand, 2> extents{sv.rows(), sv.cols()};
    if (!s.integer_operand(extents[0]) || !s.integer_operand(extents[1])) {
      s.fail(v.loc, v.mn, " extents must be integer scalars");
      return;
    }
    if (src == nullptr || r == nullptr) return;
    if (src->shape != r->shape || src->dt != r->dt) s.fail(v.loc, v.mn, " result must have the source's shape and dtype");
    if (!within(scalar_pair(extents[0], extents[1]), src->shape)) s.fail(v.loc, v.mn, " extents must fit the tile shape");
    // The result's type states the new metadata: each extent restates its operand.
    for (std::size_t i = 0; i < 2; ++i) {
      const operand& e = extents[i];
      const extent want = e.kind == operand_kind::int_lit ? extent::of(e.num)
                          : e.is_value()                  ? extent::of(e.value())
                                                          : r->valid[i];
      if (r->valid[i] != want) {
        s.fail(v.loc, v.mn, " result valid extents must restate the operands");
        break;
      }
    }
  }
};

template <class V>
struct op_rule<opcode::tile_extract, V> : model<opcode::tile_extract> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op ex(s.f, v.id);
    const type* src = s.expect(v, ex.source(), type_kind::tile, label("source"));
    const type* r = s.expect_result(v, type_kind::tile);
    const operand row = ex.row(), col = ex.col();
    if (!s.integer_operand(row) || !s.integer_operand(col)) {
      s.fail(v.loc, v.mn, " offsets must be integer scalars");
      return;
    }
    if (src == nullptr || r == nullptr) return;
    if (src->dt != r->dt) s.fail(v.loc, v.mn, " result dtype must equal the source dtype");
    const index_pair off = scalar_pair(row, col);
    if (!nonnegative(off) || !static_fits(off, r->shape, src->shape)) s.fail(v.loc, v.mn, " window must lie within the source");
  }
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
