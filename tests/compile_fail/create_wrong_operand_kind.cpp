// SPDX-License-Identifier: Apache-2.0
/// @file create_wrong_operand_kind.cpp
/// A typed builder call that passes a value where the catalogue wants a pair (buffer.subview's
/// `offsets`) does not compile, in constant evaluation too, and the error names the kind.
// EXPECT-FIRST-ERROR: tile2buffer::create: wrong operand kind
// EXPECT-ERROR: tile2buffer::create: wrong operand kind: a `p` operand does not take this type
#include "tile2buffer/ir/create.hpp"

using namespace tile2buffer;

constexpr bool builds() {
  function_builder b(function_kind::aiv, "k");
  b.fn().stage = ir_stage::buffer;
  const value_id h = b.param("h", buffer_type(16, 32, dtype::fp32));
  const value_id row = b.param("row", scalar_type(dtype::index));
  b.create<buffer::subview>({.source = h, .offsets = row}, buffer_type(8, 32, dtype::fp32), "w");
  return b.finish().ops.size() == 1;
}
static_assert(builds());
