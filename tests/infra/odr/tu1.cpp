// SPDX-License-Identifier: Apache-2.0
/// @file tu1.cpp
/// First ODR translation unit: builds the kernel through the one-result convenience API.
#include <string>
#include <string_view>

#include "all_headers.hpp"
#include "odr/odr.hpp"

namespace odr {
using namespace tile2buffer;

function build_kernel_tu1(bool swap) {
  function_builder b(function_kind::aiv, "add");
  const auto t = tensor_type(16, 32, dtype::fp32);
  const value_id a = b.param("A", t);
  const value_id c = b.param("B", t);
  const value_id out = b.param("Out", t, direction::out);
  b.result_type(t);
  const auto tt = tile_type(16, 32, dtype::fp32);
  const value_id lhs = b.emit1(opcode::tile_load, {operand::of(a), b.pair(0, 0), b.pair(16, 32)}, tt, "lhs");
  const value_id rhs = b.emit1(opcode::tile_load, {operand::of(c), b.pair(0, 0), b.pair(16, 32)}, tt, "rhs");
  const value_id sum = b.emit1(opcode::tile_add, {operand::of(swap ? rhs : lhs), operand::of(swap ? lhs : rhs)}, tt, "sum");
  const value_id r = b.emit1(opcode::tile_store, {operand::of(sum), b.pair(0, 0), operand::of(out)}, t, "r");
  b.emit0(opcode::cf_return, {operand::of(r)});
  return b.finish();
}
bool equal_tu1(const function& a, const function& b) { return structurally_equal(a, b); }
std::size_t verify_errors_tu1(const program& p) { return verify(p).size(); }
std::string print_tu1(const program& p) { return std::string(print(p).view()); }
result<program> parse_tu1(std::string_view source) { return parse(source, "odr.t2b"); }
result<program> lower_tu1(const program& p) { return lower(p, options{.planner = planner_kind::ptoas}); }
const void* op_table_address_tu1() { return &detail::op_table; }
const void* equal_address_tu1() {
  bool (*fn)(const function&, const function&) = &structurally_equal;
  return reinterpret_cast<const void*>(fn);
}

}  // namespace odr
