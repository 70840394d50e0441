// SPDX-License-Identifier: Apache-2.0
/// @file recipe/spmd.hpp
/// SPMD queries: tile.get_block_idx/get_block_num/get_subblock_idx become the buffer.* queries,
/// direct INDEX SSA assignments with no memory effects.
#pragma once

#include "tile2buffer/recipe/common.hpp"

namespace tile2buffer {
inline namespace v0 {

template <opcode C>
struct lower_spmd_query {
  using source = op_t<C>;
  static constexpr std::string_view name = detail::recipe_name<C>::value;
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static_assert(is_spmd_query(C), "lower_spmd_query: not an SPMD query");
  static constexpr match_result match(const function& f, op_id o, const match_context&) {
    const op_node& n = f.op(o);
    if (n.results.count != 1 || !f.args(o).empty() || !f.kwargs_of(o).empty() ||
        f.type_of(f.result(o)) != scalar_type(dtype::index))
      return match_result::no(text("SPMD queries require an SSA result and no operands or kwargs"));
    return match_result::yes();
  }
  static constexpr void rewrite(op_id o, lowering& l) {
    l.rw().emit_as(*buffer_counterpart(C), o, {});
  }
};

}  // namespace v0
}  // namespace tile2buffer
