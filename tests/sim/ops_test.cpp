// SPDX-License-Identifier: Apache-2.0
/// @file ops_test.cpp
/// Op-by-op semantics of both interpreters on small kernels: relabels, valid-shape changes,
/// extract, row reductions, scalar arithmetic, runtime init_cond, partially covered Acc boxes,
/// the fix-pipe narrowing store, and bit-exact data movement (signalling NaNs). Expected values are
/// computed here from the seeded inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "sim/twins.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/sim/compare.hpp"
#include "tile2buffer/sim/interpreter.hpp"

using namespace tile2buffer;
using namespace tile2buffer::sim;
using namespace sim_test;

namespace {
sim_options opts(std::uint64_t seed, std::vector<scalar_binding> scalars = {}) {
  sim_options o;
  o.seed = seed;
  o.scalars = std::move(scalars);
  return o;
}
const gm_tensor& out_of(const run_result& r, std::string_view name = "Out") {
  const gm_tensor* t = r.tensor(name);
  REQUIRE(t != nullptr);
  return *t;
}
element at(const gm_tensor& t, std::int64_t r, std::int64_t c) { return t.get(t.flat(r, c)); }
cell_state state_at(const gm_tensor& t, std::int64_t r, std::int64_t c) { return t.meta_at(t.flat(r, c)).state; }
void require_valid(const twin& k) {
  REQUIRE(verify(k.tile).empty());
  REQUIRE(verify(k.buffer).empty());
}
}  // namespace

TEST_CASE("reshape and reinterpret keep the physical bytes") {
  twin k;
  {
    kernel a("relabel");
    const auto X = a.tensor("X", 16, 32), Out = a.output("Out", 8, 64), Bits = a.output("Bits", 16, 32, dtype::int32);
    const auto x = a.op(opcode::tile_load, {a.v(X), a.pair(0, 0), a.pair(16, 32)}, vec(16, 32), "x");
    const auto y = a.op(opcode::tile_reshape, {a.v(x), a.pair(8, 64)}, vec(8, 64), "y");
    const auto z = a.op(opcode::tile_reinterpret_view, {a.v(x)}, vec(16, 32, dtype::int32), "z");
    const auto r0 = a.op(opcode::tile_store, {a.v(y), a.pair(0, 0), a.v(Out)}, tensor_type(8, 64, dtype::fp32), "r0");
    const auto r1 = a.op(opcode::tile_store, {a.v(z), a.pair(0, 0), a.v(Bits)}, tensor_type(16, 32, dtype::int32), "r1");
    a.ret({a.v(r0), a.v(r1)});
    k.tile = a.done();
  }
  {
    kernel b("relabel", ir_stage::buffer);
    const auto X = b.tensor("X", 16, 32), Out = b.output("Out", 8, 64), Bits = b.output("Bits", 16, 32, dtype::int32);
    const auto x = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 32), "x_buf");
    const auto y = b.op(opcode::buffer_reshape, {b.v(x)}, buf(8, 64), "y_view");
    const auto z = b.op(opcode::buffer_reshape, {b.v(x)}, buf(16, 32, dtype::int32), "z_view");
    b.call(opcode::buffer_load, {b.v(X), b.pair(0, 0), b.pair(16, 32), b.v(x)});
    b.call(opcode::buffer_store, {b.v(y), b.pair(0, 0), b.pair(8, 64), b.v(Out)});
    b.call(opcode::buffer_store, {b.v(z), b.pair(0, 0), b.pair(16, 32), b.v(Bits)});
    b.ret({b.v(Out), b.v(Bits)});
    k.buffer = b.done();
  }
  require_valid(k);
  const compare_report r = check_numerics(k.tile, k.buffer, "relabel", opts(3));
  CHECK_MESSAGE(r.ok, r.text);
  const sim_inputs in = make_inputs(k.tile.functions[0], opts(3));
  const gm_tensor& X = *in.tensors[0];
  for (std::int64_t f = 0; f < 512; ++f) {
    REQUIRE(out_of(r.tile).get(f).f == X.get(f).f);  // C-order reshape
    std::int32_t bits;
    const float v = X.get(f).f;
    std::memcpy(&bits, &v, 4);
    REQUIRE(out_of(r.tile, "Bits").get(f).i == bits);
  }
}

TEST_CASE("set_validshape: only the new valid region is stored; growing it exposes undefined data") {
  twin k;
  {
    kernel a("narrow");
    const auto X = a.tensor("X", 16, 64), Out = a.output("Out", 16, 64);
    const auto cols = a.scalar("cols");
    const auto x = a.op(opcode::tile_load, {a.v(X), a.pair(0, 0), a.pair(16, 64)}, vec(16, 64), "x");
    const auto s = a.op(opcode::tile_set_validshape, {a.v(x), a.i(16), a.v(cols)},
                        with_valid(vec(16, 64), extent::of(16), extent::of(cols)), "s");
    a.ret({a.v(a.op(opcode::tile_store, {a.v(s), a.pair(0, 0), a.v(Out)}, tensor_type(16, 64, dtype::fp32), "r"))});
    k.tile = a.done();
  }
  {
    kernel b("narrow", ir_stage::buffer);
    const auto X = b.tensor("X", 16, 64), Out = b.output("Out", 16, 64);
    const auto cols = b.scalar("cols");
    const auto x = b.op(opcode::buffer_alloc, {b.pair(16, 64), b.i(0)},
                        with_valid(buf(16, 64), extent::runtime(), extent::runtime()), "x_buf");
    b.call(opcode::buffer_load, {b.v(X), b.pair(0, 0), b.pair(16, 64), b.v(x)});
    b.call(opcode::buffer_set_validshape, {b.v(x), b.pair(b.i(16), b.v(cols))});
    // An empty rectangle is not stored at all (the native store cannot run on one).
    const auto nonempty = b.op(opcode::scalar_gt, {b.v(cols), b.i(0)}, scalar_type(dtype::bool_), "nonempty");
    b.if_(
        b.v(nonempty), {},
        [&] {
          b.call(opcode::buffer_store, {b.v(x), b.pair(0, 0), b.pair(b.i(16), b.v(cols)), b.v(Out)});
        },
        [] {});
    b.ret({b.v(Out)});
    k.buffer = b.done();
  }
  require_valid(k);
  for (const std::int64_t cols : {0, 40}) {
    CAPTURE(cols);
    const compare_report r = check_numerics(k.tile, k.buffer, "narrow", opts(4, {{"cols", static_cast<double>(cols)}}));
    CHECK_MESSAGE(r.ok, r.text);
    for (std::int64_t c = 0; c < 64; ++c) CHECK((state_at(out_of(r.tile), 5, c) == cell_state::value) == (c < cols));
  }
  // Growing: load 16 x 8, then claim 16 x 16 is valid — the Tile reference stores poison there.
  kernel g("grow");
  const auto X = g.tensor("X", 16, 16), Out = g.output("Out", 16, 16);
  const auto x = g.op(opcode::tile_load, {g.v(X), g.pair(0, 0), g.pair(16, 16), g.pair(16, 8)},
                      with_valid(vec(16, 16), extent::of(16), extent::of(8)), "x");
  const auto s = g.op(opcode::tile_set_validshape, {g.v(x), g.i(16), g.i(16)}, vec(16, 16), "s");
  g.ret({g.v(g.op(opcode::tile_store, {g.v(s), g.pair(0, 0), g.v(Out)}, tensor_type(16, 16, dtype::fp32), "r"))});
  const program grow = g.done();
  const run_result r = run_tile(grow, grow.functions[0], make_inputs(grow.functions[0], opts(1)));
  REQUIRE(r.ok());
  CHECK(state_at(out_of(r), 0, 7) == cell_state::value);
  CHECK(state_at(out_of(r), 0, 8) == cell_state::poison);
  CHECK(out_of(r).meta_at(out_of(r).flat(0, 8)).origin == grow.functions[0].result(op_id{1}).index);
}

TEST_CASE("extract copies a window at element offsets (Vec and Mat -> Left)") {
  twin k;
  const type mat = tile_type(32, 32, dtype::fp16, memory_space::mat);
  const type left = tile_type(16, 16, dtype::fp16, memory_space::left);
  {
    kernel a("extract");
    const auto X = a.tensor("X", 16, 64), M = a.tensor("M", 32, 32, dtype::fp16);
    const auto Out = a.output("Out", 8, 8), Out2 = a.output("Out2", 16, 16, dtype::fp32);
    const auto row = a.scalar("row");
    const auto x = a.op(opcode::tile_load, {a.v(X), a.pair(0, 0), a.pair(16, 64)}, vec(16, 64), "x");
    const auto e = a.op(opcode::tile_extract, {a.v(x), a.v(row), a.i(24)}, vec(8, 8), "e");
    const auto m = a.op(opcode::tile_load, {a.v(M), a.pair(0, 0), a.pair(32, 32)}, mat, "m");
    const auto l = a.op(opcode::tile_extract, {a.v(m), a.i(16), a.i(0)}, left, "l");
    const auto rmat =
        a.op(opcode::tile_load, {a.v(M), a.pair(0, 0), a.pair(16, 16)}, tile_type(16, 16, dtype::fp16, memory_space::mat), "rm");
    const auto rr = a.op(opcode::tile_move, {a.v(rmat)}, tile_type(16, 16, dtype::fp16, memory_space::right), "rr");
    const auto acc = a.op(opcode::tile_matmul, {a.v(l), a.v(rr)}, tile_type(16, 16, dtype::fp32, memory_space::acc), "acc");
    const auto r0 = a.op(opcode::tile_store, {a.v(e), a.pair(0, 0), a.v(Out)}, tensor_type(8, 8, dtype::fp32), "r0");
    const auto r1 = a.op(opcode::tile_store, {a.v(acc), a.pair(0, 0), a.v(Out2)}, tensor_type(16, 16, dtype::fp32), "r1");
    a.ret({a.v(r0), a.v(r1)});
    k.tile = a.done();
  }
  {
    kernel b("extract", ir_stage::buffer);
    const auto X = b.tensor("X", 16, 64), M = b.tensor("M", 32, 32, dtype::fp16);
    const auto Out = b.output("Out", 8, 8), Out2 = b.output("Out2", 16, 16, dtype::fp32);
    const auto row = b.scalar("row");
    const auto x = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 64), "x_buf");
    const auto e = b.op(opcode::buffer_alloc, {b.empty(), b.i(4096)}, buf(8, 8), "e_buf");
    const auto m = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(32, 32, dtype::fp16, memory_space::mat), "m_buf");
    const auto rm = b.op(opcode::buffer_alloc, {b.empty(), b.i(2048)}, buf(16, 16, dtype::fp16, memory_space::mat), "rm_buf");
    const auto l = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 16, dtype::fp16, memory_space::left), "l_buf");
    const auto rr = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 16, dtype::fp16, memory_space::right), "rr_buf");
    const auto acc = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 16, dtype::fp32, memory_space::acc), "acc_buf");
    b.call(opcode::buffer_load, {b.v(X), b.pair(0, 0), b.pair(16, 64), b.v(x)});
    b.call(opcode::buffer_extract, {b.v(x), b.v(row), b.i(24), b.v(e)});
    b.call(opcode::buffer_load, {b.v(M), b.pair(0, 0), b.pair(32, 32), b.v(m)});
    b.call(opcode::buffer_extract, {b.v(m), b.i(16), b.i(0), b.v(l)});
    b.call(opcode::buffer_load, {b.v(M), b.pair(0, 0), b.pair(16, 16), b.v(rm)});
    b.call(opcode::buffer_copy, {b.v(rm), b.v(rr)});
    b.call(opcode::buffer_matmul, {b.v(l), b.v(rr), b.v(acc)});
    b.call(opcode::buffer_store, {b.v(e), b.pair(0, 0), b.pair(8, 8), b.v(Out)});
    b.call(opcode::buffer_store, {b.v(acc), b.pair(0, 0), b.pair(16, 16), b.v(Out2)});
    b.ret({b.v(Out), b.v(Out2)});
    k.buffer = b.done();
  }
  require_valid(k);
  const sim_options o = opts(5, {{"row", 6}});
  const compare_report r = check_numerics(k.tile, k.buffer, "extract", o);
  CHECK_MESSAGE(r.ok, r.text);
  const sim_inputs in = make_inputs(k.tile.functions[0], o);
  const gm_tensor& X = *in.tensors[0];
  const gm_tensor& M = *in.tensors[1];
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t j = 0; j < 8; ++j) REQUIRE(at(out_of(r.buffer), i, j).f == at(X, 6 + i, 24 + j).f);
  for (std::int64_t i = 0; i < 16; ++i)
    for (std::int64_t j = 0; j < 16; ++j) {
      float s = 0;
      for (std::int64_t q = 0; q < 16; ++q) s += at(M, 16 + i, q).f * at(M, q, j).f;
      REQUIRE(at(out_of(r.buffer, "Out2"), i, j).f == s);
    }
}

TEST_CASE("row_sum, row_max and row_min fold each valid row (Tile only)") {
  kernel a("rows");
  const auto X = a.tensor("X", 16, 32), S = a.output("S", 16, 1), M = a.output("M", 16, 1), N = a.output("N", 16, 1);
  const auto cols = a.scalar("cols");
  const auto x = a.op(opcode::tile_load, {a.v(X), a.pair(0, 0), a.pair(16, 32), a.pair(a.i(16), a.v(cols))},
                      with_valid(vec(16, 32), extent::of(16), extent::of(cols)), "x");
  const auto s = a.op(opcode::tile_row_sum, {a.v(x)}, vec(16, 1), "s");
  const auto m = a.op(opcode::tile_row_max, {a.v(x)}, vec(16, 1), "m");
  const auto n = a.op(opcode::tile_row_min, {a.v(x)}, vec(16, 1), "n");
  const auto r0 = a.op(opcode::tile_store, {a.v(s), a.pair(0, 0), a.v(S)}, tensor_type(16, 1, dtype::fp32), "r0");
  const auto r1 = a.op(opcode::tile_store, {a.v(m), a.pair(0, 0), a.v(M)}, tensor_type(16, 1, dtype::fp32), "r1");
  const auto r2 = a.op(opcode::tile_store, {a.v(n), a.pair(0, 0), a.v(N)}, tensor_type(16, 1, dtype::fp32), "r2");
  a.ret({a.v(r0), a.v(r1), a.v(r2)});
  const program p = a.done();
  REQUIRE(verify(p).empty());
  const sim_options o = opts(6, {{"cols", 20}});
  const sim_inputs in = make_inputs(p.functions[0], o);
  const run_result r = run_tile(p, p.functions[0], in, o);
  REQUIRE(r.ok());
  for (std::int64_t i = 0; i < 16; ++i) {
    float sum = 0, mx = -1e30f, mn = 1e30f;
    for (std::int64_t j = 0; j < 20; ++j) {
      sum += at(*in.tensors[0], i, j).f;
      mx = std::max(mx, at(*in.tensors[0], i, j).f);
      mn = std::min(mn, at(*in.tensors[0], i, j).f);
    }
    CHECK(at(out_of(r, "S"), i, 0).f == sum);
    CHECK(at(out_of(r, "M"), i, 0).f == mx);
    CHECK(at(out_of(r, "N"), i, 0).f == mn);
    CHECK(mn < mx);
  }
  // A reduction over the runtime valid columns only: the kernel compares equal with itself.
  CHECK(check_numerics(p, p, "rows", o).ok);
}

TEST_CASE("scalar SSA arithmetic: floor division, modulo, min/max, casts, comparisons and logic") {
  kernel a("scalars");
  const type idx = scalar_type(dtype::index);
  const type boolean = scalar_type(dtype::bool_);
  const auto X = a.tensor("X", 16, 32), Out = a.output("Out", 64, 64);
  const auto n = a.scalar("n", dtype::int32);
  const auto q = a.op(opcode::scalar_floordiv, {a.v(n), a.i(4)}, scalar_type(dtype::int32), "q");  // floor(n / 4)
  const auto m = a.op(opcode::scalar_mod, {a.v(n), a.i(4)}, scalar_type(dtype::int32), "m");       // n mod 4, >= 0
  const auto qi = a.op(opcode::scalar_cast, {a.v(q), operand::of(dtype::index)}, idx, "qi");
  const auto mi = a.op(opcode::scalar_cast, {a.v(m), operand::of(dtype::index)}, idx, "mi");
  const auto row = a.op(opcode::scalar_max, {a.v(qi), a.i(0)}, idx, "row");
  const auto lo = a.op(opcode::scalar_min, {a.v(row), a.i(40)}, idx, "lo");
  const auto col = a.op(opcode::scalar_mul, {a.v(mi), a.i(8)}, idx, "col");
  const auto neg = a.op(opcode::scalar_lt, {a.v(n), a.i(0)}, boolean, "neg");
  const auto big = a.op(opcode::scalar_ge, {a.v(n), a.i(100)}, boolean, "big");
  const auto either = a.op(opcode::scalar_or, {a.v(neg), a.v(big)}, boolean, "either");
  const auto fine = a.op(opcode::scalar_not, {a.v(either)}, boolean, "fine");
  const auto x = a.op(opcode::tile_load, {a.v(X), a.pair(0, 0), a.pair(16, 32)}, vec(16, 32), "x");
  const auto res = a.if_(
      a.v(fine), {vec(16, 32)}, [&] { a.yield({a.v(x)}); },
      [&] { a.yield({a.v(a.op(opcode::tile_neg, {a.v(x)}, vec(16, 32), "nx"))}); });
  const auto r =
      a.op(opcode::tile_store, {a.v(res[0]), a.pair(a.v(lo), a.v(col)), a.v(Out)}, tensor_type(64, 64, dtype::fp32), "r");
  a.ret({a.v(r)});
  const program p = a.done();
  REQUIRE(verify(p).empty());
  struct expect {
    int n;
    std::int64_t row, col;
    bool negated;
  };
  for (const expect e : {expect{37, 9, 8, false}, expect{-7, 0, 8, true}, expect{123, 30, 24, true}, expect{160, 40, 0, true}}) {
    CAPTURE(e.n);
    const sim_options o = opts(7, {{"n", static_cast<double>(e.n)}});
    const sim_inputs in = make_inputs(p.functions[0], o);
    const run_result r = run_tile(p, p.functions[0], in, o);
    REQUIRE(r.ok());
    const float x0 = at(*in.tensors[0], 0, 0).f;
    CHECK(state_at(out_of(r), e.row, e.col) == cell_state::value);
    CHECK(at(out_of(r), e.row, e.col).f == (e.negated ? -x0 : x0));
  }
}

namespace {
/// acc = a @ b, then acc = matmul_acc(acc, a, b, init_cond = flag): 2ab when flag is false, ab when true.
twin init_cond_kernel() {
  twin t;
  const type left = tile_type(16, 32, dtype::fp16, memory_space::left);
  const type right = tile_type(32, 16, dtype::fp16, memory_space::right);
  const type acc = tile_type(16, 16, dtype::fp32, memory_space::acc);
  {
    kernel a("init_cond", ir_stage::tile, function_kind::aic);
    const auto A = a.tensor("A", 16, 32, dtype::fp16), B = a.tensor("B", 32, 16, dtype::fp16);
    const auto Out = a.output("Out", 16, 16, dtype::fp16);
    const auto flag = a.scalar("flag", dtype::bool_);
    const auto am =
        a.op(opcode::tile_load, {a.v(A), a.pair(0, 0), a.pair(16, 32)}, tile_type(16, 32, dtype::fp16, memory_space::mat), "am");
    const auto bm =
        a.op(opcode::tile_load, {a.v(B), a.pair(0, 0), a.pair(32, 16)}, tile_type(32, 16, dtype::fp16, memory_space::mat), "bm");
    const auto l = a.op(opcode::tile_move, {a.v(am)}, left, "l");
    const auto r = a.op(opcode::tile_move, {a.v(bm)}, right, "r");
    const auto x = a.op(opcode::tile_matmul, {a.v(l), a.v(r)}, acc, "x");
    const auto y = a.op(opcode::tile_matmul_acc, {a.v(x), a.v(l), a.v(r)}, acc, "y", {kwarg{keyword::init_cond, a.v(flag)}});
    a.ret({a.v(a.op(opcode::tile_store, {a.v(y), a.pair(0, 0), a.v(Out)}, tensor_type(16, 16, dtype::fp16), "s"))});
    t.tile = a.done();
  }
  {
    kernel b("init_cond", ir_stage::buffer, function_kind::aic);
    const auto A = b.tensor("A", 16, 32, dtype::fp16), B = b.tensor("B", 32, 16, dtype::fp16);
    const auto Out = b.output("Out", 16, 16, dtype::fp16);
    const auto flag = b.scalar("flag", dtype::bool_);
    const auto am = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 32, dtype::fp16, memory_space::mat), "am");
    const auto bm = b.op(opcode::buffer_alloc, {b.empty(), b.i(1024)}, buf(32, 16, dtype::fp16, memory_space::mat), "bm");
    const auto l = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 32, dtype::fp16, memory_space::left), "l");
    const auto r = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(32, 16, dtype::fp16, memory_space::right), "r");
    const auto c = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 16, dtype::fp32, memory_space::acc), "c");
    b.call(opcode::buffer_load, {b.v(A), b.pair(0, 0), b.pair(16, 32), b.v(am)});
    b.call(opcode::buffer_load, {b.v(B), b.pair(0, 0), b.pair(32, 16), b.v(bm)});
    b.call(opcode::buffer_copy, {b.v(am), b.v(l)});
    b.call(opcode::buffer_copy, {b.v(bm), b.v(r)});
    b.call(opcode::buffer_matmul, {b.v(l), b.v(r), b.v(c)});
    b.if_(
        b.v(flag), {},
        [&] {
          b.call(opcode::buffer_matmul, {b.v(l), b.v(r), b.v(c)});
        },
        [&] {
          b.call(opcode::buffer_matmul_acc, {b.v(l), b.v(r), b.v(c)});
        });
    b.call(opcode::buffer_store, {b.v(c), b.pair(0, 0), b.pair(16, 16), b.v(Out)});
    b.ret({b.v(Out)});
    t.buffer = b.done();
  }
  return t;
}
}  // namespace

TEST_CASE("matmul_acc with a runtime init_cond, stored through the FP32 -> FP16 fix-pipe") {
  const twin k = init_cond_kernel();
  require_valid(k);
  for (const int flag : {0, 1}) {
    CAPTURE(flag);
    const sim_options o = opts(8, {{"flag", static_cast<double>(flag)}});
    const compare_report r = check_numerics(k.tile, k.buffer, "init_cond", o);
    CHECK_MESSAGE(r.ok, r.text);
    const sim_inputs in = make_inputs(k.tile.functions[0], o);
    for (std::int64_t i = 0; i < 16; i += 3)
      for (std::int64_t j = 0; j < 16; j += 5) {
        float s = 0;
        for (std::int64_t q = 0; q < 32; ++q) s += at(*in.tensors[0], i, q).f * at(*in.tensors[1], q, j).f;
        REQUIRE(at(out_of(r.buffer), i, j).f == round_to(dtype::fp16, flag ? s : 2 * s));
      }
  }
}

TEST_CASE("a product narrower than the accumulator clobbers only the boxes it touches") {
  // acc is 32 x 32 (four 16x16 boxes); the second product covers rows [0, 8) only.
  const type acc = tile_type(32, 32, dtype::fp32, memory_space::acc);
  const type left = tile_type(32, 16, dtype::fp16, memory_space::left);
  const type part = with_valid(left, extent::of(8), extent::of(16));
  const type right = tile_type(16, 32, dtype::fp16, memory_space::right);
  twin k;
  {
    kernel a("boxes", ir_stage::tile, function_kind::aic);
    const auto A = a.tensor("A", 32, 16, dtype::fp16), B = a.tensor("B", 16, 32, dtype::fp16), Out = a.output("Out", 32, 32);
    const auto am =
        a.op(opcode::tile_load, {a.v(A), a.pair(0, 0), a.pair(32, 16)}, tile_type(32, 16, dtype::fp16, memory_space::mat), "am");
    const auto bm =
        a.op(opcode::tile_load, {a.v(B), a.pair(0, 0), a.pair(16, 32)}, tile_type(16, 32, dtype::fp16, memory_space::mat), "bm");
    const auto l = a.op(opcode::tile_move, {a.v(am)}, left, "l");
    const auto lp = a.op(opcode::tile_set_validshape, {a.v(l), a.i(8), a.i(16)}, part, "lp");
    const auto r = a.op(opcode::tile_move, {a.v(bm)}, right, "r");
    const auto x = a.op(opcode::tile_matmul, {a.v(l), a.v(r)}, acc, "x");
    const auto y = a.op(opcode::tile_matmul_acc, {a.v(x), a.v(lp), a.v(r)}, acc, "y");
    a.ret({a.v(a.op(opcode::tile_store, {a.v(y), a.pair(0, 0), a.v(Out)}, tensor_type(32, 32, dtype::fp32), "s"))});
    k.tile = a.done();
  }
  {
    kernel b("boxes", ir_stage::buffer, function_kind::aic);
    const auto A = b.tensor("A", 32, 16, dtype::fp16), B = b.tensor("B", 16, 32, dtype::fp16), Out = b.output("Out", 32, 32);
    const auto am = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(32, 16, dtype::fp16, memory_space::mat), "am");
    const auto bm = b.op(opcode::buffer_alloc, {b.empty(), b.i(1024)}, buf(16, 32, dtype::fp16, memory_space::mat), "bm");
    const auto l = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(32, 16, dtype::fp16, memory_space::left), "l");
    type pb = part;
    pb.kind = type_kind::buffer;
    const auto lp = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, pb, "l_part");  // same bytes, 8 valid rows
    const auto r = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 32, dtype::fp16, memory_space::right), "r");
    const auto c = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(32, 32, dtype::fp32, memory_space::acc), "c");
    type product = acc;
    product.kind = type_kind::buffer;
    product.valid = {extent::of(8), extent::of(32)};
    const auto cp = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, product, "c_product");  // product-shaped view
    b.call(opcode::buffer_load, {b.v(A), b.pair(0, 0), b.pair(32, 16), b.v(am)});
    b.call(opcode::buffer_load, {b.v(B), b.pair(0, 0), b.pair(16, 32), b.v(bm)});
    b.call(opcode::buffer_copy, {b.v(am), b.v(l)});
    b.call(opcode::buffer_copy, {b.v(bm), b.v(r)});
    b.call(opcode::buffer_matmul, {b.v(l), b.v(r), b.v(c)});
    b.call(opcode::buffer_matmul_acc, {b.v(lp), b.v(r), b.v(cp)});
    b.call(opcode::buffer_store, {b.v(c), b.pair(0, 0), b.pair(32, 32), b.v(Out)});
    b.ret({b.v(Out)});
    k.buffer = b.done();
  }
  require_valid(k);
  const sim_options o = opts(9);
  const sim_inputs in = make_inputs(k.tile.functions[0], o);
  for (const run_result& r : {run_tile(k.tile, k.tile.functions[0], in, o), run_buffer(k.buffer, k.buffer.functions[0], in, o)}) {
    REQUIRE(r.ok());
    const gm_tensor& out = out_of(r);
    for (std::int64_t i = 0; i < 32; ++i)
      for (std::int64_t j = 0; j < 32; ++j) {
        float s = 0;
        for (std::int64_t q = 0; q < 16; ++q) s += at(*in.tensors[0], i, q).f * at(*in.tensors[1], q, j).f;
        if (i < 8) {  // accumulated twice
          REQUIRE(state_at(out, i, j) == cell_state::value);
          REQUIRE(at(out, i, j).f == 2 * s);
        } else if (i < 16) {  // same boxes as the product, outside it: clobbered
          REQUIRE(state_at(out, i, j) == cell_state::poison);
        } else {  // untouched boxes keep the first product
          REQUIRE(state_at(out, i, j) == cell_state::value);
          REQUIRE(at(out, i, j).f == s);
        }
      }
  }
  // The check reports the clobbered rows as poison reaching GM, in both runs.
  const compare_report rep = check_numerics(k.tile, k.buffer, "boxes", o);
  CHECK_FALSE(rep.ok);
  CHECK(rep.mismatches.size() == 8 * 32);
  CHECK(rep.mismatches.front().what == mismatch::kind::both_poison);
  CHECK(rep.text.find("  Out: 256 elements differ within rows [8, 15] x cols [0, 31]\n") != std::string::npos);
}

namespace {
/// The stored bits of GM element (r, c).
std::uint32_t bits_at(const gm_tensor& t, std::int64_t r, std::int64_t c) {
  const element_bits b = t.get_bits(t.flat(r, c));
  std::uint32_t u = 0;
  std::memcpy(&u, b.b.data(), static_cast<std::size_t>(element_bytes(t.dt)));
  return u;
}
bool signaling_nan(dtype d, std::uint32_t u) {
  if (d == dtype::fp16) return (u & 0x7C00u) == 0x7C00u && (u & 0x03FFu) != 0 && (u & 0x0200u) == 0;
  if (d == dtype::bf16) return (u & 0x7F80u) == 0x7F80u && (u & 0x007Fu) != 0 && (u & 0x0040u) == 0;
  return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0 && (u & 0x00400000u) == 0;
}
/// Requires `out` (rows x cols) to hold exactly the bits of X at `src(i, j)`, and that some of
/// them are signalling NaNs (so the check saw the patterns a conversion would change).
template <class Src>
void require_same_bits(const gm_tensor& X, const gm_tensor& out, std::int64_t rows, std::int64_t cols, Src src) {
  CAPTURE(out.name);
  int nans = 0;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const auto [r, c] = src(i, j);
      CAPTURE(i);
      CAPTURE(j);
      REQUIRE(bits_at(out, i, j) == bits_at(X, r, c));
      nans += signaling_nan(X.dt, bits_at(X, r, c));
    }
  CHECK(nans > 0);
}
}  // namespace

TEST_CASE("data movement is bit-exact: signalling NaNs survive load, slice, reshape, assemble, extract, copy, store") {
  for (const dtype d : {dtype::fp16, dtype::bf16, dtype::fp32}) {
    CAPTURE(name(d));
    // Why [16, 32] and offsets (8, 16): every window starts on a 32-byte boundary in every dtype.
    twin k;
    {
      kernel a("moves");
      const auto X = a.tensor("X", 16, 32, d);
      const auto OS = a.output("OS", 8, 16, d), OR = a.output("OR", 8, 64, d), OA = a.output("OA", 16, 32, d),
                 OE = a.output("OE", 8, 16, d);
      const auto x = a.op(opcode::tile_load, {a.v(X), a.pair(0, 0), a.pair(16, 32)}, vec(16, 32, d), "x");
      const auto s = a.op(opcode::tile_slice, {a.v(x), a.pair(8, 16), a.pair(8, 16)}, vec(8, 16, d), "s");
      const auto r = a.op(opcode::tile_reshape, {a.v(x), a.pair(8, 64)}, vec(8, 64, d), "r");
      const auto y = a.op(opcode::tile_assemble, {a.v(x), a.v(s), a.pair(0, 0)}, vec(16, 32, d), "y");
      const auto e = a.op(opcode::tile_extract, {a.v(x), a.i(8), a.i(16)}, vec(8, 16, d), "e");
      const auto r0 = a.op(opcode::tile_store, {a.v(s), a.pair(0, 0), a.v(OS)}, tensor_type(8, 16, d), "r0");
      const auto r1 = a.op(opcode::tile_store, {a.v(r), a.pair(0, 0), a.v(OR)}, tensor_type(8, 64, d), "r1");
      const auto r2 = a.op(opcode::tile_store, {a.v(y), a.pair(0, 0), a.v(OA)}, tensor_type(16, 32, d), "r2");
      const auto r3 = a.op(opcode::tile_store, {a.v(e), a.pair(0, 0), a.v(OE)}, tensor_type(8, 16, d), "r3");
      a.ret({a.v(r0), a.v(r1), a.v(r2), a.v(r3)});
      k.tile = a.done();
    }
    {
      kernel b("moves", ir_stage::buffer);
      const auto X = b.tensor("X", 16, 32, d);
      const auto OS = b.output("OS", 8, 16, d), OR = b.output("OR", 8, 64, d), OA = b.output("OA", 16, 32, d),
                 OE = b.output("OE", 8, 16, d);
      const auto x = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 32, d), "x_buf");
      const auto s = b.op(opcode::buffer_subview, {b.v(x), b.pair(8, 16)}, buf(8, 16, d), "s_view");
      const auto r = b.op(opcode::buffer_reshape, {b.v(x)}, buf(8, 64, d), "r_view");
      const auto y = b.op(opcode::buffer_alloc, {b.empty(), b.i(4096)}, buf(16, 32, d), "y_buf");
      const auto ys = b.op(opcode::buffer_subview, {b.v(y), b.pair(0, 0)}, buf(8, 16, d), "y_part");
      const auto e = b.op(opcode::buffer_alloc, {b.empty(), b.i(8192)}, buf(8, 16, d), "e_buf");
      b.call(opcode::buffer_load, {b.v(X), b.pair(0, 0), b.pair(16, 32), b.v(x)});
      b.call(opcode::buffer_copy, {b.v(x), b.v(y)});
      b.call(opcode::buffer_copy, {b.v(s), b.v(ys)});
      b.call(opcode::buffer_extract, {b.v(x), b.i(8), b.i(16), b.v(e)});
      b.call(opcode::buffer_store, {b.v(s), b.pair(0, 0), b.pair(8, 16), b.v(OS)});
      b.call(opcode::buffer_store, {b.v(r), b.pair(0, 0), b.pair(8, 64), b.v(OR)});
      b.call(opcode::buffer_store, {b.v(y), b.pair(0, 0), b.pair(16, 32), b.v(OA)});
      b.call(opcode::buffer_store, {b.v(e), b.pair(0, 0), b.pair(8, 16), b.v(OE)});
      b.ret({b.v(OS), b.v(OR), b.v(OA), b.v(OE)});
      k.buffer = b.done();
    }
    require_valid(k);
    sim_options o = opts(12);
    o.signaling_nans = 64;
    const compare_report rep = check_numerics(k.tile, k.buffer, "moves", o);
    CHECK_MESSAGE(rep.ok, rep.text);
    const sim_inputs in = make_inputs(k.tile.functions[0], o);
    const gm_tensor& X = *in.tensors[0];
    for (const run_result* r : {&rep.tile, &rep.buffer}) {
      CAPTURE(r == &rep.tile ? "tile" : "buffer");
      require_same_bits(X, out_of(*r, "OS"), 8, 16, [](std::int64_t i, std::int64_t j) { return std::pair{8 + i, 16 + j}; });
      require_same_bits(X, out_of(*r, "OE"), 8, 16, [](std::int64_t i, std::int64_t j) { return std::pair{8 + i, 16 + j}; });
      require_same_bits(X, out_of(*r, "OR"), 8, 64, [](std::int64_t i, std::int64_t j) {
        return std::pair{(i * 64 + j) / 32, (i * 64 + j) % 32};
      });
      require_same_bits(X, out_of(*r, "OA"), 16, 32, [](std::int64_t i, std::int64_t j) {
        return i < 8 && j < 16 ? std::pair{8 + i, 16 + j} : std::pair{i, j};
      });
    }
  }
}

TEST_CASE("the Mat -> Left/Right relayout is bit-exact for signalling NaNs") {
  // Why unverified programs: a Left or Right tile cannot be stored in valid IR, but both
  // interpreters run the store, which makes the relayout's bytes observable without a matmul.
  for (const dtype d : {dtype::fp16, dtype::bf16, dtype::fp32}) {
    CAPTURE(name(d));
    for (const memory_space l0 : {memory_space::left, memory_space::right}) {
      CAPTURE(static_cast<int>(l0));
      const type mat = tile_type(32, 32, d, memory_space::mat);
      kernel a("relayout");
      const auto X = a.tensor("X", 32, 32, d), Out = a.output("Out", 32, 32, d);
      const auto m = a.op(opcode::tile_load, {a.v(X), a.pair(0, 0), a.pair(32, 32)}, mat, "m");
      const auto l = a.op(opcode::tile_move, {a.v(m)}, tile_type(32, 32, d, l0), "l");
      a.ret({a.v(a.op(opcode::tile_store, {a.v(l), a.pair(0, 0), a.v(Out)}, tensor_type(32, 32, d), "r"))});
      const program tile = a.done();
      kernel b("relayout", ir_stage::buffer);
      const auto BX = b.tensor("X", 32, 32, d), BOut = b.output("Out", 32, 32, d);
      const auto bm = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(32, 32, d, memory_space::mat), "m_buf");
      const auto bl = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(32, 32, d, l0), "l_buf");
      b.call(opcode::buffer_load, {b.v(BX), b.pair(0, 0), b.pair(32, 32), b.v(bm)});
      b.call(opcode::buffer_copy, {b.v(bm), b.v(bl)});
      b.call(opcode::buffer_store, {b.v(bl), b.pair(0, 0), b.pair(32, 32), b.v(BOut)});
      b.ret({b.v(BOut)});
      const program buffer = b.done();
      sim_options o = opts(13);
      o.signaling_nans = 64;
      const sim_inputs in = make_inputs(tile.functions[0], o);
      for (const run_result& r : {run_tile(tile, tile.functions[0], in, o), run_buffer(buffer, buffer.functions[0], in, o)}) {
        REQUIRE(r.ok());
        require_same_bits(*in.tensors[0], out_of(r), 32, 32, [](std::int64_t i, std::int64_t j) { return std::pair{i, j}; });
      }
    }
  }
}

TEST_CASE("tile.cast rounding modes: FP32 -> FP16 and BF16 by the ISA's enumeration (hand values)") {
  // 1 + 2^-11 lies exactly halfway between the FP16 neighbours 1 and 1 + 2^-10.
  const float tie = 1.0f + std::ldexp(1.0f, -11), up = 1.0f + std::ldexp(1.0f, -10);
  struct row {
    float x;
    int mode;
    float want;
  };
  // clang-format off
  const row rows[] = {
      {tie, 1, 1.0f}, {tie, 2, up}, {tie, 3, 1.0f}, {tie, 4, up}, {tie, 5, 1.0f}, {tie, 6, up},
      {-tie, 1, -1.0f}, {-tie, 2, -up}, {-tie, 3, -up}, {-tie, 4, -1.0f}, {-tie, 5, -1.0f},
      // Past the largest FP16 (65504): nearest and CEIL overflow, FLOOR and TRUNC stop at the largest.
      {70000.0f, 1, INFINITY}, {70000.0f, 4, INFINITY}, {70000.0f, 3, 65504.0f}, {70000.0f, 5, 65504.0f},
      {-70000.0f, 3, -INFINITY}, {-70000.0f, 5, -65504.0f},
      // Exact values keep their value in every mode; the smallest subnormal's neighbours straddle 0.
      {0.5f, 3, 0.5f}, {0.5f, 4, 0.5f}, {std::ldexp(1.0f, -26), 4, std::ldexp(1.0f, -24)}, {std::ldexp(1.0f, -26), 3, 0.0f},
      {-std::ldexp(1.0f, -26), 3, -std::ldexp(1.0f, -24)},
  };
  // clang-format on
  const auto narrow = [](dtype to, float x, int mode) { return cast_element(dtype::fp32, to, element{.f = x}, mode).f; };
  for (const row& r : rows) {
    CAPTURE(r.x);
    CAPTURE(r.mode);
    CHECK(narrow(dtype::fp16, r.x, r.mode) == r.want);
  }
  // Nearest-away overflows like nearest-even: 65520 is the midpoint between 65504 and 2^16.
  CHECK(narrow(dtype::fp16, 65520.0f, 2) == INFINITY);
  CHECK(narrow(dtype::fp16, -65520.0f, 2) == -INFINITY);
  CHECK(narrow(dtype::fp16, 1e6f, 2) == INFINITY);
  CHECK(narrow(dtype::fp16, 65519.0f, 2) == 65504.0f);
  CHECK(narrow(dtype::bf16, 3.3961775e38f, 2) == INFINITY);
  // BF16 keeps 8 significant bits: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
  const float btie = 1.0f + std::ldexp(1.0f, -8), bup = 1.0f + std::ldexp(1.0f, -7);
  CHECK(narrow(dtype::bf16, btie, 1) == 1.0f);
  CHECK(narrow(dtype::bf16, btie, 2) == bup);
  CHECK(narrow(dtype::bf16, btie, 4) == bup);
  CHECK(narrow(dtype::bf16, -btie, 3) == -bup);
  CHECK(std::isnan(narrow(dtype::fp16, NAN, 3)));
  // Widening is exact whatever the mode.
  CHECK(cast_element(dtype::fp16, dtype::fp32, element{.f = 0.1f}, 3).f == 0.1f);
}

TEST_CASE("tile.cast float -> integer rounds by mode and saturates (hand values)") {
  const float xs[] = {0.5f, 1.5f, 2.5f, -1.5f, 0.6f};
  const std::int64_t want[][5] = {
      {0, 2, 2, -2, 1},  // 1 RINT
      {1, 2, 3, -2, 1},  // 2 ROUND (ties away)
      {0, 1, 2, -2, 0},  // 3 FLOOR
      {1, 2, 3, -1, 1},  // 4 CEIL
      {0, 1, 2, -1, 0},  // 5 TRUNC
  };
  for (int mode = 1; mode <= 5; ++mode)
    for (int k = 0; k < 5; ++k) {
      CAPTURE(mode);
      CAPTURE(xs[k]);
      CHECK(cast_element(dtype::fp32, dtype::int32, element{.f = xs[k]}, mode).i == want[mode - 1][k]);
    }
  // 0 and 6 take the a2a3 default branch: nearest even.
  CHECK(cast_element(dtype::fp32, dtype::int32, element{.f = 2.5f}, 0).i == 2);
  CHECK(cast_element(dtype::fp32, dtype::int32, element{.f = 2.5f}, 6).i == 2);
  // Saturation: out of range and infinities clamp, NaN gives 0.
  CHECK(cast_element(dtype::fp32, dtype::int32, element{.f = 3e9f}, 1).i == INT32_MAX);
  CHECK(cast_element(dtype::fp32, dtype::int32, element{.f = -INFINITY}, 1).i == INT32_MIN);
  CHECK(cast_element(dtype::fp32, dtype::int32, element{.f = NAN}, 1).i == 0);
  CHECK(cast_element(dtype::fp16, dtype::int8, element{.f = 200.0f}, 1).i == 127);
  CHECK(cast_element(dtype::fp16, dtype::int8, element{.f = -127.5f}, 1).i == -128);
  CHECK(cast_element(dtype::fp16, dtype::uint8, element{.f = -3.0f}, 1).i == 0);
  // Integer -> BF16 rounds once: 2^24 + 2^16 + 1 is just above the midpoint of its neighbours.
  CHECK(cast_element(dtype::int32, dtype::bf16, element{.i = (1 << 24) + (1 << 16) + 1}, 1).f ==
        static_cast<float>((1 << 24) + (1 << 17)));
}

TEST_CASE("a scalar enters a tile rounded once from its exact value") {
  // 2^60 + 2^36 + 1 lies just above the midpoint of the FP32 neighbours 2^60 and 2^60 + 2^37;
  // through a double first it lands on the midpoint and ties to even (2^60).
  const std::int64_t big = (std::int64_t{1} << 60) + (std::int64_t{1} << 36) + 1;
  CHECK(sim::detail::scalar_element(scalar_value::of_int(dtype::int64, big), dtype::fp32).f ==
        std::ldexp(1.0f, 60) + std::ldexp(1.0f, 37));
  // 1 + 2^-11 + 2^-40 is just above the FP16 midpoint between 1 and 1 + 2^-10; through FP32 it
  // becomes the midpoint itself and ties to even (1).
  const double lit = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(scalar_value::of_float(dtype::fp16, lit).f == 1.0 + std::ldexp(1.0, -10));
  CHECK(element_of(dtype::fp16, lit).f == 1.0f + std::ldexp(1.0f, -10));
  CHECK(scalar_value::of_int(dtype::int64, big).as(dtype::fp32).f == std::ldexp(1.0, 60) + std::ldexp(1.0, 37));
}
