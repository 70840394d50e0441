// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_text.hpp
/// Helpers of the static coverage TUs that start from `.t2b` text (one kernel per constant
/// evaluation: clang 14 bounds the steps of one).
#pragma once

#include <string_view>

#include "static_coverage.hpp"
#include "tile2buffer/text/parse.hpp"

namespace t2b_coverage {

/// The one kernel of `text` after the default pipeline with `planner` (and `rollout`); an empty function (Tile
/// stage, no ops) when the text does not parse or the pipeline fails.
constexpr function lowered_kernel(std::string_view text, planner_kind planner, rollout_kind rollout = rollout_kind::standard) {
  const auto parsed = parse(text, "coverage");
  if (!parsed.ok()) return function{};
  auto r = lower(parsed.value, options{.planner = planner, .rollout = rollout});
  if (!r.ok() || r.value.functions.size() != 1) return function{};
  return static_cast<function&&>(r.value.functions[0]);
}

/// How many ops of `f` have opcode `c`.
constexpr int count(const function& f, opcode c) {
  int n = 0;
  for (const auto& node : f.ops) n += node.code() == c ? 1 : 0;
  return n;
}

/// The one kernel of `text` stays Tile under the default options, and selection says `reason`.
constexpr bool kernel_stays_tile(std::string_view text, std::string_view reason) {
  const auto parsed = parse(text, "coverage");
  if (!parsed.ok()) return false;
  const options opts{};
  const auto r = lower(parsed.value, opts);
  if (!r.ok() || r.value.functions[0].stage != ir_stage::tile) return false;
  const auto why = explain_selection(r.value, opts);
  return why.size() == 1 && !why[0].selected && contains(why[0].reason.view(), reason);
}

}  // namespace t2b_coverage
