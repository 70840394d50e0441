// SPDX-License-Identifier: Apache-2.0
/// @file 01_minimal.cpp
/// The smallest host: build a load -> add -> store kernel with the typed builders, lower it with
/// the PTOAS planner, and print both IRs.
#include <cstdio>
#include <string>

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/print.hpp"

namespace t2b = tile2buffer;

int main() {
  t2b::function_builder b(t2b::function_kind::aiv, "add");
  const auto gm = t2b::tensor_type(16, 32, t2b::dtype::fp32);
  const auto a = b.param("A", gm);
  const auto c = b.param("B", gm);
  const auto out = b.param("Out", gm, t2b::direction::out);
  b.result_type(gm);
  const auto tile = t2b::tile_type(16, 32, t2b::dtype::fp32);
  // Operands by the names the op catalogue gives them (ir/create.hpp); a missing one or one of
  // the wrong kind does not compile.
  const auto lhs = b.create<t2b::tile::load>({.tensor = a, .offsets = {0, 0}, .shape = {16, 32}}, tile, "lhs");
  const auto rhs = b.create<t2b::tile::load>({.tensor = c, .offsets = {0, 0}, .shape = {16, 32}}, tile, "rhs");
  const auto sum = b.create<t2b::tile::add>({.lhs = lhs, .rhs = rhs}, tile, "sum");
  const auto stored = b.create<t2b::tile::store>({.tile = sum, .offsets = {0, 0}, .tensor = out}, gm, "stored");
  b.create<t2b::cf::return_>({.values = {stored}});

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
