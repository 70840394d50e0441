// SPDX-License-Identifier: Apache-2.0
/// @file analysis/liveness.hpp
/// Liveness over program order, the one definition storage initialization and the planners
/// share: each op's position in the walk, the last position inside its regions, the region op
/// holding it, and which loops a position lies in. On top of it, the last use of each value
/// (init_storage decides which values may share storage by it); plan/lifetime.hpp derives the
/// live interval of each allocation from the same positions.
#pragma once

#include <cstdint>
#include <vector>

#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The ops of a function in program (walk) order.
class program_order {
 public:
  constexpr explicit program_order(const function& f)
      : pos_(f.ops.size(), 0), end_(f.ops.size(), 0), parent_(f.ops.size(), op_id{}) {
    walk(f, [&](op_id o) {
      pos_[o.index] = static_cast<std::uint32_t>(ops_.size());
      ops_.push_back(o);
    });
    const std::vector<region_id> enclosing = enclosing_regions(f);
    for (op_id o : ops_) parent_[o.index] = f.region(enclosing[o.index]).parent;
    // Why in reverse: the walk is pre-order, so every op's subtree is settled before the op.
    for (std::size_t i = ops_.size(); i-- > 0;) {
      const op_id o = ops_[i];
      end_[o.index] = std::max(end_[o.index], pos_[o.index]);
      if (const op_id a = parent_[o.index]; a.valid()) end_[a.index] = std::max(end_[a.index], end_[o.index]);
    }
  }
  /// The ops in walk order; `size()` positions.
  [[nodiscard]] constexpr const std::vector<op_id>& ops() const noexcept { return ops_; }
  [[nodiscard]] constexpr std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(ops_.size()); }
  [[nodiscard]] constexpr std::uint32_t pos(op_id o) const { return pos_[o.index]; }
  /// The last position inside `o`'s regions (`pos(o)` for an op without regions).
  [[nodiscard]] constexpr std::uint32_t end(op_id o) const { return end_[o.index]; }
  /// The region op directly holding `o`; invalid at the function body's top level.
  [[nodiscard]] constexpr op_id parent(op_id o) const { return parent_[o.index]; }

 private:
  std::vector<std::uint32_t> pos_;
  std::vector<std::uint32_t> end_;
  std::vector<op_id> parent_;
  std::vector<op_id> ops_;
};

/// For each value, the position of its last use. A use inside a loop that does not define the
/// value counts at the end of the outermost such loop: a later iteration reads it again. A use
/// by the loop's own iteration (of an iteration value, or of a value defined in the body) counts
/// where it is, so an in-place write late in the body can reuse the carry's storage.
template <class = void>
constexpr std::vector<std::uint32_t> last_uses(const function& f, const program_order& order) {
  // Whether loop `a` encloses the definition of `v` (its region ops' iteration values included).
  const auto defines = [&](op_id a, value_id v) {
    const value_info& info = f.value(v);
    if (!info.def.valid()) return false;  // a parameter
    const std::uint32_t at = order.pos(info.def);
    return info.origin() == value_origin::region_arg ? order.pos(a) <= at && at <= order.end(a)
                                                     : order.pos(a) < at && at <= order.end(a);
  };
  std::vector<std::uint32_t> last(f.values.size(), 0);
  const auto use = [&](const operand& x, op_id at, auto& self) -> void {
    if (x.is_value()) {
      std::uint32_t p = order.pos(at);
      for (op_id a = order.parent(at); a.valid(); a = order.parent(a))
        if (is_loop_op(f.op(a).code()) && !defines(a, x.value())) p = order.end(a);
      last[x.ref] = std::max(last[x.ref], p);
    }
    if (x.kind == operand_kind::tuple)
      for (const operand& e : f.elements(x)) self(e, at, self);
  };
  for (op_id o : order.ops()) {
    for (const operand& x : f.args(o)) use(x, o, use);
    for (const kwarg& k : f.kwargs_of(o)) use(k.value, o, use);
  }
  return last;
}

}  // namespace v0
}  // namespace tile2buffer
