// SPDX-License-Identifier: Apache-2.0
/// @file ir_op_missing_code.cpp
/// An op struct that does not name its opcode is not an ir_op: dispatch keys on `T::code`.
// EXPECT-ERROR: op_without_code_must_not_model_ir_op
// EXPECT-ERROR: T::code
#include "tile2buffer/ir/op.hpp"

struct anonymous_op {
  tile2buffer::span32 args;
  tile2buffer::span32 kwargs;
};
static_assert(tile2buffer::ir_op<anonymous_op>, "op_without_code_must_not_model_ir_op");
