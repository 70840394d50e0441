// SPDX-License-Identifier: Apache-2.0
/// @file tools/t2b_opt_pipeline.hpp
/// How t2b-opt runs the passes its flags ask for: the default pipeline, --pass-pipeline, --pass,
/// --stop-after and --emit=tile, --explain-selection, and what watches the passes (--timing,
/// the --print-* flags, --verify-roundtrip).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/serialize/roundtrip.hpp"
#include "t2b_opt_diagnostics.hpp"
#include "t2b_opt_emit.hpp"
#include "t2b_opt_session.hpp"

namespace t2b_opt {

using namespace tile2buffer;

/// Whether the passes that ran include `lower`, so a kernel still Tile afterwards stayed Tile.
inline bool ran_lower(const cli_options& opts) {
  if (!opts.pipeline || opts.explain_selection) return false;  // --explain-selection says why itself
  if (opts.single_pass) return *opts.single_pass == pass_id::lower;
  std::optional<pass_id> stop = opts.stop_after;
  if (opts.emit_tile) stop = pass_id::plan;
  if (opts.pass_pipeline.empty()) return !stop || *stop >= pass_id::lower;  // the default order
  const auto lower_at = std::find(opts.pass_pipeline.begin(), opts.pass_pipeline.end(), name(pass_id::lower));
  if (lower_at == opts.pass_pipeline.end()) return false;
  return !stop || std::find(opts.pass_pipeline.begin(), lower_at, name(*stop)) == lower_at;
}

/// --timing and the --print-* flags see the pipeline through its pass observer.
struct pass_watch {
  session& s;
  const program& input;
  std::chrono::steady_clock::time_point t0{};
  std::string_view current;  ///< the pass running now (or the last one that ran)
  std::string last;          ///< the program as the last pass left it (the input before any), printed
  bool have_last = false;

  /// The program the next pass starts from, printed; only the --print-* flags that compare or
  /// look back pay for it.
  const std::string& last_text() {
    if (!have_last) {
      last = std::string(print_ir(s.opts, input).view());
      have_last = true;
    }
    return last;
  }
  void dump(std::string_view header, std::string_view pass, std::string_view ir) const {
    text out;
    out << "# -----// IR " << header << ' ' << pass << " //----- #\n";
    std::fwrite(out.view().data(), 1, out.size(), stderr);
    std::fwrite(ir.data(), 1, ir.size(), stderr);
  }
  static void before(void* self, std::string_view pass) {
    auto& w = *static_cast<pass_watch*>(self);
    const cli_options& o = w.s.opts;
    w.current = pass;
    if (o.print_before_all || (o.print_before && name(*o.print_before) == pass)) w.dump("before", pass, w.last_text());
    w.t0 = std::chrono::steady_clock::now();
  }
  static void after(void* self, std::string_view pass, const program& p) {
    auto& w = *static_cast<pass_watch*>(self);
    const cli_options& o = w.s.opts;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - w.t0).count();
    if (o.timing) w.s.times.emplace_back(std::string(pass), secs);
    const bool wanted = o.print_after_all || (o.print_after && name(*o.print_after) == pass);
    const bool keep = o.print_before_all || o.print_before || o.print_after_change || o.print_after_failure;
    if (!wanted && !keep) return;
    std::string now(print_ir(o, p).view());
    if (wanted && !(o.print_after_change && now == w.last_text())) w.dump("after", pass, now);
    if (keep) {
      w.last = static_cast<std::string&&>(now);
      w.have_last = true;
    }
  }
};

/// Runs the requested passes; prints the selection explanation when asked. With `consume` the
/// default pipeline takes `prog` over (the caller is done with it), so no second copy is held.
inline result<program> run_passes(session& s, program& prog, bool consume) {
  const cli_options& opts = s.opts;
  if (opts.single_pass) {
    result<program> r = run_pass(*opts.single_pass, prog, opts.pass_options);
    if (r.ok() && (opts.pass_options.verify || opts.pass_options.verify_each)) r.errors = verify(r.value);
    if (r.ok() && opts.verify_roundtrip) {
      r.errors = check_binary_roundtrip(r.value, name(*opts.single_pass));
      if (r.ok())
        remark(s, location{},
               (text("--verify-roundtrip: the binary form kept the program after pass ") << name(*opts.single_pass)).view());
    }
    return r;
  }
  if (opts.explain_selection) {
    // Selection is explained on the program as the pipeline's select pass sees it.
    result<program> before = run_pipeline(prog, opts.pass_options, pass_id::init_storage);
    if (!before) return before;
    text lines;
    for (const auto& e : explain_selection(before.value, opts.pass_options)) {
      lines << '@' << e.function << ": ";
      if (e.selected) lines << "selected\n";
      else
        lines << "stays Tile: " << static_cast<std::int64_t>(e.loc.line) << ':' << static_cast<std::int64_t>(e.loc.col) << ": "
              << stays_tile_reason(e) << '\n';
    }
    std::fwrite(lines.view().data(), 1, lines.size(), stdout);
  }
  std::optional<pass_id> stop = opts.stop_after;
  if (opts.emit_tile) stop = pass_id::plan;
  pass_watch watch{s, prog, {}, {}, {}, false};
  const pass_observer watching{.context = &watch, .before = &pass_watch::before, .after = &pass_watch::after};
  const bool watched = opts.timing || opts.prints_passes();
  // --verify-roundtrip: the instrument sees every pass after the watch does.
  binary_roundtrip_instrument roundtrip{.inner = watched ? &watching : nullptr};
  const pass_observer checking = roundtrip.observer();
  const bool observed = watched || opts.verify_roundtrip;
  const pass_observer& observer = opts.verify_roundtrip ? checking : watching;
  const std::size_t first = s.times.size();
  const auto t0 = std::chrono::steady_clock::now();
  result<program> r;
  if (opts.pass_pipeline.empty()) {
    r = consume
            ? run_pipeline(static_cast<program&&>(prog), opts.pass_options, stop, opts.workers, observed ? &observer : nullptr)
            : run_pipeline(prog, opts.pass_options, stop, opts.workers, observed ? &observer : nullptr);
  } else {
    // --stop-after (or --emit=tile) ends the list after the first run of that pass.
    auto end = opts.pass_pipeline.end();
    if (stop) end = std::find(opts.pass_pipeline.begin(), end, name(*stop)) + 1;
    const std::vector<std::string_view> passes(opts.pass_pipeline.begin(), end);
    r = run_pass_pipeline(prog, opts.pass_options, passes, opts.workers, observed ? &observer : nullptr);
  }
  if (r.ok() && opts.verify_roundtrip) {
    text checked("--verify-roundtrip: the binary form kept the program after every pass (");
    for (std::size_t i = 0; i < roundtrip.checked.size(); ++i) checked << (i > 0 ? ", " : "") << roundtrip.checked[i];
    checked << ')';
    remark(s, location{}, checked.view());
  }
  // Passes are all-or-nothing: the IR at a failure is the one the failing pass started from.
  if (!r.ok() && opts.print_after_failure && !watch.current.empty())
    watch.dump("after failure of", watch.current, watch.last_text());
  if (opts.timing) {
    // What the pipeline spent outside its passes: verifying its input and output.
    double rest = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (std::size_t i = first; i < s.times.size(); ++i) rest -= s.times[i].second;
    s.times.emplace_back("pipeline verification (input, output)", rest > 0 ? rest : 0.0);
  }
  return r;
}

}  // namespace t2b_opt
