// SPDX-License-Identifier: Apache-2.0
/// @file op_record_family_member_without_combine.cpp
/// A member of the row-broadcast arithmetic family that does not say which elementwise op it
/// applies (no `combine`) does not compile: the simulator, the recipes and the generator would
/// have nothing to compute it with. The error names the check.
// EXPECT-ERROR: op_record_family_member_without_its_combine_op
#include "tile2buffer/ir/opcode.hpp"

namespace t2b = tile2buffer;
constexpr auto records = t2b::checked_records(std::array<t2b::op_record, 1>{{
    {.code = t2b::opcode::scalar_const,
     .mnemonic = "tile.row_expand_add",
     .dia = t2b::dialect::tile,
     .operands = "source:v vector:v blk:v?",
     .family = t2b::op_family::row_broadcast_arith,
     .native = "pto.trowexpandadd"},
}});
