// SPDX-License-Identifier: Apache-2.0
/// @file engine/try_recipes.hpp
/// The one dispatch loop: a Tile op's candidates from its set's table, in benefit order, until
/// one matches. `select` asks it whether a default-rollout recipe applies; `lower` asks it which
/// recipe to run. Both report the first failure the same way.
#pragma once

#include "tile2buffer/engine/registry.hpp"

namespace tile2buffer {
inline namespace v0 {

/// What the dispatch found for one op.
struct recipe_choice {
  const recipe_entry* chosen = nullptr;        ///< the recipe to run, when one matched
  const recipe_entry* first_failed = nullptr;  ///< the first candidate that did not match
  text reason;                                 ///< that candidate's reason
  const stays_tile_info* stays = nullptr;      ///< the set's stays-Tile entry for the op, if any (set when nothing matched)
  bool outside_rollout = false;                ///< a candidate was passed over: not in the default rollout
  [[nodiscard]] constexpr explicit operator bool() const noexcept { return chosen != nullptr; }
};

/// Tries the candidates of Tile op `o` (only default-rollout ones when `rollout_only`; select and
/// lower pass `opts.rollout == rollout_kind::standard`, so both consult the same recipes).
template <recipe_set Set>
constexpr recipe_choice try_recipes(const function& f, op_id o, const match_context& ctx, bool rollout_only) {
  recipe_choice out;
  // Why no static_assert: a faulty set is reported once, by the check that names the mistake.
  if constexpr (!registry<Set>::checked) return out;
  const opcode c = f.op(o).code();
  for (const recipe_entry& r : registry<Set>::candidates(c)) {
    if (rollout_only && !r.default_rollout) {
      out.outside_rollout = true;
      continue;
    }
    match_result m = r.match(f, o, ctx);
    if (m) {
      out.chosen = &r;
      return out;  // `stays` matters only when nothing matched
    }
    if (out.first_failed == nullptr) {
      out.first_failed = &r;
      out.reason = static_cast<text&&>(m.reason);
    }
  }
  out.stays = registry<Set>::stays_tile_reason(c);
  return out;
}

}  // namespace v0
}  // namespace tile2buffer
