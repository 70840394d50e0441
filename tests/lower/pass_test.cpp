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
#include "tile2buffer/text/print.hpp"

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

// fold_matmul_if (quantized-path.md §2.7): the K loop of pypto-lib's gemm.py, `if k == 0: matmul
// else: matmul_acc` on one accumulator with the operands computed before the if.
constexpr std::string_view matmul_if_kernel =
    R"(aic @k_loop(A: Tensor[[32, 64], FP32], B: Tensor[[64, 32], FP32], Out: out Tensor[[32, 32], FP32]) -> Tensor[[32, 32], FP32] {
  zero = tile.create() : Tile[[32, 32], FP32, Acc]
  acc = for k in range(0, 2, 1) iter(c = zero) -> (Tile[[32, 32], FP32, Acc]) {
    off = k * 32
    a = tile.load(A, (0, off), (32, 32)) : Tile[[32, 32], FP32, Mat]
    b = tile.load(B, (off, 0), (32, 32)) : Tile[[32, 32], FP32, Mat]
    a_l0 = tile.move(a) : Tile[[32, 32], FP32, Left]
    b_l0 = tile.move(b) : Tile[[32, 32], FP32, Right]
    first = k == 0
    next = if first -> (Tile[[32, 32], FP32, Acc]) {
      m = tile.matmul(a_l0, b_l0) : Tile[[32, 32], FP32, Acc]
      yield m
    } else {
      m2 = tile.matmul_acc(c, a_l0, b_l0) : Tile[[32, 32], FP32, Acc]
      yield m2
    }
    yield next
  }
  result = tile.store(acc, (0, 0), Out) : Tensor[[32, 32], FP32]
  return result
}
)";

constexpr std::size_t count_ops(const function& f, opcode code) {
  std::size_t n = 0;
  for (const op_node& o : f.ops) n += o.code() == code ? 1 : 0;
  return n;
}

// The default set runs the fold second, only under the extended rollout and only for Buffer IR.
constexpr std::size_t fold_at = pass_table<default_passes, default_recipes>::find("fold_matmul_if");
static_assert(fold_at == static_cast<std::size_t>(pass_id::fold_matmul_if) && fold_at == 1);
static_assert(pass_table<default_passes, default_recipes>::entries[fold_at].extended_rollout_only);
static_assert(pass_table<default_passes, default_recipes>::entries[fold_at].buffer_ir_only);

// Constant evaluation: the pass alone folds the if into one matmul_acc (no if, no matmul left)
// and leaves the default rollout's program as it was; the whole pipeline lowers the kernel under
// the extended rollout with every planner and keeps it Tile under the default one.
constexpr bool matmul_if_folds() {
  const auto parsed = parse(matmul_if_kernel, "k.t2b");
  if (!parsed.ok()) return false;
  analysis_cache cache;
  const auto folded = fold_matmul_if_pass::run<default_recipes>(parsed.value, options{.rollout = rollout_kind::extended}, cache);
  if (!folded.ok() || !verify<>(folded.value).empty()) return false;
  const function& f = folded.value.functions[0];
  if (count_ops(f, opcode::cf_if) != 0 || count_ops(f, opcode::tile_matmul) != 0 || count_ops(f, opcode::tile_matmul_acc) != 1)
    return false;
  analysis_cache cache2;
  const auto kept = fold_matmul_if_pass::run<default_recipes>(parsed.value, options{}, cache2);
  return kept.ok() && structurally_equal(kept.value, parsed.value) && count_ops(parsed.value.functions[0], opcode::cf_if) == 1;
}
static_assert(matmul_if_folds());

constexpr bool matmul_if_lowers(rollout_kind rollout, planner_kind planner) {
  const auto parsed = parse(matmul_if_kernel, "k.t2b");
  if (!parsed.ok()) return false;
  const auto r = run_pipeline(parsed.value, options{.planner = planner, .rollout = rollout});
  return r.ok() && r.value.functions[0].stage == ir_stage::buffer;
}
static_assert(matmul_if_lowers(rollout_kind::extended, planner_kind::pypto));
static_assert(matmul_if_lowers(rollout_kind::extended, planner_kind::dsa_rp));
static_assert(matmul_if_lowers(rollout_kind::extended, planner_kind::ptoas));
static_assert(!matmul_if_lowers(rollout_kind::standard, planner_kind::pypto));

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

TEST_CASE("planning places values, not types: tiles in different allocations share one interned type") {
  const program p = single(add_mul_kernel());
  for (const planner_kind planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
    const auto planned = run_pipeline(p, options{.planner = planner}, pass_id::plan);
    REQUIRE(planned.ok());
    const function& f = planned.value.functions[0];
    std::size_t placed = 0;
    for (std::uint32_t i = 0; i < f.values.size(); ++i) placed += f.has_storage(value_id{i}) ? 1 : 0;
    CHECK(placed == 4);
    // The allocation handle's type is the only new one.
    CHECK(f.types.size() == p.functions[0].types.size() + 1);
  }
}
TEST_CASE("init_storage adds allocations in place: every op, value and region keeps its id, the allocations lead the body") {
  const auto parsed = parse(matmul_if_kernel, "k.t2b");
  REQUIRE_MESSAGE(parsed.ok(), errors_of(parsed.errors));
  const function& f = parsed.value.functions[0];
  const auto stored = run_pass(pass_id::init_storage, parsed.value, options{});
  REQUIRE_MESSAGE(stored.ok(), errors_of(stored.errors));
  const function& g = stored.value.functions[0];
  CHECK(verify<>(stored.value).empty());
  REQUIRE(g.ops.size() > f.ops.size());
  for (std::uint32_t i = 0; i < f.ops.size(); ++i) {
    CHECK(g.op(op_id{i}).code() == f.op(op_id{i}).code());
    CHECK(g.op(op_id{i}).results.begin == f.op(op_id{i}).results.begin);
  }
  for (std::uint32_t i = 0; i < f.values.size(); ++i) CHECK(g.type_of(value_id{i}) == f.type_of(value_id{i}));
  // The body: the new allocations, then the old body; every other region lists what it did.
  const auto body = g.ops_of(g.body);
  const auto old_body = f.ops_of(f.body);
  const std::size_t added = g.ops.size() - f.ops.size();
  REQUIRE(body.size() == old_body.size() + added);
  for (std::size_t k = 0; k < added; ++k) CHECK(g.op(body[k]).code() == opcode::tile_alloc);
  for (std::size_t k = 0; k < old_body.size(); ++k) CHECK(body[added + k] == old_body[k]);
  REQUIRE(g.regions.size() == f.regions.size());
  for (std::uint32_t r = 0; r < f.regions.size(); ++r) {
    if (region_id{r} == f.body) continue;
    const auto now = g.ops_of(region_id{r}), before = f.ops_of(region_id{r});
    CHECK(std::vector<op_id>(now.begin(), now.end()) == std::vector<op_id>(before.begin(), before.end()));
  }
  // The input is untouched.
  CHECK(std::string(print(parsed.value).view()) == std::string(matmul_if_kernel));
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

TEST_CASE("fold_matmul_if returns a new program: its input is unchanged, its output verifies, its op has the if's location") {
  const auto parsed = parse(matmul_if_kernel, "k.t2b");
  REQUIRE_MESSAGE(parsed.ok(), errors_of(parsed.errors));
  const std::string before(print(parsed.value).view());
  const options ext{.rollout = rollout_kind::extended};
  const auto folded = run_pass(pass_id::fold_matmul_if, parsed.value, ext);
  REQUIRE_MESSAGE(folded.ok(), errors_of(folded.errors));
  CHECK(std::string(print(parsed.value).view()) == before);
  CHECK(verify<>(folded.value).empty());
  const std::string after(print(folded.value).view());
  CHECK(after.find("next = tile.matmul_acc(c, a_l0, b_l0, init_cond = first)") != std::string::npos);
  CHECK(after.find(" if ") == std::string::npos);
  // The folded op stands where the if stood (line 10, column 5 of the kernel).
  const function& f = folded.value.functions[0];
  bool found = false;
  for (std::uint32_t o = 0; o < f.ops.size(); ++o)
    if (f.ops[o].code() == opcode::tile_matmul_acc) {
      found = true;
      CHECK(f.op_locs[o].line == 10);
      CHECK(f.op_locs[o].col == 5);
    }
  CHECK(found);
  // The default rollout: nothing changes.
  const auto same = run_pass(pass_id::fold_matmul_if, parsed.value, options{});
  REQUIRE(same.ok());
  CHECK(std::string(print(same.value).view()) == before);
}

namespace {

constexpr std::string_view lowered_and_tile =
    R"(aiv @add_one(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  x = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  y = tile.add(x, x) : Tile[[16, 32], FP32, Vec]
  result = tile.store(y, (0, 0), Out) : Tensor[[16, 32], FP32]
  return result
}

aiv @row_max(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 1], FP32]) -> Tensor[[16, 1], FP32] {
  x = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  m = tile.row_max(x) : Tile[[16, 1], FP32, Vec]
  result = tile.store(m, (0, 0), Out) : Tensor[[16, 1], FP32]
  return result
}
)";

constexpr std::string_view too_big =
    R"(aiv @too_big(A: Tensor[[64, 512], FP32], B: Tensor[[64, 512], FP32], Out: out Tensor[[64, 512], FP32]) -> Tensor[[64, 512], FP32] {
  a = tile.load(A, (0, 0), (64, 512)) : Tile[[64, 512], FP32, Vec]
  b = tile.load(B, (0, 0), (64, 512)) : Tile[[64, 512], FP32, Vec]
  c = tile.add(a, b) : Tile[[64, 512], FP32, Vec]
  result = tile.store(c, (0, 0), Out) : Tensor[[64, 512], FP32]
  return result
}
)";

/// A host's diagnostic handler: what it was handed, in order.
struct handled {
  std::vector<diagnostic> seen;
  static void on_diagnostic(void* self, const diagnostic& d) { static_cast<handled*>(self)->seen.push_back(d); }
};

}  // namespace

TEST_CASE("the pipeline returns its notices with the program and hands each to the host's handler") {
  const auto parsed = parse(lowered_and_tile, "notices.t2b");
  REQUIRE_MESSAGE(parsed.ok(), errors_of(parsed.errors));
  for (const unsigned workers : {1U, 2U}) {  // sequential, and parallel (a handler alone keeps it parallel)
    handled h;
    const pass_observer handler{.context = &h, .on_diagnostic = &handled::on_diagnostic};
    const auto r = run_pipeline(parsed.value, options{}, std::nullopt, parallelism{workers}, &handler);
    REQUIRE_MESSAGE(r.ok(), errors_of(r.errors));
    REQUIRE(r.notices.size() == 1);
    const diagnostic& d = r.notices.front();
    CHECK(d.level == severity::remark);
    CHECK(d.function.view() == "row_max");
    CHECK(d.loc == location{10, 3});
    CHECK(d.message.view().starts_with("@row_max stays Tile: tile.row_max: reductions remain Tile"));
    CHECK(d.message.view().ends_with(extended_rollout_hint));
    REQUIRE(h.seen.size() == 1);
    CHECK(h.seen.front().message.view() == d.message.view());
    CHECK(std::string(format(d, "notices.t2b").view()).find("notices.t2b:10:3: note: in kernel @row_max\n") != std::string::npos);
  }
  // Under the extended rollout both kernels lower: nothing to say, nothing walked for it.
  options extended;
  extended.rollout = rollout_kind::extended;
  const auto wide = lower(parsed.value, extended);
  REQUIRE_MESSAGE(wide.ok(), errors_of(wide.errors));
  CHECK(wide.notices.empty());
  // Stopping before lower: no kernel has been left Tile yet.
  CHECK(run_pipeline(parsed.value, options{}, pass_id::select).notices.empty());
  // Buffer IR off: every kernel stays Tile, and says why (no hint: no rollout lowers it).
  options off;
  off.enable_buffer_ir = false;
  const auto none = lower(parsed.value, off);
  REQUIRE(none.notices.size() == 2);
  CHECK(none.notices[0].message.view() == "@add_one stays Tile: enable_buffer_ir is false");
}

TEST_CASE("PTOAS over capacity is a warning of the plan naming the kernel; an addressed planner's error names it too") {
  const auto parsed = parse(too_big, "big.t2b");
  REQUIRE_MESSAGE(parsed.ok(), errors_of(parsed.errors));
  options ptoas;
  ptoas.planner = planner_kind::ptoas;
  handled h;
  const pass_observer handler{.context = &h, .on_diagnostic = &handled::on_diagnostic};
  const auto r = run_pipeline(parsed.value, ptoas, std::nullopt, {}, &handler);
  REQUIRE_MESSAGE(r.ok(), errors_of(r.errors));
  REQUIRE(r.notices.size() == 1);
  CHECK(r.notices[0].level == severity::warning);
  CHECK(r.notices[0].source.view() == "plan");
  CHECK(r.notices[0].function.view() == "too_big");
  CHECK(r.notices[0].loc == location{4, 3});
  CHECK(r.notices[0].message.view().find("393216 bytes are live in Vec at once here") != std::string_view::npos);
  CHECK(h.seen.size() == 1);
  text json;
  append_json(json, r.notices[0], "big.t2b");
  CHECK(json.view().ends_with(R"("notes": [], "function": "too_big"})"));

  const auto pypto = run_pipeline(parsed.value, options{}, std::nullopt, {}, &handler);
  REQUIRE_FALSE(pypto.ok());
  CHECK(pypto.notices.empty());
  for (const diagnostic& d : pypto.errors) CHECK(d.function.view() == "too_big");
  CHECK(h.seen.size() == 1 + pypto.errors.size());  // the handler gets a failed run's errors too
}
