// SPDX-License-Identifier: Apache-2.0
/// @file numerics.hpp
/// The simulator's differential check for tests that use it as an oracle: `sim::check_numerics`,
/// compiled once in the test support library (numerics.cpp). Why: both interpreters are a large
/// share of the code generated for a test that calls the header-only check itself, and CI
/// compiles every test twice, once sanitized. Tests of the simulator include sim/compare.hpp.
#pragma once

#include <string_view>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/compare.hpp"

namespace tile2buffer {
namespace testing {

/// `sim::check_numerics(tile, lowered, kernel, opt)`.
sim::compare_report check_numerics(const program& tile, const program& lowered, std::string_view kernel,
                                   const sim::sim_options& opt = {});

}  // namespace testing
}  // namespace tile2buffer
