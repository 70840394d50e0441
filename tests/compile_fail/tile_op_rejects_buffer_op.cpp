// SPDX-License-Identifier: Apache-2.0
/// @file tile_op_rejects_buffer_op.cpp
/// A Buffer op is an ir_op but not a tile_op: the dialect comes from the op catalogue.
// EXPECT-ERROR: buffer_add_must_not_model_tile_op
// EXPECT-ERROR: dialect::tile
#include "tile2buffer/ir/op.hpp"

static_assert(tile2buffer::ir_op<tile2buffer::buffer::add>);
static_assert(tile2buffer::tile_op<tile2buffer::buffer::add>, "buffer_add_must_not_model_tile_op");
