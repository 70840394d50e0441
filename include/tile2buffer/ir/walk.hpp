// SPDX-License-Identifier: Apache-2.0
/// @file ir/walk.hpp
/// Program-order traversal: each op, then (for region ops) its regions' ops, recursively.
#pragma once

#include <array>
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
  // Why an inline stack first: passes walk each loop's body once per loop, and a heap-allocated
  // stack was an allocation per region op; only nesting deeper than this spills to the heap.
  std::array<detail::walk_frame, 16> inline_frames{};
  std::vector<detail::walk_frame> spilled;
  std::size_t depth = 0;
  const auto push = [&](detail::walk_frame x) {
    if (depth < inline_frames.size()) inline_frames[depth] = x;
    else spilled.push_back(x);
    ++depth;
  };
  const auto top = [&]() -> detail::walk_frame& {
    return depth <= inline_frames.size() ? inline_frames[depth - 1] : spilled[depth - 1 - inline_frames.size()];
  };
  push({r, 0});
  while (depth > 0) {
    detail::walk_frame& t = top();
    const auto ops = f.ops_of(t.region);
    if (t.next == ops.size()) {
      if (depth > inline_frames.size()) spilled.pop_back();
      --depth;
      continue;
    }
    const op_id o = ops[t.next++];
    fn(o);
    const op_node& n = f.op(o);
    // Push regions in reverse so the first region is walked first.
    for (std::uint32_t i = n.region_count; i > 0; --i) push({region_id{n.regions_begin + i - 1}, 0});
  }
}
template <class Fn>
constexpr void walk(const function& f, Fn&& fn) {
  walk(f, f.body, static_cast<Fn&&>(fn));
}

}  // namespace v0
}  // namespace tile2buffer
