// SPDX-License-Identifier: Apache-2.0
/// @file pass_test.cpp
/// A host's own passes in its own pass set (passes/pass.hpp): run in order with the library's,
/// observed by name, chosen by name at run time, and in constant evaluation.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "support/kernels.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/pipeline.hpp"
#include "tile2buffer/text/parse.hpp"

using namespace tile2buffer;
using namespace t2b_test;

namespace {

/// A transforming pass: after selection, keeps every kernel whose name starts with "keep" Tile.
struct keep_tile_pass {
  static constexpr std::string_view name = "keep_tile";
  template <class Recipes>
  static constexpr result<program> run(const program& p, const options&, analysis_cache& cache) {
    result<program> r;
    r.value = p;
    for (std::size_t i = 0; i < r.value.functions.size(); ++i) {
      function& f = r.value.functions[i];
      if (!f.is_device() || !f.name_of().starts_with("keep")) continue;
      f.buffer_ir_selected = false;
      cache.invalidate(i);
    }
    return r;
  }
};

/// A checking pass: refuses a kernel with more than `Max` ops.
template <std::size_t Max>
struct op_budget_pass {
  static constexpr std::string_view name = "op_budget";
  static constexpr std::vector<diagnostic> check(const program& p, const options&, analysis_cache&) {
    std::vector<diagnostic> out;
    for (const function& f : p.functions)
      if (f.ops.size() > Max) out.push_back(diagnostic{location{}, text("op_budget"), text("kernel over the op budget"), {}});
    return out;
  }
};

template <std::size_t Max>
struct host_passes : pass_list<init_storage_pass, select_pass, keep_tile_pass, legalize_pass, verify_tile_storage_pass, plan_pass,
                               op_budget_pass<Max>, lower_pass, verify_buffer_pass> {};

static_assert(pass_table<host_passes<100>, default_recipes>::checked);
static_assert(pass_table<host_passes<100>, default_recipes>::find("keep_tile") == 2);
static_assert(pass_table<host_passes<100>, default_recipes>::find("nothing") ==
              pass_table<host_passes<100>, default_recipes>::npos);

// Constant evaluation: the host's set lowers the spec's kernel, and its checking pass can refuse it.
template <std::size_t Budget>
constexpr bool host_set_lowers() {
  const auto r = run_pipeline<default_recipes, host_passes<Budget>>(single(add_mul_kernel()), options{});
  return r.ok() && r.value.functions[0].stage == ir_stage::buffer;
}
static_assert(host_set_lowers<100>());
static_assert(!host_set_lowers<2>());

constexpr const char* two_kernels =
    R"(aiv @k(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  x = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  y = tile.exp(x) : Tile[[16, 32], FP32, Vec]
  r = tile.store(y, (0, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
aiv @keep_k(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  x = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  y = tile.exp(x) : Tile[[16, 32], FP32, Vec]
  r = tile.store(y, (0, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
)";

struct names_seen {
  std::vector<std::string> before, after;
  static void on_before(void* self, std::string_view pass) { static_cast<names_seen*>(self)->before.emplace_back(pass); }
  static void on_after(void* self, std::string_view pass, const program&) {
    static_cast<names_seen*>(self)->after.emplace_back(pass);
  }
};

std::string errors_of(const std::vector<diagnostic>& ds) { return std::string(format_all(ds, "t").view()); }

}  // namespace

TEST_CASE("a host's own pass runs in its place in the host's pass set and is observed by name") {
  const auto parsed = parse(two_kernels, "two.t2b");
  REQUIRE_MESSAGE(parsed.ok(), errors_of(parsed.errors));
  names_seen seen;
  const pass_observer observer{&seen, &names_seen::on_before, &names_seen::on_after};
  const auto r = run_pipeline<default_recipes, host_passes<100>>(parsed.value, options{}, std::nullopt, {}, &observer);
  REQUIRE_MESSAGE(r.ok(), errors_of(r.errors));
  CHECK(r.value.functions[0].stage == ir_stage::buffer);
  CHECK(r.value.functions[1].stage == ir_stage::tile);  // keep_tile unselected it after select
  CHECK(r.value.functions[1].buffer_ir_selected == std::optional<bool>(false));
  const std::vector<std::string> order{"init_storage", "select",    "keep_tile", "legalize",     "verify_tile_storage",
                                       "plan",         "op_budget", "lower",     "verify_buffer"};
  CHECK(seen.before == order);
  CHECK(seen.after == order);

  // The default set lowers both kernels.
  const auto plain = run_pipeline(parsed.value, options{});
  REQUIRE(plain.ok());
  CHECK(plain.value.functions[1].stage == ir_stage::buffer);
}

TEST_CASE("a host's checking pass fails the run with its diagnostic and no program") {
  const auto r = run_pipeline<default_recipes, host_passes<2>>(single(add_mul_kernel()), options{});
  REQUIRE_FALSE(r.ok());
  CHECK(errors_of(r.errors).find("kernel over the op budget") != std::string::npos);
  CHECK(r.value.functions.empty());
}

TEST_CASE("run_pass_pipeline runs a host set's passes by name, in the order given") {
  const auto parsed = parse(two_kernels, "two.t2b");
  REQUIRE(parsed.ok());
  const std::string_view listed[] = {"init_storage", "select", "keep_tile", "plan", "lower"};
  const auto r = run_pass_pipeline<default_recipes, host_passes<100>>(parsed.value, options{}, listed);
  REQUIRE_MESSAGE(r.ok(), errors_of(r.errors));
  CHECK(r.value.functions[0].stage == ir_stage::buffer);
  CHECK(r.value.functions[1].stage == ir_stage::tile);

  const std::string_view typo[] = {"init_storage", "keep_tiles"};
  const auto bad = run_pass_pipeline<default_recipes, host_passes<100>>(parsed.value, options{}, typo);
  REQUIRE_FALSE(bad.ok());
  CHECK(errors_of(bad.errors)
            .find("unknown pass 'keep_tiles'; the passes are init_storage, select, keep_tile, legalize, "
                  "verify_tile_storage, plan, op_budget, lower, verify_buffer") != std::string::npos);
}

TEST_CASE("the default set's names, run by name, give the default pipeline's program") {
  const program p = mixed_program();
  const std::vector<std::string_view> all(pass_names.begin(), pass_names.end());
  for (const planner_kind planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
    const options opts{.planner = planner};
    const auto listed = run_pass_pipeline(p, opts, all);
    const auto fixed = run_pipeline(p, opts);
    REQUIRE(listed.ok());
    REQUIRE(fixed.ok());
    CHECK(structurally_equal(listed.value, fixed.value));
  }
}
