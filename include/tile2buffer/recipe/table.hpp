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
namespace detail {
template <opcode C>
using reductions_stay_tile = stays_tile<op_t<C>, "reductions remain Tile in the normal pipeline">;
template <opcode C>
using broadcasts_stay_tile = stays_tile<op_t<C>, "axis broadcasts remain Tile in the normal pipeline">;
}  // namespace detail

// The families' entries come from their members (engine/registry.hpp `family_recipes`); the
// order is the listing's (docs/recipes.md).
// clang-format off
struct default_recipes : join_recipe_lists<
    recipe_list<lower_alloc, lower_create, lower_load, lower_column_load, lower_store, lower_column_store, lower_move>,
    family_recipes<op_family::elementwise, lower_elementwise>,
    family_recipes<op_family::spmd_query, lower_spmd_query>,
    recipe_list<lower_slice, lower_mat_window, lower_assemble, lower_set_validshape, lower_acc_tail,
                lower_relabel<opcode::tile_reshape>, lower_relabel<opcode::tile_reinterpret_view>,
                lower_extract, lower_transpose_view, lower_matmul, lower_matmul_acc>,
    family_recipes<op_family::row_reduction, detail::reductions_stay_tile>,
    family_recipes<op_family::row_reduction, lower_reduction>,
    family_recipes<op_family::col_reduction, detail::reductions_stay_tile>,
    family_recipes<op_family::col_reduction, lower_reduction>,
    recipe_list<lower_cast>,
    family_recipes<op_family::row_broadcast, detail::broadcasts_stay_tile>,
    family_recipes<op_family::row_broadcast_arith, detail::broadcasts_stay_tile>,
    family_recipes<op_family::row_broadcast, lower_expand>,
    family_recipes<op_family::row_broadcast_arith, lower_expand_arith>,
    family_recipes<op_family::col_broadcast, detail::broadcasts_stay_tile>,
    family_recipes<op_family::col_broadcast_arith, detail::broadcasts_stay_tile>,
    family_recipes<op_family::col_broadcast, lower_expand>,
    family_recipes<op_family::col_broadcast_arith, lower_expand_arith>>::type {};
// clang-format on

// The set is checked where it is first used: select<>/lower<> require `registry<Set>::checked`,
// so a TU that calls them checks this set too. Why not here: checking instantiates every recipe,
// about a second of compile time in each TU that only includes the library
// (tests/lower/static_lower.cpp asserts it on its own).

}  // namespace v0
}  // namespace tile2buffer
