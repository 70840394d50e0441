// SPDX-License-Identifier: Apache-2.0
/// @file diag/diagnostic.hpp
/// Runtime diagnostics and the `result<T>` every pass returns. One format everywhere:
/// `file:line:col: error: [source]: message` followed by `note:` lines.
#pragma once

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

struct diagnostic {
  location loc;
  text source;  ///< the pass, rule or recipe that reports it (e.g. "verify", "lower-add")
  text message;
  std::vector<note> notes;
};

/// Renders one diagnostic in the project's format; `file` may be empty.
constexpr text format(const diagnostic& d, std::string_view file) {
  text out;
  const auto where = [&](location l) {
    out << (file.empty() ? std::string_view("<input>") : file) << ':' << static_cast<std::int64_t>(l.line) << ':'
        << static_cast<std::int64_t>(l.col) << ": ";
  };
  where(d.loc);
  out << "error: ";
  if (!d.source.empty()) out << d.source << ": ";
  out << d.message << '\n';
  for (const auto& n : d.notes) {
    where(n.loc.known() ? n.loc : d.loc);
    out << "note: " << n.message << '\n';
  }
  return out;
}

/// A value or the diagnostics explaining why there is none. `T` must be default-constructible.
template <class T>
struct result {
  T value{};
  std::vector<diagnostic> errors;

  [[nodiscard]] constexpr bool ok() const noexcept { return errors.empty(); }
  constexpr explicit operator bool() const noexcept { return ok(); }
  constexpr void fail(location loc, std::string_view source, std::string_view message) {
    errors.push_back(diagnostic{loc, text(source), text(message), {}});
  }
  constexpr void fail(location loc, std::string_view source, const text& message) { fail(loc, source, message.view()); }
};

/// All diagnostics of a result, formatted.
constexpr text format_all(const std::vector<diagnostic>& ds, std::string_view file) {
  text out;
  for (const auto& d : ds) out << format(d, file);
  return out;
}

}  // namespace v0
}  // namespace tile2buffer
