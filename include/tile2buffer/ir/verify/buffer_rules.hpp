// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/buffer_rules.hpp
/// Models of the `buffer.*` ops (reference §2.3-§2.6): the schema of each op, not the
/// storage-provenance proofs of the Buffer IR verifier.
#pragma once

#include <cstdint>

#include "tile2buffer/ir/verify/op_rule.hpp"
#include "tile2buffer/ir/verify/shared_checks.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// A nonnegative integer scalar: a value, or a literal that is not negative.
template <class = void>
constexpr bool nonnegative_integer(const verify_state& s, const operand& o) {
  return s.integer_operand(o) && !(o.kind == operand_kind::int_lit && o.num < 0);
}

template <class V>
struct op_rule<opcode::buffer_alloc, V> : model<opcode::buffer_alloc> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op alloc(s.f, v.id);
    const type* r = s.expect_result(v, type_kind::buffer);
    if (r == nullptr) return;
    const auto valid = s.elements(alloc.init_valid());
    const std::size_t runtime = (r->valid[0].is_runtime() ? 1u : 0u) + (r->valid[1].is_runtime() ? 1u : 0u);
    if (valid.size() != runtime) s.fail(v.loc, v.mn, " valid tuple must have one entry per runtime ('?') dim");
    for (const auto& e : valid)
      if (!nonnegative_integer(s, e)) {
        s.fail(v.loc, v.mn, " valid extents must be nonnegative integer scalars");
        break;
      }
    if (const operand address = alloc.address(); present(address) && !nonnegative_integer(s, address))
      s.fail(v.loc, v.mn, " requires nonnegative placed addresses: its address must be a nonnegative integer");
  }
};

template <class V>
struct op_rule<opcode::buffer_set_validshape, V> : model<opcode::buffer_set_validshape> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op sv(s.f, v.id);
    const operand handle = sv.buffer();
    const type* buf = s.expect(v, handle, type_kind::buffer, label("buffer"));
    const index_pair p = s.pair(v, sv.valid(), "valid extents");
    if (buf == nullptr || !p.ok) return;
    // A view's valid extents are fixed where it is defined (reference §4.4): a metadata update
    // of a window or relabel would not reach the allocation it reads.
    const value_info& h = s.f.values[handle.value().index];
    if (h.origin() == value_origin::result && h.def.index < s.f.ops.size())
      if (const opcode d = s.f.ops[h.def.index].code();
          is_buffer_op(d) && (has_trait(d, trait::window) || has_trait(d, trait::relabel)))
        s.fail(v.loc, v.mn, " cannot mutate static view metadata: '", s.label(handle.value()), "' is a ", mnemonic(d), " result");
    if (!within(p, buf->shape)) s.fail(v.loc, v.mn, " valid extents must fit the buffer shape");
    for (std::size_t i = 0; i < 2; ++i)
      if (buf->valid[i].is_static() && (!p.known[i] || p.num[i] != buf->valid[i].number)) {
        s.fail(v.loc, v.mn, " static dims must be passed as the same constant");
        break;
      }
  }
};

/// buffer.load / buffer.store: GM `tensor`, rank-2 `offsets` and `valid` extents, and one buffer
/// endpoint, the load's `dest` or the store's `source`.
template <opcode C>
constexpr void check_buffer_transfer(verify_state& s, const op_view& v, const view<C>& transfer) {
  constexpr bool load = C == opcode::buffer_load;
  const type* tensor = s.expect(v, transfer.tensor(), type_kind::tensor, model<C>::label("tensor"));
  const type* buf = nullptr;
  if constexpr (load) buf = s.expect(v, transfer.dest(), type_kind::buffer, model<C>::label("dest"));
  else buf = s.expect(v, transfer.source(), type_kind::buffer, model<C>::label("source"));
  const index_pair off = s.pair(v, transfer.offsets(), "offsets");
  const index_pair ext = s.pair(v, transfer.valid(), "extents");
  if (off.ok && !nonnegative(off)) s.fail(v.loc, v.mn, " offsets must be nonnegative");
  if (buf == nullptr) return;
  if (ext.ok) {
    if (!within(ext, buf->shape)) {
      s.fail(v.loc, v.mn, " extents must fit the buffer shape");
    } else {
      for (std::size_t i = 0; i < 2; ++i)
        if (ext.known[i] && buf->valid[i].is_static() && ext.num[i] != buf->valid[i].number) {
          s.fail(v.loc, v.mn, " extents must equal the buffer's static valid extents");
          break;
        }
    }
  }
  if (tensor == nullptr) return;
  if (load ? tensor->dt != buf->dt : !store_dtype_ok(*buf, *tensor))
    s.fail(v.loc, v.mn, " buffer dtype must match the tensor dtype");
  if (off.ok && ext.ok && ext.known[0] && ext.known[1] && !static_fits(off, ext.num, tensor->shape))
    s.fail(v.loc, v.mn, " window must lie within the tensor");
}

template <class V>
struct op_rule<opcode::buffer_load, V> : model<opcode::buffer_load> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    check_buffer_transfer(s, v, op(s.f, v.id));
  }
};

template <class V>
struct op_rule<opcode::buffer_store, V> : model<opcode::buffer_store> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    check_buffer_transfer(s, v, op(s.f, v.id));
  }
};

template <class V>
struct op_rule<opcode::buffer_copy, V> : model<opcode::buffer_copy> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op cp(s.f, v.id);
    const type* src = s.expect(v, cp.source(), type_kind::buffer, label("source"));
    const type* dst = s.expect(v, cp.dest(), type_kind::buffer, label("dest"));
    if (src == nullptr || dst == nullptr) return;
    if (src->shape != dst->shape || src->dt != dst->dt || src->valid != dst->valid)
      s.fail(v.loc, v.mn, " source and destination must have the same shape, dtype and valid extents");
    else if (src->space == memory_space::vec && dst->space == memory_space::vec && *src != *dst)
      s.fail(v.loc, v.mn, " between Vec buffers requires identical descriptors");
    const bool vec = src->space == memory_space::vec && dst->space == memory_space::vec;
    const bool mte1 = src->space == memory_space::mat && (dst->space == memory_space::left || dst->space == memory_space::right);
    if (!vec && !mte1) s.fail(v.loc, v.mn, " supports Vec -> Vec and Mat -> Left/Right only");
  }
};

template <class V>
struct op_rule<opcode::buffer_subview, V> : model<opcode::buffer_subview> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op sv(s.f, v.id);
    const type* src = s.expect(v, sv.source(), type_kind::buffer, label("source"));
    const index_pair off = s.pair(v, sv.offsets(), "offsets");
    const operand valid = sv.valid();
    const index_pair val = present(valid) ? s.pair(v, valid, "valid extents") : index_pair{};
    const type* r = s.expect_result(v, type_kind::buffer);
    if (r == nullptr) return;
    if (!present(valid) && (r->valid[0].is_runtime() || r->valid[1].is_runtime()))
      s.fail(v.loc, v.mn, " with runtime valid extents requires a valid tuple");
    for (std::size_t i = 0; i < 2 && val.ok; ++i)
      if (r->valid[i].is_static() && (!val.known[i] || val.num[i] != r->valid[i].number)) {
        s.fail(v.loc, v.mn, " valid entries for static dims must equal the descriptor");
        break;
      }
    if (src == nullptr) return;
    if (src->dt != r->dt || src->space != r->space) s.fail(v.loc, v.mn, " result must have the source's dtype and memory space");
    if (r->shape[0] > src->shape[0] || r->shape[1] > src->shape[1])
      s.fail(v.loc, v.mn, " result dims must not exceed the source dims");
    else if (off.ok && (!nonnegative(off) || !static_fits(off, r->shape, src->shape)))
      s.fail(v.loc, v.mn, " offsets must keep the window within the source");
  }
};

template <class V>
struct op_rule<opcode::buffer_reshape, V> : model<opcode::buffer_reshape> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, op(s.f, v.id).source(), type_kind::buffer, label("source"));
    const type* r = s.expect_result(v, type_kind::buffer);
    if (src == nullptr || r == nullptr) return;
    if (src->bytes() != r->bytes()) s.fail(v.loc, v.mn, " must preserve the total bytes");
    if (src->space != r->space) s.fail(v.loc, v.mn, " must keep the memory space");
  }
};

template <class V>
struct op_rule<opcode::buffer_extract, V> : model<opcode::buffer_extract> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const op ex(s.f, v.id);
    const type* src = s.expect(v, ex.source(), type_kind::buffer, label("source"));
    const type* dst = s.expect(v, ex.dest(), type_kind::buffer, label("dest"));
    const operand row = ex.row(), col = ex.col();
    if (!s.integer_operand(row) || !s.integer_operand(col)) {
      s.fail(v.loc, v.mn, " offsets must be integer scalars");
      return;
    }
    if (src == nullptr || dst == nullptr) return;
    if (src->dt != dst->dt) s.fail(v.loc, v.mn, " destination dtype must equal the source dtype");
    const bool mte1 = src->space == memory_space::mat && (dst->space == memory_space::left || dst->space == memory_space::right);
    if (!mte1 && !(src->space == memory_space::vec && dst->space == memory_space::vec))
      s.fail(v.loc, v.mn, " supports Mat -> Left/Right and Vec -> Vec only");
    const index_pair off = scalar_pair(row, col);
    if (dst->shape[0] > src->shape[0] || dst->shape[1] > src->shape[1] || !nonnegative(off) ||
        !static_fits(off, dst->shape, src->shape))
      s.fail(v.loc, v.mn, " window must lie within the source");
  }
};

/// buffer.matmul and buffer.matmul_acc: the same operands, `dest` the accumulator.
template <class = void>
struct buffer_matmul_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    check_matmul(s, v, s.expect(v, family_operand<"lhs">(v), type_kind::buffer, family_label<"lhs">(v)),
                 s.expect(v, family_operand<"rhs">(v), type_kind::buffer, family_label<"rhs">(v)),
                 s.expect(v, family_operand<"dest">(v), type_kind::buffer, family_label<"dest">(v)));
  }
};
template <class V>
struct op_rule<opcode::buffer_matmul, V> : buffer_matmul_rule<V> {};
template <class V>
struct op_rule<opcode::buffer_matmul_acc, V> : buffer_matmul_rule<V> {};

/// The row reductions (buffer.row_sum, ...): Vec source, scratch and destination of one
/// dtype; the destination is the [R, 1] column of the source's rows.
template <class = void>
struct buffer_row_reduction_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::buffer, family_label<"source">(v));
    const type* tmp = s.expect(v, family_operand<"tmp">(v), type_kind::buffer, family_label<"tmp">(v));
    const type* dst = s.expect(v, family_operand<"dest">(v), type_kind::buffer, family_label<"dest">(v));
    if (src == nullptr || tmp == nullptr || dst == nullptr) return;
    if (src->space != memory_space::vec || tmp->space != memory_space::vec || dst->space != memory_space::vec)
      s.fail(v.loc, v.mn, " operands must be Vec buffers");
    if (src->dt != dst->dt || tmp->dt != src->dt) s.fail(v.loc, v.mn, " source, tmp and destination must share one dtype");
    if (dst->shape[0] != src->shape[0] || dst->shape[1] != 1)
      s.fail(v.loc, v.mn, " destination must be [R, 1] with the source's rows");
  }
};
template <opcode C, class V>
  requires(is_buffer_op(C) && family_of(C) == op_family::row_reduction)
struct op_rule<C, V> : buffer_row_reduction_rule<V> {};

/// The column reductions (buffer.col_sum, ...): Vec source (and col_sum's scratch) and
/// destination of one dtype; the destination is the [1, C] row of the source's columns.
template <class = void>
struct buffer_col_reduction_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::buffer, family_label<"source">(v));
    const type* dst = s.expect(v, family_operand<"dest">(v), type_kind::buffer, family_label<"dest">(v));
    const operand tmp_operand = family_operand<"tmp">(v);
    const type* tmp = present(tmp_operand) ? s.expect(v, tmp_operand, type_kind::buffer, family_label<"tmp">(v)) : src;
    if (src == nullptr || tmp == nullptr || dst == nullptr) return;
    if (src->space != memory_space::vec || tmp->space != memory_space::vec || dst->space != memory_space::vec)
      s.fail(v.loc, v.mn, " operands must be Vec buffers");
    if (src->dt != dst->dt || tmp->dt != src->dt) s.fail(v.loc, v.mn, " source, tmp and destination must share one dtype");
    if (dst->shape[1] != src->shape[1] || dst->shape[0] != 1)
      s.fail(v.loc, v.mn, " destination must be [1, C] with the source's columns");
  }
};
template <opcode C, class V>
  requires(is_buffer_op(C) && family_of(C) == op_family::col_reduction)
struct op_rule<C, V> : buffer_col_reduction_rule<V> {};

/// buffer.cast: Vec source and destination of one physical shape and valid shape.
template <class V>
struct op_rule<opcode::buffer_cast, V> : model<opcode::buffer_cast> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::buffer, family_label<"source">(v));
    const type* dst = s.expect(v, family_operand<"dest">(v), type_kind::buffer, family_label<"dest">(v));
    check_rounding_mode(s, v);
    if (src == nullptr || dst == nullptr) return;
    if (src->space != memory_space::vec || dst->space != memory_space::vec) s.fail(v.loc, v.mn, " operands must be Vec buffers");
    if (src->shape != dst->shape || !(src->valid[0] == dst->valid[0]) || !(src->valid[1] == dst->valid[1]))
      s.fail(v.loc, v.mn, " source and destination must have one physical shape and valid shape");
  }
};

/// buffer.row_expand: Vec column `source` [R, 1] broadcast into Vec `dest` of its rows and dtype.
template <class V>
struct op_rule<opcode::buffer_row_expand, V> : model<opcode::buffer_row_expand> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::buffer, family_label<"source">(v));
    const type* dst = s.expect(v, family_operand<"dest">(v), type_kind::buffer, family_label<"dest">(v));
    if (src == nullptr || dst == nullptr) return;
    if (src->space != memory_space::vec || dst->space != memory_space::vec) s.fail(v.loc, v.mn, " operands must be Vec buffers");
    if (src->shape[1] != 1 || src->shape[0] != dst->shape[0] || src->dt != dst->dt)
      s.fail(v.loc, v.mn, " source must be an [R, 1] column with the destination's rows and dtype");
  }
};

/// buffer.col_expand: Vec row `source` [1, C] broadcast into Vec `dest` of its columns and dtype.
template <class V>
struct op_rule<opcode::buffer_col_expand, V> : model<opcode::buffer_col_expand> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::buffer, family_label<"source">(v));
    const type* dst = s.expect(v, family_operand<"dest">(v), type_kind::buffer, family_label<"dest">(v));
    if (src == nullptr || dst == nullptr) return;
    if (src->space != memory_space::vec || dst->space != memory_space::vec) s.fail(v.loc, v.mn, " operands must be Vec buffers");
    if (src->shape[0] != 1 || src->shape[1] != dst->shape[1] || src->dt != dst->dt)
      s.fail(v.loc, v.mn, " source must be a [1, C] row with the destination's columns and dtype");
  }
};

/// buffer.col_expand_<op>: source and destination share one descriptor; `vector` a Vec [1, C] row.
template <opcode C, class V>
  requires(is_buffer_op(C) && family_of(C) == op_family::col_broadcast_arith)
struct op_rule<C, V> : model<C> {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::buffer, family_label<"source">(v));
    const type* vec = s.expect(v, family_operand<"vector">(v), type_kind::buffer, family_label<"vector">(v));
    const type* dst = s.expect(v, family_operand<"dest">(v), type_kind::buffer, family_label<"dest">(v));
    if (src == nullptr || vec == nullptr || dst == nullptr) return;
    if (!(*src == *dst)) s.fail(v.loc, v.mn, " operands must have descriptors identical to the destination");
    if (vec->space != memory_space::vec || vec->shape[0] != 1 || vec->shape[1] != dst->shape[1] || vec->dt != dst->dt)
      s.fail(v.loc, v.mn, " vector must be a Vec [1, C] row with the destination's columns and dtype");
  }
};

/// buffer.row_expand_<op>: source and destination share one descriptor; `blk` is a Vec
/// block of the source's rows and dtype (its first column is each row's value).
template <class = void>
struct buffer_row_expand_arith_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* src = s.expect(v, family_operand<"source">(v), type_kind::buffer, family_label<"source">(v));
    const type* blk = s.expect(v, family_operand<"blk">(v), type_kind::buffer, family_label<"blk">(v));
    const type* dst = s.expect(v, family_operand<"dest">(v), type_kind::buffer, family_label<"dest">(v));
    if (src == nullptr || blk == nullptr || dst == nullptr) return;
    if (!(*src == *dst)) s.fail(v.loc, v.mn, " operands must have descriptors identical to the destination");
    if (blk->space != memory_space::vec || blk->shape[0] != dst->shape[0] || blk->dt != dst->dt)
      s.fail(v.loc, v.mn, " blk must be a Vec block with the destination's rows and dtype");
  }
};
template <opcode C, class V>
  requires(is_buffer_op(C) && family_of(C) == op_family::row_broadcast_arith)
struct op_rule<C, V> : buffer_row_expand_arith_rule<V> {};

/// Elementwise Buffer ops (and buffer.full): inputs..., destination; every buffer input is the
/// destination's descriptor.
template <class = void>
struct buffer_elementwise_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const ew_kind ew = info(v.code).ew;
    const type* dst = s.type_of(family_operand<"dest">(v));
    if (dst == nullptr || !dst->is_buffer() || dst->space != memory_space::vec) {
      s.fail(v.loc, v.mn, " destination must be a Vec buffer");
      return;
    }
    if (ew == ew_kind::fill) {
      if (!s.scalar_operand(family_operand<"value">(v))) s.fail(v.loc, v.mn, " value must be a scalar");
      return;
    }
    const auto same_as_dest = [&](const operand& o) {
      const type* t = s.type_of(o);
      return t != nullptr && *t == *dst;
    };
    const bool identical = ew == ew_kind::binary
                               ? same_as_dest(family_operand<"lhs">(v)) && same_as_dest(family_operand<"rhs">(v))
                               : same_as_dest(family_operand<"source">(v));
    if (!identical) s.fail(v.loc, v.mn, " operands must have descriptors identical to the destination");
    if (ew == ew_kind::scalar_form && !s.scalar_operand(family_operand<"scalar">(v)))
      s.fail(v.loc, v.mn, ' ', family_label<"scalar">(v), " must be a scalar");
    if (!info(v.code).scratch.empty()) unary_scratch_check(s, v, type_kind::buffer, dst);
  }
};
template <opcode C, class V>
  requires(is_buffer_op(C) && info(C).ew != ew_kind::none)
struct op_rule<C, V> : buffer_elementwise_rule<V> {};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
