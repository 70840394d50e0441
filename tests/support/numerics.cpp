// SPDX-License-Identifier: Apache-2.0
/// @file numerics.cpp
/// See numerics.hpp.
#include "support/numerics.hpp"

namespace tile2buffer {
namespace testing {

sim::compare_report check_numerics(const program& tile, const program& lowered, std::string_view kernel,
                                   const sim::sim_options& opt) {
  return sim::check_numerics(tile, lowered, kernel, opt);
}

}  // namespace testing
}  // namespace tile2buffer
