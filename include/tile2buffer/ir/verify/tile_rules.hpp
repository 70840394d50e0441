// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/tile_rules.hpp
/// Operand and result type rules of the `tile.*` ops (reference §1.5, §2.4, §2.6). Each rule runs
/// only after the op's operand kinds matched its catalogue signature.
#pragma once

#include <cstdint>

#include "tile2buffer/detail/checked.hpp"
#include "tile2buffer/ir/verify/state.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// `[M, K] x [K, N] -> [M, N]`, Left x Right -> Acc, FP32 (float) or INT32 (integer) accumulation.
/// Shared by tile.matmul[_acc] and buffer.matmul[_acc].
constexpr void check_matmul(verify_state& s, const op_view& v, const type* l, const type* r, const type* acc) {
  if (l == nullptr || r == nullptr || acc == nullptr) return;
  if (l->space != memory_space::left || r->space != memory_space::right || acc->space != memory_space::acc)
    s.fail(v.loc, v.mn, " operands must be Left x Right -> Acc");
  if (l->shape[1] != r->shape[0] || acc->shape[0] != l->shape[0] || acc->shape[1] != r->shape[1])
    s.fail(v.loc, v.mn, " shapes must be [M, K] x [K, N] -> [M, N]");
  if (l->dt != r->dt) {
    s.fail(v.loc, v.mn, " operands must have the same dtype");
  } else {
    const dtype want = is_float(l->dt) ? dtype::fp32 : dtype::int32;
    if (acc->dt != want)
      s.fail(v.loc, v.mn, " accumulator dtype must be FP32 for float operands and INT32 for integer operands");
  }
}

/// Elementwise Tile ops: every tile operand and the result agree on dtype and space. Physical
/// shapes and valid extents may differ: such a kernel is valid Tile IR that does not qualify for
/// lowering ("matching valid extents alone do not qualify"), so selection keeps it Tile with a reason.
constexpr void check_tile_elementwise(verify_state& s, const op_view& v) {
  const ew_kind ew = info(v.code).ew;
  const type* r = s.expect_result(v, type_kind::tile);
  const std::size_t tiles = ew == ew_kind::binary ? 2 : 1;
  bool dtype_ok = true, space_ok = true;
  for (std::size_t i = 0; i < tiles; ++i) {
    const type* a = s.expect(v, v.args[i], type_kind::tile, i == 0 ? "operand 0" : "operand 1");
    if (a == nullptr || r == nullptr) continue;
    dtype_ok = dtype_ok && a->dt == r->dt;
    space_ok = space_ok && a->space == r->space;
  }
  if (!dtype_ok) s.fail(v.loc, v.mn, " operands must have matching dtypes");
  if (!space_ok) s.fail(v.loc, v.mn, " operands must be in the same memory space");
  if (ew == ew_kind::scalar_form && !s.scalar_operand(v.args[1])) s.fail(v.loc, v.mn, " operand 1 must be a scalar");
}

constexpr bool static_fits(const index_pair& off, const std::array<std::int64_t, 2>& extent,
                           const std::array<std::int64_t, 2>& bound) {
  for (std::size_t i = 0; i < 2; ++i)
    if (off.known[i] && sum_exceeds(off.num[i], extent[i], bound[i])) return false;
  return true;
}
constexpr bool nonnegative(const index_pair& p) {
  return !(p.known[0] && p.num[0] < 0) && !(p.known[1] && p.num[1] < 0);
}
/// Static entries of `p` lie in [0, bound].
constexpr bool within(const index_pair& p, const std::array<std::int64_t, 2>& bound) {
  for (std::size_t i = 0; i < 2; ++i)
    if (p.known[i] && (p.num[i] < 0 || p.num[i] > bound[i])) return false;
  return true;
}
/// The static valid extents of a shaped type (unknown entries count as the physical extent).
constexpr std::array<std::int64_t, 2> static_extent(const type& t) {
  return {t.valid[0].is_static() ? t.valid[0].number : t.shape[0],
          t.valid[1].is_static() ? t.valid[1].number : t.shape[1]};
}
/// GM store endpoint dtypes: identical, or the fix-pipe's unscaled FP32 -> FP16/BF16 from Acc.
/// A quantizing or relu store (`fixpipe_converts`) converts an Acc tile to any tensor dtype:
/// valid Tile IR, which stays Tile until a transfer recipe exists.
constexpr bool store_dtype_ok(const type& src, const type& tensor, bool fixpipe_converts = false) {
  if (fixpipe_converts && src.space == memory_space::acc) return true;
  return src.dt == tensor.dt || (src.space == memory_space::acc && src.dt == dtype::fp32 &&
                                 (tensor.dt == dtype::fp16 || tensor.dt == dtype::bf16));
}
/// `pre_quant` or `pre_relu` is given and not a literal false or 0 (a runtime value counts).
constexpr bool fixpipe_converts(std::span<const kwarg> kws) {
  for (const kwarg& kw : kws)
    if ((kw.key == keyword::pre_quant || kw.key == keyword::pre_relu) && !(kw.value.is_literal() && kw.value.num == 0)) return true;
  return false;
}

constexpr void check_tile_op(verify_state& s, const op_view& v) {
  const auto& a = v.args;
  switch (v.code) {
    case opcode::tile_alloc: {
      s.expect_result(v, type_kind::mem);
      if (a[1].kind != operand_kind::int_lit || a[1].num <= 0)
        s.fail(v.loc, "planned ", v.mn, " capacity must be a positive static byte count");
      for (const auto& kw : v.kws)
        if (kw.key == keyword::addr && (kw.value.kind != operand_kind::int_lit || kw.value.num < 0))
          s.fail(v.loc, v.mn, " requires nonnegative placed addresses: addr must be a nonnegative integer literal");
      return;
    }
    case opcode::tile_create: s.expect_result(v, type_kind::tile); return;
    case opcode::tile_full:
      s.expect_result(v, type_kind::tile);
      if (!s.scalar_operand(a[0])) s.fail(v.loc, v.mn, " value must be a scalar");
      return;
    case opcode::tile_load: {
      const type* src = s.expect(v, a[0], type_kind::tensor, "operand 0");
      const type* r = s.expect_result(v, type_kind::tile);
      const index_pair off = s.pair(v, a[1], "offsets");
      const index_pair ext = s.pair(v, a[2], "extents");
      const index_pair val = a.size() > 3 ? s.pair(v, a[3], "valid extents") : index_pair{};
      if (src != nullptr && r != nullptr && src->dt != r->dt)
        s.fail(v.loc, v.mn, " result dtype must equal the tensor dtype");
      if (off.ok && !nonnegative(off)) s.fail(v.loc, v.mn, " offsets must be nonnegative");
      if (r == nullptr || !ext.ok) return;
      // One reading (spec, example 05): the shape operand is the physical window, and what is
      // read from GM is Valid(result); a fourth operand restates those valid extents.
      if (!ext.known[0] || !ext.known[1] || ext.num != r->shape)
        s.fail(v.loc, v.mn, " shape operand must equal the tile's physical shape (the valid extents come from the result type)");
      if (val.ok) {
        const auto e = s.elements(a[3]);
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
      return;
    }
    case opcode::tile_store: {
      const type* t = s.expect(v, a[0], type_kind::tile, "operand 0");
      const index_pair off = s.pair(v, a[1], "offsets");
      const type* dst = s.expect(v, a[2], type_kind::tensor, "operand 2");
      if (dst == nullptr) return;
      const type* r = s.result_type(v);
      if (r == nullptr || !same_type(*r, *dst))
        s.fail(v.loc, v.mn, " result type must equal the tensor operand's type");
      if (t == nullptr) return;
      if (!store_dtype_ok(*t, *dst, fixpipe_converts(v.kws))) s.fail(v.loc, v.mn, " tile dtype must match the tensor dtype");
      if (off.ok && !nonnegative(off)) s.fail(v.loc, v.mn, " offsets must be nonnegative");
      if (off.ok && !static_fits(off, static_extent(*t), dst->shape))
        s.fail(v.loc, v.mn, " window must lie within the tensor");
      return;
    }
    case opcode::tile_move: {
      const type* src = s.expect(v, a[0], type_kind::tile, "operand 0");
      const type* r = s.expect_result(v, type_kind::tile);
      if (src != nullptr && r != nullptr && (src->shape != r->shape || src->dt != r->dt))
        s.fail(v.loc, v.mn, " result must have the source's shape and dtype");
      return;
    }
    case opcode::tile_reshape: {
      const type* src = s.expect(v, a[0], type_kind::tile, "operand 0");
      const index_pair shape = s.pair(v, a[1], "shape");
      const type* r = s.expect_result(v, type_kind::tile);
      if (src == nullptr || r == nullptr) return;
      if (shape.ok && (!shape.known[0] || !shape.known[1] || shape.num != r->shape))
        s.fail(v.loc, v.mn, " shape must be static and equal the result shape");
      if (src->dt != r->dt || src->bytes() != r->bytes())
        s.fail(v.loc, v.mn, " must keep the dtype and the physical bytes");
      return;
    }
    case opcode::tile_reinterpret_view: {
      const type* src = s.expect(v, a[0], type_kind::tile, "operand 0");
      const type* r = s.expect_result(v, type_kind::tile);
      if (src != nullptr && r != nullptr && src->bytes() != r->bytes())
        s.fail(v.loc, v.mn, " must preserve the physical bytes");
      return;
    }
    case opcode::tile_transpose_view: {
      const type* src = s.expect(v, a[0], type_kind::tile, "operand 0");
      const type* r = s.expect_result(v, type_kind::tile);
      if (src != nullptr && r != nullptr &&
          (src->dt != r->dt || r->shape[0] != src->shape[1] || r->shape[1] != src->shape[0]))
        s.fail(v.loc, v.mn, " result must have the transposed shape and the source dtype");
      return;
    }
    case opcode::tile_slice: {
      const type* src = s.expect(v, a[0], type_kind::tile, "operand 0");
      const index_pair shape = s.pair(v, a[1], "shape");
      const index_pair off = s.pair(v, a[2], "offsets");
      const index_pair val = a.size() > 3 ? s.pair(v, a[3], "valid extents") : index_pair{};
      const type* r = s.expect_result(v, type_kind::tile);
      if (r == nullptr) return;
      if (shape.ok && (!shape.known[0] || !shape.known[1] || shape.num != r->shape))
        s.fail(v.loc, v.mn, " shape must be static and equal the result shape");
      if (off.ok && !nonnegative(off)) s.fail(v.loc, v.mn, " offsets must be nonnegative");
      if (val.ok && !within(val, r->shape)) s.fail(v.loc, v.mn, " valid extents must fit the result shape");
      if (src == nullptr) return;
      if (src->dt != r->dt) s.fail(v.loc, v.mn, " result dtype must equal the source dtype");
      if (r->shape[0] > src->shape[0] || r->shape[1] > src->shape[1])
        s.fail(v.loc, v.mn, " shape must fit the source");
      else if (off.ok && !static_fits(off, r->shape, src->shape))
        s.fail(v.loc, v.mn, " window must lie within the source");
      return;
    }
    case opcode::tile_assemble: {
      const type* target = s.expect(v, a[0], type_kind::tile, "operand 0");
      const type* source = s.expect(v, a[1], type_kind::tile, "operand 1");
      const index_pair off = s.pair(v, a[2], "offsets");
      const type* r = s.expect_result(v, type_kind::tile);
      if (target == nullptr) return;
      if (r != nullptr && (r->shape != target->shape || r->dt != target->dt))
        s.fail(v.loc, v.mn, " result must have the target's shape and dtype");
      if (source == nullptr) return;
      if (source->dt != target->dt) s.fail(v.loc, v.mn, " source dtype must equal the target dtype");
      if (off.ok && !nonnegative(off)) s.fail(v.loc, v.mn, " offsets must be nonnegative");
      if (off.ok && !static_fits(off, source->shape, target->shape))
        s.fail(v.loc, v.mn, " source window must lie within the target");
      return;
    }
    case opcode::tile_set_validshape: {
      const type* src = s.expect(v, a[0], type_kind::tile, "operand 0");
      const type* r = s.expect_result(v, type_kind::tile);
      if (!s.integer_operand(a[1]) || !s.integer_operand(a[2])) {
        s.fail(v.loc, v.mn, " extents must be integer scalars");
        return;
      }
      if (src == nullptr || r == nullptr) return;
      if (src->shape != r->shape || src->dt != r->dt)
        s.fail(v.loc, v.mn, " result must have the source's shape and dtype");
      const index_pair p{
          true, {a[1].kind == operand_kind::int_lit, a[2].kind == operand_kind::int_lit}, {a[1].num, a[2].num}};
      if (!within(p, src->shape)) s.fail(v.loc, v.mn, " extents must fit the tile shape");
      // The result's type states the new metadata: each extent restates its operand.
      for (int i = 0; i < 2; ++i) {
        const operand& e = a[1 + static_cast<std::size_t>(i)];
        const extent want = e.kind == operand_kind::int_lit ? extent::of(e.num) : e.is_value() ? extent::of(e.value()) : r->valid[i];
        if (r->valid[i] != want) {
          s.fail(v.loc, v.mn, " result valid extents must restate the operands");
          break;
        }
      }
      return;
    }
    case opcode::tile_extract: {
      const type* src = s.expect(v, a[0], type_kind::tile, "operand 0");
      const type* r = s.expect_result(v, type_kind::tile);
      if (!s.integer_operand(a[1]) || !s.integer_operand(a[2])) {
        s.fail(v.loc, v.mn, " offsets must be integer scalars");
        return;
      }
      if (src == nullptr || r == nullptr) return;
      if (src->dt != r->dt) s.fail(v.loc, v.mn, " result dtype must equal the source dtype");
      const index_pair off{
          true, {a[1].kind == operand_kind::int_lit, a[2].kind == operand_kind::int_lit}, {a[1].num, a[2].num}};
      if (!nonnegative(off) || !static_fits(off, r->shape, src->shape))
        s.fail(v.loc, v.mn, " window must lie within the source");
      return;
    }
    case opcode::tile_matmul:
      check_matmul(s, v, s.expect(v, a[0], type_kind::tile, "operand 0"),
                   s.expect(v, a[1], type_kind::tile, "operand 1"), s.expect_result(v, type_kind::tile));
      return;
    case opcode::tile_matmul_acc: {
      const type* acc = s.expect(v, a[0], type_kind::tile, "operand 0");
      const type* r = s.expect_result(v, type_kind::tile);
      if (acc != nullptr && r != nullptr && !same_type(*acc, *r))
        s.fail(v.loc, v.mn, " accumulator must have the result's type");
      check_matmul(s, v, s.expect(v, a[1], type_kind::tile, "operand 1"),
                   s.expect(v, a[2], type_kind::tile, "operand 2"), r);
      for (const auto& kw : v.kws) {
        const bool lit = kw.value.kind == operand_kind::bool_lit || kw.value.kind == operand_kind::int_lit;
        if (kw.key == keyword::init_cond && !lit && !s.bool_operand(kw.value) && !s.integer_operand(kw.value))
          s.fail(v.loc, v.mn, " init_cond must be a BOOL or integer scalar");
      }
      return;
    }
    case opcode::tile_row_sum:
    case opcode::tile_row_max: {
      const type* src = s.expect(v, a[0], type_kind::tile, "operand 0");
      const type* r = s.expect_result(v, type_kind::tile);
      if (src != nullptr && r != nullptr && (r->shape[0] != src->shape[0] || r->shape[1] != 1 || r->dt != src->dt))
        s.fail(v.loc, v.mn, " result must be [R, 1] with the source's rows and dtype");
      return;
    }
    case opcode::tile_get_block_idx:
    case opcode::tile_get_block_num:
    case opcode::tile_get_subblock_idx: {
      const type* r = s.result_type(v);
      if (r == nullptr || !r->is_scalar() || r->dt != dtype::index)
        s.fail(v.loc, v.mn, " result must be Scalar[INDEX]");
      return;
    }
    default:
      if (info(v.code).ew != ew_kind::none) check_tile_elementwise(s, v);
      return;
  }
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
