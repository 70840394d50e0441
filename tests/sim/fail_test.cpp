// SPDX-License-Identifier: Apache-2.0
/// @file fail_test.cpp
/// The numerics check can fail: deliberately broken Buffer twins, each reported precisely (tensor,
/// element, both values, the Buffer op that last wrote the element and where its data came from).
#include <doctest/doctest.h>

#include <string>

#include "sim/twins.hpp"
#include "tile2buffer/sim/compare.hpp"

using namespace tile2buffer;
using namespace tile2buffer::sim;
using namespace sim_test;

namespace {
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
const mismatch* find(const compare_report& r, const std::string& tensor, std::int64_t row, std::int64_t col) {
  for (const auto& m : r.mismatches)
    if (m.tensor == tensor && m.row == row && m.col == col) return &m;
  return nullptr;
}
std::string value_at(const run_result& r, const std::string& tensor, std::int64_t row, std::int64_t col) {
  const gm_tensor* t = r.tensor(tensor);
  REQUIRE(t != nullptr);
  return format_element(t->dt, t->get(t->flat(row, col)));
}
sim_options seeded(std::uint64_t s) {
  sim_options o;
  o.seed = s;
  return o;
}
}  // namespace

TEST_CASE("two live buffers placed at overlapping addresses") {
  const twin k = add_mul(flaw::overlapping_live_buffers);
  const compare_report r = check_numerics(k.tile, k.buffer, "add_mul", seeded(1));
  REQUIRE_FALSE(r.ok);
  INFO(r.text);
  // b_buf at 1024 covers rows 8..15 of a_buf: only those rows can differ.
  for (const auto& m : r.mismatches) {
    REQUIRE(m.what == mismatch::kind::value);
    REQUIRE(m.row >= 8);
  }
  CHECK(r.mismatches.size() > 200);  // a few may agree by chance
  const mismatch& first = r.mismatches.front();
  CHECK(has(r.text, "numerics: FAILED for @add_mul (seed 1)"));
  CHECK(has(r.text, "  Out: " + std::to_string(r.mismatches.size()) + " elements differ within rows [8, 15] x cols [0, 31]\n"));
  CHECK(has(first.description, "  Out[" + std::to_string(first.row) + ", " + std::to_string(first.col) +
                                   "]: tile = " + value_at(r.tile, "Out", first.row, first.col) +
                                   ", buffer = " + value_at(r.buffer, "Out", first.row, first.col) + "\n"));
  CHECK(has(first.description, "buffer: last written by " + op_text(k.buffer, opcode::buffer_store) + "; value computed by " +
                                   op_text(k.buffer, opcode::buffer_mul)));
  CHECK(has(first.description, "tile: last written by " + op_text(k.tile, opcode::tile_store)));
  // The note points at the overlap itself: add read a_buf bytes that the load of B wrote.
  CHECK(has(r.text, "note: " + op_text(k.buffer, opcode::buffer_add) + " read `a_buf` where " +
                        op_text(k.buffer, opcode::buffer_load, 1) + " wrote through `b_buf` (their storage overlaps)"));
}

TEST_CASE("a dropped copy leaves its destination never written (poison reaches GM)") {
  const twin k = copy_store(flaw::dropped_copy);
  const compare_report r = check_numerics(k.tile, k.buffer, "copy_store", seeded(2));
  REQUIRE_FALSE(r.ok);
  INFO(r.text);
  CHECK(r.mismatches.size() == 16 * 32);
  const mismatch* m = find(r, "Out", 3, 7);
  REQUIRE(m != nullptr);
  CHECK(m->what == mismatch::kind::buffer_poison);
  CHECK(has(m->description, "  Out[3, 7]: buffer stored poison (tile = " + value_at(r.tile, "Out", 3, 7) + ")\n"));
  CHECK(has(m->description, "buffer: last written by " + op_text(k.buffer, opcode::buffer_store) +
                                "; the data was never written: `y_buf` was read before anything wrote it, first by " +
                                op_text(k.buffer, opcode::buffer_store)));
  // The same kernel with the copy agrees.
  CHECK(check_numerics(k.tile, copy_store().buffer, "copy_store", seeded(2)).ok);
}

TEST_CASE("reading a never-written buffer: the first reader is named") {
  const twin k = add_mul(flaw::never_written);
  const compare_report r = check_numerics(k.tile, k.buffer, "add_mul", seeded(3));
  REQUIRE_FALSE(r.ok);
  INFO(r.text);
  CHECK(r.mismatches.size() == 16 * 32);
  for (const auto& m : r.mismatches) REQUIRE(m.what == mismatch::kind::buffer_poison);
  // b_buf is read first by the add (the mul reads it again later; the origin stays the add).
  CHECK(has(r.mismatches.front().description,
            "`b_buf` was read before anything wrote it, first by " + op_text(k.buffer, opcode::buffer_add)));
}

TEST_CASE("a store at the wrong offset: unwritten rows on one side, stray rows on the other") {
  const twin k = add_mul(flaw::store_offset, 32);
  const compare_report r = check_numerics(k.tile, k.buffer, "add_mul", seeded(4));
  REQUIRE_FALSE(r.ok);
  INFO(r.text);
  CHECK(r.mismatches.size() == 32 * 32);
  const mismatch* missing = find(r, "Out", 0, 5);
  const mismatch* stray = find(r, "Out", 16, 5);
  REQUIRE(missing != nullptr);
  REQUIRE(stray != nullptr);
  CHECK(missing->what == mismatch::kind::unwritten_in_buffer);
  CHECK(has(missing->description, "  Out[0, 5]: tile = " + value_at(r.tile, "Out", 0, 5) + ", buffer = unwritten (-555)\n"));
  CHECK(stray->what == mismatch::kind::unwritten_in_tile);
  CHECK(has(stray->description, "  Out[16, 5]: tile = unwritten (-555), buffer = " + value_at(r.buffer, "Out", 16, 5) + "\n"));
  CHECK(has(stray->description, "buffer: last written by " + op_text(k.buffer, opcode::buffer_store)));
  // What the misplaced store wrote at row 16 is what the Tile run wrote at row 0.
  CHECK(value_at(r.buffer, "Out", 16, 5) == value_at(r.tile, "Out", 0, 5));
}

TEST_CASE("a store past the end of its tensor hits the sentinel band") {
  const twin k = add_mul(flaw::store_past_end);
  const compare_report r = check_numerics(k.tile, k.buffer, "add_mul", seeded(5));
  REQUIRE_FALSE(r.ok);
  INFO(r.text);
  int hits = 0;
  for (const auto& m : r.mismatches) hits += m.what == mismatch::kind::sentinel;
  CHECK(hits == 32);  // exactly the last row, which lands just past the tensor
  const mismatch* m = find(r, "Out", 16, 3);
  REQUIRE(m != nullptr);
  CHECK(m->what == mismatch::kind::sentinel);
  CHECK(has(r.text, "32 sentinel hits\n"));
  // Sentinel hits are reported first.
  CHECK(has(r.text, "differ\n  Out: "));
  CHECK(r.text.find("sentinel hit") < r.text.find("unwritten (-555)"));
  CHECK(has(m->description, "  Out[16, 3] (sentinel band after the tensor): sentinel hit, buffer = "));
  CHECK(has(m->description, "buffer: last written by " + op_text(k.buffer, opcode::buffer_store)));
}

TEST_CASE("a write outside the runtime valid region changes the unwritten interior") {
  const twin k = runtime_valid(flaw::valid_overrun);
  sim_options o = seeded(6);
  o.scalars = {{"cols", 24}};
  const compare_report r = check_numerics(k.tile, k.buffer, "runtime_valid", o);
  REQUIRE_FALSE(r.ok);
  INFO(r.text);
  CHECK(r.mismatches.size() == 16 * (64 - 24));
  for (const auto& m : r.mismatches) {
    REQUIRE(m.what == mismatch::kind::unwritten_in_tile);
    REQUIRE(m.col >= 24);
  }
  CHECK(has(r.text, "  Out: 640 elements differ within rows [0, 15] x cols [24, 63]\n"));
  CHECK(has(r.text, "  Out[0, 24]: tile = unwritten (-555), buffer = "));
  // With cols = 64 the flaw is invisible: the check only fails where behaviour differs.
  o.scalars = {{"cols", 64}};
  CHECK(check_numerics(k.tile, k.buffer, "runtime_valid", o).ok);
  // A runtime-valid allocation without its initial extents.
  kernel b("runtime_valid", ir_stage::buffer);
  const auto X = b.tensor("X", 16, 64), Out = b.output("Out", 16, 64);
  b.scalar("cols");
  const auto h = b.op(opcode::buffer_alloc, {b.empty()}, with_valid(buf(16, 64), extent::runtime(), extent::runtime()), "h");
  b.call(opcode::buffer_load, {b.v(X), b.pair(0, 0), b.pair(16, 64), b.v(h)});
  b.ret({b.v(Out)});
  twin no_extents = runtime_valid();
  no_extents.buffer = b.done();
  CHECK(check_numerics(no_extents.tile, no_extents.buffer, "runtime_valid", o).text ==
        "numerics: Buffer run failed\n  2:3: buffer.alloc: the valid tuple needs one extent per runtime (`?`) dim\n");
}

TEST_CASE("report size is bounded and says how much was left out") {
  const twin k = add_mul(flaw::never_written);
  sim_options o = seeded(7);
  o.max_reported = 2;
  const compare_report r = check_numerics(k.tile, k.buffer, "add_mul", o);
  REQUIRE_FALSE(r.ok);
  CHECK(has(r.text, "  ... and 510 more\n"));
}

TEST_CASE("Buffer programs that violate their preconditions stop with a diagnostic") {
  // Extents that disagree with the destination's valid metadata.
  twin k = runtime_valid();
  sim_options o = seeded(1);
  o.scalars = {{"cols", 24}};
  const twin broken = [] {
    twin t = runtime_valid();
    kernel b("runtime_valid", ir_stage::buffer);
    const auto X = b.tensor("X", 16, 64), Out = b.output("Out", 16, 64);
    const auto cols = b.scalar("cols");
    const type dyn = with_valid(buf(16, 64), extent::runtime(), extent::runtime());
    const auto loaded = b.op(opcode::buffer_alloc, {b.pair(16, 64)}, dyn, "loaded_buf");
    b.call(opcode::buffer_load, {b.v(X), b.pair(0, 0), b.pair(b.i(16), b.v(cols)), b.v(loaded)});  // no set_validshape
    b.call(opcode::buffer_store, {b.v(loaded), b.pair(0, 0), b.pair(b.i(16), b.v(cols)), b.v(Out)});
    b.ret({b.v(Out)});
    t.buffer = b.done();
    return t;
  }();
  const compare_report r = check_numerics(broken.tile, broken.buffer, "runtime_valid", o);
  CHECK_FALSE(r.ok);
  CHECK(r.text ==
        "numerics: Buffer run failed\n  3:3: buffer.load: extents (16, 24) differ from the valid (16, 64) of `loaded_buf`\n");
  CHECK(check_numerics(k.tile, k.buffer, "runtime_valid", o).ok);
}

TEST_CASE("mismatched kernels are refused before running") {
  const twin a = add_mul();
  const twin b = windows();
  CHECK(check_numerics(a.tile, b.buffer, "add_mul").text == "numerics: kernel @add_mul is missing from the Buffer program\n");
  const twin c = add_mul(flaw::none, 32);
  CHECK(check_numerics(a.tile, c.buffer, "add_mul").text ==
        "numerics: @add_mul has different parameters in the Tile and Buffer programs\n");
}

namespace {
/// out = op(A) for a unary FP32 op, and its Buffer twin.
twin unary(opcode tile_op) {
  twin t;
  kernel a("unary");
  auto A = a.tensor("A", 16, 32), Out = a.output("Out", 16, 32);
  const auto x = a.op(opcode::tile_load, {a.v(A), a.pair(0, 0), a.pair(16, 32)}, vec(16, 32), "x");
  const auto y = a.op(tile_op, {a.v(x)}, vec(16, 32), "y");
  a.ret({a.v(a.op(opcode::tile_store, {a.v(y), a.pair(0, 0), a.v(Out)}, tensor_type(16, 32, dtype::fp32), "r"))});
  t.tile = a.done();
  kernel b("unary", ir_stage::buffer);
  A = b.tensor("A", 16, 32);
  Out = b.output("Out", 16, 32);
  const auto xb = b.op(opcode::buffer_alloc, {b.empty()}, buf(16, 32), "x_buf");
  const auto yb = b.op(opcode::buffer_alloc, {b.empty()}, buf(16, 32), "y_buf");
  b.call(opcode::buffer_load, {b.v(A), b.pair(0, 0), b.pair(16, 32), b.v(xb)});
  b.call(*buffer_counterpart(tile_op), {b.v(xb), b.v(yb)});
  b.call(opcode::buffer_store, {b.v(yb), b.pair(0, 0), b.pair(16, 32), b.v(Out)});
  b.ret({b.v(Out)});
  t.buffer = b.done();
  return t;
}
/// The check on `k` after scaling Out[2, 3] of the Buffer run by (1 + rel).
compare_report perturbed(const twin& k, double rel) {
  const sim_options o = seeded(13);
  const sim_inputs in = make_inputs(k.tile.functions[0], o);
  run_result b = run_buffer(k.buffer, k.buffer.functions[0], in, o);
  gm_tensor& out = *b.tensors[1];
  const std::int64_t f = out.flat(2, 3);
  element e = out.get(f);
  e.f = static_cast<float>(static_cast<double>(e.f) * (1.0 + rel));
  out.put(f, e, out.meta_at(f));
  return compare_runs(run_tile(k.tile, k.tile.functions[0], in, o), std::move(b), o);
}
}  // namespace

TEST_CASE("tolerance: exact ops compare bit for bit, exp/log/sqrt/div/recip within 1e-6 relative") {
  const twin neg = unary(opcode::tile_neg);
  const twin ex = unary(opcode::tile_exp);
  CHECK(perturbed(neg, 0.0).ok);
  CHECK(perturbed(ex, 0.0).ok);
  // One unit in the last place (2^-23 relative) is a mismatch for neg, not for exp.
  const compare_report exact = perturbed(neg, 1.2e-7);
  CHECK_FALSE(exact.ok);
  REQUIRE(exact.mismatches.size() == 1);
  CHECK(exact.mismatches[0].row == 2);
  CHECK(exact.mismatches[0].col == 3);
  CHECK(perturbed(ex, 1.2e-7).ok);
  CHECK(perturbed(ex, 5e-7).ok);
  // Beyond the tolerance the inexact op is reported too.
  CHECK_FALSE(perturbed(ex, 1e-4).ok);
  CHECK(relative_tolerance(dtype::fp32) == 1e-6);
  CHECK(relative_tolerance(dtype::fp16) == 1.0 / 1024.0);
}

TEST_CASE("a Vec window off the 32-byte grid stops the Buffer run, for the binding that puts it there") {
  // Why the Buffer run checks: selection keeps a window Buffer only when it proves the base
  // aligned, and this is where a wrong proof (a runtime offset it misjudged) becomes visible.
  twin k;
  {
    kernel a("window");
    const auto X = a.tensor("X", 16, 64), Out = a.output("Out", 16, 8);
    const auto col = a.scalar("col");
    const auto x = a.op(opcode::tile_load, {a.v(X), a.pair(0, 0), a.pair(16, 64)}, vec(16, 64), "x");
    const auto w = a.op(opcode::tile_slice, {a.v(x), a.pair(16, 8), a.pair(a.i(0), a.v(col))}, vec(16, 8), "w");
    a.ret({a.v(a.op(opcode::tile_store, {a.v(w), a.pair(0, 0), a.v(Out)}, tensor_type(16, 8, dtype::fp32), "r"))});
    k.tile = a.done();
  }
  {
    kernel b("window", ir_stage::buffer);
    const auto X = b.tensor("X", 16, 64), Out = b.output("Out", 16, 8);
    const auto col = b.scalar("col");
    const auto x = b.op(opcode::buffer_alloc, {b.empty(), b.i(0)}, buf(16, 64), "x_buf");
    b.call(opcode::buffer_load, {b.v(X), b.pair(0, 0), b.pair(16, 64), b.v(x)});
    const auto w = b.op(opcode::buffer_subview, {b.v(x), b.pair(b.i(0), b.v(col))}, buf(16, 8), "w_view");
    b.call(opcode::buffer_store, {b.v(w), b.pair(0, 0), b.pair(16, 8), b.v(Out)});
    b.ret({b.v(Out)});
    k.buffer = b.done();
  }
  sim_options o = seeded(2);
  for (const std::int64_t col : {0, 8, 56}) {
    o.scalars = {{"col", static_cast<double>(col)}};
    CAPTURE(col);
    const compare_report r = check_numerics(k.tile, k.buffer, "window", o);
    CHECK_MESSAGE(r.ok, r.text);
  }
  o.scalars = {{"col", 3}};
  const compare_report r = check_numerics(k.tile, k.buffer, "window", o);
  CHECK_FALSE(r.ok);
  CHECK(
      r.text ==
      "numerics: Buffer run failed\n  4:3: buffer.subview: Vec window `w_view` at (0, 3) of `x_buf` starts at address 12 (byte 12 "
      "of `x_buf`), which is not 32-byte aligned; a vector base address must be a multiple of 32 bytes\n");
  // A reshape names its source's base: over storage placed off the grid, it is such a window too.
  kernel c("relabel", ir_stage::buffer);
  const auto X = c.tensor("X", 16, 64);
  const auto x = c.op(opcode::buffer_alloc, {c.empty(), c.i(16)}, buf(16, 64), "x_buf");
  c.op(opcode::buffer_reshape, {c.v(x)}, buf(32, 32), "y_view");
  c.call(opcode::buffer_load, {c.v(X), c.pair(0, 0), c.pair(16, 64), c.v(x)});
  c.ret({});
  const program p = c.done();
  const run_result rr = run_buffer(p, p.functions[0], make_inputs(p.functions[0], o), o);
  REQUIRE(rr.errors.size() == 1);
  CHECK(
      std::string(rr.errors[0].message.view()) ==
      "buffer.reshape: Vec window `y_view` of `x_buf` starts at address 16 (byte 0 of `x_buf`), which is not 32-byte aligned; a "
      "vector base address must be a multiple of 32 bytes");
}
