// SPDX-License-Identifier: Apache-2.0
/// @file tools/tool_error.hpp
/// The tool's own errors and warnings (a file it cannot read or write, a bad command line, --run's
/// input and simulation errors, --run outputs never written): `t2b-opt: message` on stderr. With
/// --diagnostics=json everything the tool reports, the IR's diagnostics, its own errors, warnings
/// and remarks, is collected instead and written as one JSON array when the tool exits
/// (`json_flush`), so that stderr stays one document however many things went wrong; the tool's
/// own entries have source "t2b-opt" and line and column 0 (no source line).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"

namespace t2b_tools {

/// Set once from the command line, before anything is reported.
inline bool json_errors = false;

/// What --diagnostics=json has collected, each with the file its location is in.
struct json_entry {
  tile2buffer::diagnostic d;
  std::string file;
};
inline std::vector<json_entry> json_pending;

inline void json_add(const tile2buffer::diagnostic& d, std::string_view file) { json_pending.push_back({d, std::string(file)}); }

/// Writes what --diagnostics=json collected as one array on stderr (nothing when nothing was
/// reported); main calls it once, on its way out.
inline void json_flush() {
  if (json_pending.empty()) return;
  tile2buffer::text out;
  out << '[';
  for (std::size_t i = 0; i < json_pending.size(); ++i) {
    out << (i == 0 ? "\n  " : ",\n  ");
    tile2buffer::append_json(out, json_pending[i].d, json_pending[i].file);
  }
  out << "\n]\n";
  std::fwrite(out.view().data(), 1, out.size(), stderr);
  json_pending.clear();
}

/// Prints `extra` (IR diagnostics that explain the error, e.g. where a simulation stopped) after
/// the tool's message; returns 1, the exit status of a failed run.
inline int tool_error(std::string_view message, std::string_view file = {},
                      const std::vector<tile2buffer::diagnostic>& extra = {}) {
  using namespace tile2buffer;
  if (json_errors) {
    json_add(diagnostic{location{}, text("t2b-opt"), text(message), {}}, file);
    for (const diagnostic& d : extra) json_add(d, file);
  } else {
    std::fprintf(stderr, "t2b-opt: %.*s\n", static_cast<int>(message.size()), message.data());
    if (!extra.empty()) {
      const text t = format_all(extra, file);
      std::fwrite(t.view().data(), 1, t.size(), stderr);
    }
  }
  return 1;
}

/// A warning of the tool's own (`t2b-opt: warning: message`); the run goes on.
inline void tool_warning(std::string_view message) {
  using namespace tile2buffer;
  if (json_errors) json_add(diagnostic{location{}, text("t2b-opt"), text(message), {}, severity::warning}, {});
  else std::fprintf(stderr, "t2b-opt: warning: %.*s\n", static_cast<int>(message.size()), message.data());
}

}  // namespace t2b_tools
