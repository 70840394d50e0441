// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <thread>

#include "support/kernels.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/parse.hpp"

using namespace tile2buffer;
using namespace t2b_test;

namespace {
const planner_kind all_planners[] = {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas};

std::string errors_of(const std::vector<diagnostic>& ds) { return std::string(format_all(ds, "t").view()); }
}  // namespace

TEST_CASE("load-add-mul-store lowers to Buffer IR for every planner") {
  for (auto planner : all_planners) {
    CAPTURE(name(planner));
    auto r = lower(single(add_mul_kernel()), options{.planner = planner});
    REQUIRE_MESSAGE(r.ok(), errors_of(r.errors));
    const function& f = r.value.functions[0];
    CHECK(f.stage == ir_stage::buffer);
    CHECK(f.buffer_ir_selected == std::optional<bool>(true));
    CHECK(count_ops(f, opcode::buffer_alloc) == 4);
    CHECK(count_ops(f, opcode::buffer_load) == 2);
    CHECK(count_ops(f, opcode::buffer_add) == 1);
    CHECK(count_ops(f, opcode::buffer_mul) == 1);
    CHECK(count_ops(f, opcode::buffer_store) == 1);
    for (const auto& n : f.ops) CHECK_FALSE(is_tile_op(n.code()));
    for (const auto& n : f.ops)
      if (n.code() == opcode::buffer_alloc) {
        // addressed planners pass the final address exactly once; PTOAS none
        CHECK(f.pool(n.args).size() == (addressed(planner) ? 2u : 1u));
      } else if (is_buffer_op(n.code())) {
        CHECK(n.results.count == 0);  // destination-writing ops return nothing
      }
    // The return names the output parameter directly.
    const op_id ret = f.ops_of(f.body).back();
    CHECK(f.args(ret)[0].value() == f.params[2].value);
  }
}

TEST_CASE("pypto and dsa_rp produce different placements with reuse") {
  auto a = lower(single(add_mul_kernel()), options{.planner = planner_kind::pypto});
  auto b = lower(single(add_mul_kernel()), options{.planner = planner_kind::dsa_rp});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  std::vector<std::int64_t> addr_a, addr_b;
  for (const auto& [fn, out] : {std::pair{&a.value.functions[0], &addr_a}, std::pair{&b.value.functions[0], &addr_b}})
    for (const auto& n : fn->ops)
      if (n.code() == opcode::buffer_alloc) out->push_back(fn->pool(n.args)[1].num);
  CHECK(addr_a != addr_b);
  // Reuse: four 2048-byte allocations fit in fewer than four distinct ranges for pypto.
  std::vector<std::int64_t> distinct = addr_a;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  CHECK(distinct.size() < addr_a.size());
}

TEST_CASE("selection keeps reductions, a5 and disabled buffer IR on Tile, with reasons") {
  const program p = mixed_program();
  auto sel = explain_selection(p, options{});
  REQUIRE(sel.size() == 2);
  CHECK(sel[0].selected);
  CHECK_FALSE(sel[1].selected);
  CHECK(sel[1].reason.view().find("tile.row_max") != std::string_view::npos);
  CHECK(sel[1].reason.view().find("reductions") != std::string_view::npos);

  auto a5 = explain_selection(p, options{.target = target_arch::a5});
  CHECK_FALSE(a5[0].selected);
  CHECK(a5[0].reason.view().find("a5") != std::string_view::npos);

  auto off = lower(p, options{.enable_buffer_ir = false});
  REQUIRE(off.ok());
  for (const auto& f : off.value.functions) CHECK(f.stage == ir_stage::tile);
}

TEST_CASE("mixed program: Buffer kernel, Tile kernel, orchestration unchanged") {
  const program p = mixed_program();
  auto r = lower(p, options{});
  REQUIRE_MESSAGE(r.ok(), errors_of(r.errors));
  CHECK(r.value.functions[0].stage == ir_stage::buffer);
  CHECK(r.value.functions[1].stage == ir_stage::tile);
  CHECK(r.value.functions[1].buffer_ir_selected == std::optional<bool>(false));
  CHECK(structurally_equal(r.value.functions[2], p.functions[2]));
}

TEST_CASE("lower is idempotent and leaves its input unchanged") {
  const program p = mixed_program();
  const program copy = p;
  for (auto planner : all_planners) {
    auto once = lower(p, options{.planner = planner});
    REQUIRE(once.ok());
    auto twice = lower(once.value, options{.planner = planner});
    REQUIRE(twice.ok());
    CHECK(structurally_equal(once.value, twice.value));
  }
  CHECK(structurally_equal(p, copy));
}

TEST_CASE("failed conversion leaves the input unchanged and reports a located diagnostic") {
  // Explicit lowering (no recorded selection) of a kernel with a reduction fails closed.
  const program p = single(row_max_kernel());
  const program copy = p;
  auto storage = init_storage(p, options{});
  auto r = lower_tile_to_buffer(storage.value, options{.planner = planner_kind::ptoas});
  CHECK_FALSE(r.ok());
  REQUIRE_FALSE(r.errors.empty());
  CHECK(r.errors[0].loc.line == 12);
  CHECK(r.errors[0].message.view().find("tile.row_max") != std::string_view::npos);
  CHECK(r.value.functions.empty());
  CHECK(structurally_equal(p, copy));
}

TEST_CASE("the storage-closure check runs even when verification is off") {
  // An unplanned kernel handed straight to lower: tiles have no storage.
  auto r = lower_tile_to_buffer(single(add_mul_kernel()), options{.planner = planner_kind::ptoas, .verify = false});
  CHECK_FALSE(r.ok());
  CHECK(errors_of(r.errors).find("must have a MemRef and memory space") != std::string::npos);
}

TEST_CASE("BF16 transfers but does not compute; FP16 and INT32 add/mul lower") {
  CHECK(lower(single(add_mul_kernel(dtype::fp16)), options{}).value.functions[0].stage == ir_stage::buffer);
  CHECK(lower(single(add_mul_kernel(dtype::int32)), options{}).value.functions[0].stage == ir_stage::buffer);
  auto bf = lower(single(add_mul_kernel(dtype::bf16)), options{});
  REQUIRE(bf.ok());
  CHECK(bf.value.functions[0].stage == ir_stage::tile);
  auto why = explain_selection(single(add_mul_kernel(dtype::bf16)), options{});
  CHECK(why[0].reason.view().find("BF16") != std::string_view::npos);
}

TEST_CASE("context scopes nest and are handed to worker threads explicitly") {
  CHECK(context::current().enable_buffer_ir);
  context::scope outer(options{.enable_buffer_ir = false});
  CHECK_FALSE(context::current().enable_buffer_ir);
  {
    context::scope inner(options{.planner = planner_kind::ptoas});
    CHECK(context::current().planner == planner_kind::ptoas);
    CHECK(context::current().enable_buffer_ir);
  }
  CHECK_FALSE(context::current().enable_buffer_ir);
  const options captured = context::current();
  std::vector<int> stages(4, -1);
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i)
    workers.emplace_back([&, i] {
      // A fresh thread starts with defaults; the captured options are opened explicitly.
      const bool default_seen = context::current().enable_buffer_ir;
      context::scope s(captured);
      auto r = lower(single(add_mul_kernel()));
      stages[static_cast<std::size_t>(i)] = default_seen && r.ok() ? static_cast<int>(r.value.functions[0].stage) : -2;
    });
  for (auto& w : workers) w.join();
  for (int s : stages) CHECK(s == static_cast<int>(ir_stage::tile));
}

TEST_CASE("cache_key includes enable_buffer_ir and the Buffer semantics version") {
  const auto on = cache_key(options{});
  const auto off = cache_key(options{.enable_buffer_ir = false});
  CHECK(on != off);
  CHECK(on.view().find("buffer_semantics=") != std::string_view::npos);
}

namespace {
// A host recipe set: tile.mul stays Tile for a host reason; tile.row_sum (a stays-Tile entry in
// the default rollout, beside its extended-tier recipe of benefit 1) gets a default-tier recipe
// that only ever declines, tried first.
struct host_row_sum {
  using source = tile::row_sum;
  static constexpr std::string_view name = "host-row-sum";
  static constexpr int benefit = 2;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(typed<source>, const match_context&) { return match_result::no(text("the host declines")); }
  static constexpr void rewrite(typed<source>, lowering&) {}
};
struct host_set : with_recipes<default_recipes, stays_tile<tile::mul, "the host keeps mul on Tile">, host_row_sum> {};
}  // namespace

TEST_CASE("a host set's stays-Tile entries and recipes are what select and lower read") {
  static_assert(registry<host_set>::checked);
  CHECK(registry<host_set>::candidates(opcode::tile_mul).empty());
  CHECK(registry<host_set>::stays_tile_reason(opcode::tile_row_sum) == nullptr);
  REQUIRE(registry<host_set>::candidates(opcode::tile_row_sum).size() == 2);
  CHECK(registry<host_set>::candidates(opcode::tile_row_sum)[0].name == "host-row-sum");
  CHECK(registry<default_recipes>::stays_tile_reason(opcode::tile_mul) == nullptr);

  const program p = single(add_mul_kernel());
  const auto why = explain_selection<host_set>(p, options{});
  REQUIRE(why.size() == 1);
  CHECK_FALSE(why[0].selected);
  CHECK(why[0].reason.view() == "tile.mul: the host keeps mul on Tile");
  // The default set lowers the same kernel; the host set keeps it on Tile, unchanged.
  CHECK(explain_selection(p, options{})[0].selected);
  const auto r = lower<host_set>(p, options{});
  REQUIRE_MESSAGE(r.ok(), errors_of(r.errors));
  CHECK(r.value.functions[0].stage == ir_stage::tile);
  CHECK(r.value.functions[0].buffer_ir_selected == std::optional<bool>(false));
}

TEST_CASE("explicit lower with a host set reports the host's stays-Tile reason") {
  const program p = single(add_mul_kernel());
  const auto planned = lower(p, options{.enable_buffer_ir = false});  // plans, records "not selected"
  REQUIRE(planned.ok());
  program unrecorded = planned.value;
  unrecorded.functions[0].buffer_ir_selected.reset();
  const auto r = lower_tile_to_buffer<host_set>(unrecorded, options{});
  REQUIRE_FALSE(r.ok());
  CHECK(errors_of(r.errors).find("no conversion recipe for 'tile.mul' (the host keeps mul on Tile)") != std::string::npos);
}

namespace {
// An extended-tier recipe (extended-rollout spec §1.1): tile.exp lowers only when the options ask
// for the extended rollout. The default set's exp recipe is removed first, so the tier alone
// decides.
struct extended_exp : lower_elementwise<opcode::tile_exp> {
  static constexpr std::string_view name = "extended-exp";
  static constexpr bool default_rollout = false;
};
struct without_exp : with_recipes<default_recipes, stays_tile<tile::exp, "replaced below">> {};
struct extended_set : with_recipes<without_exp, extended_exp> {};

program exp_kernel() {
  auto r = parse(R"(aiv @exp(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  x = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  y = tile.exp(x) : Tile[[16, 32], FP32, Vec]
  r = tile.store(y, (0, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
)",
                 "exp.t2b");
  REQUIRE_MESSAGE(r.ok(), errors_of(r.errors));
  return r.value;
}
}  // namespace

TEST_CASE("extended-tier recipes are consulted only under the extended rollout") {
  REQUIRE(registry<extended_set>::candidates(opcode::tile_exp).size() == 1);
  const program p = exp_kernel();
  const options standard{};
  const options extended{.rollout = rollout_kind::extended};
  CHECK(cache_key(standard) != cache_key(extended));
  CHECK(cache_key(extended).view().find(";rollout=extended") != std::string_view::npos);

  const auto kept = explain_selection<extended_set>(p, standard);
  REQUIRE(kept.size() == 1);
  CHECK_FALSE(kept[0].selected);
  CHECK(kept[0].reason.view() == "tile.exp: not in the default rollout");
  CHECK(explain_selection<extended_set>(p, extended)[0].selected);

  const auto tile = lower<extended_set>(p, standard);
  REQUIRE_MESSAGE(tile.ok(), errors_of(tile.errors));
  CHECK(tile.value.functions[0].stage == ir_stage::tile);
  const auto buffer = lower<extended_set>(p, extended);
  REQUIRE_MESSAGE(buffer.ok(), errors_of(buffer.errors));
  CHECK(buffer.value.functions[0].stage == ir_stage::buffer);
  CHECK(count_ops(buffer.value.functions[0], opcode::buffer_exp) == 1);

  // An explicit lowering under the default rollout does not reach for the extended recipe either.
  program unrecorded = lower<extended_set>(p, options{.enable_buffer_ir = false}).value;
  unrecorded.functions[0].buffer_ir_selected.reset();
  const auto explicit_lower = lower_tile_to_buffer<extended_set>(unrecorded, standard);
  REQUIRE_FALSE(explicit_lower.ok());
  CHECK(errors_of(explicit_lower.errors).find("no conversion recipe for 'tile.exp' in the default rollout") != std::string::npos);
}

TEST_CASE("the default set lowers the same under either rollout: it declares no extended-tier recipe") {
  for (const program& p : {single(add_mul_kernel()), exp_kernel()}) {
    const auto a = lower(p, options{});
    const auto b = lower(p, options{.rollout = rollout_kind::extended});
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(structurally_equal(a.value, b.value));
    CHECK(a.value.functions[0].stage == ir_stage::buffer);
  }
}

TEST_CASE("the pipeline legalizes its own program in place, as the copying pass does") {
  // A recip reading and writing one allocation needs a new destination; add_mul needs nothing.
  const char* src = R"(aiv @recip_in_place(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  m = tile.alloc(Vec, 2048)
  x = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec] in m
  y = tile.recip(x) : Tile[[16, 32], FP32, Vec] in m
  r = tile.store(y, (0, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
)";
  auto parsed = parse(src, "legalize.t2b");
  REQUIRE_MESSAGE(parsed.ok(), errors_of(parsed.errors));
  parsed.value.functions.push_back(add_mul_kernel());
  const options opts{.planner = planner_kind::pypto};
  const auto selected = run_pipeline(parsed.value, opts, pass_id::select);
  REQUIRE(selected.ok());
  const auto copied = run_pass(pass_id::legalize, selected.value, opts);
  const auto in_place = run_pipeline(parsed.value, opts, pass_id::legalize);
  REQUIRE(copied.ok());
  REQUIRE(in_place.ok());
  CHECK(structurally_equal(copied.value, in_place.value));
  CHECK(count_ops(in_place.value.functions[0], opcode::tile_alloc) == 2);  // the recip's new destination
  CHECK(count_ops(selected.value.functions[0], opcode::tile_alloc) == 1);
  CHECK(structurally_equal(in_place.value.functions[1], selected.value.functions[1]));  // left as it was
}
