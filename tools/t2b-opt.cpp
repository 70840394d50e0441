// SPDX-License-Identifier: Apache-2.0
/// @file t2b-opt.cpp
/// The `mlir-opt`-style driver: reads a `.t2b` file (or stdin), parses and verifies it, and
/// prints the canonical text. Exit codes: 0 success, 1 input errors, 2 bad command line.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <optional>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/emit/memory_map.hpp"
#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/emit/pto_roundtrip.hpp"
#include "tile2buffer/engine/registry.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/recipe/table.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/serialize/roundtrip.hpp"
#include "tile2buffer/sim/compare.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"
#include "decimal_arg.hpp"
#include "file_io.hpp"
#include "split_verify.hpp"
#include "tool_error.hpp"
#include "t2b_opt_run.hpp"

namespace {

using namespace tile2buffer;

/// Edit distance (insertions, deletions, substitutions) between two short words.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

/// " (did you mean 'X'?)" for the candidate closest to `word` when it is a likely typo (at most a
/// third of the word's letters differ), else nothing.
template <class Names>
std::string did_you_mean(std::string_view word, const Names& candidates) {
  std::string_view best;
  std::size_t best_distance = word.size() / 3 + 1;
  for (const auto& candidate : candidates) {
    const std::string_view c = candidate;
    if (const std::size_t d = edit_distance(word, c); d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best.empty() ? std::string() : " (did you mean '" + std::string(best) + "'?)";
}

/// The message for a pass name no pass has, after the flag that named it.
std::string unknown_pass(std::string_view flag, std::string_view name) {
  return std::string(flag) + ": unknown pass '" + std::string(name) + "'" + did_you_mean(name, pass_names);
}

/// Everything the command line can set. A new flag adds a field here and a row in `flags`.
struct cli_options {
  bool help = false;
  bool version = false;
  bool split_input_file = false;
  bool verify_diagnostics = false;
  bool verify_only = false;
  std::string output = "-";
  std::vector<std::string> inputs;
  // Pipeline: runs when any pipeline flag is given.
  bool pipeline = false;
  tile2buffer::options pass_options{};
  bool explain_selection = false;
  std::optional<pass_id> stop_after;
  std::optional<pass_id> single_pass;
  /// --pass-pipeline: the passes to run instead of the default set, in order (names from `pass_names`)
  std::vector<std::string_view> pass_pipeline;
  parallelism workers{};
  parse_limits limits{};  ///< --max-nesting, --max-ops, --max-name-length, --max-file-size
  bool emit_tile = false;
  /// What is written: canonical text, the binary IR, or PTO-AS (custom or MLIR generic form).
  enum class output_format { text, binary, pto, pto_generic } format = output_format::text;
  std::string pto_kernel;
  bool verify_pto_roundtrip = false;  ///< --verify-pto-roundtrip: the emitted PTO-AS must read back as its Buffer IR
  std::optional<std::uint64_t> check_numerics_seed;
  /// --run, --input, --output-dir, and --scalar, --grid, --subblocks which --check-numerics shares
  /// (tools/t2b_opt_run.hpp)
  t2b_opt_run::request run;
  std::string_view output_flag;  ///< "-o" or "--emit" when given: they shape the IR output, which --run does not write
  // mlir-opt habits.
  bool list_recipes = false;
  bool list_ops = false;
  bool timing = false;
  bool print_after_all = false;
  std::optional<pass_id> print_after;
  bool print_before_all = false;
  std::optional<pass_id> print_before;
  bool print_after_change = false;   ///< --print-after(-all) only where the pass changed the IR
  bool print_after_failure = false;  ///< the IR a failing pass started from
  bool print_locations = false;      ///< every printed op and function ends with `# loc(FILE:LINE:COL)`
  bool verify_roundtrip = false;     ///< the binary round trip checked after every pass
  /// Whether any --print-* flag needs the pipeline's pass observer.
  [[nodiscard]] bool prints_passes() const {
    return print_after_all || print_after || print_before_all || print_before || print_after_failure;
  }
  bool diagnostics_json = false;
  bool quiet = false;  ///< --quiet: no remarks on stderr
  std::string memory_map;    ///< --memory-map FILE: the SVG of the plan, besides the normal output
  bool all_planners = false;  ///< --planner=all: one memory-map column per planner
};

/// Sets a count option from `v` when it lies in [min, max]; the error names the bounds.
template <class T>
std::string set_count(T& field, std::string_view flag, std::string_view v, std::uint64_t min, std::uint64_t max) {
  const auto n = t2b_tools::decimal_in(v, min, max);
  if (!n) return t2b_tools::expected_range(flag, min, max);
  field = static_cast<T>(*n);
  return {};
}

template <class E, std::size_t N>
std::optional<E> pick(const std::string_view (&names)[N], std::string_view v) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == v) return static_cast<E>(i);
  return std::nullopt;
}

/// One command-line flag: `--name` or, when it takes a value, `--name=V` / `--name V`.
/// `apply` returns an error message, or an empty string when the value is accepted.
struct flag {
  std::string_view name;
  std::string_view value_name;  ///< empty: the flag takes no value
  std::string_view help;
  std::string (*apply)(cli_options&, std::string_view value);
};

constexpr flag flags[] = {
    {"--version", {}, "print the version and exit",
     [](cli_options& o, std::string_view) -> std::string {
       o.version = true;
       return {};
     }},
    {"--help", {}, "print this help and exit",
     [](cli_options& o, std::string_view) -> std::string {
       o.help = true;
       return {};
     }},
    {"--verify-only", {}, "parse and verify; print no IR on success",
     [](cli_options& o, std::string_view) -> std::string {
       o.verify_only = true;
       return {};
     }},
    {"--split-input-file", {}, "process each chunk of the input between lines '# -----' alone; join the outputs with that line",
     [](cli_options& o, std::string_view) -> std::string {
       o.split_input_file = true;
       return {};
     }},
    {"--verify-diagnostics", {}, "check the diagnostics against the input's '# expected-error@+N {{text}}' comments (expected-remark, "
     "expected-warning likewise) instead of "
     "printing them: exit 0 when each expected one appears at its line and no other does",
     [](cli_options& o, std::string_view) -> std::string {
       o.verify_diagnostics = true;
       return {};
     }},
    {"-o", "FILE", "write the output to FILE instead of stdout ('-')",
     [](cli_options& o, std::string_view v) -> std::string {
       if (v.empty()) return "-o needs a file name";
       o.output = std::string(v);
       o.output_flag = "-o";
       return {};
     }},
    {"--lower", {}, "run the default pipeline (init_storage .. verify_buffer)",
     [](cli_options& o, std::string_view) -> std::string {
       o.pipeline = true;
       return {};
     }},
    {"--planner", "P", "memory planner: pypto (default), dsa_rp or ptoas; implies --lower. "
     "all (only with --memory-map): draw the three side by side, the output uses pypto",
     [](cli_options& o, std::string_view v) -> std::string {
       o.pipeline = true;
       o.all_planners = v == "all";
       if (o.all_planners) {
         o.pass_options.planner = planner_kind::pypto;
         return {};
       }
       const auto p = pick<planner_kind>(planner_names, v);
       if (!p) return "--planner must be pypto, dsa_rp, ptoas or (with --memory-map) all";
       o.pass_options.planner = *p;
       return {};
     }},
    {"--memory-map", "FILE",
     "also write an SVG of the plan to FILE: per kernel and memory space, each allocation's live op range "
     "against its bytes; implies --lower",
     [](cli_options& o, std::string_view v) -> std::string {
       if (v.empty()) return "--memory-map needs a file name";
       if (v == "-") return "--memory-map needs a file name, not '-': stdout carries the IR output";
       o.memory_map = std::string(v);
       o.pipeline = true;
       return {};
     }},
    {"--target", "T", "target: a2a3 (default) or a5; implies --lower",
     [](cli_options& o, std::string_view v) -> std::string {
       const auto t = parse_target(v);
       if (!t) return "--target must be a2a3 or a5";
       o.pass_options.target = *t;
       o.pipeline = true;
       return {};
     }},
    {"--rollout", "R", "recipes selection may use: default (the spec's default rollout, the default) or extended "
     "(also the recipes a set declares outside it); implies --lower",
     [](cli_options& o, std::string_view v) -> std::string {
       const auto r = pick<rollout_kind>(rollout_names, v);
       if (!r) return "--rollout must be default or extended";
       o.pass_options.rollout = *r;
       o.pipeline = true;
       return {};
     }},
    {"--no-buffer-ir", {}, "enable_buffer_ir = false: every kernel keeps Tile IR; implies --lower",
     [](cli_options& o, std::string_view) -> std::string {
       o.pass_options.enable_buffer_ir = false;
       o.pipeline = true;
       return {};
     }},
    {"--no-verify", {}, "skip structural verification of the pipeline's input and output (the checking passes still run)",
     [](cli_options& o, std::string_view) -> std::string {
       o.pass_options.verify = false;
       return {};
     }},
    {"--verify-each", {}, "also verify the program structurally after every pass (for debugging a pass)",
     [](cli_options& o, std::string_view) -> std::string {
       o.pass_options.verify_each = true;
       return {};
     }},
    {"--workers", "N", "lower the kernels on N threads (0: one per hardware thread); the output does not change",
     [](cli_options& o, std::string_view v) -> std::string {
       return set_count(o.workers.workers, "--workers", v, 0, 9999);
     }},
    // Input limits (docs/text-format.md, "Limits"): each exceeded limit is one located error.
    {"--max-nesting", "N", "reject text whose regions nest deeper than N (default 64, at most 1024)",
     [](cli_options& o, std::string_view v) -> std::string {
       return set_count(o.limits.max_nesting, "--max-nesting", v, 1, text_limits::max_depth_cap);
     }},
    {"--max-ops", "N", "reject text with more than N statements (default 16777216)",
     [](cli_options& o, std::string_view v) -> std::string {
       return set_count(o.limits.max_ops, "--max-ops", v, 1, std::uint64_t{1} << 32);
     }},
    {"--max-name-length", "N", "reject text with a name or word longer than N bytes (default 1024)",
     [](cli_options& o, std::string_view v) -> std::string {
       return set_count(o.limits.max_name_length, "--max-name-length", v, 1, std::uint64_t{1} << 32);
     }},
    {"--max-file-size", "N", "reject an input (text or binary) larger than N bytes (default 1073741824)",
     [](cli_options& o, std::string_view v) -> std::string {
       return set_count(o.limits.max_file_size, "--max-file-size", v, 1, (std::uint64_t{1} << 32) - 2);
     }},
    {"--explain-selection", {}, "print one line per kernel: selected, or why it stays Tile",
     [](cli_options& o, std::string_view) -> std::string {
       o.explain_selection = true;
       o.pipeline = true;
       return {};
     }},
    {"--stop-after", "PASS", "stop the pipeline after PASS (init_storage, select, legalize, verify_tile_storage, plan, lower, verify_buffer)",
     [](cli_options& o, std::string_view v) -> std::string {
       o.stop_after = parse_pass(v);
       if (!o.stop_after) return unknown_pass("--stop-after", v);
       o.pipeline = true;
       return {};
     }},
    {"--pass-pipeline", "P1,P2,...", "run these passes in this order instead of the default pipeline "
     "(init_storage,select,legalize,verify_tile_storage,plan,lower,verify_buffer); e.g. without plan on planned input",
     [](cli_options& o, std::string_view v) -> std::string {
       o.pass_pipeline.clear();
       for (std::size_t at = 0; at <= v.size();) {
         const std::size_t comma = std::min(v.find(',', at), v.size());
         const std::string_view one = v.substr(at, comma - at);
         const auto id = parse_pass(one);
         if (!id) {
           std::string known;
           for (const std::string_view n : pass_names) known.append(known.empty() ? "" : ", ").append(n);
           return unknown_pass("--pass-pipeline", one) + "; the passes are " + known;
         }
         o.pass_pipeline.push_back(name(*id));
         at = comma + 1;
       }
       o.pipeline = true;
       return {};
     }},
    {"--pass", "PASS", "run only PASS on the input (e.g. lower on already planned IR)",
     [](cli_options& o, std::string_view v) -> std::string {
       o.single_pass = parse_pass(v);
       if (!o.single_pass) return unknown_pass("--pass", v);
       o.pipeline = true;
       return {};
     }},
    {"--check-numerics", "[=SEED]", "lower, run Tile and Buffer IR in the reference simulator on seeded inputs and compare, for each lowered kernel and each "
     "orchestration that submits one (unbound BOOL parameters: both values)",
     [](cli_options& o, std::string_view v) -> std::string {
       std::uint64_t seed = 1;
       if (!v.empty()) {
         seed = 0;
         for (char c : v) {
           if (c < '0' || c > '9' || seed > (UINT64_MAX - 9) / 10) return "--check-numerics=SEED needs a decimal seed";
           seed = seed * 10 + static_cast<std::uint64_t>(c - '0');
         }
       }
       o.check_numerics_seed = seed;
       o.pipeline = true;
       return {};
     }},
    {"--scalar", "NAME=VALUE", "with --run or --check-numerics: bind scalar parameter NAME (repeatable; integers and INDEX "
     "take an integer, BOOL true/false/1/0, floats a number); --run needs every scalar parameter bound",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.add_scalar(v)); }},
    {"--grid", "N", "with --run or --check-numerics: launch N blocks (get_block_num = N), blocks 0..N-1 in order on the same GM; "
     "an orchestration's submits launch N each (default 1)",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.set_launch("--grid", v)); }},
    {"--subblocks", "M", "with --run or --check-numerics: run subblocks 0..M-1 (get_subblock_idx) of every block in order (default 1)",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.set_launch("--subblocks", v)); }},
    {"--run", "FUNCTION", "run @FUNCTION in the reference simulator (as written, or lowered with pipeline flags) on --input files "
     "(scalars: --scalar) and write its out/inout tensors to --output-dir; an orchestration runs its submits in order, "
     "one grid each; not with -o or --emit",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.set_kernel(v)); }},
    {"--input", "NAME=FILE", "with --run: tensor parameter NAME from a .npy file (repeatable; BF16: <u2 bit patterns)",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.add_input(v)); }},
    {"--output-dir", "DIR", "with --run: write each out/inout tensor parameter to DIR/NAME.npy",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.set_output_dir(v)); }},
    {"--emit", "tile|buffer|binary|pto|pto-generic",
     "tile/buffer: print the planned Tile IR (before lowering) or the final IR (default), implies --lower; "
     "binary: write the binary IR (to -o or stdout); pto: PTO-AS of the Buffer-stage kernels; pto-generic: the same "
     "in MLIR's generic op form",
     [](cli_options& o, std::string_view v) -> std::string {
       using F = cli_options::output_format;
       o.output_flag = "--emit";
       if (v == "binary" || v == "pto" || v == "pto-generic") {
         o.format = v == "binary" ? F::binary : v == "pto" ? F::pto : F::pto_generic;
         return {};
       }
       if (v != "tile" && v != "buffer") return "--emit must be tile, buffer, binary, pto or pto-generic";
       o.emit_tile = v == "tile";
       o.pipeline = true;
       return {};
     }},
    {"--list-recipes", {}, "print the registered recipe set: each Tile op's recipes (name, benefit, dtypes) or why it stays Tile",
     [](cli_options& o, std::string_view) -> std::string {
       o.list_recipes = true;
       return {};
     }},
    {"--list-ops", {}, "print the op records: one tab-separated line per op, the last field the simulators that model it (docs/ops.md is generated from it)",
     [](cli_options& o, std::string_view) -> std::string {
       o.list_ops = true;
       return {};
     }},
    {"--quiet", {}, "print no remarks on stderr (which kernels stay Tile); errors and warnings still print",
     [](cli_options& o, std::string_view) -> std::string {
       o.quiet = true;
       return {};
     }},
    {"--timing", {}, "report the wall time of parsing, verification, each pass and printing on stderr",
     [](cli_options& o, std::string_view) -> std::string {
       o.timing = true;
       return {};
     }},
    {"--print-after-all", {}, "print the program after every pass on stderr; implies --lower",
     [](cli_options& o, std::string_view) -> std::string {
       o.print_after_all = true;
       o.pipeline = true;
       return {};
     }},
    {"--print-after", "PASS", "print the program after PASS on stderr; implies --lower",
     [](cli_options& o, std::string_view v) -> std::string {
       o.print_after = parse_pass(v);
       if (!o.print_after) return unknown_pass("--print-after", v);
       o.pipeline = true;
       return {};
     }},
    {"--print-before-all", {}, "print the program before every pass on stderr; implies --lower",
     [](cli_options& o, std::string_view) -> std::string {
       o.print_before_all = true;
       o.pipeline = true;
       return {};
     }},
    {"--print-before", "PASS", "print the program before PASS on stderr; implies --lower",
     [](cli_options& o, std::string_view v) -> std::string {
       o.print_before = parse_pass(v);
       if (!o.print_before) return unknown_pass("--print-before", v);
       o.pipeline = true;
       return {};
     }},
    {"--print-after-change", {}, "with --print-after(-all): print only after a pass that changed the program",
     [](cli_options& o, std::string_view) -> std::string {
       o.print_after_change = true;
       return {};
     }},
    {"--print-after-failure", {}, "when a pass fails, print the program it started from on stderr; implies --lower",
     [](cli_options& o, std::string_view) -> std::string {
       o.print_after_failure = true;
       o.pipeline = true;
       return {};
     }},
    {"--print-locations", {}, "end every printed op and function header with its source location, as the comment "
     "'# loc(FILE:LINE:COL)' (also in --print-after/--print-before output); synthetic ops show the location they inherit",
     [](cli_options& o, std::string_view) -> std::string {
       o.print_locations = true;
       return {};
     }},
    {"--verify-roundtrip", {}, "after every pass, write the program in the binary form, read it back and compare: the first pass "
     "whose output does not survive fails with 'Binary roundtrip failed' and what was lost (stage, name, location, operand, "
     "keyword or type field); implies --lower",
     [](cli_options& o, std::string_view) -> std::string {
       o.verify_roundtrip = true;
       o.pipeline = true;
       return {};
     }},
    {"--diagnostics", "text|json", "text (default): file:line:col, the source line and a caret; json: one JSON array on stderr with errors, "
     "warnings and remarks",
     [](cli_options& o, std::string_view v) -> std::string {
       if (v != "text" && v != "json") return "--diagnostics must be text or json";
       o.diagnostics_json = v == "json";
       return {};
     }},
    {"--verify-pto-roundtrip", {}, "with --emit=pto or pto-generic: read the PTO-AS back into Buffer IR (its generic form) and fail, "
     "at the first op that differs in each kernel, unless it equals the Buffer IR it came from (docs/pto-as.md)",
     [](cli_options& o, std::string_view) -> std::string {
       o.verify_pto_roundtrip = true;
       return {};
     }},
    {"--pto-kernel", "NAME", "with --emit=pto or pto-generic: emit only the function @NAME",
     [](cli_options& o, std::string_view v) -> std::string {
       if (v.empty()) return "--pto-kernel needs a function name";
       o.pto_kernel = std::string(v.front() == '@' ? v.substr(1) : v);
       return {};
     }},
};
// The limit flags' help spells the library's defaults and cap; keep them in step.
static_assert(parse_limits{}.max_nesting == 64 && text_limits::max_depth_cap == 1024 &&
                  parse_limits{}.max_ops == 16777216 && parse_limits{}.max_name_length == 1024 &&
                  parse_limits{}.max_file_size == 1073741824,
              "update the help of --max-nesting, --max-ops, --max-name-length and --max-file-size");

void usage(std::FILE* to) {
  std::fputs("usage: t2b-opt [options] [FILE|-]\n"
             "Reads a .t2b program (stdin when FILE is '-' or absent), verifies it and prints it canonically.\n"
             "options:\n",
             to);
  for (const flag& f : flags) {
    std::string left(f.name);
    if (!f.value_name.empty()) left.append(f.value_name.front() == '[' ? "" : " ").append(f.value_name);
    std::fprintf(to, "  %-20s %.*s\n", left.c_str(), static_cast<int>(f.help.size()), f.help.data());
  }
}

/// Parses argv into `opts`; on a bad command line returns the message to print before the usage.
std::string parse_command_line(int argc, char** argv, cli_options& opts) {
  bool only_files = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (only_files || arg == "-" || arg.empty() || arg[0] != '-') {
      opts.inputs.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_files = true;
      continue;
    }
    if (arg == "-h") {
      opts.help = true;
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string_view key = arg.substr(0, eq);
    const flag* hit = nullptr;
    for (const flag& f : flags)
      if (f.name == key) hit = &f;
    if (hit == nullptr) {
      std::vector<std::string_view> names;
      for (const flag& f : flags) names.push_back(f.name);
      return "unknown option '" + std::string(key) + "'" + did_you_mean(key, names);
    }
    std::string_view value;
    const bool optional_value = !hit->value_name.empty() && hit->value_name.front() == '[';
    if (hit->value_name.empty()) {
      if (eq != std::string_view::npos) return "option '" + std::string(key) + "' takes no value";
    } else if (eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
      if (optional_value && value.empty()) return "option '" + std::string(key) + "' needs a value after '='";
    } else if (optional_value) {
      // An optional value is only taken from `--flag=V`; the next argument stays an input.
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return "option '" + std::string(key) + "' needs a value";
    }
    if (std::string err = hit->apply(opts, value); !err.empty()) return err;
  }
  if (opts.inputs.size() > 1) return "expected at most one input file";
  if (opts.verify_pto_roundtrip && opts.format != cli_options::output_format::pto && opts.format != cli_options::output_format::pto_generic)
    return "--verify-pto-roundtrip reads back PTO-AS: it needs --emit=pto or --emit=pto-generic";
  if (!opts.pass_pipeline.empty()) {
    // Why errors rather than a guess: each of these would run passes the list does not name.
    if (opts.single_pass) return "--pass and --pass-pipeline exclude each other";
    const auto runs = [&](pass_id p) { return std::find(opts.pass_pipeline.begin(), opts.pass_pipeline.end(), name(p)) != opts.pass_pipeline.end(); };
    if (opts.stop_after && !runs(*opts.stop_after)) return "--stop-after names a pass that --pass-pipeline does not run";
    if (opts.emit_tile && !runs(pass_id::plan)) return "--emit=tile stops after plan, which --pass-pipeline does not run";
  }
  // `t2b-opt --memory-map softmax.t2b` takes the kernel for the picture's path (and reads stdin):
  // never overwrite the input, nor an existing file that is not a picture.
  if (!opts.memory_map.empty()) {
    std::error_code ec;
    if (!opts.inputs.empty() && (opts.memory_map == opts.inputs.front() || std::filesystem::equivalent(opts.memory_map, opts.inputs.front(), ec)))
      return "--memory-map names the input file '" + opts.memory_map + "'; refusing to overwrite it with the picture";
    if (std::FILE* f = std::fopen(opts.memory_map.c_str(), "rb")) {
      const int first = std::fgetc(f);
      std::fclose(f);
      if (first != EOF && first != '<')
        return "--memory-map would overwrite '" + opts.memory_map + "', which is not an SVG picture (write --memory-map=FILE.svg KERNEL)";
    }
  }
  // Why a usage error: "all" names three plans, and only the picture can show three at once.
  if (opts.all_planners && opts.memory_map.empty())
    return "--planner=all needs --memory-map FILE: only the memory map shows the three planners; "
           "the IR output needs one planner";
  return opts.help ? std::string() : opts.run.check(opts.check_numerics_seed.has_value(), opts.output_flag);
}

/// What one run reads and measures: the input's name and text (for diagnostics with source
/// lines) and, with --timing, the wall time of each step.
struct session {
  const cli_options& opts;
  std::string display;
  std::string_view source;  ///< the input: `read` or `mapped`'s bytes, or a chunk of them
  std::vector<std::pair<std::string, double>> times;  ///< (step, seconds), in order
  std::string* collected_output = nullptr;            ///< when set, the output goes here, not to -o
  std::vector<diagnostic>* captured = nullptr;        ///< when set, diagnostics go here, not to stderr
  std::vector<diagnostic>* notices = nullptr;         ///< when set, remarks and warnings go here (source: the kind)
  t2b_tools::mapped_file* mapped = nullptr;           ///< the mapped input, released once parsed

  /// Runs `step` and, with --timing, records its wall time under `name`.
  template <class F>
  decltype(auto) timed(std::string_view name, F&& step) {
    const auto t0 = std::chrono::steady_clock::now();
    struct record {
      session& s;
      std::string_view name;
      std::chrono::steady_clock::time_point t0;
      ~record() {
        if (s.opts.timing) s.times.emplace_back(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
    } r{*this, name, t0};
    return step();
  }
};

int report(const session& s, const std::vector<diagnostic>& errors) {
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
void notice(const session& s, std::string_view kind, location loc, std::string_view message) {
  if (s.notices != nullptr) {
    s.notices->push_back(diagnostic{loc, text(kind), text(message), {}});
    return;
  }
  if (s.opts.quiet && kind == "remark") return;
  if (t2b_tools::json_errors) {
    t2b_tools::json_add(diagnostic{loc, text("t2b-opt"), text(message), {}, kind == "remark" ? severity::remark : severity::warning},
                        s.display);
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
void remark(const session& s, location loc, std::string_view message) { notice(s, "remark", loc, message); }

/// PTOAS places storage itself, so the plan cannot fail here; warn where the bytes live at once in
/// a memory space exceed it (the addressed planners report the same case as an error).
void warn_ptoas_overflow(const session& s, const program& input) {
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
      message << '@' << k.name << ": planner ptoas: " << peak << " bytes are live in " << name(space) << " at once here, more than its "
              << space_capacity(space) << " bytes (pypto and dsa_rp cannot place it)";
      notice(s, "warning", where.loc, message.view());
    }
  }
}

/// One remark per device kernel of `lowered` that is still Tile, with the reason selection gives
/// (`@row_max stays Tile: ...`); `what` follows "stays Tile" (", not emitted" for PTO-AS).
void remark_tile_kernels(const session& s, const program& lowered, std::string_view what) {
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

/// Whether the passes that ran include `lower`, so a kernel still Tile afterwards stayed Tile.
bool ran_lower(const cli_options& opts) {
  if (!opts.pipeline || opts.explain_selection) return false;  // --explain-selection says why itself
  if (opts.single_pass) return *opts.single_pass == pass_id::lower;
  std::optional<pass_id> stop = opts.stop_after;
  if (opts.emit_tile) stop = pass_id::plan;
  if (opts.pass_pipeline.empty()) return !stop || *stop >= pass_id::lower;  // the default order
  const auto lower_at = std::find(opts.pass_pipeline.begin(), opts.pass_pipeline.end(), name(pass_id::lower));
  if (lower_at == opts.pass_pipeline.end()) return false;
  return !stop || std::find(opts.pass_pipeline.begin(), lower_at, name(*stop)) == lower_at;
}

/// Writes the tool's output to -o (stdout for '-'); 1 with the system's reason when it cannot.
int write_output(const cli_options& opts, std::string_view data) {
  if (t2b_tools::write_file(opts.output, data)) return 0;
  const int err = errno;  // read before the message's strings allocate
  return t2b_tools::tool_error("cannot write '" + opts.output + "': " + std::strerror(err));
}

/// The --timing table on stderr: wall time per step, its share, and the total.
void print_timing(const session& s) {
  double total = 0;
  for (const auto& [name, secs] : s.times) total += secs;
  std::fprintf(stderr, "t2b-opt timing (wall time, ms)\n");
  for (const auto& [name, secs] : s.times)
    std::fprintf(stderr, "  %10.3f  %5.1f%%  %s\n", secs * 1e3, total > 0 ? 100.0 * secs / total : 0.0, name.c_str());
  std::fprintf(stderr, "  %10.3f  100.0%%  total\n", total * 1e3);
}

/// The canonical text of `p`, with --print-locations its locations too.
text print_ir(const cli_options& opts, const program& p) {
  return opts.print_locations ? print(p, print_options{.locations = true}) : print(p);
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
result<program> run_passes(session& s, program& prog, bool consume) {
  const cli_options& opts = s.opts;
  if (opts.single_pass) {
    result<program> r = run_pass(*opts.single_pass, prog, opts.pass_options);
    if (r.ok() && (opts.pass_options.verify || opts.pass_options.verify_each)) r.errors = verify(r.value);
    if (r.ok() && opts.verify_roundtrip) {
      r.errors = check_binary_roundtrip(r.value, name(*opts.single_pass));
      if (r.ok()) remark(s, location{}, (text("--verify-roundtrip: the binary form kept the program after pass ") << name(*opts.single_pass)).view());
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
      if (e.selected)
        lines << "selected\n";
      else
        lines << "stays Tile: " << static_cast<std::int64_t>(e.loc.line) << ':' << static_cast<std::int64_t>(e.loc.col) << ": "
              << e.reason << '\n';
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
    r = consume ? run_pipeline(static_cast<program&&>(prog), opts.pass_options, stop, opts.workers, observed ? &observer : nullptr)
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
  if (!r.ok() && opts.print_after_failure && !watch.current.empty()) watch.dump("after failure of", watch.current, watch.last_text());
  if (opts.timing) {
    // What the pipeline spent outside its passes: verifying its input and output.
    double rest = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (std::size_t i = first; i < s.times.size(); ++i) rest -= s.times[i].second;
    s.times.emplace_back("pipeline verification (input, output)", rest > 0 ? rest : 0.0);
  }
  return r;
}

/// --list-recipes: the default recipe set, one line per recipe or stays-Tile entry, in op order;
/// each recipe names its tier ("rollout default": every rollout; "rollout extended": only
/// --rollout=extended consults it).
int list_recipes() {
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

/// --list-ops: every op record, one line each, fields separated by tabs: mnemonic, dialect,
/// operands (`name:kind`), keywords, results, regions, traits, in_place_of, writes,
/// disjoint_from, extent_of, scratch, infix spelling, summary, and the simulators with a model of
/// the op (`tile`, `buffer`, both space-separated; read from the model sets, sim/model_table.hpp).
/// Empty fields print as `-`.
int list_ops() {
  constexpr std::string_view dialects[] = {"scalar", "control", "orchestration", "tile", "buffer"};
  constexpr std::string_view arities[] = {"none", "one", "variadic"};
  constexpr std::pair<trait, std::string_view> traits[] = {
      {trait::relabel, "relabel"},       {trait::window, "window"},
      {trait::allocates, "allocates"},   {trait::moves_valid_data, "moves_valid_data"},
      {trait::side_effects, "side_effects"}, {trait::terminator, "terminator"},
      {trait::exits_function, "exits_function"}, {trait::loop, "loop"},
      {trait::condition_region, "condition_region"}, {trait::spmd_query, "spmd_query"},
      {trait::comparison, "comparison"}, {trait::may_alias_exactly, "may_alias_exactly"}};
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
    field(out, arities[static_cast<std::size_t>(r.results)]);
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
    out << '\n';
  }
  std::fwrite(out.view().data(), 1, out.size(), stdout);
  return 0;
}

/// Whether `f` of `lowered` was lowered from a Tile kernel of `tile_program`; for an
/// orchestration, whether one of its submits launches such a kernel.
bool was_lowered(const program& tile_program, const program& lowered, const function& f) {
  const auto one = [&](const function& k) {
    const function* before = tile_program.find(k.name_of());
    return k.stage == ir_stage::buffer && before != nullptr && before->stage == ir_stage::tile;
  };
  if (f.is_device()) return one(f);
  const auto kernels = sim::kernels_of(lowered, f);
  return tile_program.find(f.name_of()) != nullptr && std::any_of(kernels.begin(), kernels.end(), [&](const function* k) { return one(*k); });
}

/// Runs every kernel that was lowered, and every orchestration that submits one, in both
/// simulators and prints one verdict per function.
int check_numerics(const cli_options& opts, const std::string& display, const program& tile_program, const program& lowered) {
  bool all_ok = true;
  int compared = 0;
  for (const auto& f : lowered.functions) {
    if (!was_lowered(tile_program, lowered, f)) continue;
    const function* before = tile_program.find(f.name_of());
    std::vector<sim::scalar_binding> bound;
    if (std::string e; !t2b_opt_run::bind_scalars(opts.run.scalars, *before, bound, e)) {
      return t2b_tools::tool_error(e);
    }
    // Both arms of every branch: BOOL parameters not bound by --scalar run once all false and
    // once all true (integer loop bounds already default to two trips, see sim/options.hpp).
    std::vector<std::vector<sim::scalar_binding>> runs{bound};
    for (const auto& p : before->params) {
      const std::string_view pname = before->name_of(p.value);
      const type& t = before->type_of(p.value);
      const bool is_bound = std::any_of(bound.begin(), bound.end(), [&](const sim::scalar_binding& b) { return b.name == pname; });
      if (!t.is_scalar() || t.dt != dtype::bool_ || is_bound) continue;
      if (runs.size() == 1) runs.push_back(bound);
      runs[0].push_back(sim::scalar_binding{std::string(pname), 0.0});
      runs[1].push_back(sim::scalar_binding{std::string(pname), 1.0});
    }
    sim::compare_report r;
    for (const auto& run : runs) {
      sim::sim_options so;
      so.seed = *opts.check_numerics_seed;
      so.scalars = run;
      so.source = display;
      opts.run.launch(so);
      r = sim::check_numerics(tile_program, lowered, f.name_of(), so);
      if (!r.ok) {
        if (runs.size() > 1) r.text = std::string("with ") + (run.back().value != 0.0 ? "flags true: " : "flags false: ") + r.text;
        break;
      }
    }
    std::printf("@%.*s: %s", static_cast<int>(f.name_of().size()), f.name_of().data(), r.text.c_str());
    all_ok = all_ok && r.ok;
    ++compared;
  }
  std::fflush(stdout);
  if (compared == 0) {
    // A check that compared nothing must not look like a pass.
    t2b_tools::tool_error("--check-numerics compared nothing: no kernel was lowered to Buffer IR");
    return 2;
  }
  return all_ok ? 0 : 1;
}

/// Plans `prog` with the chosen planner (or all three) and writes the SVG. Why a separate run of
/// the pipeline up to `plan`: the normal output goes on to `lower`, which replaces the tile.alloc
/// ops the picture is read from; and --stop-after or --pass must not change what is drawn.
/// With --planner=all, a planner that cannot plan the program gets a column that says why, and
/// the others are still drawn; the map is not written only when no planner could plan it.
int write_memory_map(const session& s, const program& prog) {
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
  if (failures.size() > 0 && std::all_of(panels.begin(), panels.end(), [](const memory_map_panel& p) { return !p.failure.empty(); }))
    return report(s, failures);
  const text svg = render_memory_map(panels, s.display);
  if (!t2b_tools::write_file(opts.memory_map, svg.view())) {
    return t2b_tools::tool_error("cannot write the memory map to '" + opts.memory_map + "'");
  }
  return 0;
}

/// Whether --emit=pto must lower first: a device function is still at the Tile stage.
bool has_tile_kernel(const program& p) {
  for (const auto& f : p.functions)
    if (f.is_device() && f.stage != ir_stage::buffer) return true;
  return false;
}

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
  result<program> parsed = s.timed("parse", [&] { return binary ? deserialize(s.source) : parse(s.source, s.display, opts.limits); });
  if (binary) s.source = {};  // no source lines to show under diagnostics
  if (s.mapped != nullptr) s.mapped->release();  // only a diagnostic's source line reads it again
  if (!parsed) return report(s, parsed.errors);
  using F = cli_options::output_format;
  const bool pto = opts.format == F::pto || opts.format == F::pto_generic;
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
  bool lowered_all = false;  ///< the passes that ran lowered: a kernel still Tile stayed Tile
  if (lowers) {
    // The pipeline may take the parsed program over unless something below reads it again.
    const bool keep_input = opts.prints_passes() || opts.pass_options.planner == planner_kind::ptoas;
    result<program> lowered = run_passes(s, parsed.value, !keep_input);
    if (!lowered) return report(s, lowered.errors);
    lowered_all = ran_lower(opts);
    if (opts.pass_options.planner == planner_kind::ptoas && lowered_all) warn_ptoas_overflow(s, parsed.value);
    parsed.value = static_cast<program&&>(lowered.value);
    if (!pto && lowered_all) remark_tile_kernels(s, parsed.value, "");
  }
  if (opts.run.active) return t2b_opt_run::run(opts.run, tile_input, parsed.value, s.display);
  if (opts.check_numerics_seed) return check_numerics(opts, s.display, tile_input, parsed.value);
  if (opts.verify_only || opts.explain_selection) return 0;
  text out;
  if (opts.format == F::binary) {
    const auto bin = serialize(parsed.value);
    if (!bin) return report(s, bin.errors);
    out.append(std::string_view(reinterpret_cast<const char*>(bin.value.data()), bin.value.size()));
  } else if (pto) {
    // A whole program with at least one Buffer kernel: the kernels that stayed Tile are left
    // out, each with a remark saying why; with none, emission rejects them (nothing to emit).
    const bool skip = opts.pto_kernel.empty() && any_buffer_kernel(parsed.value);
    auto emitted = s.timed("emit", [&] {
      return emit_pto(parsed.value, pto_options{.generic = opts.format == F::pto_generic, .kernel = opts.pto_kernel,
                                                 .target = opts.pass_options.target, .skip_tile_kernels = skip});
    });
    const auto stays_tile = [](const function& f) { return f.is_device() && f.stage != ir_stage::buffer; };
    const bool any_tile = std::any_of(parsed.value.functions.begin(), parsed.value.functions.end(), stays_tile);
    if (!emitted) {
      // Why the remarks first: a kernel that selection kept Tile is refused for the reason
      // `--lower` gives, which the emitter's error ("a Tile-stage kernel") does not repeat.
      if (lowered_all && any_tile) remark_tile_kernels(s, parsed.value, ", not emitted");
      return report(s, emitted.errors);
    }
    if (opts.verify_pto_roundtrip)
      if (const auto differ = s.timed("pto roundtrip", [&] {
            return check_pto_roundtrip(parsed.value, pto_options{.kernel = opts.pto_kernel, .target = opts.pass_options.target,
                                                                 .skip_tile_kernels = skip});
          });
          !differ.empty())
        return report(s, differ);
    if (skip && any_tile) remark_tile_kernels(s, parsed.value, ", not emitted");
    out = static_cast<text&&>(emitted.value);
  } else {
    out = s.timed("print", [&] { return print_ir(opts, parsed.value); });
  }
  if (s.collected_output != nullptr) {
    s.collected_output->append(out.view());
    return 0;
  }
  return write_output(opts, out.view());
}

/// --split-input-file and --verify-diagnostics: each chunk (or the whole input) is a session of
/// its own whose output is collected; the outputs are joined by the separator line.
int run_chunks(const cli_options& opts, session& whole) {
  namespace sv = t2b_split_verify;
  const std::vector<std::string> chunks =
      opts.split_input_file ? sv::split_input(whole.source) : std::vector<std::string>{std::string(whole.source)};
  std::string joined;
  std::vector<std::string> problems;
  bool failed = false;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    std::string out;
    std::vector<diagnostic> caught, notices;
    session chunk{opts, whole.display, chunks[i], {}, &out, opts.verify_diagnostics ? &caught : nullptr,
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
    if (std::string_view(argv[i]) == "--diagnostics=json" || (i + 1 < argc && std::string_view(argv[i]) == "--diagnostics" &&
                                                                 std::string_view(argv[i + 1]) == "json"))
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
  return run(opts);
}

int main(int argc, char** argv) {
  const int status = main_body(argc, argv);
  t2b_tools::json_flush();  // everything --diagnostics=json collected, as one array
  return status;
}
