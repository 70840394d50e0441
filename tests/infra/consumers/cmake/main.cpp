// SPDX-License-Identifier: Apache-2.0
/// @file main.cpp
/// The installed-package consumer (test `infra/install-consumers`): built against a staged
/// `meson install` once through CMake's find_package and once through pkg-config. It builds a
/// load -> add -> store kernel, lowers it and exits non-zero unless the result is Buffer IR.
/// Built with TILE2BUFFER_EXTERN_PIPELINE (tile2buffer::pipeline, tile2buffer-pipeline.pc) it
/// links the installed pipeline library instead. With T2B_PACKAGE_VERSION (the version CMake or
/// pkg-config reported) it also checks that the installed headers carry the same version.
#include <cstdio>
#include <string>
#include <string_view>

#include <tile2buffer/lower.hpp>

namespace t2b = tile2buffer;

#define T2B_CONSUMER_STR2(x) #x
#define T2B_CONSUMER_STR(x) T2B_CONSUMER_STR2(x)

int main() {
  using t2b::operand;
  const std::string_view headers = T2B_CONSUMER_STR(TILE2BUFFER_VERSION_MAJOR) "." T2B_CONSUMER_STR(
      TILE2BUFFER_VERSION_MINOR) "." T2B_CONSUMER_STR(TILE2BUFFER_VERSION_PATCH);
#ifdef T2B_PACKAGE_VERSION
  if (headers != T2B_PACKAGE_VERSION) {
    std::fprintf(stderr, "consumer: headers say version %s, the package says %s\n", std::string(headers).c_str(),
                 T2B_PACKAGE_VERSION);
    return 1;
  }
#endif
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
  const auto lowered = t2b::lower(p, t2b::options{.planner = t2b::planner_kind::ptoas});
  if (!lowered) {
    std::fputs(std::string(t2b::format_all(lowered.errors, "consumer").view()).c_str(), stderr);
    return 1;
  }
  if (lowered.value.functions.size() != 1 || lowered.value.functions[0].stage != t2b::ir_stage::buffer) {
    std::fputs("consumer: lower succeeded but did not produce Buffer IR\n", stderr);
    return 1;
  }
#ifdef TILE2BUFFER_EXTERN_PIPELINE
  const char* mode = "the compiled pipeline library";
#else
  const char* mode = "the headers only";
#endif
  std::printf("consumer: lowered 'add' to Buffer IR with tile2buffer %s, using %s\n", std::string(headers).c_str(), mode);
  return 0;
}
