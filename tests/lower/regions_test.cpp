// SPDX-License-Identifier: Apache-2.0
/// @file regions_test.cpp
/// Control flow. The parallel-move scheduler on its own: random permutations, cycles, fan-outs
/// and partially overlapping windows, each schedule executed on a byte memory and compared with
/// the parallel semantics (every source read before any destination is written). Then random
/// loops and branches whose Tile carries permute, rotate and fan out, lowered with every planner
/// and compared with the Tile program in the simulator for trip counts 0..3 and both flags; and
/// a kernel whose storage reuse across the backedge would be wrong.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "support/numerics.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/parallel_move.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

namespace {

struct window {
  int begin = 0;
  int size = 0;
};

/// Runs `moves` over `windows` on a byte memory through the scheduler; returns false (with a
/// message) when the result differs from the parallel semantics or a native copy would see a
/// partially overlapping source and destination.
bool run_schedule(const std::vector<window>& windows, const std::vector<parallel_move>& moves, int memory, int& snapshots,
                  std::string& why) {
  std::vector<int> mem(static_cast<std::size_t>(memory));
  std::iota(mem.begin(), mem.end(), 1000);
  std::vector<int> expected = mem;
  for (const auto& m : moves)
    for (int i = 0; i < windows[m.source].size; ++i)
      expected[static_cast<std::size_t>(windows[m.destination].begin + i)] =
          mem[static_cast<std::size_t>(windows[m.source].begin + i)];
  const auto identical = [&](std::uint32_t a, std::uint32_t b) {
    return windows[a].begin == windows[b].begin && windows[a].size == windows[b].size;
  };
  const auto overlap = [&](std::uint32_t a, std::uint32_t b) {
    return windows[a].begin < windows[b].begin + windows[b].size && windows[b].begin < windows[a].begin + windows[a].size;
  };
  const auto steps = schedule_parallel_moves(moves, identical, overlap);
  std::vector<std::vector<int>> scratch(moves.size());
  snapshots = 0;
  for (const auto& s : steps) {
    const window src = windows[moves[s.move].source];
    const window dst = windows[moves[s.move].destination];
    if (s.snapshot) {
      scratch[s.move].assign(mem.begin() + src.begin, mem.begin() + src.begin + src.size);
      ++snapshots;
      continue;
    }
    if (scratch[s.move].empty()) {
      if (overlap(moves[s.move].source, moves[s.move].destination)) {
        why = "a native copy reads a source overlapping its destination";
        return false;
      }
      std::copy(mem.begin() + src.begin, mem.begin() + src.begin + src.size, mem.begin() + dst.begin);
    } else {
      std::copy(scratch[s.move].begin(), scratch[s.move].end(), mem.begin() + dst.begin);
    }
  }
  if (mem != expected) {
    why = "the sequence differs from the parallel move";
    return false;
  }
  return true;
}

}  // namespace

TEST_CASE("parallel moves: a permutation of equal slots needs one snapshot per cycle, fan-out none") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 3000; ++round) {
    const int slots = 1 + static_cast<int>(rng() % 7);
    std::vector<window> windows;
    for (int s = 0; s < slots; ++s) windows.push_back(window{s * 4, 4});
    std::vector<int> perm(static_cast<std::size_t>(slots));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const bool fan_out = round % 3 == 0;
    std::vector<parallel_move> moves;
    for (int d = 0; d < slots; ++d) {
      // Fan-out: some destinations read the same source as another one.
      const int s = fan_out && rng() % 2 == 0 ? perm[0] : perm[static_cast<std::size_t>(d)];
      moves.push_back(parallel_move{static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(d)});
    }
    int snapshots = 0;
    std::string why;
    REQUIRE_MESSAGE(run_schedule(windows, moves, slots * 4, snapshots, why), "round ", round, ": ", why);
    if (!fan_out) {
      // Cycles of length >= 2 in the permutation.
      std::vector<char> seen(static_cast<std::size_t>(slots), 0);
      int cycles = 0;
      for (int i = 0; i < slots; ++i) {
        if (seen[static_cast<std::size_t>(i)]) continue;
        int len = 0;
        for (int j = i; !seen[static_cast<std::size_t>(j)]; j = perm[static_cast<std::size_t>(j)]) {
          seen[static_cast<std::size_t>(j)] = 1;
          ++len;
        }
        cycles += len >= 2 ? 1 : 0;
      }
      CHECK_MESSAGE(snapshots == cycles, "round ", round, ": ", snapshots, " snapshots for ", cycles, " cycles");
    }
  }
}

TEST_CASE("parallel moves: partially overlapping sources and destinations") {
  std::mt19937_64 rng(11);
  int with_snapshots = 0;
  for (int round = 0; round < 3000; ++round) {
    const int size = 1 + static_cast<int>(rng() % 4);
    const int count = 1 + static_cast<int>(rng() % 4);
    const int memory = size * count * 3;
    std::vector<window> windows;
    std::vector<parallel_move> moves;
    // Disjoint destinations on a grid; sources anywhere (any overlap with anything).
    std::vector<int> grid(static_cast<std::size_t>(memory / size));
    std::iota(grid.begin(), grid.end(), 0);
    std::shuffle(grid.begin(), grid.end(), rng);
    for (int m = 0; m < count; ++m) {
      windows.push_back(window{static_cast<int>(rng() % static_cast<std::uint64_t>(memory - size + 1)), size});
      windows.push_back(window{grid[static_cast<std::size_t>(m)] * size, size});
      moves.push_back(parallel_move{static_cast<std::uint32_t>(2 * m), static_cast<std::uint32_t>(2 * m + 1)});
    }
    int snapshots = 0;
    std::string why;
    REQUIRE_MESSAGE(run_schedule(windows, moves, memory, snapshots, why), "round ", round, ": ", why);
    with_snapshots += snapshots > 0 ? 1 : 0;
  }
  CHECK(with_snapshots > 100);  // the rounds did exercise overlap
}

namespace {

/// A loop (For or While) or a branch inside a loop over `n` Tile carries whose body yields
/// `next[i]` for carry i: a carry (permutations, rotations, fan-out) or, for -1, a fresh sum.
/// Initializers come from `init` (load numbers; repeats are repeated initializers), and the
/// loads are stored again after the loop when `observe` (so they stay observable).
std::string loop_kernel(int n, const std::vector<int>& init, const std::vector<int>& next, bool use_while, bool branch,
                        bool observe) {
  const std::string tile = "Tile[[8, 32], FP32, Vec]";
  std::string s = "aiv @k(";
  for (int i = 0; i < n; ++i) s += "A" + std::to_string(i) + ": Tensor[[8, 32], FP32], ";
  const int rows = 8 * (2 * n);
  const std::string out = "Tensor[[" + std::to_string(rows) + ", 32], FP32]";
  s += "Out: out " + out + ", count: Scalar[INDEX], flag: Scalar[BOOL]) -> " + out + " {\n";
  for (int i = 0; i < n; ++i)
    s += "  l" + std::to_string(i) + " = tile.load(A" + std::to_string(i) + ", (0, 0), (8, 32)) : " + tile + "\n";
  std::string results, iters, types;
  for (int i = 0; i < n; ++i) {
    results += (i ? ", " : "") + std::string("r") + std::to_string(i);
    iters += (i ? ", " : "") + std::string("c") + std::to_string(i) + " = l" + std::to_string(init[static_cast<std::size_t>(i)]);
    types += (i ? ", " : "") + tile;
  }
  s += "  " + results + ", k_out = ";
  s += use_while ? "while iter(" + iters + ", k = 0) -> (" + types + ", INDEX) cond(k < count) {\n"
                 : "for i in range(0, count, 1) iter(" + iters + ", k = 0) -> (" + types + ", INDEX) {\n";
  s += "    fresh = tile.add(c0, c" + std::to_string(n - 1) + ") : " + tile + "\n";
  s += "    half = tile.muls(fresh, 0.5) : " + tile + "\n";
  std::string yields;
  for (int i = 0; i < n; ++i) {
    const int x = next[static_cast<std::size_t>(i)];
    yields += (i ? ", " : "") + (x < 0 ? std::string("half") : "c" + std::to_string(x));
  }
  std::string swapped;  // the other arm yields the carries in reverse order
  for (int i = 0; i < n; ++i) swapped += (i ? ", " : "") + std::string("c") + std::to_string(n - 1 - i);
  s += "    k_next = k + 1\n";
  if (branch) {
    std::string names;
    for (int i = 0; i < n; ++i) names += (i ? ", " : "") + std::string("b") + std::to_string(i);
    s += "    " + names + " = if flag -> (" + types + ") {\n      yield " + yields + "\n    } else {\n      yield " + swapped +
         "\n    }\n";
    s += "    yield " + names + ", k_next\n  }\n";
  } else {
    s += "    yield " + yields + ", k_next\n  }\n";
  }
  std::string prev = "Out";
  int row = 0;
  const auto store = [&](const std::string& v) {
    const std::string name = "s" + std::to_string(row);
    s += "  " + name + " = tile.store(" + v + ", (" + std::to_string(8 * row) + ", 0), " + prev + ") : " + out + "\n";
    prev = name;
    ++row;
  };
  for (int i = 0; i < n; ++i) store("r" + std::to_string(i));
  if (observe)
    for (int i = 0; i < n; ++i) store("l" + std::to_string(i));
  s += "  return " + prev + "\n}\n";
  return s;
}

}  // namespace

TEST_CASE("random Tile carries (swaps, rotations, fan-out, repeated and live initializers) lower and match Tile") {
  std::mt19937_64 rng(3);
  const planner_kind planners[] = {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas};
  int checks = 0;
  for (int round = 0; round < 40; ++round) {
    const int n = 2 + static_cast<int>(rng() % 3);
    std::vector<int> init(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) init[static_cast<std::size_t>(i)] = rng() % 4 == 0 ? 0 : i;  // repeated initializers
    std::vector<int> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int i = 0; i < n; ++i) {
      const auto pick = rng() % 6;
      next[static_cast<std::size_t>(i)] = pick == 0 ? -1 : pick == 1 ? perm[0] : perm[static_cast<std::size_t>(i)];
    }
    const std::string text = loop_kernel(n, init, next, round % 3 == 1, round % 4 == 2, round % 2 == 0);
    const auto parsed = parse(text, "carries");
    REQUIRE_MESSAGE(parsed.ok(), text);
    for (planner_kind planner : planners) {
      const auto lowered = lower(parsed.value, options{.planner = planner});
      REQUIRE_MESSAGE(lowered.ok(), "round ", round, " ", name(planner), ": ",
                      std::string(format_all(lowered.errors, "k").view()), "\n", text);
      REQUIRE_MESSAGE(lowered.value.functions[0].stage == ir_stage::buffer, "round ", round, " stayed Tile\n", text);
      for (int count = 0; count <= 3; ++count)
        for (int flag = 0; flag <= 1; ++flag) {
          sim::sim_options so;
          so.seed = static_cast<std::uint64_t>(round + 1);
          so.scalars = {{"count", static_cast<double>(count)}, {"flag", static_cast<double>(flag)}};
          const auto report = testing::check_numerics(parsed.value, lowered.value, "k", so);
          REQUIRE_MESSAGE(report.ok, "round ", round, " ", name(planner), " count ", count, " flag ", flag, ": ", report.text,
                          "\n", text, "\n", std::string(print(lowered.value).view()));
          ++checks;
        }
    }
  }
  MESSAGE(checks, " numerics checks");
}

TEST_CASE("a value read at the top of a loop body stays live through the whole loop") {
  // Without the backedge rule `c` (last read by `y`) and `t` (defined after it) could share
  // bytes, and the second iteration would read `t` where `c` was.
  const std::string text =
      R"(aiv @k(A: Tensor[[16, 32], FP32], C: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], count: Scalar[INDEX]) -> Tensor[[16, 32], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  c = tile.load(C, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  r = for i in range(0, count, 1) iter(x = a) -> (Tile[[16, 32], FP32, Vec]) {
    y = tile.add(x, c) : Tile[[16, 32], FP32, Vec]
    t = tile.muls(y, 0.5) : Tile[[16, 32], FP32, Vec]
    yield t
  }
  s = tile.store(r, (0, 0), Out) : Tensor[[16, 32], FP32]
  return s
}
)";
  const auto parsed = parse(text, "live");
  REQUIRE(parsed.ok());
  for (planner_kind planner : {planner_kind::pypto, planner_kind::dsa_rp}) {
    const options opts{.planner = planner};
    const auto planned = run_pipeline(parsed.value, opts, pass_id::plan);
    REQUIRE(planned.ok());
    const function& f = planned.value.functions[0];
    const kernel_analyses k(f);
    std::int64_t c_at = -1, t_at = -1;
    for (std::uint32_t i = 0; i < f.values.size(); ++i) {
      const value_storage& at = f.storage_of(value_id{i});
      if (!f.type_of(value_id{i}).is_tile() || !at.valid()) continue;
      const allocation* a = k.storage.find(at.mem);
      REQUIRE(a != nullptr);
      REQUIRE(a->address.has_value());
      if (f.name_of(value_id{i}) == "c") c_at = *a->address + at.offset;
      if (f.name_of(value_id{i}) == "t") t_at = *a->address + at.offset;
    }
    REQUIRE(c_at >= 0);
    REQUIRE(t_at >= 0);
    CHECK_MESSAGE((c_at + 2048 <= t_at || t_at + 2048 <= c_at), name(planner), ": c at ", c_at, ", t at ", t_at);
    const auto lowered = lower(parsed.value, opts);
    REQUIRE(lowered.ok());
    sim::sim_options so;
    so.scalars = {{"count", 3.0}};
    CHECK(testing::check_numerics(parsed.value, lowered.value, "k", so).ok);
  }
}
