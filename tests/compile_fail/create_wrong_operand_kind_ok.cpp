// SPDX-License-Identifier: Apache-2.0
/// @file create_wrong_operand_kind_ok.cpp
/// Twin: the same call with a pair of a value and a literal compiles and builds the op in
/// constant evaluation.
#include "tile2buffer/ir/create.hpp"

using namespace tile2buffer;

constexpr bool builds() {
  function_builder b(function_kind::aiv, "k");
  b.fn().stage = ir_stage::buffer;
  const value_id h = b.param("h", buffer_type(16, 32, dtype::fp32));
  const value_id row = b.param("row", scalar_type(dtype::index));
  b.create<buffer::subview>({.source = h, .offsets = {row, 0}}, buffer_type(8, 32, dtype::fp32), "w");
  return b.finish().ops.size() == 1;
}
static_assert(builds());
