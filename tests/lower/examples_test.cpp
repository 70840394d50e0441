// SPDX-License-Identifier: Apache-2.0
/// @file examples_test.cpp
/// The spec's example kernels through the whole pipeline: the representation example lowers to
/// a program structurally equal to its committed Buffer form; the storage-views example with
/// an addressed planner to its addressed form; the mixed example lowers one kernel only.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "support/numerics.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/init_storage.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

namespace {
program load(const std::string& name) {
  std::ifstream in(std::string(T2B_EXAMPLES_DIR) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string src = ss.str();
  auto r = parse(src, name);
  REQUIRE_MESSAGE(r.ok(), std::string(format_all(r.errors, name).view()));
  return r.value;
}
program lowered(const program& p, planner_kind planner) {
  auto r = lower(p, options{.planner = planner});
  REQUIRE_MESSAGE(r.ok(), std::string(format_all(r.errors, "").view()));
  return r.value;
}
}  // namespace

namespace {
/// Whether `carried` answers every query of select and lower about `f` as analyses computed
/// anew do: windows, scalar factors, stale metadata, storage facts, dynamic valid state.
bool same_answers(const function& f, const kernel_analyses& carried, const kernel_analyses& fresh) {
  if (carried.windows.size() != fresh.windows.size() ||
      carried.storage.allocations().size() != fresh.storage.allocations().size() ||
      carried.storage.planned() != fresh.storage.planned() || carried.dynamic.any != fresh.dynamic.any ||
      carried.dynamic.storage != fresh.dynamic.storage)
    return false;
  for (std::uint32_t i = 0; i < f.values.size(); ++i) {
    const value_id v{i};
    const auto* a = carried.windows.find(v);
    const auto* b = fresh.windows.find(v);
    if ((a == nullptr) != (b == nullptr) || carried.windows.storage_of(v) != fresh.windows.storage_of(v) ||
        carried.windows.is_window_source(v) != fresh.windows.is_window_source(v) ||
        carried.divisibility.of(operand::of(v)) != fresh.divisibility.of(operand::of(v)) ||
        carried.storage.index_of(v) != fresh.storage.index_of(v))
      return false;
    if (a != nullptr && (a->offset != b->offset || a->static_offset != b->static_offset || a->aligned_bits != b->aligned_bits))
      return false;
    if (f.type_of(v).is_tile() && f.has_storage(v) &&
        carried.shared_storage.differing(f, carried.windows, f.stored(v)) !=
            fresh.shared_storage.differing(f, fresh.windows, f.stored(v)))
      return false;
  }
  for (std::uint32_t o = 0; o < f.ops.size(); ++o)
    if (carried.versions.stale_use(op_id{o}) != fresh.versions.stale_use(op_id{o})) return false;
  return true;
}
}  // namespace

TEST_CASE("init_storage hands selection the analyses of the kernel it placed, as computed anew") {
  const char* const kernels[] = {
      "02_unplanned_add_mul.t2b", "04_windows.t2b", "05_runtime_valid.t2b", "07_branch.t2b",           "08_loop_swap.t2b",
      "09_spmd_alignment.t2b",    "10_k_loop.t2b",  "zoo/rms_lm_head.t2b",  "zoo/flash_attention.t2b", "zoo/rope.t2b"};
  for (const char* name : kernels) {
    INFO(name);
    program p = load(name);
    analysis_cache cache;
    init_storage_in_place(p, cache);
    std::size_t placed = 0;
    for (std::size_t i = 0; i < p.functions.size(); ++i) {
      const function& f = p.functions[i];
      if (!f.is_device() || f.stage != ir_stage::tile) continue;
      placed += 1;
      CHECK(same_answers(f, cache.get(p, i), kernel_analyses(f)));
    }
    CHECK(placed > 0);
  }
}

TEST_CASE("01_representation lowers to 01_representation.buffer with PTOAS") {
  const program expected = load("01_representation.buffer.t2b");
  CHECK(structurally_equal(lowered(load("01_representation.t2b"), planner_kind::ptoas), expected));
  // The addressed planners give the same structure plus one address per allocation.
  for (auto planner : {planner_kind::pypto, planner_kind::dsa_rp}) {
    const program got = lowered(load("01_representation.t2b"), planner);
    CHECK_FALSE(structurally_equal(got, expected));
    const function& f = got.functions[0];
    int addressed_allocs = 0;
    for (const auto& n : f.ops)
      if (n.code() == opcode::buffer_alloc && f.pool(n.args).size() == 2) ++addressed_allocs;
    CHECK(addressed_allocs == 3);
  }
}

TEST_CASE("03_storage_views lowers to one byte root with view aliases") {
  const program expected = load("03_storage_views.buffer.t2b");
  CHECK(structurally_equal(lowered(load("03_storage_views.t2b"), planner_kind::pypto), expected));
  CHECK(structurally_equal(lowered(load("03_storage_views.t2b"), planner_kind::dsa_rp), expected));
}

TEST_CASE("02_unplanned_add_mul lowers @add_mul, keeps @row_max Tile and @main unchanged") {
  const program input = load("02_unplanned_add_mul.t2b");
  for (auto planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
    const program out = lowered(input, planner);
    REQUIRE(out.functions.size() == 3);
    CHECK(out.functions[0].stage == ir_stage::buffer);
    CHECK(out.functions[1].stage == ir_stage::tile);
    CHECK(out.functions[1].buffer_ir_selected == std::optional<bool>(false));
    CHECK(structurally_equal(out.functions[2], input.functions[2]));
  }
  const auto why = explain_selection(input, options{});
  REQUIRE(why.size() == 2);
  CHECK(why[0].selected);
  CHECK(why[1].reason.view().find("reductions remain Tile") != std::string_view::npos);
}

TEST_CASE("04_windows and 09_spmd_alignment lower under every planner, windows cut at their use sites") {
  for (const char* name : {"04_windows.t2b", "09_spmd_alignment.t2b"}) {
    CAPTURE(name);
    const program input = load(name);
    for (auto planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
      const program out = lowered(input, planner);
      REQUIRE(out.functions.size() == 1);
      const function& f = out.functions[0];
      CHECK(f.stage == ir_stage::buffer);
      int subviews = 0;
      for (const auto& n : f.ops) subviews += n.code() == opcode::buffer_subview ? 1 : 0;
      // 04: the runtime window and the assemble's destination window; 09: the block's columns.
      CHECK(subviews == (std::string_view(name) == "04_windows.t2b" ? 2 : 1));
    }
  }
}

TEST_CASE("05_runtime_valid lowers under every planner and agrees with Tile for extents 0, 1, 32 and 64") {
  const program input = load("05_runtime_valid.t2b");
  for (auto planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
    const program out = lowered(input, planner);
    REQUIRE(out.functions[0].stage == ir_stage::buffer);
    int guards = 0, setters = 0;
    for (const auto& n : out.functions[0].ops) {
      guards += n.code() == opcode::cf_if ? 1 : 0;
      setters += n.code() == opcode::buffer_set_validshape ? 1 : 0;
    }
    CHECK(guards == 3);   // load, add and store run only for a non-empty rectangle
    CHECK(setters == 2);  // each dynamic handle states the extents its definition produces
    for (double cols : {0.0, 1.0, 32.0, 64.0}) {
      CAPTURE(cols);
      sim::sim_options o;
      o.scalars.push_back(sim::scalar_binding{"cols", cols});
      const auto report = testing::check_numerics(input, out, "runtime_valid", o);
      CHECK_MESSAGE(report.ok, report.text);
    }
  }
}

TEST_CASE("the simulator rejects an unguarded Buffer op on an empty valid rectangle, so a missing guard is caught") {
  const program tile = load("05_runtime_valid.t2b");
  // 05 lowered by hand without its guards: fine while cols > 0, an error at cols == 0.
  const auto unguarded = parse(
      R"(aiv @runtime_valid(X: Tensor[[16, 64], FP32], Out: out Tensor[[16, 64], FP32], cols: Scalar[INDEX]) -> Tensor[[16, 64], FP32] attributes {stage = buffer} {
  loaded = buffer.alloc((16, 64)) : Buffer[[16, 64], FP32, Vec, valid=[?, ?]]
  doubled = buffer.alloc((16, 64)) : Buffer[[16, 64], FP32, Vec, valid=[?, ?]]
  buffer.set_validshape(loaded, (16, cols))
  buffer.load(X, (0, 0), (16, cols), loaded)
  buffer.set_validshape(doubled, (16, cols))
  buffer.add(loaded, loaded, doubled)
  buffer.store(doubled, (0, 0), (16, cols), Out)
  return Out
}
)",
      "unguarded.t2b");
  REQUIRE_MESSAGE(unguarded.ok(), std::string(format_all(unguarded.errors, "unguarded.t2b").view()));
  for (double cols : {0.0, 32.0}) {
    sim::sim_options o;
    o.scalars.push_back(sim::scalar_binding{"cols", cols});
    const auto report = testing::check_numerics(tile, unguarded.value, "runtime_valid", o);
    CAPTURE(report.text);
    CHECK(report.ok == (cols > 0));
    if (cols == 0) CHECK(report.text.find("executes on an empty valid rectangle") != std::string::npos);
  }
}

TEST_CASE("07_branch and 08_loop_swap lower with every planner and agree with Tile for each flag and trip count") {
  for (const char* name : {"07_branch.t2b", "08_loop_swap.t2b"}) {
    const program input = load(name);
    for (auto planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
      CAPTURE(name);
      CAPTURE(planner);
      const program out = lowered(input, planner);
      for (const auto& f : out.functions) {
        CHECK(f.stage == ir_stage::buffer);
        for (int k = 0; k <= 3; ++k) {
          sim::sim_options o;
          o.scalars = {
              {"flag", static_cast<double>(k % 2)}, {"count", static_cast<double>(k)}, {"limit", static_cast<double>(k)}};
          const auto report = testing::check_numerics(input, out, f.name_of(), o);
          CAPTURE(report.text);
          CHECK(report.ok);
        }
      }
    }
  }
}

TEST_CASE("06_cube lowers under every planner: one allocation per matrix window, copies, matmul, matmul_acc") {
  const program input = load("06_cube.t2b");
  for (planner_kind planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
    CAPTURE(static_cast<int>(planner));
    const program out = lowered(input, planner);
    REQUIRE(out.functions.size() == 1);
    const function& f = out.functions[0];
    CHECK(f.stage == ir_stage::buffer);
    int allocs = 0, copies = 0, products = 0, accumulations = 0;
    for (const auto& n : f.ops) {
      allocs += n.code() == opcode::buffer_alloc;
      copies += n.code() == opcode::buffer_copy;
      products += n.code() == opcode::buffer_matmul;
      accumulations += n.code() == opcode::buffer_matmul_acc;
    }
    CHECK(allocs == 5);
    CHECK(copies == 2);
    CHECK(products == 1);
    CHECK(accumulations == 1);
    const auto report = testing::check_numerics(input, out, f.name_of(), sim::sim_options{});
    CAPTURE(report.text);
    CHECK(report.ok);
  }
}
