// SPDX-License-Identifier: Apache-2.0
/// @file tools/t2b_opt_diagnostics.hpp
/// What t2b-opt reports about the IR: errors (`report`), remarks and warnings (`notice`), on
/// stderr as text or --diagnostics=json, or captured for --verify-diagnostics; and the two
/// notices the driver adds to the library's own (kernels that stay Tile, ptoas overflow).
/// The tool's own errors (unreadable files, bad flags) are tools/tool_error.hpp's.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/emit/memory_map.hpp"
#include "tile2buffer/lower.hpp"
#include "t2b_opt_session.hpp"
#include "tool_error.hpp"

namespace t2b_opt {

using namespace tile2buffer;

inline int report(const session& s, const std::vector<diagnostic>& errors) {
  if (s.captured != nullptr) {
    s.captured->insert(s.captured->end(), errors.begin(), errors.end());
    return 1;
  }
  if (s.opts.diagnostics_json) {
    for (const diagnostic& d : errors) t2b_tools::json_add(d, s.display);
    return 1;
  }
  const text t = format_all(errors, s.display, s.source);
  std::fwrite(t.view().data(), 1, t.size(), stderr);
  return 1;
}

/// A remark or warning, `file:line:col: KIND: text` on stderr (`file: KIND: text` without a
/// location; remarks only without --quiet);
/// collected instead under --verify-diagnostics, where `expected-KIND` matches it.
inline void notice(const session& s, std::string_view kind, location loc, std::string_view message) {
  if (s.notices != nullptr) {
    s.notices->push_back(diagnostic{loc, text(kind), text(message), {}});
    return;
  }
  if (s.opts.quiet && kind == "remark") return;
  if (t2b_tools::json_errors) {
    t2b_tools::json_add(
        diagnostic{loc, text("t2b-opt"), text(message), {}, kind == "remark" ? severity::remark : severity::warning}, s.display);
    return;
  }
  if (!loc.known()) {  // about the whole input
    std::fprintf(stderr, "%s: %.*s: %.*s\n", s.display.c_str(), static_cast<int>(kind.size()), kind.data(),
                 static_cast<int>(message.size()), message.data());
    return;
  }
  std::fprintf(stderr, "%s:%u:%u: %.*s: %.*s\n", s.display.c_str(), loc.line, loc.col, static_cast<int>(kind.size()), kind.data(),
               static_cast<int>(message.size()), message.data());
}
inline void remark(const session& s, location loc, std::string_view message) { notice(s, "remark", loc, message); }

/// PTOAS places storage itself, so the plan cannot fail here; warn where the bytes live at once in
/// a memory space exceed it (the addressed planners report the same case as an error).
inline void warn_ptoas_overflow(const session& s, const program& input) {
  const result<program> planned = run_pipeline(input, s.opts.pass_options, pass_id::plan, s.opts.workers);
  if (!planned) return;  // the pipeline's own run reports it
  for (const memory_map_kernel& k : memory_map_of(planned.value, planner_kind::ptoas).kernels) {
    const function* f = planned.value.find(k.name.view());
    if (f == nullptr) continue;
    const program_order order(*f);
    for (std::size_t si = 0; si < tile2buffer::detail::space_names.size(); ++si) {  // every space, as the memory map walks them
      const auto space = static_cast<memory_space>(si);
      const memory_space_usage use = usage_of(k, space);
      const std::int64_t peak = use.live_bound;
      const std::uint32_t at = use.live_bound_at;
      if (peak <= space_capacity(space) || at >= order.size()) continue;
      const op_node& where = f->op(order.ops()[at]);
      text message;
      message << '@' << k.name << ": planner ptoas: " << peak << " bytes are live in " << name(space)
              << " at once here, more than its " << space_capacity(space) << " bytes (pypto and dsa_rp cannot place it)";
      notice(s, "warning", where.loc, message.view());
    }
  }
}

/// One remark per device kernel of `lowered` that is still Tile, with the reason selection gives
/// (`@row_max stays Tile: ...`); `what` follows "stays Tile" (", not emitted" for PTO-AS).
inline void remark_tile_kernels(const session& s, const program& lowered, std::string_view what) {
  const auto stayed = [&](std::string_view name) {
    const function* f = lowered.find(name);
    return f != nullptr && f->is_device() && f->stage != ir_stage::buffer;
  };
  for (const selection_entry& e : explain_selection(lowered, s.opts.pass_options)) {
    if (e.selected || !stayed(e.function.view())) continue;  // selected but not lowered: select did not run
    std::string_view why = e.reason.view();
    if (why.empty()) why = "recorded as not selected";
    text message;
    message << '@' << e.function << " stays Tile" << what << ": " << why;
    remark(s, e.loc, message.view());
  }
}

}  // namespace t2b_opt
