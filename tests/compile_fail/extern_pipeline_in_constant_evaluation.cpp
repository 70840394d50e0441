// SPDX-License-Identifier: Apache-2.0
/// @file extern_pipeline_in_constant_evaluation.cpp
/// The README's `static_assert` on `lower`, in a TU built with `TILE2BUFFER_EXTERN_PIPELINE`:
/// there `lower` is the compiled library's run-time function, and the error says so by naming
/// the macro (g++ in the function's name, clang in the declaration line it quotes).
// EXPECT-ERROR: TILE2BUFFER_EXTERN_PIPELINE
// EXPECT-ERROR: constant expression
#define TILE2BUFFER_EXTERN_PIPELINE 1
#include "tile2buffer/lower.hpp"

namespace {
constexpr bool lowers_an_empty_program() {
  tile2buffer::program p;
  const tile2buffer::result<tile2buffer::program> lowered = tile2buffer::lower(p, tile2buffer::options{});
  return lowered.ok();
}
static_assert(lowers_an_empty_program());
}  // namespace

int main() { return 0; }
