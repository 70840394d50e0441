// SPDX-License-Identifier: Apache-2.0
/// @file detail/inline_vector.hpp
/// A list that keeps up to N elements in place and moves to the heap only past them: for the
/// short per-op lists (a loop's bounds, a region's arguments, a yield's operands) that were a
/// heap allocation or three per region op. Contiguous, so it passes as a `std::span`.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

namespace tile2buffer {
inline namespace v0 {
namespace detail {

template <class T, std::size_t N>
class inline_vector {
 public:
  constexpr void push_back(const T& x) {
    if (spill_.empty() && size_ < N) {
      inline_[size_++] = x;
      return;
    }
    if (spill_.empty()) spill_.assign(inline_.begin(), inline_.begin() + static_cast<std::ptrdiff_t>(size_));
    spill_.push_back(x);
    ++size_;
  }
  /// `n` copies of `x` in place of what it held.
  constexpr void assign(std::size_t n, const T& x) {
    clear();
    for (std::size_t i = 0; i < n; ++i) push_back(x);
  }
  constexpr void clear() {
    size_ = 0;
    spill_.clear();
  }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] constexpr T* data() noexcept { return spill_.empty() ? inline_.data() : spill_.data(); }
  [[nodiscard]] constexpr const T* data() const noexcept { return spill_.empty() ? inline_.data() : spill_.data(); }
  constexpr T& operator[](std::size_t i) { return data()[i]; }
  constexpr const T& operator[](std::size_t i) const { return data()[i]; }
  constexpr T* begin() noexcept { return data(); }
  constexpr T* end() noexcept { return data() + size_; }
  constexpr const T* begin() const noexcept { return data(); }
  constexpr const T* end() const noexcept { return data() + size_; }
  constexpr operator std::span<const T>() const noexcept {
    return std::span<const T>(data(), size_);
  }  // NOLINT: a list is a span

 private:
  std::array<T, N> inline_{};
  std::vector<T> spill_;  ///< every element once there are more than N (empty until then)
  std::size_t size_ = 0;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
