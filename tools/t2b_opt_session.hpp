// SPDX-License-Identifier: Apache-2.0
/// @file tools/t2b_opt_session.hpp
/// One run of t2b-opt (the whole input, or one chunk of --split-input-file): where its input,
/// output and diagnostics are, and the --timing record and table.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "file_io.hpp"
#include "t2b_opt_options.hpp"

namespace t2b_opt {

using namespace tile2buffer;

/// What one run reads and measures: the input's name and text (for diagnostics with source
/// lines) and, with --timing, the wall time of each step.
struct session {
  const cli_options& opts;
  std::string display;
  std::string_view source;                            ///< the input: `read` or `mapped`'s bytes, or a chunk of them
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
        if (s.opts.timing)
          s.times.emplace_back(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
    } r{*this, name, t0};
    return step();
  }
};

/// The --timing table on stderr: wall time per step, its share, and the total.
inline void print_timing(const session& s) {
  double total = 0;
  for (const auto& [name, secs] : s.times) total += secs;
  std::fprintf(stderr, "t2b-opt timing (wall time, ms)\n");
  for (const auto& [name, secs] : s.times)
    std::fprintf(stderr, "  %10.3f  %5.1f%%  %s\n", secs * 1e3, total > 0 ? 100.0 * secs / total : 0.0, name.c_str());
  std::fprintf(stderr, "  %10.3f  100.0%%  total\n", total * 1e3);
}

}  // namespace t2b_opt
