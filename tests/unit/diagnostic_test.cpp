// SPDX-License-Identifier: Apache-2.0
// Diagnostic rendering: the source line and caret under the location (text) and the JSON form.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"

using namespace tile2buffer;

namespace {
constexpr std::string_view source = "first line\n\tx = bad(y)\r\nlast";

constexpr diagnostic at(std::uint32_t line, std::uint32_t col, std::string_view message) {
  return diagnostic{location{line, col}, text("parse"), text(message), {}};
}
constexpr bool renders(const diagnostic& d, std::string_view want) { return format(d, "k.t2b", source).view() == want; }

// The caret sits under the column; a tab before it stays a tab; a CR line end is not shown.
static_assert(renders(at(2, 6, "unknown op"), "k.t2b:2:6: error: parse: unknown op\n\tx = bad(y)\n\t    ^\n"));
// No excerpt for a line or column the source does not have, nor without a location.
static_assert(renders(at(9, 1, "past the end"), "k.t2b:9:1: error: parse: past the end\n"));
static_assert(renders(at(1, 40, "past the line"), "k.t2b:1:40: error: parse: past the line\n"));
static_assert(renders(at(0, 0, "nowhere"), "k.t2b:0:0: error: parse: nowhere\n"));
// The column just past the last character still gets its caret (an error at end of line).
static_assert(renders(at(3, 5, "eof"), "k.t2b:3:5: error: parse: eof\nlast\n    ^\n"));
// Control bytes other than tab are shown as '?'; a long line is cut to a window around the column.
constexpr std::string_view hostile{"a\0b\x1b[31mc", 9};
static_assert(format(at(1, 3, "nul"), "k.t2b", hostile).view() == "k.t2b:1:3: error: parse: nul\na?b?[31mc\n  ^\n");
constexpr bool long_line_is_cut() {
  text line;
  for (int i = 0; i < 1000; ++i) line << 'x';
  const text out = format(at(1, 500, "deep"), "k.t2b", line.view());
  text want;
  want << "k.t2b:1:500: error: parse: deep\n...";
  for (int i = 0; i < 120; ++i) want << 'x';
  want << "...\n   ";
  for (int i = 0; i < 60; ++i) want << ' ';
  want << "^\n";
  return out.view() == want.view();
}
static_assert(long_line_is_cut());
// Without the source, the format is the one-line form.
static_assert(format(at(2, 6, "unknown op"), "k.t2b").view() == "k.t2b:2:6: error: parse: unknown op\n");

/// One diagnostic (or none, for an empty message) as JSON. Why built in the body: g++-12 cannot
/// constant-evaluate an initializer list of class objects into the vector.
constexpr bool json_is(std::string_view message, std::string_view want) {
  std::vector<diagnostic> ds;
  if (!message.empty()) ds.push_back(at(2, 6, message));
  return format_json(ds, "k.t2b").view() == want;
}
static_assert(json_is("", "[]\n"));
static_assert(json_is("a \"q\" \\ b\tc\x01",
                      "[\n  {\"file\": \"k.t2b\", \"line\": 2, \"col\": 6, \"severity\": \"error\", \"source\": \"parse\", "
                      "\"message\": \"a \\\"q\\\" \\\\ b\\tc\\u0001\", \"notes\": [], \"function\": \"\"}\n]\n"));
}  // namespace

TEST_CASE("diagnostic JSON keeps valid UTF-8 and replaces each invalid byte") {
  // "é" (C3 A9) and "€" (E2 82 AC) stay; a lone continuation byte, a truncated sequence, an
  // overlong form (C0 80) and a surrogate (ED A0 80) each become U+FFFD per byte that starts one.
  const std::string msg = "\xc3\xa9 \xe2\x82\xac \x80 \xe2\x82 \xc0\x80 \xed\xa0\x80";
  const text out = format_json({diagnostic{location{1, 1}, text("verify"), text(msg), {}}}, "k.t2b");
  const std::string_view v = out.view();
  CHECK(v.find("\"message\": \"\xc3\xa9 \xe2\x82\xac \\ufffd \\ufffd\\ufffd \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\"") !=
        std::string_view::npos);
}

TEST_CASE("diagnostic notes get their own excerpt and JSON entry") {
  diagnostic d = at(2, 2, "bad use");
  d.notes.push_back(note{location{1, 7}, text("defined here")});
  CHECK(std::string(format(d, "k.t2b", source).view()) ==
        "k.t2b:2:2: error: parse: bad use\n\tx = bad(y)\n\t^\nk.t2b:1:7: note: defined here\nfirst line\n      ^\n");
  CHECK(std::string(format_json({d}, "k.t2b").view())
            .find("\"notes\": [{\"line\": 1, \"col\": 7, \"message\": \"defined here\"}]") != std::string::npos);
}

TEST_CASE("a diagnostic that names its function ends with the kernel's name, and JSON gives it") {
  diagnostic d = at(2, 6, "unknown op");
  d.function = text("row_max");
  CHECK(std::string(format(d, "k.t2b").view()) == "k.t2b:2:6: error: parse: unknown op\nk.t2b:2:6: note: in kernel @row_max\n");
  text json;
  append_json(json, d, "k.t2b");
  CHECK(json.view().ends_with(R"("notes": [], "function": "row_max"})"));
}
