// SPDX-License-Identifier: Apache-2.0
/// @file detail/text.hpp
/// A vector<char>-backed string usable in constant evaluation on clang 14 + libstdc++ 12,
/// where std::string is not (DESIGN §3).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tile2buffer {
inline namespace v0 {

/// Growable text buffer; `view()` is valid until the next append.
class text {
 public:
  constexpr text() = default;
  constexpr text(std::string_view s) { append(s); }  // NOLINT: implicit by design

  constexpr text& append(std::string_view s) {
    make_room(s.size());
    if (!std::is_constant_evaluated()) {
      copy_in(s.data(), s.size());
      return *this;
    }
    // Why a loop in constant evaluation: clang 14 cannot constant-evaluate libstdc++'s `resize`
    // of a vector of char.
    for (const char c : s) chars_.push_back(c);
    return *this;
  }
  /// Appends a copy of its own `[begin, begin + len)`, which must lie inside it.
  constexpr text& repeat(std::size_t begin, std::size_t len) {
    make_room(len);
    if (!std::is_constant_evaluated()) {
      // Why not insert: a range of the vector itself is outside insert's contract. make_room
      // leaves room for `len`, so the copy's resize does not move the source.
      copy_in(chars_.data() + begin, len);
      return *this;
    }
    // Why indices: the source lies in the buffer being appended to.
    for (std::size_t i = 0; i < len; ++i) chars_.push_back(chars_[begin + i]);
    return *this;
  }
  constexpr text& append(char c) {
    chars_.push_back(c);
    return *this;
  }
  constexpr text& append_int(std::int64_t v) {
    char buf[24];
    int n = 0;
    // Why: negate in unsigned space so INT64_MIN does not overflow.
    std::uint64_t u = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    do {
      buf[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (v < 0) append('-');
    while (n > 0) append(buf[--n]);
    return *this;
  }
  constexpr text& operator<<(std::string_view s) { return append(s); }
  constexpr text& operator<<(char c) { return append(c); }
  constexpr text& operator<<(std::int64_t v) { return append_int(v); }
  constexpr text& operator<<(int v) { return append_int(v); }
  constexpr text& operator<<(unsigned v) { return append_int(static_cast<std::int64_t>(v)); }
  constexpr text& operator<<(const text& t) { return append(t.view()); }

  [[nodiscard]] constexpr std::string_view view() const noexcept {
    return chars_.empty() ? std::string_view{} : std::string_view(chars_.data(), chars_.size());
  }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return chars_.size(); }
  /// Makes room for `n` characters in all.
  constexpr void reserve(std::size_t n) { chars_.reserve(n); }
  [[nodiscard]] constexpr std::size_t capacity() const noexcept { return chars_.capacity(); }
  [[nodiscard]] constexpr bool empty() const noexcept { return chars_.empty(); }
  constexpr void clear() noexcept { chars_.clear(); }
  friend constexpr bool operator==(const text& a, const text& b) { return a.view() == b.view(); }
  friend constexpr bool operator==(const text& a, std::string_view b) { return a.view() == b; }

 private:
  /// Runtime only: appends the `n` bytes at `from`, after `make_room(n)` (so they stay put when
  /// they lie in the buffer itself). Why: a push_back per character was a quarter of printing.
  void copy_in(const char* from, std::size_t n) {
    if (n == 0) return;
    const std::size_t at = chars_.size();
    chars_.resize(at + n);
// Why: inlined into some callers, g++ 12 at -O3 assumes a path where `n` wrapped around and
// reports an overflow or an overlap that cannot happen (`resize` just made the room, and the
// source ends where the new bytes begin at the latest).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
    std::memcpy(chars_.data() + at, from, n);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  }
  /// Room for `n` more characters. Why the doubling: `reserve` allocates exactly what it is asked
  /// for, so reserving the sum copied the whole text on every append to a full one.
  constexpr void make_room(std::size_t n) {
    if (const std::size_t need = chars_.size() + n; need > chars_.capacity())
      chars_.reserve(need > 2 * chars_.capacity() ? need : 2 * chars_.capacity());
  }

  std::vector<char> chars_;
};

}  // namespace v0
}  // namespace tile2buffer
