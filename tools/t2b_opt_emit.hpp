// SPDX-License-Identifier: Apache-2.0
/// @file tools/t2b_opt_emit.hpp
/// t2b-opt's output forms: the canonical text (with --print-locations its locations), the binary
/// IR, PTO-AS (--emit=pto, pto-generic, --verify-pto-roundtrip) and the --memory-map picture;
/// and writing them to -o.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/emit/memory_map.hpp"
#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/emit/pto_roundtrip.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/text/print.hpp"
#include "file_io.hpp"
#include "t2b_opt_diagnostics.hpp"
#include "t2b_opt_session.hpp"
#include "tool_error.hpp"

namespace t2b_opt {

using namespace tile2buffer;

/// Writes the tool's output to -o (stdout for '-'); 1 with the system's reason when it cannot.
inline int write_output(const cli_options& opts, std::string_view data) {
  if (t2b_tools::write_file(opts.output, data)) return 0;
  const int err = errno;  // read before the message's strings allocate
  return t2b_tools::tool_error("cannot write '" + opts.output + "': " + std::strerror(err));
}

/// The canonical text of `p`, with --print-locations its locations too.
inline text print_ir(const cli_options& opts, const program& p) {
  return opts.print_locations ? print(p, print_options{.locations = true}) : print(p);
}

/// Plans `prog` with the chosen planner (or all three) and writes the SVG. Why a separate run of
/// the pipeline up to `plan`: the normal output goes on to `lower`, which replaces the tile.alloc
/// ops the picture is read from; and --stop-after or --pass must not change what is drawn.
/// With --planner=all, a planner that cannot plan the program gets a column that says why, and
/// the others are still drawn; the map is not written only when no planner could plan it.
inline int write_memory_map(const session& s, const program& prog) {
  const cli_options& opts = s.opts;
  std::vector<memory_map_panel> panels;
  std::vector<diagnostic> failures;
  for (const planner_kind p : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
    if (!opts.all_planners && p != opts.pass_options.planner) continue;
    tile2buffer::options o = opts.pass_options;
    o.planner = p;
    result<program> planned = run_pipeline(prog, o, pass_id::plan, opts.workers);
    if (!planned) {
      if (!opts.all_planners) return report(s, planned.errors);
      memory_map_panel failed{p, {}};
      failed.failure << planned.errors.front().message.view();
      panels.push_back(static_cast<memory_map_panel&&>(failed));
      for (diagnostic& d : planned.errors) failures.push_back(static_cast<diagnostic&&>(d));
      continue;
    }
    panels.push_back(memory_map_of(planned.value, p, &prog));
  }
  if (failures.size() > 0 &&
      std::all_of(panels.begin(), panels.end(), [](const memory_map_panel& p) { return !p.failure.empty(); }))
    return report(s, failures);
  const text svg = render_memory_map(panels, s.display);
  if (!t2b_tools::write_file(opts.memory_map, svg.view())) {
    return t2b_tools::tool_error("cannot write the memory map to '" + opts.memory_map + "'");
  }
  return 0;
}

/// Whether --emit=pto must lower first: a device function is still at the Tile stage.
inline bool has_tile_kernel(const program& p) {
  for (const auto& f : p.functions)
    if (f.is_device() && f.stage != ir_stage::buffer) return true;
  return false;
}

/// Whether the output is PTO-AS (custom or generic form), which is emitted from Buffer IR.
inline bool writes_pto(const cli_options& opts) {
  using F = cli_options::output_format;
  return opts.format == F::pto || opts.format == F::pto_generic;
}

/// Writes `p` in the form --emit asks for (canonical text, the binary IR or PTO-AS) to -o, or to
/// the chunk's collected output. `lowered_all`: the passes that ran lowered, so a kernel still
/// Tile stayed Tile (and is remarked on when PTO-AS leaves it out); `left_tile`: the library's
/// remarks on those kernels.
inline int write_ir(session& s, const program& p, bool lowered_all, const std::vector<diagnostic>& left_tile) {
  const cli_options& opts = s.opts;
  using F = cli_options::output_format;
  text out;
  if (opts.format == F::binary) {
    const auto bin = serialize(p);
    if (!bin) return report(s, bin.errors);
    out.append(std::string_view(reinterpret_cast<const char*>(bin.value.data()), bin.value.size()));
  } else if (writes_pto(opts)) {
    // A whole program with at least one Buffer kernel: the kernels that stayed Tile are left
    // out, each with a remark saying why; with none, emission rejects them (nothing to emit).
    const bool skip = opts.pto_kernel.empty() && any_buffer_kernel(p);
    auto emitted = s.timed("emit", [&] {
      return emit_pto(p, pto_options{.generic = opts.format == F::pto_generic,
                                     .kernel = opts.pto_kernel,
                                     .target = opts.pass_options.target,
                                     .skip_tile_kernels = skip});
    });
    const auto stays_tile = [](const function& f) { return f.is_device() && f.stage != ir_stage::buffer; };
    const bool any_tile = std::any_of(p.functions.begin(), p.functions.end(), stays_tile);
    if (!emitted) {
      // Why the remarks first: a kernel that selection kept Tile is refused for the reason
      // `--lower` gives, which the emitter's error ("a Tile-stage kernel") does not repeat.
      if (lowered_all && any_tile)
        for (const diagnostic& d : left_tile) notice(s, not_emitted(d));
      return report(s, emitted.errors);
    }
    if (opts.verify_pto_roundtrip)
      if (const auto differ = s.timed(
              "pto roundtrip",
              [&] {
                return check_pto_roundtrip(
                    p, pto_options{.kernel = opts.pto_kernel, .target = opts.pass_options.target, .skip_tile_kernels = skip});
              });
          !differ.empty())
        return report(s, differ);
    if (skip && any_tile)
      for (const diagnostic& d : left_tile) notice(s, not_emitted(d));
    out = static_cast<text&&>(emitted.value);
  } else {
    out = s.timed("print", [&] { return print_ir(opts, p); });
  }
  if (s.collected_output != nullptr) {
    s.collected_output->append(out.view());
    return 0;
  }
  return write_output(opts, out.view());
}

}  // namespace t2b_opt
