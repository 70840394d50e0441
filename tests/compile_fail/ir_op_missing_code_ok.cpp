// SPDX-License-Identifier: Apache-2.0
/// @file ir_op_missing_code_ok.cpp
/// Twin: the same struct naming its opcode is an ir_op (and a buffer_op, from the catalogue).
#include "tile2buffer/ir/op.hpp"

struct named_op {
  static constexpr tile2buffer::opcode code = tile2buffer::opcode::buffer_copy;
  tile2buffer::span32 args;
  tile2buffer::span32 kwargs;
};
static_assert(tile2buffer::ir_op<named_op>, "op_without_code_must_not_model_ir_op");
static_assert(tile2buffer::buffer_op<named_op> && !tile2buffer::tile_op<named_op>);
