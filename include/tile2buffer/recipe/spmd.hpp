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
  static constexpr match_result match(typed<source> q, const match_context&) {
    if (q.result_count() != 1 || !q.args().empty() || !q.kwargs().empty() || q.result_type() != scalar_type(dtype::index))
      return match_result::no(text("SPMD queries require an SSA result and no operands or kwargs"));
    return match_result::yes();
  }
  static constexpr void rewrite(typed<source> q, lowering& l) { l.rw().emit_as(*buffer_counterpart(C), q.id(), {}); }
};

}  // namespace v0
}  // namespace tile2buffer
