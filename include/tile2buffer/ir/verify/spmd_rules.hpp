// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/spmd_rules.hpp
/// One model for the SPMD queries of both dialects (the ops whose record has `spmd_query`):
/// the block or subblock index or count, as an INDEX scalar.
#pragma once

#include "tile2buffer/ir/verify/op_rule.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

template <class = void>
struct spmd_query_rule {
  static constexpr void check(verify_state& s, const op_view& v, const enclosing_region&) {
    const type* r = s.result_type(v);
    if (r == nullptr || !r->is_scalar() || r->dt != dtype::index) s.fail(v.loc, v.mn, " result must be Scalar[INDEX]");
  }
};
template <opcode C, class V>
  requires(is_spmd_query(C))
struct op_rule<C, V> : spmd_query_rule<V> {};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
