// SPDX-License-Identifier: Apache-2.0
/// @file text/lexer.hpp
/// The `.t2b` tokenizer: turns source text into tokens on demand, with 1-based line/column
/// locations. Never reads past the end of its input and never fails silently: a malformed
/// character or literal becomes an `error` token carrying the reason.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/location.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

// clang-format off
enum class tok : std::uint8_t {
  eof, newline, ident, symbol, integer, floating,
  lparen, rparen, lbracket, rbracket, lbrace, rbrace,
  comma, equal, colon, question, arrow,
  plus, minus, star, slashslash, percent, lt, le, eqeq, ne, gt, ge,
  error
};
// clang-format on

/// Largest number of significant decimal digits a float literal may have (fits an int64 mantissa).
inline constexpr int max_float_digits = 18;
/// Bound on the decimal exponent of a float literal after normalization.
inline constexpr std::int64_t max_float_exp10 = 400;

struct token {
  tok kind = tok::eof;
  std::string_view spelling;  ///< the source text (for `symbol`, including the '@')
  location loc;
  std::uint64_t magnitude = 0;  ///< integer: the unsigned value (at most 2^63)
  std::int64_t mantissa = 0;    ///< floating: value = mantissa * 10^exp10, mantissa without trailing zeros
  std::int32_t exp10 = 0;
  std::string_view error;  ///< error: why the text is not a token
};

/// Character classes by byte. Why a table: the identifier loop tested up to seven ranges per
/// character and was a seventh of parsing.
inline constexpr std::uint8_t char_ident_start = 1, char_ident = 2;
inline constexpr auto char_classes = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    t[static_cast<std::size_t>(c)] =
        static_cast<std::uint8_t>((start ? char_ident_start : 0) | (start || digit || c == '.' ? char_ident : 0));
  }
  return t;
}();
constexpr bool is_ident_start(char c) { return (char_classes[static_cast<unsigned char>(c)] & char_ident_start) != 0; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_ident_char(char c) { return (char_classes[static_cast<unsigned char>(c)] & char_ident) != 0; }

/// True when `s` is spelled as an identifier (`[A-Za-z_][A-Za-z0-9_.]*`).
constexpr bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  for (const char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

/// Appends `s` quoted for a diagnostic: non-printable bytes as `\xNN`, long text cut short.
constexpr void append_quoted(text& out, std::string_view s) {
  constexpr std::size_t limit = 32;
  constexpr std::string_view hex = "0123456789abcdef";
  out << '\'';
  for (std::size_t i = 0; i < s.size() && i < limit; ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u < 0x20 || u >= 0x7f || s[i] == '\'' || s[i] == '\\') {
      out << "\\x" << hex[u >> 4] << hex[u & 15];
    } else {
      out << s[i];
    }
  }
  if (s.size() > limit) out << "...";
  out << '\'';
}

/// Produces tokens one at a time. Newlines are tokens (statements end at a line break), except
/// inside parentheses and brackets, so long argument lists may be wrapped.
class lexer {
 public:
  constexpr explicit lexer(std::string_view src) : src_(src) {}

  /// Continues lexing at byte `pos` of the same line, after text the caller has already read
  /// (balanced brackets, no line break: the bracket depth and the line stay as they are).
  constexpr void resume_at(std::size_t pos) { pos_ = pos < src_.size() ? pos : src_.size(); }

  constexpr token next() {
    skip_blanks();
    token t;
    t.loc = location{line_, col()};
    if (pos_ >= src_.size()) {
      t.kind = tok::eof;
      return t;
    }
    const std::size_t start = pos_;
    const char c = src_[pos_];
    if (c == '\n') {
      // Why: one token for a run of blank lines and comment lines keeps the parser simple.
      while (pos_ < src_.size() && src_[pos_] == '\n') {
        newline();
        skip_blanks();
      }
      t.kind = tok::newline;
      t.spelling = src_.substr(start, 1);
      return t;
    }
    if (is_ident_start(c)) {
      while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
      return finish(t, tok::ident, start);
    }
    if (c == '@') {
      ++pos_;
      if (pos_ >= src_.size() || !is_ident_start(src_[pos_])) return fail(t, start, "expected a function name after '@'");
      while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
      return finish(t, tok::symbol, start);
    }
    if (is_digit(c)) return number(t, start);
    ++pos_;
    const char d = pos_ < src_.size() ? src_[pos_] : '\0';
    // clang-format off
    switch (c) {
      case '(': ++depth_; return finish(t, tok::lparen, start);
      case '[': ++depth_; return finish(t, tok::lbracket, start);
      case ')': if (depth_ > 0) --depth_; return finish(t, tok::rparen, start);
      case ']': if (depth_ > 0) --depth_; return finish(t, tok::rbracket, start);
      // Why: braces are statement-level, so an unbalanced '(' cannot swallow the line breaks after them.
      case '{': depth_ = 0; return finish(t, tok::lbrace, start);
      case '}': depth_ = 0; return finish(t, tok::rbrace, start);
      case ',': return finish(t, tok::comma, start);
      case ':': return finish(t, tok::colon, start);
      case '?': return finish(t, tok::question, start);
      case '+': return finish(t, tok::plus, start);
      case '*': return finish(t, tok::star, start);
      case '%': return finish(t, tok::percent, start);
      case '-':
        if (d == '>') return two(t, tok::arrow, start);
        return finish(t, tok::minus, start);
      case '/':
        if (d == '/') return two(t, tok::slashslash, start);
        return fail(t, start, "unexpected character '/' (floor division is '//')");
      case '=':
        if (d == '=') return two(t, tok::eqeq, start);
        return finish(t, tok::equal, start);
      case '!':
        if (d == '=') return two(t, tok::ne, start);
        return fail(t, start, "unexpected character '!' (write 'not a' or 'a != b')");
      case '<':
        if (d == '=') return two(t, tok::le, start);
        return finish(t, tok::lt, start);
      case '>':
        if (d == '=') return two(t, tok::ge, start);
        return finish(t, tok::gt, start);
      default: break;
    }
    // clang-format on
    return fail(t, start, "unexpected character");
  }

 private:
  constexpr std::uint32_t col() const { return static_cast<std::uint32_t>(pos_ - line_start_ + 1); }
  constexpr void newline() {
    ++pos_;
    ++line_;
    line_start_ = pos_;
  }
  constexpr void skip_blanks() {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '#') {
        // Why a NUL ends a comment: it is then lexed, and rejected, like a NUL anywhere else.
        while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\0') ++pos_;
      } else if (c == '\n' && depth_ > 0) {
        newline();
      } else {
        break;
      }
    }
  }
  constexpr token finish(token& t, tok k, std::size_t start) const {
    t.kind = k;
    t.spelling = src_.substr(start, pos_ - start);
    return t;
  }
  constexpr token two(token& t, tok k, std::size_t start) {
    ++pos_;
    return finish(t, k, start);
  }
  constexpr token fail(token& t, std::size_t start, std::string_view why) {
    if (pos_ == start) ++pos_;
    t.kind = tok::error;
    t.spelling = src_.substr(start, pos_ - start);
    t.error = why;
    return t;
  }

  /// `[0-9]+ ('.' [0-9]+)? ([eE] [+-]? [0-9]+)?`, converted exactly: integers to at most 2^63,
  /// floats to a decimal mantissa of at most `max_float_digits` significant digits.
  constexpr token number(token& t, std::size_t start) {
    std::uint64_t mant = 0;
    int digits = 0;                  // significant digits taken into `mant`
    std::int64_t pending_zeros = 0;  // zeros after the last non-zero digit, not yet in `mant`
    std::int64_t exp = 0;
    bool too_many = false;
    bool is_float = false;
    bool exp_overflow = false;
    const auto digit = [&](char c, bool fraction) {
      if (fraction) --exp;
      if (c == '0') {
        if (digits > 0) ++pending_zeros;
        return;
      }
      if (digits + pending_zeros + 1 > max_float_digits) {
        too_many = true;
        return;
      }
      for (; pending_zeros > 0; --pending_zeros, ++digits) mant *= 10;
      mant = mant * 10 + static_cast<std::uint64_t>(c - '0');
      ++digits;
    };
    // Integers are accumulated separately: they may use all 19 digits of an int64.
    std::uint64_t int_value = 0;
    bool int_overflow = false;
    constexpr std::uint64_t int_limit = std::uint64_t{1} << 63;
    while (pos_ < src_.size() && is_digit(src_[pos_])) {
      const auto v = static_cast<std::uint64_t>(src_[pos_] - '0');
      if (int_value > (int_limit - v) / 10) int_overflow = true;
      else int_value = int_value * 10 + v;
      digit(src_[pos_++], false);
    }
    if (pos_ + 1 < src_.size() && src_[pos_] == '.' && is_digit(src_[pos_ + 1])) {
      is_float = true;
      ++pos_;
      while (pos_ < src_.size() && is_digit(src_[pos_])) digit(src_[pos_++], true);
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      std::size_t p = pos_ + 1;
      bool neg = false;
      if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) neg = src_[p++] == '-';
      if (p < src_.size() && is_digit(src_[p])) {
        is_float = true;
        std::int64_t e = 0;
        // Why: a huge exponent could be offset by a huge fraction, so it must stay exact or fail.
        for (; p < src_.size() && is_digit(src_[p]); ++p) {
          if (e >= std::int64_t{1} << 40) exp_overflow = true;
          else e = e * 10 + (src_[p] - '0');
        }
        exp += neg ? -e : e;
        pos_ = p;
      }
    }
    if (pos_ < src_.size() && (is_ident_char(src_[pos_]))) {
      while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
      return fail(t, start, "malformed number");
    }
    if (!is_float) {
      if (int_overflow) return fail(t, start, "integer literal out of range");
      t.magnitude = int_value;
      return finish(t, tok::integer, start);
    }
    if (too_many) return fail(t, start, "float literal has more than 18 significant digits");
    if (exp_overflow) return fail(t, start, "float literal out of range");
    exp += pending_zeros;
    if (mant == 0) exp = 0;
    if (exp > max_float_exp10 || exp < -max_float_exp10) return fail(t, start, "float literal out of range");
    t.mantissa = static_cast<std::int64_t>(mant);
    t.exp10 = static_cast<std::int32_t>(exp);
    return finish(t, tok::floating, start);
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  std::uint32_t line_ = 1;
  int depth_ = 0;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
