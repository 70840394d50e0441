// SPDX-License-Identifier: Apache-2.0
/// @file op_record_trait_names_missing_operand.cpp
/// An op record whose trait names an operand the record does not declare (an in-place writer
/// of `target` with only `lhs` and `rhs`) does not compile; the error names the check.
// EXPECT-ERROR: op_record_trait_names_a_missing_operand
#include "tile2buffer/ir/opcode.hpp"

namespace t2b = tile2buffer;
constexpr auto records = t2b::checked_records(std::array<t2b::op_record, 1>{{
    {.code = t2b::opcode::scalar_const,
     .mnemonic = "my.accumulate",
     .dia = t2b::dialect::tile,
     .operands = "lhs:v rhs:v",
     .in_place_of = "target",
     .writes = "target"},
}});
