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
#include "tile2buffer/text/name_table.hpp"

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

/// One token. Only the fields of its kind are meaningful: the lexer reuses a token, and writes
/// the number and error fields only for numbers and errors.
struct token {
  tok kind = tok::eof;
  std::uint32_t hash = 0;     ///< ident: `name_table::hash(spelling)`, computed as the lexer read it
  std::string_view spelling;  ///< the source text (for `symbol`, including the '@')
  location loc;
  std::int32_t exp10 = 0;
  std::uint64_t magnitude = 0;  ///< integer: the unsigned value (at most 2^63)
  std::int64_t mantissa = 0;    ///< floating: value = mantissa * 10^exp10, mantissa without trailing zeros
  std::string_view error;       ///< error: why the text is not a token
};

/// Character classes by byte. Why a table: the identifier loop tested up to seven ranges per
/// character and was a seventh of parsing; the lexer classifies each byte with one load.
inline constexpr std::uint8_t char_ident_start = 1, char_ident = 2, char_digit = 4, char_blank = 8, char_skip = 16;
inline constexpr auto char_classes = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    const bool blank = c == ' ' || c == '\t' || c == '\r';
    t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(
        (start ? char_ident_start : 0) | (start || digit || c == '.' ? char_ident : 0) | (digit ? char_digit : 0) |
        (blank ? char_blank : 0) | (blank || c == '#' || c == '\n' ? char_skip : 0));
  }
  return t;
}();
constexpr std::uint8_t char_class(char c) { return char_classes[static_cast<unsigned char>(c)]; }
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
    token t;
    next(t);
    return t;
  }
  /// Reads the next token into `t`. Why into a token the caller keeps: a token is 80 bytes,
  /// and returning one, then assigning it, copied it twice per token.
  constexpr void next(token& t) {
    skip_blanks();
    t.loc = location{line_, col()};
    const std::size_t n = src_.size();
    const std::size_t start = pos_;
    if (start >= n) {
      t.kind = tok::eof;
      t.spelling = {};
      return;
    }
    const char* s = src_.data();
    const char c = s[start];
    const std::uint8_t cls = char_class(c);
    if ((cls & char_ident_start) != 0) {
      // The name's hash is taken as its bytes are read, so no lookup reads them again.
      std::uint32_t h = name_table::hash_seed;
      std::size_t p = start;
      do h = name_table::hash_step(h, s[p++]);
      while (p < n && (char_class(s[p]) & char_ident) != 0);
      pos_ = p;
      t.hash = name_table::hash_finish(h);
      set(t, tok::ident, start);
      return;
    }
    if ((cls & char_digit) != 0) {
      if (!small_integer(t, start)) number(t, start);
      return;
    }
    if (c == '\n') {
      // Why: one token for a run of blank lines and comment lines keeps the parser simple.
      while (pos_ < n && s[pos_] == '\n') {
        newline();
        skip_blanks();
      }
      t.kind = tok::newline;
      t.spelling = std::string_view(s + start, 1);
      return;
    }
    if (c == '@') {
      ++pos_;
      if (pos_ >= n || !is_ident_start(s[pos_])) return fail(t, start, "expected a function name after '@'");
      while (pos_ < n && is_ident_char(s[pos_])) ++pos_;
      return set(t, tok::symbol, start);
    }
    ++pos_;
    const char d = pos_ < n ? s[pos_] : '\0';
    // clang-format off
    switch (c) {
      case '(': ++depth_; return set(t, tok::lparen, start);
      case '[': ++depth_; return set(t, tok::lbracket, start);
      case ')': if (depth_ > 0) --depth_; return set(t, tok::rparen, start);
      case ']': if (depth_ > 0) --depth_; return set(t, tok::rbracket, start);
      // Why: braces are statement-level, so an unbalanced '(' cannot swallow the line breaks after them.
      case '{': depth_ = 0; return set(t, tok::lbrace, start);
      case '}': depth_ = 0; return set(t, tok::rbrace, start);
      case ',': return set(t, tok::comma, start);
      case ':': return set(t, tok::colon, start);
      case '?': return set(t, tok::question, start);
      case '+': return set(t, tok::plus, start);
      case '*': return set(t, tok::star, start);
      case '%': return set(t, tok::percent, start);
      case '-':
        if (d == '>') return two(t, tok::arrow, start);
        return set(t, tok::minus, start);
      case '/':
        if (d == '/') return two(t, tok::slashslash, start);
        return fail(t, start, "unexpected character '/' (floor division is '//')");
      case '=':
        if (d == '=') return two(t, tok::eqeq, start);
        return set(t, tok::equal, start);
      case '!':
        if (d == '=') return two(t, tok::ne, start);
        return fail(t, start, "unexpected character '!' (write 'not a' or 'a != b')");
      case '<':
        if (d == '=') return two(t, tok::le, start);
        return set(t, tok::lt, start);
      case '>':
        if (d == '=') return two(t, tok::ge, start);
        return set(t, tok::gt, start);
      default: break;
    }
    // clang-format on
    return fail(t, start, "unexpected character");
  }

  /// Whether the next token is `k`, one of `=`, `,` and `(`, without reading it: each of these is
  /// one byte that no longer token starts with (`=` but for `==`). Why: a statement or an operand
  /// decides its form by the token after a name; reading that token ahead cost a token copy.
  /// Skipping the blanks before it now changes nothing the next `next` would see.
  constexpr bool next_is(tok k) {
    skip_blanks();
    const std::size_t n = src_.size();
    if (pos_ >= n) return false;
    const char c = src_[pos_];
    switch (k) {
      case tok::equal: return c == '=' && (pos_ + 1 >= n || src_[pos_ + 1] != '=');
      case tok::comma: return c == ',';
      case tok::lparen: return c == '(';
      default: return false;
    }
  }

 private:
  constexpr std::uint32_t col() const { return static_cast<std::uint32_t>(pos_ - line_start_ + 1); }
  constexpr void newline() {
    ++pos_;
    ++line_;
    line_start_ = pos_;
  }
  constexpr void skip_blanks() {
    const char* s = src_.data();
    const std::size_t n = src_.size();
    std::size_t p = pos_;
    while (p < n) {
      const char c = s[p];
      const std::uint8_t k = char_class(c);
      if ((k & char_skip) == 0) break;  // nearly every token: one test
      if ((k & char_blank) != 0) {
        ++p;
      } else if (c == '#') {
        // Why a NUL ends a comment: it is then lexed, and rejected, like a NUL anywhere else.
        while (p < n && s[p] != '\n' && s[p] != '\0') ++p;
      } else if (c == '\n' && depth_ > 0) {
        ++p;
        ++line_;
        line_start_ = p;
      } else {
        break;
      }
    }
    pos_ = p;
  }
  constexpr void set(token& t, tok k, std::size_t start) const {
    t.kind = k;
    t.spelling = std::string_view(src_.data() + start, pos_ - start);
  }
  constexpr void two(token& t, tok k, std::size_t start) {
    ++pos_;
    set(t, k, start);
  }
  constexpr void fail(token& t, std::size_t start, std::string_view why) {
    if (pos_ == start) ++pos_;
    t.kind = tok::error;
    t.spelling = std::string_view(src_.data() + start, pos_ - start);
    t.error = why;
  }
  /// An integer of at most 18 digits not followed by what would make it a float or a malformed
  /// number (the common case: offsets and shapes), read in one pass; false when the general
  /// `number` must read it (from `start` again: it has consumed nothing).
  constexpr bool small_integer(token& t, std::size_t start) {
    const char* s = src_.data();
    const std::size_t n = src_.size();
    std::size_t p = start;
    std::uint64_t v = 0;
    for (; p < n && (char_class(s[p]) & char_digit) != 0; ++p) {
      if (p - start == 18) return false;
      v = v * 10 + static_cast<std::uint64_t>(s[p] - '0');
    }
    if (p < n && ((char_class(s[p]) & char_ident) != 0 || s[p] == 'e' || s[p] == 'E')) return false;
    pos_ = p;
    t.magnitude = v;
    set(t, tok::integer, start);
    return true;
  }

  /// `[0-9]+ ('.' [0-9]+)? ([eE] [+-]? [0-9]+)?`, converted exactly: integers to at most 2^63,
  /// floats to a decimal mantissa of at most `max_float_digits` significant digits.
  constexpr void number(token& t, std::size_t start) {
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
      return set(t, tok::integer, start);
    }
    if (too_many) return fail(t, start, "float literal has more than 18 significant digits");
    if (exp_overflow) return fail(t, start, "float literal out of range");
    exp += pending_zeros;
    if (mant == 0) exp = 0;
    if (exp > max_float_exp10 || exp < -max_float_exp10) return fail(t, start, "float literal out of range");
    t.mantissa = static_cast<std::int64_t>(mant);
    t.exp10 = static_cast<std::int32_t>(exp);
    return set(t, tok::floating, start);
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
