// SPDX-License-Identifier: Apache-2.0
/// @file cube_campaign_test.cpp
/// The cube campaign: random unplanned `aic` kernels of cube chains (Mat loads, moves to
/// Left/Right, extracts, transposed rhs, matmul and matmul_acc with every init_cond kind, K loops
/// carrying an accumulator, wider accumulators, Acc stores with each fix-pipe conversion) through
/// the real pipeline with every planner. A selected lowering must equal its Tile program in the
/// reference simulator under every recorded binding (BOOL init_cond parameters at 0 and 1, trip
/// counts 1 to 3) and pass the PTO-AS preflight; a kernel with a store keyword no recipe lowers
/// (atomic, pre_relu, pre_quant) must stay Tile and name the keyword. At least half of all
/// lowerings must be selected, so the campaign cannot pass by leaving cube kernels Tile; and the
/// numerics check must catch most lowerings whose buffers are all moved to address 0.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/campaign_report.hpp"
#include "support/gen_program.hpp"
#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/sim/compare.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

namespace {
constexpr std::uint64_t kernels = 300;
const planner_kind planners[] = {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas};

testing::gen_options cube_kernels() {
  testing::gen_options o;
  o.cube = true;
  return o;
}
/// One to three chains (the generator makes ops / 8 of them at most).
int ops_for(std::uint64_t seed) { return 6 + static_cast<int>(seed % 20); }

}  // namespace

TEST_CASE("cube kernels x 3 planners: selected lowerings match Tile for every binding; Tile-only ones say why") {
  int lowerings = 0, selected = 0, checks = 0;
  std::array<int, 3> selected_by{};
  std::map<std::string, int> must_stay;  // recorded keyword -> lowerings kept Tile
  std::map<std::string, int> kept_tile;  // why other kernels stayed Tile -> lowerings
  testing::failures lowering, numerics, selected_tile_only, wrong_reason, preflight;
  for (std::uint64_t seed = 1; seed <= kernels; ++seed) {
    const testing::gen_plan plan = testing::generate_plan(seed, ops_for(seed), cube_kernels());
    const program tile = testing::emit(plan);
    const std::string_view k = tile.functions[0].name_of();
    const std::vector<testing::gen_binding> binds = testing::bindings(plan);
    for (std::size_t which = 0; which < std::size(planners); ++which) {
      const planner_kind planner = planners[which];
      const options opts{.planner = planner};
      const auto lowered = lower(tile, opts);
      ++lowerings;
      const std::string head = "seed " + std::to_string(seed) + " " + std::string(name(planner));
      if (!lowered.ok()) {
        lowering.add(head + ": " + std::string(format_all(lowered.errors, "gen").view()) + std::string(print(tile).view()));
        continue;
      }
      const function& f = lowered.value.functions[0];
      if (!plan.tile_reason.empty()) {
        if (f.stage != ir_stage::tile) {
          selected_tile_only.add(head + ": selected although its store has `" + plan.tile_reason + "`\n" +
                                 std::string(print(tile).view()));
          continue;
        }
        ++must_stay[plan.tile_reason];
        const auto why = explain_selection(lowered.value, opts);
        const std::string reason = why.size() == 1 ? std::string(why[0].reason.view()) : std::string("<no single entry>");
        if (reason.find(plan.tile_reason) == std::string::npos)
          wrong_reason.add(head + ": the reason to stay Tile should mention `" + plan.tile_reason + "`, not `" + reason + "`\n" +
                           std::string(print(tile).view()));
        continue;
      }
      if (f.stage != ir_stage::buffer) {
        const auto why = explain_selection(lowered.value, opts);
        ++kept_tile[why.empty() ? std::string("<no entry>") : std::string(why[0].reason.view())];
        continue;
      }
      ++selected;
      ++selected_by[which];
      if (const auto errors = check_pto(lowered.value, f); !errors.empty())
        preflight.add(head + ": " + std::string(format_all(errors, "gen").view()) + std::string(print(lowered.value).view()));
      testing::check_every_binding(tile, lowered.value, k, plan, binds, seed, head, checks, numerics);
    }
  }
  const std::string top = testing::top_reasons(kept_tile, "; the others kept Tile because:");
  std::string stayed;
  for (const auto& [why, n] : must_stay) stayed += (stayed.empty() ? "" : ", ") + std::to_string(n) + " `" + why + "`";
  MESSAGE(kernels, " cube kernels, ", lowerings, " lowerings: ", selected, " lowered (pypto ", selected_by[0], ", dsa_rp ",
          selected_by[1], ", ptoas ", selected_by[2], "); stayed Tile by keyword: ", stayed, " (", selected_tile_only.count,
          " Tile-only selected, ", wrong_reason.count, " with another reason); ", checks, " numerics checks, ", numerics.count,
          " failed; ", lowering.count, " lowering errors", top);
  CHECK_MESSAGE(lowering.count == 0, lowering.count, " lowerings failed; the first:\n", lowering.first);
  CHECK_MESSAGE(preflight.count == 0, preflight.count, " selected lowerings fail the PTO-AS preflight; the first:\n", preflight.first);
  CHECK_MESSAGE(numerics.count == 0, numerics.count, " selected lowerings differ from Tile; the first:\n", numerics.first);
  CHECK_MESSAGE(selected_tile_only.count == 0, selected_tile_only.count, " lowerings of Tile-only kernels were selected; the first:\n",
                selected_tile_only.first);
  CHECK_MESSAGE(wrong_reason.count == 0, wrong_reason.count, " Tile-only lowerings gave another reason; the first:\n",
                wrong_reason.first);
  CHECK(selected * 2 >= lowerings);
}

TEST_CASE("the cube campaign's check fails when a real lowering places live buffers at one address") {
  // Why not every kernel: a chain that moves each load at once and stores its result at once has
  // no two live tiles in one space; the generator overlaps live ranges in most other kernels.
  int caught = 0, tried = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const testing::gen_plan plan = testing::generate_plan(seed, ops_for(seed), cube_kernels());
    const program tile = testing::emit(plan);
    const auto lowered = lower(tile, options{.planner = planner_kind::pypto});
    REQUIRE(lowered.ok());
    if (lowered.value.functions[0].stage != ir_stage::buffer) continue;
    const auto binding = testing::bindings(plan).front();
    const auto report = sim::check_numerics(tile, testing::collapse_addresses(lowered.value), tile.functions[0].name_of(),
                                            testing::sim_options_for(plan, binding, seed));
    ++tried;
    if (!report.ok) {
      ++caught;
      CHECK(report.text.find("numerics:") != std::string::npos);
    }
  }
  MESSAGE(caught, " of ", tried, " cube lowerings with collapsed addresses caught");
  CHECK(tried >= 30);
  CHECK(caught * 2 >= tried);
}
