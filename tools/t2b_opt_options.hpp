// SPDX-License-Identifier: Apache-2.0
/// @file tools/t2b_opt_options.hpp
/// t2b-opt's command line: every flag with its help line (`flags`, printed by `usage`), and
/// `parse_command_line`, which fills `cli_options` or returns the one-line usage error (a
/// likely typo of a flag or a pass name gets a suggestion).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "tile2buffer/lower.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/text/syntax.hpp"
#include "decimal_arg.hpp"
#include "t2b_opt_run.hpp"

namespace t2b_opt {

using namespace tile2buffer;

/// Edit distance between two short words: insertions, deletions, substitutions and swaps of two
/// neighbouring letters (each costs 1). Why swaps: `plna` for `plan` is the commonest typo, and
/// without them it costs 2, too far for a four-letter word.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows: a swap looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
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
inline std::string unknown_pass(std::string_view flag, std::string_view name) {
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
  bool list_passes = false;
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
  bool quiet = false;         ///< --quiet: no remarks on stderr
  std::string memory_map;     ///< --memory-map FILE: the SVG of the plan, besides the normal output
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

inline constexpr flag flags[] = {
    {"--version",
     {},
     "print the version and exit",
     [](cli_options& o, std::string_view) -> std::string {
       o.version = true;
       return {};
     }},
    {"--help",
     {},
     "print this help and exit",
     [](cli_options& o, std::string_view) -> std::string {
       o.help = true;
       return {};
     }},
    {"--verify-only",
     {},
     "parse and verify; print no IR on success",
     [](cli_options& o, std::string_view) -> std::string {
       o.verify_only = true;
       return {};
     }},
    {"--split-input-file",
     {},
     "process each chunk of the input between lines '# -----' alone; join the outputs with that line",
     [](cli_options& o, std::string_view) -> std::string {
       o.split_input_file = true;
       return {};
     }},
    {"--verify-diagnostics",
     {},
     "check the diagnostics against the input's '# expected-error@+N {{text}}' comments (@-N, @above, @below "
     "likewise; expected-remark, expected-warning likewise) instead of "
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
    {"--lower",
     {},
     "run the default pipeline ({passes})",
     [](cli_options& o, std::string_view) -> std::string {
       o.pipeline = true;
       return {};
     }},
    {"--planner", "P",
     "memory planner: pypto (default), dsa_rp or ptoas; implies --lower. "
     "all (only with --memory-map): draw the three side by side, the output uses pypto",
     [](cli_options& o, std::string_view v) -> std::string {
       o.pipeline = true;
       o.all_planners = v == "all";
       if (o.all_planners) {
         o.pass_options.planner = planner_kind::pypto;
         return {};
       }
       const auto p = pick<planner_kind>(planner_names, v);
       if (!p) {
         constexpr std::string_view planners[] = {"pypto", "dsa_rp", "ptoas", "all"};
         return "--planner must be pypto, dsa_rp, ptoas or (with --memory-map) all" + did_you_mean(v, planners);
       }
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
       if (!t) return "--target must be a2a3 or a5" + did_you_mean(v, detail::target_names);
       o.pass_options.target = *t;
       o.pipeline = true;
       return {};
     }},
    {"--rollout", "R",
     "recipes selection may use: default (the spec's default rollout, the default) or extended "
     "(also the recipes a set declares outside it); implies --lower",
     [](cli_options& o, std::string_view v) -> std::string {
       const auto r = pick<rollout_kind>(rollout_names, v);
       if (!r) return "--rollout must be default or extended" + did_you_mean(v, rollout_names);
       o.pass_options.rollout = *r;
       o.pipeline = true;
       return {};
     }},
    {"--no-buffer-ir",
     {},
     "enable_buffer_ir = false: every kernel keeps Tile IR; implies --lower",
     [](cli_options& o, std::string_view) -> std::string {
       o.pass_options.enable_buffer_ir = false;
       o.pipeline = true;
       return {};
     }},
    {"--no-verify",
     {},
     "skip structural verification of the pipeline's input and output (the checking passes still run)",
     [](cli_options& o, std::string_view) -> std::string {
       o.pass_options.verify = false;
       return {};
     }},
    {"--verify-each",
     {},
     "also verify the program structurally after every pass (for debugging a pass)",
     [](cli_options& o, std::string_view) -> std::string {
       o.pass_options.verify_each = true;
       return {};
     }},
    {"--workers", "N", "lower the kernels on N threads (0: one per hardware thread); the output does not change",
     [](cli_options& o, std::string_view v) -> std::string { return set_count(o.workers.workers, "--workers", v, 0, 9999); }},
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
    {"--explain-selection",
     {},
     "print one line per kernel: selected, or why it stays Tile",
     [](cli_options& o, std::string_view) -> std::string {
       o.explain_selection = true;
       o.pipeline = true;
       return {};
     }},
    {"--stop-after", "PASS", "stop the pipeline after PASS ({passes})",
     [](cli_options& o, std::string_view v) -> std::string {
       o.stop_after = parse_pass(v);
       if (!o.stop_after) return unknown_pass("--stop-after", v);
       o.pipeline = true;
       return {};
     }},
    {"--pass-pipeline", "P1,P2,...",
     "run these passes in this order instead of the default pipeline "
     "({pipeline}); e.g. without plan on planned input",
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
    {"--check-numerics", "[=SEED]",
     "lower, run Tile and Buffer IR in the reference simulator on seeded inputs and compare, for each lowered kernel and each "
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
    {"--scalar", "NAME=VALUE",
     "with --run or --check-numerics: bind scalar parameter NAME (repeatable; integers and INDEX "
     "take an integer, BOOL true/false/1/0, floats a number); --run needs every scalar parameter bound",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.add_scalar(v)); }},
    {"--grid", "N",
     "with --run or --check-numerics: launch N blocks (get_block_num = N), blocks 0..N-1 in order on the same GM; "
     "an orchestration's submits launch N each (default 1)",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.set_launch("--grid", v)); }},
    {"--subblocks", "M",
     "with --run or --check-numerics: run subblocks 0..M-1 (get_subblock_idx) of every block in order (default 1)",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.set_launch("--subblocks", v)); }},
    {"--run", "FUNCTION",
     "run @FUNCTION in the reference simulator (as written, or lowered with pipeline flags) on --input files "
     "(scalars: --scalar) and write its out/inout tensors to --output-dir; an orchestration runs its submits in order, "
     "one grid each; not with -o or --emit",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.set_kernel(v)); }},
    {"--input", "NAME=FILE", "with --run: tensor parameter NAME from a .npy file (repeatable; BF16: <u2 bit patterns)",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.add_input(v)); }},
    {"--output-dir", "DIR", "with --run: write each out/inout tensor parameter to DIR/NAME.npy",
     [](cli_options& o, std::string_view v) -> std::string { return std::string(o.run.set_output_dir(v)); }},
    {"--emit", "tile|buffer|binary|pto|pto-generic",
     "tile/buffer: print the planned Tile IR (before lowering) or the final IR (default), implies --lower; "
     "binary: write the binary IR (to -o or stdout); pto: PTO-AS of the Buffer-stage kernels, its first line naming the "
     "--pto-level ptoas needs for it; pto-generic: the same in MLIR's generic op form",
     [](cli_options& o, std::string_view v) -> std::string {
       using F = cli_options::output_format;
       o.output_flag = "--emit";
       if (v == "binary" || v == "pto" || v == "pto-generic") {
         o.format = v == "binary" ? F::binary : v == "pto" ? F::pto : F::pto_generic;
         return {};
       }
       if (v != "tile" && v != "buffer") {
         constexpr std::string_view forms[] = {"tile", "buffer", "binary", "pto", "pto-generic"};
         return "--emit must be tile, buffer, binary, pto or pto-generic" + did_you_mean(v, forms);
       }
       o.emit_tile = v == "tile";
       o.pipeline = true;
       return {};
     }},
    {"--list-recipes",
     {},
     "print the registered recipe set: each Tile op's recipes (name, benefit, dtypes) or why it stays Tile",
     [](cli_options& o, std::string_view) -> std::string {
       o.list_recipes = true;
       return {};
     }},
    {"--list-ops",
     {},
     "print the op records: one tab-separated line per op, the last field the simulators that model it (docs/ops.md is generated from it)",
     [](cli_options& o, std::string_view) -> std::string {
       o.list_ops = true;
       return {};
     }},
    {"--list-passes",
     {},
     "print the default pipeline's passes in the order it runs them, one per line with what it does",
     [](cli_options& o, std::string_view) -> std::string {
       o.list_passes = true;
       return {};
     }},
    {"--quiet",
     {},
     "print no remarks on stderr (which kernels stay Tile); errors and warnings still print",
     [](cli_options& o, std::string_view) -> std::string {
       o.quiet = true;
       return {};
     }},
    {"--timing",
     {},
     "report the wall time of parsing, verification, each pass and printing on stderr",
     [](cli_options& o, std::string_view) -> std::string {
       o.timing = true;
       return {};
     }},
    {"--print-after-all",
     {},
     "print the program after every pass on stderr; implies --lower",
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
    {"--print-before-all",
     {},
     "print the program before every pass on stderr; implies --lower",
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
    {"--print-after-change",
     {},
     "with --print-after(-all): print only after a pass that changed the program",
     [](cli_options& o, std::string_view) -> std::string {
       o.print_after_change = true;
       return {};
     }},
    {"--print-after-failure",
     {},
     "when a pass fails, print the program it started from on stderr; implies --lower",
     [](cli_options& o, std::string_view) -> std::string {
       o.print_after_failure = true;
       o.pipeline = true;
       return {};
     }},
    {"--print-locations",
     {},
     "end every printed op and function header with its source location, as the comment "
     "'# loc(FILE:LINE:COL)' (also in --print-after/--print-before output); synthetic ops show the location they inherit",
     [](cli_options& o, std::string_view) -> std::string {
       o.print_locations = true;
       return {};
     }},
    {"--verify-roundtrip",
     {},
     "after every pass, write the program in the binary form, read it back and compare: the first pass "
     "whose output does not survive fails with 'Binary roundtrip failed' and what was lost (stage, name, location, operand, "
     "keyword or type field); implies --lower",
     [](cli_options& o, std::string_view) -> std::string {
       o.verify_roundtrip = true;
       o.pipeline = true;
       return {};
     }},
    {"--diagnostics", "text|json",
     "text (default): file:line:col, the source line and a caret; json: one JSON array on stderr with errors, "
     "warnings and remarks",
     [](cli_options& o, std::string_view v) -> std::string {
       if (v != "text" && v != "json") {
         constexpr std::string_view forms[] = {"text", "json"};
         return "--diagnostics must be text or json" + did_you_mean(v, forms);
       }
       o.diagnostics_json = v == "json";
       return {};
     }},
    {"--verify-pto-roundtrip",
     {},
     "with --emit=pto or pto-generic: read the PTO-AS back into Buffer IR (its generic form) and fail, "
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
static_assert(parse_limits{}.max_nesting == 64 && text_limits::max_depth_cap == 1024 && parse_limits{}.max_ops == 16777216 &&
                  parse_limits{}.max_name_length == 1024 && parse_limits{}.max_file_size == 1073741824,
              "update the help of --max-nesting, --max-ops, --max-name-length and --max-file-size");

/// `help` with the default pass set filled in, at run time, from `pass_names` (which
/// passes/table.hpp checks against `default_passes`): `{passes}` becomes the names joined by ", ",
/// `{pipeline}` joined by "," (a value --pass-pipeline takes as it stands). Why not written in
/// the help: written lists missed materialize_native_scratch when it became the first pass, and a
/// pipeline copied from them failed under --rollout=extended.
inline std::string with_pass_lists(std::string_view help) {
  std::string out(help);
  const auto fill = [&out](std::string_view key, std::string_view separator) {
    std::string names;
    for (const std::string_view n : pass_names) {
      if (!names.empty()) names.append(separator);
      names.append(n);
    }
    for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + names.size()))
      out.replace(at, key.size(), names);
  };
  fill("{passes}", ", ");
  fill("{pipeline}", ",");
  return out;
}

inline void usage(std::FILE* to) {
  std::fputs("usage: t2b-opt [options] [FILE|-]\n"
             "Reads a .t2b program (stdin when FILE is '-' or absent), verifies it and prints it canonically.\n"
             "options:\n",
             to);
  for (const flag& f : flags) {
    std::string left(f.name);
    if (!f.value_name.empty()) left.append(f.value_name.front() == '[' ? "" : " ").append(f.value_name);
    std::fprintf(to, "  %-20s %s\n", left.c_str(), with_pass_lists(f.help).c_str());
  }
}

/// Parses argv into `opts`; on a bad command line returns the message to print before the usage.
inline std::string parse_command_line(int argc, char** argv, cli_options& opts) {
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
  if (opts.verify_pto_roundtrip && opts.format != cli_options::output_format::pto &&
      opts.format != cli_options::output_format::pto_generic)
    return "--verify-pto-roundtrip reads back PTO-AS: it needs --emit=pto or --emit=pto-generic";
  if (!opts.pass_pipeline.empty()) {
    // Why errors rather than a guess: each of these would run passes the list does not name.
    if (opts.single_pass) return "--pass and --pass-pipeline exclude each other";
    const auto runs = [&](pass_id p) {
      return std::find(opts.pass_pipeline.begin(), opts.pass_pipeline.end(), name(p)) != opts.pass_pipeline.end();
    };
    if (opts.stop_after && !runs(*opts.stop_after)) return "--stop-after names a pass that --pass-pipeline does not run";
    if (opts.emit_tile && !runs(pass_id::plan)) return "--emit=tile stops after plan, which --pass-pipeline does not run";
  }
  // `t2b-opt --memory-map softmax.t2b` takes the kernel for the picture's path (and reads stdin):
  // never overwrite the input, nor an existing file that is not a picture.
  if (!opts.memory_map.empty()) {
    std::error_code ec;
    if (!opts.inputs.empty() &&
        (opts.memory_map == opts.inputs.front() || std::filesystem::equivalent(opts.memory_map, opts.inputs.front(), ec)))
      return "--memory-map names the input file '" + opts.memory_map + "'; refusing to overwrite it with the picture";
    if (std::FILE* f = std::fopen(opts.memory_map.c_str(), "rb")) {
      const int first = std::fgetc(f);
      std::fclose(f);
      if (first != EOF && first != '<')
        return "--memory-map would overwrite '" + opts.memory_map +
               "', which is not an SVG picture (write --memory-map=FILE.svg KERNEL)";
    }
  }
  // Why a usage error: "all" names three plans, and only the picture can show three at once.
  if (opts.all_planners && opts.memory_map.empty())
    return "--planner=all needs --memory-map FILE: only the memory map shows the three planners; "
           "the IR output needs one planner";
  return opts.help ? std::string() : opts.run.check(opts.check_numerics_seed.has_value(), opts.output_flag);
}

}  // namespace t2b_opt
