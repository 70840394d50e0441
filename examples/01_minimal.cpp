// SPDX-License-Identifier: Apache-2.0
/// @file 01_minimal.cpp
/// The smallest host: build a load -> add -> store kernel with the builder API, lower it with
/// the PTOAS planner, and print both IRs.
#include <cstdio>
#include <string>

#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/print.hpp"

namespace t2b = tile2buffer;

int main() {
  using t2b::operand;
  t2b::function_builder b(t2b::function_kind::aiv, "add");
  const auto gm = t2b::tensor_type(16, 32, t2b::dtype::fp32);
  const auto a = b.param("A", gm);
  const auto c = b.param("B", gm);
  const auto out = b.param("Out", gm, t2b::direction::out);
  b.result_type(gm);
  const auto tile = t2b::tile_type(16, 32, t2b::dtype::fp32);
  const auto lhs = b.emit1(t2b::opcode::tile_load, {operand::of(a), b.pair(0, 0), b.pair(16, 32)}, tile, "lhs");
  const auto rhs = b.emit1(t2b::opcode::tile_load, {operand::of(c), b.pair(0, 0), b.pair(16, 32)}, tile, "rhs");
  const auto sum = b.emit1(t2b::opcode::tile_add, {operand::of(lhs), operand::of(rhs)}, tile, "sum");
  const auto stored = b.emit1(t2b::opcode::tile_store, {operand::of(sum), b.pair(0, 0), operand::of(out)}, gm, "stored");
  b.emit0(t2b::opcode::cf_return, {operand::of(stored)});

  t2b::program p;
  p.functions.push_back(b.finish());
  std::printf("// Tile IR\n%s\n", std::string(t2b::print(p).view()).c_str());

  const auto lowered = t2b::lower(p, t2b::options{.planner = t2b::planner_kind::ptoas});
  if (!lowered) {
    std::fputs(std::string(t2b::format_all(lowered.errors, "01_minimal").view()).c_str(), stderr);
    return 1;
  }
  std::printf("// Buffer IR\n%s", std::string(t2b::print(lowered.value).view()).c_str());
  return lowered.value.functions[0].stage == t2b::ir_stage::buffer ? 0 : 1;
}
