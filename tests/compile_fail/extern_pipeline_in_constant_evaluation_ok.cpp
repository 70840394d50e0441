// SPDX-License-Identifier: Apache-2.0
/// @file extern_pipeline_in_constant_evaluation_ok.cpp
/// Twin: the same call at run time is what the separately compiled mode is for.
#define TILE2BUFFER_EXTERN_PIPELINE 1
#include "tile2buffer/lower.hpp"

namespace {
bool lowers_an_empty_program() {
  tile2buffer::program p;
  const tile2buffer::result<tile2buffer::program> lowered = tile2buffer::lower(p, tile2buffer::options{});
  return lowered.ok();
}
}  // namespace

int main() { return lowers_an_empty_program() ? 0 : 1; }
