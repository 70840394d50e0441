// SPDX-License-Identifier: Apache-2.0
/// @file recipe_source_not_tile_op.cpp
/// A recipe whose source is a Buffer op is named in the first error, with the fix.
// EXPECT-FIRST-ERROR: recipe_source_is_not_a_tile_op<
// EXPECT-FIRST-ERROR: exp_recipe<2
// EXPECT-ERROR: must be a Tile op struct
// EXPECT-ERROR-COUNT: 1
#include "host_recipes.hpp"

using buffer_sourced = host::exp_recipe<2, tile2buffer::op_t<tile2buffer::opcode::buffer_exp>>;
struct my_recipes : tile2buffer::with_recipes<tile2buffer::default_recipes, buffer_sourced> {};
auto lowered(const tile2buffer::program& p) { return host::lower_with<my_recipes>(p); }
