// SPDX-License-Identifier: Apache-2.0
/// @file constexpr_function_escapes_ok.cpp
/// Twin: the same IR consumed within one constant evaluation is fine.
#include "tile2buffer/ir/builder.hpp"

namespace {
constexpr tile2buffer::function make_empty_kernel() {
  tile2buffer::function_builder b(tile2buffer::function_kind::aiv, "empty");
  b.emit0(tile2buffer::opcode::cf_return, {});
  return b.finish();
}
constexpr std::size_t op_count = make_empty_kernel().ops.size();
static_assert(op_count == 1);
}  // namespace

int main() { return static_cast<int>(op_count) - 1; }
