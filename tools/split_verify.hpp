// SPDX-License-Identifier: Apache-2.0
/// @file tools/split_verify.hpp
/// mlir-opt's test habits for t2b-opt: `--split-input-file` (chunks separated by a line
/// `# -----`, each processed alone) and `--verify-diagnostics` (comments
/// `# expected-error@+N {{text}}` (or `@-N`, `@above`, `@below`), `expected-remark`, `expected-warning` name the diagnostics a
/// chunk must produce, and no others).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"

namespace t2b_split_verify {

/// The line that separates chunks, alone on its line (trailing blanks allowed).
inline constexpr std::string_view separator = "# -----";

inline std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

/// The chunks of `source`, each padded with one empty line per line before it, so that a
/// diagnostic's line is the line in the whole file.
inline std::vector<std::string> split_input(std::string_view source) {
  std::vector<std::string> chunks(1);
  std::size_t line = 0;
  for (std::size_t at = 0; at < source.size();) {
    const std::size_t end = std::min(source.find('\n', at), source.size());
    const std::string_view text = source.substr(at, end - at);
    ++line;
    if (trim_right(text) == separator) {
      chunks.emplace_back(line, '\n');  // the separator's line and those before it, empty
    } else {
      chunks.back().append(text);
      if (end < source.size()) chunks.back().push_back('\n');
    }
    at = end + 1;
  }
  return chunks;
}

/// One `expected-<kind>` comment: the diagnostic it asks for, at which line.
struct expectation {
  std::string kind;  ///< error, warning, remark or note
  std::uint32_t line = 0;
  std::string text;  ///< a substring of "<source>: <message>"
  bool seen = false;
};

/// The expectations written in `source`: a comment that starts with `expected-error {{text}}`
/// asks for it on the comment's own line, `expected-error@+N {{text}}` / `@-N` N lines below /
/// above it, `@below` / `@above` the line below / above it (mlir-opt's spellings). A malformed one
/// is reported in `problems`.
inline std::vector<expectation> parse_expectations(std::string_view source, std::string_view display,
                                                   std::vector<std::string>& problems) {
  std::vector<expectation> out;
  std::uint32_t line = 0;
  for (std::size_t at = 0; at <= source.size();) {
    const std::size_t end = std::min(source.find('\n', at), source.size());
    const std::string_view text = source.substr(at, end - at);
    ++line;
    at = end + 1;
    // Why only a comment that starts with it: prose about expectations must not be read as one.
    const std::size_t hash = text.find('#');
    if (hash == std::string_view::npos) continue;
    std::size_t key = hash + 1;
    while (key < text.size() && text[key] == ' ') ++key;
    if (!text.substr(key).starts_with("expected-")) continue;
    std::string_view rest = text.substr(key + 9);
    expectation e;
    for (const std::string_view kind : {"error", "warning", "remark", "note"})
      if (rest.starts_with(kind)) {
        e.kind = std::string(kind);
        rest.remove_prefix(kind.size());
        break;
      }
    const auto problem = [&](std::string_view why) {
      problems.push_back(std::string(display) + ":" + std::to_string(line) + ": " + std::string(why));
    };
    if (e.kind.empty()) {
      problem("expected-<kind> must be expected-error, expected-warning, expected-remark or expected-note");
      continue;
    }
    std::int64_t target = line;
    // mlir-opt's spellings for the neighbouring lines: a comment on its own line above or below
    // the op it is about, without counting.
    if (rest.starts_with("@above") || rest.starts_with("@below")) {
      target += rest[1] == 'a' ? -1 : 1;
      rest.remove_prefix(6);
    } else if (rest.starts_with('@')) {
      const bool up = rest.size() > 1 && rest[1] == '-';
      if (rest.size() < 3 || (rest[1] != '+' && !up)) {
        problem("an expected diagnostic's line offset is written @+N, @-N, @above or @below");
        continue;
      }
      std::int64_t n = 0;
      std::size_t i = 2;
      for (; i < rest.size() && rest[i] >= '0' && rest[i] <= '9' && n < 1000000; ++i) n = n * 10 + (rest[i] - '0');
      if (i == 2) {
        problem("an expected diagnostic's line offset is written @+N, @-N, @above or @below");
        continue;
      }
      target += up ? -n : n;
      rest.remove_prefix(i);
    }
    const std::size_t open = rest.find("{{");
    const std::size_t close = open == std::string_view::npos ? open : rest.find("}}", open + 2);
    if (close == std::string_view::npos || target < 1) {
      problem(target < 1 ? "an expected diagnostic's line is before the file's first line"
                         : "an expected diagnostic's text is written {{text}}");
      continue;
    }
    e.line = static_cast<std::uint32_t>(target);
    e.text = std::string(rest.substr(open + 2, close - open - 2));
    out.push_back(std::move(e));
  }
  return out;
}

/// Matches the errors and the notices (remarks, warnings: `source` names the kind) a chunk produced against its expectations; appends one line
/// per mismatch to `problems`.
inline void check(std::vector<expectation>& expected, const std::vector<tile2buffer::diagnostic>& errors,
                  const std::vector<tile2buffer::diagnostic>& notices, std::string_view display,
                  std::vector<std::string>& problems) {
  const auto match = [&](const tile2buffer::diagnostic& d, std::string_view kind, std::string said) {
    for (expectation& e : expected)
      if (!e.seen && e.kind == kind && e.line == d.loc.line && said.find(e.text) != std::string::npos) {
        e.seen = true;
        return;
      }
    problems.push_back(std::string(display) + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) +
                       ": unexpected " + std::string(kind) + ": " + said);
  };
  for (const tile2buffer::diagnostic& d : errors)
    match(d, "error", std::string(d.source.view()) + ": " + std::string(d.message.view()));
  for (const tile2buffer::diagnostic& d : notices) match(d, d.source.view(), std::string(d.message.view()));
  for (const expectation& e : expected)
    if (!e.seen)
      problems.push_back(std::string(display) + ":" + std::to_string(e.line) + ": expected " + e.kind + " \"" + e.text +
                         "\" was not produced");
}

}  // namespace t2b_split_verify
