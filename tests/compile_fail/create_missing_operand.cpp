// SPDX-License-Identifier: Apache-2.0
/// @file create_missing_operand.cpp
/// A typed builder call that leaves out a required operand (tile.load's `shape`) does not
/// compile, in constant evaluation too, and the error says so.
// EXPECT-FIRST-ERROR: tile2buffer::create: a required operand is missing
// EXPECT-ERROR: tile2buffer::create: a required operand is missing
#include "tile2buffer/ir/create.hpp"

using namespace tile2buffer;

constexpr bool builds() {
  function_builder b(function_kind::aiv, "k");
  const value_id a = b.param("A", tensor_type(16, 32, dtype::fp32));
  b.create<tile::load>({.tensor = a, .offsets = {0, 0}}, tile_type(16, 32, dtype::fp32), "x");
  return b.finish().ops.size() == 1;
}
static_assert(builds());
