// SPDX-License-Identifier: Apache-2.0
/// @file text/parse_regions.hpp
/// The `.t2b` parser's last layer, and so the parser itself (`detail::parser`): the program, its
/// functions (parameters, results, attributes), regions and the statements in them, terminators,
/// and the region ops `if`, `for` and `while`. Built on the ops layer (text/parse_ops.hpp); the
/// entry point is text/parse.hpp's `parse`.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/text/name_table.hpp"
#include "tile2buffer/text/parse_ops.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Recursive descent over a lazily lexed token stream with one token of lookahead. Every
/// `parse_*` returns false after recording the first error; callers only propagate.
/// Complexity: linear in the input (names resolve through a hash table).
class parser : public parser_ops {
 public:
  // Why spelled out, not inherited: an inherited constructor keeps the base's (protected) access.
  constexpr parser(std::string_view src, std::string_view file, const parse_limits& limits) : parser_ops(src, file, limits) {}

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
  /// What a region must end with.
  struct block_ctx {
    bool function_body = false;
    std::size_t results = 0;  ///< values the terminator must carry
    std::string_view owner;   ///< "if", "for", "while", "while condition"
  };

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
    const function_builder::arena_sizes sizes = arenas_for_lines(offset_of(name));
    b.reserve(sizes);
    b_ = &b;
    names_.clear();
    names_.reserve(sizes.values);  // a name per value: the table never rehashes as it fills
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
    return function_builder::arena_sizes{.values = lines + 8,
                                         .ops = lines,
                                         .region_ops = lines,
                                         .operands = 3 * lines,
                                         .kwargs = lines / 4,
                                         .names = (end - from) / 8,
                                         .types = 16};
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
      if (!parse_type(t, nullptr)) return false;
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
      if (!parse_result_types(types, nullptr)) return false;
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
      m << "regions nested deeper than " << static_cast<std::int64_t>(limits_.max_nesting) << " levels (max_nesting)";
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
    const int word = reserved_index(w);
    if (word == reserved("yield") || word == reserved("return")) {
      terminated = true;
      return parse_terminator(ctx, word == reserved("return"));
    }
    if (word == reserved("else")) return fail(loc, "'else' must follow the '}' of its 'if' on the same line");
    lhs_.clear();
    lhs_locs_.clear();
    if (word == reserved("if") || word == reserved("for") || word == reserved("while")) return parse_region_op(loc);
    if (peek_is(tok::lparen)) return parse_call(loc);
    if (!peek_is(tok::equal) && !peek_is(tok::comma)) {
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
      const int rword = reserved_index(r);
      if (rword == reserved("if") || rword == reserved("for") || rword == reserved("while")) return parse_region_op(loc);
      if (rword == reserved("submit")) return parse_submit(loc);
      opcode c{};
      if (peek_is(tok::lparen) && !(lookup_mnemonic(r, tok_.hash, c) && is_scalar_call(c))) return parse_call(loc);
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
      if (is_return)
        m << "'return' has " << static_cast<std::int64_t>(vals.size()) << " values, the function declares "
          << static_cast<std::int64_t>(ctx.results) << " results";
      else
        m << "'yield' has " << static_cast<std::int64_t>(vals.size()) << " values, " << quoted(ctx.owner) << " needs "
          << static_cast<std::int64_t>(ctx.results);
      return fail(loc, std::move(m));
    }
    b_->emit(is_return ? opcode::cf_return : opcode::cf_yield, vals, {}, {}, {}, loc);
    return true;
  }

  //===--- region ops ---===//

  /// The names, locations and result types of a region op, kept across the recursion into its
  /// regions (the parser's scratch vectors are reused by nested statements).
  struct region_head {
    std::vector<std::string_view> names;
    std::vector<location> name_locs;
    std::vector<type> types;
    std::vector<value_storage> storage;  ///< by result type: its `in mem[off]`, if any
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
    h.storage.clear();
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
      if (!parse_result_types(h.types, &h.storage)) return false;
    }
    text m;
    if (h.types.size() != h.names.size()) {
      if (h.names.empty()) m << quoted(what) << " has results but no names bind them";
      else if (h.types.empty()) return fail_expected("'->' and the result types", tok_);
      else
        m << quoted(what) << " has " << static_cast<std::int64_t>(h.types.size()) << " result types but "
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
    for (std::uint32_t i = 0; i < h.storage.size(); ++i) b_->set_storage(b_->fn().result(o, i), h.storage[i]);
    return define_results(h.names, h.name_locs, o);
  }
  /// A loop's iteration values live where its results do: the last `carries.size()` arguments
  /// of region `r` take the results' storage.
  constexpr void place_carries(region_id r, std::span<const value_storage> carries) {
    const std::uint32_t n = b_->fn().region(r).args.count;
    for (std::uint32_t i = 0; i < carries.size(); ++i)
      b_->set_storage(b_->fn().arg(r, n - static_cast<std::uint32_t>(carries.size()) + i), carries[i]);
  }
  /// One region: open it with arguments, parse `{...}`, close it and end its scope.
  constexpr bool parse_region(region_id r, std::span<const type> arg_types, std::span<const std::string_view> arg_names,
                              std::span<const location> arg_locs, const block_ctx& ctx,
                              std::span<const value_storage> carries = {}) {
    b_->open_region(r, arg_types, arg_names);
    place_carries(r, carries);
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
    if (!parse_region(r, h.arg_types, h.iter_names, h.iter_locs, block_ctx{false, h.types.size(), "for"}, h.storage))
      return false;
    return emit_region_op(opcode::cf_for, loc, h, r, 1);
  }

  constexpr bool parse_while(location loc, region_head& h) {
    if (!parse_iter(h) || !parse_region_results(loc, h, "while", true)) return false;
    if (!expect_word("cond", "'cond' after the iteration values of 'while'")) return false;
    const region_id first = b_->reserve_regions(2);
    b_->open_region(first, h.types, h.iter_names);
    place_carries(first, h.storage);
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
    if (!parse_region(body, h.types, h.iter_names, h.iter_locs, block_ctx{false, h.types.size(), "while"}, h.storage))
      return false;
    return emit_region_op(opcode::cf_while, loc, h, first, 2);
  }

  std::vector<region_head> heads_;  ///< parse_region_op's heads, one per nesting level in use
  std::size_t heads_used_ = 0;
  bool no_closing_line_ = false;  ///< `arenas_for_lines` found no line starting with '}' ahead
  int depth_ = 0;
  std::size_t statements_ = 0;
  name_table functions_;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
