// SPDX-License-Identifier: Apache-2.0
/// @file tu2.cpp
/// Second ODR translation unit: builds the same kernel through the general `emit` API, so the
/// two TUs instantiate different builder paths over the same inline entities.
#include <array>
#include <span>
#include <string>
#include <string_view>

#include "all_headers.hpp"
#include "odr/odr.hpp"

namespace odr {
using namespace tile2buffer;

namespace {
value_id emit_one(function_builder& b, opcode c, std::span<const operand> args, const type& t, std::string_view name) {
  const std::array<std::string_view, 1> names{name};
  const op_id o = b.emit(c, args, {}, std::span<const type>(&t, 1), names, location{});
  return b.fn().result(o);
}
}  // namespace

function build_kernel_tu2(bool swap) {
  function_builder b(function_kind::aiv, "add");
  const auto t = tensor_type(16, 32, dtype::fp32);
  const value_id a = b.param("A", t);
  const value_id c = b.param("B", t);
  const value_id out = b.param("Out", t, direction::out);
  b.result_type(t);
  const auto tt = tile_type(16, 32, dtype::fp32);
  const std::array load_a{operand::of(a), b.pair(0, 0), b.pair(16, 32)};
  const value_id lhs = emit_one(b, opcode::tile_load, load_a, tt, "lhs");
  const std::array load_b{operand::of(c), b.pair(0, 0), b.pair(16, 32)};
  const value_id rhs = emit_one(b, opcode::tile_load, load_b, tt, "rhs");
  const std::array add{operand::of(swap ? rhs : lhs), operand::of(swap ? lhs : rhs)};
  const value_id sum = emit_one(b, opcode::tile_add, add, tt, "sum");
  const std::array store{operand::of(sum), b.pair(0, 0), operand::of(out)};
  const value_id r = emit_one(b, opcode::tile_store, store, t, "r");
  const std::array ret{operand::of(r)};
  b.emit(opcode::cf_return, ret, {}, {}, {}, location{});
  return b.finish();
}
bool equal_tu2(const function& a, const function& b) { return structurally_equal(a, b); }
std::size_t verify_errors_tu2(const program& p) { return verify(p).size(); }
std::string print_tu2(const program& p) { return std::string(print(p).view()); }
result<program> parse_tu2(std::string_view source) { return parse(source, "odr.t2b"); }
result<program> lower_tu2(const program& p) { return lower(p, options{.planner = planner_kind::ptoas}); }
const void* op_table_address_tu2() { return &detail::op_table; }
const void* equal_address_tu2() {
  bool (*fn)(const function&, const function&) = &structurally_equal;
  return reinterpret_cast<const void*>(fn);
}

}  // namespace odr
