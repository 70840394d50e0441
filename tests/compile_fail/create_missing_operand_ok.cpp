// SPDX-License-Identifier: Apache-2.0
/// @file create_missing_operand_ok.cpp
/// Twin: with its `shape`, the call compiles and builds the op in constant evaluation; the
/// optional `valid` may be left out.
#include "tile2buffer/ir/create.hpp"

using namespace tile2buffer;

constexpr bool builds() {
  function_builder b(function_kind::aiv, "k");
  const value_id a = b.param("A", tensor_type(16, 32, dtype::fp32));
  b.create<tile::load>({.tensor = a, .offsets = {0, 0}, .shape = {16, 32}}, tile_type(16, 32, dtype::fp32), "x");
  return b.finish().ops.size() == 1;
}
static_assert(builds());
