// SPDX-License-Identifier: Apache-2.0
/// @file tools/tool_error.hpp
/// The tool's own errors (a file it cannot read or write, a bad command line, --run's input and
/// simulation errors): `t2b-opt: message` on stderr, or with --diagnostics=json the same JSON
/// array as the IR's diagnostics, with source "t2b-opt" and line and column 0 (no source line).
#pragma once

#include <cstdio>
#include <string_view>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"

namespace t2b_tools {

/// Set once from the command line, before anything is reported.
inline bool json_errors = false;

/// Prints `extra` (IR diagnostics that explain the error, e.g. where a simulation stopped) after
/// the tool's message; returns 1, the exit status of a failed run.
inline int tool_error(std::string_view message, std::string_view file = {}, const std::vector<tile2buffer::diagnostic>& extra = {}) {
  using namespace tile2buffer;
  if (json_errors) {
    std::vector<diagnostic> all{diagnostic{location{}, text("t2b-opt"), text(message), {}}};
    all.insert(all.end(), extra.begin(), extra.end());
    const text t = format_json(all, file);
    std::fwrite(t.view().data(), 1, t.size(), stderr);
  } else {
    std::fprintf(stderr, "t2b-opt: %.*s\n", static_cast<int>(message.size()), message.data());
    if (!extra.empty()) {
      const text t = format_all(extra, file);
      std::fwrite(t.view().data(), 1, t.size(), stderr);
    }
  }
  return 1;
}

}  // namespace t2b_tools
