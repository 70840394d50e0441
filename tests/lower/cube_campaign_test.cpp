// SPDX-License-Identifier: Apache-2.0
/// @file cube_campaign_test.cpp
/// The cube campaign: random unplanned `aic` kernels of cube chains (Mat loads, moves to
/// Left/Right, extracts, transposed rhs, matmul and matmul_acc with every init_cond kind, K loops
/// carrying an accumulator, guarded accumulators (an update in one arm of an if), wider accumulators, Acc stores with each fix-pipe conversion) through
/// the real pipeline with every planner. A selected lowering must equal its Tile program in the
/// reference simulator under every recorded binding (BOOL init_cond parameters at 0 and 1, trip
/// counts 1 to 3, guard flags at 0 and 1) and pass the PTO-AS preflight; a kernel with a store keyword no recipe lowers
/// (atomic, pre_relu, pre_quant) or a Mat load with a runtime valid extent must stay Tile and
/// say so. At least half of all
/// lowerings must be selected, so the campaign cannot pass by leaving cube kernels Tile; and the
/// numerics check must catch most lowerings whose buffers are all moved to address 0. K loops
/// whose update is `if k == 0 { matmul } else { matmul_acc }` (pypto-lib's gemm.py) run the same
/// checks under the extended rollout, which folds them (fold_matmul_if).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "support/campaign_scale.hpp"
#include "support/gen_program.hpp"
#include "support/numerics.hpp"
#include "support/selection_campaign.hpp"
#include "tile2buffer/lower.hpp"

using namespace tile2buffer;

namespace {
constexpr std::uint64_t kernels = testing::campaign_kernels(300);

testing::gen_options cube_kernels() {
  testing::gen_options o;
  o.cube = true;
  o.cube_guard_probability = 0.5;  // guarded accumulators (an update in one arm of an if)
  return o;
}
/// One to three chains (the generator makes ops / 8 of them at most).
int ops_for(std::uint64_t seed) { return 6 + static_cast<int>(seed % 20); }

}  // namespace

TEST_CASE("cube kernels x 3 planners: selected lowerings match Tile for every binding; Tile-only ones say why") {
  testing::run_selection_campaign(
      "cube", kernels, [](std::uint64_t) { return cube_kernels(); }, ops_for);
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
    const auto report = testing::check_numerics(tile, testing::collapse_addresses(lowered.value), tile.functions[0].name_of(),
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

TEST_CASE("guarded accumulators are generated and lowered (guarded accumulator coalescing)") {
  // The campaign above checks their numerics; this shows they are there and are not kept Tile.
  int guarded = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const testing::gen_plan plan = testing::generate_plan(seed, ops_for(seed), cube_kernels());
    bool has_if = false;
    for (const testing::gen_step& s : plan.steps) has_if = has_if || s.op == opcode::cf_if;
    if (!has_if || !plan.tile_reason.empty()) continue;
    ++guarded;
    const auto lowered = lower(testing::emit(plan), options{.planner = planner_kind::ptoas});
    REQUIRE(lowered.ok());
    CHECK_MESSAGE(lowered.value.functions[0].stage == ir_stage::buffer, "seed ", seed, ": a guarded accumulator stayed Tile");
  }
  CHECK(guarded >= 20);
}

namespace {
/// K loops whose update is written as `if k == 0 { matmul } else { matmul_acc }` (pypto-lib's
/// gemm.py, quantized-path.md §2.7), drawn often, beside the other cube chains.
testing::gen_options branch_init_kernels() {
  testing::gen_options o = cube_kernels();
  o.cube_loop_probability = 0.6;
  o.cube_branch_init_probability = 0.7;
  return o;
}
/// Whether the plan holds such a loop update: an if whose first arm starts with a tile.matmul (a
/// guarded accumulator's arms start with a matmul_acc, its operands' loads, or the yield).
bool has_branch_init(const testing::gen_plan& plan) {
  for (std::size_t i = 0; i + 1 < plan.steps.size(); ++i)
    if (plan.steps[i].op == opcode::cf_if && plan.steps[i + 1].op == opcode::tile_matmul) return true;
  return false;
}
}  // namespace

TEST_CASE("K loops written with an if between matmul and matmul_acc lower under the extended rollout and match Tile") {
  testing::run_selection_campaign(
      "cube-branch-init", kernels / 5, [](std::uint64_t) { return branch_init_kernels(); }, ops_for, rollout_kind::extended);
}

TEST_CASE("branch-written K loop updates are generated; the extended rollout folds them, the default keeps them Tile") {
  int drawn = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const testing::gen_plan plan = testing::generate_plan(seed, ops_for(seed), branch_init_kernels());
    if (!has_branch_init(plan) || !plan.tile_reason.empty()) continue;
    ++drawn;
    const program tile = testing::emit(plan);
    const auto extended = lower(tile, options{.planner = planner_kind::dsa_rp, .rollout = rollout_kind::extended});
    REQUIRE(extended.ok());
    CHECK_MESSAGE(extended.value.functions[0].stage == ir_stage::buffer, "seed ", seed,
                  ": stayed Tile under the extended rollout");
    const auto standard = lower(tile, options{.planner = planner_kind::dsa_rp});
    REQUIRE(standard.ok());
    CHECK_MESSAGE(standard.value.functions[0].stage == ir_stage::tile, "seed ", seed, ": lowered under the default rollout");
    const auto why = explain_selection(standard.value, options{});
    REQUIRE(why.size() == 1);
    CHECK(std::string(why[0].reason.view()).find("matrix region carries must preserve one storage alias") != std::string::npos);
  }
  MESSAGE(drawn, " kernels with a branch-written K loop update");
  CHECK(drawn >= 15);
}
