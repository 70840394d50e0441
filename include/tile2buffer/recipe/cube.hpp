// SPDX-License-Identifier: Apache-2.0
/// @file recipe/cube.hpp
/// The cube recipes (reference §2.6, §5.6 steps 13-15): tile.extract (Mat -> Left/Right),
/// tile.transpose_view (a storage-preserving relabel: nothing to emit), tile.matmul and
/// tile.matmul_acc (an `init_cond` literal picks the call, a runtime one becomes an `if` with one
/// call in each arm). GM loads into Mat, Mat -> Left/Right moves and Acc stores are the transfer
/// recipes' (recipe/transfer.hpp); matrix allocations are lower_alloc's.
#pragma once

#include <span>
#include <utility>

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/recipe/common.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {


/// The layout that reads a boxed descriptor's bytes as its transpose (reference §9.1: an NZ
/// [R, C] tile and a ZN [C, R] tile over the same bytes are transposes): both box orders flip.
constexpr type transposed_layout(type t) {
  const auto flip = [](box_layout l) {
    return l == box_layout::row_major ? box_layout::col_major : l == box_layout::col_major ? box_layout::row_major : l;
  };
  t.blayout = flip(t.blayout);
  t.slayout = flip(t.slayout);
  t.shape = {t.shape[1], t.shape[0]};
  t.valid = {t.valid[1], t.valid[0]};
  return t;
}

/// An element offset operand of extract: a nonnegative literal or a signed integer/INDEX scalar.
constexpr text offset_problem(const function& f, const operand& x) {
  if (x.kind == operand_kind::int_lit) return x.num >= 0 ? text{} : text("tile.extract offsets must be nonnegative");
  if (x.is_value() && f.type_of(x.value()).is_scalar() && is_signed_integer(f.type_of(x.value()).dt)) return {};
  return text("tile.extract offsets must be nonnegative integer literals or signed integer/INDEX scalars");
}

/// The rules every cube product obeys (reference §2.6), on the Tile operands of a matmul whose
/// result is `acc`: Left x Right -> Acc matrix tiles, one operand dtype and its accumulator dtype,
/// [M, K] x [K, N] -> [M, N], enough rhs rows for the lhs columns, and a product that fits the
/// accumulator's valid rectangle (a wider accumulator is written through a product view).
constexpr text cube_problem(const type* lhs, const type* rhs, const type& acc) {
  if (lhs == nullptr || rhs == nullptr) return text("matmul operands must be Tile values");
  const std::pair<const type*, memory_space> roles[] = {
      {lhs, memory_space::left}, {rhs, memory_space::right}, {&acc, memory_space::acc}};
  for (const auto& [t, space] : roles) {
    if (t->space != space)
      return text("matmul operands must be Left x Right -> Acc, got ")
             << name(lhs->space) << " x " << name(rhs->space) << " -> " << name(acc.space);
    if (auto why = matrix_tile_problem(*t); !why.empty()) return why;
  }
  if (lhs->dt != rhs->dt || !cube_operand_allows(lhs->dt) || acc.dt != accumulator_dtype(lhs->dt))
    return text("matmul needs one operand dtype accumulating in FP32 (FP16/BF16/FP32) or INT32 (INT8), got ")
           << name(lhs->dt) << " x " << name(rhs->dt) << " -> " << name(acc.dt);
  if (lhs->shape[1] != rhs->shape[0] || acc.shape[0] != lhs->shape[0] || acc.shape[1] != rhs->shape[1])
    return text("matmul shapes must be [M, K] x [K, N] -> [M, N]");
  if (rhs->valid[0].number < lhs->valid[1].number) return text("matmul rhs valid rows must cover the lhs valid columns");
  if (lhs->valid[0].number > acc.valid[0].number || rhs->valid[1].number > acc.valid[1].number)
    return text("the matmul product [") << lhs->valid[0].number << ", " << rhs->valid[1].number
                                        << "] exceeds the accumulator's valid extents";
  return {};
}

/// Emits the product write of matmul `o` (result `res`): `buffer.matmul` when `init`, else
/// `buffer.matmul_acc`, into the product view when there is one.
constexpr void emit_product(lowering& l, op_id o, value_id res, operand lhs, operand rhs, bool init, location loc) {
  const value_id view = l.product_view(o);
  const value_id dst = view.valid() ? view : l.handle(res);
  const value_id a = l.handle(lhs.value()), c = l.handle(rhs.value());
  if (init) l.builder().create<buffer::matmul>({.lhs = a, .rhs = c, .dest = dst}, loc);
  else l.builder().create<buffer::matmul_acc>({.lhs = a, .rhs = c, .dest = dst}, loc);
}

}  // namespace detail

struct lower_extract {
  using source = tile::extract;
  static constexpr std::string_view name = "lower-extract";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(typed<tile::extract> op, const match_context&) {
    const type* src = op.tile_type(op.source());
    const type& dst = op.result_type();
    if (src == nullptr) return match_result::no(text("tile.extract needs a Tile source"));
    if (src->space != memory_space::mat || (dst.space != memory_space::left && dst.space != memory_space::right))
      return match_result::no(text("tile.extract from ")
                              << tile2buffer::name(src->space) << " to " << tile2buffer::name(dst.space)
                              << " has no Buffer recipe (Mat -> Left/Right only)");
    if (auto why = matrix_tiles_problem({src, &dst}); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (src->dt != dst.dt) return match_result::no(text("tile.extract keeps the element type"));
    for (const operand& x : {op.row(), op.col()})
      if (auto why = detail::offset_problem(op.fn(), x); !why.empty()) return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::extract> op, lowering& l) {
    l.builder().create<buffer::extract>({.source = l.handle(op.source().value()),
                                         .row = built(l.rw().map(op.row())),
                                         .col = built(l.rw().map(op.col())),
                                         .dest = l.handle(op.result())},
                                        op.loc());
  }
};

/// tile.transpose_view relabels a matrix window in place: the storage index already declared the
/// transposed descriptor (an alias allocation at the same address, or a PTOAS reshape).
struct lower_transpose_view {
  using source = tile::transpose_view;
  static constexpr std::string_view name = "lower-transpose-view";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(typed<tile::transpose_view> op, const match_context&) {
    const type* src = op.tile_type(op.source());
    const type& dst = op.result_type();
    if (src == nullptr) return match_result::no(text("tile.transpose_view needs a Tile source"));
    if (!is_matrix_space(src->space))
      return match_result::no(text("tile.transpose_view of a ")
                              << tile2buffer::name(src->space)
                              << " tile needs a transpose recipe (only matrix relabels preserve storage)");
    if (auto why = matrix_tiles_problem({src, &dst}); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (!(detail::transposed_layout(*src) == dst))
      return match_result::no(
          text("tile.transpose_view must relabel its source in place: the result is the source's transposed layout "
               "(both box orders flipped, shape and valid extents swapped) in the same memory space"));
    if (op.storage_of(op.source()) != op.result_storage())
      return match_result::no(text("tile.transpose_view must keep its source's storage window"));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::transpose_view>, lowering&) {}
};

struct lower_matmul {
  using source = tile::matmul;
  static constexpr std::string_view name = "lower-matmul";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr std::span<const dtype> dtypes = cube_operand_dtypes;
  static constexpr match_result match(typed<tile::matmul> op, const match_context&) {
    if (auto why = detail::cube_problem(op.tile_type(op.lhs()), op.tile_type(op.rhs()), op.result_type()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::matmul> op, lowering& l) {
    detail::emit_product(l, op.id(), op.result(), op.lhs(), op.rhs(), true, op.loc());
  }
};

/// tile.matmul_acc accumulates in place: its accumulator and result share one storage window
/// (an Acc input cannot be preserved by a copy). `init_cond` selects the write: absent or a
/// false literal accumulates, a true literal initializes, a runtime predicate chooses per run.
struct lower_matmul_acc {
  using source = tile::matmul_acc;
  static constexpr std::string_view name = "lower-matmul-acc";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr std::span<const dtype> dtypes = cube_operand_dtypes;
  static constexpr match_result match(typed<tile::matmul_acc> op, const match_context&) {
    const type& res = op.result_type();
    if (auto why = detail::cube_problem(op.tile_type(op.lhs()), op.tile_type(op.rhs()), res); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    const type* acc = op.tile_type(op.acc());
    if (acc == nullptr) return match_result::no(text("tile.matmul_acc needs a Tile accumulator"));
    if (op.storage_of(op.acc()) != op.result_storage() || !op.result_storage().valid())
      return match_result::no(text("the accumulator '")
                              << op.fn().name_of(op.acc().value())
                              << "' is not updated in place (its storage is read afterwards or the result lives "
                                 "elsewhere), and an Acc value cannot be preserved by a copy (no Acc -> Acc move): "
                                 "tile.matmul_acc must accumulate in place");
    if (const auto init = op.init_cond()) {
      const bool literal = init->kind == operand_kind::bool_lit || init->kind == operand_kind::int_lit;
      const bool scalar =
          init->is_value() && op.fn().type_of(init->value()).is_scalar() &&
          (op.fn().type_of(init->value()).dt == dtype::bool_ || is_signed_integer(op.fn().type_of(init->value()).dt));
      if (!literal && !scalar) return match_result::no(text("init_cond must be a literal, a BOOL or a signed integer scalar"));
    }
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::matmul_acc> op, lowering& l) {
    const auto init = op.init_cond();
    if (!init || init->kind == operand_kind::bool_lit || init->kind == operand_kind::int_lit) {
      detail::emit_product(l, op.id(), op.result(), op.lhs(), op.rhs(), init && init->num != 0, op.loc());
      return;
    }
    auto& b = l.builder();
    operand cond = l.rw().map(*init);
    if (l.source().type_of(init->value()).dt != dtype::bool_)
      cond = operand::of(b.create<scalar::ne>({.lhs = built(cond), .rhs = 0}, scalar_type(dtype::bool_), {}, op.loc()));
    const region_id then = b.reserve_regions(2);
    for (std::uint32_t arm = 0; arm < 2; ++arm) {
      b.open_region(region_id{then.index + arm}, {}, {});
      detail::emit_product(l, op.id(), op.result(), op.lhs(), op.rhs(), arm == 0, op.loc());
      b.close_region();
    }
    b.create<cf::if_>({.cond = built(cond)}, then, {}, {}, op.loc());
  }
};

}  // namespace v0
}  // namespace tile2buffer
