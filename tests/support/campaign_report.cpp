// SPDX-License-Identifier: Apache-2.0
/// @file campaign_report.cpp
/// The campaigns' shared checks (campaign_report.hpp), compiled once into the test support library.
#include "support/campaign_report.hpp"

#include <algorithm>
#include <utility>

#include "support/numerics.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/print.hpp"

namespace tile2buffer {
namespace testing {

void count_kept_tile(const program& lowered, const options& opts, std::map<std::string, int>& kept) {
  const auto why = explain_selection(lowered, opts);
  ++kept[why.empty() ? std::string("<no entry>") : std::string(why[0].reason.view())];
}

void check_every_binding(const program& tile, const program& lowered, std::string_view k, const gen_plan& plan,
                         const std::vector<gen_binding>& binds, std::uint64_t seed, const std::string& head, int& checks,
                         failures& out) {
  for (const gen_binding& b : binds) {
    const auto report = testing::check_numerics(tile, lowered, k, sim_options_for(plan, b, seed));
    ++checks;
    if (!report.ok) {
      out.add(head + " (" + describe(b) + "):\n" + report.text + std::string(print(tile).view()) +
              std::string(print(lowered).view()));
      return;
    }
  }
}

std::string top_reasons(const std::map<std::string, int>& kept, std::string_view lead) {
  std::vector<std::pair<int, std::string>> reasons;
  for (const auto& [why, n] : kept) reasons.emplace_back(n, why);
  std::sort(reasons.rbegin(), reasons.rend());
  std::string top = reasons.empty() ? std::string() : std::string(lead);
  for (std::size_t i = 0; i < reasons.size() && i < 5; ++i)
    top += "\n  " + std::to_string(reasons[i].first) + " x " + reasons[i].second;
  return top;
}

}  // namespace testing
}  // namespace tile2buffer
