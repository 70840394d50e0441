// SPDX-License-Identifier: Apache-2.0
/// @file text/parse_tokens.hpp
/// The `.t2b` parser's first layer: the token stream with one token of lookahead, the one
/// located error, value names and their scopes, and integer literals; and the state every
/// layer shares (the builder, the limits).
///
/// The parser (`detail::parser`, text/parse_regions.hpp) is one class written over four headers
/// by concern, each layer deriving from the one below: tokens (this header), types
/// (text/parse_types.hpp), ops (text/parse_ops.hpp) and regions (text/parse_regions.hpp).
/// Why a chain of bases and not free functions taking the parser's state: the rules call each
/// other and read the current token on almost every line, so as members they keep the grammar's
/// shape (`expect(tok::comma, ...)`, not `expect(ps, tok::comma, ...)`); each layer calls only
/// downwards (a statement parses an op, an op a type, a type a token), so the split needs no
/// virtual call nor CRTP, and the chain compiles to the one class it was. Members are protected;
/// only the last layer is used from outside (text/parse.hpp's `parse`).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/text/lexer.hpp"
#include "tile2buffer/text/name_table.hpp"
#include "tile2buffer/text/syntax.hpp"

namespace tile2buffer {
inline namespace v0 {
/// The error for an input over `parse_limits::max_file_size` bytes (also what a tool reports when
/// it stops reading there, text or binary).
constexpr diagnostic input_too_large(std::size_t max_file_size) {
  text m;
  m << "input larger than " << static_cast<std::int64_t>(max_file_size) << " bytes (max_file_size)";
  return diagnostic{location{1, 1}, text("parse"), std::move(m), {}};
}

namespace detail {

/// Tokens, errors, names and literals (see the file comment). Every `parse_*` of every layer
/// returns false after recording the first error; callers only propagate.
class parser_tokens {
 protected:
  constexpr parser_tokens(std::string_view src, std::string_view file, const parse_limits& limits)
      : src_(src), lex_(src), limits_(limits) {
    prog_.file = text(file);
    if (limits_.max_nesting > text_limits::max_depth_cap) limits_.max_nesting = text_limits::max_depth_cap;
    name_too_long_ << "name or word longer than " << static_cast<std::int64_t>(limits_.max_name_length)
                   << " bytes (max_name_length)";
  }

  using state = name_table::state;

  //===--- errors ---===//

  constexpr bool fail(location loc, text message) {
    if (!failed_) {
      failed_ = true;
      error_ = diagnostic{loc, text("parse"), std::move(message), {}};
    }
    return false;
  }
  constexpr bool fail(location loc, std::string_view message) { return fail(loc, text(message)); }
  constexpr bool fail(diagnostic d) { return fail(d.loc, std::move(d.message)); }
  static constexpr void describe(text& out, const token& t) {
    if (t.kind == tok::eof) out << "end of file";
    else if (t.kind == tok::newline) out << "end of line";
    else append_quoted(out, t.spelling);
  }
  /// "expected WHAT, found TOKEN"; a malformed token reports its own problem instead.
  constexpr bool fail_expected(std::string_view what, const token& t) {
    text m;
    if (t.kind == tok::error) {
      m << t.error << ": ";
      append_quoted(m, t.spelling);
      return fail(t.loc, std::move(m));
    }
    m << "expected " << what << ", found ";
    describe(m, t);
    return fail(t.loc, std::move(m));
  }
  static constexpr text quoted(std::string_view s) {
    text t;
    append_quoted(t, s);
    return t;
  }
  static constexpr text operand_what(std::string_view kind, std::size_t index, opcode c) {
    text t;
    t << kind << " for operand " << static_cast<std::int64_t>(index + 1) << " of " << mnemonic(c);
    return t;
  }

  //===--- tokens ---===//

  constexpr void advance() {
    if (has_ahead_) {
      tok_ = ahead_;
      has_ahead_ = false;
    } else {
      next_token(tok_);
    }
  }
  constexpr const token& peek() {
    if (!has_ahead_) {
      next_token(ahead_);
      has_ahead_ = true;
    }
    return ahead_;
  }
  /// Whether the next token is `k` (`=`, `,` or `(`), without reading it when it is not read yet.
  constexpr bool peek_is(tok k) { return has_ahead_ ? ahead_.kind == k : lex_.next_is(k); }
  /// The lexer's next token into `t`; a word longer than `max_name_length` becomes an error
  /// token, so whichever rule meets it reports it at its location.
  constexpr void next_token(token& t) {
    lex_.next(t);
    if ((t.kind == tok::ident || t.kind == tok::symbol) && t.spelling.size() > limits_.max_name_length) {
      t.kind = tok::error;
      t.error = name_too_long_.view();
    }
  }
  [[nodiscard]] constexpr bool at(tok k) const { return tok_.kind == k; }
  [[nodiscard]] constexpr bool at_word(std::string_view w) const {
    if (tok_.kind != tok::ident || tok_.spelling.size() != w.size()) return false;
    for (std::size_t i = 0; i < w.size(); ++i)  // a short word: cheaper than a call to memcmp
      if (tok_.spelling[i] != w[i]) return false;
    return true;
  }
  constexpr bool expect(tok k, std::string_view what) {
    if (!at(k)) return fail_expected(what, tok_);
    advance();
    return true;
  }
  constexpr bool expect_word(std::string_view w, std::string_view what) {
    if (!at_word(w)) return fail_expected(what, tok_);
    advance();
    return true;
  }
  constexpr void skip_newlines() {
    while (at(tok::newline)) advance();
  }

  //===--- names ---===//

  [[nodiscard]] constexpr std::uint32_t offset_of(std::string_view s) const {
    return static_cast<std::uint32_t>(s.data() - src_.data());
  }
  /// Reads a name that is about to be defined (`x = ...`, a parameter, a loop variable).
  constexpr bool take_value_name(std::string_view& name, location& loc) {
    if (!at(tok::ident)) return fail_expected("a value name", tok_);
    if (is_reserved(tok_.spelling)) {
      text m;
      m << quoted(tok_.spelling) << " is a reserved word and cannot name a value";
      return fail(tok_.loc, std::move(m));
    }
    name = tok_.spelling;
    loc = tok_.loc;
    advance();
    return true;
  }
  /// Binds `name` to `v` in the current scope. Names are unique per function; the only
  /// exception is a while condition's iteration names, which its body binds again.
  constexpr bool define(std::string_view name, location loc, value_id v) {
    const auto [s, fresh] = names_.emplace(src_, offset_of(name), static_cast<std::uint32_t>(name.size()), v.index,
                                           state::visible, name_table::hash(name));
    if (!fresh) {
      if (s->st != state::released) {
        text m;
        m << "redefinition of " << quoted(name);
        return fail(loc, std::move(m));
      }
      s->value = v.index;
      s->st = state::visible;
    }
    // Why the entry's index and not the name: ending the scope then finds it without a lookup.
    scope_names_.push_back(names_.index_of(*s));
    return true;
  }
  constexpr bool define_results(std::span<const std::string_view> names, std::span<const location> locs, op_id o) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!define(names[i], locs[i], b_->fn().result(o, static_cast<std::uint32_t>(i)))) return false;
    return true;
  }
  constexpr bool define_args(std::span<const std::string_view> names, std::span<const location> locs, region_id r) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!define(names[i], locs[i], b_->fn().arg(r, static_cast<std::uint32_t>(i)))) return false;
    return true;
  }
  /// Resolves a use of a value name at the current token.
  constexpr bool use_value(value_id& out) {
    if (use_known_value(out)) return true;
    text m;
    if (names_.find(src_, tok_.spelling, tok_.hash) == nullptr) m << "use of undefined value " << quoted(tok_.spelling);
    else m << quoted(tok_.spelling) << " is defined inside a region and is not visible here";
    return fail(tok_.loc, std::move(m));
  }
  /// `use_value` when the name at the current token (an ident) is visible; else false, with
  /// nothing read or reported. Why: a reserved word is never bound, so a rule may look the name
  /// up first and tell a reserved word (or a literal `true`) apart only when the lookup fails.
  constexpr bool use_known_value(value_id& out) {
    const auto* s = names_.find(src_, tok_.spelling, tok_.hash);
    if (s == nullptr || s->st != state::visible) return false;
    out = value_id{s->value};
    ++value_uses_;
    advance();
    return true;
  }
  constexpr std::size_t enter_scope() const { return scope_names_.size(); }
  /// Ends a region's scope: its names stay reserved (hidden); the first `released` of them
  /// (a while condition's arguments) may be bound again.
  constexpr void leave_scope(std::size_t mark, std::size_t released = 0) {
    for (std::size_t i = mark; i < scope_names_.size(); ++i)
      names_.at(scope_names_[i]).st = i - mark < released ? state::released : state::hidden;
    scope_names_.resize(mark);
  }

  //===--- literals ---===//

  /// An integer literal with an optional '-' sign, within [lo, hi].
  constexpr bool parse_int(std::int64_t& out, std::string_view what, std::int64_t lo, std::int64_t hi) {
    const token start = tok_;
    bool neg = false;
    if (at(tok::minus)) {
      neg = true;
      advance();
    }
    if (!at(tok::integer)) return fail_expected(what, neg ? tok_ : start);
    const std::uint64_t mag = tok_.magnitude;
    const std::uint64_t limit = neg ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
    if (mag > limit) return fail(start.loc, "integer literal out of range");
    out = neg ? static_cast<std::int64_t>(0 - mag) : static_cast<std::int64_t>(mag);
    if (out < lo || out > hi) {
      text m;
      m << what << " must be between " << lo << " and " << hi << ", found " << out;
      return fail(start.loc, std::move(m));
    }
    advance();
    return true;
  }

  std::string_view src_;
  lexer lex_;
  token tok_;
  token ahead_;
  bool has_ahead_ = false;
  bool failed_ = false;
  diagnostic error_;
  program prog_;
  function_builder* b_ = nullptr;
  parse_limits limits_;
  text name_too_long_;          ///< the error of a too-long word, built once
  std::size_t value_uses_ = 0;  ///< value names read so far (a type that reads one is not remembered)
  name_table names_;
  std::vector<std::uint32_t> scope_names_;  ///< the names_ entries bound in the open scopes, innermost last
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
