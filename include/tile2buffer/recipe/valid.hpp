// SPDX-License-Identifier: Apache-2.0
/// @file recipe/valid.hpp
/// tile.set_validshape (reference §5.6 step 7): the result shares its tile's storage and handle;
/// a dynamic handle gets `buffer.set_validshape(handle, (rows, cols))`, a static one needs nothing
/// (its partial valid rectangle was declared with the allocation). Windows never take metadata
/// updates, so a setter on a window stays Tile.
#pragma once

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/recipe/common.hpp"

namespace tile2buffer {
inline namespace v0 {

struct lower_set_validshape {
  using source = tile::set_validshape;
  static constexpr std::string_view name = "lower-set_validshape";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;

  static constexpr match_result match(typed<tile::set_validshape> op, const match_context& ctx) {
    const type& dst = op.result_type();
    const type* src = op.tile_type(op.tile());
    if (src == nullptr) return match_result::no(text("tile.set_validshape needs a Tile operand"));
    if (auto why = dense_vec_problem(dst, ctx.int8_vec()); !why.empty()) return match_result::no(static_cast<text&&>(why));
    const kernel_analyses& k = ctx.kernel();
    if (k.windows.is_window(op.tile().value()))
      return match_result::no(text("tile.set_validshape cannot change a window's static view metadata"));
    if (!dst.has_storage() || dst.mem != src->mem || dst.mem_offset != src->mem_offset)
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

}  // namespace v0
}  // namespace tile2buffer
