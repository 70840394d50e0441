// SPDX-License-Identifier: Apache-2.0
/// @file analysis/regions.hpp
/// The carries of structured control flow as the passes after storage initialization see them:
/// a loop's initializers and iteration values, a region's trailing yield, the region each op
/// sits in, and the GM parameter a tensor value aliases through stores, branches and loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {


/// Where a loop's initializers start among its operands: after `for`'s start, stop and step.
constexpr std::size_t loop_init_offset(const function& f, op_id o) { return f.op(o).code() == opcode::cf_for ? 3 : 0; }

/// A loop's initializers.
constexpr std::span<const operand> loop_inits(const function& f, op_id o) {
  const auto args = f.args(o);
  return args.subspan(std::min(loop_init_offset(f, o), args.size()));
}

/// Iteration value `i` of loop `o` in its region `r` (`for` regions start with the induction variable).
constexpr value_id iteration_value(const function& f, op_id o, region_id r, std::uint32_t i) {
  return f.arg(r, (f.op(o).code() == opcode::cf_for ? 1u : 0u) + i);
}

/// The body region of a loop: `for`'s only region, `while`'s second.
constexpr region_id loop_body(const function& f, op_id o) { return f.region_of(o, f.op(o).code() == opcode::cf_while ? 1u : 0u); }

/// The trailing `yield` of region `r`, or an invalid id.
constexpr op_id trailing_yield(const function& f, region_id r) {
  const auto ops = f.ops_of(r);
  return !ops.empty() && f.op(ops.back()).code() == opcode::cf_yield ? ops.back() : op_id{};
}

/// For every op, the region it sits in.
constexpr std::vector<region_id> enclosing_regions(const function& f) {
  std::vector<region_id> out(f.ops.size());
  for (std::uint32_t r = 0; r < f.regions.size(); ++r)
    for (op_id o : f.ops_of(region_id{r})) out[o.index] = region_id{r};
  return out;
}

/// The tensor parameter GM value `v` aliases: through store results, branch results (the then
/// arm's yield; selection checks the else arm agrees), loop results and iteration values (the
/// initializer; selection checks the backedge keeps it). Invalid when it aliases none.
constexpr value_id gm_alias_root(const function& f, value_id v) {
  for (std::size_t guard = 0; guard <= f.values.size(); ++guard) {
    const value_info& info = f.value(v);
    if (info.origin() == value_origin::param) return v;
    operand next{};
    if (info.origin() == value_origin::region_arg) {
      const op_id owner = f.region(info.region).parent;
      if (!owner.valid() || !is_loop_op(f.op(owner).code())) return value_id{};
      const std::uint32_t first = f.op(owner).code() == opcode::cf_for ? 1u : 0u;
      const auto inits = loop_inits(f, owner);
      if (info.index < first || info.index - first >= inits.size()) return value_id{};
      next = inits[info.index - first];
    } else {
      const op_id def = info.def;
      switch (f.op(def).code()) {
        case opcode::tile_store: next = typed<tile::store>(f, def).tensor(); break;
        case opcode::cf_if: {
          const op_id y = trailing_yield(f, f.region_of(def, 0));
          if (!y.valid() || info.index >= f.args(y).size()) return value_id{};
          next = f.args(y)[info.index];
          break;
        }
        case opcode::cf_for:
        case opcode::cf_while: {
          const auto inits = loop_inits(f, def);
          if (info.index >= inits.size()) return value_id{};
          next = inits[info.index];
          break;
        }
        default: return value_id{};
      }
    }
    if (!next.is_value()) return value_id{};
    v = next.value();
  }
  return value_id{};
}

}  // namespace v0
}  // namespace tile2buffer
