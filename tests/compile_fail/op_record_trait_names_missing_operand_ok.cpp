// SPDX-License-Identifier: Apache-2.0
/// @file op_record_trait_names_missing_operand_ok.cpp
/// Twin: the same record declaring `target` is accepted.
#include "tile2buffer/ir/opcode.hpp"

namespace t2b = tile2buffer;
constexpr auto records = t2b::checked_records(std::array<t2b::op_record, 1>{{
    {.code = t2b::opcode::scalar_const,
     .mnemonic = "my.accumulate",
     .dia = t2b::dialect::tile,
     .operands = "target:v lhs:v rhs:v",
     .in_place_of = "target",
     .writes = "target"},
}});
static_assert(records[0].writes == "target");
