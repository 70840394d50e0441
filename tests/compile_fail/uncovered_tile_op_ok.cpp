// SPDX-License-Identifier: Apache-2.0
/// @file uncovered_tile_op_ok.cpp
/// Twin: the same set with a stays-Tile entry for tile.exp is accepted, and selection reads it.
#include "host_recipes.hpp"

namespace t2b = tile2buffer;
struct my_recipes : t2b::with_recipes<host::default_without<t2b::opcode::tile_exp>,
                                      t2b::stays_tile<t2b::op_t<t2b::opcode::tile_exp>, "the host keeps exp on Tile">> {};
auto lowered(const t2b::program& p) { return host::lower_with<my_recipes>(p); }
static_assert(t2b::registry<my_recipes>::stays_tile_reason(t2b::opcode::tile_exp)->reason == "the host keeps exp on Tile");
