// SPDX-License-Identifier: Apache-2.0
/// @file gen_test.cpp
/// The random kernel generator (tests/support/gen_program.hpp): generated kernels verify, run to
/// finite results, cover the spec's elementwise table, and agree with a naive Buffer lowering
/// under the numerics check, which catches mutated lowerings.
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "sim/naive_lower.hpp"
#include "support/gen_program.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"
#include "tile2buffer/sim/compare.hpp"

using namespace tile2buffer;
using namespace tile2buffer::sim;
using sim_test::naive_lower;
using sim_test::naive_options;

namespace {
int ops_for(std::uint64_t seed) { return 8 + static_cast<int>(seed % 53); }
sim_options seeded(std::uint64_t seed) {
  sim_options o;
  o.seed = seed;
  return o;
}
std::string kernel_name(std::uint64_t seed) { return "gen_" + std::to_string(seed); }
}  // namespace

TEST_CASE("generated kernels verify, run, and store finite values everywhere") {
  std::set<std::pair<opcode, dtype>> seen;
  int shared_inputs = 0, dead_values = 0;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    CAPTURE(seed);
    const program p = testing::generate_kernel(seed, ops_for(seed));
    const function& f = p.functions.front();
    const auto diags = verify(p);
    INFO((diags.empty() ? std::string() : std::string(format_all(diags, "gen.t2b").view())));
    REQUIRE(diags.empty());
    REQUIRE(f.name_of() == kernel_name(seed));
    const sim_inputs in = make_inputs(f, seeded(seed));
    const run_result r = run_tile(p, f, in, seeded(seed));
    INFO((r.ok() ? std::string() : std::string(r.errors.front().message.view())));
    REQUIRE(r.ok());
    for (std::size_t q = 0; q < f.params.size(); ++q) {
      if (f.params[q].dir != direction::out) continue;
      const gm_tensor& t = *r.tensors[q];
      for (std::int64_t e = 0; e < t.size(); ++e) {
        REQUIRE(t.meta_at(e).state == cell_state::value);  // every slot of every output is stored once
        if (is_float(t.dt)) REQUIRE(std::isfinite(t.get(e).f));
      }
    }
    std::set<std::uint32_t> loaded, used;
    for (const auto& node : f.ops) {
      const opcode c = node.code();
      if (c == opcode::cf_return) continue;
      const value_id first = value_id{f.args(op_id{static_cast<std::uint32_t>(&node - f.ops.data())})[0].ref};
      const dtype d = c == opcode::tile_store ? f.type_of(first).dt : f.type_of(value_id{node.results.begin}).dt;
      seen.insert({c, d});
      if (c == opcode::tile_load && !loaded.insert(first.index).second) ++shared_inputs;
    }
    for (std::uint32_t o = 0; o < f.ops.size(); ++o)
      for (const auto& a : f.args(op_id{o}))
        if (a.is_value()) used.insert(a.ref);
    for (std::uint32_t o = 0; o < f.ops.size(); ++o)
      if (f.ops[o].results.count == 1 && f.type_of(f.result(op_id{o})).is_tile() && !used.count(f.result(op_id{o}).index))
        ++dead_values;
  }
  // The spec's elementwise table, each op with exactly its allowed element types, plus transfers.
  std::set<std::pair<opcode, dtype>> want;
  for (const auto& row : elementwise_table)
    for (std::size_t i = 0; i < row.count; ++i) want.insert({row.op, row.dtypes[i]});
  for (const dtype d : {dtype::fp16, dtype::bf16, dtype::fp32, dtype::int32}) {
    want.insert({opcode::tile_load, d});
    want.insert({opcode::tile_store, d});
  }
  for (const auto& w : want) {
    CAPTURE(mnemonic(w.first));
    CAPTURE(name(w.second));
    CHECK(seen.count(w) == 1);
  }
  for (const auto& s : seen) {  // and nothing outside the table (e.g. no BF16 arithmetic)
    CAPTURE(mnemonic(s.first));
    CAPTURE(name(s.second));
    CHECK(want.count(s) == 1);
  }
  CHECK(shared_inputs > 50);
  CHECK(dead_values > 50);
}

TEST_CASE("generation is deterministic per seed and options") {
  CHECK(structurally_equal(testing::generate_kernel(42, 30).functions[0], testing::generate_kernel(42, 30).functions[0]));
  CHECK_FALSE(structurally_equal(testing::generate_kernel(42, 30).functions[0], testing::generate_kernel(43, 30).functions[0]));
  testing::gen_options fp32_only;
  fp32_only.fp16 = fp32_only.bf16 = fp32_only.int32 = false;
  const program p = testing::generate_kernel(42, 40, fp32_only);
  for (const auto& v : p.functions[0].values)
    if (v.ty.is_tile() || v.ty.is_tensor()) REQUIRE(v.ty.dt == dtype::fp32);
  // The op budget is met: loads, computations and stores count one each (plus final stores).
  CHECK(p.functions[0].ops.size() >= 41);
}

TEST_CASE("generated kernels agree with their naive Buffer lowering, addressless and addressed with reuse") {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    CAPTURE(seed);
    const program tile = testing::generate_kernel(seed, ops_for(seed));
    naive_options addressless, addressed, in_place;
    addressed.addressed = in_place.addressed = true;
    addressed.in_place = false;
    for (const naive_options& o : {addressless, addressed, in_place}) {
      const program buffer = naive_lower(tile, o);
      REQUIRE(verify(buffer).empty());
      const compare_report r = check_numerics(tile, buffer, kernel_name(seed), seeded(seed));
      INFO(r.text);
      REQUIRE(r.ok);
    }
  }
}

TEST_CASE("mutated lowerings of generated kernels are caught") {
  int early_free_caught = 0, overlapped = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    const program tile = testing::generate_kernel(seed, ops_for(seed));
    const std::string k = kernel_name(seed);
    naive_options drop;
    drop.drop_store_source = 0;
    const compare_report dropped = check_numerics(tile, naive_lower(tile, drop), k, seeded(seed));
    REQUIRE_FALSE(dropped.ok);
    CHECK(dropped.mismatches.front().what == mismatch::kind::buffer_poison);
    CHECK(dropped.text.find("was read before anything wrote it") != std::string::npos);

    int stores = 0;
    for (const auto& n : tile.functions[0].ops) stores += n.code() == opcode::tile_store;
    naive_options shift;
    shift.shift_store = stores - 1;
    const compare_report shifted = check_numerics(tile, naive_lower(tile, shift), k, seeded(seed));
    REQUIRE_FALSE(shifted.ok);

    // Free a loaded value's storage right after the load while it is still read later.
    const function& f = tile.functions[0];
    for (std::uint32_t o = 0; o < f.ops.size(); ++o) {
      if (f.ops[o].code() != opcode::tile_load) continue;
      naive_options early;
      early.addressed = true;
      early.early_free = static_cast<int>(f.result(op_id{o}).index);
      sim_test::naive_report how;
      const program buffer = naive_lower(tile, early, &how);
      const bool caught = !check_numerics(tile, buffer, k, seeded(seed)).ok;
      // No false alarm: a failure needs storage that really overlapped a live value.
      CHECK((!caught || how.victim_overlapped));
      overlapped += how.victim_overlapped;
      early_free_caught += caught;
    }
  }
  // A clobbered value hides only when the data written over it is equal (e.g. the same input
  // window loaded twice) or when nothing reads the clobbered part afterwards.
  CHECK(overlapped > 40);
  CHECK(early_free_caught * 10 >= overlapped * 8);
}
