// SPDX-License-Identifier: Apache-2.0
/// @file campaign_report.hpp
/// What the generated campaigns (tests/lower/*campaign_test.cpp) share: bounded failure reports,
/// the numerics check of one selected lowering under every binding of its plan, and the summary
/// of why the other kernels stayed Tile.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/gen_program.hpp"
#include "tile2buffer/sim/compare.hpp"
#include "tile2buffer/text/print.hpp"

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
inline void check_every_binding(const program& tile, const program& lowered, std::string_view k, const gen_plan& plan,
                                const std::vector<gen_binding>& binds, std::uint64_t seed, const std::string& head, int& checks,
                                failures& out) {
  for (const gen_binding& b : binds) {
    const auto report = sim::check_numerics(tile, lowered, k, sim_options_for(plan, b, seed));
    ++checks;
    if (!report.ok) {
      out.add(head + " (" + describe(b) + "):\n" + report.text + std::string(print(tile).view()) + std::string(print(lowered).view()));
      return;
    }
  }
}

/// The five commonest reasons in `kept` (reason -> lowerings), after `lead`, one per line; empty
/// when nothing stayed Tile. What the recipes still lack, at a glance.
inline std::string top_reasons(const std::map<std::string, int>& kept, std::string_view lead) {
  std::vector<std::pair<int, std::string>> reasons;
  for (const auto& [why, n] : kept) reasons.emplace_back(n, why);
  std::sort(reasons.rbegin(), reasons.rend());
  std::string top = reasons.empty() ? std::string() : std::string(lead);
  for (std::size_t i = 0; i < reasons.size() && i < 5; ++i) top += "\n  " + std::to_string(reasons[i].first) + " x " + reasons[i].second;
  return top;
}

}  // namespace testing
}  // namespace tile2buffer
