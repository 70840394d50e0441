// SPDX-License-Identifier: Apache-2.0
/// @file passes/lower_regions.hpp
/// Structural conversion of If, For and While (reference §5.8). Storage legalization has already
/// put every Tile result and carry in one window, so conversion only drops them: the rebuilt op
/// keeps its scalar results, iteration values and yields in their original relative order; a GM
/// result or carry disappears and later uses name the parameter it aliases. Tile positions are
/// checked, never repaired: a yield or initializer outside its carry's storage is an internal
/// error ("implicit region transfer"). Nothing here allocates or copies. Each region is lowered in
/// its own yield context, so nested regions never see each other's yields, and each initializer
/// is rewritten once, at its loop. A part of the lower pass, not a pass: only passes/lower.hpp
/// includes it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/inline_vector.hpp"
#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/engine/lowering.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// The region op whose region `region` is being lowered, and what its trailing yield recorded:
/// the rewritten GM value at each result position (invalid elsewhere).
struct yield_context {
  op_id owner;
  region_id region;
  inline_vector<operand, 4> gm;  ///< by result position: the GM operand the yield passes, if any
};

/// Tile value `v` lives in the storage handle of `carry` (both have one, and it is the same).
template <class = void>
constexpr bool same_handle(lowering& l, const operand& v, value_id carry) {
  return v.is_value() && l.handle(v.value()).valid() && l.handle(v.value()) == l.handle(carry);
}

/// Lowers trailing yield `y` of the region in `ctx`: scalar positions stay, Tile positions are
/// checked and dropped, GM positions are recorded and dropped. A while condition's yield stays.
template <class = void>
constexpr void lower_yield(const function& f, op_id y, lowering& l, yield_context& ctx) {
  const op_node& owner = f.op(ctx.owner);
  if (has_trait(owner.code(), trait::condition_region) && ctx.region == f.region_of(ctx.owner, 0)) {
    l.rw().clone(y);
    return;
  }
  const bool loop = is_loop_op(owner.code());
  const auto args = f.args(y);
  inline_vector<operand, 4> kept;
  ctx.gm.assign(owner.results.count, operand{});
  for (std::uint32_t i = 0; i < args.size() && i < owner.results.count; ++i) {
    const value_id res = f.result(ctx.owner, i);
    const type& t = f.type_of(res);
    if (t.is_tile()) {
      const value_id into = loop ? iteration_value(f, ctx.owner, ctx.region, i) : res;
      if (!same_handle(l, args[i], into))
        l.fail(y, "lower",
               text("internal: implicit region transfer: yield operand ")
                   << static_cast<std::int64_t>(i) << " is not in the storage of '" << f.name_of(into)
                   << "' (storage legalization moves it there)");
      continue;
    }
    if (t.is_tensor()) {
      ctx.gm[i] = l.rw().map(args[i]);
      continue;
    }
    kept.push_back(l.rw().map(args[i]));
  }
  l.builder().create<cf::yield>({.values = kept}, f.loc_of(y));
}

/// The positions of `o`'s results that stay native: scalars.
template <class = void>
constexpr std::vector<std::uint32_t> scalar_positions(const function& f, op_id o) {
  std::vector<std::uint32_t> kept;
  for (std::uint32_t i = 0; i < f.op(o).results.count; ++i)
    if (f.type_of(f.result(o, i)).is_scalar()) kept.push_back(i);
  return kept;
}

/// Emits `o`'s replacement with operands `args`, regions `regions` and the results at `kept`,
/// and binds those results.
template <class = void>
constexpr void emit_region_op(const function& f, op_id o, lowering& l, std::span<const operand> args,
                              std::span<const std::uint32_t> kept, span32 regions) {
  std::vector<type> types;
  std::vector<std::string_view> names;
  for (std::uint32_t i : kept) {
    types.push_back(l.rw().mapped_type(f.result(o, i)));
    names.push_back(f.name_of(f.result(o, i)));
  }
  const op_id id = l.builder().emit(f.op(o).code(), args, {}, types, names, f.loc_of(o), regions);
  for (std::uint32_t j = 0; j < kept.size(); ++j) l.rw().bind(f.result(o, kept[j]), operand::of(l.builder().fn().result(id, j)));
}

/// Converts an `if`; `lower_body(region, yield_context&)` lowers one arm into the open region.
template <class LowerBody>
constexpr void lower_if(const function& f, op_id o, lowering& l, LowerBody&& lower_body) {
  const op_node& n = f.op(o);
  const operand cond = l.rw().map(named_operand<"cond">(f, o));
  auto& b = l.builder();
  // Why always two: the Buffer-stage `if` keeps both arms, an absent else arm becoming empty.
  const region_id first = b.reserve_regions(2);
  inline_vector<operand, 4> gm[2];
  for (std::uint32_t r = 0; r < 2; ++r) {
    b.open_region(region_id{first.index + r}, {}, {});
    if (r < n.region_count) {
      yield_context ctx{o, f.region_of(o, r), {}};
      lower_body(ctx.region, ctx);
      gm[r] = ctx.gm;
    }
    b.close_region();
  }
  const std::vector<std::uint32_t> kept = scalar_positions(f, o);
  emit_region_op(f, o, l, std::span<const operand>(&cond, 1), kept, span32{first.index, 2});
  for (std::uint32_t i = 0; i < n.results.count; ++i) {
    if (!f.type_of(f.result(o, i)).is_tensor()) continue;
    const operand a = i < gm[0].size() ? gm[0][i] : operand{};
    const operand e = i < gm[1].size() ? gm[1][i] : operand{};
    if (!a.is_value() || a != e) {
      l.fail(o, "lower",
             text("GM branch results must alias the same parameter in both arms ('") << f.name_of(f.result(o, i)) << "')");
      continue;
    }
    l.rw().bind(f.result(o, i), a);
  }
}

/// Converts a `for` or `while`; `lower_body(region, yield_context&)` lowers one region.
template <class LowerBody>
constexpr void lower_loop(const function& f, op_id o, lowering& l, LowerBody&& lower_body) {
  const op_node& n = f.op(o);
  const bool is_for = !has_trait(n.code(), trait::condition_region);  // a counted loop
  const auto inits = loop_inits(f, o);
  auto& rw = l.rw();
  const std::vector<std::uint32_t> kept = scalar_positions(f, o);
  for (std::uint32_t i = 0; i < n.results.count && i < inits.size(); ++i) {
    const value_id res = f.result(o, i);
    const type& t = f.type_of(res);
    if (t.is_tile()) {
      bool same = same_handle(l, inits[i], res);
      for (std::uint32_t r = 0; r < n.region_count; ++r)
        same = same && l.handle(iteration_value(f, o, f.region_of(o, r), i)) == l.handle(res);
      if (!same)
        l.fail(o, "lower",
               text("internal: implicit loop entry transfer: the initializer, iteration value and result of carry '")
                   << f.name_of(res) << "' are not one storage window (storage legalization copies it in)");
    } else if (t.is_tensor()) {
      const operand init = rw.map(inits[i]);
      rw.bind(res, init);
      for (std::uint32_t r = 0; r < n.region_count; ++r) rw.bind(iteration_value(f, o, f.region_of(o, r), i), init);
    }
  }
  inline_vector<operand, 8> args;  // for's bounds, then the scalar initializers
  for (std::size_t i = 0; i < loop_init_offset(f, o); ++i) args.push_back(rw.map(f.args(o)[i]));
  for (std::uint32_t i : kept) args.push_back(rw.map(inits[i]));
  auto& b = l.builder();
  const region_id first = b.reserve_regions(n.region_count);
  for (std::uint32_t r = 0; r < n.region_count; ++r) {
    const region_id src = f.region_of(o, r);
    inline_vector<value_id, 4> from;  // source region args that stay: the induction variable, then scalar carries
    if (is_for) from.push_back(f.arg(src, 0));
    for (std::uint32_t i : kept) from.push_back(iteration_value(f, o, src, i));
    inline_vector<type, 4> types;
    inline_vector<std::string_view, 4> names;
    for (value_id v : from) {
      types.push_back(rw.mapped_type(v));
      names.push_back(f.name_of(v));
    }
    const region_id to{first.index + r};
    b.open_region(to, types, names);
    for (std::uint32_t j = 0; j < from.size(); ++j) rw.bind(from[j], operand::of(b.fn().arg(to, j)));
    yield_context ctx{o, src, {}};
    lower_body(src, ctx);
    if (src == loop_body(f, o))
      for (std::uint32_t i = 0; i < n.results.count && i < inits.size(); ++i)
        if (f.type_of(f.result(o, i)).is_tensor() && (i >= ctx.gm.size() || ctx.gm[i] != rw.map(inits[i])))
          l.fail(o, "lower",
                 text("GM loop results must retain their initial parameter alias ('") << f.name_of(f.result(o, i)) << "')");
    b.close_region();
  }
  emit_region_op(f, o, l, args, kept, span32{first.index, n.region_count});
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
