// SPDX-License-Identifier: Apache-2.0
/// @file tools/t2b_opt_lists.hpp
/// t2b-opt's listings of what the library holds, each generated from the library's own tables:
/// --list-recipes (docs/recipes.md is generated from it), --list-ops (docs/ops.md) and
/// --list-passes (the docs' pass lists are checked against it: tests/infra/docs_from_tables.py).
#pragma once

#include <cstddef>
#include <cstdio>
#include <iterator>
#include <string_view>
#include <utility>

#include "tile2buffer/engine/registry.hpp"
#include "tile2buffer/passes/pipeline_api.hpp"
#include "tile2buffer/recipe/table.hpp"
#include "tile2buffer/sim/compare.hpp"

namespace t2b_opt {

using namespace tile2buffer;

/// --list-recipes: the default recipe set, one line per recipe or stays-Tile entry, in op order;
/// each recipe names its tier ("rollout default": every rollout; "rollout extended": only
/// --rollout=extended consults it).
inline int list_recipes() {
  using reg = registry<default_recipes>;
  text out;
  for (std::size_t c = 0; c < opcode_count; ++c) {
    const auto op = static_cast<opcode>(c);
    if (!is_tile_op(op)) continue;
    for (const recipe_entry& r : reg::candidates(op)) {
      out << mnemonic(op) << ": " << r.name << ", benefit " << r.benefit;
      if (!r.dtypes.empty()) {
        out << ", dtypes";
        for (const dtype d : r.dtypes) out << ' ' << name(d);
      }
      out << ", rollout " << (r.default_rollout ? "default" : "extended");
      out << '\n';
    }
    if (const stays_tile_info* why = reg::stays_tile_reason(op)) out << mnemonic(op) << ": stays Tile: " << why->reason << '\n';
  }
  std::fwrite(out.view().data(), 1, out.size(), stdout);
  return 0;
}

/// What each pass of the default set does, in the set's order, for --list-passes. Why here and
/// not beside each pass: a pass type carries no description, and the pass headers are the
/// pipeline's (this tool compiles without them, TILE2BUFFER_EXTERN_PIPELINE). The names are
/// checked against `pass_names`, so a pass added to the set stops this build until it has a line.
struct pass_summary {
  std::string_view pass;
  std::string_view summary;
};
inline constexpr pass_summary pass_summaries[] = {
    {"materialize_native_scratch",
     "give each native row reduction and row-broadcast op its scratch tile (tile.create); only under --rollout=extended"},
    {"fold_matmul_if",
     "fold an if choosing tile.matmul or tile.matmul_acc on the same operands into tile.matmul_acc(init_cond); only under "
     "--rollout=extended"},
    {"init_storage",
     "give an unplanned device function storage: one allocation per Tile value, shared where a result is in place"},
    {"select", "decide per device kernel whether it lowers to Buffer IR, and record why a kernel stays Tile"},
    {"legalize",
     "make the storage of selected kernels lowerable: distinct recip destinations, assemble snapshots, region boundaries"},
    {"verify_tile_storage", "check the storage facts lowering relies on (a checking pass)"},
    {"plan", "place every allocation with the chosen planner (--planner); fail when a memory space overflows"},
    {"lower", "rewrite each selected kernel into Buffer IR through the recipe set (--list-recipes)"},
    {"verify_buffer", "check the Buffer IR: descriptors, window provenance and the storage proofs (a checking pass)"},
};
constexpr bool summaries_follow_pass_names() {
  if (std::size(pass_summaries) != pass_names.size()) return false;
  for (std::size_t i = 0; i < pass_names.size(); ++i)
    if (pass_summaries[i].pass != pass_names[i]) return false;
  return true;
}
static_assert(
    summaries_follow_pass_names(),
    "pass_summaries must give each pass of default_passes (pass_names, passes/pipeline_api.hpp) one line, in its order");

/// --list-passes: `NAME: summary`, one line per pass of the default pipeline, in the order it runs
/// them (what --pass-pipeline takes, and what --lower runs).
inline int list_passes() {
  text out;
  for (std::size_t i = 0; i < pass_names.size(); ++i) out << pass_names[i] << ": " << pass_summaries[i].summary << '\n';
  std::fwrite(out.view().data(), 1, out.size(), stdout);
  return 0;
}

/// --list-ops: every op record, one line each, fields separated by tabs: mnemonic, dialect,
/// operands (`name:kind`), keywords, results, regions, traits, in_place_of, writes,
/// disjoint_from, extent_of, scratch, infix spelling, summary, and the simulators with a model of
/// the op (`tile`, `buffer`, both space-separated; read from the model sets, sim/model_table.hpp).
/// Empty fields print as `-`.
inline int list_ops() {
  constexpr std::string_view dialects[] = {"scalar", "control", "orchestration", "tile", "buffer"};
  // clang-format off
  constexpr std::pair<trait, std::string_view> traits[] = {
      {trait::relabel, "relabel"},       {trait::window, "window"},
      {trait::allocates, "allocates"},   {trait::moves_valid_data, "moves_valid_data"},
      {trait::side_effects, "side_effects"}, {trait::terminator, "terminator"},
      {trait::exits_function, "exits_function"}, {trait::loop, "loop"},
      {trait::condition_region, "condition_region"}, {trait::spmd_query, "spmd_query"},
      {trait::comparison, "comparison"}, {trait::may_alias_exactly, "may_alias_exactly"}};
  // clang-format on
  const auto field = [](text& out, std::string_view s) { out << '\t' << (s.empty() ? std::string_view("-") : s); };
  text out;
  for (std::size_t c = 0; c < opcode_count; ++c) {
    const op_record& r = info(static_cast<opcode>(c));
    out << r.mnemonic;
    field(out, dialects[static_cast<std::size_t>(r.dia)]);
    field(out, r.operands);
    text kws;
    for (std::size_t k = 0; k < keyword_names.size(); ++k)
      if ((r.keywords & kw_bit(static_cast<keyword>(k))) != 0) kws << (kws.size() ? " " : "") << keyword_names[k];
    field(out, kws.view());
    field(out, arity_names[static_cast<std::size_t>(r.results)]);
    out << '\t' << static_cast<unsigned>(r.regions);
    text ts;
    for (const auto& [t, n] : traits)
      if (r.has(t)) ts << (ts.size() ? " " : "") << n;
    field(out, ts.view());
    field(out, r.in_place_of);
    field(out, r.writes);
    field(out, r.disjoint_from);
    field(out, r.extent_of);
    field(out, r.scratch);
    field(out, r.infix);
    field(out, r.summary);
    text sims;
    if (sim::has_model<sim::tile_models>(static_cast<opcode>(c))) sims << "tile";
    if (sim::has_model<sim::buffer_models>(static_cast<opcode>(c))) sims << (sims.size() ? " " : "") << "buffer";
    field(out, sims.view());
    // The family and its parameters (ir/op_record.hpp), then the result rule.
    field(out, family_name(r.family));
    text params;
    const auto param = [&](std::string_view key, std::string_view value) {
      if (!value.empty()) params << (params.size() ? " " : "") << key << '=' << value;
    };
    if (r.ew != ew_kind::none) param("ew", ew_kind_names[static_cast<std::size_t>(r.ew)]);
    if (r.fn != scalar_fn::none) param("fn", scalar_fn_names[static_cast<std::size_t>(r.fn)]);
    if (r.combine != no_opcode) param("combine", mnemonic(r.combine));
    if (r.then != no_opcode) param("then", mnemonic(r.then));
    param("native", r.native);
    field(out, params.view());
    text result;
    result << result_rule_name(r.result);
    if (!r.result_like.empty()) result << '(' << r.result_like << ')';
    field(out, result.view());
    out << '\n';
  }
  std::fwrite(out.view().data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace t2b_opt
