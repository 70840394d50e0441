// SPDX-License-Identifier: Apache-2.0
/// @file 04_host_compiler.cpp
/// What a host compiler does with the library: read a `.t2b` file, parse and verify it, ask which
/// kernels the default pipeline selects (and why the others stay Tile), lower with a chosen
/// planner, and print the Buffer IR — or the located diagnostics, leaving the input untouched.
///
///   04_host_compiler FILE [pypto|dsa_rp|ptoas]
///
/// Built against the separately compiled pipeline (`tile2buffer-pipeline`), as a host with many
/// translation units would be.
#include <cstdio>
#include <string>
#include <string_view>

#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace t2b = tile2buffer;

namespace {

bool read_file(const char* path, std::string& out) {
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return false;
  char buf[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const bool ok = std::ferror(f) == 0;
  std::fclose(f);
  return ok;
}

int fail(const std::vector<t2b::diagnostic>& errors, std::string_view file, std::string_view source) {
  const t2b::text report = t2b::format_all(errors, file, source);
  std::fwrite(report.view().data(), 1, report.size(), stderr);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fputs("usage: 04_host_compiler FILE [pypto|dsa_rp|ptoas]\n", stderr);
    return 2;
  }
  t2b::options opts{};
  if (argc == 3) {
    const std::string_view p = argv[2];
    if (p == "pypto") opts.planner = t2b::planner_kind::pypto;
    else if (p == "dsa_rp") opts.planner = t2b::planner_kind::dsa_rp;
    else if (p == "ptoas") opts.planner = t2b::planner_kind::ptoas;
    else {
      std::fprintf(stderr, "unknown planner '%s'\n", argv[2]);
      return 2;
    }
  }
  std::string source;
  if (!read_file(argv[1], source)) {
    std::fprintf(stderr, "cannot read '%s'\n", argv[1]);
    return 1;
  }
  // 1. Parse and verify: a host gets located diagnostics for malformed input, never a crash.
  const auto parsed = t2b::parse(source, argv[1]);
  if (!parsed) return fail(parsed.errors, argv[1], source);
  if (const auto errors = t2b::verify(parsed.value); !errors.empty()) return fail(errors, argv[1], source);

  // 2. Selection: which kernels become Buffer IR, and the first reason each other one stays Tile.
  //    It is explained on the program as the pipeline's select pass sees it (after init_storage).
  const auto storage = t2b::run_pipeline(parsed.value, opts, t2b::pass_id::init_storage);
  if (!storage) return fail(storage.errors, argv[1], source);
  for (const auto& e : t2b::explain_selection(storage.value, opts)) {
    if (e.selected) std::printf("@%s: selected\n", std::string(e.function.view()).c_str());
    else
      std::printf("@%s: stays Tile (%u:%u): %s\n", std::string(e.function.view()).c_str(), e.loc.line, e.loc.col,
                  std::string(e.reason.view()).c_str());
  }

  // 3. Lower. The input program is never modified, whatever happens.
  const t2b::program before = parsed.value;
  const auto lowered = t2b::lower(parsed.value, opts);
  if (!t2b::structurally_equal(before, parsed.value)) return 3;
  if (!lowered) return fail(lowered.errors, argv[1], source);
  const t2b::text out = t2b::print(lowered.value);
  std::fwrite(out.view().data(), 1, out.size(), stdout);
  return 0;
}
