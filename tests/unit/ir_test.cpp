// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/equal.hpp"

using namespace tile2buffer;

namespace {
constexpr function make_add(bool swap) {
  function_builder b(function_kind::aiv, "add");
  const auto t = tensor_type(16, 32, dtype::fp32);
  const value_id A = b.param("A", t);
  const value_id B = b.param("B", t);
  const value_id Out = b.param("Out", t, direction::out);
  b.result_type(t);
  const auto tt = tile_type(16, 32, dtype::fp32);
  const value_id lhs = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32)}, tt, "lhs");
  const value_id rhs = b.emit1(opcode::tile_load, {operand::of(B), b.pair(0, 0), b.pair(16, 32)}, tt, "rhs");
  const value_id sum = b.emit1(opcode::tile_add, {operand::of(swap ? rhs : lhs), operand::of(swap ? lhs : rhs)}, tt, "sum");
  const value_id r = b.emit1(opcode::tile_store, {operand::of(sum), b.pair(0, 0), operand::of(Out)}, t, "r");
  b.emit0(opcode::cf_return, {operand::of(r)});
  return b.finish();
}
constexpr bool equal_to_itself() { return structurally_equal(make_add(false), make_add(false)); }
constexpr bool differs_when_swapped() { return !structurally_equal(make_add(false), make_add(true)); }
static_assert(equal_to_itself());
static_assert(differs_when_swapped());
}  // namespace

TEST_CASE("builder and structural equality") {
  CHECK(equal_to_itself());
  CHECK(differs_when_swapped());
  const function f = make_add(false);
  CHECK(f.ops.size() == 5);
  CHECK(f.name_of(f.result(op_id{2})) == "sum");
}

TEST_CASE("a stored op converts back to its typed dialect alternative") {
  const function f = make_add(false);
  const op_header& add = f.op(op_id{2}).op;
  const tile::op v = as_variant<tile::op>(add);
  CHECK(std::visit([](const auto& o) { return o.code; }, v) == opcode::tile_add);
  CHECK(std::holds_alternative<tile::add>(v));
  CHECK(as<tile::add>(add).args == add.args);
  static_assert(std::variant_size_v<tile::op> == 40);
}
