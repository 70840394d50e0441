// SPDX-License-Identifier: Apache-2.0
/// @file t2b-opt.cpp
/// The `mlir-opt`-style driver: reads a `.t2b` file (or stdin), parses and verifies it, and
/// prints the canonical text. Exit codes: 0 success, 1 input errors, 2 bad command line.
/// This file is the driver's flow (read, parse, verify, run the passes, write, per chunk); each
/// concern has its header: the command line (t2b_opt_options.hpp), one run's state and --timing
/// (t2b_opt_session.hpp), diagnostics (t2b_opt_diagnostics.hpp), the passes
/// (t2b_opt_pipeline.hpp), output forms (t2b_opt_emit.hpp), --check-numerics
/// (t2b_opt_numerics.hpp), --run (t2b_opt_run.hpp) and the --list-* listings (t2b_opt_lists.hpp).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/text/parse.hpp"
#include "file_io.hpp"
#include "split_verify.hpp"
#include "t2b_opt_diagnostics.hpp"
#include "t2b_opt_emit.hpp"
#include "t2b_opt_lists.hpp"
#include "t2b_opt_numerics.hpp"
#include "t2b_opt_options.hpp"
#include "t2b_opt_pipeline.hpp"
#include "t2b_opt_run.hpp"
#include "t2b_opt_session.hpp"
#include "tool_error.hpp"

namespace {

using namespace tile2buffer;
using namespace t2b_opt;

int run_session(session& s);
int run_chunks(const cli_options& opts, session& whole);

/// Reads the input, runs the session and reports --timing.
int run(const cli_options& opts) {
  const std::string path = opts.inputs.empty() ? std::string("-") : opts.inputs.front();
  session s{opts, path == "-" ? std::string("<stdin>") : path, {}, {}, nullptr, nullptr};
  const std::size_t cap = opts.limits.max_file_size;
  t2b_tools::mapped_file mapped;
  std::string read;
  if (path != "-" && mapped.map(path, cap)) {
    s.source = mapped.view();
    s.mapped = &mapped;
  } else if (path == "-" ? t2b_tools::read_all(stdin, read, cap) : t2b_tools::read_file(path, read, cap)) {
    s.source = read;
  } else {
    const int err = errno;
    return t2b_tools::tool_error("cannot read '" + s.display + "': " + std::strerror(err), s.display);
  }
  const int rc = opts.split_input_file || opts.verify_diagnostics ? run_chunks(opts, s) : run_session(s);
  if (opts.timing) print_timing(s);
  return rc;
}

/// The work itself: parse, verify, run passes when asked, print.
int run_session(session& s) {
  const cli_options& opts = s.opts;
  // Binary IR is recognized by its envelope header; anything else is read as .t2b text.
  const bool binary = is_binary(s.source);
  if (s.source.size() > opts.limits.max_file_size) {
    // Only the first max_file_size + 1 bytes were read: enough to know, for text and binary alike.
    s.source = {};
    return report(s, std::vector<diagnostic>{input_too_large(opts.limits.max_file_size)});
  }
  result<program> parsed =
      s.timed("parse", [&] { return binary ? deserialize(s.source) : parse(s.source, s.display, opts.limits); });
  if (binary) s.source = {};                     // no source lines to show under diagnostics
  if (s.mapped != nullptr) s.mapped->release();  // only a diagnostic's source line reads it again
  if (!parsed) return report(s, parsed.errors);
  const bool pto = writes_pto(opts);
  // PTO-AS is emitted from Buffer IR: a Tile-stage input is lowered first, with the default options.
  const bool lowers = opts.pipeline || (pto && has_tile_kernel(parsed.value));
  // Why skip: the pipeline verifies its input first and reports what this would, so verifying
  // here too was a second full walk. Only the pipeline's plain entry verifies before any work.
  const bool pipeline_verifies = lowers && opts.pass_options.verify && !opts.single_pass && !opts.explain_selection &&
                                 opts.memory_map.empty() && !opts.check_numerics_seed && !opts.run.active;
  if (!pipeline_verifies)
    if (const auto errors = s.timed("verify", [&] { return verify(parsed.value); }); !errors.empty()) return report(s, errors);
  const program tile_input = opts.check_numerics_seed || opts.run.active ? parsed.value : program{};
  if (!opts.memory_map.empty())
    if (const int rc = write_memory_map(s, parsed.value); rc != 0) return rc;
  bool lowered_all = false;           ///< the passes that ran lowered: a kernel still Tile stayed Tile
  std::vector<diagnostic> left_tile;  ///< the library's remarks on the kernels lowering left Tile
  if (lowers) {
    // The pipeline may take the parsed program over unless something below reads it again.
    result<program> lowered = run_passes(s, parsed.value, !opts.prints_passes());
    // Without a pipeline flag the PTO-AS output lowered with the whole default pipeline.
    lowered_all = opts.pipeline ? ran_lower(opts) : true;
    for (diagnostic& d : lowered.notices) {
      if (d.level == severity::remark) left_tile.push_back(static_cast<diagnostic&&>(d));
      else notice(s, d);
    }
    if (!lowered) return report(s, lowered.errors);
    parsed.value = static_cast<program&&>(lowered.value);
    // PTO-AS output says which kernels it leaves out instead (write_ir).
    if (!pto && lowered_all)
      for (const diagnostic& d : left_tile) notice(s, d);
  }
  if (opts.run.active) return t2b_opt_run::run(opts.run, tile_input, parsed.value, s.display);
  if (opts.check_numerics_seed) return check_numerics(opts, s.display, tile_input, parsed.value);
  if (opts.verify_only || opts.explain_selection) return 0;
  return write_ir(s, parsed.value, lowered_all, left_tile);
}

/// --split-input-file and --verify-diagnostics: each chunk (or the whole input) is a session of
/// its own whose output is collected; the outputs are joined by the separator line.
int run_chunks(const cli_options& opts, session& whole) {
  namespace sv = t2b_split_verify;
  const std::vector<std::string> chunks = opts.split_input_file ? sv::split_input(whole.source)
                                                                : std::vector<std::string>{std::string(whole.source)};
  std::string joined;
  std::vector<std::string> problems;
  bool failed = false;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    std::string out;
    std::vector<diagnostic> caught, notices;
    session chunk{opts,
                  whole.display,
                  chunks[i],
                  {},
                  &out,
                  opts.verify_diagnostics ? &caught : nullptr,
                  opts.verify_diagnostics ? &notices : nullptr};
    const int rc = run_session(chunk);
    if (opts.verify_diagnostics) {
      std::vector<sv::expectation> expected = sv::parse_expectations(chunks[i], whole.display, problems);
      sv::check(expected, caught, notices, whole.display, problems);
    } else if (rc != 0) {
      failed = true;
    }
    if (i > 0) joined.append(sv::separator).push_back('\n');
    joined.append(out);
    for (auto& t : chunk.times) whole.times.push_back(std::move(t));
  }
  for (const std::string& p : problems) std::fprintf(stderr, "%s\n", p.c_str());
  if (const int rc = write_output(opts, joined); rc != 0) return rc;
  return failed || !problems.empty() ? 1 : 0;
}

}  // namespace

int main_body(int argc, char** argv) {
  cli_options opts;
  // Why before parsing: a command-line error is reported in the format asked for, even when
  // --diagnostics=json comes after the mistake.
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--diagnostics=json" ||
        (i + 1 < argc && std::string_view(argv[i]) == "--diagnostics" && std::string_view(argv[i + 1]) == "json"))
      t2b_tools::json_errors = true;
  if (const std::string err = parse_command_line(argc, argv, opts); !err.empty()) {
    // One line, as mlir-opt does: the whole usage would bury the mistake.
    t2b_tools::tool_error(err + "; see --help");
    return 2;
  }
  t2b_tools::json_errors = opts.diagnostics_json;  // the last --diagnostics given wins
  if (opts.help) {
    usage(stdout);
    return 0;
  }
  if (opts.version) {
    std::printf("t2b-opt %d.%d.%d (tile2buffer; Buffer IR semantics version %d)\n", TILE2BUFFER_VERSION_MAJOR,
                TILE2BUFFER_VERSION_MINOR, TILE2BUFFER_VERSION_PATCH, buffer_semantics_version);
    return 0;
  }
  if (opts.list_recipes) return list_recipes();
  if (opts.list_ops) return list_ops();
  if (opts.list_passes) return list_passes();
  return run(opts);
}

int main(int argc, char** argv) {
  const int status = main_body(argc, argv);
  t2b_tools::json_flush();  // everything --diagnostics=json collected, as one array
  return status;
}
