// SPDX-License-Identifier: Apache-2.0
/// @file tile_op_rejects_buffer_op_ok.cpp
/// Twin: the Tile op of the same mnemonic family models tile_op.
#include "tile2buffer/ir/op.hpp"

static_assert(tile2buffer::ir_op<tile2buffer::tile::add>);
static_assert(tile2buffer::tile_op<tile2buffer::tile::add>, "buffer_add_must_not_model_tile_op");
