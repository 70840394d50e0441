// SPDX-License-Identifier: Apache-2.0
/// @file gen_cube_test.cpp
/// Cube kernels of the random generator (`gen_options::cube`, tests/support/gen_program.hpp):
/// they verify, survive a print/parse round trip, run in the Tile simulator under every recorded
/// binding and write every output element; the plans contain every cube form the campaign relies
/// on (operand dtypes, store conversions, transposed and extracted operands, every init_cond
/// kind, K loops, wider accumulators, Tile-only store keywords and runtime valid rows); and the cube options leave
/// every other kernel alone.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/gen_program.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/sim/compare.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;
using namespace tile2buffer::sim;

namespace {

using testing::gen_mark;

/// Kernel lengths as the cube campaign uses them: one to three chains.
int ops_for(std::uint64_t seed) { return 6 + static_cast<int>(seed % 20); }
testing::gen_options cube_kernels() {
  testing::gen_options o;
  o.cube = true;
  return o;
}

/// The cube forms of one plan, by name (see the CHECKs below for the list).
std::set<std::string> forms(const testing::gen_plan& plan) {
  std::set<std::string> has;
  const auto& steps = plan.steps;
  const auto value = [&](int v) -> const testing::gen_value& { return plan.values[static_cast<std::size_t>(v)]; };
  std::vector<int> def(plan.values.size(), -1);  // the defining step of each value
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (steps[i].mark == gen_mark::none && steps[i].result >= 0 && steps[i].op != opcode::scalar_mul &&
        steps[i].op != opcode::scalar_eq)
      def[static_cast<std::size_t>(steps[i].result)] = static_cast<int>(i);
  int loops = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const testing::gen_step& s = steps[i];
    if (s.mark == gen_mark::open) {
      ++loops;
      const int init = s.carries[0].init.id;
      const opcode from = steps[static_cast<std::size_t>(def[static_cast<std::size_t>(init)])].op;
      has.insert(from == opcode::tile_create ? "K loop from tile.create" : "K loop from a matmul");
      has.insert(s.args[1].scalar >= 0 ? "K loop, runtime trip count" : "K loop, constant trip count");
      if (s.carries.size() == 2) has.insert("K loop, two accumulators");
      if (s.args[1].scalar < 0 && s.args[1].num == s.args[0].num) has.insert("K loop, zero trips");
      // A Left operand defined before the loop and read by the body's matmul_acc.
      for (std::size_t j = i + 1; j < steps.size() && steps[j].mark != gen_mark::close; ++j)
        if (steps[j].mark == gen_mark::none && steps[j].op == opcode::tile_matmul_acc &&
            def[static_cast<std::size_t>(steps[j].in[1])] < static_cast<int>(i))
          has.insert("K loop, one Left operand for every slice");
      continue;
    }
    if (s.mark != gen_mark::none) continue;
    switch (s.op) {
      case opcode::tile_transpose_view: has.insert("transposed rhs"); break;
      case opcode::tile_extract:
        has.insert(value(s.result).space == memory_space::left ? "extract to Left" : "extract to Right");
        if (s.offsets[0].num != 0 || s.offsets[1].num != 0) has.insert("extract at nonzero offsets");
        if (s.offsets[0].scalar >= 0 || s.offsets[1].scalar >= 0) has.insert("extract at a runtime offset");
        break;
      case opcode::tile_load:
        if (s.offsets[0].scalar >= 0 || s.offsets[1].scalar >= 0) has.insert("load at a runtime offset");
        break;
      case opcode::tile_matmul:
      case opcode::tile_matmul_acc: {
        const bool acc = s.op == opcode::tile_matmul_acc;
        has.insert(std::string(name(value(s.in[acc ? 1 : 0]).dt)) + " operands");
        const testing::gen_value& lhs = value(s.in[acc ? 1 : 0]);
        if (lhs.valid[0].num < lhs.rows || lhs.valid[1].num < lhs.cols) has.insert("partially valid operands");
        if (lhs.valid[0].scalar >= 0) has.insert("runtime valid rows");
        if (!acc) break;
        const testing::gen_value& rhs = value(s.in[2]);
        if (rhs.valid[1].num < rhs.cols) has.insert("wider accumulator");
        if (s.args.empty()) {
          has.insert("matmul_acc without init_cond");
        } else if (s.args[0].scalar < 0) {
          has.insert(s.args[0].num != 0 ? "init_cond = true" : "init_cond = false");
        } else {
          const testing::gen_scalar& c = plan.scalars[static_cast<std::size_t>(s.args[0].scalar)];
          has.insert(c.param ? "init_cond = BOOL parameter" : "init_cond = k == 0");
        }
        break;
      }
      case opcode::tile_store: {
        const dtype from = value(s.in[0]).dt, to = plan.outputs[static_cast<std::size_t>(s.tensor)].dt;
        has.insert(std::string("store ") + std::string(name(from)) + " -> " + std::string(name(to)));
        for (const kwarg& k : s.flags) has.insert("store with " + std::string(keyword_names[static_cast<std::size_t>(k.key)]));
        break;
      }
      default: break;
    }
  }
  if (loops == 0) has.insert("straight line");
  // Live ranges that overlap inside one memory space (what makes a broken planner visible).
  const auto def_of = [&](int v) { return def[static_cast<std::size_t>(v)]; };
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const testing::gen_step& s = steps[i];
    if (s.mark != gen_mark::none) continue;
    const auto later_def = [&](int from, opcode op) {
      for (std::size_t j = static_cast<std::size_t>(from) + 1; j < i; ++j)
        if (steps[j].mark == gen_mark::none && steps[j].op == op) return true;
      return false;
    };
    if (s.op == opcode::tile_move && def_of(s.in[0]) >= 0 && later_def(def_of(s.in[0]), opcode::tile_load))
      has.insert("Mat loads before their moves");
    if (s.op == opcode::tile_matmul_acc && def_of(s.in[1]) >= 0 && def_of(s.in[0]) >= 0 && def_of(s.in[1]) < def_of(s.in[0]))
      has.insert("operands in L0 before an earlier product");
    if (s.op == opcode::tile_store && def_of(s.in[0]) >= 0 &&
        (later_def(def_of(s.in[0]), opcode::tile_matmul) || later_def(def_of(s.in[0]), opcode::tile_create)))
      has.insert("accumulators of two chains live at once");
  }
  return has;
}

}  // namespace

TEST_CASE("cube kernels verify, round-trip, and run in the Tile simulator for every binding (keyword stores are refused)") {
  constexpr std::uint64_t kernels = 300;
  std::map<std::string, int> kernels_with;
  std::map<std::string, int> reasons;
  int runs = 0;
  for (std::uint64_t seed = 1; seed <= kernels; ++seed) {
    CAPTURE(seed);
    const testing::gen_plan plan = testing::generate_plan(seed, ops_for(seed), cube_kernels());
    const program p = testing::emit(plan);
    const function& f = p.functions.front();
    CHECK(f.kind == function_kind::aic);
    const auto diags = verify(p);
    INFO((diags.empty() ? std::string() : std::string(format_all(diags, "gen.t2b").view())));
    INFO(std::string(print(p).view()));
    REQUIRE(diags.empty());
    const auto reparsed = parse(print(p).view(), "gen.t2b");
    REQUIRE(reparsed.ok());
    CHECK(structurally_equal(reparsed.value.functions[0], f));
    const std::set<std::string> has = forms(plan);
    for (const auto& h : has) ++kernels_with[h];
    if (!plan.tile_reason.empty()) ++reasons[plan.tile_reason];
    const bool runtime_valid = plan.tile_reason == "static positive valid extents";
    // A Tile-only kernel has exactly one store with its keyword (or a runtime valid extent); the others have none.
    int flagged = 0;
    for (const auto& s : plan.steps) flagged += static_cast<int>(s.flags.size());
    CHECK(flagged == (plan.tile_reason.empty() || runtime_valid ? 0 : 1));
    if (!plan.tile_reason.empty() && !runtime_valid) CHECK(has.count("store with " + plan.tile_reason) == 1);
    if (runtime_valid) CHECK(has.count("runtime valid rows") == 1);
    for (const testing::gen_binding& b : testing::bindings(plan)) {
      const sim_options o = testing::sim_options_for(plan, b, seed);
      CAPTURE(testing::describe(b));
      const run_result r = run_tile(p, f, make_inputs(f, o), o);
      INFO((r.ok() ? std::string() : std::string(r.errors.front().message.view())));
      if (const bool keyword_store = !plan.tile_reason.empty() && !runtime_valid; keyword_store) {
        // A quantizing, relu or atomic store is refused, never run as a plain store.
        REQUIRE(!r.ok());
        CHECK(std::string(r.errors.front().message.view()).find("a store with '" + plan.tile_reason + "' is not simulated") !=
              std::string::npos);
        break;
      }
      REQUIRE(r.ok());
      ++runs;
      // Every output element is written once, from defined data (no accumulator poison); a
      // runtime valid row count below its maximum leaves the rows beyond it unwritten.
      for (std::size_t q = 0; q < f.params.size() && !runtime_valid; ++q) {
        if (f.params[q].dir != direction::out) continue;
        const gm_tensor& t = *r.tensors[q];
        for (std::int64_t e = 0; e < t.size(); ++e) REQUIRE(t.meta_at(e).state == cell_state::value);
      }
    }
  }
  std::string counts;
  for (const auto& [form, n] : kernels_with) counts += "\n  " + form + ": " + std::to_string(n);
  std::string tile;
  for (const auto& [why, n] : reasons) tile += " " + std::to_string(n) + " x `" + why + "`";
  MESSAGE(kernels, " cube kernels, ", runs, " Tile runs; Tile-only:", tile, "; kernels with:", counts);
  for (const char* form : {"FP16 operands",
                           "BF16 operands",
                           "FP32 operands",
                           "INT8 operands",
                           "store FP32 -> FP32",
                           "store FP32 -> FP16",
                           "store FP32 -> BF16",
                           "store INT32 -> INT32",
                           "transposed rhs",
                           "extract to Left",
                           "extract to Right",
                           "extract at nonzero offsets",
                           "matmul_acc without init_cond",
                           "init_cond = true",
                           "init_cond = false",
                           "init_cond = BOOL parameter",
                           "init_cond = k == 0",
                           "K loop from tile.create",
                           "K loop from a matmul",
                           "K loop, runtime trip count",
                           "K loop, constant trip count",
                           "K loop, zero trips",
                           "load at a runtime offset",
                           "wider accumulator",
                           "straight line",
                           "Mat loads before their moves",
                           "operands in L0 before an earlier product",
                           "accumulators of two chains live at once",
                           "extract at a runtime offset",
                           "K loop, one Left operand for every slice",
                           "K loop, two accumulators",
                           "partially valid operands"}) {
    const std::string form_name = form;
    CAPTURE(form_name);
    CHECK(kernels_with[form_name] >= 8);
  }
  // About one kernel in ten must stay Tile, spread over the three store keywords and runtime rows.
  int stays_tile = 0;
  for (const auto& [why, n] : reasons) {
    CHECK(n >= 3);
    stays_tile += n;
  }
  CHECK(reasons.size() == 4);
  CHECK(stays_tile >= 15);
  CHECK(stays_tile <= 50);
  CHECK(runs >= 400);
}

TEST_CASE("cube kernels are deterministic, and the cube options touch nothing with cube off") {
  CHECK(structurally_equal(testing::generate_kernel(9, 20, cube_kernels()).functions[0],
                           testing::generate_kernel(9, 20, cube_kernels()).functions[0]));
  testing::gen_options off, tuned;
  tuned.cube_loop_probability = 0.9;
  tuned.cube_wide_probability = 0.9;
  tuned.cube_acc_probability = 0.9;
  tuned.cube_transpose_probability = 0.9;
  tuned.cube_extract_probability = 0.9;
  tuned.cube_tile_probability = 0.9;
  tuned.cube_partial_probability = 0.9;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    off.regions = tuned.regions = seed % 3 == 0;
    off.windows = tuned.windows = seed % 2 == 0;
    CHECK(structurally_equal(testing::generate_kernel(seed, 20, off).functions[0],
                             testing::generate_kernel(seed, 20, tuned).functions[0]));
  }
}
