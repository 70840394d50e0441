// SPDX-License-Identifier: Apache-2.0
/// @file lower.hpp
/// The host entry point: everything a compiler needs to lower planned Tile IR to Buffer IR.
///
///   #include <tile2buffer/lower.hpp>
///   auto r = tile2buffer::lower(program, tile2buffer::options{.planner = tile2buffer::planner_kind::ptoas});
///   if (!r) for (auto& d : r.errors) std::cerr << tile2buffer::format(d, "k.t2b").view();
///
/// Two ways to build it (as fmt offers):
/// - header-only (the default): `lower` is a `constexpr` template, usable in constant
///   evaluation, and every translation unit that calls it compiles the whole pipeline;
/// - separately compiled: define `TILE2BUFFER_EXTERN_PIPELINE` in every translation unit and
///   include <tile2buffer/pipeline_instance.hpp> in exactly one `.cpp` (or link Meson's
///   `tile2buffer-pipeline` library, which is that `.cpp`). `lower.hpp` then declares the
///   default recipe set's `lower`, `run_pipeline`, `run_pass_pipeline`, `run_pass` and `explain_selection` as ordinary functions and does
///   not include the passes, so a caller compiles in about the time of the IR headers alone.
///   The other entry points a host calls are in the library too, each declared by its own header
///   beside its template: `parse`, `print`, `verify`, `structurally_equal`, `emit_pto`,
///   `serialize`, `deserialize`, `format`, `format_all` and `format_json`. Library code calls the templates (`verify<>(p)`), so it means
///   the same in either mode.
///   A host with its own recipe set or pass set includes <tile2buffer/passes/pipeline.hpp> and
///   calls `run_pipeline<its_recipes>` (or `run_pipeline<its_recipes, its_passes>`) as before.
/// Why not `extern template`: `lower` is `constexpr`, hence inline, and an explicit instantiation
/// declaration does not stop the implicit instantiation of an inline function ([temp.explicit]),
/// so it would save no compile time; a declared, non-inline function does.
#pragma once

#include "tile2buffer/config.hpp"
#if TILE2BUFFER_CXX20

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/options.hpp"
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/passes/pipeline_api.hpp"

#ifndef TILE2BUFFER_EXTERN_PIPELINE
#include "tile2buffer/passes/pipeline.hpp"
#include "tile2buffer/recipe/table.hpp"
#endif

namespace tile2buffer {
inline namespace v0 {

#ifdef TILE2BUFFER_EXTERN_PIPELINE

/// The default recipe set's pipeline, compiled once by <tile2buffer/pipeline_instance.hpp>.
/// Why a namespace named after the macro, and the macro on `lower`'s lines: these are run-time
/// calls, so calling one in constant evaluation (a `static_assert` on `lower`) is an error; g++
/// names the function called, namespace and all, and clang quotes its declaration's line, so the
/// host reads why in either. Leave the macro undefined in a TU that lowers in constant evaluation.
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
result<program> lower(const program& p, const options& opts, parallelism par = {});  // TILE2BUFFER_EXTERN_PIPELINE: run time only
result<program> lower(const program& p);                                             // TILE2BUFFER_EXTERN_PIPELINE: run time only
result<program> lower(program&& p, const options& opts, parallelism par = {});       // TILE2BUFFER_EXTERN_PIPELINE: run time only
result<program> run_pipeline(const program& input, const options& opts, std::optional<pass_id> stop_after = {},
                             parallelism par = {}, const pass_observer* observer = nullptr);
result<program> run_pipeline(program&& input, const options& opts, std::optional<pass_id> stop_after = {}, parallelism par = {},
                             const pass_observer* observer = nullptr);
result<program> run_pass(pass_id id, const program& p, const options& opts);
/// The default set's passes named by `passes`, in that order (see passes/pipeline.hpp).
result<program> run_pass_pipeline(const program& input, const options& opts, std::span<const std::string_view> passes,
                                  parallelism par = {}, const pass_observer* observer = nullptr);
std::vector<selection_entry> explain_selection(const program& p, const options& opts);
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::explain_selection;
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::lower;
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::run_pass;
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::run_pass_pipeline;
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::run_pipeline;

#else

/// Lowers a program with the default pipeline and recipe table (or a host's extended table).
/// Never modifies `p`; on failure the result holds located diagnostics and no program.
/// `par.workers` threads lower the kernels (one by default); the output does not depend on it.
template <recipe_set Recipes = default_recipes>
constexpr result<program> lower(const program& p, const options& opts, parallelism par = {}) {
  return run_pipeline<Recipes>(p, opts, std::nullopt, par);
}
/// As above, taking `p` over instead of copying it: the pipeline edits it in place, or frees it
/// once a pass has built its successor, so lowering holds no second copy of the input.
template <recipe_set Recipes = default_recipes>
constexpr result<program> lower(program&& p, const options& opts, parallelism par = {}) {
  return run_pipeline<Recipes>(static_cast<program&&>(p), opts, std::nullopt, par);
}
/// As above, with the options of the innermost `context::scope` on this thread.
template <recipe_set Recipes = default_recipes>
result<program> lower(const program& p) {
  return run_pipeline<Recipes>(p, context::current());
}

#endif

}  // namespace v0
}  // namespace tile2buffer

#endif  // TILE2BUFFER_CXX20
