// SPDX-License-Identifier: Apache-2.0
/// @file diag/diagnostic.hpp
/// Runtime diagnostics and the `result<T>` every pass returns. One format everywhere:
/// `file:line:col: error: [source]: message` followed by `note:` lines (`warning:` and `remark:` for
/// the notices a result carries beside its value), and `note: in kernel @name` when the
/// diagnostic names its function.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/location.hpp"

namespace tile2buffer {
inline namespace v0 {

struct note {
  location loc;
  text message;
};

/// How bad a diagnostic is. An error fails the result; a warning or remark (a kernel that stays
/// Tile, a PTOAS overflow, a run output never written) is a notice: the result holds its value too.
enum class severity : std::uint8_t { error, warning, remark };
constexpr std::string_view name(severity s) {
  return s == severity::error ? "error" : s == severity::warning ? "warning" : "remark";
}

struct diagnostic {
  location loc;
  text source;  ///< the pass, rule or recipe that reports it (e.g. "verify", "lower-add")
  text message;
  std::vector<note> notes;
  severity level = severity::error;
  /// The function whose IR it is about (without `@`), empty when it is about none or unknown: the
  /// pipeline and the verifier fill it, so a diagnostic at `<host>:0:0` still names its kernel.
  text function{};
};

namespace detail {
/// Appends line `l.line` of `source` and a caret under column `l.col`; nothing when the source has
/// no such line or column. Tabs are kept (so the caret lines up in a terminal) and other control
/// bytes shown as '?' (a NUL or escape in hostile input must not reach the terminal); a line
/// longer than `width` is cut to a window around the column, marked with "...".
constexpr void append_excerpt(text& out, std::string_view source, location l, std::size_t width = 120) {
  if (source.empty() || l.line == 0 || l.col == 0) return;
  std::size_t begin = 0;
  for (std::uint32_t line = 1; line < l.line; ++line) {
    const std::size_t nl = source.find('\n', begin);
    if (nl == std::string_view::npos) return;
    begin = nl + 1;
  }
  std::size_t end = source.find('\n', begin);
  if (end == std::string_view::npos) end = source.size();
  if (end > begin && source[end - 1] == '\r') --end;
  std::string_view line = source.substr(begin, end - begin);
  std::size_t col = l.col - 1;  // 0-based byte column
  if (col > line.size()) return;
  const bool cut_front = line.size() > width && col > width / 2;
  if (cut_front) {
    const std::size_t from = col - width / 2;
    line = line.substr(from);
    col -= from;
  }
  const bool cut_back = line.size() > width;
  if (cut_back) line = line.substr(0, width);
  if (cut_front) out << "...";
  for (const char c : line) out << (c == '\t' || static_cast<unsigned char>(c) >= 0x20 ? c : '?');
  out << (cut_back ? "...\n" : "\n");
  if (cut_front) out << "   ";
  for (std::size_t i = 0; i < col; ++i) out << (line[i] == '\t' ? '\t' : ' ');
  out << "^\n";
}
}  // namespace detail

/// Renders one diagnostic in the project's format; `file` may be empty. With the input's text as
/// `source`, each location is followed by its source line and a caret under the column, as clang
/// and mlir-opt print them.
template <class = void>
constexpr text format(const diagnostic& d, std::string_view file, std::string_view source = {}) {
  text out;
  const auto where = [&](location l) {
    out << (file.empty() ? std::string_view("<input>") : file) << ':' << static_cast<std::int64_t>(l.line) << ':'
        << static_cast<std::int64_t>(l.col) << ": ";
  };
  where(d.loc);
  out << name(d.level) << ": ";
  if (!d.source.empty()) out << d.source << ": ";
  out << d.message << '\n';
  detail::append_excerpt(out, source, d.loc);
  for (const auto& n : d.notes) {
    const location at = n.loc.known() ? n.loc : d.loc;
    where(at);
    out << "note: " << n.message << '\n';
    if (n.loc.known()) detail::append_excerpt(out, source, at);
  }
  // Why a trailing note, not a prefix: every existing `file:line:col: error: ...` line keeps its
  // form (FileCheck patterns and editors' parsers match it), and mlir-opt prints context the same way.
  if (!d.function.empty()) {
    where(d.loc);
    out << "note: in kernel @" << d.function << '\n';
  }
  return out;
}

/// A value or the diagnostics explaining why there is none. `T` must be default-constructible.
/// `notices` are the warnings and remarks produced on the way (a kernel that stays Tile, ...):
/// they never fail the result, and a failed result may hold them too. Empty on the common path,
/// so an unused vector costs nothing.
template <class T>
struct result {
  T value{};
  std::vector<diagnostic> errors;
  std::vector<diagnostic> notices{};

  [[nodiscard]] constexpr bool ok() const noexcept { return errors.empty(); }
  constexpr explicit operator bool() const noexcept { return ok(); }
  constexpr void fail(location loc, std::string_view source, std::string_view message) {
    errors.push_back(diagnostic{loc, text(source), text(message), {}});
  }
  constexpr void fail(location loc, std::string_view source, const text& message) { fail(loc, source, message.view()); }
};

/// Names `function` as the function of each diagnostic of `ds` from `first` on that names none
/// (a pass's per-function loop, after checking one function).
constexpr void name_function(std::vector<diagnostic>& ds, std::string_view function, std::size_t first = 0) {
  for (std::size_t k = first; k < ds.size(); ++k)
    if (ds[k].function.empty()) ds[k].function = text(function);
}

/// All diagnostics of a result, formatted (with source excerpts when `source` is given).
template <class = void>
constexpr text format_all(const std::vector<diagnostic>& ds, std::string_view file, std::string_view source = {}) {
  text out;
  for (const auto& d : ds) out << format<>(d, file, source);
  return out;
}

namespace detail {
/// Appends `s` as a JSON string. Why the UTF-8 check: names come from the input, and a JSON
/// reader rejects invalid UTF-8, so each invalid byte becomes U+FFFD.
constexpr void append_json_string(text& out, std::string_view s) {
  constexpr std::string_view hex = "0123456789abcdef";
  out << '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out << '\\' << static_cast<char>(c);
    } else if (c == '\n') {
      out << "\\n";
    } else if (c == '\t') {
      out << "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out << "\\u00" << hex[c >> 4] << hex[c & 15];
    } else if (c < 0x80) {
      out << static_cast<char>(c);
    } else {
      // Length of a well-formed sequence starting here (0 if ill-formed), per RFC 3629.
      std::size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
      if (n != 0 && i + n <= s.size()) {
        const auto b1 = static_cast<unsigned char>(s[i + 1]);
        const unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
        const unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
        bool ok = b1 >= lo && b1 <= hi;
        for (std::size_t k = 2; k < n && ok; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
        if (!ok) n = 0;
      } else {
        n = 0;
      }
      if (n == 0) {
        out << "\\ufffd";
        ++i;
        continue;
      }
      out << s.substr(i, n);
      i += n;
      continue;
    }
    ++i;
  }
  out << '"';
}
}  // namespace detail

/// One diagnostic as a JSON object: file, line, col, severity, source, message, notes
/// [{line, col, message}], and function (the kernel's name without `@`, "" when none).
constexpr void append_json(text& out, const diagnostic& d, std::string_view file) {
  out << "{\"file\": ";
  detail::append_json_string(out, file.empty() ? std::string_view("<input>") : file);
  out << ", \"line\": " << static_cast<std::int64_t>(d.loc.line) << ", \"col\": " << static_cast<std::int64_t>(d.loc.col)
      << ", \"severity\": \"" << name(d.level) << "\", \"source\": ";
  detail::append_json_string(out, d.source.view());
  out << ", \"message\": ";
  detail::append_json_string(out, d.message.view());
  out << ", \"notes\": [";
  for (std::size_t k = 0; k < d.notes.size(); ++k) {
    const location at = d.notes[k].loc.known() ? d.notes[k].loc : d.loc;
    out << (k == 0 ? "{" : ", {") << "\"line\": " << static_cast<std::int64_t>(at.line)
        << ", \"col\": " << static_cast<std::int64_t>(at.col) << ", \"message\": ";
    detail::append_json_string(out, d.notes[k].message.view());
    out << '}';
  }
  out << "], \"function\": ";
  detail::append_json_string(out, d.function.view());
  out << '}';
}

/// All diagnostics as one JSON array (for tools: `t2b-opt --diagnostics=json`), one object per
/// diagnostic as `append_json` writes it.
template <class = void>
constexpr text format_json(const std::vector<diagnostic>& ds, std::string_view file) {
  text out;
  out << '[';
  for (std::size_t i = 0; i < ds.size(); ++i) {
    out << (i == 0 ? "\n  " : ",\n  ");
    append_json(out, ds[i], file);
  }
  out << (ds.empty() ? "]\n" : "\n]\n");
  return out;
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
text format(const diagnostic& d, std::string_view file,
            std::string_view source = {});  // TILE2BUFFER_EXTERN_PIPELINE: run time only
text format_all(const std::vector<diagnostic>& ds, std::string_view file,
                std::string_view source = {});                               // TILE2BUFFER_EXTERN_PIPELINE: run time only
text format_json(const std::vector<diagnostic>& ds, std::string_view file);  // TILE2BUFFER_EXTERN_PIPELINE: run time only
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::format;
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::format_all;
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::format_json;
#endif

}  // namespace v0
}  // namespace tile2buffer
