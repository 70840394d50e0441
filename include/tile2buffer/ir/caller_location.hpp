// SPDX-License-Identifier: Apache-2.0
/// @file ir/caller_location.hpp
/// Where a `function_builder` call comes from. An op or parameter built without a location takes
/// its caller's file and line, so diagnostics about IR a C++ host builds point at the host's
/// source line instead of `:0:0`.
#pragma once

#include <cstdint>
#include <string_view>
#include <version>

#if defined(__cpp_lib_source_location)
#include <source_location>
#endif

#include "tile2buffer/location.hpp"

namespace tile2buffer {
inline namespace v0 {

/// A builder method's location argument: an explicit `location` (the parser's, a pass's, or `{}`
/// for none), or by default `caller()`, the line of the call in the host's source.
struct op_location {
  location loc{};
  std::string_view file{};  ///< the caller's source file when `loc` is its line; empty otherwise

  constexpr op_location() = default;
  constexpr op_location(location l) noexcept : loc(l) {}  // NOLINT: implicit by design
  /// `{line, col}`, as a `location` is written in a call.
  constexpr op_location(std::uint32_t line, std::uint32_t col) noexcept : loc{line, col} {}

  // Why both: libstdc++'s std::source_location needs __builtin_source_location, which clang 14
  // lacks; the older builtins give the same facts on every compiler we build with. Each is
  // evaluated where the builder method is called, since `caller()` is its default argument.
#if defined(__cpp_lib_source_location)
  static constexpr op_location caller(std::source_location s = std::source_location::current()) noexcept {
    return from(s.line(), s.column(), s.file_name());
  }
#else
  static constexpr op_location caller(std::uint_least32_t line = __builtin_LINE(), std::uint_least32_t col = __builtin_COLUMN(),
                                      const char* file = __builtin_FILE()) noexcept {
    return from(line, col, file);
  }
#endif

 private:
  static constexpr op_location from(std::uint_least32_t line, std::uint_least32_t col, const char* file) noexcept {
    op_location w(location{static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(col)});
    w.file = file;
    return w;
  }
};

}  // namespace v0
}  // namespace tile2buffer
