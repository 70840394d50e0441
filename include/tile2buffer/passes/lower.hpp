// SPDX-License-Identifier: Apache-2.0
/// @file passes/lower.hpp
/// LowerTileToBuffer: converts selected device kernels (and, in explicit pipelines, kernels with
/// no recorded selection) into Buffer stage through the recipe set. All-or-nothing: on any
/// failure the result carries diagnostics and no program; the input is never modified.
/// Idempotent: Buffer-stage functions and orchestration pass through unchanged.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/op_contract.hpp"
#include "tile2buffer/checks/buffer.hpp"
#include "tile2buffer/checks/tile_storage.hpp"
#include "tile2buffer/engine/lowering.hpp"
#include "tile2buffer/engine/try_recipes.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/passes/lower_regions.hpp"
#include "tile2buffer/recipe/table.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Valid-state prefixing (reference §5.5): an op that defines a tile with a dynamic handle first
/// states the extents it produces. Relabels and setters update no metadata of their own.
constexpr void prefix_valid_state(const function& f, op_id o, lowering& l) {
  const opcode c = f.op(o).code();
  if (has_trait(c, trait::allocates) || has_trait(c, trait::relabel) || has_trait(c, trait::window)) return;
  for (std::uint32_t i = 0; i < f.op(o).results.count; ++i) {
    const value_id r = f.result(o, i);
    if (!f.type_of(r).is_tile() || l.analyses().windows.is_window(r)) continue;
    const value_id h = l.handle(r);
    if (!h.valid() || l.builder().fn().type_of(h).static_valid()) continue;
    l.builder().create<buffer::set_validshape>({.buffer = h, .valid = built(l.valid_tuple(r))}, f.loc_of(o));
  }
}

/// The valid extents an op's data movement covers: a load's, move's or elementwise result's, a
/// store's source's; none for ops that move no data.
constexpr const type* data_extent_type(const function& f, op_id o) {
  if (!has_trait(f.op(o).code(), trait::moves_valid_data)) return nullptr;
  if (info(f.op(o).code()).extent_of.empty()) return &f.type_of(f.result(o));
  const operand t = extent_operand(f, o);
  return t.is_value() ? &f.type_of(t.value()) : nullptr;
}

/// Emits `rewrite` so that it runs only when both valid extents are positive (reference: loads,
/// stores and arithmetic execute only then): unguarded for positive literals, not at all for a
/// literal 0 (a store's result still names its tensor), inside `if (rows > 0 and cols > 0)`
/// otherwise. The rewrite defines no views that escape: windows with runtime extents stay Tile.
template <class Rewrite>
constexpr void guarded(const function& f, op_id o, lowering& l, Rewrite&& rewrite) {
  const type* t = data_extent_type(f, o);
  if (t == nullptr || (t->static_valid() && t->valid[0].number > 0 && t->valid[1].number > 0)) return rewrite();
  if ((t->valid[0].is_static() && t->valid[0].number == 0) || (t->valid[1].is_static() && t->valid[1].number == 0)) {
    // Nothing moves, yet the result is defined: a store's result is the tensor it writes.
    if (const operand w = written_operand(f, o); w.is_value() && f.op(o).results.count == 1)
      l.rw().bind(f.result(o), l.rw().map(w));
    return;
  }
  auto& b = l.builder();
  const location loc = f.loc_of(o);
  operand cond{};
  for (const extent& e : t->valid) {
    if (!e.is_value()) continue;
    const operand positive =
        operand::of(b.create<scalar::gt>({.lhs = built(l.rw().lookup(e.value())), .rhs = 0}, scalar_type(dtype::bool_), {}, loc));
    cond = cond.kind == operand_kind::none ? positive
                                           : operand::of(b.create<scalar::and_>({.lhs = built(cond), .rhs = built(positive)},
                                                                                scalar_type(dtype::bool_), {}, loc));
  }
  // Why two regions: an `if` always has its then and else arms (here the else arm is empty).
  const region_id then = b.reserve_regions(2);
  b.open_region(then, {}, {});
  rewrite();
  b.close_region();
  b.open_region(region_id{then.index + 1}, {}, {});
  b.close_region();
  b.create<cf::if_>({.cond = built(cond)}, then, {}, {}, loc);
}

/// Lowers the ops of region `r` into the open region; `yields` is the context of `r`'s trailing
/// yield (null for the function body).
template <recipe_set Recipes>
constexpr void lower_region(const function& f, region_id r, lowering& l, const match_context& ctx, yield_context* yields) {
  l.rw().clone_ops(r, [&](op_id o) {
    const op_node& n = f.op(o);
    const opcode c = n.code();
    // Explicit pipelines skip selection: its contract is enforced here too, in its words.
    if (is_terminator(c) && !has_trait(c, trait::exits_function) && yields != nullptr) {
      lower_yield(f, o, l, *yields);
      return true;
    }
    if (text why = op_contract_problem(f, o, ctx.kernel(), ctx.opts.rollout == rollout_kind::extended); !why.empty()) {
      l.fail(o, "lower", static_cast<text&&>(why));
      return true;
    }
    if (is_region_op(c)) {
      const auto body = [&](region_id inner, yield_context& y) { lower_region<Recipes>(f, inner, l, ctx, &y); };
      if (is_branch_op(c)) lower_if(f, o, l, body);
      else lower_loop(f, o, l, body);
      return true;
    }
    if (!is_tile_op(c)) return false;  // scalar ops and return are cloned with remapped operands
    // The recipes selection consulted: only the default rollout's unless the options extend it.
    const bool rollout_only = ctx.opts.rollout == rollout_kind::standard;
    l.declare_deferred(o, [&](op_id alloc) {
      if (const recipe_choice d = try_recipes<Recipes>(f, alloc, ctx, rollout_only)) d.chosen->rewrite(f, alloc, l);
    });
    recipe_choice choice = try_recipes<Recipes>(f, o, ctx, rollout_only);
    if (choice) {
      prefix_valid_state(f, o, l);
      guarded(f, o, l, [&] { choice.chosen->rewrite(f, o, l); });
      return true;
    }
    text why;
    if (choice.first_failed != nullptr) {
      why = text(choice.first_failed->name) << ": " << choice.reason;
    } else {
      why = text("no conversion recipe for '") << mnemonic(c) << "'";
      if (choice.stays) why << " (" << choice.stays->reason << ")";
      else if (choice.outside_rollout) why << " in the default rollout (its recipes need --rollout=extended)";
    }
    l.fail(o, "lower", static_cast<text&&>(why));
    return true;
  });
}

}  // namespace detail

namespace detail {
/// `lower_function`; with `written`, the output is verified as it is written and `*written`
/// holds what that found (the pass hands it to `buffer_errors`).
template <recipe_set Recipes>
constexpr result<function> lower_function(const function& f, const options& opts, const kernel_analyses& analyses,
                                          std::optional<written_check_result>* written) {
  result<function> r;
  // The storage closure is rechecked here even when automatic verification is off (unless
  // verify_tile_storage already found this very function clean).
  if (!analyses.storage_checked) r.errors = check_tile_storage(f, analyses, addressed(opts.planner));
  for (parameter_problem& p : kernel_parameter_problems(f)) r.fail(p.loc, "lower", static_cast<text&&>(p.reason));
  if (!r.ok()) return r;
  lowering l(f, opts, analyses);
  std::optional<written_buffer_check> check;
  if (written != nullptr) l.builder().observe(&check.emplace(l.builder().fn()));
  // The recipes read placement from the IR; it must be what the planner promised selection.
  const auto& allocs = analyses.storage.allocations();
  for (std::uint32_t a = 0; a < allocs.size(); ++a) {
    if (l.windows(a).empty()) continue;  // no Tile value lives there: nothing is declared
    if (addressed(opts.planner) && !allocs[a].address)
      l.fail(allocs[a].def, "lower", text("storage address not a static non-negative constant: run an addressed planner first"));
    if (!addressed(opts.planner) && allocs[a].address)
      l.fail(allocs[a].def, "lower",
             text("storage address given, but planner ")
                 << name(opts.planner) << " places storage itself: run the plan pass, which drops the address");
  }
  detail::lower_region<Recipes>(f, f.body, l, match_context{opts, &analyses}, nullptr);
  if (!l.errors().empty()) {
    r.errors = l.errors();
    return r;
  }
  // Last, as selection asks it, so a kernel outside the reference's rules fails for that reason.
  for (parameter_problem& p : kernel_abi_problems(f)) r.fail(p.loc, "lower", static_cast<text&&>(p.reason));
  if (!r.ok()) return r;
  r.value = l.rw().finish();
  l.builder().observe(nullptr);
  if (written != nullptr) *written = check->result(r.value);
  return r;
}
}  // namespace detail

/// Converts one device function with its shared analyses; the caller decides whether it
/// should be converted.
template <recipe_set Recipes = default_recipes>
constexpr result<function> lower_function(const function& f, const options& opts, const kernel_analyses& analyses) {
  return detail::lower_function<Recipes>(f, opts, analyses, nullptr);
}
template <recipe_set Recipes = default_recipes>
constexpr result<function> lower_function(const function& f, const options& opts) {
  return lower_function<Recipes>(f, opts, kernel_analyses(f));
}

/// The pass over a program. Kernels recorded as not selected stay Tile. Its output passes
/// `verify_buffer` or the pass fails with that verifier's diagnostics.
namespace detail {
constexpr bool converts(const function& f) {
  return f.is_device() && f.stage == ir_stage::tile && f.buffer_ir_selected.value_or(true);
}
}  // namespace detail

template <recipe_set Recipes = default_recipes>
constexpr result<program> lower_tile_to_buffer(const program& p, const options& opts, analysis_cache& cache) {
  result<program> r;
  r.value.file = p.file;
  std::vector<std::optional<written_check_result>> written(p.functions.size());
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    if (!detail::converts(f)) {
      r.value.functions.push_back(f);
      continue;
    }
    auto lowered = detail::lower_function<Recipes>(f, opts, cache.get(p, i), &written[i]);
    cache.invalidate(i);
    name_function(lowered.errors, f.name_of());
    for (auto& d : lowered.errors) r.errors.push_back(static_cast<diagnostic&&>(d));
    r.value.functions.push_back(static_cast<function&&>(lowered.value));
  }
  // The pass verifies its output (spec): hand-placed storage can pass every recipe and still
  // overlap in placed bytes, which only the Buffer storage proofs see. Whatever this returns as
  // success passes verify_buffer; the pipeline skips that pass right after this one. The
  // kernels it wrote were checked as they were written; the functions it passed on are
  // checked here.
  if (r.ok()) r.errors = buffer_errors(r.value, written);
  if (!r.ok()) r.value = program{};
  return r;
}
/// On a program the caller owns: each kernel's Buffer function replaces its Tile function as
/// soon as it is written, so only one kernel exists in both forms at a time. On failure `p` is
/// left partly lowered and `errors` says why; the pipeline then discards it.
template <recipe_set Recipes = default_recipes>
constexpr void lower_tile_to_buffer_in_place(program& p, const options& opts, analysis_cache& cache,
                                             std::vector<diagnostic>& errors) {
  std::vector<std::optional<written_check_result>> written(p.functions.size());
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    if (!detail::converts(p.functions[i])) continue;
    auto lowered = detail::lower_function<Recipes>(p.functions[i], opts, cache.get(p, i), &written[i]);
    cache.invalidate(i);
    name_function(lowered.errors, p.functions[i].name_of());
    for (auto& d : lowered.errors) errors.push_back(static_cast<diagnostic&&>(d));
    if (errors.empty()) p.functions[i] = static_cast<function&&>(lowered.value);
  }
  if (errors.empty()) errors = buffer_errors(p, written);
}
template <recipe_set Recipes = default_recipes>
constexpr result<program> lower_tile_to_buffer(const program& p, const options& opts) {
  analysis_cache cache;
  return lower_tile_to_buffer<Recipes>(p, opts, cache);
}

/// Declared, not included: the pipeline reads its `name` only where the registry
/// (passes/table.hpp) has defined it, and a pass file includes no other pass (docs/design.md).
struct verify_buffer_pass;

/// The pass as pass sets register it (passes/table.hpp). It verifies its own output, so
/// `verify_buffer` right after it has nothing to do.
struct lower_pass {
  static constexpr std::string_view name = "lower";
  static constexpr bool buffer_ir_only = true;
  static constexpr bool notes_kernels_left_tile = true;  // no silent Tile: each kernel left Tile says why
  using verified_by = verify_buffer_pass;
  template <recipe_set Recipes>
  static constexpr result<program> run(const program& p, const options& opts, analysis_cache& cache) {
    return lower_tile_to_buffer<Recipes>(p, opts, cache);
  }
  template <recipe_set Recipes>
  static constexpr void run_in_place(program& p, const options& opts, analysis_cache& cache, std::vector<diagnostic>& errors) {
    lower_tile_to_buffer_in_place<Recipes>(p, opts, cache, errors);
  }
};

}  // namespace v0
}  // namespace tile2buffer
