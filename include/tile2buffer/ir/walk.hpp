// SPDX-License-Identifier: Apache-2.0
/// @file ir/walk.hpp
/// Program-order traversal: each op, then (for region ops) its regions' ops, recursively.
#pragma once

#include <vector>

#include "tile2buffer/ir/function.hpp"

namespace tile2buffer {
inline namespace v0 {

namespace detail {
/// A region being walked and the position of its next op. Why outside `walk`: a type local to
/// the template would make every caller instantiate its own `std::vector<frame>` (about fifty
/// functions each, in every TU that includes the passes).
struct walk_frame {
  region_id region;
  std::size_t next;
};
}  // namespace detail

/// Calls `fn(op_id)` for every op of region `r` and its nested regions, in program order
/// (a region op is visited before its regions). Iterative, so deep nesting cannot overflow the stack.
template <class Fn>
constexpr void walk(const function& f, region_id r, Fn&& fn) {
  std::vector<detail::walk_frame> stack{{r, 0}};
  while (!stack.empty()) {
    detail::walk_frame& top = stack.back();
    const auto ops = f.ops_of(top.region);
    if (top.next == ops.size()) {
      stack.pop_back();
      continue;
    }
    const op_id o = ops[top.next++];
    fn(o);
    const op_node& n = f.op(o);
    // Push regions in reverse so the first region is walked first.
    for (std::uint32_t i = n.regions.count; i > 0; --i) stack.push_back({region_id{n.regions.begin + i - 1}, 0});
  }
}
template <class Fn>
constexpr void walk(const function& f, Fn&& fn) {
  walk(f, f.body, static_cast<Fn&&>(fn));
}

}  // namespace v0
}  // namespace tile2buffer
