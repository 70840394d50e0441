// SPDX-License-Identifier: Apache-2.0
/// @file passes/lower.hpp
/// LowerTileToBuffer: converts selected device kernels (and, in explicit pipelines, kernels with
/// no recorded selection) into Buffer stage through the recipe table. All-or-nothing: on any
/// failure the result carries diagnostics and no program; the input is never modified.
/// Idempotent: Buffer-stage functions and orchestration pass through unchanged.
#pragma once

#include "tile2buffer/engine/lowering.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/passes/verify_tile_storage.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

template <class Recipes>
constexpr void lower_region(const function& f, region_id r, lowering& l, const match_context& ctx) {
  l.rw().clone_ops(r, [&](op_id o) {
    const op_node& n = f.op(o);
    const opcode c = n.code();
    if (is_region_op(c)) {
      l.fail(o, "lower", text("'") << mnemonic(c) << "' regions need the control-flow recipes, which this rollout lacks");
      return true;
    }
    if (!is_tile_op(c)) return false;  // scalar ops and return are cloned with remapped operands
    text first_failure;
    for (const recipe_entry& e : dispatch_table<Recipes>::candidates(c)) {
      match_result m = e.match(f, o, ctx);
      if (m) {
        e.rewrite(o, l);
        return true;
      }
      if (first_failure.empty()) first_failure = text(e.name) << ": " << m.reason;
    }
    if (first_failure.empty()) {
      first_failure = text("no conversion recipe for '") << mnemonic(c) << "'";
      if (const auto* s = stays_tile_reason(c)) first_failure << " (" << s->reason << ")";
    }
    l.fail(o, "lower", static_cast<text&&>(first_failure));
    return true;
  });
}

}  // namespace detail

/// Converts one device function; the caller decides whether it should be converted.
template <class Recipes = default_recipes>
constexpr result<function> lower_function(const function& f, const options& opts) {
  result<function> r;
  // The storage closure is rechecked here even when automatic verification is off.
  r.errors = check_tile_storage(f);
  for (const auto& p : f.params)
    if (f.type_of(p.value).is_tile())
      r.fail(p.loc, "lower", "device Tile parameters require the Buffer helper ABI recipe");
  if (!r.ok()) return r;
  lowering l(f, opts);
  detail::lower_region<Recipes>(f, f.body, l, match_context{opts});
  if (!l.errors().empty()) {
    r.errors = l.errors();
    return r;
  }
  r.value = l.rw().finish();
  return r;
}

/// The pass over a program. Kernels recorded as not selected stay Tile.
template <class Recipes = default_recipes>
constexpr result<program> lower_tile_to_buffer(const program& p, const options& opts) {
  result<program> r;
  r.value.file = p.file;
  for (const auto& f : p.functions) {
    const bool convert = f.is_device() && f.stage == ir_stage::tile && f.buffer_ir_selected.value_or(true);
    if (!convert) {
      r.value.functions.push_back(f);
      continue;
    }
    auto lowered = lower_function<Recipes>(f, opts);
    for (auto& d : lowered.errors) r.errors.push_back(static_cast<diagnostic&&>(d));
    r.value.functions.push_back(static_cast<function&&>(lowered.value));
  }
  if (!r.ok()) r.value = program{};
  return r;
}

}  // namespace v0
}  // namespace tile2buffer
