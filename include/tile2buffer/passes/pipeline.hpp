// SPDX-License-Identifier: Apache-2.0
/// @file passes/pipeline.hpp
/// The default pipeline: init_storage -> select -> legalize -> verify_tile_storage -> plan ->
/// lower -> verify_buffer. Each pass takes `const program&` and returns a new program or
/// diagnostics; with `opts.verify` the structural verifier runs after every pass.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "tile2buffer/passes/init_storage.hpp"
#include "tile2buffer/passes/legalize.hpp"
#include "tile2buffer/passes/lower.hpp"
#include "tile2buffer/passes/plan.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/passes/verify_buffer.hpp"
#include "tile2buffer/passes/verify_tile_storage.hpp"

namespace tile2buffer {
inline namespace v0 {

enum class pass_id : std::uint8_t { init_storage, select, legalize, verify_tile_storage, plan, lower, verify_buffer };
inline constexpr std::array<std::string_view, 7> pass_names{"init_storage", "select",   "legalize",     "verify_tile_storage",
                                                            "plan",         "lower",    "verify_buffer"};
constexpr std::string_view name(pass_id p) { return pass_names[static_cast<std::size_t>(p)]; }
constexpr std::optional<pass_id> parse_pass(std::string_view s) {
  for (std::size_t i = 0; i < pass_names.size(); ++i)
    if (pass_names[i] == s) return static_cast<pass_id>(i);
  return std::nullopt;
}

/// Runs one pass; `cache` holds the kernels' shared analyses of `p` (and of the result, for
/// the functions the pass left as they were).
template <recipe_set Recipes = default_recipes>
constexpr result<program> run_pass(pass_id id, const program& p, const options& opts, analysis_cache& cache) {
  switch (id) {
    case pass_id::init_storage: return init_storage(p, opts, cache);
    case pass_id::select: return select<Recipes>(p, opts, cache);
    case pass_id::legalize: return legalize(p, opts, cache);
    case pass_id::verify_tile_storage: return verify_tile_storage(p, opts, cache);
    case pass_id::plan: return plan(p, opts, cache);
    case pass_id::lower: return lower_tile_to_buffer<Recipes>(p, opts, cache);
    case pass_id::verify_buffer: return verify_buffer(p, opts);
  }
  return {};
}
template <recipe_set Recipes = default_recipes>
constexpr result<program> run_pass(pass_id id, const program& p, const options& opts) {
  analysis_cache cache;
  return run_pass<Recipes>(id, p, opts, cache);
}

/// Runs the default pipeline, optionally stopping after `stop_after`. With `enable_buffer_ir`
/// false only storage initialization, selection (recording "not selected") and planning run.
template <recipe_set Recipes = default_recipes>
constexpr result<program> run_pipeline(const program& input, const options& opts, std::optional<pass_id> stop_after = {}) {
  result<program> current;
  // Why a pointer: the input is read, never copied, until a pass builds a new program; the two
  // checking passes leave the program as it is (their output would be a copy of their input,
  // already verified after the previous pass), so they run as checks. Same results, fewer
  // whole-program copies and one structural verification less.
  const program* latest = &input;
  analysis_cache cache;  // one per run: each kernel's analyses are computed once and handed on
  for (std::size_t i = 0; i < pass_names.size(); ++i) {
    const auto id = static_cast<pass_id>(i);
    const bool buffer_only = id == pass_id::legalize || id == pass_id::verify_tile_storage || id == pass_id::lower ||
                             id == pass_id::verify_buffer;
    if (!opts.enable_buffer_ir && buffer_only) continue;
    if (id == pass_id::verify_tile_storage || id == pass_id::verify_buffer) {
      std::vector<diagnostic> errors =
          id == pass_id::verify_tile_storage ? tile_storage_errors(*latest, cache) : buffer_errors(*latest);
      if (!errors.empty()) {
        result<program> failed;
        failed.errors = static_cast<std::vector<diagnostic>&&>(errors);
        return failed;
      }
    } else {
      result<program> next = run_pass<Recipes>(id, *latest, opts, cache);
      if (next.ok() && opts.verify) next.errors = verify(next.value);
      if (!next.ok()) {
        next.value = program{};
        return next;
      }
      current = static_cast<result<program>&&>(next);
      latest = &current.value;
    }
    if (stop_after && *stop_after == id) break;
  }
  if (latest == &input) current.value = input;
  return current;
}

}  // namespace v0
}  // namespace tile2buffer
