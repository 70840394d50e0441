// SPDX-License-Identifier: Apache-2.0
/// @file passes/pipeline.hpp
/// The default pipeline: init_storage -> select -> legalize -> verify_tile_storage -> plan ->
/// lower -> verify_buffer. Each pass takes `const program&` and returns a new program or
/// diagnostics. With `opts.verify` the structural verifier checks the pipeline's input and its
/// output once (the output is the program `verify_buffer` checked, when that pass ran last);
/// `opts.verify_each` adds a check after every pass.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <vector>

#include "tile2buffer/detail/threads.hpp"
#include "tile2buffer/passes/init_storage.hpp"
#include "tile2buffer/passes/legalize.hpp"
#include "tile2buffer/passes/lower.hpp"
#include "tile2buffer/passes/pipeline_api.hpp"
#include "tile2buffer/passes/plan.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/passes/verify_buffer.hpp"
#include "tile2buffer/passes/verify_tile_storage.hpp"

namespace tile2buffer {
inline namespace v0 {

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

namespace detail {

/// A failed run: the diagnostics and no program.
constexpr result<program> failure(std::vector<diagnostic>&& errors) {
  result<program> failed;
  failed.errors = static_cast<std::vector<diagnostic>&&>(errors);
  return failed;
}

/// The passes in order over the whole program. `last_pass` is the last pass that ran: on
/// failure, the failing one.
template <recipe_set Recipes>
constexpr result<program> run_passes(const program& input, const options& opts, std::optional<pass_id> stop_after,
                                     std::size_t& last_pass, const pass_observer* observer = nullptr) {
  result<program> current;
  // Why a pointer: the input is read, never copied, until a pass builds a new program; the two
  // checking passes leave the program as it is (their output would be a copy of their input),
  // so they run as checks. Same results, fewer whole-program copies.
  const program* latest = &input;
  analysis_cache cache;  // one per run: each kernel's analyses are computed once and handed on
  bool lower_verified = false;  // `lower` ran verify_buffer's checks on the program it returned
  for (std::size_t i = 0; i < pass_names.size(); ++i) {
    const auto id = static_cast<pass_id>(i);
    const bool buffer_only = id == pass_id::legalize || id == pass_id::verify_tile_storage || id == pass_id::lower ||
                             id == pass_id::verify_buffer;
    if (!opts.enable_buffer_ir && buffer_only) continue;
    last_pass = i;
    if (observer != nullptr && observer->before != nullptr) observer->before(observer->context, id);
    if (id == pass_id::verify_buffer && lower_verified && latest == &current.value) {
      // Nothing to do: `lower` verified exactly this program before returning it.
    } else if (id == pass_id::verify_tile_storage || id == pass_id::verify_buffer) {
      std::vector<diagnostic> errors =
          id == pass_id::verify_tile_storage ? tile_storage_errors(*latest, opts, cache) : buffer_errors(*latest);
      if (!errors.empty()) return failure(static_cast<std::vector<diagnostic>&&>(errors));
    } else if (latest == &current.value && (id == pass_id::select || id == pass_id::legalize || id == pass_id::plan)) {
      // The run owns the program a previous pass built, and these passes only annotate it (a
      // decision, addresses) or rewrite the few functions that need it: update it where it is
      // instead of copying it.
      std::vector<diagnostic> errors;
      lower_verified = false;
      if (id == pass_id::select) select_in_place<Recipes>(current.value, opts, cache);
      else if (id == pass_id::legalize) legalize_in_place(current.value, opts, cache);
      else plan_in_place(current.value, opts, cache, errors);
      if (errors.empty() && opts.verify_each) errors = verify(current.value);
      if (!errors.empty()) return failure(static_cast<std::vector<diagnostic>&&>(errors));
    } else {
      result<program> next = run_pass<Recipes>(id, *latest, opts, cache);
      if (next.ok() && opts.verify_each) next.errors = verify(next.value);
      if (!next.ok()) return failure(static_cast<std::vector<diagnostic>&&>(next.errors));
      current = static_cast<result<program>&&>(next);
      latest = &current.value;
      lower_verified = id == pass_id::lower;
    }
    if (observer != nullptr && observer->after != nullptr) observer->after(observer->context, id, *latest);
    if (stop_after && *stop_after == id) break;
  }
  if (latest == &input) current.value = input;
  return current;
}

/// The passes over each device function on its own, on `workers` threads. Every pass treats
/// each function on its own, so the functions come out as the whole-program run gives them; the
/// diagnostics are those of the earliest failing pass, in function order, as that run reports.
/// Orchestration functions are left out: no pass changes them, and on its own one cannot verify
/// (its `submit` callees are other functions); the whole output is verified after the run.
template <recipe_set Recipes>
result<program> run_functions_in_parallel(const program& input, const options& opts, std::optional<pass_id> stop_after,
                                          unsigned workers) {
  const std::size_t n = input.functions.size();
  std::vector<result<program>> runs(n);
  std::vector<std::size_t> failed_at(n, pass_names.size());
  std::size_t next = 0;
  auto work = [&] {
    for (std::size_t i = take_next(next); i < n; i = take_next(next)) {
      if (!input.functions[i].is_device()) continue;
      program one;
      one.file = input.file;
      one.functions.push_back(input.functions[i]);
      std::size_t at = 0;
      runs[i] = run_passes<Recipes>(one, opts, stop_after, at);
      if (!runs[i].ok()) failed_at[i] = at;
    }
  };
  run_on_threads(workers < n ? workers : static_cast<unsigned>(n), work);

  std::size_t first = pass_names.size();
  for (const std::size_t at : failed_at) first = at < first ? at : first;
  result<program> out;
  if (first != pass_names.size()) {
    for (std::size_t i = 0; i < n; ++i)
      if (failed_at[i] == first)
        for (auto& d : runs[i].errors) out.errors.push_back(static_cast<diagnostic&&>(d));
    return out;
  }
  out.value.file = input.file;
  out.value.functions.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.value.functions.push_back(input.functions[i].is_device() ? static_cast<function&&>(runs[i].value.functions.front())
                                                                 : input.functions[i]);
  return out;
}

}  // namespace detail

/// Runs the default pipeline, optionally stopping after `stop_after`. With `enable_buffer_ir`
/// false only storage initialization, selection (recording "not selected") and planning run.
/// With more than one worker the functions are lowered concurrently (not in constant
/// evaluation, and not with `verify_each`, which checks the whole program between passes);
/// the result is byte-identical to one worker's. `observer` (optional) is told about each pass.
template <recipe_set Recipes = default_recipes>
constexpr result<program> run_pipeline(const program& input, const options& opts, std::optional<pass_id> stop_after = {},
                                       parallelism par = {}, const pass_observer* observer = nullptr) {
  if (opts.verify)
    if (std::vector<diagnostic> errors = verify(input); !errors.empty()) return detail::failure(static_cast<std::vector<diagnostic>&&>(errors));
  unsigned workers = par.workers;
  if (!std::is_constant_evaluated() && workers == 0) workers = detail::hardware_threads();
  result<program> r;
  // Why: `verify_buffer` verifies the structure of the program it leaves; verifying that same
  // program again as the output found nothing new and was a fifth of the pipeline. Only a
  // whole-program run counts: a parallel run checks each function apart from the others.
  bool output_checked = false;
  // Why not `const`: clang would evaluate a const bool's initializer as a constant expression
  // first, where is_constant_evaluated() is true (-Wconstant-evaluated).
  bool parallel =
      !(std::is_constant_evaluated() || workers <= 1 || opts.verify_each || observer != nullptr || input.functions.size() < 2);
  if (!parallel) {
    std::size_t last_pass = 0;
    r = detail::run_passes<Recipes>(input, opts, stop_after, last_pass, observer);
    output_checked = last_pass == static_cast<std::size_t>(pass_id::verify_buffer);
  } else {
    r = detail::run_functions_in_parallel<Recipes>(input, opts, stop_after, workers);
  }
  // A parallel run verified each device function on its own when `verify_buffer` ran; the
  // orchestration functions and the calls between functions are checked here, as the
  // whole-program run's `verify_buffer` checks them.
  const bool buffer_checked = opts.enable_buffer_ir && (!stop_after || *stop_after == pass_id::verify_buffer);
  if (r.ok() && (opts.verify || (parallel && buffer_checked)) && !opts.verify_each && !output_checked) r.errors = verify(r.value);
  if (!r.ok()) r.value = program{};
  return r;
}

}  // namespace v0
}  // namespace tile2buffer
