// SPDX-License-Identifier: Apache-2.0
/// @file 03_diagnostics.cpp
/// A fail-closed diagnostic: explicit lowering of a kernel whose storage window exceeds its
/// allocation. The input program is untouched and the error names the location and the reason.
#include <cstdio>
#include <string>

#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/parse.hpp"

namespace t2b = tile2buffer;

constexpr std::string_view kernel =
    R"(aiv @too_small(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  m = tile.alloc(Vec, 1024)
  x = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec] in m
  r = tile.store(x, (0, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
)";

int main() {
  const auto parsed = t2b::parse(kernel, "too_small.t2b");
  if (!parsed) return 1;
  const t2b::program before = parsed.value;
  const auto lowered = t2b::lower(parsed.value, t2b::options{.planner = t2b::planner_kind::ptoas});
  if (lowered) return 1;  // must fail closed
  const auto report = t2b::format_all(lowered.errors, "too_small.t2b");
  std::fputs(std::string(report.view()).c_str(), stdout);
  const bool located = report.view().find("too_small.t2b:3:") != std::string_view::npos;
  const bool reason = report.view().find("exceeds the capacity") != std::string_view::npos;
  return located && reason && t2b::structurally_equal(before, parsed.value) ? 0 : 1;
}
