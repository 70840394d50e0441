// SPDX-License-Identifier: Apache-2.0
/// @file passes/table.hpp
/// What runs: the default pass set, in order — the one list the pipeline, `t2b-opt
/// --pass-pipeline`, `--print-after`, `--timing` and `pass_id` follow. A host runs its own list
/// with `run_pipeline<Recipes, its_passes>` (passes/pipeline.hpp).
#pragma once

#include <cstddef>

#include "tile2buffer/passes/fold_matmul_if.hpp"
#include "tile2buffer/passes/init_storage.hpp"
#include "tile2buffer/passes/legalize.hpp"
#include "tile2buffer/passes/lower.hpp"
#include "tile2buffer/passes/materialize_scratch.hpp"
#include "tile2buffer/passes/pass.hpp"
#include "tile2buffer/passes/pipeline_api.hpp"
#include "tile2buffer/passes/plan.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/passes/verify_buffer.hpp"
#include "tile2buffer/passes/verify_tile_storage.hpp"

namespace tile2buffer {
inline namespace v0 {

struct default_passes : pass_list<materialize_scratch_pass, fold_matmul_if_pass, init_storage_pass, select_pass, legalize_pass,
                                  verify_tile_storage_pass, plan_pass, lower_pass, verify_buffer_pass> {};

namespace detail {
/// `pass_id` and `pass_names` (passes/pipeline_api.hpp, light for the separately compiled
/// pipeline's declarations) name the default set's passes position by position. Why the names
/// alone: building the set's table would instantiate every pass in each TU that includes this.
constexpr bool pass_ids_follow_default_passes() {
  constexpr auto names = pass_names_of<default_passes>();
  if (names.size() != pass_names.size()) return false;
  for (std::size_t i = 0; i < pass_names.size(); ++i)
    if (names[i] != pass_names[i] || name(static_cast<pass_id>(i)) != pass_names[i]) return false;
  return true;
}
}  // namespace detail
static_assert(detail::pass_ids_follow_default_passes(),
              "pass_id and pass_names (passes/pipeline_api.hpp) must list default_passes' names in its order");

}  // namespace v0
}  // namespace tile2buffer
