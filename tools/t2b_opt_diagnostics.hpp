// SPDX-License-Identifier: Apache-2.0
/// @file tools/t2b_opt_diagnostics.hpp
/// What t2b-opt reports about the IR: errors (`report`), remarks and warnings (`notice`), on
/// stderr as text or --diagnostics=json, or captured for --verify-diagnostics. The notices are
/// the library's (`result::notices`: kernels that stay Tile, PTOAS overflow), printed here.
/// The tool's own errors (unreadable files, bad flags) are tools/tool_error.hpp's.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/lower.hpp"
#include "t2b_opt_session.hpp"
#include "tool_error.hpp"

namespace t2b_opt {

using namespace tile2buffer;

inline int report(const session& s, const std::vector<diagnostic>& errors) {
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

/// A remark or warning (the library's notices, or the tool's own), `file:line:col: KIND: text` on
/// stderr (`file: KIND: text` without a location; remarks only without --quiet);
/// collected instead under --verify-diagnostics, where `expected-KIND` matches it.
inline void notice(const session& s, const diagnostic& d) {
  const std::string_view kind = name(d.level);
  const std::string_view message = d.message.view();
  if (s.notices != nullptr) {
    s.notices->push_back(diagnostic{d.loc, text(kind), d.message, {}});
    return;
  }
  if (s.opts.quiet && d.level == severity::remark) return;
  if (t2b_tools::json_errors) {
    t2b_tools::json_add(d, s.display);
    return;
  }
  if (!d.loc.known()) {  // about the whole input
    std::fprintf(stderr, "%s: %.*s: %.*s\n", s.display.c_str(), static_cast<int>(kind.size()), kind.data(),
                 static_cast<int>(message.size()), message.data());
    return;
  }
  std::fprintf(stderr, "%s:%u:%u: %.*s: %.*s\n", s.display.c_str(), d.loc.line, d.loc.col, static_cast<int>(kind.size()),
               kind.data(), static_cast<int>(message.size()), message.data());
}
/// A remark of the tool's own (--verify-roundtrip's).
inline void remark(const session& s, location loc, std::string_view message) {
  notice(s, diagnostic{loc, text("t2b-opt"), text(message), {}, severity::remark});
}

/// The library's remark on a kernel left Tile, worded for PTO-AS output, which leaves it out
/// (`@k stays Tile, not emitted: ...`).
inline diagnostic not_emitted(diagnostic d) {
  const std::string_view m = d.message.view();
  const std::size_t at = m.find(" stays Tile");
  if (at == std::string_view::npos) return d;
  const std::size_t end = at + std::string_view(" stays Tile").size();
  d.message = text(m.substr(0, end)) << ", not emitted" << m.substr(end);
  return d;
}

}  // namespace t2b_opt
