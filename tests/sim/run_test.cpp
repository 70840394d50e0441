// SPDX-License-Identifier: Apache-2.0
/// @file run_test.cpp
/// The Tile and Buffer interpreters on hand-built kernels and their hand-lowered twins: each run's
/// results are checked against values computed here from the seeded inputs, and the two runs
/// must compare equal.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "sim/twins.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/sim/compare.hpp"
#include "tile2buffer/text/parse.hpp"

using namespace tile2buffer;
using namespace tile2buffer::sim;
using namespace sim_test;

namespace {
const gm_tensor& tensor(const run_result& r, std::string_view name) {
  const gm_tensor* t = r.tensor(name);
  REQUIRE(t != nullptr);
  return *t;
}
float at(const gm_tensor& t, std::int64_t r, std::int64_t c) { return t.get(t.flat(r, c)).f; }
bool written(const gm_tensor& t, std::int64_t r, std::int64_t c) { return t.meta_at(t.flat(r, c)).writer != no_id; }
sim_options with(std::uint64_t seed, std::vector<scalar_binding> scalars = {}) {
  sim_options o;
  o.seed = seed;
  o.scalars = std::move(scalars);
  return o;
}
}  // namespace

TEST_CASE("every hand-built twin passes the IR verifier") {
  for (const twin& t : {add_mul(), copy_store(), storage_views(), windows(), runtime_valid(), cube(), cube(32, 48, 64, true),
                        branch(), swap_loop(), count_up(), per_block()}) {
    CAPTURE(t.tile.functions[0].name_of());
    CHECK(verify(t.tile).empty());
    CHECK(verify(t.buffer).empty());
    CHECK(t.buffer.functions[0].stage == ir_stage::buffer);
  }
}

TEST_CASE("load -> add -> mul -> store: Tile values are (A + B) * B and the Buffer twin agrees") {
  const twin k = add_mul();
  for (std::uint64_t seed : {1u, 2u, 99u}) {
    CAPTURE(seed);
    const sim_options opt = with(seed);
    const sim_inputs in = make_inputs(k.tile.functions[0], opt);
    const run_result tr = run_tile(k.tile, k.tile.functions[0], in, opt);
    REQUIRE(tr.ok());
    const gm_tensor& A = *in.tensors[0];
    const gm_tensor& B = *in.tensors[1];
    const gm_tensor& out = tensor(tr, "Out");
    for (std::int64_t r = 0; r < 16; ++r)
      for (std::int64_t c = 0; c < 32; ++c) {
        const float a = at(A, r, c), b = at(B, r, c);
        REQUIRE(at(out, r, c) == (a + b) * b);
      }
    const compare_report rep = check_numerics(k.tile, k.buffer, "add_mul", opt);
    CHECK(rep.ok);
    CHECK(rep.text == "numerics: ok\n");
    CHECK(rep.compared == static_cast<std::size_t>(3 * (16 * 32 + 2 * out.band)));  // A, B and Out
  }
}

TEST_CASE("inputs are deterministic per seed and differ across seeds") {
  const twin k = add_mul();
  const function& f = k.tile.functions[0];
  const sim_inputs a = make_inputs(f, with(5)), b = make_inputs(f, with(5)), c = make_inputs(f, with(6));
  CHECK(a.tensors[0]->bytes == b.tensors[0]->bytes);
  CHECK(a.tensors[0]->bytes != c.tensors[0]->bytes);
  CHECK(a.tensors[0]->bytes != a.tensors[1]->bytes);
  CHECK(a.tensors[2]->get(0).f == -555.0f);  // Out starts unwritten
}

TEST_CASE("byte-root storage views (example 03): subview + reshape alias the planned bytes") {
  const twin k = storage_views();
  const compare_report rep = check_numerics(k.tile, k.buffer, "views", with(4));
  CHECK_MESSAGE(rep.ok, rep.text);
  const gm_tensor& out2 = tensor(rep.buffer, "Out2");
  const sim_inputs in = make_inputs(k.tile.functions[0], with(4));
  const gm_tensor& B = *in.tensors[1];
  for (std::int64_t c = 0; c < 32; ++c) CHECK(at(out2, 15, c) == 2 * at(B, 15, c));
}

TEST_CASE("windows (example 04): runtime-offset slice and in-place assemble for several rows") {
  const twin k = windows();
  for (const std::int64_t row : {0, 5, 48}) {
    CAPTURE(row);
    const sim_options opt = with(11, {{"row", static_cast<double>(row)}});
    const compare_report rep = check_numerics(k.tile, k.buffer, "windows", opt);
    CHECK_MESSAGE(rep.ok, rep.text);
    const sim_inputs in = make_inputs(k.tile.functions[0], opt);
    const gm_tensor& X = *in.tensors[0];
    const gm_tensor& C = *in.tensors[1];
    const gm_tensor& out = tensor(rep.tile, "Out");
    for (std::int64_t r = 0; r < 32; ++r)
      for (std::int64_t c = 0; c < 32; ++c) {
        const float want = r >= 16 ? 2 * at(X, row + r - 16, 32 + c) : at(C, r, c);
        REQUIRE(at(out, r, c) == want);
      }
  }
}

TEST_CASE("runtime valid extents (example 05): only 16 x cols is computed and stored") {
  const twin k = runtime_valid();
  for (const std::int64_t cols : {0, 8, 24, 64}) {
    CAPTURE(cols);
    const sim_options opt = with(3, {{"cols", static_cast<double>(cols)}});
    const compare_report rep = check_numerics(k.tile, k.buffer, "runtime_valid", opt);
    CHECK_MESSAGE(rep.ok, rep.text);
    const gm_tensor& out = tensor(rep.buffer, "Out");
    for (std::int64_t c = 0; c < 64; ++c) CHECK(written(out, 7, c) == (c < cols));
  }
  // Unbound, `cols` defaults to the extent it bounds (a full valid region).
  const sim_inputs in = make_inputs(k.tile.functions[0], {});
  CHECK(in.scalars[2]->i == 64);
}

TEST_CASE("cube (example 06): NZ/ZN/Acc layouts, matmul then matmul_acc, also through a transpose relabel") {
  for (const bool transposed : {false, true}) {
    CAPTURE(transposed);
    const twin k = cube(32, 48, 64, transposed);
    const sim_options opt = with(21);
    const compare_report rep = check_numerics(k.tile, k.buffer, "matmul_twice", opt);
    CHECK_MESSAGE(rep.ok, rep.text);
    const sim_inputs in = make_inputs(k.tile.functions[0], opt);
    const gm_tensor& A = *in.tensors[0];
    const gm_tensor& B = *in.tensors[1];
    const gm_tensor& out = tensor(rep.buffer, "Out");
    for (std::int64_t i = 0; i < 32; i += 5)
      for (std::int64_t j = 0; j < 64; j += 7) {
        double s = 0;
        for (std::int64_t q = 0; q < 48; ++q) s += static_cast<double>(at(A, i, q)) * (transposed ? at(B, j, q) : at(B, q, j));
        REQUIRE(at(out, i, j) == static_cast<float>(2 * s));  // dyadic inputs: every sum is exact
      }
  }
}

TEST_CASE("branch (example 07): both arms") {
  const twin k = branch();
  for (const int flag : {0, 1}) {
    CAPTURE(flag);
    const sim_options opt = with(8, {{"flag", static_cast<double>(flag)}});
    const compare_report rep = check_numerics(k.tile, k.buffer, "branch", opt);
    CHECK_MESSAGE(rep.ok, rep.text);
    const sim_inputs in = make_inputs(k.tile.functions[0], opt);
    const gm_tensor& out = tensor(rep.tile, "Out");
    const std::int64_t row = flag ? 16 : 0;
    const float a = at(*in.tensors[0], 3, 4), b = at(*in.tensors[1], 3, 4);
    CHECK(at(out, row + 3, 4) == (flag ? a * b : a));
    CHECK_FALSE(written(out, 16 - row + 3, 4));
  }
}

TEST_CASE("loops (example 08): swapping carries for 0..3 iterations, and a while loop") {
  const twin k = swap_loop();
  for (const int count : {0, 1, 2, 3}) {
    CAPTURE(count);
    const sim_options opt = with(9, {{"count", static_cast<double>(count)}});
    const compare_report rep = check_numerics(k.tile, k.buffer, "swap_loop", opt);
    CHECK_MESSAGE(rep.ok, rep.text);
    const sim_inputs in = make_inputs(k.tile.functions[0], opt);
    const gm_tensor& src = *in.tensors[count % 2 == 0 ? 0 : 1];
    const gm_tensor& out = tensor(rep.tile, "Out");
    CHECK(at(out, count + 2, 2 * count + 5) == at(src, 2, 5));
  }
  const twin w = count_up();
  for (const int limit : {0, 3}) {
    const sim_options opt = with(10, {{"limit", static_cast<double>(limit)}});
    const compare_report rep = check_numerics(w.tile, w.buffer, "count_up", opt);
    CHECK_MESSAGE(rep.ok, rep.text);
    const sim_inputs in = make_inputs(w.tile.functions[0], opt);
    CHECK(at(tensor(rep.tile, "Out"), 1, 1) == at(*in.tensors[0], 1, 1) + static_cast<float>(limit));
  }
}

TEST_CASE("SPMD queries (example 09): the block index selects the window") {
  const twin k = per_block();
  for (const std::int64_t block : {0, 3, 31}) {
    CAPTURE(block);
    sim_options opt = with(12);
    opt.block_idx = block;
    opt.block_num = 32;
    const compare_report rep = check_numerics(k.tile, k.buffer, "per_block", opt);
    CHECK_MESSAGE(rep.ok, rep.text);
    const gm_tensor& out = tensor(rep.buffer, "Out");
    const sim_inputs in = make_inputs(k.tile.functions[0], opt);
    const gm_tensor& X = *in.tensors[0];
    for (std::int64_t c = 0; c < 256; ++c) {
      const bool mine = c >= block * 8 && c < block * 8 + 8;
      REQUIRE(written(out, 4, c) == mine);
      if (mine) REQUIRE(at(out, 4, c) == 2 * at(X, 4, c));
    }
  }
}

TEST_CASE("whole_grid (sim/launch.hpp): blocks 0..block_num-1 run in order on one GM; a failing block is named") {
  const twin k = per_block();
  sim_options opt = with(12);
  opt.block_num = 32;
  opt.whole_grid = true;
  const compare_report rep = check_numerics(k.tile, k.buffer, "per_block", opt);
  REQUIRE_MESSAGE(rep.ok, rep.text);
  const sim_inputs in = make_inputs(k.tile.functions[0], opt);
  for (const run_result* r : {&rep.tile, &rep.buffer})
    for (std::int64_t c = 0; c < 256; ++c) {
      REQUIRE(written(tensor(*r, "Out"), 4, c));
      REQUIRE(at(tensor(*r, "Out"), 4, c) == 2 * at(*in.tensors[0], 4, c));
    }
  opt.block_num = 33;  // block 32 slices columns 256..263 of a 256-column tile
  const run_result past = run_function(k.tile, k.tile.functions[0], in, opt);
  REQUIRE_FALSE(past.ok());
  REQUIRE(past.errors[0].notes.size() == 1);
  CHECK(past.errors[0].notes[0].message.view() == "in block 32 of 33, subblock 0 of 1");
}

TEST_CASE("an orchestration runs its submits in order, each a whole grid, on its own tensors") {
  const auto parsed = parse(R"(aiv @fill(Out: out Tensor[[8, 32], FP32], v: Scalar[FP32]) -> Tensor[[8, 32], FP32] {
  block = tile.get_block_idx() : INDEX
  row = block * 4
  x = tile.full(0.0) : Tile[[4, 32], FP32, Vec]
  y = tile.adds(x, v) : Tile[[4, 32], FP32, Vec]
  r = tile.store(y, (row, 0), Out) : Tensor[[8, 32], FP32]
  return r
}
aiv @twice(X: Tensor[[8, 32], FP32], Out: out Tensor[[8, 32], FP32]) -> Tensor[[8, 32], FP32] {
  block = tile.get_block_idx() : INDEX
  row = block * 4
  x = tile.load(X, (row, 0), (4, 32)) : Tile[[4, 32], FP32, Vec]
  y = tile.add(x, x) : Tile[[4, 32], FP32, Vec]
  r = tile.store(y, (row, 0), Out) : Tensor[[8, 32], FP32]
  return r
}
orchestration @main(Mid: out Tensor[[8, 32], FP32], Out: out Tensor[[8, 32], FP32]) {
  t0 = submit @fill(Mid, 1.25)
  t1 = submit @twice(Mid, Out) deps(t0)
  return
}
)",
                            "orch.t2b");
  REQUIRE(parsed.ok());
  const program& p = parsed.value;
  const function& main = *p.find("main");
  sim_options opt = with(3);
  opt.block_num = 2;
  const run_result r = run_function(p, main, make_inputs(main, opt), opt);
  REQUIRE(r.ok());
  const op_id second = main.ops_of(main.body)[1];
  for (std::int64_t row = 0; row < 8; ++row)
    for (std::int64_t c = 0; c < 32; ++c) {
      REQUIRE(at(tensor(r, "Mid"), row, c) == 1.25f);
      REQUIRE(at(tensor(r, "Out"), row, c) == 2.5f);
      // Provenance names the orchestration's submit, not an op of the kernel.
      REQUIRE(tensor(r, "Out").meta_at(tensor(r, "Out").flat(row, c)).writer == second.index);
    }
  // One block of each task leaves rows 4..7 unwritten: the grid of the options is every submit's.
  opt.block_num = 1;
  const run_result one = run_function(p, main, make_inputs(main, opt), opt);
  REQUIRE(one.ok());
  CHECK(written(tensor(one, "Out"), 3, 0));
  CHECK_FALSE(written(tensor(one, "Out"), 4, 0));
}

TEST_CASE("the Tile interpreter reports ill-formed Tile programs instead of guessing") {
  const twin k = windows();
  // row = 49 puts the 16-row window past the 64 rows of `whole`.
  const sim_options opt = with(1, {{"row", 49}});
  const compare_report rep = check_numerics(k.tile, k.buffer, "windows", opt);
  CHECK_FALSE(rep.ok);
  CHECK(rep.text.find("numerics: Tile reference run failed") == 0);
  CHECK(rep.text.find("tile.slice: window (16, 32) at (49, 32) exceeds the source (64, 64)") != std::string::npos);
}

namespace {
/// @add_mul at Tile stage, planned (tile.alloc + storage clauses), optionally with sub for mul.
program planned_add_mul(bool sub_instead_of_mul) {
  kernel k("add_mul");
  const auto A = k.tensor("A", 16, 32), B = k.tensor("B", 16, 32), Out = k.output("Out", 16, 32);
  const auto ma = k.op(opcode::tile_alloc, {operand::of(memory_space::vec), k.i(2048)}, mem_type(), "mem_a");
  const auto mb = k.op(opcode::tile_alloc, {operand::of(memory_space::vec), k.i(2048)}, mem_type(), "mem_b");
  const auto lhs = k.op(opcode::tile_load, {k.v(A), k.pair(0, 0), k.pair(16, 32)}, in_storage(vec(16, 32), ma), "lhs");
  const auto rhs = k.op(opcode::tile_load, {k.v(B), k.pair(0, 0), k.pair(16, 32)}, in_storage(vec(16, 32), mb), "rhs");
  const auto total = k.op(opcode::tile_add, {k.v(lhs), k.v(rhs)}, in_storage(vec(16, 32), ma), "total");
  const auto product = k.op(sub_instead_of_mul ? opcode::tile_sub : opcode::tile_mul, {k.v(total), k.v(rhs)},
                            in_storage(vec(16, 32), ma), "product");
  const auto r = k.op(opcode::tile_store, {k.v(product), k.pair(0, 0), k.v(Out)}, tensor_type(16, 32, dtype::fp32), "result");
  k.ret({k.v(r)});
  return k.done();
}
}  // namespace

TEST_CASE("planned Tile kernels run like unplanned ones; a kernel kept at Tile stage is checked Tile against Tile") {
  const twin k = add_mul();
  const program planned = planned_add_mul(false);
  REQUIRE(verify(planned).empty());
  CHECK(check_numerics(planned, k.buffer, "add_mul").ok);
  CHECK(check_numerics(k.tile, planned, "add_mul").ok);
  const program with_sub = planned_add_mul(true);
  const compare_report wrong = check_numerics(k.tile, with_sub, "add_mul");
  CHECK_FALSE(wrong.ok);
  CHECK(wrong.text.find("tile: last written by tile.store") != std::string::npos);
  CHECK(wrong.text.find("buffer: last written by " + op_text(with_sub, opcode::tile_store) + "; value computed by " +
                        op_text(with_sub, opcode::tile_sub)) != std::string::npos);
}

TEST_CASE("an addressless allocation inside a loop body keeps one storage identity") {
  const twin w = count_up();
  kernel k("count_up", ir_stage::buffer);
  const type idx = scalar_type(dtype::index);
  const auto A = k.tensor("A", 16, 32), Out = k.output("Out", 16, 32);
  const auto limit = k.scalar("limit");
  const auto acc = k.op(opcode::buffer_alloc, {k.empty()}, buf(16, 32), "acc_buf");
  k.call(opcode::buffer_load, {k.v(A), k.pair(0, 0), k.pair(16, 32), k.v(acc)});
  k.while_(
      {k.i(0)}, {idx},
      [&](const std::vector<value_id>& it) {
        k.yield({k.v(k.op(opcode::scalar_lt, {k.v(it[0]), k.v(limit)}, scalar_type(dtype::bool_), "c"))});
      },
      [&](const std::vector<value_id>& it) {
        const auto tmp = k.op(opcode::buffer_alloc, {k.empty()}, buf(16, 32), "tmp");
        k.call(opcode::buffer_adds, {k.v(acc), k.f(1), k.v(tmp)});
        k.call(opcode::buffer_copy, {k.v(tmp), k.v(acc)});
        k.yield({k.v(k.op(opcode::scalar_add, {k.v(it[0]), k.i(1)}, idx, "k_next"))});
      });
  k.call(opcode::buffer_store, {k.v(acc), k.pair(0, 0), k.pair(16, 32), k.v(Out)});
  k.ret({k.v(Out)});
  const program buffer = k.done();
  REQUIRE(verify(buffer).empty());
  sim_options opt = with(2, {{"limit", 200}});
  const compare_report r = check_numerics(w.tile, buffer, "count_up", opt);
  CHECK_MESSAGE(r.ok, r.text);
  // The alloc ran 200 times on one identity: only the allocations' own pages exist.
  CHECK(r.buffer.arena_pages <= 4);
}

TEST_CASE("GM is memory in the Tile run: unreturned stores land, and a load after a store reads it") {
  // Out[0:16] = A through the parameter's own name; Out[16:32] = A + A in an if whose store result
  // is never used; then Out[0:16] is loaded back through the parameter's original name and
  // returned as Back[0:16]. The function returns the first store's result.
  kernel k("gm_memory");
  const auto A = k.tensor("A", 16, 32), Out = k.output("Out", 32, 32), Back = k.output("Back", 16, 32);
  const auto flag = k.scalar("flag", dtype::bool_);
  const auto a = k.op(opcode::tile_load, {k.v(A), k.pair(0, 0), k.pair(16, 32)}, vec(16, 32), "a");
  const auto first = k.op(opcode::tile_store, {k.v(a), k.pair(0, 0), k.v(Out)}, tensor_type(32, 32, dtype::fp32), "first");
  k.if_(
      k.v(flag), {},
      [&] {
        const auto twice = k.op(opcode::tile_add, {k.v(a), k.v(a)}, vec(16, 32), "twice");
        k.op(opcode::tile_store, {k.v(twice), k.pair(16, 0), k.v(Out)}, tensor_type(32, 32, dtype::fp32), "second");
      },
      [] {});
  const auto back = k.op(opcode::tile_load, {k.v(Out), k.pair(0, 0), k.pair(16, 32)}, vec(16, 32), "back");
  const auto kept = k.op(opcode::tile_store, {k.v(back), k.pair(0, 0), k.v(Back)}, tensor_type(16, 32, dtype::fp32), "kept");
  k.ret({k.v(first), k.v(kept)});
  const program p = k.done();
  REQUIRE(verify(p).empty());
  for (const int taken : {0, 1}) {
    CAPTURE(taken);
    const sim_options opt = with(5, {{"flag", static_cast<double>(taken)}});
    const sim_inputs in = make_inputs(p.functions[0], opt);
    const run_result r = run_tile(p, p.functions[0], in, opt);
    REQUIRE(r.ok());
    const gm_tensor& in_a = *in.tensors[0];
    const gm_tensor& in_out = *in.tensors[1];
    const gm_tensor& out = tensor(r, "Out");
    const gm_tensor& kept_back = tensor(r, "Back");
    for (std::int64_t row = 0; row < 16; ++row)
      for (std::int64_t c = 0; c < 32; ++c) {
        const float x = at(in_a, row, c);
        REQUIRE(at(out, row, c) == x);
        REQUIRE(at(kept_back, row, c) == x);
        if (taken) {
          REQUIRE(at(out, row + 16, c) == x + x);
        } else {
          REQUIRE(at(out, row + 16, c) == at(in_out, row + 16, c));
          REQUIRE_FALSE(written(out, row + 16, c));
        }
      }
  }
}

TEST_CASE("a loop over tiles stops at the element budget, not only at the op budget") {
  // count_up's while loop adds a [16, 32] tile per trip: 512 elements per op it runs.
  const twin w = count_up();
  sim_options opt = with(10, {{"limit", 3.0}});
  CHECK(check_numerics(w.tile, w.buffer, "count_up", opt).ok);
  opt.max_elements = 2000;  // fewer than the loop's adds touch
  const compare_report rep = check_numerics(w.tile, w.buffer, "count_up", opt);
  CHECK_FALSE(rep.ok);
  CHECK(rep.text.find("element budget exhausted") != std::string::npos);
}
