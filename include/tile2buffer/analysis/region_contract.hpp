// SPDX-License-Identifier: Apache-2.0
/// @file analysis/region_contract.hpp
/// Which If/For/While ops the default contract lowers (reference §3.2 "Control flow", §5.8):
/// Tile results and carries are dense Vec tiles with static valid extents (window carries stay
/// Tile, and so does any dynamic valid state inside a region, carried or not) or matrix tiles that keep one storage window throughout, GM results and carries keep one parameter alias, and For
/// loops have an INDEX induction variable and a positive literal step. Selection keeps a kernel
/// that breaks these on Tile; explicit lowering fails closed with the same words.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/analysis/windows.hpp"
#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Why Tile value `v` (a branch result or yield, a carry's initializer, iteration value, result
/// or yield) cannot be a region carry; empty when it can (or is no Tile).
constexpr text tile_carry_problem(const function& f, const window_facts& windows, const operand& x, std::string_view role) {
  if (!x.is_value()) return {};
  const value_id v = x.value();
  const type& t = f.type_of(v);
  if (!t.is_tile()) return {};
  if (windows.is_window(v))
    return text(role) << " '" << f.name_of(v) << "' is a window: window region carries and results stay Tile";
  if (is_matrix_space(t.space)) {
    if (text why = matrix_tile_problem(t); !why.empty()) return text(role) << " '" << f.name_of(v) << "': " << why;
    return {};
  }
  if (!t.static_valid())
    return text(role) << " '" << f.name_of(v) << "' has runtime valid extents: dynamic-valid region carries stay Tile";
  return {};
}

/// Matrix carries preserve one storage alias (reference §4.1): a same-space Mat/Left/Right/Acc
/// copy cannot execute, so every value of a matrix carry (initializer, iteration value, yields,
/// result) must already live in one window. Empty when they do, or the carry is not matrix.
constexpr text matrix_carry_problem(const function& f, value_id result, std::initializer_list<operand> members) {
  const type& r = f.type_of(result);
  if (!r.is_tile() || !is_matrix_space(r.space)) return {};
  for (const operand& x : members) {
    if (!x.is_value()) continue;
    if (!f.has_storage(result) || f.storage_of(x.value()) != f.storage_of(result))
      return text("matrix region carries must preserve one storage alias: '")
             << f.name_of(x.value()) << "' and '" << f.name_of(result) << "' are in different " << name(r.space)
             << " windows, and a matrix carry copy has no Buffer transfer";
  }
  return {};
}

/// The first tile.set_validshape in loop `o`'s regions whose tile is defined outside the loop:
/// a later iteration would read the superseded version, which the straight-line version
/// analysis cannot see.
constexpr text loop_setter_problem(const function& f, op_id o) {
  // Why two walks and a sorted list: most loops hold no setter and cost one walk, which
  // allocates nothing; a per-loop table as large as the function made selection quadratic in
  // the number of loops.
  std::vector<op_id> setters;
  for (std::uint32_t r = 0; r < f.op(o).region_count; ++r)
    walk(f, f.region_of(o, r), [&](op_id x) {
      if (f.op(x).code() == opcode::tile_set_validshape) setters.push_back(x);
    });
  if (setters.empty()) return {};
  std::vector<std::uint32_t> inside{o.index};  // its own iteration values are rebound every iteration
  for (std::uint32_t r = 0; r < f.op(o).region_count; ++r)
    walk(f, f.region_of(o, r), [&](op_id x) { inside.push_back(x.index); });
  std::sort(inside.begin(), inside.end());
  for (op_id x : setters) {
    const operand t = view<opcode::tile_set_validshape>(f, x).tile();
    if (!t.is_value()) continue;
    const value_info& info = f.value(t.value());
    const op_id def = info.origin() == value_origin::region_arg ? f.region(info.region).parent : info.def;
    if (!def.valid() || !std::binary_search(inside.begin(), inside.end(), def.index))
      return text("tile.set_validshape of '")
             << f.name_of(t.value())
             << "', defined outside the loop, would leave the next iteration reading a superseded version";
  }
  return {};
}

/// The first Tile with dynamic valid state (a runtime or empty extent, so a dynamic Buffer
/// descriptor, in its own type or in its storage's) that an op inside region op `o` defines or
/// reads. The spec enables runtime valid shapes for straight-line code only: "user control flow
/// with dynamic valid state ... retain(s) Tile IR" (spec, runtime-valid default selection),
/// whether the state is carried or not.
constexpr text dynamic_valid_problem(const function& f, op_id o, const kernel_analyses& k) {
  // The first value with dynamic extents of its own, else the first sharing such storage (the
  // message names the tile that holds the state when there is one).
  value_id own, shared;
  const auto see = [&](value_id v) {
    if (!k.dynamic.holds(f.stored(v))) return;
    if (!descriptor_static_valid(f.type_of(v))) own = v;
    else if (!shared.valid()) shared = v;
  };
  for (std::uint32_t r = 0; r < f.op(o).region_count && !own.valid(); ++r)
    walk(f, f.region_of(o, r), [&](op_id x) {
      for (const operand& a : f.args(x))
        if (!own.valid() && a.is_value()) see(a.value());
      for (std::uint32_t i = 0; !own.valid() && i < f.op(x).results.count; ++i) see(f.result(x, i));
    });
  if (own.valid())
    return text("'")
           << f.name_of(own)
           << "' inside the region has runtime or empty valid extents: user control flow with dynamic valid state stays Tile";
  if (shared.valid())
    return text("'")
           << f.name_of(shared)
           << "' inside the region shares its storage with a tile of runtime or empty valid extents: user control flow with dynamic valid state stays Tile";
  return {};
}

/// Extended rollout (quantized-path.md §2.6): whether the dynamic valid state inside region op
/// `o` stays inside one of its bodies. Every tile holding that state, and every tile in storage
/// that holds it, is defined and read by ops of one region of `o` only: not an initializer,
/// iteration value, yield or result of `o`, not read before or after it, not in another region.
/// Why this is enough: each body then states the extents of the tiles it defines (the
/// straight-line recipes), so nothing reads a version from another iteration or arm. Nested
/// region ops that carry such a tile answer for themselves (a dynamic-valid carry stays Tile).
constexpr bool dynamic_state_local(const function& f, op_id o, const kernel_analyses& k) {
  // Why static matrix tiles are left out: an Acc tail is a view cut at its store (recipe/valid.hpp
  // lower_acc_tail), so the accumulator's storage takes no metadata update and its static tiles
  // (a K loop's carry) hold no dynamic state.
  const auto holds = [&](stored_tile t) {
    return k.dynamic.holds(t) && !(is_matrix_space(t.ty.space) && descriptor_static_valid(t.ty));
  };
  // (op index, region of `o`), sorted; and the storage of the tiles with dynamic state, with the
  // region of `o` that touches it.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> inside;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> held;
  bool ok = true;
  for (std::uint32_t r = 0; r < f.op(o).region_count; ++r) {
    const region_id reg = f.region_of(o, r);
    for (std::uint32_t i = 0; i < f.region(reg).args.count; ++i)
      if (f.type_of(f.arg(reg, i)).is_tile() && holds(f.stored(f.arg(reg, i)))) ok = false;
    walk(f, reg, [&](op_id x) { inside.emplace_back(x.index, r); });
  }
  if (!ok) return false;
  std::sort(inside.begin(), inside.end());
  const auto region_of_op = [&](op_id x) -> std::uint32_t {
    const auto it = std::lower_bound(inside.begin(), inside.end(), std::pair{x.index, std::uint32_t{0}});
    return it != inside.end() && it->first == x.index ? it->second : no_id;
  };
  const auto touched = [&](op_id x, auto&& fn) {
    for (const operand& a : f.args(x))
      if (a.is_value() && f.type_of(a.value()).is_tile()) fn(f.stored(a.value()));
    for (std::uint32_t i = 0; i < f.op(x).results.count; ++i)
      if (f.type_of(f.result(x, i)).is_tile()) fn(f.stored(f.result(x, i)));
  };
  // Why not structured bindings: clang-14 cannot capture them in a lambda.
  for (const auto& entry : inside) {
    const std::uint32_t r = entry.second;
    touched(op_id{entry.first}, [&](stored_tile t) {
      if (!holds(t)) return;
      if (!t.at.valid()) ok = false;
      else held.emplace_back(t.at.mem.index, r);
    });
  }
  if (!ok || held.empty()) return ok;
  std::sort(held.begin(), held.end());
  const auto holder = [&](stored_tile t) -> std::uint32_t {
    if (!t.at.valid()) return no_id;
    const auto it = std::lower_bound(held.begin(), held.end(), std::pair{t.at.mem.index, std::uint32_t{0}});
    return it != held.end() && it->first == t.at.mem.index ? it->second : no_id - 1;
  };
  // Each storage is touched from one region of `o`.
  for (std::size_t i = 1; i < held.size(); ++i)
    if (held[i].first == held[i - 1].first && held[i].second != held[i - 1].second) return false;
  // The trailing yields of `o`'s own regions take values out of them.
  std::vector<op_id> exits;
  for (std::uint32_t r = 0; r < f.op(o).region_count; ++r)
    if (const op_id y = trailing_yield(f, f.region_of(o, r)); y.valid()) exits.push_back(y);
  walk(f, [&](op_id x) {
    if (!ok) return;
    const std::uint32_t r = region_of_op(x);
    const bool leaves = std::find(exits.begin(), exits.end(), x) != exits.end();
    touched(x, [&](stored_tile t) {
      const std::uint32_t h = holder(t);
      if (h == no_id - 1 || h == no_id) return;
      if (r != h || leaves) ok = false;
    });
  });
  return ok;
}

}  // namespace detail

/// Why region op `o` is outside the contract (of the extended rollout when `extended`); empty when
/// it is inside.
constexpr text region_op_problem(const function& f, op_id o, const kernel_analyses& k, bool extended = false) {
  const window_facts& windows = k.windows;
  const opcode c = f.op(o).code();
  const op_node& n = f.op(o);
  if (c == opcode::cf_if) {
    const op_id then_yield = n.region_count > 0 ? trailing_yield(f, f.region_of(o, 0)) : op_id{};
    const op_id else_yield = n.region_count > 1 ? trailing_yield(f, f.region_of(o, 1)) : op_id{};
    for (std::uint32_t i = 0; i < n.results.count; ++i) {
      const value_id res = f.result(o, i);
      const type& t = f.type_of(res);
      const operand a = then_yield.valid() && i < f.args(then_yield).size() ? f.args(then_yield)[i] : operand{};
      const operand b = else_yield.valid() && i < f.args(else_yield).size() ? f.args(else_yield)[i] : operand{};
      if (t.is_tensor()) {
        const value_id ra = a.is_value() ? gm_alias_root(f, a.value()) : value_id{};
        const value_id rb = b.is_value() ? gm_alias_root(f, b.value()) : value_id{};
        if (!ra.valid() || ra != rb)
          return text("GM branch results must alias the same parameter in both arms ('") << f.name_of(res) << "')";
        continue;
      }
      for (const auto& [x, role] :
           {std::pair{operand::of(res), "branch result"}, std::pair{a, "then-arm yield"}, std::pair{b, "else-arm yield"}})
        if (text why = detail::tile_carry_problem(f, windows, x, role); !why.empty()) return why;
      if (text why = detail::matrix_carry_problem(f, res, {a, b}); !why.empty()) return why;
    }
    if (!k.dynamic.any || (extended && detail::dynamic_state_local(f, o, k))) return {};
    return detail::dynamic_valid_problem(f, o, k);
  }
  if (!is_loop_op(c)) return {};
  if (c == opcode::cf_for) {
    const operand step = view<opcode::cf_for>(f, o).step();
    if (step.kind != operand_kind::int_lit || step.num <= 0)
      return text("for loops need a provably positive constant step (a positive integer literal)");
    if (f.type_of(f.arg(f.region_of(o, 0), 0)).dt != dtype::index) return text("for loops need an INDEX induction variable");
    // Reference §3.3: bounds are INDEX or signed integers (PTO's scf.for takes no unsigned bound).
    for (std::size_t b = 0; b < 2; ++b)
      if (const operand x = f.args(o)[b]; x.is_value() && is_unsigned(f.type_of(x.value()).dt))
        return text("for loops need INDEX or signed integer bounds ('")
               << f.name_of(x.value()) << "' is " << name(f.type_of(x.value()).dt) << ")";
  }
  const region_id body = loop_body(f, o);
  const op_id yield = trailing_yield(f, body);
  const auto inits = loop_inits(f, o);
  for (std::uint32_t i = 0; i < n.results.count && i < inits.size(); ++i) {
    const value_id res = f.result(o, i);
    const operand next = yield.valid() && i < f.args(yield).size() ? f.args(yield)[i] : operand{};
    if (f.type_of(res).is_tensor()) {
      const value_id from = inits[i].is_value() ? gm_alias_root(f, inits[i].value()) : value_id{};
      const value_id to = next.is_value() ? gm_alias_root(f, next.value()) : value_id{};
      if (!from.valid() || from != to)
        return text("GM loop results must retain their initial parameter alias ('") << f.name_of(res) << "')";
      continue;
    }
    for (const auto& [x, role] :
         {std::pair{inits[i], "loop initializer"}, std::pair{operand::of(res), "loop result"}, std::pair{next, "loop yield"}})
      if (text why = detail::tile_carry_problem(f, windows, x, role); !why.empty()) return why;
    if (text why = detail::matrix_carry_problem(f, res, {inits[i], operand::of(iteration_value(f, o, body, i)), next});
        !why.empty())
      return why;
  }
  if (k.dynamic.any && !(extended && detail::dynamic_state_local(f, o, k)))
    if (text why = detail::dynamic_valid_problem(f, o, k); !why.empty()) return why;
  return detail::loop_setter_problem(f, o);
}

}  // namespace v0
}  // namespace tile2buffer
