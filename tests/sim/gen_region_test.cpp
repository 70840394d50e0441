// SPDX-License-Identifier: Apache-2.0
/// @file gen_region_test.cpp
/// Region kernels of the random generator (`gen_options::regions`, tests/support/gen_program.hpp):
/// they verify, survive a print/parse round trip and run in the Tile simulator under every
/// recorded binding; the bindings reach every flag value and every trip count; the plan has
/// every kind of branch, loop, carry and nesting the campaign relies on; Tile-only kernels
/// contain their construct; and the region options leave every other seed's program alone (the
/// pinned hashes of gen_test.cpp cover regions off).
#include <doctest/doctest.h>

#include <algorithm>
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
using testing::gen_ref_kind;

/// The features of one plan, by name (see the CHECKs below for the list).
std::set<std::string> features(const testing::gen_plan& plan) {
  std::set<std::string> has;
  const auto& steps = plan.steps;
  std::vector<int> def(plan.values.size(), -1);  // defining step of each value
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (steps[i].mark == gen_mark::none && steps[i].result >= 0 && steps[i].op != opcode::scalar_add &&
        steps[i].op != opcode::scalar_mul && steps[i].op != opcode::scalar_min && steps[i].op != opcode::tile_get_block_idx)
      def[static_cast<std::size_t>(steps[i].result)] = static_cast<int>(i);
  const auto close_of = [&](std::size_t open) {
    int depth = 0;
    for (std::size_t i = open; i < steps.size(); ++i) {
      depth += steps[i].mark == gen_mark::open;
      if (steps[i].mark == gen_mark::close && --depth == 0) return i;
    }
    return steps.size();
  };
  const auto inside = [&](int v, std::size_t from, std::size_t to) {
    const int d = def[static_cast<std::size_t>(v)];
    return d >= static_cast<int>(from) && d < static_cast<int>(to);
  };
  std::vector<opcode> stack;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const testing::gen_step& s = steps[i];
    if (s.mark == gen_mark::close) stack.pop_back();
    if (s.mark != gen_mark::open) continue;
    const std::size_t end = close_of(i);
    const bool in_loop = std::find_if(stack.begin(), stack.end(), [](opcode c) { return c != opcode::cf_if; }) != stack.end();
    const bool in_branch = std::find(stack.begin(), stack.end(), opcode::cf_if) != stack.end();
    if (s.op == opcode::cf_if) {
      has.insert(in_loop ? "branch in a loop" : "branch");
      std::size_t next = i + 1;
      for (int depth = 0; next < end; ++next) {
        depth += steps[next].mark == gen_mark::open;
        depth -= steps[next].mark == gen_mark::close;
        if (steps[next].mark == gen_mark::next && depth == 0) break;
      }
      const auto& a = steps[next - 1].refs;
      const auto& b = steps[end - 1].refs;
      for (std::size_t c = 0; c < s.carries.size(); ++c) {
        if (a[c].kind == gen_ref_kind::scalar) has.insert("branch scalar result");
        if (a[c].kind == gen_ref_kind::tensor)
          has.insert(a[c].id == b[c].id ? "GM branch result, one parameter" : "GM branch result, two parameters");
        if (a[c].kind != gen_ref_kind::tile) continue;
        has.insert("branch Tile result");
        const bool fresh_a = inside(a[c].id, i, next), fresh_b = inside(b[c].id, next, end);
        if (fresh_a || fresh_b) has.insert("arm yielding a fresh value");
        if (!fresh_a || !fresh_b) has.insert("arm yielding a value defined before");
        if (a[c].id == b[c].id) has.insert("same value in both arms");
        for (std::size_t d = 0; d < s.carries.size(); ++d)
          if (d != c && a[d].kind == gen_ref_kind::tile && a[c].id != a[d].id && a[c].id == b[d].id && a[d].id == b[c].id)
            has.insert("swapped pair");
      }
    } else {
      const bool is_for = s.op == opcode::cf_for;
      if (!is_for) has.insert("while");
      if (is_for && s.args[2].scalar >= 0) has.insert("runtime step");
      else if (is_for && s.args[1].scalar >= 0) has.insert("runtime trip count");
      else if (is_for) has.insert(s.trips == 0 ? "zero-trip constant loop" : "constant trip count");
      if (in_loop) has.insert("loop in a loop");
      if (in_branch) has.insert("loop in a branch");
      const auto& y = steps[end - 1].refs;
      std::vector<int> args;
      for (const auto& c : s.carries) args.push_back(c.arg);
      const auto arg_at = [&](int v) { return static_cast<int>(std::find(args.begin(), args.end(), v) - args.begin()); };
      for (std::size_t c = 0; c < s.carries.size(); ++c) {
        const testing::gen_carry& g = s.carries[c];
        if (g.init.kind == gen_ref_kind::scalar && (is_for || c > 0)) has.insert("scalar carry");
        if (g.init.kind == gen_ref_kind::tensor)
          has.insert(y[c].id == g.init.id ? (g.init.id >= 0 ? "GM carry of an output" : "GM carry of an input")
                                          : "GM carry changing its parameter");
        if (g.init.kind != gen_ref_kind::tile) continue;
        for (std::size_t d = c + 1; d < s.carries.size(); ++d) {
          if (s.carries[d].init.kind != gen_ref_kind::tile) continue;
          if (s.carries[d].init.id == g.init.id) has.insert("fan-out initializer");
          if (y[d].id == y[c].id) has.insert("fan-out yield");
        }
        const int from = arg_at(y[c].id);  // the carry whose argument this one receives
        if (from < static_cast<int>(args.size()) && from != static_cast<int>(c)) {
          const int back = arg_at(y[static_cast<std::size_t>(from)].id);
          if (back == static_cast<int>(c)) has.insert("swap");
          else if (back < static_cast<int>(args.size()) && arg_at(y[static_cast<std::size_t>(back)].id) == static_cast<int>(c))
            has.insert("rotation");
        }
        const int d = def[static_cast<std::size_t>(y[c].id)];
        if (d >= 0 && steps[static_cast<std::size_t>(d)].op == opcode::tile_add &&
            std::find(steps[static_cast<std::size_t>(d)].in.begin(), steps[static_cast<std::size_t>(d)].in.end(), g.arg) !=
                steps[static_cast<std::size_t>(d)].in.end())
          has.insert("accumulator");
        for (std::size_t k = end + 1; k < steps.size(); ++k)
          if (std::find(steps[k].in.begin(), steps[k].in.end(), g.init.id) != steps[k].in.end())
            has.insert("initializer read after the loop");
      }
    }
    stack.push_back(s.op);
  }
  return has;
}

}  // namespace

TEST_CASE("region kernels verify, round-trip, and run in the Tile simulator for every binding") {
  std::map<std::string, int> kernels_with;
  std::map<std::string, int> reasons;
  int runs = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    CAPTURE(seed);
    testing::gen_options gen;
    gen.regions = true;
    gen.rows = 8;
    gen.windows = seed % 2 == 0;
    const testing::gen_plan plan = testing::generate_plan(seed, 6 + static_cast<int>(seed % 12), gen);
    const program p = testing::emit(plan);
    const function& f = p.functions.front();
    const auto diags = verify(p);
    INFO((diags.empty() ? std::string() : std::string(format_all(diags, "gen.t2b").view())));
    REQUIRE(diags.empty());
    const auto reparsed = parse(print(p).view(), "gen.t2b");
    REQUIRE(reparsed.ok());
    CHECK(structurally_equal(reparsed.value.functions[0], f));
    for (const auto& h : features(plan)) ++kernels_with[h];
    if (!plan.tile_reason.empty()) ++reasons[plan.tile_reason];
    // Each Tile-only kernel contains its construct.
    const std::set<std::string> has = features(plan);
    if (plan.tile_reason == "step") CHECK(has.count("runtime step") == 1);
    if (plan.tile_reason.find("GM branch") == 0) CHECK(has.count("GM branch result, two parameters") == 1);
    if (plan.tile_reason.find("GM loop") == 0) CHECK(has.count("GM carry changing its parameter") == 1);
    if (plan.tile_reason.empty())
      CHECK(has.count("runtime step") + has.count("GM branch result, two parameters") +
                has.count("GM carry changing its parameter") ==
            0);

    // Bindings: every flag at 0 and 1, every count and limit at 0..3, every step at 1 and 2.
    const auto binds = testing::bindings(plan);
    std::map<std::string, std::set<std::int64_t>> seen;
    for (const auto& b : binds)
      for (const auto& [name, value] : b.scalars) seen[name].insert(value);
    for (const testing::gen_scalar& s : plan.scalars) {
      if (!s.control) continue;
      CAPTURE(s.name);
      const std::set<std::int64_t> want = s.flag      ? std::set<std::int64_t>{0, 1}
                                          : s.lo == 1 ? std::set<std::int64_t>{1, 2}
                                                      : std::set<std::int64_t>{0, 1, 2, 3};
      CHECK(seen[s.name] == want);
    }
    for (const testing::gen_binding& b : binds) {
      const sim_options o = testing::sim_options_for(plan, b, seed);
      CAPTURE(testing::describe(b));
      const run_result r = run_tile(p, f, make_inputs(f, o), o);
      INFO((r.ok() ? std::string() : std::string(r.errors.front().message.view())));
      REQUIRE(r.ok());
      ++runs;
    }
  }
  std::string counts;
  for (const auto& [feature, n] : kernels_with) counts += "\n  " + feature + ": " + std::to_string(n);
  std::string tile;
  for (const auto& [why, n] : reasons) tile += " " + std::to_string(n) + " x `" + why + "`";
  MESSAGE("300 region kernels, ", runs, " Tile runs; Tile-only:", tile, "; kernels with:", counts);
  for (const char* feature : {"branch",
                              "branch in a loop",
                              "branch Tile result",
                              "branch scalar result",
                              "arm yielding a fresh value",
                              "arm yielding a value defined before",
                              "same value in both arms",
                              "swapped pair",
                              "GM branch result, one parameter",
                              "while",
                              "runtime trip count",
                              "constant trip count",
                              "zero-trip constant loop",
                              "loop in a loop",
                              "loop in a branch",
                              "scalar carry",
                              "GM carry of an output",
                              "fan-out initializer",
                              "fan-out yield",
                              "swap",
                              "rotation",
                              "accumulator",
                              "initializer read after the loop"}) {
    const std::string name = feature;
    CAPTURE(name);
    CHECK(kernels_with[name] >= 5);
  }
  // About one kernel in ten must stay Tile, spread over the three constructs.
  int stays_tile = 0;
  for (const auto& [why, n] : reasons) {
    CHECK(n >= 3);
    stays_tile += n;
  }
  CHECK(reasons.size() == 3);
  CHECK(stays_tile >= 15);
  CHECK(stays_tile <= 50);
  CHECK(runs >= 1000);
}

TEST_CASE("region kernels are deterministic, and the region options touch nothing with regions off") {
  testing::gen_options on;
  on.regions = true;
  CHECK(structurally_equal(testing::generate_kernel(9, 20, on).functions[0], testing::generate_kernel(9, 20, on).functions[0]));
  // Region tuning knobs are read only with regions on: changing them changes no other kernel.
  testing::gen_options off, tuned;
  tuned.region_probability = 0.9;
  tuned.region_tile_probability = 0.9;
  tuned.region_depth = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    CHECK(structurally_equal(testing::generate_kernel(seed, 20, off).functions[0],
                             testing::generate_kernel(seed, 20, tuned).functions[0]));
    off.windows = tuned.windows = seed % 2 == 0;
  }
}
