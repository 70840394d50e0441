// SPDX-License-Identifier: Apache-2.0
/// @file text/parse_ops.hpp
/// The `.t2b` parser's ops layer: an op's operands (positional, keyword, tuples, scalar
/// literals) checked against its signature, call-form ops with their result type, scalar
/// statements (infix, `not`, scalar calls) and orchestration's `submit`. Built on the types
/// layer (text/parse_types.hpp); the statements that hold these ops are text/parse_regions.hpp's.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/text/parse_types.hpp"
#include "tile2buffer/text/syntax.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

class parser_ops : public parser_types {
 protected:
  using parser_types::parser_types;

  //===--- operands ---===//

  /// A value name or a literal (integer, float, true, false).
  constexpr bool parse_scalar(operand& out, std::string_view what) {
    if (at(tok::ident)) {
      if (value_id v; use_known_value(v)) {
        out = operand::of(v);
        return true;
      }
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
      if (!parse_int(n, "integer literal", std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()))
        return false;
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
        if (value_id v; at(tok::ident) && use_known_value(v)) {
          out = operand::of(v);
          return true;
        }
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

  /// Checks that `names` (the statement's left-hand side) bind `count` results of `what`.
  constexpr bool check_result_names(location loc, std::size_t count, std::string_view what) {
    if (lhs_.size() == count) return true;
    text m;
    m << quoted(what);
    if (count == 0) m << " has no result";
    else if (lhs_.empty()) m << " defines a result; bind it: 'x = " << what << "(...)'";
    else
      m << " defines " << static_cast<std::int64_t>(count) << " result" << (count == 1 ? "" : "s") << ", found "
        << static_cast<std::int64_t>(lhs_.size()) << " names";
    return fail(lhs_.empty() ? loc : lhs_locs_[0], std::move(m));
  }

  /// `[names =] MNEMONIC(args, key = value) [: TYPE]`
  constexpr bool parse_call(location loc) {
    opcode c{};
    if (!lookup_mnemonic(tok_.spelling, tok_.hash, c) || !is_call_form(c)) {
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
    value_storage st;
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
      if (!parse_type(t, &st)) return false;
    }
    const op_id o = b_->emit(c, args_, kws_, std::span<const type>(&t, 1), lhs_, loc);
    if (st.valid()) b_->set_storage(b_->fn().result(o), st);
    return define_results(lhs_, lhs_locs_, o);
  }

  /// `(positional..., key = value...)` checked against the op's signature and keywords.
  constexpr bool parse_operands(opcode c) {
    const location op_loc = tok_.loc;
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
      return fail(op_loc, std::move(m));
    };
    while (!at(tok::rparen)) {
      if (at(tok::ident) && peek_is(tok::equal)) {
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
    // clang-format off
    switch (t.kind) {
      case tok::plus: case tok::minus: case tok::star: case tok::slashslash: case tok::percent:
      case tok::lt: case tok::le: case tok::eqeq: case tok::ne: case tok::gt: case tok::ge: return true;
      case tok::ident: return t.spelling == "and" || t.spelling == "or";
      default: return false;
    }
    // clang-format on
  }
  /// A scalar expression: `a`, `a OP b`, `not a`, `min(a, b)`, `max(a, b)`, `cast(a, DTYPE)`.
  /// Leaves the operands in `args_`; `c` is `scalar_const` for a plain operand.
  constexpr bool parse_scalar_expr(opcode& c) {
    args_.clear();
    arg_locs_.clear();
    kws_.clear();
    opcode call{};
    if (at(tok::ident) && peek_is(tok::lparen) && lookup_mnemonic(tok_.spelling, tok_.hash, call) && is_scalar_call(call)) {
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
  static constexpr std::string_view spelling_of(opcode c) { return info(c).infix.empty() ? info(c).mnemonic : info(c).infix; }
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
      if (!parse_type(t, nullptr)) return false;
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
        else m << "cannot infer the type of " << quoted(lhs_[0]) << " from literal operands; add ': TYPE'";
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

  struct callee_ref {
    std::string_view name;
    location loc;
  };
  std::vector<callee_ref> callees_;  ///< every `submit`'s kernel, checked once all functions are read
  // Scratch reused by every statement (region ops copy what they keep across recursion).
  std::vector<std::string_view> lhs_;
  std::vector<location> lhs_locs_;
  std::vector<operand> args_;
  std::vector<location> arg_locs_;
  std::vector<kwarg> kws_;
  std::vector<operand> tuple_;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
