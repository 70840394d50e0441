// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <cstddef>
#include <variant>

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

/// Every Tile opcode comes back from `as_variant<tile::op>` as its own alternative: the variant's
/// index is the opcode's offset in the Tile range, `std::visit` sees that opcode, and the operand
/// and keyword ranges arrive unswapped. Also: every alternative is reached by exactly one opcode.
constexpr bool every_tile_op_round_trips() {
  constexpr auto first = static_cast<std::size_t>(opcode::tile_alloc);
  std::size_t tile_ops = 0;
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const auto c = static_cast<opcode>(i);
    if (!is_tile_op(c)) continue;
    ++tile_ops;
    const op_header h = make_op(c, span32{3, 2}, span32{7, 1});
    const tile::op v = as_variant<tile::op>(h);
    if (i < first || v.index() != i - first) return false;
    const bool same = std::visit([&](const auto& o) { return o.code == c && o.args == h.args && o.kwargs == h.kwargs; }, v);
    if (!same) return false;
  }
  return tile_ops == std::variant_size_v<tile::op>;
}
static_assert(every_tile_op_round_trips());
}  // namespace

TEST_CASE("builder and structural equality") {
  CHECK(equal_to_itself());
  CHECK(differs_when_swapped());
  const function f = make_add(false);
  CHECK(f.ops.size() == 5);
  CHECK(f.name_of(f.result(op_id{2})) == "sum");
}

TEST_CASE("a stored op converts back to its typed dialect alternative") {
  CHECK(every_tile_op_round_trips());
  const function f = make_add(false);
  const tile::op v = as_variant<tile::op>(f.op(op_id{2}).op);
  CHECK(std::holds_alternative<tile::add>(v));
  // The typed op's operand range reads the sum's operands out of the function's pool: lhs, rhs.
  const auto operands = f.pool(as<tile::add>(f.op(op_id{2}).op).args);
  REQUIRE(operands.size() == 2);
  CHECK(f.name_of(operands[0].value()) == "lhs");
  CHECK(f.name_of(operands[1].value()) == "rhs");
}
