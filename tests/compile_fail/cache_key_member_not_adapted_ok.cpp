// SPDX-License-Identifier: Apache-2.0
/// @file cache_key_member_not_adapted_ok.cpp
/// Twin: with every member adapted, each one changes the key, and the key reads as expected.
#include "tile2buffer/options.hpp"

namespace demo {
struct opts {
  bool fast = true;
  tile2buffer::planner_kind planner = tile2buffer::planner_kind::pypto;
  bool verify = true;
};
}  // namespace demo
BOOST_HANA_ADAPT_STRUCT(demo::opts, fast, planner, verify);

constexpr tile2buffer::text key(const demo::opts& o) {
  tile2buffer::text k;
  tile2buffer::detail::append_members_as_key(k, o);
  return k;
}
static_assert(tile2buffer::detail::every_member_changes<demo::opts>(key), "member_left_out_of_the_key_must_be_caught");
static_assert(key(demo::opts{.planner = tile2buffer::planner_kind::ptoas}) == ";fast=1;planner=ptoas;verify=1");
static_assert(tile2buffer::cache_key(tile2buffer::options{.enable_buffer_ir = false}) ==
              "t2b/buffer_semantics=1;enable_buffer_ir=0;planner=pypto;target=a2a3;verify=1;verify_each=0;rollout=default");
