// SPDX-License-Identifier: Apache-2.0
/// @file campaign_test.cpp
/// The generated differential campaign: random straight-line kernels through the real pipeline
/// with every planner, each lowering checked against its Tile program in the reference simulator.
/// Also shows the check can fail on real pipeline output (all addresses collapsed to 0).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "support/campaign_scale.hpp"
#include "support/gen_program.hpp"
#include "support/numerics.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

namespace {
constexpr std::uint64_t kernels = testing::campaign_kernels(500);
const planner_kind planners[] = {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas};

sim::sim_options seeded(std::uint64_t seed) {
  sim::sim_options o;
  o.seed = seed;
  return o;
}
}  // namespace

TEST_CASE("generated kernels x 3 planners: every lowering is numerically equal to its Tile program") {
  int compared = 0, reused = 0, unchained = 0;
  // A third of the kernels store through the parameter itself (unchained stores, GM as memory).
  testing::gen_options o;
  o.gm_parameter_probability = 1.0 / 3;
  for (std::uint64_t seed = 1; seed <= kernels; ++seed) {
    const testing::gen_plan plan = testing::generate_plan(seed, 8 + static_cast<int>(seed % 40), o);
    unchained += plan.gm_by_parameter ? 1 : 0;
    const program tile = testing::emit(plan);
    const std::string_view k = tile.functions[0].name_of();
    for (planner_kind planner : planners) {
      const auto lowered = lower(tile, options{.planner = planner});
      REQUIRE_MESSAGE(lowered.ok(), "seed ", seed, " ", name(planner), ": ",
                      std::string(format_all(lowered.errors, "gen").view()));
      const function& f = lowered.value.functions[0];
      REQUIRE_MESSAGE(f.stage == ir_stage::buffer, "seed ", seed, ": generated kernel was not selected");
      const auto report = testing::check_numerics(tile, lowered.value, k, seeded(seed));
      REQUIRE_MESSAGE(report.ok, "seed ", seed, " ", name(planner), ":\n", report.text, std::string(print(lowered.value).view()));
      ++compared;
      if (planner == planner_kind::pypto) {
        std::vector<std::int64_t> addrs;
        for (const auto& n : f.ops)
          if (n.code() == opcode::buffer_alloc) addrs.push_back(f.operands[n.args.begin + 1].num);
        const auto total = addrs.size();
        std::sort(addrs.begin(), addrs.end());
        addrs.erase(std::unique(addrs.begin(), addrs.end()), addrs.end());
        if (addrs.size() < total) ++reused;
      }
    }
  }
  CHECK(compared == static_cast<int>(kernels) * 3);
  CHECK(unchained > static_cast<int>(kernels) / 5);
  // The planners really reuse addresses on generated kernels (not just fresh ranges each time).
  CHECK(reused > static_cast<int>(kernels) / 2);
}

TEST_CASE("the campaign's check fails when a real lowering places live buffers at one address") {
  int caught = 0, tried = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const program tile = testing::generate_kernel(seed, 16 + static_cast<int>(seed % 24));
    const auto lowered = lower(tile, options{.planner = planner_kind::pypto});
    REQUIRE(lowered.ok());
    const auto report =
        testing::check_numerics(tile, testing::collapse_addresses(lowered.value), tile.functions[0].name_of(), seeded(seed));
    ++tried;
    if (!report.ok) {
      ++caught;
      CHECK(report.text.find("numerics:") != std::string::npos);
    }
  }
  CHECK(caught == tried);
}
