// SPDX-License-Identifier: Apache-2.0
/// @file region_campaign_test.cpp
/// The region campaign: random kernels with branches and loops (Tile, scalar and GM carries that
/// swap, rotate, fan out and accumulate; constant, runtime and zero trip counts; nesting) through
/// the real pipeline with every planner. A selected lowering must equal its Tile program in the
/// reference simulator under every recorded binding (flags at 0 and 1, counts and limits at 0 to
/// 3); a kernel with a Tile-only construct (a runtime step, a GM branch of two parameters, a GM
/// loop changing its parameter, a runtime-valid load in a loop body) must stay Tile and say why. At least half of all lowerings must
/// be selected, so the campaign cannot pass by leaving regions Tile. Every selected lowering also
/// passes the PTO-AS preflight (region ops with scalar results only, a positive literal step).
#include <doctest/doctest.h>

#include <cstdint>

#include "support/campaign_scale.hpp"
#include "support/gen_program.hpp"
#include "support/selection_campaign.hpp"

using namespace tile2buffer;

namespace {
constexpr std::uint64_t kernels = testing::campaign_kernels(500);

/// Why 8-row tiles and short kernels: each selected lowering runs twice per binding, and region
/// kernels have up to seven bindings. Windows on every other seed: slices inside region bodies
/// must lower next to carries, and carries without them too.
testing::gen_options region_kernels(std::uint64_t seed) {
  testing::gen_options o;
  o.regions = true;
  o.windows = seed % 2 == 0;
  o.rows = 8;
  o.gm_parameter_probability = 0.25;  // stores between regions name the parameter, not the region's result
  o.region_valid_probability = 0.3;   // a share of the Tile-only kernels hold dynamic valid state in a loop
  return o;
}
int ops_for(std::uint64_t seed) { return 6 + static_cast<int>(seed % 12); }

}  // namespace

TEST_CASE("region kernels x 3 planners: selected lowerings match Tile for every binding; Tile-only ones say why") {
  testing::run_selection_campaign("region", kernels, region_kernels, ops_for);
}
