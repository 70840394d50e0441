// SPDX-License-Identifier: Apache-2.0
/// @file recipe_without_source_ok.cpp
/// Twin: the same host recipe naming its source (tile.exp) is accepted.
#include "host_recipes.hpp"

struct my_recipes : tile2buffer::with_recipes<tile2buffer::default_recipes, host::exp_recipe<2>> {};
auto lowered(const tile2buffer::program& p) { return host::lower_with<my_recipes>(p); }
static_assert(tile2buffer::registry<my_recipes>::candidates(tile2buffer::opcode::tile_exp)[0].name == "host-exp");
