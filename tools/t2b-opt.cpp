// SPDX-License-Identifier: Apache-2.0
/// @file t2b-opt.cpp
/// The `mlir-opt`-style driver: reads a `.t2b` file (or stdin), parses and verifies it, and
/// prints the canonical text. Exit codes: 0 success, 1 input errors, 2 bad command line.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace {

using namespace tile2buffer;

/// Everything the command line can set. A new flag adds a field here and a row in `flags`.
struct options {
  bool help = false;
  bool verify_only = false;
  std::string output = "-";
  std::vector<std::string> inputs;
};

/// One command-line flag: `--name` or, when it takes a value, `--name=V` / `--name V`.
/// `apply` returns an error message, or an empty view when the value is accepted.
struct flag {
  std::string_view name;
  std::string_view value_name;  ///< empty: the flag takes no value
  std::string_view help;
  std::string_view (*apply)(options&, std::string_view value);
};

constexpr flag flags[] = {
    {"--help", {}, "print this help and exit",
     [](options& o, std::string_view) -> std::string_view {
       o.help = true;
       return {};
     }},
    {"--verify-only", {}, "parse and verify; print nothing on success",
     [](options& o, std::string_view) -> std::string_view {
       o.verify_only = true;
       return {};
     }},
    {"-o", "FILE", "write the output to FILE instead of stdout ('-')",
     [](options& o, std::string_view v) -> std::string_view {
       if (v.empty()) return "-o needs a file name";
       o.output = std::string(v);
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
    if (!f.value_name.empty()) left.append(" ").append(f.value_name);
    std::fprintf(to, "  %-20s %.*s\n", left.c_str(), static_cast<int>(f.help.size()), f.help.data());
  }
}

/// Parses argv into `opts`; on a bad command line returns the message to print before the usage.
std::string parse_command_line(int argc, char** argv, options& opts) {
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
    if (hit->value_name.empty()) {
      if (eq != std::string_view::npos) return "option '" + std::string(key) + "' takes no value";
    } else if (eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return "option '" + std::string(key) + "' needs a value";
    }
    if (const std::string_view err = hit->apply(opts, value); !err.empty()) return std::string(err);
  }
  if (opts.inputs.size() > 1) return "expected at most one input file";
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

/// The work itself: parse, verify, (passes go here), print.
int run(const options& opts) {
  const std::string path = opts.inputs.empty() ? std::string("-") : opts.inputs.front();
  const std::string display = path == "-" ? std::string("<stdin>") : path;
  std::string source;
  if (!read_input(path, source)) {
    std::fprintf(stderr, "t2b-opt: cannot read '%s'\n", display.c_str());
    return 1;
  }
  result<program> parsed = parse(source, display);
  if (!parsed) return report(parsed.errors, display);
  const program& prog = parsed.value;
  if (const auto errors = verify(prog); !errors.empty()) return report(errors, display);
  if (opts.verify_only) return 0;
  const text out = print(prog);
  if (!write_output(opts.output, out.view())) {
    std::fprintf(stderr, "t2b-opt: cannot write '%s'\n", opts.output.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  options opts;
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
