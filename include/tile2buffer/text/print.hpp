// SPDX-License-Identifier: Apache-2.0
/// @file text/print.hpp
/// The `.t2b` printer: one canonical text per program. `parse(print(p))` is structurally equal
/// to `p` and `print(parse(print(p)))` equals `print(p)` byte for byte.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/decimal.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/text/lexer.hpp"
#include "tile2buffer/text/name_table.hpp"
#include "tile2buffer/text/syntax.hpp"

namespace tile2buffer {
inline namespace v0 {

/// What `print` adds to the canonical text (by default nothing).
struct print_options {
  /// Append the source location of every op, and of each function, to its line as the comment
  /// `# loc(FILE:LINE:COL)` (`# loc(unknown)` for none). A comment: the text still parses, to the
  /// same program (the parser gives the ops the locations of the new text).
  bool locations = false;
  /// FILE in those comments; `print(const program&, ...)` uses the program's file when empty.
  std::string_view file{};
};

namespace detail {

// Where an infix op's operands sit: the same for every infix op (checked), so printing one
// costs no lookup.
inline constexpr std::size_t infix_lhs = static_cast<std::size_t>(operand_position(opcode::scalar_add, "lhs"));
inline constexpr std::size_t infix_rhs = static_cast<std::size_t>(operand_position(opcode::scalar_add, "rhs"));
constexpr bool infix_positions_shared() {
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const auto c = static_cast<opcode>(i);
    if (is_infix(c) &&
        (operand_position(c, "lhs") != static_cast<int>(infix_lhs) || operand_position(c, "rhs") != static_cast<int>(infix_rhs)))
      return false;
  }
  return true;
}
static_assert(infix_positions_shared(), "every infix op's record names its operands `lhs rhs` at the same positions");

/// Prints one function. Value names are assigned on first encounter: a value keeps its own
/// name when that is a free identifier, else gets `name_N`; unnamed values get `vN`. The
/// result is unique per function, deterministic, and stable under a parse/print round trip.
class printer {
 public:
  constexpr printer(const function& f, text& out, const print_options& opts = {})
      : f_(f), out_(out), names_(f.values.size(), unassigned), type_texts_(f.types.size(), unassigned), opts_(opts) {
    used_.reserve(f.values.size());
  }

  constexpr void run() {
    header();
    region(f_.body, 1);
    out_ << "}\n";
  }

 private:
  static constexpr span32 unassigned{no_id, 0};

  //===--- names ---===//

  [[nodiscard]] constexpr std::string_view pool() const { return pool_.view(); }
  constexpr bool try_take(value_id v, std::string_view cand) {
    if (!is_value_name(cand)) return false;
    // Why look up before copying: a name taken is then never copied, and a free one is hashed once.
    const std::uint32_t h = name_table::hash(cand);
    if (used_.find(pool(), cand, h) != nullptr) return false;
    const span32 s{static_cast<std::uint32_t>(pool_.size()), static_cast<std::uint32_t>(cand.size())};
    pool_.append(cand);
    used_.insert(pool(), s.begin, s.count, 1, name_table::state::visible, h);
    names_[v.index] = s;
    return true;
  }
  constexpr void assign(value_id v) {
    const std::string_view raw = f_.name_of(v);
    if (try_take(v, raw)) return;
    if (raw.empty()) {
      // Why a stack buffer: a heap-built `v<n>` cost an allocation or more per unnamed value.
      std::array<char, 24> buf{};
      do {
        std::size_t n = buf.size();
        for (std::uint64_t k = next_unnamed_++;; k /= 10) {
          buf[--n] = static_cast<char>('0' + k % 10);
          if (k < 10) break;
        }
        buf[--n] = 'v';
        if (try_take(v, std::string_view(buf.data() + n, buf.size() - n))) return;
      } while (true);
    }
    text cand;
    text base;
    if (!is_ident_start(raw[0])) base << 'v';
    for (const char c : raw) base << (is_ident_char(c) ? c : '_');
    if (try_take(v, base.view())) return;
    // Why: the base's entry remembers the next suffix to try, so n clashes cost O(n), not O(n^2).
    const auto* known = used_.find(pool(), base.view());
    std::uint32_t k = known != nullptr ? known->value : 1;
    do {
      cand.clear();
      cand << base << '_' << static_cast<std::int64_t>(k++);
    } while (!try_take(v, cand.view()));
    if (auto* s = used_.find(pool(), base.view())) {
      s->value = k;
    } else {
      // The base itself cannot be taken (a reserved word); remember its counter all the same.
      const auto begin = static_cast<std::uint32_t>(pool_.size());
      pool_.append(base.view());
      used_.insert(pool(), begin, static_cast<std::uint32_t>(base.size()), k, name_table::state::hidden);
    }
  }
  constexpr std::string_view name(value_id v) {
    if (v.index >= names_.size()) return "<invalid>";
    if (names_[v.index].begin == no_id) assign(v);
    return pool().substr(names_[v.index].begin, names_[v.index].count);
  }
  /// Makes `v` print as `as` (a while condition's arguments print as its body's).
  constexpr void alias(value_id v, value_id as) {
    if (v.index >= names_.size() || as.index >= names_.size()) return;
    name(as);
    names_[v.index] = names_[as.index];
  }

  //===--- types and operands ---===//

  constexpr void extent_text(const extent& e) {
    if (e.is_runtime()) out_ << '?';
    else if (e.is_value()) out_ << name(e.value());
    else out_ << e.number;
  }
  /// `bare`: a scalar prints as its dtype.
  constexpr void type_text(const type& t, bool bare) {
    switch (t.kind) {
      case type_kind::scalar:
        if (bare) out_ << tile2buffer::name(t.dt);
        else out_ << "Scalar[" << tile2buffer::name(t.dt) << ']';
        return;
      case type_kind::tensor:
        out_ << "Tensor[[" << t.shape[0] << ", " << t.shape[1] << "], " << tile2buffer::name(t.dt);
        if (t.tlayout != tensor_layout::nd) out_ << ", " << tile2buffer::name(t.tlayout);
        if (t.has_stride) out_ << ", stride=[" << t.stride[0] << ", " << t.stride[1] << ']';
        out_ << ']';
        return;
      case type_kind::tile:
      case type_kind::buffer: break;
      case type_kind::mem: out_ << "<mem>"; return;
      case type_kind::task: out_ << "<task>"; return;
      case type_kind::none: out_ << "<none>"; return;
    }
    out_ << (t.is_tile() ? "Tile[[" : "Buffer[[") << t.shape[0] << ", " << t.shape[1] << "], " << tile2buffer::name(t.dt) << ", "
         << tile2buffer::name(t.space);
    if (!t.full_valid()) {
      out_ << ", valid=[";
      extent_text(t.valid[0]);
      out_ << ", ";
      extent_text(t.valid[1]);
      out_ << ']';
    }
    const default_view dv = default_view_of(t.space, t.shape);
    if (t.blayout != dv.blayout || t.slayout != dv.slayout) {
      const layout_shorthand* hit = nullptr;
      for (const auto& s : layout_shorthands)
        if (s.blayout == t.blayout && s.slayout == t.slayout) hit = &s;
      if (hit != nullptr) out_ << ", " << hit->name;
      else out_ << ", blayout=" << tile2buffer::name(t.blayout) << ", slayout=" << tile2buffer::name(t.slayout);
    }
    if (t.fractal != dv.fractal) out_ << ", fractal=" << static_cast<std::int64_t>(t.fractal);
    if (t.pad != pad_value::null) out_ << ", pad=" << tile2buffer::name(t.pad);
    if (t.compact != compact_mode::null) out_ << ", compact=" << tile2buffer::name(t.compact);
    out_ << ']';
  }
  /// ` in mem[off]` after the type of planned Tile value `v`.
  constexpr void storage_text(value_id v) {
    if (v.index >= f_.storage.size() || !f_.storage[v.index].valid() || !f_.type_of(v).is_tile()) return;
    const value_storage& s = f_.storage[v.index];
    out_ << " in " << name(s.mem);
    if (s.offset != 0) out_ << '[' << s.offset << ']';
  }
  /// `type_text(t, true)` of an interned type, its spelling formatted once per printer. Why: a
  /// kernel repeats a few types on every line, and formatting them was most of printing an op.
  /// The text is stable (the names it mentions are fixed once assigned), so a repeat copies it
  /// from where it was first printed. A value's storage clause is not part of its type: the
  /// caller prints it after (`storage_text`).
  constexpr void result_type_text(type_id id) {
    if (id.index >= f_.types.size()) {
      out_ << "<invalid>";
      return;
    }
    const type& t = f_.types[id.index];
    span32& cached = type_texts_[id.index];
    if (cached.begin == no_id) {
      const std::size_t before = out_.size();
      type_text(t, true);
      // A text past 4 GiB keeps formatting (its offsets would not fit the cache).
      if (out_.size() < no_id)
        cached = span32{static_cast<std::uint32_t>(before), static_cast<std::uint32_t>(out_.size() - before)};
    } else {
      out_.repeat(cached.begin, cached.count);
    }
  }
  constexpr void operand_text(const operand& o) {
    switch (o.kind) {
      case operand_kind::value: out_ << name(o.value()); return;
      case operand_kind::int_lit: out_ << o.num; return;
      case operand_kind::float_lit: append_decimal(out_, o.num, o.exp10); return;
      case operand_kind::bool_lit: out_ << (o.num != 0 ? "true" : "false"); return;
      case operand_kind::tuple: {
        const span32 s = o.tuple();
        out_ << '(';
        if (s.begin <= f_.operands.size() && s.count <= f_.operands.size() - s.begin) operands_text(f_.pool(s));
        else out_ << "<invalid>";
        out_ << ')';
        return;
      }
      case operand_kind::space:
        if (o.num >= 0 && o.num < 5) out_ << tile2buffer::name(static_cast<memory_space>(o.num));
        else out_ << "<invalid>";
        return;
      case operand_kind::dtype:
        if (o.num >= 0 && o.num < 11) out_ << tile2buffer::name(static_cast<dtype>(o.num));
        else out_ << "<invalid>";
        return;
      case operand_kind::symbol: out_ << '@' << f_.symbol(o); return;
      case operand_kind::none: out_ << "<none>"; return;
    }
  }
  constexpr void operands_text(std::span<const operand> ops) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (i > 0) out_ << ", ";
      operand_text(ops[i]);
    }
  }

  //===--- functions and regions ---===//

  constexpr void header() {
    out_ << tile2buffer::name(f_.kind) << " @" << f_.name_of() << '(';
    for (std::size_t i = 0; i < f_.params.size(); ++i) {
      const param_info& p = f_.params[i];
      if (i > 0) out_ << ", ";
      out_ << name(p.value) << ": ";
      if (p.dir != direction::in) out_ << tile2buffer::name(p.dir) << ' ';
      if (p.value.index < f_.values.size()) type_text(f_.type_of(p.value), false);
    }
    out_ << ')';
    if (f_.results.size() == 1) {
      out_ << " -> ";
      type_text(f_.results[0], false);
    } else if (f_.results.size() > 1) {
      out_ << " -> (";
      for (std::size_t i = 0; i < f_.results.size(); ++i) {
        if (i > 0) out_ << ", ";
        type_text(f_.results[i], false);
      }
      out_ << ')';
    }
    text attrs;
    const auto attr = [&](std::string_view key, std::string_view value) {
      attrs << (attrs.empty() ? "" : ", ") << key << " = " << value;
    };
    if (f_.stage == ir_stage::buffer) attr("stage", "buffer");
    if (f_.buffer_ir_selected) attr("buffer_ir_selected", *f_.buffer_ir_selected ? "true" : "false");
    if (f_.target) attr("target", tile2buffer::name(*f_.target));
    if (!attrs.empty()) out_ << " attributes {" << attrs << '}';
    out_ << " {";
    if (opts_.locations) loc_comment(f_.loc);
    out_ << '\n';
  }
  /// `  # loc(FILE:LINE:COL)` (print_options::locations).
  constexpr void loc_comment(location l) {
    out_ << "  # loc(";
    if (!l.known()) {
      out_ << "unknown)";
      return;
    }
    if (!opts_.file.empty()) {
      // A control byte in the name (a newline) would end the comment early: shown as '?'.
      for (const char c : opts_.file) out_ << (static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
      out_ << ':';
    }
    out_ << static_cast<std::int64_t>(l.line) << ':' << static_cast<std::int64_t>(l.col) << ')';
  }
  /// Ends an op's first line: its location comment when asked (once: a region op's comes after
  /// its first `{`), then the newline.
  constexpr void end_line() {
    if (loc_pending_) {
      loc_pending_ = false;
      loc_comment(pending_loc_);
    }
    out_ << '\n';
  }
  constexpr void indent(int level) {
    for (int i = 0; i < level; ++i) out_ << "  ";
  }
  constexpr void region(region_id r, int level) {
    const auto ops = f_.ops_of(r);
    // A large function body measures its first region-free ops to reserve the rest (reserve_rest).
    const bool sized = level == 1 && ops.size() >= 2 * size_sample;
    std::size_t flat_bytes = 0, flat_ops = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (i + name_lookahead < ops.size()) prefetch_names(ops[i + name_lookahead]);
      if (sized && i == size_sample) reserve_rest(flat_bytes, flat_ops, ops.size() - i);
      const std::size_t before = out_.size();
      op(ops[i], level);
      if (sized && i < size_sample && ops[i].index < f_.ops.size() && f_.ops[ops[i].index].region_count == 0) {
        flat_bytes += out_.size() - before;
        ++flat_ops;
      }
    }
  }
  /// Why: growing a text of hundreds of MB by doubling copies it (into memory no cache holds)
  /// about once more; after this many ops of a large function body, the text reserves what the
  /// remaining ops will take at the rate of the region-free ops so far, plus a quarter (later ops
  /// name longer values: `t1000` after `t1`). A region op's text holds its whole body, and an
  /// unusually long line is no rate to multiply: without a typical rate, the text just grows.
  static constexpr std::size_t size_sample = 1024;
  static constexpr std::size_t max_reserved_rate = 256;  ///< bytes per op
  constexpr void reserve_rest(std::size_t flat_bytes, std::size_t flat_ops, std::size_t remaining) {
    if (flat_ops < size_sample / 2 || flat_bytes > max_reserved_rate * flat_ops) return;
    out_.reserve(out_.size() + flat_bytes * remaining / flat_ops * 5 / 4);
  }
  /// Why: in a kernel of a million values the name table is far larger than the caches, and
  /// taking a name was one memory round trip per value; asking for the slots of the results a
  /// few ops ahead overlaps those round trips with printing.
  static constexpr std::size_t name_lookahead = 8;
  constexpr void prefetch_names(op_id o) {
    if (std::is_constant_evaluated() || o.index >= f_.ops.size()) return;
    const span32 rs = f_.ops[o.index].results;
    for (std::uint32_t k = 0; k < rs.count && rs.begin + k < names_.size(); ++k)
      if (names_[rs.begin + k].begin == no_id) used_.prefetch(f_.name_of(value_id{rs.begin + k}));
  }
  /// `a, b = ` for an op's results.
  constexpr void results_text(const op_node& n) {
    if (n.results.count == 0) return;
    for (std::uint32_t i = 0; i < n.results.count; ++i) {
      if (i > 0) out_ << ", ";
      out_ << name(value_id{n.results.begin + i});
    }
    out_ << " = ";
  }
  /// ` -> (T, ...)` for a region op's results, with storage clauses.
  constexpr void region_results(const op_node& n) {
    if (n.results.count == 0) return;
    out_ << " -> (";
    for (std::uint32_t i = 0; i < n.results.count; ++i) {
      if (i > 0) out_ << ", ";
      result_type_text(f_.value(value_id{n.results.begin + i}).ty);
      storage_text(value_id{n.results.begin + i});
    }
    out_ << ')';
  }
  /// ` iter(x = init, ...)`: `names` are the region arguments bound to `inits`.
  constexpr void iter_text(std::span<const operand> inits, region_id r, std::uint32_t first_arg) {
    if (inits.empty()) return;
    out_ << " iter(";
    for (std::size_t i = 0; i < inits.size(); ++i) {
      if (i > 0) out_ << ", ";
      const auto a = static_cast<std::uint32_t>(first_arg + i);
      out_ << (a < f_.region(r).args.count ? name(f_.arg(r, a)) : std::string_view("<invalid>")) << " = ";
      operand_text(inits[i]);
    }
    out_ << ')';
  }
  constexpr void block(region_id r, int level) {
    out_ << " {";
    end_line();
    region(r, level + 1);
    indent(level);
    out_ << '}';
  }

  /// A scalar op's right-hand side, if it has a scalar spelling (`a + b`, `not a`, `min(a, b)`).
  constexpr bool scalar_expr(opcode c, std::span<const operand> args) {
    if (is_infix(c) && args.size() == 2) {
      operand_text(args[infix_lhs]);
      out_ << ' ' << info(c).infix << ' ';
      operand_text(args[infix_rhs]);
      return true;
    }
    if (c == opcode::scalar_not && args.size() == 1) {
      out_ << "not ";
      operand_text(args.front());  // its only operand
      return true;
    }
    if (c == opcode::scalar_const && args.size() == 1) {
      operand_text(args.front());  // its only operand
      return true;
    }
    return false;
  }
  /// `cond(EXPR)` when the condition region is one scalar op (with its inferred type) and the
  /// `yield` of its result, or a lone `yield v`.
  constexpr bool simple_cond(region_id r) {
    const auto ops = f_.ops_of(r);
    if (ops.empty() || f_.op(ops.back()).code() != opcode::cf_yield || f_.args(ops.back()).size() != 1) return false;
    const operand& y = f_.args(ops.back())[0];
    if (ops.size() == 1) {
      out_ << " cond(";
      operand_text(y);
      out_ << ')';
      return true;
    }
    if (ops.size() != 2) return false;
    const op_node& n = f_.op(ops[0]);
    const opcode c = n.code();
    const auto args = f_.args(ops[0]);
    if (dialect_of(c) != dialect::scalar || c == opcode::scalar_const || n.results.count != 1 || n.region_count != 0 ||
        !f_.kwargs_of(ops[0]).empty() || !y.is_value() || y.value() != f_.result(ops[0]) ||
        !(f_.type_of(y.value()) == inferred_scalar_type(f_, c, args)) || !signature_of(c).accepts(args.size()))
      return false;
    out_ << " cond(";
    if (!scalar_expr(c, args)) {
      out_ << mnemonic(c) << '(';
      operands_text(args);
      out_ << ')';
    }
    out_ << ')';
    return true;
  }

  constexpr void op(op_id o, int level) {
    const op_node& n = f_.op(o);
    const opcode c = n.code();
    const auto args = f_.args(o);
    indent(level);
    if (opts_.locations) {
      loc_pending_ = true;
      pending_loc_ = f_.loc_of(o);
    }
    switch (c) {
      case opcode::cf_yield:
      case opcode::cf_return:
        out_ << mnemonic(c);
        if (!args.empty()) out_ << ' ';
        operands_text(args);
        end_line();
        return;
      case opcode::cf_if:
        if (n.region_count == 2 && args.size() == 1) {
          results_text(n);
          out_ << "if ";
          operand_text(view<opcode::cf_if>(f_, o).cond());
          region_results(n);
          const region_id then_r = f_.region_of(o, 0), else_r = f_.region_of(o, 1);
          block(then_r, level);
          if (n.results.count > 0 || !f_.ops_of(else_r).empty()) {
            out_ << " else";
            block(else_r, level);
          }
          end_line();
          return;
        }
        break;
      case opcode::cf_for:
        if (n.region_count == 1 && args.size() >= 3 && f_.region(f_.region_of(o, 0)).args.count >= 1) {
          const region_id body = f_.region_of(o, 0);
          results_text(n);
          out_ << "for " << name(f_.arg(body, 0)) << " in range(";
          operands_text(args.subspan(0, 3));
          out_ << ')';
          iter_text(args.subspan(3), body, 1);
          region_results(n);
          block(body, level);
          end_line();
          return;
        }
        break;
      case opcode::cf_while:
        if (n.region_count == 2) {
          const region_id cond = f_.region_of(o, 0), body = f_.region_of(o, 1);
          const std::uint32_t carried = f_.region(body).args.count;
          results_text(n);
          for (std::uint32_t i = 0; i < carried && i < f_.region(cond).args.count; ++i) alias(f_.arg(cond, i), f_.arg(body, i));
          out_ << "while";
          iter_text(args, body, 0);
          region_results(n);
          if (!simple_cond(cond)) {
            out_ << " cond";
            block(cond, level);
            out_ << " do";
          }
          block(body, level);
          end_line();
          return;
        }
        break;
      case opcode::orch_submit:
        if (const view<opcode::orch_submit> s(f_, o); args.size() == 3 && s.callee().kind == operand_kind::symbol &&
                                                      s.call_args().kind == operand_kind::tuple &&
                                                      s.deps().kind == operand_kind::tuple) {
          results_text(n);
          out_ << "submit @" << f_.symbol(s.callee());
          operand_text(s.call_args());
          if (s.deps().num != 0) {
            out_ << " deps";
            operand_text(s.deps());
          }
          end_line();
          return;
        }
        break;
      default: break;
    }
    // Generic and scalar forms.
    results_text(n);
    if (!scalar_expr(c, args)) {
      out_ << mnemonic(c) << '(';
      operands_text(args);
      const auto kws = f_.kwargs_of(o);
      for (std::size_t i = 0; i < kws.size(); ++i) {
        if (!args.empty() || i > 0) out_ << ", ";
        const auto k = static_cast<std::size_t>(kws[i].key);
        out_ << (k < keyword_names.size() ? keyword_names[k] : std::string_view("<invalid>")) << " = ";
        operand_text(kws[i].value);
      }
      out_ << ')';
    }
    if (n.results.count >= 1 && c != opcode::tile_alloc) {
      const value_id r{n.results.begin};
      const type& t = f_.type_of(r);
      if (dialect_of(c) != dialect::scalar || !(t == inferred_scalar_type(f_, c, args))) {
        out_ << " : ";
        result_type_text(f_.value(r).ty);
        storage_text(r);
      }
    }
    end_line();
  }

  const function& f_;
  text& out_;
  std::vector<span32> names_;
  text pool_;  ///< the names taken, back to back (a `text`: appending a short name is no call to insert)
  name_table used_;
  std::uint32_t next_unnamed_ = 0;
  std::vector<span32> type_texts_;  ///< per type id: where out_ holds its text, or unassigned
  print_options opts_;
  bool loc_pending_ = false;  ///< the op being printed has not written its location comment yet
  location pending_loc_{};
};

}  // namespace detail

/// Canonical text of one function (ends with a newline). Linear in the function's size.
template <class = void>
constexpr text print(const function& f) {
  text out;
  detail::printer(f, out).run();
  return out;
}

/// Canonical text of a program: its functions separated by one blank line. Linear in its size.
template <class = void>
constexpr text print(const program& p) {
  text out;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    if (i > 0) out << '\n';
    detail::printer(p.functions[i], out).run();
  }
  return out;
}

/// The same with `opts` (e.g. every op's source location as a trailing comment).
template <class = void>
constexpr text print(const function& f, const print_options& opts) {
  text out;
  detail::printer(f, out, opts).run();
  return out;
}
template <class = void>
constexpr text print(const program& p, const print_options& opts) {
  print_options o = opts;
  if (o.file.empty()) o.file = p.file.view();
  text out;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    if (i > 0) out << '\n';
    detail::printer(p.functions[i], out, o).run();
  }
  return out;
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
text print(const function& f);                             // TILE2BUFFER_EXTERN_PIPELINE: run time only
text print(const program& p);                              // TILE2BUFFER_EXTERN_PIPELINE: run time only
text print(const function& f, const print_options& opts);  // TILE2BUFFER_EXTERN_PIPELINE: run time only
text print(const program& p, const print_options& opts);   // TILE2BUFFER_EXTERN_PIPELINE: run time only
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::print;
#endif

}  // namespace v0
}  // namespace tile2buffer
