// SPDX-License-Identifier: Apache-2.0
/// @file op_record_family_member_without_native_ok.cpp
/// Twin: the same member naming its PTO op is accepted.
#include "tile2buffer/ir/opcode.hpp"

namespace t2b = tile2buffer;
constexpr auto records = t2b::checked_records(std::array<t2b::op_record, 1>{{
    {.code = t2b::opcode::scalar_const,
     .mnemonic = "buffer.col_prod",
     .dia = t2b::dialect::buffer,
     .operands = "source:v dest:v",
     .family = t2b::op_family::col_reduction,
     .combine = t2b::opcode::tile_mul,
     .native = "pto.tcolprod"},
}});
static_assert(records[0].native == "pto.tcolprod");
