// SPDX-License-Identifier: Apache-2.0
/// @file op_record_family_member_without_combine_ok.cpp
/// Twin: the same member naming its combining op (`tile.add`) and its PTO op is accepted.
#include "tile2buffer/ir/opcode.hpp"

namespace t2b = tile2buffer;
constexpr auto records = t2b::checked_records(std::array<t2b::op_record, 1>{{
    {.code = t2b::opcode::scalar_const,
     .mnemonic = "tile.row_expand_add",
     .dia = t2b::dialect::tile,
     .operands = "source:v vector:v blk:v?",
     .family = t2b::op_family::row_broadcast_arith,
     .combine = t2b::opcode::tile_add,
     .native = "pto.trowexpandadd"},
}});
static_assert(records[0].combine == t2b::opcode::tile_add);
