// SPDX-License-Identifier: Apache-2.0
/// @file location.hpp
/// Source locations carried by every op, parameter and diagnostic. A base header, so that `ir/`
/// (ops) and `diag/` (diagnostics) can both use it without including each other.
#pragma once

#include <cstdint>

namespace tile2buffer {
inline namespace v0 {

/// 1-based line and column in the program's source file; line 0 means "no location".
struct location {
  std::uint32_t line = 0;
  std::uint32_t col = 0;
  [[nodiscard]] constexpr bool known() const noexcept { return line != 0; }
  friend constexpr bool operator==(location, location) = default;
};

}  // namespace v0
}  // namespace tile2buffer
