// SPDX-License-Identifier: Apache-2.0
/// @file recipes_share_benefit_ok.cpp
/// Twin: with a higher benefit the host recipe is tried first, and the set is accepted.
#include "host_recipes.hpp"

struct my_recipes : tile2buffer::with_recipes<tile2buffer::default_recipes, host::exp_recipe<2>> {};
auto lowered(const tile2buffer::program& p) { return host::lower_with<my_recipes>(p); }
static_assert(tile2buffer::registry<my_recipes>::candidates(tile2buffer::opcode::tile_exp).size() == 2);
