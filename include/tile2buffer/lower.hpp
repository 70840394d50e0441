// SPDX-License-Identifier: Apache-2.0
/// @file lower.hpp
/// The host entry point: everything a compiler needs to lower planned Tile IR to Buffer IR.
///
///   #include <tile2buffer/lower.hpp>
///   auto r = tile2buffer::lower(program, tile2buffer::options{.planner = tile2buffer::planner_kind::ptoas});
///   if (!r) for (auto& d : r.errors) std::cerr << tile2buffer::format(d, "k.t2b").view();
#pragma once

#include "tile2buffer/config.hpp"
#include "tile2buffer/engine/options.hpp"
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/passes/pipeline.hpp"
#include "tile2buffer/recipe/table.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Lowers a program with the default pipeline and recipe table (or a host's extended table).
/// Never modifies `p`; on failure the result holds located diagnostics and no program.
template <recipe_set Recipes = default_recipes>
constexpr result<program> lower(const program& p, const options& opts) {
  return run_pipeline<Recipes>(p, opts);
}
/// As above, with the options of the innermost `context::scope` on this thread.
template <recipe_set Recipes = default_recipes>
result<program> lower(const program& p) {
  return run_pipeline<Recipes>(p, context::current());
}

}  // namespace v0
}  // namespace tile2buffer
