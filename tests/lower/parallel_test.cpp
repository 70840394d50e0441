// SPDX-License-Identifier: Apache-2.0
/// @file parallel_test.cpp
/// Lowering a program's kernels on several workers gives byte-for-byte the output of one worker:
/// a generated 64-kernel program of every shape the generator knows, with 1, 2 and 8 workers and
/// every planner, both when it lowers and when some kernels fail (then the diagnostics match).
#include <doctest/doctest.h>

#include <string>

#include "support/gen_program.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

namespace {

/// 64 kernels, the generator's five shapes in turn; some stay Tile (each shape has a share).
program sixty_four_kernels() {
  program p;
  p.file = text("parallel");
  for (std::uint64_t seed = 0; seed < 64; ++seed) {
    testing::gen_options o;
    switch (seed % 5) {
      case 1: o.windows = true; break;
      case 2: o.valid_extents = true; break;
      case 3: o.regions = true; break;
      case 4: o.cube = true; break;
      default: break;
    }
    program one = testing::generate_kernel(seed, 8 + static_cast<int>(seed % 24), o);
    p.functions.push_back(one.functions.front());
  }
  return p;
}

std::string printed(const result<program>& r) {
  return r.ok() ? std::string(print(r.value).view()) : "errors:\n" + std::string(format_all(r.errors, "parallel").view());
}

}  // namespace

TEST_CASE("1, 2 and 8 workers lower a 64-kernel program to the same bytes") {
  const program input = sixty_four_kernels();
  const program copy = input;
  for (const planner_kind planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
    const options opts{.planner = planner};
    const result<program> one = lower(input, opts, parallelism{1});
    REQUIRE_MESSAGE(one.ok(), printed(one));
    int buffer = 0, tile = 0;
    for (const auto& f : one.value.functions) (f.stage == ir_stage::buffer ? buffer : tile) += 1;
    CHECK(buffer >= 40);  // the shapes lower; a few kernels of each share stay Tile
    CHECK(tile >= 1);
    for (const unsigned workers : {2u, 8u}) {
      const result<program> many = lower(input, opts, parallelism{workers});
      CHECK_MESSAGE(printed(many) == printed(one), name(planner), " with ", workers, " workers");
    }
  }
  CHECK(structurally_equal(input, copy));
}

TEST_CASE("with failing kernels, every worker count reports the diagnostics one worker reports") {
  // Recording every kernel as selected makes the kernels that must stay Tile fail: explicit
  // lowering fails closed, located, in the lower pass.
  program input = sixty_four_kernels();
  for (auto& f : input.functions) f.buffer_ir_selected = true;
  const options opts{.planner = planner_kind::pypto};
  const result<program> lower_failures = lower(input, opts, parallelism{1});
  REQUIRE_FALSE(lower_failures.ok());
  CHECK(lower_failures.errors.size() >= 2);
  for (const unsigned workers : {2u, 8u, 0u})
    CHECK_MESSAGE(printed(lower(input, opts, parallelism{workers})) == printed(lower_failures), workers, " workers");

  // Four live 64 KiB tiles do not fit the 192 KiB Vec space: this kernel, appended last, fails
  // earlier, in plan. The whole-program run stops there and reports only plan's diagnostics;
  // so must every worker count, although each worker runs its kernels to their own end.
  const auto too_big = parse(
      R"(aiv @too_big(A: Tensor[[128, 128], FP32], B: Tensor[[128, 128], FP32], C: Tensor[[128, 128], FP32], D: Tensor[[128, 128], FP32], Out: out Tensor[[128, 128], FP32]) -> Tensor[[128, 128], FP32] {
  a = tile.load(A, (0, 0), (128, 128)) : Tile[[128, 128], FP32, Vec]
  b = tile.load(B, (0, 0), (128, 128)) : Tile[[128, 128], FP32, Vec]
  c = tile.load(C, (0, 0), (128, 128)) : Tile[[128, 128], FP32, Vec]
  d = tile.load(D, (0, 0), (128, 128)) : Tile[[128, 128], FP32, Vec]
  ab = tile.add(a, b) : Tile[[128, 128], FP32, Vec]
  cd = tile.add(c, d) : Tile[[128, 128], FP32, Vec]
  r = tile.add(ab, cd) : Tile[[128, 128], FP32, Vec]
  s = tile.store(r, (0, 0), Out) : Tensor[[128, 128], FP32]
  return s
}
)",
      "too_big");
  REQUIRE(too_big.ok());
  input.functions.push_back(too_big.value.functions.front());
  const result<program> one = lower(input, opts, parallelism{1});
  REQUIRE_FALSE(one.ok());
  for (const auto& d : one.errors) CHECK(std::string(d.message.view()).find("cannot place") != std::string::npos);
  for (const unsigned workers : {2u, 8u, 0u}) {
    const result<program> many = lower(input, opts, parallelism{workers});
    CHECK_FALSE(many.ok());
    CHECK_MESSAGE(printed(many) == printed(one), workers, " workers");
  }
}

TEST_CASE("an orchestration function that submits the kernels lowers alike on every worker count") {
  // Each worker runs the passes over one device function; an orchestration function calls
  // others, so it is checked with the whole output, not on its own (it failed to verify there).
  const auto with_main = parse(R"(aiv @k(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  b = tile.add(a, a) : Tile[[16, 32], FP32, Vec]
  s = tile.store(b, (0, 0), Out) : Tensor[[16, 32], FP32]
  return s
}
aiv @k2(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  s = tile.store(a, (0, 0), Out) : Tensor[[16, 32], FP32]
  return s
}
orchestration @main(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) {
  t = submit @k(A, Out)
  u = submit @k2(A, Out)
  return
}
)",
                               "orchestration");
  REQUIRE(with_main.ok());
  for (const bool verify : {true, false}) {
    const options opts{.planner = planner_kind::pypto, .verify = verify};
    const result<program> one = lower(with_main.value, opts, parallelism{1});
    REQUIRE_MESSAGE(one.ok(), printed(one));
    CHECK(one.value.functions[0].stage == ir_stage::buffer);
    for (const unsigned workers : {2u, 8u, 0u})
      CHECK_MESSAGE(printed(lower(with_main.value, opts, parallelism{workers})) == printed(one), workers, " workers");
  }
  // A call to a function the program lacks is found by every worker count, verification off.
  program broken = with_main.value;
  broken.functions.erase(broken.functions.begin() + 1);  // @k2
  const options unverified{.planner = planner_kind::pypto, .verify = false};
  const result<program> one = lower(broken, unverified, parallelism{1});
  REQUIRE_FALSE(one.ok());
  CHECK(printed(one).find("'@k2' is not defined") != std::string::npos);
  for (const unsigned workers : {2u, 8u})
    CHECK_MESSAGE(printed(lower(broken, unverified, parallelism{workers})) == printed(one), workers, " workers");
}

TEST_CASE("a program handed over by move lowers to the bytes its copy lowers to, on every worker count") {
  // lower(program&&) edits the program in place or frees it once its successor exists; the
  // output and the diagnostics must not show which entry was called.
  const program input = sixty_four_kernels();
  for (const planner_kind planner : {planner_kind::pypto, planner_kind::ptoas}) {
    const options opts{.planner = planner};
    const std::string expected = printed(lower(input, opts, parallelism{1}));
    for (const unsigned workers : {1u, 2u}) {
      program mine = input;
      const result<program> moved = lower(static_cast<program&&>(mine), opts, parallelism{workers});
      CHECK_MESSAGE(printed(moved) == expected, name(planner), " with ", workers, " workers");
    }
  }
  program failing = input;
  for (auto& f : failing.functions) f.buffer_ir_selected = true;  // the Tile-only kernels now fail in lower
  const options opts{.planner = planner_kind::pypto};
  const std::string expected = printed(lower(failing, opts, parallelism{1}));
  REQUIRE(expected.starts_with("errors:"));
  for (const unsigned workers : {1u, 2u}) {
    program mine = failing;
    CHECK(printed(lower(static_cast<program&&>(mine), opts, parallelism{workers})) == expected);
  }
}
