// SPDX-License-Identifier: Apache-2.0
/// @file selection_campaign.hpp
/// The campaign loop the region and cube campaigns share: generated kernels of one shape x the
/// three planners through the default pipeline. A lowering must not fail; a kernel whose plan
/// records a Tile-only construct must stay Tile and name it; every selected lowering must pass the
/// PTO-AS preflight and equal its Tile program in the simulator under every binding; and at least
/// half of all lowerings must be selected, so a campaign cannot pass by leaving its shape Tile.
/// Each kernel is also lowered under the other rollout, which must not fail and whose selected
/// lowerings must pass the preflight too (every kernel, both rollouts).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "support/gen_program.hpp"
#include "tile2buffer/options.hpp"

namespace tile2buffer {
namespace testing {

/// Runs seeds 1..`kernels` of `shape` kernels (`options_for(seed)`, `ops_for(seed)` ops) under
/// `rollout` and states every check above as a doctest assertion, after one summary MESSAGE.
/// `all_selected`: every kernel without a Tile-only construct must be selected (not only half).
void run_selection_campaign(std::string_view shape, std::uint64_t kernels,
                            const std::function<gen_options(std::uint64_t)>& options_for,
                            const std::function<int(std::uint64_t)>& ops_for, rollout_kind rollout = rollout_kind::standard,
                            bool all_selected = false);

}  // namespace testing
}  // namespace tile2buffer
