// SPDX-License-Identifier: Apache-2.0
/// @file recipe/transfer.hpp
/// Storage and transfer recipes: tile.alloc, tile.create, tile.load, tile.store, tile.move (Vec->Vec).
#pragma once

#include "tile2buffer/recipe/common.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {
constexpr bool kwarg_is_set(const function& f, op_id o, keyword k) {
  const auto v = f.kwarg_of(o, k);
  return v && !(v->is_literal() && v->num == 0);
}
/// Ordinary packed ND GM tensor: ND layout and, when strides are given, exactly [cols, 1].
constexpr text gm_problem(const type& t) {
  if (!t.is_tensor()) return text("expected a GM tensor operand");
  if (t.tlayout != tensor_layout::nd || (t.has_stride && (t.stride[0] != t.shape[1] || t.stride[1] != 1)))
    return text("only ordinary packed ND GM tensors have a transfer recipe");
  return {};
}
}  // namespace detail

/// tile.alloc: the allocation's Buffer definitions replace it (lowering::emit_allocation).
struct lower_alloc {
  using source = tile::alloc;
  static constexpr std::string_view name = "lower-alloc";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(const function&, op_id, const match_context&) { return match_result::yes(); }
  static constexpr void rewrite(op_id o, lowering& l) { l.emit_allocation(o); }
};

/// tile.create: nothing to emit; its handle was declared with its allocation.
struct lower_create {
  using source = tile::create;
  static constexpr std::string_view name = "lower-create";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(const function& f, op_id o, const match_context&) {
    const type& t = f.type_of(f.result(o));
    if (auto why = dense_vec_problem(t); !why.empty()) return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }
  static constexpr void rewrite(op_id, lowering&) {}
};

struct lower_load {
  using source = tile::load;
  static constexpr std::string_view name = "lower-load";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(const function& f, op_id o, const match_context&) {
    const type& dst = f.type_of(f.result(o));
    if (auto why = dense_vec_problem(dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (auto why = detail::static_valid_problem(dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    const auto args = f.args(o);
    if (!args[0].is_value()) return match_result::no(text("tile.load needs a GM tensor value"));
    const type& gm = f.type_of(args[0].value());
    if (auto why = detail::gm_problem(gm); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (gm.dt != dst.dt || !gm_transfer_allows(dst.dt))
      return match_result::no(text("GM load requires matching FP16/BF16/FP32/INT32 element types, got ")
                              << tile2buffer::name(gm.dt) << " -> " << tile2buffer::name(dst.dt));
    if (detail::kwarg_is_set(f, o, keyword::cache)) return match_result::no(text("cache-policy loads require a Buffer transfer recipe"));
    const auto ext = f.elements(args[2]);
    for (int i = 0; i < 2; ++i)
      if (ext[i].kind != operand_kind::int_lit || ext[i].num != dst.valid[i].number)
        return match_result::no(text("tile.load extents must equal the tile's static valid extents"));
    return match_result::yes();
  }
  static constexpr void rewrite(op_id o, lowering& l) {
    const function& f = l.source();
    const auto args = f.args(o);
    const value_id result = f.result(o);
    const operand ops[] = {l.rw().map(args[0]), l.rw().map(args[1]), l.valid_tuple(result), operand::of(l.handle(result))};
    l.builder().emit(opcode::buffer_load, ops, {}, {}, {}, f.op(o).loc);
  }
};

struct lower_store {
  using source = tile::store;
  static constexpr std::string_view name = "lower-store";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(const function& f, op_id o, const match_context&) {
    const type* src = detail::tile_operand(f, o, 0);
    if (src == nullptr) return match_result::no(text("tile.store needs a Tile source"));
    if (auto why = dense_vec_problem(*src); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (auto why = detail::static_valid_problem(*src); !why.empty()) return match_result::no(static_cast<text&&>(why));
    const auto args = f.args(o);
    if (!args[2].is_value()) return match_result::no(text("tile.store needs a GM tensor value"));
    const type& gm = f.type_of(args[2].value());
    if (auto why = detail::gm_problem(gm); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (gm.dt != src->dt || !gm_transfer_allows(src->dt))
      return match_result::no(text("GM store requires matching FP16/BF16/FP32/INT32 element types, got ")
                              << tile2buffer::name(src->dt) << " -> " << tile2buffer::name(gm.dt));
    if (detail::kwarg_is_set(f, o, keyword::atomic) || detail::kwarg_is_set(f, o, keyword::st_phase))
      return match_result::no(text("atomic and phased stores require a Buffer transfer recipe"));
    if (detail::kwarg_is_set(f, o, keyword::pre_quant) || detail::kwarg_is_set(f, o, keyword::pre_relu))
      return match_result::no(text("pre_quant/pre_relu stores require a Buffer transfer recipe"));
    return match_result::yes();
  }
  static constexpr void rewrite(op_id o, lowering& l) {
    const function& f = l.source();
    const auto args = f.args(o);
    const operand gm = l.rw().map(args[2]);
    const operand ops[] = {operand::of(l.handle(args[0].value())), l.rw().map(args[1]), l.valid_tuple(args[0].value()), gm};
    l.builder().emit(opcode::buffer_store, ops, {}, {}, {}, f.op(o).loc);
    // The store's result is the tensor it wrote: later uses (the return) name the parameter.
    l.rw().bind(f.result(o), gm);
  }
};

struct lower_move {
  using source = tile::move;
  static constexpr std::string_view name = "lower-move";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(const function& f, op_id o, const match_context&) {
    const type& dst = f.type_of(f.result(o));
    const type* src = detail::tile_operand(f, o, 0);
    if (src == nullptr) return match_result::no(text("tile.move needs a Tile source"));
    if (src->space != memory_space::vec || dst.space != memory_space::vec)
      return match_result::no(text("tile.move from ") << tile2buffer::name(src->space) << " to " << tile2buffer::name(dst.space)
                                                      << " needs the cube transfer recipes");
    if (auto why = dense_vec_problem(dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (auto why = detail::static_valid_problem(dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (!detail::same_descriptor(*src, dst))
      return match_result::no(text("tile.move Vec -> Vec requires identical descriptors"));
    return match_result::yes();
  }
  static constexpr void rewrite(op_id o, lowering& l) {
    const function& f = l.source();
    const value_id from = l.handle(f.args(o)[0].value());
    const value_id to = l.handle(f.result(o));
    if (from == to) return;  // an exact self-copy disappears
    l.builder().emit0(opcode::buffer_copy, {operand::of(from), operand::of(to)}, f.op(o).loc);
  }
};

}  // namespace v0
}  // namespace tile2buffer
