// SPDX-License-Identifier: Apache-2.0
/// @file recipe_without_source.cpp
/// A recipe that does not say which Tile op it rewrites is named in the first error, with the fix.
// EXPECT-FIRST-ERROR: recipe_without_source<
// EXPECT-FIRST-ERROR: no_source
// EXPECT-ERROR: add `using source = tile::<op>;`
// EXPECT-ERROR-COUNT: 1
#include "host_recipes.hpp"

struct no_source {
  static constexpr std::string_view name = "host-no-source";
  static constexpr int benefit = 2;
  static constexpr bool default_rollout = true;
};
struct my_recipes : tile2buffer::with_recipes<tile2buffer::default_recipes, no_source> {};
auto lowered(const tile2buffer::program& p) { return host::lower_with<my_recipes>(p); }
