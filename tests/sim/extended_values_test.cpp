// SPDX-License-Identifier: Apache-2.0
/// @file extended_values_test.cpp
/// Hand-written value tables for the extended rollout's reductions and broadcasts (extended-rollout.md
/// §2.4, §2.7), as ew_table_test.cpp pins the elementwise table: each case runs one kernel on chosen
/// inputs as Tile IR and lowered under rollout = extended (pypto), and checks both runs against the
/// value written here. [U] marks a choice the ISA leaves open (ties of signed zeros, NaN
/// propagation): the simulator's fixed left-to-right / top-to-bottom fold decides it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tile2buffer/lower.hpp"
#include "tile2buffer/sim/run_buffer.hpp"
#include "tile2buffer/sim/run_tile.hpp"
#include "tile2buffer/text/parse.hpp"

using namespace tile2buffer;
using namespace tile2buffer::sim;

namespace {

/// Runs `text`'s kernel @k with X holding `x` (row-major, the rest of X zero) in both stages and
/// returns each run's Out (Tile first). `rows`/`cols` bind the like-named scalar parameters.
std::vector<std::vector<float>> run_both(const std::string& text, const std::vector<float>& x, std::int64_t rows,
                                         std::int64_t cols) {
  const auto parsed = parse(text, "values.t2b");
  REQUIRE(parsed.ok());
  const auto lowered = lower(parsed.value, options{.rollout = rollout_kind::extended});
  REQUIRE(lowered.ok());
  REQUIRE(lowered.value.functions[0].stage == ir_stage::buffer);
  sim_options o;
  o.scalars = {scalar_binding("rows", static_cast<double>(rows)), scalar_binding("cols", static_cast<double>(cols))};
  std::vector<std::vector<float>> outs;
  for (const program* p : {&parsed.value, &lowered.value}) {
    sim_inputs in = make_inputs(p->functions[0], o);
    gm_tensor& X = *in.tensors[0];
    cell_meta m;
    m.state = cell_state::value;
    for (std::int64_t f = 0; f < X.size(); ++f)
      X.put(f, element{.f = f < static_cast<std::int64_t>(x.size()) ? x[static_cast<std::size_t>(f)] : 0.0f}, m);
    const run_result r = p == &parsed.value ? run_tile(*p, p->functions[0], in, o) : run_buffer(*p, p->functions[0], in, o);
    REQUIRE(r.ok());
    const gm_tensor* out = r.tensor("Out");
    REQUIRE(out != nullptr);
    std::vector<float> v;
    for (std::int64_t f = 0; f < out->size(); ++f)
      v.push_back(out->meta_at(f).state == cell_state::value ? out->get(f).f : -555.0f);
    outs.push_back(v);
  }
  return outs;
}

bool same(float a, float b) { return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)); }

// Row reductions over one [8, 8] tile (rows past `rows`, columns past `cols` are not read); the
// three column results land in rows 0-7, 8-15, 16-23 of the one-column Out (a column vector is
// stored into a contiguous GM column).
const std::string row_kernel =
    R"(aiv @k(X: Tensor[[8, 8], FP32], Out: out Tensor[[24, 1], FP32], rows: Scalar[INDEX], cols: Scalar[INDEX]) -> Tensor[[24, 1], FP32] {
  x = tile.load(X, (0, 0), (8, 8), (8, cols)) : Tile[[8, 8], FP32, Vec, valid=[8, cols]]
  s = tile.row_sum(x) : Tile[[8, 1], FP32, Vec]
  m = tile.row_max(x) : Tile[[8, 1], FP32, Vec]
  n = tile.row_min(x) : Tile[[8, 1], FP32, Vec]
  r0 = tile.store(s, (0, 0), Out) : Tensor[[24, 1], FP32]
  r1 = tile.store(m, (8, 0), r0) : Tensor[[24, 1], FP32]
  r2 = tile.store(n, (16, 0), r1) : Tensor[[24, 1], FP32]
  return r2
}
)";

}  // namespace

TEST_CASE("row reductions: fold order, signed zeros, NaN and an empty row count (both runs)") {
  const float nan = std::nanf(""), big = 1.0e8f;
  // Row i of X: the cases, two columns valid each (cols = 2), except row 4 (four columns, the order).
  std::vector<float> x(64, 0.0f);
  const auto row = [&](int i, std::vector<float> v) {
    for (std::size_t j = 0; j < v.size(); ++j) x[static_cast<std::size_t>(i * 8) + j] = v[j];
  };
  row(0, {1.0f, 1.0f});    // ties: max = min = 1
  row(1, {+0.0f, -0.0f});  // [U] max(+0, -0) folds to -0 (x > y ? x : y), min to -0
  row(2, {-0.0f, +0.0f});  // [U] ... and to +0 the other way round
  row(3, {nan, 1.0f});     // [U] a NaN first: max/min keep the later 1; the sum is NaN
  row(5, {1.0f, nan});     // [U] a NaN last: max/min give NaN
  const auto outs = run_both(row_kernel, x, 8, 2);
  struct want {
    int row;
    float sum, max, min;
  };
  const want w[] = {
      {0, 2.0f, 1.0f, 1.0f}, {1, 0.0f, -0.0f, -0.0f}, {2, 0.0f, +0.0f, +0.0f}, {3, nan, 1.0f, 1.0f}, {5, nan, nan, nan}};
  for (const auto& out : outs)
    for (const want& c : w) {
      CAPTURE(c.row);
      CHECK(same(out[static_cast<std::size_t>(c.row)], c.sum));
      CHECK(same(out[static_cast<std::size_t>(8 + c.row)], c.max));
      CHECK(same(out[static_cast<std::size_t>(16 + c.row)], c.min));
    }
  // The order: (((1e8 + 1) - 1e8) + 1) rounds each FP32 add, left to right: 1, not 2.
  x.assign(64, 0.0f);
  row(4, {big, 1.0f, -big, 1.0f});
  for (const auto& out : run_both(row_kernel, x, 8, 4)) CHECK(out[4] == 1.0f);
  // An empty row count skips the op (both runs): nothing meaningful is stored, so neither run
  // stores a value there.
  for (const auto& out : run_both(row_kernel, x, 8, 0)) CHECK(out[0] == -555.0f);
}

TEST_CASE("broadcast arithmetic: division by zero and NaN follow tile.div and tile.sub (both runs)") {
  const std::string text =
      R"(aiv @k(X: Tensor[[8, 8], FP32], Out: out Tensor[[8, 8], FP32], rows: Scalar[INDEX], cols: Scalar[INDEX]) -> Tensor[[8, 8], FP32] {
  x = tile.load(X, (0, 0), (8, 8)) : Tile[[8, 8], FP32, Vec]
  w = tile.load(X, (7, 0), (1, 8)) : Tile[[1, 8], FP32, Vec]
  v = tile.col_sum(x) : Tile[[1, 8], FP32, Vec]
  m = tile.row_min(x) : Tile[[8, 1], FP32, Vec]
  d = tile.row_expand_div(x, m) : Tile[[8, 8], FP32, Vec]
  e = tile.col_expand_sub(d, w) : Tile[[8, 8], FP32, Vec]
  r = tile.store(e, (0, 0), Out) : Tensor[[8, 8], FP32]
  return r
}
)";
  // Row 0: min 0 -> x / 0 gives inf (and 0 / 0 NaN); row 1: min -2 -> -x / 2; row 7 (w) is zero
  // but for column 1, 0.5, so the column subtraction shows the broadcast along columns.
  std::vector<float> x(64, 1.0f);
  x[0] = 0.0f;
  for (int j = 0; j < 8; ++j) x[static_cast<std::size_t>(8 + j)] = j == 3 ? -2.0f : 4.0f;
  for (int j = 0; j < 8; ++j) x[static_cast<std::size_t>(56 + j)] = j == 1 ? 0.5f : 0.0f;
  for (const auto& out : run_both(text, x, 8, 8)) {
    CHECK(std::isnan(out[0]));   // 0 / 0 - 0
    CHECK(out[1] == INFINITY);   // 1 / 0 - 0.5
    CHECK(out[2] == INFINITY);   // 1 / 0 - 0
    CHECK(out[8 + 0] == -2.0f);  // 4 / -2 - 0
    CHECK(out[8 + 1] == -2.5f);  // 4 / -2 - 0.5
    CHECK(out[8 + 3] == 1.0f);   // -2 / -2 - 0
  }
}
