// SPDX-License-Identifier: Apache-2.0
/// @file passes/select.hpp
/// Whole-kernel selection (SelectBufferIRFunctions): a device kernel is selected iff every op has
/// a default-rollout recipe whose match holds and the kernel-level rules hold. The decision is
/// recorded once in `buffer_ir_selected` and never recomputed; every kernel left Tile has a reason.
#pragma once

#include <string_view>
#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/op_contract.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/try_recipes.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/passes/pipeline_api.hpp"
#include "tile2buffer/recipe/table.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Why `fn` stays Tile under `opts` (empty reason when it is selected), ignoring any recorded
/// decision; `analyses` are the kernel's shared analyses.
template <recipe_set Recipes = default_recipes>
constexpr selection_entry evaluate_selection(const function& fn, const options& opts, const kernel_analyses& analyses) {
  selection_entry e{text(fn.name_of()), false, {}, fn.loc, false};
  const auto keep = [&](location loc, text why) {
    if (e.reason.empty()) {
      e.reason = static_cast<text&&>(why);
      e.loc = loc;
    }
  };
  if (!opts.enable_buffer_ir) keep(fn.loc, text("enable_buffer_ir is false"));
  const target_arch target = fn.target ? *fn.target : opts.target;
  if (target == target_arch::a5)
    keep(fn.loc, text("target a5 retains Tile IR until its default rollout has clean runtime acceptance"));
  for (const parameter_problem& p : kernel_parameter_problems(fn)) keep(p.loc, text(p.reason));
  const match_context ctx{opts, &analyses};
  walk(fn, [&](op_id o) {
    if (!e.reason.empty()) return;
    const op_node& n = fn.op(o);
    const opcode c = n.code();
    if (text why = op_contract_problem(fn, o, analyses, opts.rollout == rollout_kind::extended); !why.empty())
      return keep(fn.loc_of(o), static_cast<text&&>(why));
    if (!is_tile_op(c)) return;
    recipe_choice choice = try_recipes<Recipes>(fn, o, ctx, opts.rollout == rollout_kind::standard);
    if (choice) return;
    if (choice.stays && choice.first_failed == nullptr)
      return keep(fn.loc_of(o), text(mnemonic(c)) << ": " << choice.stays->reason);
    if (choice.first_failed == nullptr && choice.outside_rollout)
      return keep(fn.loc_of(o), text(mnemonic(c)) << ": not in the default rollout");
    if (choice.first_failed == nullptr) choice.reason = text("no conversion recipe for '") << mnemonic(c) << "'";
    keep(fn.loc_of(o), text(mnemonic(c)) << ": " << choice.reason);
  });
  if (e.reason.empty())
    walk(fn, [&](op_id o) {
      if (!has_trait(fn.op(o).code(), trait::exits_function) || !e.reason.empty()) return;
      const auto vals = fn.args(o);  // every operand of a return is a returned value
      for (std::size_t i = 0; i < vals.size() && i < fn.results.size(); ++i) {
        if (!fn.results[i].is_tensor()) continue;
        const value_id root = vals[i].is_value() ? gm_alias_root(fn, vals[i].value()) : value_id{};
        if (!root.valid() || fn.type_of(root) != fn.results[i])
          return keep(fn.loc_of(o), text("GM return aliases must resolve to parameters whose types match the declared results"));
      }
    });
  // Last, so a kernel that stays Tile for a reason of the reference keeps it: a kernel the PTO
  // preflight would refuse once lowered (a one-column GM parameter, a scalar result) stays Tile
  // with the preflight's words.
  for (const parameter_problem& p : kernel_abi_problems(fn)) keep(p.loc, text(p.reason));
  e.selected = e.reason.empty();
  return e;
}

/// As above, computing the kernel's analyses for this one question.
template <recipe_set Recipes = default_recipes>
constexpr selection_entry evaluate_selection(const function& fn, const options& opts) {
  return evaluate_selection<Recipes>(fn, opts, kernel_analyses(fn));
}

/// Whether a kernel the default rollout keeps Tile is one the extended rollout selects (false
/// under the extended rollout: there is no wider one to point at).
template <recipe_set Recipes = default_recipes>
constexpr bool extended_rollout_selects(const function& fn, const options& opts, const kernel_analyses& k) {
  if (opts.rollout != rollout_kind::standard) return false;
  options wider = opts;
  wider.rollout = rollout_kind::extended;
  return evaluate_selection<Recipes>(fn, wider, k).selected;
}

/// The decision on device Tile function `f`, the recorded one when there is one: what
/// `explain_selection` lists and the pipeline's stays-Tile remark says.
template <recipe_set Recipes = default_recipes>
constexpr selection_entry explain_function(const function& f, const options& opts, const kernel_analyses& k) {
  selection_entry e = evaluate_selection<Recipes>(f, opts, k);
  if (!e.selected) e.extended_lowers = extended_rollout_selects<Recipes>(f, opts, k);
  if (f.buffer_ir_selected && !*f.buffer_ir_selected && e.reason.empty())
    e.reason = text("recorded as not selected by an earlier selection");
  // Why only with Buffer IR enabled: with it off the pipeline lowers nothing, recorded or not.
  if (f.buffer_ir_selected && opts.enable_buffer_ir) e.selected = *f.buffer_ir_selected;
  return e;
}

/// One entry per device function in Tile stage: the recorded decision when there is one.
template <recipe_set Recipes = default_recipes>
constexpr std::vector<selection_entry> explain_selection(const program& p, const options& opts) {
  std::vector<selection_entry> out;
  for (const auto& f : p.functions) {
    if (!f.is_device()) continue;
    if (f.stage == ir_stage::buffer) out.push_back(selection_entry{text(f.name_of()), true, {}, f.loc, false});
    else out.push_back(explain_function<Recipes>(f, opts, kernel_analyses(f)));
  }
  return out;
}

/// The select pass: records `buffer_ir_selected` on device Tile functions that have none yet.
/// Recording the decision changes no op or value, so the kernels' analyses stay valid.
/// `select_in_place` records the decisions in `p` itself (the pipeline's own copy).
template <recipe_set Recipes = default_recipes>
constexpr void select_in_place(program& p, const options& opts, analysis_cache& cache) {
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    auto& f = p.functions[i];
    if (f.is_device() && f.stage == ir_stage::tile && !f.buffer_ir_selected)
      f.buffer_ir_selected = evaluate_selection<Recipes>(f, opts, cache.get(p, i)).selected;
  }
}
template <recipe_set Recipes = default_recipes>
constexpr result<program> select(const program& p, const options& opts, analysis_cache& cache) {
  result<program> r;
  r.value = p;
  select_in_place<Recipes>(r.value, opts, cache);
  return r;
}
template <recipe_set Recipes = default_recipes>
constexpr result<program> select(const program& p, const options& opts) {
  analysis_cache cache;
  return select<Recipes>(p, opts, cache);
}

/// The pass as pass sets register it (passes/table.hpp).
struct select_pass {
  static constexpr std::string_view name = "select";
  template <recipe_set Recipes>
  static constexpr result<program> run(const program& p, const options& opts, analysis_cache& cache) {
    return select<Recipes>(p, opts, cache);
  }
  template <recipe_set Recipes>
  static constexpr void run_in_place(program& p, const options& opts, analysis_cache& cache, std::vector<diagnostic>&) {
    select_in_place<Recipes>(p, opts, cache);
  }
};

}  // namespace v0
}  // namespace tile2buffer
