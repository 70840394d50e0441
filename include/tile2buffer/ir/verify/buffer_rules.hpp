// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/buffer_rules.hpp
/// Operand and result type rules of the `buffer.*` ops (reference §2.3-§2.6): the schema of each
/// op, not the storage-provenance proofs of the Buffer IR verifier.
#pragma once

#include <cstdint>

#include "tile2buffer/ir/verify/state.hpp"
#include "tile2buffer/ir/verify/tile_rules.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// buffer.load / buffer.store: GM tensor, rank-2 offsets and extents, one buffer endpoint.
constexpr void check_buffer_transfer(verify_state& s, const op_view& v, bool load) {
  const auto& a = v.args;
  const type* tensor = s.expect(v, load ? a[0] : a[3], type_kind::tensor, load ? "operand 0" : "operand 3");
  const type* buf = s.expect(v, load ? a[3] : a[0], type_kind::buffer, load ? "operand 3" : "operand 0");
  const index_pair off = s.pair(v, a[1], "offsets");
  const index_pair ext = s.pair(v, a[2], "extents");
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

/// Elementwise Buffer ops: inputs..., destination; every buffer input is the destination's descriptor.
constexpr void check_buffer_elementwise(verify_state& s, const op_view& v) {
  const ew_kind ew = info(v.code).ew;
  const operand& dst_op = v.args[v.args.size() - 1];
  const type* dst = s.type_of(dst_op);
  if (dst == nullptr || !dst->is_buffer() || dst->space != memory_space::vec) {
    s.fail(v.loc, v.mn, " destination must be a Vec buffer");
    return;
  }
  if (ew == ew_kind::fill) {
    if (!s.scalar_operand(v.args[0])) s.fail(v.loc, v.mn, " value must be a scalar");
    return;
  }
  const std::size_t buffers = ew == ew_kind::binary ? 2 : 1;
  bool identical = true;
  for (std::size_t i = 0; i < buffers; ++i) {
    const type* t = s.type_of(v.args[i]);
    identical = identical && t != nullptr && *t == *dst;
  }
  if (!identical) s.fail(v.loc, v.mn, " operands must have descriptors identical to the destination");
  if (ew == ew_kind::scalar_form && !s.scalar_operand(v.args[1])) s.fail(v.loc, v.mn, " operand 1 must be a scalar");
}

constexpr void check_buffer_op(verify_state& s, const op_view& v) {
  const auto& a = v.args;
  switch (v.code) {
    case opcode::buffer_alloc: {
      const type* r = s.expect_result(v, type_kind::buffer);
      if (r == nullptr) return;
      const auto valid = s.elements(a[0]);
      const std::size_t runtime = (r->valid[0].is_runtime() ? 1u : 0u) + (r->valid[1].is_runtime() ? 1u : 0u);
      if (valid.size() != runtime) s.fail(v.loc, v.mn, " valid tuple must have one entry per runtime ('?') dim");
      for (const auto& e : valid)
        if (!s.integer_operand(e) || (e.kind == operand_kind::int_lit && e.num < 0)) {
          s.fail(v.loc, v.mn, " valid extents must be nonnegative integer scalars");
          break;
        }
      if (a.size() > 1 && (!s.integer_operand(a[1]) || (a[1].kind == operand_kind::int_lit && a[1].num < 0)))
        s.fail(v.loc, v.mn, " requires nonnegative placed addresses: its address must be a nonnegative integer");
      return;
    }
    case opcode::buffer_set_validshape: {
      const type* buf = s.expect(v, a[0], type_kind::buffer, "operand 0");
      const index_pair p = s.pair(v, a[1], "valid extents");
      if (buf == nullptr || !p.ok) return;
      // A view's valid extents are fixed where it is defined (reference §4.4): a metadata update
      // of a subview or reshape result would not reach the allocation it reads.
      if (const value_info& h = s.f.values[a[0].value().index]; h.origin() == value_origin::result && h.def.index < s.f.ops.size())
        if (const opcode d = s.f.ops[h.def.index].code(); d == opcode::buffer_subview || d == opcode::buffer_reshape)
          s.fail(v.loc, v.mn, " cannot mutate static view metadata: '", s.label(a[0].value()), "' is a ", mnemonic(d), " result");
      if (!within(p, buf->shape)) s.fail(v.loc, v.mn, " valid extents must fit the buffer shape");
      for (std::size_t i = 0; i < 2; ++i)
        if (buf->valid[i].is_static() && (!p.known[i] || p.num[i] != buf->valid[i].number)) {
          s.fail(v.loc, v.mn, " static dims must be passed as the same constant");
          break;
        }
      return;
    }
    case opcode::buffer_load: check_buffer_transfer(s, v, true); return;
    case opcode::buffer_store: check_buffer_transfer(s, v, false); return;
    case opcode::buffer_copy: {
      const type* src = s.expect(v, a[0], type_kind::buffer, "operand 0");
      const type* dst = s.expect(v, a[1], type_kind::buffer, "operand 1");
      if (src == nullptr || dst == nullptr) return;
      if (src->shape != dst->shape || src->dt != dst->dt || src->valid != dst->valid)
        s.fail(v.loc, v.mn, " source and destination must have the same shape, dtype and valid extents");
      else if (src->space == memory_space::vec && dst->space == memory_space::vec && *src != *dst)
        s.fail(v.loc, v.mn, " between Vec buffers requires identical descriptors");
      const bool vec = src->space == memory_space::vec && dst->space == memory_space::vec;
      const bool mte1 =
          src->space == memory_space::mat && (dst->space == memory_space::left || dst->space == memory_space::right);
      if (!vec && !mte1) s.fail(v.loc, v.mn, " supports Vec -> Vec and Mat -> Left/Right only");
      return;
    }
    case opcode::buffer_subview: {
      const type* src = s.expect(v, a[0], type_kind::buffer, "operand 0");
      const index_pair off = s.pair(v, a[1], "offsets");
      const index_pair val = a.size() > 2 ? s.pair(v, a[2], "valid extents") : index_pair{};
      const type* r = s.expect_result(v, type_kind::buffer);
      if (r == nullptr) return;
      if (a.size() <= 2 && (r->valid[0].is_runtime() || r->valid[1].is_runtime()))
        s.fail(v.loc, v.mn, " with runtime valid extents requires a valid tuple");
      for (std::size_t i = 0; i < 2 && val.ok; ++i)
        if (r->valid[i].is_static() && (!val.known[i] || val.num[i] != r->valid[i].number)) {
          s.fail(v.loc, v.mn, " valid entries for static dims must equal the descriptor");
          break;
        }
      if (src == nullptr) return;
      if (src->dt != r->dt || src->space != r->space)
        s.fail(v.loc, v.mn, " result must have the source's dtype and memory space");
      if (r->shape[0] > src->shape[0] || r->shape[1] > src->shape[1])
        s.fail(v.loc, v.mn, " result dims must not exceed the source dims");
      else if (off.ok && (!nonnegative(off) || !static_fits(off, r->shape, src->shape)))
        s.fail(v.loc, v.mn, " offsets must keep the window within the source");
      return;
    }
    case opcode::buffer_reshape: {
      const type* src = s.expect(v, a[0], type_kind::buffer, "operand 0");
      const type* r = s.expect_result(v, type_kind::buffer);
      if (src == nullptr || r == nullptr) return;
      if (src->bytes() != r->bytes()) s.fail(v.loc, v.mn, " must preserve the total bytes");
      if (src->space != r->space) s.fail(v.loc, v.mn, " must keep the memory space");
      return;
    }
    case opcode::buffer_extract: {
      const type* src = s.expect(v, a[0], type_kind::buffer, "operand 0");
      const type* dst = s.expect(v, a[3], type_kind::buffer, "operand 3");
      if (!s.integer_operand(a[1]) || !s.integer_operand(a[2])) {
        s.fail(v.loc, v.mn, " offsets must be integer scalars");
        return;
      }
      if (src == nullptr || dst == nullptr) return;
      if (src->dt != dst->dt) s.fail(v.loc, v.mn, " destination dtype must equal the source dtype");
      const bool mte1 = src->space == memory_space::mat && (dst->space == memory_space::left || dst->space == memory_space::right);
      if (!mte1 && !(src->space == memory_space::vec && dst->space == memory_space::vec))
        s.fail(v.loc, v.mn, " supports Mat -> Left/Right and Vec -> Vec only");
      const index_pair off{
          true, {a[1].kind == operand_kind::int_lit, a[2].kind == operand_kind::int_lit}, {a[1].num, a[2].num}};
      if (dst->shape[0] > src->shape[0] || dst->shape[1] > src->shape[1] || !nonnegative(off) ||
          !static_fits(off, dst->shape, src->shape))
        s.fail(v.loc, v.mn, " window must lie within the source");
      return;
    }
    case opcode::buffer_matmul:
    case opcode::buffer_matmul_acc:
      check_matmul(s, v, s.expect(v, a[0], type_kind::buffer, "operand 0"),
                   s.expect(v, a[1], type_kind::buffer, "operand 1"),
                   s.expect(v, a[2], type_kind::buffer, "operand 2"));
      return;
    case opcode::buffer_get_block_idx:
    case opcode::buffer_get_block_num:
    case opcode::buffer_get_subblock_idx: {
      const type* r = s.result_type(v);
      if (r == nullptr || !r->is_scalar() || r->dt != dtype::index)
        s.fail(v.loc, v.mn, " result must be Scalar[INDEX]");
      return;
    }
    default:
      if (info(v.code).ew != ew_kind::none) check_buffer_elementwise(s, v);
      return;
  }
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
