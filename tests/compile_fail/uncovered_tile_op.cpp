// SPDX-License-Identifier: Apache-2.0
/// @file uncovered_tile_op.cpp
/// A host set that drops tile.exp without saying it stays Tile: the op is named in the first error.
// EXPECT-FIRST-ERROR: uncovered_tile_op<
// EXPECT-FIRST-ERROR: tile_exp
// EXPECT-ERROR: add a recipe for it, or `stays_tile<tile::<op>,
// EXPECT-ERROR-COUNT: 1
#include "host_recipes.hpp"

struct my_recipes : host::default_without<tile2buffer::opcode::tile_exp> {};
auto lowered(const tile2buffer::program& p) { return host::lower_with<my_recipes>(p); }
