// SPDX-License-Identifier: Apache-2.0
/// @file emitter_model_missing.cpp
/// The PTO emitter's rule table checked without `buffer.add`'s row: the one error names the op
/// (the library's own table passes the same check, see the _ok twin).
// EXPECT-ERROR: buffer_op_needs_one_pto_rule<
// EXPECT-ERROR: buffer_add
#include <cstddef>

#include "tile2buffer/emit/pto.hpp"

namespace t2b = tile2buffer;
constexpr auto without_add = [] {
  std::array<t2b::detail::pto_rule, t2b::detail::pto_rules.size() - 1> out{};
  std::size_t n = 0;
  for (const auto& r : t2b::detail::pto_rules)
    if (r.op != t2b::opcode::buffer_add) out[n++] = r;
  return out;
}();
static_assert(t2b::detail::pto_rules_cover_buffer_ops<t2b::detail::first_buffer_op_without_rule(without_add)>());
