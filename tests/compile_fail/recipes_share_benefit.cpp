// SPDX-License-Identifier: Apache-2.0
/// @file recipes_share_benefit.cpp
/// Two recipes of one source op with one benefit: the pair is named in the first error.
// EXPECT-FIRST-ERROR: ambiguous_recipes<
// EXPECT-FIRST-ERROR: exp_recipe<1
// EXPECT-ERROR: give one of them a higher `benefit`
// EXPECT-ERROR-COUNT: 1
#include "host_recipes.hpp"

// The default tile.exp recipe has benefit 1 too.
struct my_recipes : tile2buffer::with_recipes<tile2buffer::default_recipes, host::exp_recipe<1>> {};
auto lowered(const tile2buffer::program& p) { return host::lower_with<my_recipes>(p); }
