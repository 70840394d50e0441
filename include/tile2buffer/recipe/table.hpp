// SPDX-License-Identifier: Apache-2.0
/// @file recipe/table.hpp
/// What lowers: the default recipe set — every recipe of the rollout and every Tile op that
/// stays Tile, with its reason — in one place. Hosts extend it with `with_recipes`.
#pragma once

#include "tile2buffer/engine/registry.hpp"
#include "tile2buffer/recipe/alloc.hpp"
#include "tile2buffer/recipe/broadcast.hpp"
#include "tile2buffer/recipe/cube.hpp"
#include "tile2buffer/recipe/elementwise.hpp"
#include "tile2buffer/recipe/reduction.hpp"
#include "tile2buffer/recipe/spmd.hpp"
#include "tile2buffer/recipe/transfer.hpp"
#include "tile2buffer/recipe/valid.hpp"
#include "tile2buffer/recipe/window.hpp"

namespace tile2buffer {
inline namespace v0 {

// Reductions stay Tile by the spec in the default rollout (the stays-Tile entries give its
// reason); the extended rollout lowers them (extended-tier recipes, recipe/reduction.hpp).
// clang-format off
struct default_recipes : recipe_list<
    lower_alloc, lower_create, lower_load, lower_store, lower_column_store, lower_move,
    lower_elementwise<opcode::tile_full>,
    lower_elementwise<opcode::tile_add>, lower_elementwise<opcode::tile_mul>,
    lower_elementwise<opcode::tile_sub>, lower_elementwise<opcode::tile_div>,
    lower_elementwise<opcode::tile_maximum>, lower_elementwise<opcode::tile_minimum>,
    lower_elementwise<opcode::tile_abs>, lower_elementwise<opcode::tile_exp>,
    lower_elementwise<opcode::tile_sqrt>, lower_elementwise<opcode::tile_neg>,
    lower_elementwise<opcode::tile_relu>, lower_elementwise<opcode::tile_log>,
    lower_elementwise<opcode::tile_recip>, lower_elementwise<opcode::tile_rsqrt>,
    lower_elementwise<opcode::tile_adds>, lower_elementwise<opcode::tile_subs>,
    lower_elementwise<opcode::tile_muls>, lower_elementwise<opcode::tile_divs>,
    lower_elementwise<opcode::tile_maximums>, lower_elementwise<opcode::tile_minimums>,
    lower_elementwise<opcode::tile_lrelu>,
    lower_spmd_query<opcode::tile_get_block_idx>, lower_spmd_query<opcode::tile_get_block_num>,
    lower_spmd_query<opcode::tile_get_subblock_idx>,
    lower_slice, lower_assemble, lower_set_validshape,
    lower_relabel<opcode::tile_reshape>, lower_relabel<opcode::tile_reinterpret_view>,
    lower_extract, lower_transpose_view, lower_matmul, lower_matmul_acc,
    stays_tile<tile::row_sum, "reductions remain Tile in the normal pipeline">,
    stays_tile<tile::row_max, "reductions remain Tile in the normal pipeline">,
    stays_tile<tile::row_min, "reductions remain Tile in the normal pipeline">,
    lower_reduction<opcode::tile_row_sum>, lower_reduction<opcode::tile_row_max>,
    lower_reduction<opcode::tile_row_min>,
    stays_tile<tile::col_sum, "reductions remain Tile in the normal pipeline">,
    stays_tile<tile::col_max, "reductions remain Tile in the normal pipeline">,
    stays_tile<tile::col_min, "reductions remain Tile in the normal pipeline">,
    lower_reduction<opcode::tile_col_sum>, lower_reduction<opcode::tile_col_max>,
    lower_reduction<opcode::tile_col_min>,
    lower_cast,
    stays_tile<tile::row_expand, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::row_expand_sub, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::row_expand_div, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::row_expand_mul, "axis broadcasts remain Tile in the normal pipeline">,
    lower_expand<opcode::tile_row_expand>, lower_expand_arith<opcode::tile_row_expand_sub>,
    lower_expand_arith<opcode::tile_row_expand_div>, lower_expand_arith<opcode::tile_row_expand_mul>,
    stays_tile<tile::col_expand, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::col_expand_add, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::col_expand_sub, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::col_expand_mul, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::col_expand_div, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::col_expand_max, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::col_expand_min, "axis broadcasts remain Tile in the normal pipeline">,
    stays_tile<tile::col_expand_expdif, "axis broadcasts remain Tile in the normal pipeline">,
    lower_expand<opcode::tile_col_expand>,
    lower_expand_arith<opcode::tile_col_expand_add>,
    lower_expand_arith<opcode::tile_col_expand_sub>,
    lower_expand_arith<opcode::tile_col_expand_mul>,
    lower_expand_arith<opcode::tile_col_expand_div>,
    lower_expand_arith<opcode::tile_col_expand_max>,
    lower_expand_arith<opcode::tile_col_expand_min>,
    lower_expand_arith<opcode::tile_col_expand_expdif>> {};
// clang-format on

// The set is checked where it is first used: select<>/lower<> require `registry<Set>::checked`,
// so a TU that calls them checks this set too. Why not here: checking instantiates every recipe,
// about a second of compile time in each TU that only includes the library
// (tests/lower/static_lower.cpp asserts it on its own).

}  // namespace v0
}  // namespace tile2buffer
