// SPDX-License-Identifier: Apache-2.0
/// @file 05_compile_time.cpp
/// Lowering at compile time: a kernel written as `.t2b` text is parsed, lowered with the PTOAS
/// planner and printed during constant evaluation, and the Buffer IR text is embedded in the
/// program as a constant. A mistake in the kernel is a compile error, not a runtime one:
/// `static_assert` checks that it lowered and what it lowered to. The program only prints it.
#include <array>
#include <cstdio>
#include <string_view>

#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace t2b = tile2buffer;

namespace {

constexpr std::string_view kernel =
    R"(aiv @scale_add(X: Tensor[[16, 32], FP32], Y: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  x = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  y = tile.load(Y, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  s = tile.muls(x, 2.0) : Tile[[16, 32], FP32, Vec]
  r = tile.add(s, y) : Tile[[16, 32], FP32, Vec]
  o = tile.store(r, (0, 0), Out) : Tensor[[16, 32], FP32]
  return o
}
)";

/// The lowered kernel as text, or the first diagnostic when it does not lower.
constexpr t2b::text lowered_text() {
  const auto parsed = t2b::parse(kernel, "scale_add.t2b");
  if (!parsed) return t2b::format_all(parsed.errors, "scale_add.t2b");
  const auto lowered = t2b::lower(parsed.value, t2b::options{.planner = t2b::planner_kind::ptoas});
  if (!lowered) return t2b::format_all(lowered.errors, "scale_add.t2b");
  return t2b::print(lowered.value);
}

// Why two steps: a constant array needs its size first, and heap memory from constant evaluation
// cannot outlive it, so the text is evaluated once for its size and once to copy it out.
constexpr std::size_t size = lowered_text().size();
constexpr std::array<char, size> embedded = [] {
  std::array<char, size> out{};
  const t2b::text t = lowered_text();
  for (std::size_t i = 0; i < size; ++i) out[i] = t.view()[i];
  return out;
}();
constexpr std::string_view buffer_ir(embedded.data(), embedded.size());

static_assert(!buffer_ir.starts_with("scale_add.t2b:"), "the kernel must lower (the text would be a diagnostic)");
static_assert(buffer_ir.find("buffer.muls") != std::string_view::npos && buffer_ir.find("buffer.add") != std::string_view::npos);
static_assert(buffer_ir.find("tile.") == std::string_view::npos, "no Tile op is left");

}  // namespace

int main() {
  std::fwrite(buffer_ir.data(), 1, buffer_ir.size(), stdout);
  return 0;
}
