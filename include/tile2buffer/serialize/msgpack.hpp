// SPDX-License-Identifier: Apache-2.0
/// @file serialize/msgpack.hpp
/// A small MessagePack writer and a strict, bounds-checked reader for the subset the binary
/// IR format uses (nil, bool, integers, str, array, map). Both are constexpr and allocate only
/// through std::vector, so round trips can be checked in constant evaluation.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tile2buffer/detail/text.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace msgpack {

//===--- writer ---===//

/// Appends MessagePack values, always in the shortest encoding (so equal programs give equal
/// bytes, and other MessagePack libraries read them as ordinary values).
class writer {
 public:
  constexpr void nil() { byte(0xc0); }
  constexpr void boolean(bool b) { byte(b ? 0xc3 : 0xc2); }
  constexpr void integer(std::int64_t v) {
    if (v >= 0) {
      const auto u = static_cast<std::uint64_t>(v);
      if (u <= 0x7f) byte(static_cast<std::uint8_t>(u));
      else if (u <= 0xff) tagged(0xcc, u, 1);
      else if (u <= 0xffff) tagged(0xcd, u, 2);
      else if (u <= 0xffffffffu) tagged(0xce, u, 4);
      else tagged(0xcf, u, 8);
      return;
    }
    const auto u = static_cast<std::uint64_t>(v);  // two's complement bits
    if (v >= -32) byte(static_cast<std::uint8_t>(u & 0xff));
    else if (v >= -128) tagged(0xd0, u, 1);
    else if (v >= -32768) tagged(0xd1, u, 2);
    else if (v >= -2147483648LL) tagged(0xd2, u, 4);
    else tagged(0xd3, u, 8);
  }
  constexpr void str(std::string_view s) {
    const auto n = static_cast<std::uint64_t>(s.size());
    if (n <= 31) byte(static_cast<std::uint8_t>(0xa0 | n));
    else if (n <= 0xff) tagged(0xd9, n, 1);
    else if (n <= 0xffff) tagged(0xda, n, 2);
    else tagged(0xdb, n, 4);
    for (const char c : s) byte(static_cast<std::uint8_t>(c));
  }
  /// Appends bytes that already are one or more encoded values (another encoder's output).
  constexpr void raw(std::span<const std::uint8_t> encoded) {
    for (const std::uint8_t b : encoded) byte(b);
  }
  constexpr void array(std::size_t n) { header(n, 0x90, 0xdc, 0xdd); }
  constexpr void map(std::size_t n) { header(n, 0x80, 0xde, 0xdf); }

  [[nodiscard]] constexpr const std::vector<std::uint8_t>& bytes() const noexcept { return out_; }
  [[nodiscard]] constexpr std::vector<std::uint8_t> take() { return static_cast<std::vector<std::uint8_t>&&>(out_); }

 private:
  constexpr void byte(std::uint8_t b) { out_.push_back(b); }
  constexpr void tagged(std::uint8_t tag, std::uint64_t v, int n) {
    byte(tag);
    for (int i = n - 1; i >= 0; --i) byte(static_cast<std::uint8_t>((v >> (8 * i)) & 0xff));
  }
  constexpr void header(std::size_t n, std::uint8_t fix, std::uint8_t tag16, std::uint8_t tag32) {
    if (n <= 15) byte(static_cast<std::uint8_t>(fix | n));
    else if (n <= 0xffff) tagged(tag16, n, 2);
    else tagged(tag32, n, 4);
  }

  std::vector<std::uint8_t> out_;
};

//===--- reader ---===//

/// MessagePack value families, as the reader reports them in "expected X, got Y" errors.
enum class family : std::uint8_t { nil, boolean, integer, float_, str, bin, array, map, ext, invalid, end };

constexpr std::string_view family_name(family f) {
  switch (f) {
    case family::nil: return "nil";
    case family::boolean: return "a boolean";
    case family::integer: return "an integer";
    case family::float_: return "a float";
    case family::str: return "a string";
    case family::bin: return "binary data";
    case family::array: return "an array";
    case family::map: return "a map";
    case family::ext: return "an extension value";
    case family::invalid: return "the reserved byte 0xc1";
    case family::end: return "the end of the input";
  }
  return "?";
}

/// Reads values from a byte span. Every read checks the remaining length first; the first
/// failure is recorded (with its byte offset) and every later read returns a neutral value, so
/// callers check `ok()` once per loop iteration rather than after every call.
class reader {
 public:
  /// Container nesting beyond this depth is rejected (bounds the recursion of `skip`).
  static constexpr int max_depth = 1000;

  constexpr explicit reader(std::span<const std::uint8_t> in) : in_(in) {
    // Why: a byte span cannot be reinterpreted as chars in constant evaluation, so strings are
    // viewed in one char copy of the input made up front (views stay valid as long as the reader).
    if (std::is_constant_evaluated()) {
      chars_.reserve(in.size());
      for (const std::uint8_t b : in) chars_.push_back(static_cast<char>(b));
    }
  }

  [[nodiscard]] constexpr bool ok() const noexcept { return !failed_; }
  [[nodiscard]] constexpr std::size_t pos() const noexcept { return pos_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return in_.size(); }
  [[nodiscard]] constexpr std::size_t remaining() const noexcept { return in_.size() - pos_; }
  [[nodiscard]] constexpr const text& error() const noexcept { return error_; }
  [[nodiscard]] constexpr std::size_t error_pos() const noexcept { return error_pos_; }
  /// Moves to a position earlier returned by `pos()` (never past the end).
  constexpr void seek(std::size_t p) {
    if (p <= in_.size()) pos_ = p;
  }

  constexpr void fail(std::string_view message) {
    if (failed_) return;
    failed_ = true;
    error_pos_ = pos_;
    error_ = text(message);
  }
  constexpr void fail(const text& message) { fail(message.view()); }

  [[nodiscard]] constexpr family peek() const {
    if (pos_ >= in_.size()) return family::end;
    const std::uint8_t b = in_[pos_];
    if (b <= 0x7f || b >= 0xe0) return family::integer;
    if (b <= 0x8f) return family::map;
    if (b <= 0x9f) return family::array;
    if (b <= 0xbf) return family::str;
    // clang-format off
    switch (b) {
      case 0xc0: return family::nil;
      case 0xc1: return family::invalid;
      case 0xc2: case 0xc3: return family::boolean;
      case 0xc4: case 0xc5: case 0xc6: return family::bin;
      case 0xc7: case 0xc8: case 0xc9: return family::ext;
      case 0xca: case 0xcb: return family::float_;
      case 0xcc: case 0xcd: case 0xce: case 0xcf: case 0xd0: case 0xd1: case 0xd2: case 0xd3: return family::integer;
      case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: return family::ext;
      case 0xd9: case 0xda: case 0xdb: return family::str;
      case 0xdc: case 0xdd: return family::array;
      default: return family::map;  // 0xde, 0xdf
    }
    // clang-format on
  }

  /// Fails with "expected <what>, got <family>" unless the next value is of family `f`.
  constexpr bool expect(family f, std::string_view what) {
    if (failed_) return false;
    const family got = peek();
    if (got == f) return true;
    text m;
    m << "expected " << what << ", got ";
    if (got == family::end) m << "a truncated input";
    else m << family_name(got);
    fail(m);
    return false;
  }

  constexpr bool nil() {
    if (!expect(family::nil, "nil")) return false;
    ++pos_;
    return true;
  }
  constexpr bool boolean() {
    if (!expect(family::boolean, "a boolean")) return false;
    return in_[pos_++] == 0xc3;
  }
  /// Any MessagePack integer that fits int64 (uint64 values above INT64_MAX are rejected).
  constexpr std::int64_t integer() {
    if (!expect(family::integer, "an integer")) return 0;
    const std::uint8_t b = in_[pos_];
    if (b <= 0x7f) {
      ++pos_;
      return b;
    }
    if (b >= 0xe0) {
      ++pos_;
      return static_cast<std::int64_t>(b) - 256;
    }
    const int width = b == 0xcc || b == 0xd0 ? 1 : b == 0xcd || b == 0xd1 ? 2 : b == 0xce || b == 0xd2 ? 4 : 8;
    const bool is_signed = b >= 0xd0;
    if (!have(1 + static_cast<std::size_t>(width))) return 0;
    ++pos_;
    const std::uint64_t u = big_endian(width);
    if (!is_signed) {
      if (u > 0x7fffffffffffffffULL) {
        pos_ -= 1 + static_cast<std::size_t>(width);
        fail("integer does not fit a signed 64-bit value");
        return 0;
      }
      return static_cast<std::int64_t>(u);
    }
    // Sign-extend the `width`-byte two's complement value.
    if (width == 8) return static_cast<std::int64_t>(u);
    const std::uint64_t sign = std::uint64_t{1} << (8 * width - 1);
    return u >= sign ? static_cast<std::int64_t>(u) - static_cast<std::int64_t>(sign << 1) : static_cast<std::int64_t>(u);
  }
  /// A string; the view points into the input (in constant evaluation, into the reader's copy).
  constexpr std::string_view str() {
    if (!expect(family::str, "a string")) return {};
    const std::uint8_t b = in_[pos_];
    std::size_t n = 0;
    if (b <= 0xbf) {
      n = b & 0x1fu;
      ++pos_;
    } else {
      const int width = b == 0xd9 ? 1 : b == 0xda ? 2 : 4;
      if (!have(1 + static_cast<std::size_t>(width))) return {};
      ++pos_;
      n = static_cast<std::size_t>(big_endian(width));
    }
    if (n > remaining()) {
      fail("string length runs past the end of the input (truncated)");
      return {};
    }
    const std::size_t begin = pos_;
    pos_ += n;
    return view(begin, n);
  }
  /// An array header; the count is checked against the remaining bytes (one byte per element at least).
  constexpr std::size_t array() { return container(family::array, "an array"); }
  constexpr std::size_t map() { return container(family::map, "a map"); }

  /// Skips one complete value of any family (used to step over map values).
  constexpr void skip(int depth = 0) {
    if (failed_) return;
    if (depth > max_depth) {
      fail("values nested too deeply");
      return;
    }
    switch (peek()) {
      case family::nil: ++pos_; return;
      case family::boolean: ++pos_; return;
      case family::integer: (void)integer(); return;
      case family::str: (void)str(); return;
      case family::array: {
        const std::size_t n = array();
        for (std::size_t i = 0; i < n && ok(); ++i) skip(depth + 1);
        return;
      }
      case family::map: {
        const std::size_t n = map();
        for (std::size_t i = 0; i < 2 * n && ok(); ++i) skip(depth + 1);
        return;
      }
      case family::float_: {
        const std::size_t w = in_[pos_] == 0xca ? 4 : 8;
        if (have(1 + w)) pos_ += 1 + w;
        return;
      }
      case family::bin: {
        const std::uint8_t b = in_[pos_];
        const int width = b == 0xc4 ? 1 : b == 0xc5 ? 2 : 4;
        if (!have(1 + static_cast<std::size_t>(width))) return;
        ++pos_;
        const auto n = static_cast<std::size_t>(big_endian(width));
        if (n > remaining()) fail("binary data runs past the end of the input (truncated)");
        else pos_ += n;
        return;
      }
      case family::ext: {
        const std::uint8_t b = in_[pos_];
        if (b >= 0xd4 && b <= 0xd8) {
          const std::size_t n = std::size_t{1} << (b - 0xd4);
          if (have(2 + n)) pos_ += 2 + n;
          return;
        }
        const int width = b == 0xc7 ? 1 : b == 0xc8 ? 2 : 4;
        if (!have(1 + static_cast<std::size_t>(width))) return;
        ++pos_;
        const auto n = static_cast<std::size_t>(big_endian(width));
        if (n > remaining() || remaining() - n < 1) fail("extension value runs past the end of the input (truncated)");
        else pos_ += 1 + n;
        return;
      }
      case family::invalid: fail("the reserved byte 0xc1 is not a MessagePack value"); return;
      case family::end: fail("unexpected end of input (truncated)"); return;
    }
  }

 private:
  constexpr bool have(std::size_t n) {
    if (n <= remaining()) return true;
    fail("unexpected end of input (truncated)");
    return false;
  }
  constexpr std::uint64_t big_endian(int width) {
    std::uint64_t u = 0;
    for (int i = 0; i < width; ++i) u = (u << 8) | in_[pos_++];
    return u;
  }
  constexpr std::size_t container(family f, std::string_view what) {
    if (!expect(f, what)) return 0;
    const std::uint8_t b = in_[pos_];
    std::size_t n = 0;
    if ((b & 0xf0) == 0x80 || (b & 0xf0) == 0x90) {
      n = b & 0x0fu;
      ++pos_;
    } else {
      const int width = b == 0xdc || b == 0xde ? 2 : 4;
      if (!have(1 + static_cast<std::size_t>(width))) return 0;
      ++pos_;
      n = static_cast<std::size_t>(big_endian(width));
    }
    const std::size_t min_bytes = f == family::map ? 2 : 1;
    if (n > remaining() / min_bytes) {
      text m;
      m << family_name(f) << " of " << static_cast<std::int64_t>(n) << " entries cannot fit the remaining "
        << static_cast<std::int64_t>(remaining()) << " bytes (truncated or corrupted)";
      fail(m);
      return 0;
    }
    return n;
  }
  constexpr std::string_view view(std::size_t begin, std::size_t n) {
    if (std::is_constant_evaluated()) return n == 0 ? std::string_view{} : std::string_view(chars_.data() + begin, n);
    return n == 0 ? std::string_view{} : std::string_view(reinterpret_cast<const char*>(in_.data() + begin), n);  // NOLINT
  }

  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
  bool failed_ = false;
  std::size_t error_pos_ = 0;
  text error_;
  std::vector<char> chars_;
};

}  // namespace msgpack
}  // namespace v0
}  // namespace tile2buffer
