// SPDX-License-Identifier: Apache-2.0
/// @file ir_op_not_trivially_copyable.cpp
/// An op struct that owns heap memory is not an ir_op: clang 14 cannot constant-evaluate a
/// variant holding it, so the concept must reject it, and for that reason.
// EXPECT-ERROR: op_owning_a_vector_must_not_model_ir_op
// EXPECT-ERROR: is_trivially_copyable_v
#include <vector>

#include "tile2buffer/ir/op.hpp"

struct owning_op {
  static constexpr tile2buffer::opcode code = tile2buffer::opcode::tile_add;
  tile2buffer::span32 args;
  tile2buffer::span32 kwargs;
  std::vector<int> scratch;
};
static_assert(tile2buffer::ir_op<owning_op>, "op_owning_a_vector_must_not_model_ir_op");
