// SPDX-License-Identifier: Apache-2.0
/// @file recipe/table.hpp
/// What lowers: the default recipe list and the Tile ops that stay Tile, in one place.
#pragma once

#include <array>

#include "tile2buffer/engine/dispatch.hpp"
#include "tile2buffer/recipe/elementwise.hpp"
#include "tile2buffer/recipe/spmd.hpp"
#include "tile2buffer/recipe/transfer.hpp"

namespace tile2buffer {
inline namespace v0 {

// clang-format off
struct default_recipes : recipe_list<
    lower_alloc, lower_create, lower_load, lower_store, lower_move,
    lower_elementwise<opcode::tile_full>,
    lower_elementwise<opcode::tile_add>, lower_elementwise<opcode::tile_mul>,
    lower_elementwise<opcode::tile_sub>, lower_elementwise<opcode::tile_div>,
    lower_elementwise<opcode::tile_maximum>, lower_elementwise<opcode::tile_minimum>,
    lower_elementwise<opcode::tile_abs>, lower_elementwise<opcode::tile_exp>,
    lower_elementwise<opcode::tile_sqrt>, lower_elementwise<opcode::tile_neg>,
    lower_elementwise<opcode::tile_relu>, lower_elementwise<opcode::tile_log>,
    lower_elementwise<opcode::tile_recip>,
    lower_elementwise<opcode::tile_adds>, lower_elementwise<opcode::tile_subs>,
    lower_elementwise<opcode::tile_muls>, lower_elementwise<opcode::tile_divs>,
    lower_elementwise<opcode::tile_maximums>, lower_elementwise<opcode::tile_minimums>,
    lower_elementwise<opcode::tile_lrelu>,
    lower_spmd_query<opcode::tile_get_block_idx>, lower_spmd_query<opcode::tile_get_block_num>,
    lower_spmd_query<opcode::tile_get_subblock_idx>> {};
// clang-format on

/// Tile ops without a default recipe. Reductions stay Tile by the spec; the view, window,
/// valid-shape and cube recipes arrive in later rollout slices and stay Tile until then.
inline constexpr std::array<stays_tile_entry, 11> stays_tile{{
    {opcode::tile_row_sum, "reductions remain Tile in the normal pipeline"},
    {opcode::tile_row_max, "reductions remain Tile in the normal pipeline"},
    {opcode::tile_reshape, "tile.reshape has no Buffer recipe in this rollout"},
    {opcode::tile_reinterpret_view, "tile.reinterpret_view has no Buffer recipe in this rollout"},
    {opcode::tile_transpose_view, "tile.transpose_view needs the cube recipes, which this rollout lacks"},
    {opcode::tile_slice, "tile.slice windows have no Buffer recipe in this rollout"},
    {opcode::tile_assemble, "tile.assemble has no Buffer recipe in this rollout"},
    {opcode::tile_set_validshape, "tile.set_validshape needs the runtime-valid recipes, which this rollout lacks"},
    {opcode::tile_extract, "tile.extract needs the cube recipes, which this rollout lacks"},
    {opcode::tile_matmul, "tile.matmul needs the cube recipes, which this rollout lacks"},
    {opcode::tile_matmul_acc, "tile.matmul_acc needs the cube recipes, which this rollout lacks"},
}};

constexpr const stays_tile_entry* stays_tile_reason(opcode c) {
  for (const auto& s : stays_tile)
    if (s.op == c) return &s;
  return nullptr;
}

inline constexpr bool every_tile_op_has_a_recipe_or_stays_tile =
    first_uncovered_tile_op<default_recipes>(stays_tile) == opcode_count;
static_assert(every_tile_op_has_a_recipe_or_stays_tile,
              "tile2buffer: a Tile op has neither a recipe in default_recipes nor an entry in stays_tile; "
              "add `lower_<op>` to default_recipes or list the op in stays_tile with its reason");
inline constexpr bool default_recipes_are_unambiguous = recipes_are_unambiguous<default_recipes>();
static_assert(default_recipes_are_unambiguous,
              "tile2buffer: two recipes in default_recipes share a source op and a benefit; give one a higher benefit");

}  // namespace v0
}  // namespace tile2buffer
