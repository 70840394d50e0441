// SPDX-License-Identifier: Apache-2.0
/// @file passes/lower.hpp
/// LowerTileToBuffer: converts selected device kernels (and, in explicit pipelines, kernels with
/// no recorded selection) into Buffer stage through the recipe set. All-or-nothing: on any
/// failure the result carries diagnostics and no program; the input is never modified.
/// Idempotent: Buffer-stage functions and orchestration pass through unchanged.
#pragma once

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/scalar_contract.hpp"
#include "tile2buffer/engine/lowering.hpp"
#include "tile2buffer/engine/try_recipes.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/passes/verify_tile_storage.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

template <recipe_set Recipes>
constexpr void lower_region(const function& f, region_id r, lowering& l, const match_context& ctx) {
  l.rw().clone_ops(r, [&](op_id o) {
    const op_node& n = f.op(o);
    const opcode c = n.code();
    if (is_region_op(c)) {
      l.fail(o, "lower", text("'") << mnemonic(c) << "' regions need the control-flow recipes, which this rollout lacks");
      return true;
    }
    if (dialect_of(c) == dialect::scalar) {
      // Explicit pipelines skip selection: the scalar contract is enforced here too.
      if (text why = scalar_op_problem(f, o); !why.empty()) l.fail(o, "lower", text("outside the default contract: ") << why);
      return false;  // cloned with remapped operands
    }
    if (!is_tile_op(c)) return false;  // return is cloned with remapped operands
    recipe_choice choice = try_recipes<Recipes>(f, o, ctx, /*rollout_only=*/false);
    if (choice) {
      choice.chosen->rewrite(f, o, l);
      return true;
    }
    text why;
    if (choice.first_failed != nullptr) {
      why = text(choice.first_failed->name) << ": " << choice.reason;
    } else {
      why = text("no conversion recipe for '") << mnemonic(c) << "'";
      if (choice.stays) why << " (" << choice.stays->reason << ")";
    }
    l.fail(o, "lower", static_cast<text&&>(why));
    return true;
  });
}

}  // namespace detail

/// Converts one device function with its shared analyses; the caller decides whether it
/// should be converted.
template <recipe_set Recipes = default_recipes>
constexpr result<function> lower_function(const function& f, const options& opts, const kernel_analyses& analyses) {
  result<function> r;
  // The storage closure is rechecked here even when automatic verification is off (unless
  // verify_tile_storage already found this very function clean).
  if (!analyses.storage_checked) r.errors = check_tile_storage(f, analyses);
  for (const auto& p : f.params)
    if (f.type_of(p.value).is_tile())
      r.fail(p.loc, "lower", "device Tile parameters require the Buffer helper ABI recipe");
  if (!r.ok()) return r;
  lowering l(f, opts, analyses);
  detail::lower_region<Recipes>(f, f.body, l, match_context{opts, &analyses});
  if (!l.errors().empty()) {
    r.errors = l.errors();
    return r;
  }
  r.value = l.rw().finish();
  return r;
}
template <recipe_set Recipes = default_recipes>
constexpr result<function> lower_function(const function& f, const options& opts) {
  return lower_function<Recipes>(f, opts, kernel_analyses(f));
}

/// The pass over a program. Kernels recorded as not selected stay Tile.
template <recipe_set Recipes = default_recipes>
constexpr result<program> lower_tile_to_buffer(const program& p, const options& opts, analysis_cache& cache) {
  result<program> r;
  r.value.file = p.file;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    const bool convert = f.is_device() && f.stage == ir_stage::tile && f.buffer_ir_selected.value_or(true);
    if (!convert) {
      r.value.functions.push_back(f);
      continue;
    }
    auto lowered = lower_function<Recipes>(f, opts, cache.get(p, i));
    cache.invalidate(i);
    for (auto& d : lowered.errors) r.errors.push_back(static_cast<diagnostic&&>(d));
    r.value.functions.push_back(static_cast<function&&>(lowered.value));
  }
  if (!r.ok()) r.value = program{};
  return r;
}
template <recipe_set Recipes = default_recipes>
constexpr result<program> lower_tile_to_buffer(const program& p, const options& opts) {
  analysis_cache cache;
  return lower_tile_to_buffer<Recipes>(p, opts, cache);
}

}  // namespace v0
}  // namespace tile2buffer
