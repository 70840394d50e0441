// SPDX-License-Identifier: Apache-2.0
/// @file cache_key_member_not_adapted.cpp
/// A struct whose BOOST_HANA_ADAPT_STRUCT list leaves out a member fails the check that guards
/// `cache_key(options)`: the left-out member would not reach the key.
// EXPECT-ERROR: member_left_out_of_the_key_must_be_caught
#include "tile2buffer/options.hpp"

namespace demo {
struct opts {
  bool fast = true;
  tile2buffer::planner_kind planner = tile2buffer::planner_kind::pypto;
  bool verify = true;
};
}  // namespace demo
BOOST_HANA_ADAPT_STRUCT(demo::opts, fast, planner);

constexpr tile2buffer::text key(const demo::opts& o) {
  tile2buffer::text k;
  tile2buffer::detail::append_members_as_key(k, o);
  return k;
}
static_assert(tile2buffer::detail::every_member_changes<demo::opts>(key), "member_left_out_of_the_key_must_be_caught");
