// SPDX-License-Identifier: Apache-2.0
/// @file detail/text.hpp
/// A vector<char>-backed string usable in constant evaluation on clang 14 + libstdc++ 12,
/// where std::string is not (DESIGN §3).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>

namespace tile2buffer {
inline namespace v0 {

/// Growable text buffer; `view()` is valid until the next append.
///
/// Why its own buffer and not a `std::vector<char>`: appending is most of printing, and the
/// vector's ways to append a range (`resize` then `memcpy`, or `insert`) cost three to five times
/// the copy itself (`resize` zero-fills what is then overwritten; neither is inlined). In constant
/// evaluation the characters are constructed one by one, as C++20 requires of allocated storage.
class text {
 public:
  constexpr text() = default;
  constexpr text(std::string_view s) { append(s); }  // NOLINT: implicit by design
  constexpr text(const text& o) { append(o.view()); }
  constexpr text(text&& o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
    o.data_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }
  constexpr text& operator=(const text& o) {
    if (this == &o) return *this;
    if (o.size_ > capacity_) {
      text copy(o);  // allocated before this text changes: if that throws, it keeps its content
      return *this = static_cast<text&&>(copy);
    }
    size_ = 0;
    put(o.data_, o.size_);
    return *this;
  }
  constexpr text& operator=(text&& o) noexcept {
    if (this != &o) {
      release();
      data_ = o.data_;
      size_ = o.size_;
      capacity_ = o.capacity_;
      o.data_ = nullptr;
      o.size_ = o.capacity_ = 0;
    }
    return *this;
  }
  constexpr ~text() { release(); }

  /// `s` may lie in this text itself (`t << t`, `repeat`): a growth copies it before the old
  /// buffer is released.
  constexpr text& append(std::string_view s) {
    if (s.size() > capacity_ - size_) reallocate(grown(s.size()), s);
    else put(s.data(), s.size());
    return *this;
  }
  /// Appends a copy of its own `[begin, begin + len)`, which must lie inside it.
  constexpr text& repeat(std::size_t begin, std::size_t len) { return append(view().substr(begin, len)); }
  /// Why not through `append(std::string_view)`: one character (a separator) is the most frequent
  /// append, and the general path cost 1.4% of a whole `t2b-opt` run.
  constexpr text& append(char c) {
    if (size_ == capacity_) reallocate(grown(1));
    if (std::is_constant_evaluated()) std::construct_at(data_ + size_, c);
    else data_[size_] = c;
    ++size_;
    return *this;
  }
  constexpr text& append_int(std::int64_t v) {
    char buf[24];
    std::size_t first = sizeof buf;  // digits are written from the end
    // Why: negate in unsigned space so INT64_MIN does not overflow.
    std::uint64_t u = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    do {
      buf[--first] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (v < 0) buf[--first] = '-';
    return append(std::string_view(buf + first, sizeof buf - first));
  }
  constexpr text& operator<<(std::string_view s) { return append(s); }
  constexpr text& operator<<(char c) { return append(c); }
  constexpr text& operator<<(std::int64_t v) { return append_int(v); }
  constexpr text& operator<<(int v) { return append_int(v); }
  constexpr text& operator<<(unsigned v) { return append_int(static_cast<std::int64_t>(v)); }
  constexpr text& operator<<(const text& t) { return append(t.view()); }

  [[nodiscard]] constexpr std::string_view view() const noexcept {
    return size_ == 0 ? std::string_view{} : std::string_view(data_, size_);
  }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  /// Makes room for `n` characters in all.
  constexpr void reserve(std::size_t n) {
    if (n > capacity_) reallocate(n);
  }
  [[nodiscard]] constexpr std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr void clear() noexcept { size_ = 0; }
  friend constexpr bool operator==(const text& a, const text& b) { return a.view() == b.view(); }
  friend constexpr bool operator==(const text& a, std::string_view b) { return a.view() == b; }

 private:
  /// Copies `n` characters to the end, where there is room for them. Why a loop for short runs:
  /// most appends are a few characters (a name, `, `), where a call to memcpy costs more than
  /// the copy.
  constexpr void put(const char* from, std::size_t n) {
    char* to = data_ + size_;
    if (std::is_constant_evaluated()) {
      for (std::size_t i = 0; i < n; ++i) std::construct_at(to + i, from[i]);
    } else if (n <= 16) {
      for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
    } else {
// Why: inlined into some callers, g++ 12 at -O3 assumes a path where `n` wrapped around and
// reports an overflow that cannot happen (the caller made the room).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
      std::memcpy(to, from, n);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    }
    size_ += n;
  }
  /// The capacity for `n` more characters. Why the doubling: growing by what is asked for
  /// copied the whole text on every append to a full one.
  [[nodiscard]] constexpr std::size_t grown(std::size_t n) const noexcept {
    const std::size_t need = size_ + n;
    return need > 2 * capacity_ ? need : 2 * capacity_;
  }
  /// Moves the text to a buffer of `capacity` and appends `tail` (which may lie in the old one)
  /// before releasing the old buffer. Why out of line: growing is rare, and inlined it made every
  /// append too large to inline.
  [[gnu::noinline]] constexpr void reallocate(std::size_t capacity, std::string_view tail = {}) {
    std::allocator<char> a;
    char* fresh = a.allocate(capacity);
    if (std::is_constant_evaluated()) {
      for (std::size_t i = 0; i < size_; ++i) std::construct_at(fresh + i, data_[i]);
      for (std::size_t i = 0; i < tail.size(); ++i) std::construct_at(fresh + size_ + i, tail[i]);
    } else {
      if (size_ != 0) std::memcpy(fresh, data_, size_);
      if (!tail.empty()) std::memcpy(fresh + size_, tail.data(), tail.size());
    }
    release();
    data_ = fresh;
    size_ += tail.size();
    capacity_ = capacity;
  }
  constexpr void release() noexcept {
    if (data_ != nullptr) std::allocator<char>{}.deallocate(data_, capacity_);
    data_ = nullptr;
    capacity_ = 0;
  }

  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace v0
}  // namespace tile2buffer
