// SPDX-License-Identifier: Apache-2.0
/// @file constexpr_function_escapes.cpp
/// IR built in constant evaluation owns heap arenas, so it cannot outlive the evaluation:
/// a `constexpr function` variable is rejected; the IR must be consumed inside it.
// EXPECT-ERROR: not a constant expression
#include "tile2buffer/ir/builder.hpp"

namespace {
constexpr tile2buffer::function make_empty_kernel() {
  tile2buffer::function_builder b(tile2buffer::function_kind::aiv, "empty");
  b.emit0(tile2buffer::opcode::cf_return, {});
  return b.finish();
}
constexpr tile2buffer::function escaped = make_empty_kernel();
}  // namespace

int main() { return static_cast<int>(escaped.ops.size()); }
