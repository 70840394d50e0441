// SPDX-License-Identifier: Apache-2.0
/// @file text/parse.hpp
/// The `.t2b` parser: text to `program`, through `function_builder`. Fails closed: any
/// malformed input yields exactly one located diagnostic (source "parse"), never UB.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
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

/// Recursive descent over a lazily lexed token stream with one token of lookahead. Every
/// `parse_*` returns false after recording the first error; callers only propagate.
/// Complexity: linear in the input (names resolve through a hash table).
class parser {
 public:
  constexpr parser(std::string_view src, std::string_view file, const parse_limits& limits)
      : src_(src), lex_(src), limits_(limits) {
    prog_.file = text(file);
    if (limits_.max_nesting > text_limits::max_depth_cap) limits_.max_nesting = text_limits::max_depth_cap;
    name_too_long_ << "name or word longer than " << static_cast<std::int64_t>(limits_.max_name_length)
                   << " bytes (max_name_length)";
  }

  constexpr result<program> run() {
    result<program> r;
    // Why 4 GiB is hard: names are kept as 32-bit offsets into the source.
    if (src_.size() >= std::numeric_limits<std::uint32_t>::max()) fail(location{1, 1}, "input larger than 4 GiB");
    else if (src_.size() > limits_.max_file_size) fail(input_too_large(limits_.max_file_size));
    if (!failed_ && parse_program()) {
      r.value = std::move(prog_);
    } else {
      r.value.file = std::move(prog_.file);
      r.errors.push_back(std::move(error_));
    }
    return r;
  }

 private:
  using state = name_table::state;

  /// What a region must end with.
  struct block_ctx {
    bool function_body = false;
    std::size_t results = 0;  ///< values the terminator must carry
    std::string_view owner;   ///< "if", "for", "while", "while condition"
  };

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
      tok_ = next_token();
    }
  }
  constexpr const token& peek() {
    if (!has_ahead_) {
      ahead_ = next_token();
      has_ahead_ = true;
    }
    return ahead_;
  }
  /// The lexer's next token; a word longer than `max_name_length` becomes an error token, so
  /// whichever rule meets it reports it at its location.
  constexpr token next_token() {
    token t = lex_.next();
    if ((t.kind == tok::ident || t.kind == tok::symbol) && t.spelling.size() > limits_.max_name_length) {
      t.kind = tok::error;
      t.error = name_too_long_.view();
    }
    return t;
  }
  [[nodiscard]] constexpr bool at(tok k) const { return tok_.kind == k; }
  [[nodiscard]] constexpr bool at_word(std::string_view w) const { return tok_.kind == tok::ident && tok_.spelling == w; }
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
    if (const auto [s, fresh] = names_.emplace(src_, offset_of(name), static_cast<std::uint32_t>(name.size()), v.index, state::visible);
        !fresh) {
      if (s->st != state::released) {
        text m;
        m << "redefinition of " << quoted(name);
        return fail(loc, std::move(m));
      }
      s->value = v.index;
      s->st = state::visible;
    }
    scope_names_.push_back(name);
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
    const auto* s = names_.find(src_, tok_.spelling);
    if (s == nullptr || s->st != state::visible) {
      text m;
      if (s == nullptr) m << "use of undefined value " << quoted(tok_.spelling);
      else m << quoted(tok_.spelling) << " is defined inside a region and is not visible here";
      return fail(tok_.loc, std::move(m));
    }
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
      if (auto* s = names_.find(src_, scope_names_[i])) s->st = i - mark < released ? state::released : state::hidden;
    scope_names_.resize(mark);
  }

  //===--- literals and operands ---===//

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
  /// A value name or a literal (integer, float, true, false).
  constexpr bool parse_scalar(operand& out, std::string_view what) {
    if (at(tok::ident)) {
      if (tok_.spelling == "true" || tok_.spelling == "false") {
        out = operand::boolean(tok_.spelling == "true");
        advance();
        return true;
      }
      if (is_reserved(tok_.spelling)) return fail_expected(what, tok_);
      value_id v;
      if (!use_value(v)) return false;
      out = operand::of(v);
      return true;
    }
    if (at(tok::floating)) {
      out = operand::decimal(tok_.mantissa, tok_.exp10);
      advance();
      return true;
    }
    if (at(tok::minus) && peek().kind == tok::floating) {
      advance();
      out = operand::decimal(-tok_.mantissa, tok_.exp10);
      advance();
      return true;
    }
    if (at(tok::integer) || at(tok::minus)) {
      if (at(tok::minus) && peek().kind != tok::integer) {
        advance();
        return fail_expected("a number after '-'", tok_);
      }
      std::int64_t n = 0;
      if (!parse_int(n, "integer literal", std::numeric_limits<std::int64_t>::min(),
                     std::numeric_limits<std::int64_t>::max())) return false;
      out = operand::integer(n);
      return true;
    }
    return fail_expected(what, tok_);
  }
  /// `(a, b, ...)` of scalars, stored in the operand pool.
  constexpr bool parse_tuple(operand& out) {
    if (!expect(tok::lparen, "'('")) return false;
    tuple_.clear();
    if (!at(tok::rparen)) {
      while (true) {
        operand e;
        if (!parse_scalar(e, "a value or literal in tuple")) return false;
        tuple_.push_back(e);
        if (at(tok::comma)) {
          advance();
          continue;
        }
        if (!at(tok::rparen)) return fail_expected("')' after tuple", tok_);
        break;
      }
    }
    advance();
    out = b_->tuple(std::span<const operand>(tuple_));
    return true;
  }
  /// One positional operand of kind `letter` (see `op_info`).
  constexpr bool parse_positional(char letter, std::size_t index, opcode c, operand& out) {
    switch (letter) {
      case 'v': {
        if (!at(tok::ident) || is_reserved(tok_.spelling))
          return fail_expected(operand_what("a value name", index, c).view(), tok_);
        value_id v;
        if (!use_value(v)) return false;
        out = operand::of(v);
        return true;
      }
      case 'p':
      case 't': {
        if (!at(tok::lparen)) return fail_expected(operand_what("a tuple '(a, b)'", index, c).view(), tok_);
        const location loc = tok_.loc;
        if (!parse_tuple(out)) return false;
        if (letter == 'p' && out.num != 2) {
          text m;
          m << "operand " << static_cast<std::int64_t>(index + 1) << " of " << mnemonic(c)
            << " must be a pair '(a, b)', found a tuple of " << out.num << " elements";
          return fail(loc, std::move(m));
        }
        return true;
      }
      case 'm': {
        const auto s = at(tok::ident) ? parse_space(tok_.spelling) : std::nullopt;
        if (!s) return fail_expected(operand_what("a memory space (Vec, Mat, Left, Right, Acc)", index, c).view(), tok_);
        out = operand::of(*s);
        advance();
        return true;
      }
      case 'd': {
        const auto d = at(tok::ident) ? parse_dtype(tok_.spelling) : std::nullopt;
        if (!d) return fail_expected(operand_what("a dtype", index, c).view(), tok_);
        out = operand::of(*d);
        advance();
        return true;
      }
      default: return parse_scalar(out, operand_what("a value or literal", index, c).view());
    }
  }

  //===--- types ---===//

  constexpr bool parse_dtype_word(dtype& out) {
    const auto d = at(tok::ident) ? parse_dtype(tok_.spelling) : std::nullopt;
    if (!d) return fail_expected("a dtype (BOOL, INT8, UINT8, INT16, INT32, UINT32, INT64, FP16, BF16, FP32, INDEX)", tok_);
    out = *d;
    advance();
    return true;
  }
  constexpr bool parse_shape(std::array<std::int64_t, 2>& shape) {
    if (!expect(tok::lbracket, "'[' to open the shape")) return false;
    if (!parse_int(shape[0], "shape extent", 1, text_limits::max_dim)) return false;
    if (!expect(tok::comma, "',' between the two shape extents (shapes are rank 2)")) return false;
    if (!parse_int(shape[1], "shape extent", 1, text_limits::max_dim)) return false;
    return expect(tok::rbracket, "']' after the shape (shapes are rank 2)");
  }
  constexpr bool parse_field_eq(std::string_view field) {
    advance();
    if (at(tok::equal)) {  // the message below is built only when it is needed
      advance();
      return true;
    }
    text m;
    m << "'=' after '" << field << "'";
    return expect(tok::equal, m.view());
  }
  /// `[e0, e1]`: each a literal within the shape, `?` (Buffer) or a scalar value name.
  constexpr bool parse_valid(type& t) {
    if (!expect(tok::lbracket, "'[' after 'valid='")) return false;
    for (int i = 0; i < 2; ++i) {
      if (i == 1 && !expect(tok::comma, "',' between the two valid extents")) return false;
      if (at(tok::question)) {
        if (!t.is_buffer()) return fail(tok_.loc, "'?' (a runtime extent) is only allowed in Buffer types");
        t.valid[i] = extent::runtime();
        advance();
      } else if (at(tok::ident)) {
        const token name = tok_;
        value_id v;
        if (!use_value(v)) return false;
        if (!b_->fn().type_of(v).is_scalar()) {
          text m;
          m << "valid extent " << quoted(name.spelling) << " must be a scalar value";
          return fail(name.loc, std::move(m));
        }
        t.valid[i] = extent::of(v);
      } else {
        std::int64_t n = 0;
        if (!parse_int(n, "valid extent", 0, t.shape[i])) return false;
        t.valid[i] = extent::of(n);
      }
    }
    return expect(tok::rbracket, "']' after the valid extents");
  }
  constexpr bool parse_layout_value(box_layout& out) {
    const auto l = at(tok::ident) ? parse_box_layout(tok_.spelling) : std::nullopt;
    if (!l) return fail_expected("a box layout (row_major, col_major, none_box)", tok_);
    out = *l;
    advance();
    return true;
  }
  /// The optional fields of a Tile or Buffer type, after its memory space.
  constexpr bool parse_view_fields(type& t) {
    enum : unsigned { f_valid = 1, f_blayout = 2, f_slayout = 4, f_fractal = 8, f_pad = 16, f_compact = 32 };
    unsigned seen = 0;
    const auto once = [&](unsigned bits) {
      if ((seen & bits) != 0) {
        text m;
        m << "duplicate field " << quoted(tok_.spelling) << " in type";
        return fail(tok_.loc, std::move(m));
      }
      seen |= bits;
      return true;
    };
    while (at(tok::comma)) {
      advance();
      const std::string_view w = at(tok::ident) ? tok_.spelling : std::string_view{};
      if (w == "valid") {
        if (!once(f_valid) || !parse_field_eq(w) || !parse_valid(t)) return false;
      } else if (w == "blayout") {
        if (!once(f_blayout) || !parse_field_eq(w) || !parse_layout_value(t.blayout)) return false;
      } else if (w == "slayout") {
        if (!once(f_slayout) || !parse_field_eq(w) || !parse_layout_value(t.slayout)) return false;
      } else if (w == "fractal") {
        std::int64_t n = 0;
        if (!once(f_fractal) || !parse_field_eq(w) || !parse_int(n, "fractal", 1, text_limits::max_fractal)) return false;
        t.fractal = static_cast<std::uint32_t>(n);
      } else if (w == "pad") {
        if (!once(f_pad) || !parse_field_eq(w)) return false;
        const auto p = at(tok::ident) ? parse_pad(tok_.spelling) : std::nullopt;
        if (!p) return fail_expected("a pad value (null, zero, max, min)", tok_);
        t.pad = *p;
        advance();
      } else if (w == "compact") {
        if (!once(f_compact) || !parse_field_eq(w)) return false;
        const auto c = at(tok::ident) ? parse_compact(tok_.spelling) : std::nullopt;
        if (!c) return fail_expected("a compact mode (null, normal)", tok_);
        t.compact = *c;
        advance();
      } else {
        const layout_shorthand* hit = nullptr;
        for (const auto& s : layout_shorthands)
          if (s.name == w) hit = &s;
        if (hit == nullptr)
          return fail_expected("a type field (valid, blayout, slayout, fractal, pad, compact, ND, NZ, ZN)", tok_);
        if (!once(f_blayout | f_slayout)) return false;
        t.blayout = hit->blayout;
        t.slayout = hit->slayout;
        advance();
      }
    }
    return true;
  }
  constexpr bool parse_tensor_fields(type& t) {
    bool layout = false;
    while (at(tok::comma)) {
      advance();
      const auto l = at(tok::ident) ? parse_tensor_layout(tok_.spelling) : std::nullopt;
      if (l) {
        if (layout) return fail(tok_.loc, "duplicate tensor layout");
        layout = true;
        t.tlayout = *l;
        advance();
      } else if (at_word("stride")) {
        if (t.has_stride) return fail(tok_.loc, "duplicate field 'stride' in type");
        if (!parse_field_eq("stride") || !expect(tok::lbracket, "'[' after 'stride='")) return false;
        if (!parse_int(t.stride[0], "stride", 0, text_limits::max_stride)) return false;
        if (!expect(tok::comma, "',' between the two strides")) return false;
        if (!parse_int(t.stride[1], "stride", 0, text_limits::max_stride)) return false;
        if (!expect(tok::rbracket, "']' after the strides")) return false;
        t.has_stride = true;
      } else {
        return fail_expected("a tensor field (ND, DN, NZ, stride)", tok_);
      }
    }
    return true;
  }
  /// `in mem` or `in mem[OFFSET]` after a Tile type.
  constexpr bool parse_storage(type& t) {
    const location in_loc = tok_.loc;
    advance();
    if (!t.is_tile()) return fail(in_loc, "only Tile types have a storage clause");
    if (!at(tok::ident) || is_reserved(tok_.spelling)) return fail_expected("an allocation name after 'in'", tok_);
    const token name = tok_;
    value_id m;
    if (!use_value(m)) return false;
    const value_info& vi = b_->fn().value(m);
    if (vi.origin() != value_origin::result || b_->fn().op(vi.def).code() != opcode::tile_alloc) {
      text msg;
      msg << "storage " << quoted(name.spelling) << " must name a tile.alloc result";
      return fail(name.loc, std::move(msg));
    }
    t.mem = m;
    t.mem_offset = 0;
    if (at(tok::lbracket)) {
      advance();
      if (at(tok::minus)) {
        text msg;
        msg << (t.space == memory_space::vec ? "dense " : "") << "storage window must begin within its allocation: "
            << "the storage byte offset cannot be negative";
        return fail(tok_.loc, std::move(msg));
      }
      if (!parse_int(t.mem_offset, "storage byte offset", 0, text_limits::max_offset)) return false;
      if (!expect(tok::rbracket, "']' after the storage byte offset")) return false;
    }
    return true;
  }
  /// A type; a bare DTYPE means `Scalar[DTYPE]`. `storage`: a Tile may carry `in mem[off]`.
  constexpr bool parse_type(type& out, bool storage) {
    if (!at(tok::ident)) return fail_expected("a type", tok_);
    const std::string_view w = tok_.spelling;
    const std::size_t begin = offset_of(w);
    const std::size_t uses_before = value_uses_;
    std::size_t end = 0;  // one past the closing ']' of a bracketed type
    if (const type_memo_entry* e = memo_hit(begin)) {
      out = e->t;
      lex_.resume_at(begin + e->text.size());
      advance();
    } else if (const auto d = parse_dtype(w)) {
      out = scalar_type(*d);
      advance();
    } else if (w == "Scalar") {
      advance();
      dtype d0{};
      if (!expect(tok::lbracket, "'[' after 'Scalar'") || !parse_dtype_word(d0) ||
          !expect(tok::rbracket, "']' after the dtype"))
        return false;
      out = scalar_type(d0);
    } else if (w == "Tensor") {
      advance();
      std::array<std::int64_t, 2> shape{};
      dtype d0{};
      if (!expect(tok::lbracket, "'[' after 'Tensor'") || !parse_shape(shape) ||
          !expect(tok::comma, "',' after the shape") || !parse_dtype_word(d0))
        return false;
      out = tensor_type(shape[0], shape[1], d0);
      if (!parse_tensor_fields(out)) return false;
      end = closing_bracket_end();
      if (!expect(tok::rbracket, "',' or ']' in Tensor type")) return false;
    } else if (w == "Tile" || w == "Buffer") {
      const bool tile = w == "Tile";
      advance();
      std::array<std::int64_t, 2> shape{};
      dtype d0{};
      if (!expect(tok::lbracket, tile ? "'[' after 'Tile'" : "'[' after 'Buffer'") || !parse_shape(shape) ||
          !expect(tok::comma, "',' after the shape") || !parse_dtype_word(d0) ||
          !expect(tok::comma, "',' and a memory space after the dtype"))
        return false;
      const auto s = at(tok::ident) ? parse_space(tok_.spelling) : std::nullopt;
      if (!s) return fail_expected("a memory space (Vec, Mat, Left, Right, Acc)", tok_);
      advance();
      out = shaped_type(tile ? type_kind::tile : type_kind::buffer, shape[0], shape[1], d0, *s);
      if (!parse_view_fields(out)) return false;
      end = closing_bracket_end();
      if (!expect(tok::rbracket, tile ? "',' or ']' in Tile type" : "',' or ']' in Buffer type")) return false;
    } else {
      return fail_expected("a type", tok_);
    }
    if (end != 0 && value_uses_ == uses_before) remember_type(src_.substr(begin, end - begin), out);
    if (at_word("in")) {
      if (!storage) return fail(tok_.loc, "a storage clause is not allowed here");
      return parse_storage(out);
    }
    return true;
  }
  /// Bracketed types already read, by their exact text. Why: a kernel spells the same few types
  /// on every line, and lexing and parsing them again was a third of parsing. Only texts that
  /// name no value (a valid extent may) and span no line break are kept, so a text always means
  /// the same type and skipping it leaves the lexer's line and bracket depth as they were.
  struct type_memo_entry {
    std::string_view text;
    type t;
  };
  constexpr const type_memo_entry* memo_hit(std::size_t begin) const {
    if (has_ahead_) return nullptr;  // the lexer is already past the next token
    const std::string_view rest = src_.substr(begin);
    for (const auto& e : type_memo_)
      if (!e.text.empty() && rest.starts_with(e.text)) return &e;
    return nullptr;
  }
  constexpr std::size_t closing_bracket_end() const {
    return at(tok::rbracket) ? offset_of(tok_.spelling) + 1 : 0;
  }
  constexpr void remember_type(std::string_view spelled, const type& t) {
    if (spelled.find('\n') != std::string_view::npos) return;
    for (const auto& e : type_memo_)
      if (e.text == spelled) return;
    type_memo_[type_memo_next_] = type_memo_entry{spelled, t};
    type_memo_next_ = (type_memo_next_ + 1) % type_memo_.size();
  }

  /// After `->`: one type or a parenthesized list.
  constexpr bool parse_result_types(std::vector<type>& types, bool storage) {
    if (!at(tok::lparen)) {
      type t;
      if (!parse_type(t, storage)) return false;
      types.push_back(t);
      return true;
    }
    advance();
    if (!at(tok::rparen)) {
      while (true) {
        type t;
        if (!parse_type(t, storage)) return false;
        types.push_back(t);
        if (at(tok::comma)) {
          advance();
          continue;
        }
        if (!at(tok::rparen)) return fail_expected("',' or ')' in the result types", tok_);
        break;
      }
    }
    advance();
    return true;
  }

  //===--- program and functions ---===//

  constexpr bool parse_program() {
    advance();
    skip_newlines();
    while (!at(tok::eof)) {
      if (!parse_function()) return false;
      if (!at(tok::newline) && !at(tok::eof)) return fail_expected("end of line after the function", tok_);
      skip_newlines();
    }
    for (const auto& [name, loc] : callees_) {
      if (functions_.find(src_, name) == nullptr) {
        text m;
        m << "call to undefined function " << quoted(text("@").append(name).view());
        return fail(loc, std::move(m));
      }
    }
    return true;
  }

  constexpr bool parse_function() {
    const location loc = tok_.loc;
    const auto kind = at(tok::ident) ? parse_function_kind(tok_.spelling) : std::nullopt;
    if (!kind) return fail_expected("a function kind (incore, aic, aiv, orchestration)", tok_);
    advance();
    if (!at(tok::symbol)) return fail_expected("a function name '@name'", tok_);
    const std::string_view name = tok_.spelling.substr(1);
    if (functions_.find(src_, name) != nullptr) {
      text m;
      m << "redefinition of function " << quoted(tok_.spelling);
      return fail(tok_.loc, std::move(m));
    }
    functions_.insert(src_, offset_of(name), static_cast<std::uint32_t>(name.size()),
                      static_cast<std::uint32_t>(prog_.functions.size()), state::visible);
    advance();

    function_builder b(*kind, name, loc);
    b.reserve(arenas_for_lines(offset_of(name)));
    b_ = &b;
    names_.clear();
    scope_names_.clear();
    if (!parse_params() || !parse_header_rest()) return false;
    if (!at(tok::lbrace)) return fail_expected("'{' to open the function body", tok_);
    if (!parse_block(block_ctx{true, b.fn().results.size(), "function"})) return false;
    prog_.functions.push_back(b.finish());
    b_ = nullptr;
    return true;
  }

  /// Arena sizes for the function whose name starts at byte `from`, estimated from its text: up to
  /// the next line that starts with '}' (where printed and generated functions end). Why: the
  /// arenas of a large kernel grew by doubling, copying each about once and, mid-copy, holding
  /// half as much again; a reserve from the text sizes them once. Too small an estimate (a body
  /// with a line starting with '}', or unusual lines) only lets them grow as before.
  [[nodiscard]] constexpr function_builder::arena_sizes arenas_for_lines(std::size_t from) {
    std::size_t lines = 0, end = from;
    // Why the flag: a text without such a line would otherwise be scanned to its end once per
    // function (quadratic); after one scan found none, no function gets a reserve.
    if (!no_closing_line_) {
      // Why `find`: it is memchr at run time, several times cheaper per byte than a loop here.
      for (end = src_.find('\n', from); end != std::string_view::npos; end = src_.find('\n', end + 1)) {
        ++lines;
        if (end + 1 < src_.size() && src_[end + 1] == '}') break;
      }
      no_closing_line_ = end == std::string_view::npos;
      if (no_closing_line_) end = src_.size();
    }
    // Per statement line of a kernel: one op and one result with a short name; two to four
    // operands (a load's offsets and shape are four more); a keyword argument on some ops.
    return function_builder::arena_sizes{.values = lines + 8, .ops = lines, .region_ops = lines,
                                          .operands = 3 * lines, .kwargs = lines / 4, .names = (end - from) / 8, .types = 16};
  }

  constexpr bool parse_params() {
    if (!expect(tok::lparen, "'(' after the function name")) return false;
    if (at(tok::rparen)) {
      advance();
      return true;
    }
    while (true) {
      std::string_view name;
      location loc;
      if (!take_value_name(name, loc)) return false;
      if (!expect(tok::colon, "':' after the parameter name")) return false;
      direction dir = direction::in;
      location dir_loc;
      if (at(tok::ident)) {
        if (const auto d = parse_direction(tok_.spelling)) {
          dir = *d;
          dir_loc = tok_.loc;
          advance();
        }
      }
      type t;
      if (!parse_type(t, false)) return false;
      if (dir != direction::in && !t.is_tensor()) return fail(dir_loc, "only Tensor parameters have a direction");
      if (!define(name, loc, b_->param(name, t, dir, loc))) return false;
      if (at(tok::comma)) {
        advance();
        continue;
      }
      if (!at(tok::rparen)) return fail_expected("',' or ')' after the parameter", tok_);
      advance();
      return true;
    }
  }

  /// `[-> RESULTS] [attributes {...}]`
  constexpr bool parse_header_rest() {
    if (at(tok::arrow)) {
      advance();
      std::vector<type> types;
      if (!parse_result_types(types, false)) return false;
      for (const type& t : types) b_->result_type(t);
    }
    if (!at_word("attributes")) return true;
    advance();
    if (!expect(tok::lbrace, "'{' after 'attributes'")) return false;
    skip_newlines();
    function& f = b_->fn();
    bool stage = false;
    while (!at(tok::rbrace)) {
      if (!at(tok::ident)) return fail_expected("a function attribute (stage, buffer_ir_selected, target)", tok_);
      const token key = tok_;
      advance();
      if (!expect(tok::equal, "'=' after the attribute name")) return false;
      const auto dup = [&] {
        text m;
        m << "duplicate attribute " << quoted(key.spelling);
        return fail(key.loc, std::move(m));
      };
      if (key.spelling == "stage") {
        if (stage) return dup();
        stage = true;
        const auto s = at(tok::ident) ? parse_stage(tok_.spelling) : std::nullopt;
        if (!s) return fail_expected("a stage (tile, buffer)", tok_);
        f.stage = *s;
      } else if (key.spelling == "buffer_ir_selected") {
        if (f.buffer_ir_selected) return dup();
        if (!at_word("true") && !at_word("false")) return fail_expected("'true' or 'false'", tok_);
        f.buffer_ir_selected = at_word("true");
      } else if (key.spelling == "target") {
        if (f.target) return dup();
        const auto t = at(tok::ident) ? parse_target(tok_.spelling) : std::nullopt;
        if (!t) return fail_expected("a target (a2a3, a5)", tok_);
        f.target = *t;
      } else {
        text m;
        m << "unknown function attribute " << quoted(key.spelling);
        return fail(key.loc, std::move(m));
      }
      advance();
      skip_newlines();
      if (at(tok::comma)) {
        advance();
        skip_newlines();
      } else if (!at(tok::rbrace)) {
        return fail_expected("',' or '}' in the attributes", tok_);
      }
    }
    advance();
    return true;
  }

  //===--- regions and statements ---===//

  /// `{ statements }` into the innermost open region; the current token is '{'.
  constexpr bool parse_block(const block_ctx& ctx) {
    if (depth_ >= limits_.max_nesting) {
      text m;
      m << "regions nested deeper than " << static_cast<std::int64_t>(limits_.max_nesting)
        << " levels (max_nesting)";
      return fail(tok_.loc, std::move(m));
    }
    if (!ctx.function_body) ++depth_;
    const location open = tok_.loc;
    advance();
    skip_newlines();
    bool terminated = false;
    location term_loc;
    std::string_view term;
    while (!at(tok::rbrace)) {
      if (at(tok::eof)) {
        text m;
        m << "expected '}' to close the region opened at " << static_cast<std::int64_t>(open.line) << ':'
          << static_cast<std::int64_t>(open.col) << ", found end of file";
        return fail(tok_.loc, std::move(m));
      }
      if (terminated) {
        text m;
        m << quoted(term) << " must be the last statement of its region";
        return fail(term_loc, std::move(m));
      }
      term_loc = tok_.loc;
      term = tok_.spelling;
      if (!parse_statement(ctx, terminated)) return false;
      if (!at(tok::newline) && !at(tok::rbrace)) return fail_expected("end of line after the statement", tok_);
      skip_newlines();
    }
    if (!terminated && !ctx.function_body && ctx.results > 0) {
      text m;
      m << "region of " << quoted(ctx.owner) << " with results must end with 'yield'";
      return fail(tok_.loc, std::move(m));
    }
    advance();
    if (!ctx.function_body) --depth_;
    return true;
  }

  constexpr bool parse_statement(const block_ctx& ctx, bool& terminated) {
    const location loc = tok_.loc;
    if (!at(tok::ident)) return fail_expected("a statement", tok_);
    if (++statements_ > limits_.max_ops) {
      text m;
      m << "more than " << static_cast<std::int64_t>(limits_.max_ops) << " statements in the program (max_ops)";
      return fail(loc, std::move(m));
    }
    const std::string_view w = tok_.spelling;
    if (w == "yield" || w == "return") {
      terminated = true;
      return parse_terminator(ctx, w == "return");
    }
    if (w == "else") return fail(loc, "'else' must follow the '}' of its 'if' on the same line");
    lhs_.clear();
    lhs_locs_.clear();
    if (w == "if" || w == "for" || w == "while") return parse_region_op(loc);
    const tok next = peek().kind;
    if (next == tok::lparen) return parse_call(loc);
    if (next != tok::equal && next != tok::comma) {
      text m;
      m << "'=' or '(' after " << quoted(w);
      return fail_expected(m.view(), peek());
    }
    while (true) {
      std::string_view name;
      location nloc;
      if (!take_value_name(name, nloc)) return false;
      lhs_.push_back(name);
      lhs_locs_.push_back(nloc);
      if (at(tok::equal)) break;
      if (!expect(tok::comma, "',' or '=' after the result name")) return false;
    }
    advance();
    if (at(tok::ident)) {
      const std::string_view r = tok_.spelling;
      if (r == "if" || r == "for" || r == "while") return parse_region_op(loc);
      if (r == "submit") return parse_submit(loc);
      opcode c{};
      if (peek().kind == tok::lparen && !(lookup_mnemonic(r, c) && is_scalar_call(c))) return parse_call(loc);
    }
    return parse_scalar_def(loc);
  }

  constexpr bool parse_terminator(const block_ctx& ctx, bool is_return) {
    const location loc = tok_.loc;
    if (is_return != ctx.function_body)
      return fail(loc, is_return ? "'return' can only end the function body"
                                 : "'yield' can only end the region of an 'if', 'for' or 'while'");
    advance();
    std::vector<operand>& vals = args_;
    vals.clear();
    if (!at(tok::newline) && !at(tok::rbrace)) {
      while (true) {
        operand o;
        if (!parse_scalar(o, is_return ? "a value to return" : "a value to yield")) return false;
        vals.push_back(o);
        if (!at(tok::comma)) break;
        advance();
      }
    }
    if (vals.size() != ctx.results) {
      text m;
      if (is_return) m << "'return' has " << static_cast<std::int64_t>(vals.size()) << " values, the function declares "
                       << static_cast<std::int64_t>(ctx.results) << " results";
      else m << "'yield' has " << static_cast<std::int64_t>(vals.size()) << " values, " << quoted(ctx.owner) << " needs "
             << static_cast<std::int64_t>(ctx.results);
      return fail(loc, std::move(m));
    }
    b_->emit(is_return ? opcode::cf_return : opcode::cf_yield, vals, {}, {}, {}, loc);
    return true;
  }

  /// Checks that `names` (the statement's left-hand side) bind `count` results of `what`.
  constexpr bool check_result_names(location loc, std::size_t count, std::string_view what) {
    if (lhs_.size() == count) return true;
    text m;
    m << quoted(what);
    if (count == 0) m << " has no result";
    else if (lhs_.empty()) m << " defines a result; bind it: 'x = " << what << "(...)'";
    else m << " defines " << static_cast<std::int64_t>(count) << " result"
           << (count == 1 ? "" : "s") << ", found " << static_cast<std::int64_t>(lhs_.size()) << " names";
    return fail(lhs_.empty() ? loc : lhs_locs_[0], std::move(m));
  }

  /// `[names =] MNEMONIC(args, key = value) [: TYPE]`
  constexpr bool parse_call(location loc) {
    opcode c{};
    if (!lookup_mnemonic(tok_.spelling, c) || !is_call_form(c)) {
      text m;
      m << "unknown op " << quoted(tok_.spelling);
      return fail(tok_.loc, std::move(m));
    }
    if (!parse_operands(c)) return false;
    const op_info& oi = info(c);
    if (is_spmd_query(c) && lhs_.empty()) {
      text m;
      m << "SPMD queries require an SSA result and no operands or kwargs: bind it: 'x = " << oi.mnemonic << "()'";
      return fail(loc, std::move(m));
    }
    if (!check_result_names(loc, oi.results == arity::none ? 0 : 1, oi.mnemonic)) return false;
    if (oi.results == arity::none) {
      b_->emit(c, args_, kws_, {}, {}, loc);
      return true;
    }
    if (dialect_of(c) == dialect::scalar) return finish_scalar(c, loc);
    type t;
    if (c == opcode::tile_alloc) {
      if (at(tok::colon)) return fail(tok_.loc, "tile.alloc takes no ': TYPE' (its result is an allocation)");
      t = mem_type();
    } else {
      if (!at(tok::colon)) {  // the message is built only when it is needed (one op per line)
        text what;
        what << "':' and the result type of " << oi.mnemonic;
        return fail_expected(what.view(), tok_);
      }
      advance();
      if (!parse_type(t, true)) return false;
    }
    const op_id o = b_->emit(c, args_, kws_, std::span<const type>(&t, 1), lhs_, loc);
    return define_results(lhs_, lhs_locs_, o);
  }

  /// `(positional..., key = value...)` checked against the op's signature and keywords.
  constexpr bool parse_operands(opcode c) {
    const token op_tok = tok_;
    advance();
    if (!expect(tok::lparen, "'(' after the op name")) return false;
    const signature& sig = signature_of(c);
    args_.clear();
    arg_locs_.clear();
    kws_.clear();
    std::size_t n = 0;
    const auto arity_error = [&](std::size_t found) {
      text m;
      if (is_spmd_query(c)) m << "SPMD queries require an SSA result and no operands or kwargs: ";
      m << mnemonic(c) << " expects ";
      if (sig.variadic) m << "at least ";
      m << static_cast<std::int64_t>(sig.min);
      if (!sig.variadic && sig.size != sig.min) m << " to " << static_cast<std::int64_t>(sig.size);
      m << (sig.size == 1 && !sig.variadic ? " operand" : " operands") << ", found " << static_cast<std::int64_t>(found);
      return fail(op_tok.loc, std::move(m));
    };
    while (!at(tok::rparen)) {
      if (at(tok::ident) && peek().kind == tok::equal) {
        const token key = tok_;
        const auto k = parse_keyword(key.spelling);
        if (!k || (info(c).keywords & kw_bit(*k)) == 0) {
          text m;
          m << "Unknown kwarg " << quoted(key.spelling) << " for " << mnemonic(c);
          return fail(key.loc, std::move(m));
        }
        for (const kwarg& prev : kws_) {
          if (prev.key == *k) {
            text m;
            m << "duplicate keyword " << quoted(key.spelling) << " for " << mnemonic(c);
            return fail(key.loc, std::move(m));
          }
        }
        advance();
        advance();
        kwarg kw{*k, {}};
        text what;
        what << "a value or literal for keyword " << quoted(key.spelling);
        if (!parse_scalar(kw.value, what.view())) return false;
        kws_.push_back(kw);
      } else {
        if (!kws_.empty()) {
          text m;
          m << "positional operand after keyword arguments of " << mnemonic(c);
          return fail(tok_.loc, std::move(m));
        }
        if (!sig.variadic && n >= sig.size) {
          // Count what is there, so the message says how many were given.
          std::size_t found = n;
          int nest = 0;
          while (!at(tok::eof) && !at(tok::error) && !at(tok::newline) && !(nest == 0 && at(tok::rparen))) {
            if (at(tok::lparen)) ++nest;
            if (at(tok::rparen)) --nest;
            if (nest == 0 && at(tok::comma)) ++found;
            advance();
          }
          return arity_error(found + 1);
        }
        operand o;
        const location aloc = tok_.loc;
        if (!parse_positional(sig.at(n), n, c, o)) return false;
        args_.push_back(o);
        arg_locs_.push_back(aloc);
        ++n;
      }
      if (at(tok::comma)) {
        advance();
        if (at(tok::rparen)) return fail_expected("an operand after ','", tok_);
        continue;
      }
      if (!at(tok::rparen)) {
        text m;
        m << "',' or ')' in the operands of " << mnemonic(c);
        return fail_expected(m.view(), tok_);
      }
    }
    advance();
    if (!sig.accepts(n)) return arity_error(n);
    return true;
  }

  //===--- scalar statements ---===//

  static constexpr bool infix_token(const token& t) {
    switch (t.kind) {
      case tok::plus: case tok::minus: case tok::star: case tok::slashslash: case tok::percent:
      case tok::lt: case tok::le: case tok::eqeq: case tok::ne: case tok::gt: case tok::ge: return true;
      case tok::ident: return t.spelling == "and" || t.spelling == "or";
      default: return false;
    }
  }
  /// A scalar expression: `a`, `a OP b`, `not a`, `min(a, b)`, `max(a, b)`, `cast(a, DTYPE)`.
  /// Leaves the operands in `args_`; `c` is `scalar_const` for a plain operand.
  constexpr bool parse_scalar_expr(opcode& c) {
    args_.clear();
    arg_locs_.clear();
    kws_.clear();
    opcode call{};
    if (at(tok::ident) && peek().kind == tok::lparen && lookup_mnemonic(tok_.spelling, call) && is_scalar_call(call)) {
      c = call;
      return parse_operands(c);
    }
    operand a;
    if (at_word("not")) {
      advance();
      c = opcode::scalar_not;
      arg_locs_.push_back(tok_.loc);
      if (!parse_scalar(a, "an operand after 'not'")) return false;
      args_.push_back(a);
      return true;
    }
    arg_locs_.push_back(tok_.loc);
    if (!parse_scalar(a, "an op, a value or a literal")) return false;
    args_.push_back(a);
    c = opcode::scalar_const;
    if (!infix_token(tok_)) return true;
    const auto op = find_infix(tok_.spelling);
    if (!op) return fail_expected("an operator", tok_);
    c = *op;
    advance();
    operand b;
    arg_locs_.push_back(tok_.loc);
    text what;
    what << "an operand after " << quoted(info(c).infix);
    if (!parse_scalar(b, what.view())) return false;
    args_.push_back(b);
    return true;
  }
  static constexpr std::string_view spelling_of(opcode c) {
    return info(c).infix.empty() ? info(c).mnemonic : info(c).infix;
  }
  /// Value operands of a scalar op must be scalars.
  constexpr bool check_scalar_operands(opcode c) {
    for (std::size_t i = 0; i < args_.size(); ++i) {
      if (!args_[i].is_value() || b_->fn().type_of(args_[i].value()).is_scalar()) continue;
      text m;
      m << "operand " << quoted(b_->fn().name_of(args_[i].value())) << " of " << quoted(spelling_of(c))
        << " must be a scalar value";
      return fail(arg_locs_[i], std::move(m));
    }
    return true;
  }
  constexpr bool parse_scalar_def(location loc) {
    opcode c{};
    if (!parse_scalar_expr(c)) return false;
    if (!check_result_names(loc, 1, spelling_of(c))) return false;
    return finish_scalar(c, loc);
  }
  /// `[: TYPE]` after a scalar op, else the inferred type; then emits and binds.
  constexpr bool finish_scalar(opcode c, location loc) {
    if (!check_scalar_operands(c)) return false;
    type t;
    if (at(tok::colon)) {
      advance();
      const location tloc = tok_.loc;
      if (!parse_type(t, false)) return false;
      if (!t.is_scalar()) {
        text m;
        m << "the result of " << quoted(spelling_of(c)) << " must be a scalar type";
        return fail(tloc, std::move(m));
      }
    } else {
      t = inferred_scalar_type(b_->fn(), c, args_);
      if (t.kind == type_kind::none) {
        text m;
        if (c == opcode::scalar_const)
          m << "constant " << quoted(lhs_[0]) << " needs a type, e.g. '" << lhs_[0] << " = 16 : INDEX'";
        else
          m << "cannot infer the type of " << quoted(lhs_[0]) << " from literal operands; add ': TYPE'";
        return fail(lhs_locs_[0], std::move(m));
      }
    }
    const op_id o = b_->emit(c, args_, kws_, std::span<const type>(&t, 1), lhs_, loc);
    return define_results(lhs_, lhs_locs_, o);
  }

  //===--- orchestration ---===//

  /// `t = submit @kernel(args) [deps(t0, ...)]`
  constexpr bool parse_submit(location loc) {
    if (lhs_.size() != 1) return fail(lhs_locs_[0], "'submit' defines one task: 't = submit @kernel(...)'");
    advance();
    if (!at(tok::symbol)) return fail_expected("a function name '@kernel' after 'submit'", tok_);
    const std::string_view callee = tok_.spelling.substr(1);
    callees_.push_back({callee, tok_.loc});
    const operand sym = b_->symbol(callee);
    advance();
    operand call_args;
    if (!at(tok::lparen)) return fail_expected("'(' and the kernel arguments", tok_);
    if (!parse_tuple(call_args)) return false;
    operand deps;
    if (at_word("deps")) {
      advance();
      if (!expect(tok::lparen, "'(' after 'deps'")) return false;
      tuple_.clear();
      while (!at(tok::rparen)) {
        if (!at(tok::ident) || is_reserved(tok_.spelling)) return fail_expected("a task name in 'deps'", tok_);
        value_id v;
        if (!use_value(v)) return false;
        tuple_.push_back(operand::of(v));
        if (at(tok::comma)) advance();
        else if (!at(tok::rparen)) return fail_expected("',' or ')' in 'deps'", tok_);
      }
      advance();
      deps = b_->tuple(std::span<const operand>(tuple_));
    } else {
      deps = b_->tuple(std::span<const operand>{});
    }
    const operand args[] = {sym, call_args, deps};
    const type t = task_type();
    const op_id o = b_->emit(opcode::orch_submit, args, {}, std::span<const type>(&t, 1), lhs_, loc);
    return define_results(lhs_, lhs_locs_, o);
  }

  //===--- region ops ---===//

  /// The names, locations and result types of a region op, kept across the recursion into its
  /// regions (the parser's scratch vectors are reused by nested statements).
  struct region_head {
    std::vector<std::string_view> names;
    std::vector<location> name_locs;
    std::vector<type> types;
    std::vector<operand> args;
    std::vector<std::string_view> iter_names;
    std::vector<location> iter_locs;
    std::vector<type> arg_types;  ///< a for loop's region arguments: the induction variable, then the carries
  };

  constexpr bool parse_region_op(location loc) {
    // Why pooled heads: a fresh head per region op was several heap allocations per loop or
    // branch. One head per nesting level, reserved for the deepest nesting `parse_block`
    // admits, so the pool never moves a head an enclosing region op still refers to.
    if (heads_.capacity() == 0) heads_.reserve(static_cast<std::size_t>(limits_.max_nesting) + 1);
    if (heads_used_ == heads_.size()) {
      if (heads_.size() == heads_.capacity()) {  // not reached (nesting is checked first); stay correct anyway
        region_head local;
        return parse_region_op_with(loc, local);
      }
      heads_.emplace_back();
    }
    region_head& h = heads_[heads_used_++];
    const bool ok = parse_region_op_with(loc, h);
    --heads_used_;
    return ok;
  }
  constexpr bool parse_region_op_with(location loc, region_head& h) {
    h.names.assign(lhs_.begin(), lhs_.end());
    h.name_locs.assign(lhs_locs_.begin(), lhs_locs_.end());
    h.types.clear();
    h.args.clear();
    h.iter_names.clear();
    h.iter_locs.clear();
    h.arg_types.clear();
    const std::string_view w = tok_.spelling;
    advance();
    if (w == "if") return parse_if(loc, h);
    if (w == "for") return parse_for(loc, h);
    return parse_while(loc, h);
  }
  /// `-> (TYPES)` and the check that names, iteration values and result types agree.
  constexpr bool parse_region_results(location loc, region_head& h, std::string_view what, bool iter) {
    if (at(tok::arrow)) {
      advance();
      if (!parse_result_types(h.types, true)) return false;
    }
    text m;
    if (h.types.size() != h.names.size()) {
      if (h.names.empty()) m << quoted(what) << " has results but no names bind them";
      else if (h.types.empty()) return fail_expected("'->' and the result types", tok_);
      else m << quoted(what) << " has " << static_cast<std::int64_t>(h.types.size()) << " result types but "
             << static_cast<std::int64_t>(h.names.size()) << " names";
      return fail(loc, std::move(m));
    }
    if (iter && h.iter_names.size() != h.types.size()) {
      m << quoted(what) << " has " << static_cast<std::int64_t>(h.iter_names.size()) << " iteration values but "
        << static_cast<std::int64_t>(h.types.size()) << " result types";
      return fail(loc, std::move(m));
    }
    return true;
  }
  /// `iter(x = init, ...)`
  constexpr bool parse_iter(region_head& h) {
    if (!at_word("iter")) return true;
    advance();
    if (!expect(tok::lparen, "'(' after 'iter'")) return false;
    while (!at(tok::rparen)) {
      std::string_view name;
      location nloc;
      if (!take_value_name(name, nloc)) return false;
      if (!expect(tok::equal, "'=' and an initial value")) return false;
      operand init;
      if (!parse_scalar(init, "an initial value")) return false;
      h.iter_names.push_back(name);
      h.iter_locs.push_back(nloc);
      h.args.push_back(init);
      if (at(tok::comma)) advance();
      else if (!at(tok::rparen)) return fail_expected("',' or ')' in 'iter'", tok_);
    }
    advance();
    return true;
  }
  constexpr bool emit_region_op(opcode c, location loc, const region_head& h, region_id first, std::uint32_t count) {
    const op_id o = b_->emit(c, h.args, {}, h.types, h.names, loc, span32{first.index, count});
    return define_results(h.names, h.name_locs, o);
  }
  /// One region: open it with arguments, parse `{...}`, close it and end its scope.
  constexpr bool parse_region(region_id r, std::span<const type> arg_types, std::span<const std::string_view> arg_names,
                              std::span<const location> arg_locs, const block_ctx& ctx) {
    b_->open_region(r, arg_types, arg_names);
    const std::size_t mark = enter_scope();
    if (!define_args(arg_names, arg_locs, r)) return false;
    if (!at(tok::lbrace)) return fail_expected("'{' to open the region", tok_);
    if (!parse_block(ctx)) return false;
    leave_scope(mark);
    b_->close_region();
    return true;
  }

  constexpr bool parse_if(location loc, region_head& h) {
    operand cond;
    if (!parse_scalar(cond, "a condition after 'if'")) return false;
    h.args.push_back(cond);
    if (!parse_region_results(loc, h, "if", false)) return false;
    const region_id first = b_->reserve_regions(2);
    const block_ctx ctx{false, h.types.size(), "if"};
    if (!parse_region(first, {}, {}, {}, ctx)) return false;
    const region_id second{first.index + 1};
    if (at_word("else")) {
      advance();
      if (!parse_region(second, {}, {}, {}, ctx)) return false;
    } else {
      if (!h.types.empty()) return fail_expected("'else' (an 'if' with results needs both branches)", tok_);
      b_->open_region(second, {}, {});
      b_->close_region();
    }
    return emit_region_op(opcode::cf_if, loc, h, first, 2);
  }

  constexpr bool parse_for(location loc, region_head& h) {
    std::string_view iv;
    location iv_loc;
    if (!take_value_name(iv, iv_loc)) return false;
    if (!expect_word("in", "'in' after the loop variable") || !expect_word("range", "'range' after 'in'") ||
        !expect(tok::lparen, "'(' after 'range'"))
      return false;
    type iv_type = scalar_type(dtype::index);
    bool typed = false;
    for (int i = 0; i < 3; ++i) {
      if (i > 0 && !expect(tok::comma, "',' in 'range(start, stop, step)'")) return false;
      const location aloc = tok_.loc;
      operand o;
      if (!parse_scalar(o, "a loop bound")) return false;
      if (o.is_value()) {
        const type& t = b_->fn().type_of(o.value());
        if (!t.is_scalar()) return fail(aloc, "loop bounds must be scalars");
        if (!typed) iv_type = scalar_type(t.dt);
        typed = true;
      }
      h.args.push_back(o);
    }
    if (!expect(tok::rparen, "')' after 'range(start, stop, step)'")) return false;
    if (!parse_iter(h) || !parse_region_results(loc, h, "for", true)) return false;
    h.arg_types.push_back(iv_type);
    h.arg_types.insert(h.arg_types.end(), h.types.begin(), h.types.end());
    h.iter_names.insert(h.iter_names.begin(), iv);
    h.iter_locs.insert(h.iter_locs.begin(), iv_loc);
    const region_id r = b_->reserve_regions(1);
    if (!parse_region(r, h.arg_types, h.iter_names, h.iter_locs, block_ctx{false, h.types.size(), "for"})) return false;
    return emit_region_op(opcode::cf_for, loc, h, r, 1);
  }

  constexpr bool parse_while(location loc, region_head& h) {
    if (!parse_iter(h) || !parse_region_results(loc, h, "while", true)) return false;
    if (!expect_word("cond", "'cond' after the iteration values of 'while'")) return false;
    const region_id first = b_->reserve_regions(2);
    b_->open_region(first, h.types, h.iter_names);
    const std::size_t mark = enter_scope();
    if (!define_args(h.iter_names, h.iter_locs, first)) return false;
    if (at(tok::lparen)) {
      advance();
      const location eloc = tok_.loc;
      opcode c{};
      if (!parse_scalar_expr(c)) return false;
      if (!expect(tok::rparen, "')' after the condition")) return false;
      if (c == opcode::scalar_const) {
        b_->emit(opcode::cf_yield, args_, {}, {}, {}, eloc);
      } else {
        if (!check_scalar_operands(c)) return false;
        const type t = inferred_scalar_type(b_->fn(), c, args_);
        if (t.kind == type_kind::none) return fail(eloc, "cannot infer the type of the condition from literal operands");
        const op_id o = b_->emit(c, args_, kws_, std::span<const type>(&t, 1), {}, eloc);
        const operand r = operand::of(b_->fn().result(o));
        b_->emit(opcode::cf_yield, std::span<const operand>(&r, 1), {}, {}, {}, eloc);
      }
    } else if (at(tok::lbrace)) {
      if (!parse_block(block_ctx{false, 1, "while condition"})) return false;
      if (!expect_word("do", "'do' and the loop body after the condition block")) return false;
    } else {
      return fail_expected("'(' or '{' after 'cond'", tok_);
    }
    leave_scope(mark, h.iter_names.size());
    b_->close_region();
    const region_id body{first.index + 1};
    if (!parse_region(body, h.types, h.iter_names, h.iter_locs, block_ctx{false, h.types.size(), "while"})) return false;
    return emit_region_op(opcode::cf_while, loc, h, first, 2);
  }

  std::string_view src_;
  std::vector<region_head> heads_;  ///< parse_region_op's heads, one per nesting level in use
  std::size_t heads_used_ = 0;
  bool no_closing_line_ = false;  ///< `arenas_for_lines` found no line starting with '}' ahead
  lexer lex_;
  token tok_;
  token ahead_;
  bool has_ahead_ = false;
  bool failed_ = false;
  diagnostic error_;
  program prog_;
  function_builder* b_ = nullptr;
  parse_limits limits_;
  text name_too_long_;  ///< the error of a too-long word, built once
  int depth_ = 0;
  std::size_t statements_ = 0;
  std::size_t value_uses_ = 0;  ///< value names read so far (a type that reads one is not remembered)
  std::array<type_memo_entry, 4> type_memo_{};
  std::size_t type_memo_next_ = 0;
  name_table names_;
  name_table functions_;
  std::vector<std::string_view> scope_names_;
  struct callee_ref {
    std::string_view name;
    location loc;
  };
  std::vector<callee_ref> callees_;
  // Scratch reused by every statement (region ops copy what they keep across recursion).
  std::vector<std::string_view> lhs_;
  std::vector<location> lhs_locs_;
  std::vector<operand> args_;
  std::vector<location> arg_locs_;
  std::vector<kwarg> kws_;
  std::vector<operand> tuple_;
};

}  // namespace detail

/// Parses a `.t2b` program. On error the result holds exactly one located diagnostic whose
/// source is "parse"; `value.file` is `file_name` either way. Linear in the input size.
template <class = void>
constexpr result<program> parse(std::string_view source, std::string_view file_name = {},
                                const parse_limits& limits = {}) {
  return detail::parser(source, file_name, limits).run();
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
result<program> parse(std::string_view source, std::string_view file_name = {},
                      const parse_limits& limits = {});  // TILE2BUFFER_EXTERN_PIPELINE: run time only
}
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::parse;
#endif

}  // namespace v0
}  // namespace tile2buffer
