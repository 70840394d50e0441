// SPDX-License-Identifier: Apache-2.0
/// @file text/parse_types.hpp
/// The `.t2b` parser's types layer: Scalar, Tensor, Tile and Buffer types with their fields,
/// storage clauses and result type lists, and the memo of bracketed types already read. Built
/// on the tokens layer (text/parse_tokens.hpp, whose comment says why the parser is a chain).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/types.hpp"
#include "tile2buffer/text/parse_tokens.hpp"
#include "tile2buffer/text/syntax.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

class parser_types : public parser_tokens {
 protected:
  using parser_tokens::parser_tokens;

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
  /// `in mem` or `in mem[OFFSET]` after Tile type `t`, into `st`.
  constexpr bool parse_storage(const type& t, value_storage& st) {
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
    st.mem = m;
    st.offset = 0;
    if (at(tok::lbracket)) {
      advance();
      if (at(tok::minus)) {
        text msg;
        msg << (t.space == memory_space::vec ? "dense " : "") << "storage window must begin within its allocation: "
            << "the storage byte offset cannot be negative";
        return fail(tok_.loc, std::move(msg));
      }
      if (!parse_int(st.offset, "storage byte offset", 0, text_limits::max_offset)) return false;
      if (!expect(tok::rbracket, "']' after the storage byte offset")) return false;
    }
    return true;
  }
  /// A type; a bare DTYPE means `Scalar[DTYPE]`. Where `storage` is given, a Tile may carry
  /// `in mem[off]`, read into it.
  constexpr bool parse_type(type& out, value_storage* storage) {
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
      if (!expect(tok::lbracket, "'[' after 'Scalar'") || !parse_dtype_word(d0) || !expect(tok::rbracket, "']' after the dtype"))
        return false;
      out = scalar_type(d0);
    } else if (w == "Tensor") {
      advance();
      std::array<std::int64_t, 2> shape{};
      dtype d0{};
      if (!expect(tok::lbracket, "'[' after 'Tensor'") || !parse_shape(shape) || !expect(tok::comma, "',' after the shape") ||
          !parse_dtype_word(d0))
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
      if (storage == nullptr) return fail(tok_.loc, "a storage clause is not allowed here");
      return parse_storage(out, *storage);
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
  constexpr std::size_t closing_bracket_end() const { return at(tok::rbracket) ? offset_of(tok_.spelling) + 1 : 0; }
  constexpr void remember_type(std::string_view spelled, const type& t) {
    if (spelled.find('\n') != std::string_view::npos) return;
    for (const auto& e : type_memo_)
      if (e.text == spelled) return;
    type_memo_[type_memo_next_] = type_memo_entry{spelled, t};
    type_memo_next_ = (type_memo_next_ + 1) % type_memo_.size();
  }

  /// After `->`: one type or a parenthesized list.
  /// `storage`: where a Tile result may carry `in mem[off]`, one entry per type read.
  constexpr bool parse_result_types(std::vector<type>& types, std::vector<value_storage>* storage) {
    if (!at(tok::lparen)) {
      type t;
      if (!parse_type(t, storage != nullptr ? &storage->emplace_back() : nullptr)) return false;
      types.push_back(t);
      return true;
    }
    advance();
    if (!at(tok::rparen)) {
      while (true) {
        type t;
        if (!parse_type(t, storage != nullptr ? &storage->emplace_back() : nullptr)) return false;
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

  std::array<type_memo_entry, 4> type_memo_{};
  std::size_t type_memo_next_ = 0;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
