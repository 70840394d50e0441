// SPDX-License-Identifier: Apache-2.0
/// @file t2b-opt.cpp
/// The `mlir-opt`-style driver: reads a `.t2b` file (or stdin), parses and verifies it, and
/// prints the canonical text. Exit codes: 0 success, 1 input errors, 2 bad command line.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <optional>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/emit/memory_map.hpp"
#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/sim/compare.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace {

using namespace tile2buffer;

/// Everything the command line can set. A new flag adds a field here and a row in `flags`.
struct cli_options {
  bool help = false;
  bool verify_only = false;
  std::string output = "-";
  std::vector<std::string> inputs;
  // Pipeline: runs when any pipeline flag is given.
  bool pipeline = false;
  tile2buffer::options pass_options{};
  bool explain_selection = false;
  std::optional<pass_id> stop_after;
  std::optional<pass_id> single_pass;
  parallelism workers{};
  bool emit_tile = false;
  /// What is written: canonical text, the binary IR, or PTO-AS (custom or MLIR generic form).
  enum class output_format { text, binary, pto, pto_generic } format = output_format::text;
  std::string pto_kernel;
  std::optional<std::uint64_t> check_numerics_seed;
  std::vector<tile2buffer::sim::scalar_binding> scalars;  ///< --scalar NAME=VALUE, for --check-numerics
  std::string memory_map;    ///< --memory-map FILE: the SVG of the plan, besides the normal output
  bool all_planners = false;  ///< --planner=all: one memory-map column per planner
};

template <class E, std::size_t N>
std::optional<E> pick(const std::string_view (&names)[N], std::string_view v) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == v) return static_cast<E>(i);
  return std::nullopt;
}

/// One command-line flag: `--name` or, when it takes a value, `--name=V` / `--name V`.
/// `apply` returns an error message, or an empty view when the value is accepted.
struct flag {
  std::string_view name;
  std::string_view value_name;  ///< empty: the flag takes no value
  std::string_view help;
  std::string_view (*apply)(cli_options&, std::string_view value);
};

constexpr flag flags[] = {
    {"--help", {}, "print this help and exit",
     [](cli_options& o, std::string_view) -> std::string_view {
       o.help = true;
       return {};
     }},
    {"--verify-only", {}, "parse and verify; print nothing on success",
     [](cli_options& o, std::string_view) -> std::string_view {
       o.verify_only = true;
       return {};
     }},
    {"-o", "FILE", "write the output to FILE instead of stdout ('-')",
     [](cli_options& o, std::string_view v) -> std::string_view {
       if (v.empty()) return "-o needs a file name";
       o.output = std::string(v);
       return {};
     }},
    {"--lower", {}, "run the default pipeline (init_storage .. verify_buffer)",
     [](cli_options& o, std::string_view) -> std::string_view {
       o.pipeline = true;
       return {};
     }},
    {"--planner", "P", "memory planner: pypto (default), dsa_rp or ptoas; implies --lower. "
     "all (only with --memory-map): draw the three side by side, the output uses pypto",
     [](cli_options& o, std::string_view v) -> std::string_view {
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
     [](cli_options& o, std::string_view v) -> std::string_view {
       if (v.empty()) return "--memory-map needs a file name";
       if (v == "-") return "--memory-map needs a file name, not '-': stdout carries the IR output";
       o.memory_map = std::string(v);
       o.pipeline = true;
       return {};
     }},
    {"--target", "T", "target: a2a3 (default) or a5; implies --lower",
     [](cli_options& o, std::string_view v) -> std::string_view {
       const auto t = parse_target(v);
       if (!t) return "--target must be a2a3 or a5";
       o.pass_options.target = *t;
       o.pipeline = true;
       return {};
     }},
    {"--no-buffer-ir", {}, "enable_buffer_ir = false: every kernel keeps Tile IR; implies --lower",
     [](cli_options& o, std::string_view) -> std::string_view {
       o.pass_options.enable_buffer_ir = false;
       o.pipeline = true;
       return {};
     }},
    {"--no-verify", {}, "skip structural verification of the pipeline's input and output (the checking passes still run)",
     [](cli_options& o, std::string_view) -> std::string_view {
       o.pass_options.verify = false;
       return {};
     }},
    {"--verify-each", {}, "also verify the program structurally after every pass (for debugging a pass)",
     [](cli_options& o, std::string_view) -> std::string_view {
       o.pass_options.verify_each = true;
       return {};
     }},
    {"--workers", "N", "lower the kernels on N threads (0: one per hardware thread); the output does not change",
     [](cli_options& o, std::string_view v) -> std::string_view {
       unsigned n = 0;
       if (v.empty() || v.size() > 4) return "--workers: expected a number from 0 to 9999";
       for (const char c : v) {
         if (c < '0' || c > '9') return "--workers: expected a number from 0 to 9999";
         n = n * 10 + static_cast<unsigned>(c - '0');
       }
       o.workers = parallelism{n};
       return {};
     }},
    {"--explain-selection", {}, "print one line per kernel: selected, or why it stays Tile",
     [](cli_options& o, std::string_view) -> std::string_view {
       o.explain_selection = true;
       o.pipeline = true;
       return {};
     }},
    {"--stop-after", "PASS", "stop the pipeline after PASS (init_storage, select, legalize, verify_tile_storage, plan, lower, verify_buffer)",
     [](cli_options& o, std::string_view v) -> std::string_view {
       o.stop_after = parse_pass(v);
       if (!o.stop_after) return "--stop-after: unknown pass";
       o.pipeline = true;
       return {};
     }},
    {"--pass", "PASS", "run only PASS on the input (e.g. lower on already planned IR)",
     [](cli_options& o, std::string_view v) -> std::string_view {
       o.single_pass = parse_pass(v);
       if (!o.single_pass) return "--pass: unknown pass";
       o.pipeline = true;
       return {};
     }},
    {"--check-numerics", "[=SEED]", "lower, run Tile and Buffer IR in the reference simulator on seeded inputs, compare (unbound BOOL parameters: both values)",
     [](cli_options& o, std::string_view v) -> std::string_view {
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
    {"--scalar", "NAME=VALUE", "with --check-numerics: bind scalar parameter NAME (repeatable; BOOL is 0 or 1)",
     [](cli_options& o, std::string_view v) -> std::string_view {
       const std::size_t eq = v.find('=');
       if (eq == 0 || eq == std::string_view::npos || eq + 1 == v.size()) return "--scalar needs NAME=VALUE";
       const std::string value(v.substr(eq + 1));
       char* end = nullptr;
       const double d = std::strtod(value.c_str(), &end);
       if (end != value.c_str() + value.size() || !std::isfinite(d)) return "--scalar: VALUE must be a finite number";
       o.scalars.push_back(tile2buffer::sim::scalar_binding{std::string(v.substr(0, eq)), d});
       return {};
     }},
    {"--emit", "tile|buffer|binary|pto|pto-generic",
     "tile/buffer: print the planned Tile IR (before lowering) or the final IR (default), implies --lower; "
     "binary: write the binary IR (to -o or stdout); pto: PTO-AS of the Buffer-stage kernels; pto-generic: the same "
     "in MLIR's generic op form",
     [](cli_options& o, std::string_view v) -> std::string_view {
       using F = cli_options::output_format;
       if (v == "binary" || v == "pto" || v == "pto-generic") {
         o.format = v == "binary" ? F::binary : v == "pto" ? F::pto : F::pto_generic;
         return {};
       }
       if (v != "tile" && v != "buffer") return "--emit must be tile, buffer, binary, pto or pto-generic";
       o.emit_tile = v == "tile";
       o.pipeline = true;
       return {};
     }},
    {"--pto-kernel", "NAME", "with --emit=pto or pto-generic: emit only the function @NAME",
     [](cli_options& o, std::string_view v) -> std::string_view {
       if (v.empty()) return "--pto-kernel needs a function name";
       o.pto_kernel = std::string(v.front() == '@' ? v.substr(1) : v);
       return {};
     }},
};

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
    if (hit == nullptr) return "unknown option '" + std::string(key) + "'";
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
    if (const std::string_view err = hit->apply(opts, value); !err.empty()) return std::string(err);
  }
  if (opts.inputs.size() > 1) return "expected at most one input file";
  // Why a usage error: "all" names three plans, and only the picture can show three at once.
  if (opts.all_planners && opts.memory_map.empty())
    return "--planner=all needs --memory-map FILE: only the memory map shows the three planners; "
           "the IR output needs one planner";
  return {};
}

bool read_all(std::FILE* in, std::string& out) {
  char buf[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, in)) > 0) out.append(buf, n);
  return std::ferror(in) == 0;
}

bool read_input(const std::string& path, std::string& out) {
  if (path == "-") return read_all(stdin, out);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const bool ok = read_all(f, out);
  std::fclose(f);
  return ok;
}

bool write_output(const std::string& path, std::string_view s) {
  std::FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  bool ok = std::fwrite(s.data(), 1, s.size(), f) == s.size();
  ok = (f == stdout ? std::fflush(f) : std::fclose(f)) == 0 && ok;
  return ok;
}

int report(const std::vector<diagnostic>& errors, std::string_view file) {
  const text t = format_all(errors, file);
  std::fwrite(t.view().data(), 1, t.size(), stderr);
  return 1;
}

/// Runs the requested passes; prints the selection explanation when asked.
result<program> run_passes(const cli_options& opts, const program& prog) {
  if (opts.single_pass) {
    result<program> r = run_pass(*opts.single_pass, prog, opts.pass_options);
    if (r.ok() && (opts.pass_options.verify || opts.pass_options.verify_each)) r.errors = verify(r.value);
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
  return run_pipeline(prog, opts.pass_options, stop, opts.workers);
}

/// Runs every kernel that was lowered in both simulators and prints one verdict per kernel.
int check_numerics(const cli_options& opts, const program& tile_program, const program& lowered) {
  bool all_ok = true;
  int compared = 0;
  for (const auto& f : lowered.functions) {
    const function* before = tile_program.find(f.name_of());
    if (!f.is_device() || f.stage != ir_stage::buffer || before == nullptr || before->stage != ir_stage::tile) continue;
    // Both arms of every branch: BOOL parameters not bound by --scalar run once all false and
    // once all true (integer loop bounds already default to two trips, see sim/options.hpp).
    std::vector<std::vector<sim::scalar_binding>> runs{opts.scalars};
    for (const auto& p : before->params) {
      const std::string_view pname = before->name_of(p.value);
      const type& t = before->type_of(p.value);
      bool bound = false;
      for (const auto& b : opts.scalars) bound = bound || b.name == pname;
      if (!t.is_scalar() || t.dt != dtype::bool_ || bound) continue;
      if (runs.size() == 1) runs.push_back(opts.scalars);
      runs[0].push_back(sim::scalar_binding{std::string(pname), 0.0});
      runs[1].push_back(sim::scalar_binding{std::string(pname), 1.0});
    }
    sim::compare_report r;
    for (const auto& run : runs) {
      sim::sim_options so;
      so.seed = *opts.check_numerics_seed;
      so.scalars = run;
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
  if (compared == 0) std::printf("numerics: no kernel was lowered to Buffer IR; nothing to compare\n");
  std::fflush(stdout);
  return all_ok ? 0 : 1;
}

/// Plans `prog` with the chosen planner (or all three) and writes the SVG. Why a separate run of
/// the pipeline up to `plan`: the normal output goes on to `lower`, which replaces the tile.alloc
/// ops the picture is read from; and --stop-after or --pass must not change what is drawn.
int write_memory_map(const cli_options& opts, const program& prog, const std::string& display) {
  std::vector<memory_map_panel> panels;
  for (const planner_kind p : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
    if (!opts.all_planners && p != opts.pass_options.planner) continue;
    tile2buffer::options o = opts.pass_options;
    o.planner = p;
    const result<program> planned = run_pipeline(prog, o, pass_id::plan, opts.workers);
    if (!planned) return report(planned.errors, display);
    panels.push_back(memory_map_of(planned.value, p));
  }
  const text svg = render_memory_map(panels, display);
  std::FILE* f = std::fopen(opts.memory_map.c_str(), "wb");
  bool ok = f != nullptr && std::fwrite(svg.view().data(), 1, svg.size(), f) == svg.size();
  if (f != nullptr) ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "t2b-opt: cannot write the memory map to '%s'\n", opts.memory_map.c_str());
    return 1;
  }
  return 0;
}

/// The work itself: parse, verify, run passes when asked, print.
int run(const cli_options& opts) {
  const std::string path = opts.inputs.empty() ? std::string("-") : opts.inputs.front();
  const std::string display = path == "-" ? std::string("<stdin>") : path;
  std::string source;
  if (!read_input(path, source)) {
    std::fprintf(stderr, "t2b-opt: cannot read '%s'\n", display.c_str());
    return 1;
  }
  // Binary IR is recognized by its envelope header; anything else is read as .t2b text.
  result<program> parsed = is_binary(source) ? deserialize(source) : parse(source, display);
  if (!parsed) return report(parsed.errors, display);
  if (const auto errors = verify(parsed.value); !errors.empty()) return report(errors, display);
  const program tile_input = opts.check_numerics_seed ? parsed.value : program{};
  if (!opts.memory_map.empty())
    if (const int rc = write_memory_map(opts, parsed.value, display); rc != 0) return rc;
  if (opts.pipeline) {
    result<program> lowered = run_passes(opts, parsed.value);
    if (!lowered) return report(lowered.errors, display);
    parsed.value = static_cast<program&&>(lowered.value);
  }
  if (opts.check_numerics_seed) return check_numerics(opts, tile_input, parsed.value);
  if (opts.verify_only || opts.explain_selection) return 0;
  text out;
  using F = cli_options::output_format;
  if (opts.format == F::binary) {
    const auto bin = serialize(parsed.value);
    if (!bin) return report(bin.errors, display);
    out.append(std::string_view(reinterpret_cast<const char*>(bin.value.data()), bin.value.size()));
  } else if (opts.format == F::pto || opts.format == F::pto_generic) {
    auto pto = emit_pto(parsed.value, pto_options{.generic = opts.format == F::pto_generic, .kernel = opts.pto_kernel});
    if (!pto) return report(pto.errors, display);
    out = static_cast<text&&>(pto.value);
  } else {
    out = print(parsed.value);
  }
  if (!write_output(opts.output, out.view())) {
    std::fprintf(stderr, "t2b-opt: cannot write '%s'\n", opts.output.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cli_options opts;
  if (const std::string err = parse_command_line(argc, argv, opts); !err.empty()) {
    std::fprintf(stderr, "t2b-opt: %s\n", err.c_str());
    usage(stderr);
    return 2;
  }
  if (opts.help) {
    usage(stdout);
    return 0;
  }
  return run(opts);
}
