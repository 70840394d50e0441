// SPDX-License-Identifier: Apache-2.0
/// @file ir/ids.hpp
/// Strong index types into a function's arenas; never pointers.
#pragma once

#include <compare>
#include <cstdint>

namespace tile2buffer {
inline namespace v0 {

inline constexpr std::uint32_t no_id = 0xFFFFFFFFu;

template <class Tag>
struct strong_id {
  std::uint32_t index = no_id;
  [[nodiscard]] constexpr bool valid() const noexcept { return index != no_id; }
  friend constexpr bool operator==(strong_id, strong_id) = default;
  friend constexpr auto operator<=>(strong_id, strong_id) = default;
};

using value_id = strong_id<struct value_tag>;
using op_id = strong_id<struct op_tag>;
using region_id = strong_id<struct region_tag>;
using type_id = strong_id<struct type_tag>;  ///< into a function's interned types

/// A contiguous range {begin, count} in one of a function's pools.
struct span32 {
  std::uint32_t begin = 0;
  std::uint32_t count = 0;
  friend constexpr bool operator==(span32, span32) = default;
};

}  // namespace v0
}  // namespace tile2buffer
