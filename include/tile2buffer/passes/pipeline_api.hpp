// SPDX-License-Identifier: Apache-2.0
/// @file passes/pipeline_api.hpp
/// The pipeline's interface types: its passes by name and in order, the worker count, and a
/// selection decision. Light on purpose: the separately compiled pipeline's declarations
/// (`lower.hpp` with `TILE2BUFFER_EXTERN_PIPELINE`) need them without the passes themselves.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tile2buffer/config.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/location.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The default pass set's passes (`default_passes`, passes/table.hpp, checks that these follow
/// it), for the pipeline's callers that stop after or run one of them.
// clang-format off
enum class pass_id : std::uint8_t {
  materialize_native_scratch, fold_matmul_if, init_storage, select, legalize, verify_tile_storage, plan, lower, verify_buffer
};
inline constexpr std::array<std::string_view, 9> pass_names{
    "materialize_native_scratch", "fold_matmul_if", "init_storage", "select", "legalize", "verify_tile_storage", "plan",
    "lower", "verify_buffer"};
// clang-format on
constexpr std::string_view name(pass_id p) { return pass_names[static_cast<std::size_t>(p)]; }
constexpr std::optional<pass_id> parse_pass(std::string_view s) {
  for (std::size_t i = 0; i < pass_names.size(); ++i)
    if (pass_names[i] == s) return static_cast<pass_id>(i);
  return std::nullopt;
}

/// How many threads lower a program's kernels. Not a member of `options`: every worker count
/// gives byte-identical output, so it must not split a compilation cache (`cache_key`).
/// `0` means one worker per hardware thread.
struct parallelism {
  unsigned workers = 1;
};

struct program;

/// Instrumentation around each pass that runs, in order (MLIR's pass instrumentation, for
/// `t2b-opt --timing` and `--print-after`). A pass is named by its `name` in its pass set, so a
/// host's own passes are observed too. `after` sees the program as the pass left it, also for
/// the checking passes. `check`, when set, is asked next about that program: the diagnostics it
/// returns fail the run as the pass's own would (an instrument that checks an invariant after
/// every pass, such as the binary round trip of serialize/roundtrip.hpp). Function pointers, not
/// a template: the separately compiled pipeline takes it too. A run observed by `before`, `after`
/// or `check` is sequential (one worker).
/// `on_diagnostic`, when set, is the host's diagnostic handler (MLIR's): it receives each warning
/// and remark as the run produces it (a parallel run hands them over once its workers are done,
/// in function order, on the calling thread), then each error of a failed run. The result still
/// carries them all (`notices`, `errors`); a handler alone keeps the run parallel.
///
///   struct sink { int warnings = 0; };
///   sink s;
///   const pass_observer handler{.context = &s, .on_diagnostic = [](void* c, const diagnostic& d) {
///     if (d.level == severity::warning) ++static_cast<sink*>(c)->warnings;
///   }};
///   result<program> r = run_pipeline(p, opts, std::nullopt, {}, &handler);
struct pass_observer {
  void* context = nullptr;
  void (*before)(void* context, std::string_view pass) = nullptr;
  void (*after)(void* context, std::string_view pass, const program& p) = nullptr;
  std::vector<diagnostic> (*check)(void* context, std::string_view pass, const program& p) = nullptr;
  void (*on_diagnostic)(void* context, const diagnostic& d) = nullptr;
};

/// One device function's selection: selected, or the first reason it stays Tile and where.
struct selection_entry {
  text function;
  bool selected = false;
  text reason;   ///< empty when selected
  location loc;  ///< where the reason applies
  /// Under the default rollout, a kernel it keeps Tile that the extended rollout selects: the
  /// user's one-flag way out, said beside the reason (`extended_rollout_hint`).
  bool extended_lowers = false;
};

/// What a stays-Tile reason adds when `selection_entry::extended_lowers` holds.
inline constexpr std::string_view extended_rollout_hint =
    "the extended rollout lowers it (t2b-opt --rollout=extended; Python: rollout=\"extended\")";

/// Why `e`'s kernel stays Tile as users read it: the reason, and the extended-rollout hint where
/// that rollout lowers it (t2b-opt's --explain-selection and remark, Python's explain_selection).
constexpr text stays_tile_reason(const selection_entry& e) {
  text out = e.reason;
  if (e.extended_lowers) out << "; " << extended_rollout_hint;
  return out;
}

}  // namespace v0
}  // namespace tile2buffer
