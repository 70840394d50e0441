// SPDX-License-Identifier: Apache-2.0
/// @file selection_campaign.cpp
/// The shared campaign loop (selection_campaign.hpp), compiled once into the test support library.
#include "support/selection_campaign.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "support/campaign_report.hpp"
#include "support/gen_program.hpp"
#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/text/print.hpp"

namespace tile2buffer {
namespace testing {

void run_selection_campaign(std::string_view shape, std::uint64_t kernels,
                            const std::function<gen_options(std::uint64_t)>& options_for,
                            const std::function<int(std::uint64_t)>& ops_for, rollout_kind rollout, bool all_selected) {
  const planner_kind planners[] = {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas};
  int lowerings = 0, selected = 0, checks = 0, preflight_checks = 0;
  std::array<int, 3> selected_by{};
  std::map<std::string, int> must_stay;  // recorded reason -> lowerings kept Tile
  std::map<std::string, int> kept_tile;  // why other kernels stayed Tile -> lowerings
  failures lowering, numerics, selected_tile_only, wrong_reason, preflight;
  for (std::uint64_t seed = 1; seed <= kernels; ++seed) {
    const gen_plan plan = generate_plan(seed, ops_for(seed), options_for(seed));
    const program tile = emit(plan);
    const std::string_view k = tile.functions[0].name_of();
    const std::vector<gen_binding> binds = bindings(plan);
    for (std::size_t which = 0; which < std::size(planners); ++which) {
      const planner_kind planner = planners[which];
      const options opts{.planner = planner, .rollout = rollout};
      const auto lowered = lower(tile, opts);
      ++lowerings;
      const std::string head = "seed " + std::to_string(seed) + " " + std::string(name(planner));
      // Every kernel selection lowers, under either rollout, has a PTO form: the preflight
      // accepts it (analysis/pto_abi.hpp keeps what it would refuse on Tile). The other
      // rollout's lowering is checked for that alone; the checks below use this rollout's.
      const options other{.planner = planner,
                          .rollout = rollout == rollout_kind::standard ? rollout_kind::extended : rollout_kind::standard};
      if (const auto again = lower(tile, other); !again.ok())
        lowering.add(head + " (" + std::string(name(other.rollout)) +
                     " rollout): " + std::string(format_all(again.errors, "gen").view()) + std::string(print(tile).view()));
      else if (const function& g = again.value.functions[0]; g.stage == ir_stage::buffer) {
        ++preflight_checks;
        if (const auto errors = check_pto(again.value, g); !errors.empty())
          preflight.add(head + " (" + std::string(name(other.rollout)) +
                        " rollout): " + std::string(format_all(errors, "gen").view()) + std::string(print(again.value).view()));
      }
      if (!lowered.ok()) {
        lowering.add(head + ": " + std::string(format_all(lowered.errors, "gen").view()) + std::string(print(tile).view()));
        continue;
      }
      const function& f = lowered.value.functions[0];
      if (!plan.tile_reason.empty()) {
        if (f.stage != ir_stage::tile) {
          selected_tile_only.add(head + ": selected although it must stay Tile (`" + plan.tile_reason + "`)\n" +
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
        testing::count_kept_tile(lowered.value, opts, kept_tile);
        continue;
      }
      ++selected;
      ++selected_by[which];
      ++preflight_checks;
      if (const auto errors = check_pto(lowered.value, f); !errors.empty())
        preflight.add(head + ": " + std::string(format_all(errors, "gen").view()) + std::string(print(lowered.value).view()));
      check_every_binding(tile, lowered.value, k, plan, binds, seed, head, checks, numerics);
    }
  }
  const std::string top = top_reasons(kept_tile, "; the others kept Tile because:");
  std::string stayed;
  for (const auto& [why, n] : must_stay) stayed += (stayed.empty() ? "" : ", ") + std::to_string(n) + " `" + why + "`";
  MESSAGE(kernels, " ", shape, " kernels, ", lowerings, " lowerings: ", selected, " lowered (pypto ", selected_by[0], ", dsa_rp ",
          selected_by[1], ", ptoas ", selected_by[2], "); stayed Tile by reason: ", stayed, " (", selected_tile_only.count,
          " Tile-only selected, ", wrong_reason.count, " with another reason); ", checks, " numerics checks, ", numerics.count,
          " failed; ", preflight_checks, " PTO preflight checks (both rollouts), ", preflight.count, " refused; ", lowering.count,
          " lowering errors", top);
  CHECK_MESSAGE(lowering.count == 0, lowering.count, " lowerings failed; the first:\n", lowering.first);
  CHECK_MESSAGE(preflight.count == 0, preflight.count, " selected lowerings fail the PTO-AS preflight; the first:\n",
                preflight.first);
  CHECK_MESSAGE(numerics.count == 0, numerics.count, " selected lowerings differ from Tile; the first:\n", numerics.first);
  CHECK_MESSAGE(selected_tile_only.count == 0, selected_tile_only.count,
                " lowerings of Tile-only kernels were selected; the first:\n", selected_tile_only.first);
  CHECK_MESSAGE(wrong_reason.count == 0, wrong_reason.count, " Tile-only lowerings gave another reason; the first:\n",
                wrong_reason.first);
  CHECK(selected * 2 >= lowerings);
  if (all_selected) CHECK_MESSAGE(kept_tile.empty(), "kernels without a Tile-only construct stayed Tile", top);
}

}  // namespace testing
}  // namespace tile2buffer
