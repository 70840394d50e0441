// SPDX-License-Identifier: Apache-2.0
/// @file recipe/valid.hpp
/// tile.set_validshape (reference §5.6 step 7): the result shares its tile's storage and handle;
/// a dynamic handle gets `buffer.set_validshape(handle, (rows, cols))`, a static one needs nothing
/// (its partial valid rectangle was declared with the allocation). Windows never take metadata
/// updates, so a setter on a window stays Tile.
#pragma once

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/recipe/common.hpp"

namespace tile2buffer {
inline namespace v0 {

namespace detail {

/// Why `op` is not an Acc tail lower_acc_tail lowers (below); empty when it is.
constexpr text acc_tail_problem(const typed<tile::set_validshape>& op, const match_context& ctx) {
  const function& f = op.fn();
  const type& dst = op.result_type();
  const type* src = op.tile_type(op.tile());
  if (src == nullptr || src->space != memory_space::acc || dst.space != memory_space::acc)
    return text("tile.set_validshape: not an Acc tail");
  if (auto why = matrix_tile_problem(*src); !why.empty()) return why;
  if (auto why = matrix_descriptor_problem(dst); !why.empty()) return text("the tile ") << why;
  if (!op.result_storage().valid() || op.result_storage() != op.storage_of(op.tile()))
    return text("tile.set_validshape must update its tile's storage in place");
  if (ctx.kernel().windows.is_window(op.tile().value()))
    return text("tile.set_validshape cannot change a window's static view metadata");
  for (int i = 0; i < 2; ++i)
    if (dst.valid[i].is_static() && (dst.valid[i].number <= 0 || dst.valid[i].number > dst.shape[i]))
      return text("an Acc tail's static valid extents must be positive and fit the tile");
  const value_id res = op.result();
  text bad;
  walk(f, [&](op_id x) {
    if (!bad.empty()) return;
    for (const operand& a : f.args(x))
      if (a.is_value() && a.value() == res && f.op(x).code() != opcode::tile_store)
        bad = text("an Acc tail with runtime valid extents is read only by Acc stores (each cuts its view); ")
              << mnemonic(f.op(x).code()) << " reads '" << f.name_of(res) << "'";
  });
  return bad;
}

}  // namespace detail

struct lower_set_validshape {
  using source = tile::set_validshape;
  static constexpr std::string_view name = "lower-set_validshape";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;

  static constexpr match_result match(typed<tile::set_validshape> op, const match_context& ctx) {
    const type& dst = op.result_type();
    const type* src = op.tile_type(op.tile());
    if (src == nullptr) return match_result::no(text("tile.set_validshape needs a Tile operand"));
    // Why here: an Acc tail's own reason, not "Acc is not Vec", is the one to report.
    if (ctx.opts.rollout == rollout_kind::extended && dst.space == memory_space::acc && !dst.static_valid())
      if (auto why = detail::acc_tail_problem(op, ctx); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (auto why = dense_vec_problem(dst, ctx.int8_vec()); !why.empty()) return match_result::no(static_cast<text&&>(why));
    const kernel_analyses& k = ctx.kernel();
    if (k.windows.is_window(op.tile().value()))
      return match_result::no(text("tile.set_validshape cannot change a window's static view metadata"));
    if (!op.result_storage().valid() || op.result_storage() != op.storage_of(op.tile()))
      return match_result::no(text("tile.set_validshape must update its tile's storage in place"));
    if (auto why = detail::dynamic_storage_problem(op.fn(), k, op.result()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }

  static constexpr void rewrite(typed<tile::set_validshape> op, lowering& l) {
    const value_id h = l.handle(op.result());
    // Why: without a handle (its allocation was not lowered) there is nothing to update, and
    // reading its type read outside the function.
    if (!h.valid())
      return l.fail(op.loc(), name,
                    text("the storage of '") << op.fn().name_of(op.result()) << "' has no Buffer handle to update");
    if (l.builder().fn().type_of(h).static_valid()) return;
    l.builder().create<buffer::set_validshape>(
        {.buffer = h, .valid = {built(l.rw().map(op.rows())), built(l.rw().map(op.cols()))}}, op.loc());
  }
};

/// Extended rollout (quantized-path.md §2.6): an accumulator trimmed to runtime valid extents
/// (the batch tail) and stored. Acc descriptors take no metadata update, so the trimmed tile
/// is a view of the accumulator cut at each store inside the store's guard (`buffer.subview`
/// with the runtime valid tuple), like a window with runtime valid extents; the accumulator
/// keeps its static handle for the matmuls.
struct lower_acc_tail {
  using source = tile::set_validshape;
  static constexpr std::string_view name = "lower-acc-tail";
  static constexpr int benefit = 0;
  static constexpr bool default_rollout = false;
  static constexpr match_result match(typed<tile::set_validshape> op, const match_context& ctx) {
    if (op.result_type().static_valid()) return match_result::no(text("tile.set_validshape: not a runtime Acc tail"));
    if (auto why = detail::acc_tail_problem(op, ctx); !why.empty()) return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<tile::set_validshape> op, lowering& l) {
    l.define_window(op.result(), {value_id{}, l.handle(op.tile().value()), l.builder().pair(0, 0), true});
  }
};

}  // namespace v0
}  // namespace tile2buffer
