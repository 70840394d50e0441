// SPDX-License-Identifier: Apache-2.0
/// @file recipe_source_not_tile_op_ok.cpp
/// Twin: the same recipe with its Tile source is accepted.
#include "host_recipes.hpp"

using tile_sourced = host::exp_recipe<2, tile2buffer::op_t<tile2buffer::opcode::tile_exp>>;
struct my_recipes : tile2buffer::with_recipes<tile2buffer::default_recipes, tile_sourced> {};
auto lowered(const tile2buffer::program& p) { return host::lower_with<my_recipes>(p); }
