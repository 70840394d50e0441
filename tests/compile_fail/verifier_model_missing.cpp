// SPDX-License-Identifier: Apache-2.0
/// @file verifier_model_missing.cpp
/// A set of verifier models in which tile.exp has none (its elementwise model is taken away):
/// the table does not compile, and the one error names the op.
// EXPECT-FIRST-ERROR: no_verifier_model<
// EXPECT-FIRST-ERROR: tile_exp
// EXPECT-ERROR: this op has no verifier model
// EXPECT-ERROR-COUNT: 1
#include "tile2buffer/ir/verify.hpp"

namespace t2b = tile2buffer;
template <t2b::opcode C, class V>
struct my_rules : t2b::detail::op_rule<C, V> {};
template <class V>
struct my_rules<t2b::opcode::tile_exp, V> {};
constexpr auto table = t2b::detail::rule_table<my_rules>();
