// SPDX-License-Identifier: Apache-2.0
/// @file verifier_model_missing_ok.cpp
/// Twin: the same set giving tile.exp a model of its own is accepted, and the table holds it.
#include "tile2buffer/ir/verify.hpp"

namespace t2b = tile2buffer;
template <t2b::opcode C, class V>
struct my_rules : t2b::detail::op_rule<C, V> {};
template <class V>
struct my_rules<t2b::opcode::tile_exp, V> {
  static constexpr void check(t2b::detail::verify_state&, const t2b::detail::op_view&, const t2b::detail::enclosing_region&) {}
};
constexpr auto table = t2b::detail::rule_table<my_rules>();
static_assert(table[static_cast<std::size_t>(t2b::opcode::tile_exp)] == &my_rules<t2b::opcode::tile_exp, void>::check);
static_assert(table[static_cast<std::size_t>(t2b::opcode::tile_add)] ==
              t2b::detail::op_rules<>[static_cast<std::size_t>(t2b::opcode::tile_add)]);
