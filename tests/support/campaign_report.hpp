// SPDX-License-Identifier: Apache-2.0
/// @file campaign_report.hpp
/// What the generated campaigns (tests/lower/*campaign_test.cpp) share: bounded failure reports,
/// the numerics check of one selected lowering under every binding of its plan, and the summary
/// of why the other kernels stayed Tile.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "support/gen_program.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/sim/compare.hpp"

namespace tile2buffer {
namespace testing {

/// Up to three reports of one kind of failure, so one bad recipe does not bury the summary.
struct failures {
  int count = 0;
  std::string first;
  void add(const std::string& report) {
    if (count++ < 3) first += report + "\n";
  }
};

/// Compares `lowered` with `tile` (kernel `k` of `plan`, seed `seed`) in the simulator under every
/// binding; counts the checks and records the first disagreeing binding in `out` under `head`.
void check_every_binding(const program& tile, const program& lowered, std::string_view k, const gen_plan& plan,
                         const std::vector<gen_binding>& binds, std::uint64_t seed, const std::string& head, int& checks,
                         failures& out);

/// Counts one lowering of `lowered` (its first function kept Tile) in `kept` under the reason
/// selection gives for it, or `<no entry>` when it gives none.
void count_kept_tile(const program& lowered, const options& opts, std::map<std::string, int>& kept);

/// The five commonest reasons in `kept` (reason -> lowerings), after `lead`, one per line; empty
/// when nothing stayed Tile. What the recipes still lack, at a glance.
std::string top_reasons(const std::map<std::string, int>& kept, std::string_view lead);

}  // namespace testing
}  // namespace tile2buffer
