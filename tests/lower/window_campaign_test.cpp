// SPDX-License-Identifier: Apache-2.0
/// @file window_campaign_test.cpp
/// The window campaign: random kernels with slices (static, runtime and nested offsets), reshapes
/// and assembles (overlapping, self-writes) through the real pipeline with every planner. A
/// selected lowering must equal its Tile program in the reference simulator under every recorded
/// binding of its runtime scalars (0, 1, middle, maximum, corner mix); a kernel with a slice whose
/// alignment cannot be proven must stay Tile and say so. At least half of all lowerings must be
/// selected, so the campaign cannot pass by leaving windows Tile.
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
#include "support/numerics.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

namespace {
constexpr std::uint64_t kernels = testing::campaign_kernels(500);
const planner_kind planners[] = {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas};

/// Why 8-row tiles and short kernels: every selected lowering runs twice per binding (Tile and
/// Buffer) in the simulator, and that dominates the campaign's time; windows still get room to
/// move in the generator's 4 KiB parents.
testing::gen_options window_kernels() {
  testing::gen_options o;
  o.windows = true;
  o.rows = 8;
  return o;
}
int ops_for(std::uint64_t seed) { return 8 + static_cast<int>(seed % 16); }

}  // namespace

TEST_CASE("window kernels x 3 planners: selected lowerings match Tile for every binding; unalignable ones stay Tile") {
  const testing::gen_options gen = window_kernels();
  int lowerings = 0, selected = 0, unalignable = 0, checks = 0;
  std::array<int, 3> selected_by{};
  std::map<std::string, int> kept_tile;  // why aligned kernels stayed Tile -> lowerings
  for (std::uint64_t seed = 1; seed <= kernels; ++seed) {
    const testing::gen_plan plan = testing::generate_plan(seed, ops_for(seed), gen);
    const program tile = testing::emit(plan);
    const std::string_view k = tile.functions[0].name_of();
    const std::vector<testing::gen_binding> binds = testing::bindings(plan);
    for (std::size_t which = 0; which < std::size(planners); ++which) {
      const planner_kind planner = planners[which];
      const options opts{.planner = planner};
      const auto lowered = lower(tile, opts);
      REQUIRE_MESSAGE(lowered.ok(), "seed ", seed, " ", name(planner), ": ",
                      std::string(format_all(lowered.errors, "gen").view()));
      ++lowerings;
      const function& f = lowered.value.functions[0];
      if (plan.unaligned) {
        ++unalignable;
        REQUIRE_MESSAGE(f.stage == ir_stage::tile, "seed ", seed, " ", name(planner),
                        ": selected although a slice's column offset is not provably 32-byte aligned\n",
                        std::string(print(tile).view()));
        const auto why = explain_selection(lowered.value, opts);
        REQUIRE(why.size() == 1);
        const std::string reason(why[0].reason.view());
        REQUIRE_MESSAGE(reason.find("aligned") != std::string::npos, "seed ", seed, " ", name(planner),
                        ": the reason to stay Tile should be the unprovable alignment, not `", reason, "`\n",
                        std::string(print(tile).view()));
        continue;
      }
      if (f.stage != ir_stage::buffer) {
        testing::count_kept_tile(lowered.value, opts, kept_tile);
        continue;
      }
      ++selected;
      ++selected_by[which];
      for (const testing::gen_binding& b : binds) {
        const auto report = testing::check_numerics(tile, lowered.value, k, testing::sim_options_for(plan, b, seed));
        REQUIRE_MESSAGE(report.ok, "seed ", seed, " ", name(planner), " (", testing::describe(b), "):\n", report.text,
                        std::string(print(tile).view()), std::string(print(lowered.value).view()));
        ++checks;
      }
    }
  }
  const std::string top = testing::top_reasons(kept_tile, "; aligned kernels kept Tile because:");
  MESSAGE(lowerings, " lowerings of ", kernels, " window kernels: ", selected, " selected (pypto ", selected_by[0], ", dsa_rp ",
          selected_by[1], ", ptoas ", selected_by[2], "), ", unalignable, " unalignable kept Tile, ", checks,
          " numerics checks passed", top);
  CHECK(selected * 2 >= lowerings);
}

// A chain of slices, each of the one before, at a runtime row offset: each level's offsets are
// summed with its parent's by emitting a `scalar.add`, which may grow the Buffer function's
// operand pool while the parent's offsets are being read (a use after free under the sanitizers
// at some depths, before the sum copied them). Every depth up to 80 crosses several growths.
TEST_CASE("nested slices at runtime offsets lower at every depth to 80 and match Tile") {
  for (int depth = 1; depth <= 80; ++depth) {
    std::string src =
        "aiv @nest(X: Tensor[[64, 64], FP32], Out: out Tensor[[8, 8], FP32], r: Scalar[INDEX]) -> Tensor[[8, 8], FP32] {\n"
        "  x = tile.load(X, (0, 0), (64, 64)) : Tile[[64, 64], FP32, Vec]\n"
        "  a0 = tile.slice(x, (8, 8), (r, 0)) : Tile[[8, 8], FP32, Vec]\n";
    for (int i = 1; i < depth; ++i)
      src += "  a" + std::to_string(i) + " = tile.slice(a" + std::to_string(i - 1) +
             ", (8, 8), (r, 0)) : Tile[[8, 8], FP32, Vec]\n";
    src += "  y = tile.add(a" + std::to_string(depth - 1) +
           ", a0) : Tile[[8, 8], FP32, Vec]\n"
           "  result = tile.store(y, (0, 0), Out) : Tensor[[8, 8], FP32]\n  return result\n}\n";
    const auto tile = parse(src, "nest.t2b");
    REQUIRE_MESSAGE(tile.ok(), std::string(format_all(tile.errors, "nest.t2b").view()));
    for (const planner_kind planner : planners) {
      const auto lowered = lower(tile.value, options{.planner = planner});
      REQUIRE_MESSAGE(lowered.ok(), "depth ", depth, " ", name(planner), ": ",
                      std::string(format_all(lowered.errors, "nest.t2b").view()));
      REQUIRE_MESSAGE(lowered.value.functions[0].stage == ir_stage::buffer, "depth ", depth, " ", name(planner), " stayed Tile");
      sim::sim_options opt;
      opt.scalars.emplace_back("r", 0.0);
      const auto report = testing::check_numerics(tile.value, lowered.value, "nest", opt);
      REQUIRE_MESSAGE(report.ok, "depth ", depth, " ", name(planner), ":\n", report.text);
    }
  }
}
