// SPDX-License-Identifier: Apache-2.0
/// @file passes/pipeline.hpp
/// The pipeline: the passes of a pass set (passes/table.hpp; by default [materialize_native_scratch,
/// extended rollout only] -> init_storage -> select
/// -> legalize -> verify_tile_storage -> plan -> lower -> verify_buffer) in order, or a sequence
/// of them chosen by name at run time (`run_pass_pipeline`). Each pass takes `const program&` and
/// returns a new program or diagnostics. With `opts.verify` the structural verifier checks the
/// pipeline's input and its output once (the output is the program a `verifies_program` pass
/// such as `verify_buffer` checked, when that pass ran last); `opts.verify_each` adds a check
/// after every pass.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tile2buffer/detail/threads.hpp"
#include "tile2buffer/passes/pass.hpp"
#include "tile2buffer/passes/pipeline_api.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/passes/table.hpp"

namespace tile2buffer {
inline namespace v0 {

namespace detail {

/// One remark per device kernel of `p` still Tile once a lowering pass ran (`@k stays Tile:
/// reason`, at the op selection names), with `extended_rollout_hint` when only the rollout keeps
/// it Tile. Why it costs nothing by default: a program whose kernels were all lowered walks no op.
template <recipe_set Recipes>
constexpr void note_kernels_left_tile(const program& p, const options& opts, analysis_cache& cache,
                                      std::vector<diagnostic>& out) {
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    if (!f.is_device() || f.stage == ir_stage::buffer) continue;
    const selection_entry e = explain_function<Recipes>(f, opts, cache.get(p, i));
    if (e.selected) continue;  // selected but not lowered: the pass that lowers did not run on it
    text message = text("@") << f.name_of() << " stays Tile: " << stays_tile_reason(e);
    out.push_back(diagnostic{e.loc, text("lower"), static_cast<text&&>(message), {}, severity::remark, text(f.name_of())});
  }
}

/// The notices of pass `e` about the program it left, appended to `out`.
template <class Table>
constexpr void add_notices(const pass_entry& e, const program& after, const options& opts, analysis_cache& cache,
                           std::vector<diagnostic>& out) {
  if (e.notices != nullptr)
    for (diagnostic& d : e.notices(after, opts, cache)) out.push_back(static_cast<diagnostic&&>(d));
  if (e.notes_kernels_left_tile) note_kernels_left_tile<typename Table::recipes>(after, opts, cache, out);
}

/// The name of `p`'s only device function, or none. Why: an error of a pass that does not say
/// which function it checked, in IR built without locations (`<host>:0:0`), still names its
/// kernel when there is one; with more, a location does not tell (kernels may share lines).
constexpr text only_kernel(const program& p) {
  const function* only = nullptr;
  for (const function& f : p.functions) {
    if (!f.is_device()) continue;
    if (only != nullptr) return {};
    only = &f;
  }
  text name;  // not `?:` on two texts: g++-12 destroys one twice in constant evaluation
  if (only != nullptr) name = text(only->name_of());
  return name;
}

/// Hands `ds[from...]` to the host's handler, if it set one.
constexpr void tell(const pass_observer* observer, const std::vector<diagnostic>& ds, std::size_t from = 0) {
  if (observer == nullptr || observer->on_diagnostic == nullptr) return;
  for (std::size_t k = from; k < ds.size(); ++k) observer->on_diagnostic(observer->context, ds[k]);
}

}  // namespace detail

/// Runs one pass of the default set; `cache` holds the kernels' shared analyses of `p` (and of
/// the result, for the functions the pass left as they were). The result carries the pass's
/// notices (a kernel `lower` left Tile, plan's PTOAS warning).
template <recipe_set Recipes = default_recipes>
constexpr result<program> run_pass(pass_id id, const program& p, const options& opts, analysis_cache& cache) {
  using table = pass_table<default_passes, Recipes>;
  const pass_entry& e = table::entries[static_cast<std::size_t>(id)];
  result<program> r = e.run(p, opts, cache);
  if (r.ok()) detail::add_notices<table>(e, r.value, opts, cache, r.notices);
  else name_function(r.errors, detail::only_kernel(p).view());
  return r;
}
template <recipe_set Recipes = default_recipes>
constexpr result<program> run_pass(pass_id id, const program& p, const options& opts) {
  analysis_cache cache;
  return run_pass<Recipes>(id, p, opts, cache);
}

namespace detail {

/// A failed run: the diagnostics and no program (and the notices produced before it failed).
constexpr result<program> failure(std::vector<diagnostic>&& errors, std::vector<diagnostic>&& notices = {}) {
  result<program> failed;
  failed.errors = static_cast<std::vector<diagnostic>&&>(errors);
  failed.notices = static_cast<std::vector<diagnostic>&&>(notices);
  return failed;
}

/// The passes at positions `order` of the set's table, over the whole program. `last` is the
/// position in `order` of the last pass that ran (on failure, the failing one; `order.size()`
/// when none ran).
/// With `owned`, the run takes that program (`input` is it) as its own from the start, so the
/// first pass edits it in place or frees it as soon as it has built its successor.
template <class Table>
constexpr result<program> run_passes(const program& input, const options& opts, std::span<const std::size_t> order,
                                     std::size_t& last, const pass_observer* observer = nullptr, program* owned = nullptr) {
  // Why a pointer in the state: the input is read, never copied, until a pass builds a new
  // program; checking passes and in-place passes then work on that one (pass.hpp, `step`).
  analysis_cache cache;  // one per run: each kernel's analyses are computed once and handed on
  pass_state s{opts, cache, &input};
  if (owned != nullptr) {
    s.current.value = static_cast<program&&>(*owned);
    s.latest = &s.current.value;
  }
  std::vector<diagnostic> notices;
  const auto failed = [&](std::vector<diagnostic>& errors) {
    return failure(static_cast<std::vector<diagnostic>&&>(errors), static_cast<std::vector<diagnostic>&&>(notices));
  };
  last = order.size();
  for (std::size_t i = 0; i < order.size(); ++i) {
    const pass_entry& e = Table::entries[order[i]];
    const std::size_t told = notices.size();
    if (!opts.enable_buffer_ir && e.buffer_ir_only) {
      // Why still: with Buffer IR off a lowering pass leaves every kernel Tile, which it says.
      if (e.notes_kernels_left_tile) note_kernels_left_tile<typename Table::recipes>(*s.latest, opts, cache, notices);
      tell(observer, notices, told);
      continue;
    }
    if (opts.rollout == rollout_kind::standard && e.extended_rollout_only) continue;
    last = i;
    if (observer != nullptr && observer->before != nullptr) observer->before(observer->context, e.name);
    if (std::vector<diagnostic> errors = e.step(s); !errors.empty()) return failed(errors);
    add_notices<Table>(e, *s.latest, opts, cache, notices);
    tell(observer, notices, told);
    if (observer != nullptr && observer->after != nullptr) observer->after(observer->context, e.name, *s.latest);
    if (observer != nullptr && observer->check != nullptr)
      if (std::vector<diagnostic> errors = observer->check(observer->context, e.name, *s.latest); !errors.empty())
        return failed(errors);
  }
  if (s.latest == &input) s.current.value = input;
  s.current.notices = static_cast<std::vector<diagnostic>&&>(notices);
  return static_cast<result<program>&&>(s.current);
}

/// The passes over each device function on its own, on `workers` threads. Every pass treats
/// each function on its own, so the functions come out as the whole-program run gives them; the
/// diagnostics are those of the earliest failing pass, in function order, as that run reports.
/// Orchestration functions are left out: no pass changes them, and on its own one cannot verify
/// (its `submit` callees are other functions); the whole output is verified after the run.
template <class Table>
result<program> run_functions_in_parallel(const program& input, const options& opts, std::span<const std::size_t> order,
                                          unsigned workers, program* owned = nullptr) {
  const std::size_t n = input.functions.size();
  std::vector<result<program>> runs(n);
  std::vector<std::size_t> failed_at(n, order.size());
  std::size_t next = 0;
  auto work = [&] {
    for (std::size_t i = take_next(next); i < n; i = take_next(next)) {
      if (!input.functions[i].is_device()) continue;
      program one;
      one.file = input.file;
      // Each worker takes only its own function, so moving it out races with no other worker.
      if (owned != nullptr) one.functions.push_back(static_cast<function&&>(owned->functions[i]));
      else one.functions.push_back(input.functions[i]);
      std::size_t at = 0;
      runs[i] = run_passes<Table>(one, opts, order, at, nullptr, &one);
      if (!runs[i].ok()) failed_at[i] = at;
    }
  };
  run_on_threads(workers < n ? workers : static_cast<unsigned>(n), work);

  std::size_t first = order.size();
  for (const std::size_t at : failed_at) first = at < first ? at : first;
  result<program> out;
  for (result<program>& run : runs)  // in function order, as a sequential run produces them
    for (diagnostic& d : run.notices) out.notices.push_back(static_cast<diagnostic&&>(d));
  if (first != order.size()) {
    for (std::size_t i = 0; i < n; ++i)
      if (failed_at[i] == first)
        for (auto& d : runs[i].errors) out.errors.push_back(static_cast<diagnostic&&>(d));
    return out;
  }
  out.value.file = input.file;
  out.value.functions.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!runs[i].value.functions.empty()) out.value.functions.push_back(static_cast<function&&>(runs[i].value.functions.front()));
    else if (owned != nullptr) out.value.functions.push_back(static_cast<function&&>(owned->functions[i]));
    else out.value.functions.push_back(input.functions[i]);
  }
  return out;
}

/// Runs the passes at positions `order` of `Table` (see `run_pipeline`).
template <class Table>
constexpr result<program> run_sequence(const program& input, const options& opts, std::span<const std::size_t> order,
                                       parallelism par, const pass_observer* observer, program* owned = nullptr) {
  // Read before the run, which may take `input` over.
  const text only = only_kernel(input);
  if (opts.verify)
    if (std::vector<diagnostic> errors = verify<>(input); !errors.empty()) {
      tell(observer, errors);
      return failure(static_cast<std::vector<diagnostic>&&>(errors));
    }
  unsigned workers = par.workers;
  if (!std::is_constant_evaluated() && workers == 0) workers = hardware_threads();
  result<program> r;
  // Why: a `verifies_program` pass (verify_buffer) verifies the structure of the program it
  // leaves; verifying that same program again as the output found nothing new and was a fifth of
  // the pipeline. Only a whole-program run counts: a parallel run checks each function apart.
  bool output_checked = false;
  // Why not `const`: clang would evaluate a const bool's initializer as a constant expression
  // first, where is_constant_evaluated() is true (-Wconstant-evaluated).
  // A handler alone does not watch the passes, so it keeps the run parallel.
  const bool watched = observer != nullptr &&
                       (observer->before != nullptr || observer->after != nullptr || observer->check != nullptr);
  bool parallel = !(std::is_constant_evaluated() || workers <= 1 || opts.verify_each || watched || input.functions.size() < 2);
  if (!parallel) {
    std::size_t last = 0;
    r = run_passes<Table>(input, opts, order, last, observer, owned);
    output_checked = last < order.size() && Table::entries[order[last]].verifies_program;
  } else {
    r = run_functions_in_parallel<Table>(input, opts, order, workers, owned);
    tell(observer, r.notices);
  }
  // A parallel run verified each device function on its own when the last pass to run verifies
  // the program; the orchestration functions and the calls between functions are checked here,
  // as the whole-program run's `verify_buffer` checks them.
  bool buffer_checked = false;
  for (const std::size_t at : order)
    if (opts.enable_buffer_ir || !Table::entries[at].buffer_ir_only) buffer_checked = Table::entries[at].verifies_program;
  if (r.ok() && (opts.verify || (parallel && buffer_checked)) && !opts.verify_each && !output_checked)
    r.errors = verify<>(r.value);
  if (!r.ok()) r.value = program{};
  name_function(r.errors, only.view());
  tell(observer, r.errors);
  return r;
}

/// A failed run for a pass name the set does not know, naming the ones it does.
template <class Table>
constexpr result<program> unknown_pass(std::string_view name) {
  text message = text("unknown pass '") << name << "'; the passes are";
  for (std::size_t i = 0; i < Table::entries.size(); ++i) message << (i == 0 ? " " : ", ") << Table::entries[i].name;
  result<program> failed;
  failed.fail(location{}, "pipeline", message);
  return failed;
}

/// `run_pipeline` on `input`, or on `*owned` (which is `input`) taken over.
template <recipe_set Recipes, pass_set Passes>
constexpr result<program> run_whole_set(const program& input, program* owned, const options& opts,
                                        std::optional<pass_id> stop_after, parallelism par, const pass_observer* observer) {
  using table = pass_table<Passes, Recipes>;
  if constexpr (!table::checked) {
    return {};
  } else {
    std::array<std::size_t, table::entries.size()> order{};
    std::size_t count = order.size();
    for (std::size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
      if (stop_after && table::entries[i].name == name(*stop_after) && count == order.size()) count = i + 1;
    }
    return run_sequence<table>(input, opts, std::span<const std::size_t>(order.data(), count), par, observer, owned);
  }
}
}  // namespace detail

/// Runs the passes of `Passes` in order, optionally stopping after `stop_after` (a pass the set
/// does not hold: all of them). With `enable_buffer_ir` false only the passes that are not
/// `buffer_ir_only` run (storage initialization, selection recording "not selected", planning).
/// With more than one worker the functions are lowered concurrently (not in constant
/// evaluation, and not with `verify_each`, which checks the whole program between passes);
/// the result is byte-identical to one worker's. `observer` (optional) is told about each pass.
template <recipe_set Recipes = default_recipes, pass_set Passes = default_passes>
constexpr result<program> run_pipeline(const program& input, const options& opts, std::optional<pass_id> stop_after = {},
                                       parallelism par = {}, const pass_observer* observer = nullptr) {
  return detail::run_whole_set<Recipes, Passes>(input, nullptr, opts, stop_after, par, observer);
}
/// As above, taking `input` over: the run edits it in place, or frees it as soon as a pass has
/// built its successor, so a caller done with its program lowers it without a second copy.
template <recipe_set Recipes = default_recipes, pass_set Passes = default_passes>
constexpr result<program> run_pipeline(program&& input, const options& opts, std::optional<pass_id> stop_after = {},
                                       parallelism par = {}, const pass_observer* observer = nullptr) {
  return detail::run_whole_set<Recipes, Passes>(input, &input, opts, stop_after, par, observer);
}

/// Runs the passes of `Passes` named by `passes`, in that order (a pass may appear more than
/// once, or not at all: `{"init_storage", "select", "legalize", "verify_tile_storage", "lower",
/// "verify_buffer"}` lowers input whose storage is already placed). An unknown name fails with one
/// diagnostic listing the set's passes. Otherwise as `run_pipeline`.
template <recipe_set Recipes = default_recipes, pass_set Passes = default_passes>
constexpr result<program> run_pass_pipeline(const program& input, const options& opts, std::span<const std::string_view> passes,
                                            parallelism par = {}, const pass_observer* observer = nullptr) {
  using table = pass_table<Passes, Recipes>;
  if constexpr (!table::checked) {
    return {};
  } else {
    std::vector<std::size_t> order;
    order.reserve(passes.size());
    for (const std::string_view n : passes) {
      const std::size_t at = table::find(n);
      if (at == table::npos) return detail::unknown_pass<table>(n);
      order.push_back(at);
    }
    return detail::run_sequence<table>(input, opts, order, par, observer);
  }
}

}  // namespace v0
}  // namespace tile2buffer
