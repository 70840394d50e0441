// SPDX-License-Identifier: Apache-2.0
/// @file valid_campaign_test.cpp
/// The valid-extent campaign: random kernels with partial valid rectangles (static literals,
/// INDEX parameters, block index arithmetic), elementwise ops over them, set_validshape
/// narrowing and stores of valid rectangles, half of them with windows, through the real pipeline
/// with every planner. A selected lowering must equal its Tile program in the reference simulator
/// under every recorded binding (extents 0, 1, middle and full, and a corner mix). A kernel that
/// reads an old metadata version after a setter, or narrows a slice, must stay Tile and give the
/// plan's reason; an unalignable slice must stay Tile as in the window campaign. At least half of
/// all lowerings must be selected, so the campaign cannot pass by leaving valid extents Tile.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "support/campaign_report.hpp"
#include "support/campaign_scale.hpp"
#include "support/gen_program.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

namespace {
constexpr std::uint64_t kernels = testing::campaign_kernels(500);
const planner_kind planners[] = {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas};

/// Why 8-row tiles and kernels shorter than the window campaign's: running each selected lowering
/// twice per binding dominates the time, and extent parameters add bindings (a Tile-vs-Tile stand-in
/// for every kernel but the Tile-only ones takes about 35 s at -O0). Windows on every other seed:
/// setters and runtime extents must lower next to windows, and without them too.
testing::gen_options valid_kernels(std::uint64_t seed) {
  testing::gen_options o;
  o.valid_extents = true;
  o.windows = seed % 2 == 0;
  o.rows = 8;
  return o;
}
int ops_for(std::uint64_t seed) { return 6 + static_cast<int>(seed % 12); }


/// Which valid-extent features a kernel has, to see what selection accepts.
std::string flavour(const testing::gen_plan& plan) {
  bool runtime = false, partial = false, setter = false;
  for (const auto& v : plan.values) {
    runtime = runtime || v.valid[0].scalar >= 0 || v.valid[1].scalar >= 0;
    partial = partial || v.valid[0] != testing::gen_index{-1, v.rows} || v.valid[1] != testing::gen_index{-1, v.cols};
  }
  for (const auto& s : plan.steps) setter = setter || s.op == opcode::tile_set_validshape;
  if (setter) return runtime ? "setters, runtime extents" : "setters, static extents";
  return runtime ? "runtime extents" : partial ? "static partial rectangles" : "full rectangles only";
}

}  // namespace

TEST_CASE("valid-extent kernels x 3 planners: selected lowerings match Tile for every binding; Tile-only ones say why") {
  int lowerings = 0, selected = 0, must_stay = 0, checks = 0;
  std::array<int, 3> selected_by{};
  std::map<std::string, int> kept_tile;                  // why other kernels stayed Tile -> lowerings
  std::map<std::string, std::array<int, 2>> by_flavour;  // flavour -> (lowerings, selected)
  testing::failures numerics, selected_tile_only, wrong_reason;
  for (std::uint64_t seed = 1; seed <= kernels; ++seed) {
    const testing::gen_plan plan = testing::generate_plan(seed, ops_for(seed), valid_kernels(seed));
    const program tile = testing::emit(plan);
    const std::string_view k = tile.functions[0].name_of();
    const std::vector<testing::gen_binding> binds = testing::bindings(plan);
    const std::string expected = plan.unaligned ? std::string("aligned") : plan.tile_reason;
    for (std::size_t which = 0; which < std::size(planners); ++which) {
      const planner_kind planner = planners[which];
      const options opts{.planner = planner};
      const auto lowered = lower(tile, opts);
      REQUIRE_MESSAGE(lowered.ok(), "seed ", seed, " ", name(planner), ": ",
                      std::string(format_all(lowered.errors, "gen").view()));
      ++lowerings;
      const function& f = lowered.value.functions[0];
      const std::string head = "seed " + std::to_string(seed) + " " + std::string(name(planner));
      if (!expected.empty()) {
        ++must_stay;
        if (f.stage != ir_stage::tile) {
          selected_tile_only.add(head + ": selected although it must stay Tile (`" + expected + "`)\n" +
                                 std::string(print(tile).view()));
          continue;
        }
        const auto why = explain_selection(lowered.value, opts);
        const std::string reason = why.size() == 1 ? std::string(why[0].reason.view()) : std::string("<no single entry>");
        if (reason.find(expected) == std::string::npos)
          wrong_reason.add(head + ": the reason to stay Tile should mention `" + expected + "`, not `" + reason + "`\n" +
                           std::string(print(tile).view()));
        continue;
      }
      auto& tally = by_flavour[flavour(plan)];
      ++tally[0];
      if (f.stage != ir_stage::buffer) {
        testing::count_kept_tile(lowered.value, opts, kept_tile);
        continue;
      }
      ++selected;
      ++selected_by[which];
      ++tally[1];
      testing::check_every_binding(tile, lowered.value, k, plan, binds, seed, head, checks, numerics);
    }
  }
  const std::string top = testing::top_reasons(kept_tile, "; the others kept Tile because:");
  std::string flavours;
  for (const auto& [what, n] : by_flavour)
    flavours += "\n  " + what + ": " + std::to_string(n[1]) + " of " + std::to_string(n[0]) + " selected";
  MESSAGE(lowerings, " lowerings of ", kernels, " valid-extent kernels: ", selected, " selected (pypto ", selected_by[0],
          ", dsa_rp ", selected_by[1], ", ptoas ", selected_by[2], "), ", must_stay, " must stay Tile (",
          selected_tile_only.count, " selected, ", wrong_reason.count, " with another reason), ", checks, " numerics checks, ",
          numerics.count, " failed", flavours, top);
  CHECK_MESSAGE(numerics.count == 0, numerics.count, " selected lowerings differ from Tile; the first:\n", numerics.first);
  CHECK_MESSAGE(selected_tile_only.count == 0, selected_tile_only.count,
                " lowerings of Tile-only kernels were selected; the first:\n", selected_tile_only.first);
  CHECK_MESSAGE(wrong_reason.count == 0, wrong_reason.count, " Tile-only lowerings gave another reason; the first:\n",
                wrong_reason.first);
  CHECK(selected * 2 >= lowerings);
}
