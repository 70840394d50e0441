// SPDX-License-Identifier: Apache-2.0
/// @file ir_op_not_trivially_copyable_ok.cpp
/// Twin: the same op with its scratch data kept out of the struct (as the pools do) is an ir_op.
#include "tile2buffer/ir/op.hpp"

struct pooled_op {
  static constexpr tile2buffer::opcode code = tile2buffer::opcode::tile_add;
  tile2buffer::span32 args;
  tile2buffer::span32 kwargs;
  tile2buffer::span32 scratch;
};
static_assert(tile2buffer::ir_op<pooled_op>, "op_owning_a_vector_must_not_model_ir_op");
static_assert(tile2buffer::tile_op<pooled_op>);
