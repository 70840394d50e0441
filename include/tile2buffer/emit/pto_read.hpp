// SPDX-License-Identifier: Apache-2.0
/// @file emit/pto_read.hpp
/// Reads the PTO-AS that `emit_pto` writes back into Buffer IR (issue 52 item 10), so that
/// `emit/pto_roundtrip.hpp` can require it structurally equal to the Buffer IR it came from: a
/// keyword the emitter translates wrongly (a rounding mode, a precision, a layout, a valid operand,
/// an address) then reads back as a different Buffer program.
///
/// It reads MLIR's *generic* op form (`--emit=pto-generic`), not the custom one. Why: one grammar
/// covers every op (`%r = "name"(%a) <{props}> ({regions}) {attrs} : (T) -> R`), the operand
/// groups are explicit (`operandSegmentSizes`) and every property is written, defaults included,
/// so the reader needs no per-op custom syntax and cannot be misled by an elided default. That the
/// custom form says the same is check 2 of tests/pto-dialect (MLIR parses both and prints them
/// identically), run on the same corpus, the campaign's output and the fuzzer's.
///
/// The inverse mapping is the reader's own: which Buffer op each PTO op is (`pto_inverses`),
/// the spelling of rounding modes, memory spaces and element types are written here again, not
/// taken from the emitter, so that a wrong entry on the emitter's side cannot cancel out. What it
/// shares with the emitter is the op model of `emit/pto_ops.hpp` (operand groups, property
/// names), which tests/pto-dialect checks against the real dialect's facts.
///
/// What the PTO form cannot carry and the reader therefore does not produce (the comparison
/// normalizes the original instead, `emit/pto_roundtrip.hpp`): parameter names, directions and
/// order (tensors come first), the function's results and returned values, `scalar.const` ops
/// (their uses read back as literals), scalar conversions (explicit `cast` or inserted at a use:
/// read through to their source), a Left tile's block layout (ptoas's parser fixes it per target),
/// and whether a region ended in an empty `yield`.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tile2buffer/detail/decimal.hpp"
#include "tile2buffer/detail/mlir_float.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/emit/pto_ops.hpp"
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/cast.hpp"
#include "tile2buffer/ir/function.hpp"

namespace tile2buffer {
inline namespace v0 {

/// A literal operand the reader put into an op, found by its position in the function's operand
/// pool: the type of the `arith.constant` it came from and, for a float, the value's bits there.
struct pto_read_literal {
  std::uint32_t pool = 0;
  dtype dt = dtype::index;
  std::uint64_t bits = 0;
};

/// The Buffer-stage kernels of one PTO-AS module, as `read_pto` reads them.
struct pto_reading {
  program prog;
  target_arch target = target_arch::a2a3;
  /// Per function of `prog`: every literal operand of its ops, in pool order.
  std::vector<std::vector<pto_read_literal>> literals;
};

namespace detail {

inline constexpr std::string_view pto_read_source = "pto-read";

//===--- the generic form, parsed ---===//

struct generic_region;
/// One op of MLIR's generic form: `%a, %b = "name"(%x, %y) <{k = v}> ({...}) {k = v} : (T, U) -> R`.
struct generic_op {
  location loc;
  std::string_view name;
  std::vector<std::string_view> results;  ///< without `%`
  /// The operands' value names, without `%` (text of the generic form, not IR operands).
  std::vector<std::string_view> operand_names;
  std::vector<std::pair<std::string_view, std::string_view>> props;  ///< the `<{...}>` entries, values as written
  std::vector<std::pair<std::string_view, std::string_view>> attrs;  ///< the discardable `{...}` entries
  std::vector<generic_region> regions;
  std::vector<std::string_view> operand_types, result_types;

  [[nodiscard]] std::optional<std::string_view> prop(std::string_view key) const {
    for (const auto& [k, v] : props)
      if (k == key) return v;
    return std::nullopt;
  }
};
struct generic_region {
  location loc;
  std::vector<std::pair<std::string_view, std::string_view>> args;  ///< name (without `%`), type
  std::vector<generic_op> ops;
};

/// A recursive-descent reader of the generic form as our emitter writes it (and as MLIR prints
/// it): one op per line is not assumed; comments (`// ...`) are skipped. The first error stops it.
class generic_parser {
 public:
  explicit generic_parser(std::string_view src) : s_(src) {}

  /// The one top-level op (`"builtin.module"`), or nullopt with `error()` set.
  std::optional<generic_op> parse_top() {
    skip();
    generic_op op;
    if (!parse_op(op, 0)) return std::nullopt;
    skip();
    if (pos_ < s_.size()) return fail_opt("expected the end of the input after the module");
    return op;
  }
  [[nodiscard]] const diagnostic& error() const { return error_; }

 private:
  static constexpr int max_depth = 256;

  std::optional<generic_op> fail_opt(std::string_view m) {
    fail(m);
    return std::nullopt;
  }
  bool fail(std::string_view m) {
    if (error_.message.empty()) error_ = diagnostic{here(), text(pto_read_source), text(m), {}};
    return false;
  }
  location here() {
    // Positions only grow while parsing, so lines are counted once.
    for (; counted_ < pos_ && counted_ < s_.size(); ++counted_)
      if (s_[counted_] == '\n') {
        ++line_;
        line_start_ = counted_ + 1;
      }
    return location{line_, static_cast<std::uint32_t>(pos_ - line_start_ + 1)};
  }
  [[nodiscard]] bool at_end() const { return pos_ >= s_.size(); }
  [[nodiscard]] char peek(std::size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  void skip() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && peek(1) == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.substr(pos_, tok.size()) != tok) return false;
    pos_ += tok.size();
    return true;
  }
  bool expect(std::string_view tok) {
    if (eat(tok)) return true;
    text m("expected '");
    m << tok << '\'';
    return fail(m.view());
  }
  static bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.' ||
           c == '-';
  }
  /// `%name` (the `%` consumed, not returned).
  bool value_name(std::string_view& out) {
    skip();
    if (peek() != '%') return fail("expected a value name ('%...')");
    const std::size_t begin = ++pos_;
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    if (pos_ == begin) return fail("expected a value name after '%'");
    out = s_.substr(begin, pos_ - begin);
    return true;
  }
  /// A dictionary key: an identifier with dots (`pto.target_arch`).
  bool key(std::string_view& out) {
    skip();
    const std::size_t begin = pos_;
    while (pos_ < s_.size() && name_char(s_[pos_]) && s_[pos_] != '$' && s_[pos_] != '-') ++pos_;
    if (pos_ == begin) return fail("expected an attribute name");
    out = s_.substr(begin, pos_ - begin);
    return true;
  }
  /// Text up to the next top-level `,` or the closing `stop` of the enclosing group, balanced over
  /// (), [], {}, <> and strings; `->` is not a bracket.
  bool balanced(std::string_view& out, char stop) {
    skip();
    const std::size_t begin = pos_;
    std::vector<char> open;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (open.empty() && (c == ',' || c == stop)) break;
      if (c == '"') {
        ++pos_;
        while (pos_ < s_.size() && s_[pos_] != '"') pos_ += s_[pos_] == '\\' ? 2 : 1;
        if (pos_ >= s_.size()) return fail("unterminated string");
        ++pos_;
        continue;
      }
      if (c == '-' && peek(1) == '>') {
        pos_ += 2;
        continue;
      }
      if (c == '(' || c == '[' || c == '{' || c == '<') {
        if (open.size() >= max_depth) return fail("attribute nests too deeply");
        open.push_back(c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>');
      } else if (c == ')' || c == ']' || c == '}' || c == '>') {
        if (open.empty() || open.back() != c) return fail("unbalanced brackets in an attribute value");
        open.pop_back();
      } else if (c == '\n') {
        return fail("an attribute value does not end on its line");
      }
      ++pos_;
    }
    if (!open.empty() || pos_ >= s_.size()) return fail("unterminated attribute value");
    std::size_t end = pos_;
    while (end > begin && (s_[end - 1] == ' ' || s_[end - 1] == '\t')) --end;
    if (end == begin) return fail("expected an attribute value");
    out = s_.substr(begin, end - begin);
    return true;
  }
  /// `key = value, ...` up to `close` (which is consumed).
  bool dict(std::vector<std::pair<std::string_view, std::string_view>>& out, std::string_view close) {
    if (eat(close)) return true;
    do {
      std::string_view k, v;
      if (!key(k) || !expect("=") || !balanced(v, close[0])) return false;
      out.emplace_back(k, v);
    } while (eat(","));
    return expect(close);
  }
  /// A type: `!dialect.name<...>` (balanced) or a builtin identifier (`index`, `f32`, `i1`).
  bool type(std::string_view& out) {
    skip();
    const std::size_t begin = pos_;
    if (peek() == '!') ++pos_;
    while (pos_ < s_.size() && (name_char(s_[pos_]) && s_[pos_] != '$' && s_[pos_] != '-')) ++pos_;
    if (pos_ == begin || (s_[begin] == '!' && pos_ == begin + 1)) return fail("expected a type");
    if (s_[begin] == '!' && peek() == '<') {
      int depth = 0;
      do {
        if (s_[pos_] == '<') ++depth;
        if (s_[pos_] == '>') --depth;
        if (s_[pos_] == '\n') return fail("a type does not end on its line");
        ++pos_;
      } while (pos_ < s_.size() && depth > 0);
      if (depth != 0) return fail("unterminated type");
    }
    out = s_.substr(begin, pos_ - begin);
    return true;
  }
  bool type_list(std::vector<std::string_view>& out) {
    if (!expect("(")) return false;
    if (eat(")")) return true;
    do {
      std::string_view t;
      if (!type(t)) return false;
      out.push_back(t);
    } while (eat(","));
    return expect(")");
  }
  bool region(generic_region& r, int depth) {
    r.loc = here();
    if (!expect("{")) return false;
    if (eat("^")) {
      std::string_view label;
      if (!key(label) || !expect("(")) return false;
      if (!eat(")")) {
        do {
          std::string_view n, t;
          if (!value_name(n) || !expect(":") || !type(t)) return false;
          r.args.emplace_back(n, t);
        } while (eat(","));
        if (!expect(")")) return false;
      }
      if (!expect(":")) return false;
    }
    while (true) {
      skip();
      if (at_end()) return fail("unterminated region");
      if (eat("}")) return true;
      generic_op op;
      if (!parse_op(op, depth + 1)) return false;
      r.ops.push_back(std::move(op));
    }
  }
  bool parse_op(generic_op& op, int depth) {
    if (depth > max_depth) return fail("regions nest too deeply");
    skip();
    op.loc = here();
    if (peek() == '%') {
      do {
        std::string_view n;
        if (!value_name(n)) return false;
        op.results.push_back(n);
      } while (eat(","));
      if (!expect("=")) return false;
    }
    skip();
    if (peek() != '"') return fail("expected an op name in quotes (the generic form)");
    const std::size_t begin = ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"' && s_[pos_] != '\n') ++pos_;
    if (peek() != '"') return fail("unterminated op name");
    op.name = s_.substr(begin, pos_ - begin);
    ++pos_;
    if (!expect("(")) return false;
    if (!eat(")")) {
      do {
        std::string_view n;
        if (!value_name(n)) return false;
        op.operand_names.push_back(n);
      } while (eat(","));
      if (!expect(")")) return false;
    }
    if (eat("<{") && !dict(op.props, "}>")) return false;
    skip();
    if (peek() == '(' && peek(1) == '{') {
      ++pos_;
      do {
        op.regions.emplace_back();
        if (!region(op.regions.back(), depth)) return false;
      } while (eat(","));
      if (!expect(")")) return false;
    }
    if (eat("{") && !dict(op.attrs, "}")) return false;
    if (!expect(":") || !type_list(op.operand_types) || !expect("->")) return false;
    skip();
    if (peek() == '(') {
      if (!type_list(op.result_types)) return false;
    } else {
      std::string_view t;
      if (!type(t)) return false;
      op.result_types.push_back(t);
    }
    if (op.operand_types.size() != op.operand_names.size()) return fail("the op's operand types do not match its operands");
    if (op.result_types.size() != op.results.size()) return fail("the op's result types do not match its results");
    return true;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::size_t counted_ = 0;
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
  diagnostic error_{};
};

//===--- the reader's own spellings (independent of the emitter's) ---===//

// clang-format off
/// MLIR element and scalar types.
inline constexpr std::array<std::pair<std::string_view, dtype>, 11> pto_read_types{{
    {"i1", dtype::bool_}, {"i8", dtype::int8}, {"ui8", dtype::uint8}, {"i16", dtype::int16}, {"i32", dtype::int32},
    {"ui32", dtype::uint32}, {"i64", dtype::int64}, {"f16", dtype::fp16}, {"bf16", dtype::bf16}, {"f32", dtype::fp32},
    {"index", dtype::index},
}};
/// `loc=` of a tile_buf.
inline constexpr std::array<std::pair<std::string_view, memory_space>, 5> pto_read_spaces{{
    {"vec", memory_space::vec}, {"mat", memory_space::mat}, {"left", memory_space::left}, {"right", memory_space::right},
    {"acc", memory_space::acc},
}};
// clang-format on
/// `#pto<round_mode NAME>` (pto-dialect.md §2: values 0-7); buffer.cast's `mode` is the ISA
/// enumeration 0-6, the same numbers; CAST_RINT (7) has no Buffer spelling.
inline constexpr std::array<std::string_view, 8> pto_round_mode_names{"NONE", "RINT",  "ROUND", "FLOOR",
                                                                      "CEIL", "TRUNC", "ODD",   "CAST_RINT"};
/// The SPMD ABI parameters the emitter appends, and the query each stands for.
inline constexpr std::array<std::pair<std::string_view, opcode>, 3> pto_read_abi{{
    {"__pypto_spmd_block_idx", opcode::buffer_get_block_idx},
    {"__pypto_spmd_block_num", opcode::buffer_get_block_num},
    {"__pypto_spmd_subblock_idx", opcode::buffer_get_subblock_idx},
}};

// clang-format off
/// How a PTO op reads back: which Buffer op, and how its operand groups become that op's operands.
enum class pto_read_kind : std::uint8_t {
  binary, unary, scalar, fill, row_reduction, col_sum, col_reduction, cast, row_expand_arith, col_expand_arith,
  alloc, set_validshape, load, store, subview, reshape, extract, matmul, matmul_acc,
};
// clang-format on
struct pto_inverse {
  std::string_view mnemonic;
  opcode op;
  pto_read_kind kind;
};
/// How a family's PTO ops read back (the reader's own mapping, by family and its parameters).
constexpr std::optional<pto_read_kind> family_read_kind(const op_record& r) {
  switch (r.family) {
    case op_family::elementwise:
      switch (r.ew) {
        case ew_kind::binary: return pto_read_kind::binary;
        case ew_kind::unary: return pto_read_kind::unary;
        case ew_kind::scalar_form: return pto_read_kind::scalar;
        case ew_kind::fill: return pto_read_kind::fill;
        case ew_kind::none: return std::nullopt;
      }
      return std::nullopt;
    case op_family::row_reduction: return pto_read_kind::row_reduction;
    case op_family::col_reduction: return r.scratch.empty() ? pto_read_kind::col_reduction : pto_read_kind::col_sum;
    case op_family::row_broadcast:
    case op_family::col_broadcast: return pto_read_kind::unary;
    case op_family::row_broadcast_arith: return pto_read_kind::row_expand_arith;
    case op_family::col_broadcast_arith: return pto_read_kind::col_expand_arith;
    case op_family::cast: return pto_read_kind::cast;
    case op_family::single:
    case op_family::scalar_arith:
    case op_family::scalar_compare:
    case op_family::scalar_logic:
    case op_family::control:
    case op_family::spmd_query: return std::nullopt;
  }
  return std::nullopt;
}
/// The PTO ops read back into ops of their own.
inline constexpr pto_inverse single_pto_inverses[] = {
    {"pto.alloc_tile", opcode::buffer_alloc, pto_read_kind::alloc},
    {"pto.set_validshape", opcode::buffer_set_validshape, pto_read_kind::set_validshape},
    {"pto.tload", opcode::buffer_load, pto_read_kind::load},
    {"pto.tstore", opcode::buffer_store, pto_read_kind::store},
    {"pto.tmov", opcode::buffer_copy, pto_read_kind::unary},
    {"pto.subview", opcode::buffer_subview, pto_read_kind::subview},
    {"pto.treshape", opcode::buffer_reshape, pto_read_kind::reshape},
    {"pto.textract", opcode::buffer_extract, pto_read_kind::extract},
    {"pto.tmatmul", opcode::buffer_matmul, pto_read_kind::matmul},
    {"pto.tmatmul.acc", opcode::buffer_matmul_acc, pto_read_kind::matmul_acc},
    {"pto.tcvt", opcode::buffer_cast, pto_read_kind::cast},
};
inline constexpr std::size_t family_inverse_count = [] {
  std::size_t n = 0;
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const op_record& r = info(static_cast<opcode>(i));
    n += r.dia == dialect::buffer && !r.native.empty() && family_read_kind(r).has_value();
  }
  return n;
}();
/// Every PTO op the emitter writes for a Buffer op, inverted: the ops of their own, then each
/// family member's `native` PTO op. (make_tensor_view and partition_view are read as parts of
/// the parameters and of tload/tstore; the SPMD queries are `arith.index_cast`s of the ABI
/// parameters.)
inline constexpr auto pto_inverses = [] {
  std::array<pto_inverse, std::size(single_pto_inverses) + family_inverse_count> out{};
  std::size_t n = 0;
  for (const pto_inverse& r : single_pto_inverses) out[n++] = r;
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const op_record& r = info(static_cast<opcode>(i));
    if (r.dia == dialect::buffer && !r.native.empty() && family_read_kind(r).has_value())
      out[n++] = pto_inverse{r.native, r.code, *family_read_kind(r)};
  }
  return out;
}();

/// The first Buffer op that nothing reads back into (no inverse row, not an SPMD query), or `opcode_count`.
constexpr std::size_t first_buffer_op_without_inverse() {
  std::array<std::size_t, opcode_count> seen{};
  for (const pto_inverse& r : pto_inverses) ++seen[static_cast<std::size_t>(r.op)];
  for (const auto& [abi, q] : pto_read_abi) ++seen[static_cast<std::size_t>(q)];
  return first_count_gap(
             seen, [](std::size_t c) { return is_buffer_op(static_cast<opcode>(c)) ? entries::exactly_one : entries::none; })
      .key;
}
/// Undefined: the compiler's error names the Buffer op that the PTO reader cannot produce.
template <opcode C>
struct buffer_op_needs_one_pto_inverse;
template <std::size_t I>
constexpr bool pto_inverses_cover_buffer_ops() {
  if constexpr (I < opcode_count) return sizeof(buffer_op_needs_one_pto_inverse<static_cast<opcode>(I)>) > 0;
  else return true;
}
static_assert(pto_inverses_cover_buffer_ops<first_buffer_op_without_inverse()>(),
              "tile2buffer: emit/pto_read.hpp pto_inverses must read exactly one PTO op back into each Buffer op; "
              "add the op's row");

constexpr std::optional<dtype> pto_read_dtype(std::string_view t) {
  for (const auto& [n, d] : pto_read_types)
    if (n == t) return d;
  return std::nullopt;
}
constexpr std::optional<std::int64_t> pto_read_int(std::string_view s) {
  bool neg = false;
  std::size_t i = 0;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    i = 1;
  }
  if (i >= s.size()) return std::nullopt;
  std::uint64_t v = 0;
  const std::uint64_t limit = neg ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    const auto d = static_cast<std::uint64_t>(s[i] - '0');
    if (v > (limit - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  // Why through unsigned: -2^63 has no positive int64.
  return neg ? static_cast<std::int64_t>(~v + 1) : static_cast<std::int64_t>(v);
}
constexpr std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
/// `a, b, c` split at top-level commas (no nesting in what the reader splits this way).
inline std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> out;
  while (true) {
    const std::size_t c = s.find(',');
    out.push_back(trimmed(s.substr(0, c)));
    if (c == std::string_view::npos) return out;
    s.remove_prefix(c + 1);
  }
}
constexpr float_format pto_read_format(dtype d) { return d == dtype::fp16 ? binary16 : d == dtype::bf16 ? bfloat16 : binary32; }

/// `!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=?, blayout=row_major,
/// slayout=none_box, fractal=512, pad=0[, compact=1]>` as a Buffer type; an error message otherwise.
inline std::optional<type> pto_read_tile_buf(std::string_view t, text& why) {
  constexpr std::string_view head = "!pto.tile_buf<";
  if (t.size() <= head.size() || t.substr(0, head.size()) != head || t.back() != '>') {
    why << "expected a !pto.tile_buf type, got " << t;
    return std::nullopt;
  }
  const std::vector<std::string_view> fields = split_commas(t.substr(head.size(), t.size() - head.size() - 1));
  constexpr std::array<std::string_view, 11> keys{"loc",     "dtype",   "rows",    "cols", "v_row",  "v_col",
                                                  "blayout", "slayout", "fractal", "pad",  "compact"};
  if (fields.size() != 10 && fields.size() != 11) {
    why << "a !pto.tile_buf has the ten keys loc .. pad (and optionally compact) in that order: " << t;
    return std::nullopt;
  }
  std::array<std::string_view, 11> v{};
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::size_t eq = fields[i].find('=');
    if (eq == std::string_view::npos || fields[i].substr(0, eq) != keys[i]) {
      why << "!pto.tile_buf key " << static_cast<std::int64_t>(i + 1) << " must be '" << keys[i] << "': " << t;
      return std::nullopt;
    }
    v[i] = fields[i].substr(eq + 1);
  }
  type r;
  r.kind = type_kind::buffer;
  bool ok = false;
  for (const auto& [n, s] : pto_read_spaces)
    if (n == v[0]) r.space = s, ok = true;
  const auto dt = pto_read_dtype(v[1]);
  const auto rows = pto_read_int(v[2]), cols = pto_read_int(v[3]);
  const auto blayout = parse_box_layout(v[6]), slayout = parse_box_layout(v[7]);
  const auto fractal = pto_read_int(v[8]), pad = pto_read_int(v[9]);
  const auto compact = fields.size() == 11 ? pto_read_int(v[10]) : std::optional<std::int64_t>(0);
  if (!ok || !dt || !rows || !cols || *rows <= 0 || *cols <= 0 || !blayout || *blayout == box_layout::none_box || !slayout ||
      !fractal || *fractal <= 0 || !pad || *pad < 0 || *pad > 3 || !compact || *compact < 0 || *compact > 1) {
    why << "a !pto.tile_buf field is out of its domain: " << t;
    return std::nullopt;
  }
  r.dt = *dt;
  r.shape = {*rows, *cols};
  for (std::size_t d = 0; d < 2; ++d) {
    if (v[4 + d] == "?") {
      r.valid[d] = extent::runtime();
      continue;
    }
    const auto e = pto_read_int(v[4 + d]);
    if (!e || *e < 0 || *e > r.shape[d]) {
      why << "a !pto.tile_buf valid dim must be ? or within its dim: " << t;
      return std::nullopt;
    }
    r.valid[d] = extent::of(*e);
  }
  r.blayout = *blayout;
  r.slayout = *slayout;
  r.fractal = static_cast<std::uint32_t>(*fractal);
  r.pad = static_cast<pad_value>(*pad);
  r.compact = static_cast<compact_mode>(*compact);
  return r;
}

/// Reads one module; see the file comment.
class pto_reader {
 public:
  explicit pto_reader(std::string_view src) : src_(src) {}

  result<pto_reading> run() {
    result<pto_reading> out;
    generic_parser parser(src_);
    const std::optional<generic_op> module = parser.parse_top();
    if (!module) {
      out.errors.push_back(parser.error());
      return out;
    }
    read_module(*module, out.value);
    if (!error_.message.empty()) out.errors.push_back(error_);
    return out;
  }

 private:
  /// What a name of the PTO text stands for in the Buffer IR being built.
  enum class entry_kind : std::uint8_t { value, literal, tensor_view, partition, abi };
  /// How an integer value's bits are to be read: signed, the bits of an unsigned value (after the
  /// emitter's `ui -> i` reinterpretation), or a BOOL; floats and index count as signed.
  enum class sign : std::uint8_t { is_signed, unsigned_bits, boolean };
  struct entry {
    entry_kind kind = entry_kind::value;
    operand op{};                  ///< a value or a literal
    std::string_view mlir_type{};  ///< as the defining op wrote it
    dtype lit_dt = dtype::index;   ///< literal: the constant's type
    std::uint64_t bits = 0;        ///< float literal: its bits in `lit_dt`
    sign sg = sign::is_signed;
    value_id tensor{};                            ///< tensor_view, partition: the tensor parameter
    opcode query = opcode::buffer_get_block_idx;  ///< abi
    std::array<std::size_t, 4> window{};          ///< partition: entries of offsets[2], sizes[2]
  };
  /// An operand to be placed, with its literal facts.
  struct arg {
    operand op{};
    bool literal = false;
    dtype lit_dt = dtype::index;
    std::uint64_t bits = 0;
    std::vector<arg> tuple{};  ///< non-empty: a tuple of these (op is ignored)
    bool is_tuple = false;
  };

  bool fail(location loc, const text& m) {
    if (error_.message.empty()) {
      text message;
      if (!function_.empty()) message << '@' << function_ << ": ";
      error_ = diagnostic{loc, text(pto_read_source), message << m.view(), {}};
    }
    return false;
  }
  bool fail(location loc, std::string_view m) { return fail(loc, text(m)); }
  [[nodiscard]] bool ok() const { return error_.message.empty(); }

  //===--- module and functions ---===//

  void read_module(const generic_op& m, pto_reading& out) {
    if (m.name != "builtin.module" || m.regions.size() != 1 || !m.operand_names.empty())
      return void(fail(m.loc, "expected \"builtin.module\" with one region"));
    std::optional<std::string_view> arch;
    for (const auto& [k, v] : m.attrs)
      if (k == "pto.target_arch") arch = v;
    if (!arch || (*arch != "\"a2\"" && *arch != "\"a3\"" && *arch != "\"a5\""))
      return void(fail(m.loc, "the module needs pto.target_arch = \"a2\", \"a3\" or \"a5\""));
    out.target = *arch == "\"a5\"" ? target_arch::a5 : target_arch::a2a3;
    target_ = out.target;
    if (!m.regions[0].args.empty()) return void(fail(m.loc, "the module's region takes no arguments"));
    for (const generic_op& f : m.regions[0].ops) {
      if (f.name != "func.func") return void(fail(f.loc, text("expected \"func.func\" in the module, got \"") << f.name << '"'));
      literals_.clear();
      std::optional<function> fn = read_function(f);
      if (!fn) return;
      out.prog.functions.push_back(std::move(*fn));
      out.literals.push_back(std::move(literals_));
    }
  }

  std::optional<function> read_function(const generic_op& f) {
    env_.clear();
    entries_.clear();
    const auto sym = f.prop("sym_name");
    const auto fty = f.prop("function_type");
    if (!sym || sym->size() < 2 || sym->front() != '"' || sym->back() != '"' || !fty || f.regions.size() != 1) {
      fail(f.loc, "\"func.func\" needs sym_name, function_type and one region");
      return std::nullopt;
    }
    const std::string_view name = sym->substr(1, sym->size() - 2);
    function_ = name;
    function_kind kind = function_kind::incore;
    for (const auto& [k, v] : f.attrs) {
      if (k != "pto.kernel_kind") continue;
      if (v == "#pto.kernel_kind<vector>") kind = function_kind::aiv;
      else if (v == "#pto.kernel_kind<cube>") kind = function_kind::aic;
      else {
        fail(f.loc, text("unknown pto.kernel_kind ") << v);
        return std::nullopt;
      }
    }
    const generic_region& body = f.regions[0];
    // function_type repeats the block's argument types.
    text expected("(");
    for (std::size_t i = 0; i < body.args.size(); ++i) expected << (i > 0 ? ", " : "") << body.args[i].second;
    expected << ") -> ()";
    if (*fty != expected.view()) {
      fail(f.loc, text("function_type ") << *fty << " does not match the block's arguments " << expected.view());
      return std::nullopt;
    }
    function_builder b(kind, name, f.loc);
    b_ = &b;
    b.fn().stage = ir_stage::buffer;
    b.fn().target = target_;
    // The hoisted constants and the tensor views come before the body: a tensor parameter's
    // shape and strides are the constants of its view.
    std::unordered_map<std::string_view, std::int64_t> ints;
    std::unordered_map<std::string_view, const generic_op*> views;
    for (const generic_op& o : body.ops) {
      if (o.name == "arith.constant" && o.results.size() == 1)
        if (const auto v = o.prop("value")) {
          const std::string_view lit = v->substr(0, v->find(" : "));
          if (const auto n = pto_read_int(lit)) ints[o.results[0]] = *n;
        }
      if (o.name == "pto.make_tensor_view" && !o.operand_names.empty()) {
        if (views.count(o.operand_names[0]) != 0) {
          fail(o.loc, text("a second pto.make_tensor_view of %") << o.operand_names[0]);
          return std::nullopt;
        }
        views[o.operand_names[0]] = &o;
      }
    }
    bool abi_seen = false;
    for (const auto& arg_entry : body.args) {
      const std::string_view an = arg_entry.first, at = arg_entry.second;
      const std::pair<std::string_view, opcode>* abi = nullptr;
      for (const auto& x : pto_read_abi)
        if (x.first == an) abi = &x;
      if (abi != nullptr) {
        if (at != "i32") {
          fail(body.loc, text("the SPMD ABI parameter %") << an << " must be i32");
          return std::nullopt;
        }
        abi_seen = true;
        entry e;
        e.kind = entry_kind::abi;
        e.query = abi->second;
        e.mlir_type = at;
        define(an, e, body.loc);
        continue;
      }
      if (abi_seen) {
        fail(body.loc, text("parameter %") << an << " follows the SPMD ABI parameters, which come last");
        return std::nullopt;
      }
      entry e;
      e.mlir_type = at;
      if (at.substr(0, 9) == "!pto.ptr<") {
        const auto it = views.find(an);
        if (it == views.end()) {
          fail(body.loc, text("tensor parameter %") << an << " has no pto.make_tensor_view");
          return std::nullopt;
        }
        const std::optional<type> t = tensor_of(*it->second, at, ints);
        if (!t) return std::nullopt;
        e.op = operand::of(b.param(an, *t, direction::in, location{}));
      } else {
        const auto d = pto_read_dtype(at);
        if (!d) {
          fail(body.loc, text("parameter %") << an << " has type " << at << ", which no Buffer scalar has");
          return std::nullopt;
        }
        e.op = operand::of(b.param(an, scalar_type(*d), direction::in, location{}));
        e.sg = *d == dtype::bool_ ? sign::boolean : sign::is_signed;
      }
      define(an, e, body.loc);
    }
    if (!ok()) return std::nullopt;
    read_ops(body.ops, region_role::function);
    if (!ok()) return std::nullopt;
    b_ = nullptr;
    function_ = {};
    return b.finish();
  }

  /// The tensor type of a `!pto.ptr<E>` parameter from its `pto.make_tensor_view`.
  std::optional<type> tensor_of(const generic_op& v, std::string_view ptr,
                                const std::unordered_map<std::string_view, std::int64_t>& ints) {
    const auto seg = group_sizes(v, pto_op::make_tensor_view);
    if (!seg) return std::nullopt;
    if ((*seg)[1] != 2 || (*seg)[2] != 2 || v.results.size() != 1) {
      fail(v.loc, "pto.make_tensor_view of a Buffer kernel's tensor has two dims and two strides");
      return std::nullopt;
    }
    std::array<std::int64_t, 4> n{};
    for (std::size_t i = 0; i < 4; ++i) {
      const auto it = ints.find(v.operand_names[1 + i]);
      if (it == ints.end()) {
        fail(v.loc, text("pto.make_tensor_view's shape and strides must be constants; %") << v.operand_names[1 + i] << " is not");
        return std::nullopt;
      }
      n[i] = it->second;
    }
    const auto dt = pto_read_dtype(ptr.substr(9, ptr.size() - 10));
    text want("!pto.tensor_view<?x?x");
    if (dt) want << ptr.substr(9, ptr.size() - 10) << '>';
    if (!dt || v.result_types[0] != want.view() || v.operand_types[0] != ptr) {
      fail(v.loc, text("pto.make_tensor_view of ") << ptr << " must give " << want.view());
      return std::nullopt;
    }
    type t = tensor_type(n[0], n[1], *dt);
    if (const auto layout = v.prop("layout")) {
      // The emitter's DN view of a one-column tensor: its column, contiguous (strides [1, N]).
      if (*layout != "#pto.layout<dn>" || n[1] != 1 || n[2] != 1 || n[3] != n[0]) {
        fail(v.loc, text("pto.make_tensor_view with layout ")
                        << *layout << ": a Buffer tensor parameter is ND, or the DN view [1, N] of an [N, 1] one");
        return std::nullopt;
      }
      return t;
    }
    if (n[2] != n[1] || n[3] != 1) {
      t.has_stride = true;
      t.stride = {n[2], n[3]};
    }
    return t;
  }

  //===--- names ---===//

  void define(std::string_view name, const entry& e, location loc) {
    if (env_.count(name) != 0) return void(fail(loc, text("%") << name << " is defined twice"));
    env_[name] = entries_.size();
    entries_.push_back(e);
  }
  const entry* lookup(const generic_op& o, std::size_t i) {
    const auto it = env_.find(o.operand_names[i]);
    if (it == env_.end()) {
      fail(o.loc, text(o.name) << ": operand %" << o.operand_names[i] << " is not defined before it");
      return nullptr;
    }
    const entry& e = entries_[it->second];
    if (e.mlir_type != o.operand_types[i]) {
      fail(o.loc,
           text(o.name) << ": %" << o.operand_names[i] << " is used as " << o.operand_types[i] << " but is " << e.mlir_type);
      return nullptr;
    }
    return &e;
  }
  /// Operand `i` of `o` as a Buffer operand: a value (a buffer, a scalar, a tensor parameter) or a
  /// literal.
  std::optional<arg> use(const generic_op& o, std::size_t i) {
    const entry* e = lookup(o, i);
    if (e == nullptr) return std::nullopt;
    if (e->kind != entry_kind::value && e->kind != entry_kind::literal) {
      fail(o.loc, text(o.name) << ": %" << o.operand_names[i] << " cannot be an operand here");
      return std::nullopt;
    }
    arg a;
    a.op = e->op;
    a.literal = e->kind == entry_kind::literal;
    a.lit_dt = e->lit_dt;
    a.bits = e->bits;
    return a;
  }
  std::optional<arg> use_buffer(const generic_op& o, std::size_t i) {
    std::optional<arg> a = use(o, i);
    if (a && (a->literal || !b_->fn().type_of(a->op.value()).is_buffer())) {
      fail(o.loc, text(o.name) << ": %" << o.operand_names[i] << " must be a tile");
      return std::nullopt;
    }
    return a;
  }
  static arg tuple_of(std::vector<arg> xs) {
    arg t;
    t.is_tuple = true;
    t.tuple = std::move(xs);
    return t;
  }
  std::optional<type> tile_type(location loc, std::string_view t) {
    text why;
    std::optional<type> r = pto_read_tile_buf(t, why);
    if (!r) fail(loc, why);
    return r;
  }
  std::optional<type> scalar_result(const generic_op& o, std::size_t i = 0) {
    const auto d = pto_read_dtype(o.result_types[i]);
    if (!d) {
      fail(o.loc, text(o.name) << ": result type " << o.result_types[i] << " is no Buffer scalar");
      return std::nullopt;
    }
    return scalar_type(*d);
  }

  //===--- building ---===//

  /// Places `a` at the end of the operand pool (through the builder) and records its literal.
  operand place(const arg& a, std::uint32_t at) {
    if (a.literal) literals_.push_back(pto_read_literal{at, a.lit_dt, a.bits});
    return a.op;
  }
  operand materialize(const arg& a) {
    std::vector<operand> elems;
    const auto base = static_cast<std::uint32_t>(b_->fn().operands.size());
    for (std::size_t i = 0; i < a.tuple.size(); ++i) elems.push_back(place(a.tuple[i], base + static_cast<std::uint32_t>(i)));
    return b_->tuple(std::span<const operand>(elems));
  }
  /// Emits `c` with `args` (tuples stored first, as the builder requires) and returns the op.
  op_id emit(opcode c, const std::vector<arg>& args, std::vector<kwarg> kws, std::span<const type> results,
             std::span<const std::string_view> names, location loc, span32 regions = {}) {
    std::vector<operand> ops;
    for (const arg& a : args) ops.push_back(a.is_tuple ? materialize(a) : a.op);
    const auto base = static_cast<std::uint32_t>(b_->fn().operands.size());
    for (std::size_t i = 0; i < args.size(); ++i)
      if (!args[i].is_tuple) place(args[i], base + static_cast<std::uint32_t>(i));
    return b_->emit(c, std::span<const operand>(ops), std::span<const kwarg>(kws), results, names, loc, regions);
  }
  void bind_results(const generic_op& o, op_id id) {
    for (std::size_t i = 0; i < o.results.size(); ++i) {
      entry e;
      e.op = operand::of(b_->fn().result(id, static_cast<std::uint32_t>(i)));
      e.mlir_type = o.result_types[i];
      e.sg = o.result_types[i] == "i1" ? sign::boolean : sign::is_signed;
      define(o.results[i], e, o.loc);
    }
  }
  op_id emit_one(const generic_op& o, opcode c, const std::vector<arg>& args, const type& t, std::vector<kwarg> kws = {}) {
    const std::string_view names[] = {o.results[0]};
    const op_id id = emit(c, args, std::move(kws), std::span<const type>(&t, 1), names, o.loc);
    bind_results(o, id);
    return id;
  }

  //===--- regions ---===//

  enum class region_role : std::uint8_t { function, branch, loop_body, while_cond };

  void read_ops(const std::vector<generic_op>& ops, region_role role) {
    bool terminated = false;
    for (std::size_t i = 0; i < ops.size() && ok(); ++i) {
      const generic_op& o = ops[i];
      if (terminated) return void(fail(o.loc, text(o.name) << " follows its region's terminator"));
      if (o.name == "func.return" || o.name == "scf.yield" || o.name == "scf.condition") {
        terminator(o, role);
        terminated = true;
        continue;
      }
      if (o.name == "arith.remsi") {
        i += floor_mod(ops, i);
        continue;
      }
      read_op(o);
    }
    // An scf.if without else has an empty else region; every other region ends in its terminator.
    if (ok() && !terminated && !(ops.empty() && role == region_role::branch))
      fail(ops.empty() ? location{} : ops.back().loc, "a region without its terminator");
  }
  void terminator(const generic_op& o, region_role role) {
    const std::string_view want = role == region_role::function     ? "func.return"
                                  : role == region_role::while_cond ? "scf.condition"
                                                                    : "scf.yield";
    if (o.name != want) return void(fail(o.loc, text(o.name) << " cannot end this region (expected " << want << ')'));
    if (!o.results.empty() || !o.props.empty() || !o.regions.empty())
      return void(fail(o.loc, text(o.name) << " takes no results, properties or regions"));
    if (role == region_role::function) {
      if (!o.operand_names.empty()) return void(fail(o.loc, "func.return of a kernel returns nothing"));
      emit(opcode::cf_return, {}, {}, {}, {}, o.loc);
      return;
    }
    std::vector<arg> vals;
    const std::size_t first = role == region_role::while_cond ? 1 : 0;
    if (role == region_role::while_cond) {
      if (o.operand_names.empty()) return void(fail(o.loc, "scf.condition needs its condition"));
      // The condition forwards the condition region's arguments, in order (what the emitter writes).
      if (o.operand_names.size() - 1 != cond_args_.size())
        return void(fail(o.loc, "scf.condition must forward the condition region's arguments"));
      for (std::size_t i = 1; i < o.operand_names.size(); ++i)
        if (o.operand_names[i] != cond_args_[i - 1])
          return void(fail(o.loc, "scf.condition must forward the condition region's arguments, in order"));
      const std::optional<arg> c = use(o, 0);
      if (!c) return;
      vals.push_back(*c);
    } else {
      for (std::size_t i = first; i < o.operand_names.size(); ++i) {
        const std::optional<arg> v = use(o, i);
        if (!v) return;
        vals.push_back(*v);
      }
    }
    // An empty yield ends a region in MLIR whether or not the Buffer IR wrote one: nothing to read.
    if (vals.empty()) return;
    emit(opcode::cf_yield, vals, {}, {}, {}, o.loc);
  }
  /// Opens reserved region `r` with the block arguments of `g`, reads its ops, closes it.
  void region(const generic_region& g, region_id r, region_role role) {
    std::vector<type> types;
    std::vector<std::string_view> names;
    for (const auto& [n, t] : g.args) {
      const auto d = pto_read_dtype(t);
      if (!d) return void(fail(g.loc, text("region argument %") << n << " has type " << t << ", which no Buffer scalar has"));
      types.push_back(scalar_type(*d));
      names.push_back(n);
    }
    b_->open_region(r, std::span<const type>(types), std::span<const std::string_view>(names));
    const region_info& info = b_->fn().region(r);
    std::vector<std::string_view> saved = cond_args_;
    if (role == region_role::while_cond) cond_args_ = names;
    for (std::size_t i = 0; i < g.args.size(); ++i) {
      entry e;
      e.op = operand::of(value_id{info.args.begin + static_cast<std::uint32_t>(i)});
      e.mlir_type = g.args[i].second;
      e.sg = g.args[i].second == "i1" ? sign::boolean : sign::is_signed;
      define(g.args[i].first, e, g.loc);
    }
    if (ok()) read_ops(g.ops, role);
    cond_args_ = std::move(saved);
    b_->close_region();
  }

  void control(const generic_op& o) {
    std::vector<type> results;
    for (std::size_t i = 0; i < o.results.size(); ++i) {
      const std::optional<type> t = scalar_result(o, i);
      if (!t) return;
      results.push_back(*t);
    }
    std::vector<arg> args;
    for (std::size_t i = 0; i < o.operand_names.size(); ++i) {
      const std::optional<arg> a = use(o, i);
      if (!a) return;
      args.push_back(*a);
    }
    opcode c = opcode::cf_if;
    std::uint32_t want_regions = 2;
    if (o.name == "scf.for") c = opcode::cf_for, want_regions = 1;
    else if (o.name == "scf.while") c = opcode::cf_while;
    if (o.regions.size() != want_regions || !o.props.empty() || (c == opcode::cf_for && o.operand_names.size() < 3) ||
        (c == opcode::cf_if && o.operand_names.size() != 1))
      return void(fail(o.loc, text(o.name) << " has the wrong operands, properties or regions for a Buffer control op"));
    const region_id first = b_->reserve_regions(want_regions);
    if (c == opcode::cf_if) {
      if (!o.regions[0].args.empty() || !o.regions[1].args.empty())
        return void(fail(o.loc, "scf.if's regions take no arguments"));
      region(o.regions[0], first, region_role::branch);
      if (ok()) region(o.regions[1], region_id{first.index + 1}, region_role::branch);
    } else if (c == opcode::cf_for) {
      if (o.regions[0].args.size() != o.operand_names.size() - 2)
        return void(fail(o.loc, "scf.for's body takes the induction variable and one argument per carried value"));
      region(o.regions[0], first, region_role::loop_body);
    } else {
      if (o.regions[0].args.size() != o.operand_names.size() || o.regions[1].args.size() != o.operand_names.size())
        return void(fail(o.loc, "scf.while's regions take one argument per carried value"));
      region(o.regions[0], first, region_role::while_cond);
      if (ok()) region(o.regions[1], region_id{first.index + 1}, region_role::loop_body);
    }
    if (!ok()) return;
    const op_id id = emit(c, args, {}, std::span<const type>(results), std::span<const std::string_view>(o.results), o.loc,
                          span32{first.index, want_regions});
    bind_results(o, id);
  }

  //===--- scalar ops ---===//

  /// Properties an arith op may carry: only its defaults (a flag such as `nsw` would change what it computes).
  bool arith_props(const generic_op& o) {
    for (const auto& [k, v] : o.props) {
      if ((k == "overflowFlags" && v == "#arith.overflow<none>") || (k == "fastmath" && v == "#arith.fastmath<none>")) continue;
      if (k == "predicate" && (o.name == "arith.cmpi" || o.name == "arith.cmpf")) continue;
      return fail(o.loc, text(o.name) << ": unexpected property " << k << " = " << v);
    }
    return true;
  }
  void constant(const generic_op& o) {
    const auto v = o.prop("value");
    if (!v || o.results.size() != 1 || !o.operand_names.empty() || o.props.size() != 1)
      return void(fail(o.loc, "arith.constant has one result and its value"));
    const std::string_view rt = o.result_types[0];
    const auto d = pto_read_dtype(rt);
    if (!d) return void(fail(o.loc, text("arith.constant of type ") << rt << ", which no Buffer scalar has"));
    entry e;
    e.kind = entry_kind::literal;
    e.mlir_type = rt;
    e.lit_dt = *d;
    if (*d == dtype::bool_) {
      if (*v != "true" && *v != "false") return void(fail(o.loc, text("an i1 constant is true or false, not ") << *v));
      e.op = operand::boolean(*v == "true");
      e.sg = sign::boolean;
      return define(o.results[0], e, o.loc);
    }
    const std::size_t colon = v->find(" : ");
    if (colon == std::string_view::npos || v->substr(colon + 3) != rt)
      return void(fail(o.loc, text("arith.constant's value must be typed ") << rt << ": " << *v));
    const std::string_view lit = v->substr(0, colon);
    if (!is_float(*d)) {
      const auto n = pto_read_int(lit);
      if (!n) return void(fail(o.loc, text("an integer constant, not ") << lit));
      e.op = operand::integer(*n);
      return define(o.results[0], e, o.loc);
    }
    const float_format fmt = pto_read_format(*d);
    if (lit.substr(0, 2) == "0x") {
      std::uint64_t bits = 0;
      if (lit.size() < 3 || lit.size() - 2 > static_cast<std::size_t>(fmt.bits / 4))
        return void(fail(o.loc, text("a hex float of ")
                                    << rt << " has at most " << static_cast<std::int64_t>(fmt.bits / 4) << " digits: " << lit));
      for (const char c : lit.substr(2)) {
        const int nib = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (nib < 0) return void(fail(o.loc, text("not a hex float: ") << lit));
        bits = bits << 4 | static_cast<std::uint64_t>(nib);
      }
      e.bits = bits;
    } else {
      bool digits = false;
      for (std::size_t i = 0; i < lit.size(); ++i) {
        const char c = lit[i];
        digits = digits || (c >= '0' && c <= '9');
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
              ((c == '-' || c == '+') && (i == 0 || lit[i - 1] == 'e' || lit[i - 1] == 'E'))))
          return void(fail(o.loc, text("not a float literal: ") << lit));
      }
      if (!digits || lit.find('.') == std::string_view::npos) return void(fail(o.loc, text("not a float literal: ") << lit));
      // MLIR reads the text it printed straight into the type (one rounding).
      e.bits = bits_of(round_to_format(parse_decimal(lit), fmt), fmt);
    }
    // The Buffer operand is a decimal literal (for printing); comparisons use the bits.
    const decimal_value dv = parse_decimal(lit.substr(0, 2) == "0x" ? std::string_view("0.0") : lit);
    e.op = operand::decimal(static_cast<std::int64_t>(dv.digits > 999999999999999999ULL ? 0 : dv.digits) * (dv.negative ? -1 : 1),
                            dv.exp10);
    define(o.results[0], e, o.loc);
  }
  /// A conversion op: read through to its source (the Buffer IR converts implicitly, or with a
  /// `cast` the PTO form cannot tell apart), after checking that it treats the source's
  /// signedness as the emitter must (zero-extend the bits of an unsigned value or a BOOL,
  /// sign-extend the rest).
  void conversion(const generic_op& o) {
    if (o.operand_names.size() != 1 || o.results.size() != 1 || !o.props.empty())
      return void(fail(o.loc, text(o.name) << " converts one value"));
    const entry* src = lookup(o, 0);
    if (src == nullptr) return;
    if (src->kind == entry_kind::abi) {
      if (o.name != "arith.index_cast" || o.result_types[0] != "index")
        return void(
            fail(o.loc, text("the SPMD ABI parameter %") << o.operand_names[0] << " is read by arith.index_cast to index only"));
      const type t = scalar_type(dtype::index);
      emit_one(o, src->query, {}, t);
      return;
    }
    if (src->kind != entry_kind::value && src->kind != entry_kind::literal)
      return void(fail(o.loc, text(o.name) << " of a non-scalar"));
    const std::string_view from = o.operand_types[0], to = o.result_types[0];
    const auto fd = pto_read_dtype(from), td = pto_read_dtype(to);
    if (!fd || !td) return void(fail(o.loc, text(o.name) << " between types no Buffer scalar has"));
    const bool unsigned_like = src->sg != sign::is_signed;  // the bits of an unsigned value, or a BOOL
    entry e = *src;
    e.mlir_type = to;
    e.sg = *td == dtype::bool_ ? sign::boolean : sign::is_signed;
    const std::string_view n = o.name;
    text bad;
    if (n == "builtin.unrealized_conversion_cast") {
      // The emitter reinterprets uiN <-> iN of one width, nothing else.
      const bool to_bits = is_unsigned(*fd) && *td == signless(*fd);
      const bool to_unsigned = is_unsigned(*td) && *fd == signless(*td);
      if (!to_bits && !to_unsigned) bad << "reinterprets only uiN <-> iN of one width";
      if (to_bits) e.sg = sign::unsigned_bits;
    } else if (n == "arith.extui" || n == "arith.uitofp" || n == "arith.index_castui") {
      if (!unsigned_like) bad << "zero-extends a signed value";
    } else if (n == "arith.extsi" || n == "arith.sitofp") {
      if (unsigned_like) bad << "sign-extends the bits of an unsigned value or a BOOL";
    } else if (n == "arith.index_cast") {
      if (unsigned_like && bit_width(*fd) < 64) bad << "sign-extends the bits of an unsigned value or a BOOL";
    } else if (n != "arith.trunci" && n != "arith.fptosi" && n != "arith.extf" && n != "arith.truncf") {
      bad << "is not a conversion the emitter writes";
    }
    if (!bad.empty()) return void(fail(o.loc, text(n) << " from %" << o.operand_names[0] << ' ' << bad.view()));
    define(o.results[0], e, o.loc);
  }
  static constexpr dtype signless(dtype d) { return d == dtype::uint8 ? dtype::int8 : d == dtype::uint32 ? dtype::int32 : d; }

  void binary_scalar(const generic_op& o, opcode c) {
    if (o.operand_names.size() != 2 || o.results.size() != 1 || !arith_props(o))
      return void(fail(o.loc, text(o.name) << " takes two operands"));
    const std::optional<arg> a = use(o, 0), b = use(o, 1);
    const std::optional<type> t = scalar_result(o);
    if (!a || !b || !t) return;
    emit_one(o, c, {*a, *b}, *t);
  }
  void compare(const generic_op& o) {
    if (o.operand_names.size() != 2 || o.results.size() != 1 || o.result_types[0] != "i1" || !arith_props(o))
      return void(fail(o.loc, text(o.name) << " compares two operands into an i1"));
    const auto p = o.prop("predicate");
    const std::optional<std::int64_t> pred =
        p && p->size() > 6 && p->substr(p->size() - 6) == " : i64" ? pto_read_int(p->substr(0, p->size() - 6)) : std::nullopt;
    // arith's predicate numbers (MLIR's CmpIPredicate / CmpFPredicate): the signed and the
    // ordered ones, and `une` (which a float `!=` must be, to hold for NaN).
    // clang-format off
    constexpr std::array<std::pair<std::int64_t, opcode>, 6> ints{{{0, opcode::scalar_eq}, {1, opcode::scalar_ne}, {2, opcode::scalar_lt},
                                                                   {3, opcode::scalar_le}, {4, opcode::scalar_gt}, {5, opcode::scalar_ge}}};
    constexpr std::array<std::pair<std::int64_t, opcode>, 6> floats{{{1, opcode::scalar_eq}, {13, opcode::scalar_ne}, {4, opcode::scalar_lt},
                                                                     {5, opcode::scalar_le}, {2, opcode::scalar_gt}, {3, opcode::scalar_ge}}};
    // clang-format on
    const auto& table = o.name == "arith.cmpi" ? ints : floats;
    for (const auto& [n, c] : table)
      if (pred && *pred == n) {
        const std::optional<arg> a = use(o, 0), b = use(o, 1);
        if (!a || !b) return;
        emit_one(o, c, {*a, *b}, scalar_type(dtype::bool_));
        return;
      }
    fail(o.loc,
         text(o.name) << ": predicate " << (p ? *p : std::string_view("(none)")) << " is none of those the emitter writes");
  }
  void read_op(const generic_op& o) {
    const std::string_view n = o.name;
    if (n == "arith.constant") return constant(o);
    if (n.substr(0, 4) == "pto.") return read_pto_op(o);
    if (n == "scf.if" || n == "scf.for" || n == "scf.while") return control(o);
    if (n == "arith.cmpi" || n == "arith.cmpf") return compare(o);
    // clang-format off
    constexpr std::array<std::pair<std::string_view, opcode>, 13> binaries{{
        {"arith.addi", opcode::scalar_add}, {"arith.addf", opcode::scalar_add}, {"arith.subi", opcode::scalar_sub},
        {"arith.subf", opcode::scalar_sub}, {"arith.muli", opcode::scalar_mul}, {"arith.mulf", opcode::scalar_mul},
        {"arith.minsi", opcode::scalar_min}, {"arith.minimumf", opcode::scalar_min}, {"arith.maxsi", opcode::scalar_max},
        {"arith.maximumf", opcode::scalar_max}, {"arith.andi", opcode::scalar_and}, {"arith.ori", opcode::scalar_or},
        {"arith.floordivsi", opcode::scalar_floordiv},
    }};
    // clang-format on
    for (const auto& [m, c] : binaries)
      if (m == n) return binary_scalar(o, c);
    if (n == "arith.xori") {
      // `not x` is `x xor true` (the floor-modulo expansion's xori is read with it).
      if (o.operand_names.size() != 2 || o.results.size() != 1 || !o.props.empty())
        return void(fail(o.loc, "arith.xori takes two operands"));
      const entry* t = lookup(o, 1);
      if (t == nullptr) return;
      if (t->kind != entry_kind::literal || t->lit_dt != dtype::bool_ || t->op.num != 1)
        return void(fail(o.loc, "arith.xori outside a floor modulo must be `x xor true` (a Buffer `not`)"));
      const std::optional<arg> x = use(o, 0);
      if (!x) return;
      emit_one(o, opcode::scalar_not, {*x}, scalar_type(dtype::bool_));
      return;
    }
    if (n.substr(0, 6) == "arith." || n == "builtin.unrealized_conversion_cast") {
      constexpr std::array<std::string_view, 11> conversions{"arith.index_cast",
                                                             "arith.index_castui",
                                                             "arith.extui",
                                                             "arith.extsi",
                                                             "arith.trunci",
                                                             "arith.sitofp",
                                                             "arith.uitofp",
                                                             "arith.fptosi",
                                                             "arith.extf",
                                                             "arith.truncf",
                                                             "builtin.unrealized_conversion_cast"};
      for (const std::string_view c : conversions)
        if (c == n) return conversion(o);
      if (n == "arith.select") return void(fail(o.loc, "arith.select outside the floor-modulo expansion"));
    }
    fail(o.loc, text("\"") << n << "\" is not an op the PTO emitter writes");
  }

  /// `arith.remsi` and the seven ops after it are the emitter's floor modulo (the sign follows the
  /// divisor): rem = a remsi b; fix = (rem != 0) and ((rem < 0) xor (b < 0)); r = fix ? rem + b : rem.
  /// Reads them as one `scalar.mod`; returns how many ops after `at` it consumed.
  std::size_t floor_mod(const std::vector<generic_op>& ops, std::size_t at) {
    const generic_op& rem = ops[at];
    const auto shape = [&](std::size_t k, std::string_view name, std::size_t operands) -> const generic_op* {
      if (at + k >= ops.size() || ops[at + k].name != name || ops[at + k].operand_names.size() != operands ||
          ops[at + k].results.size() != 1)
        return nullptr;
      return &ops[at + k];
    };
    const generic_op* nz = shape(1, "arith.cmpi", 2);
    const generic_op* rneg = shape(2, "arith.cmpi", 2);
    const generic_op* bneg = shape(3, "arith.cmpi", 2);
    const generic_op* differ = shape(4, "arith.xori", 2);
    const generic_op* fix = shape(5, "arith.andi", 2);
    const generic_op* adj = shape(6, "arith.addi", 2);
    const generic_op* sel = shape(7, "arith.select", 3);
    const auto is_zero = [&](const generic_op& o, std::size_t i) {
      const auto it = env_.find(o.operand_names[i]);
      return it != env_.end() && entries_[it->second].kind == entry_kind::literal &&
             entries_[it->second].op.kind == operand_kind::int_lit && entries_[it->second].op.num == 0;
    };
    const auto pred = [](const generic_op* o) { return o->prop("predicate").value_or(""); };
    const bool ok_shape = rem.operand_names.size() == 2 && rem.results.size() == 1 && nz && rneg && bneg && differ && fix &&
                          adj && sel && pred(nz) == "1 : i64" && nz->operand_names[0] == rem.results[0] && is_zero(*nz, 1) &&
                          pred(rneg) == "2 : i64" && rneg->operand_names[0] == rem.results[0] && is_zero(*rneg, 1) &&
                          pred(bneg) == "2 : i64" && bneg->operand_names[0] == rem.operand_names[1] && is_zero(*bneg, 1) &&
                          differ->operand_names[0] == rneg->results[0] && differ->operand_names[1] == bneg->results[0] &&
                          fix->operand_names[0] == nz->results[0] && fix->operand_names[1] == differ->results[0] &&
                          adj->operand_names[0] == rem.results[0] && adj->operand_names[1] == rem.operand_names[1] &&
                          sel->operand_names[0] == fix->results[0] && sel->operand_names[1] == adj->results[0] &&
                          sel->operand_names[2] == rem.results[0];
    if (!ok_shape) {
      fail(rem.loc, "arith.remsi is not followed by the emitter's floor-modulo expansion (cmpi ne, cmpi slt, cmpi slt, xori, "
                    "andi, addi, select over its result and divisor)");
      return 0;
    }
    for (const generic_op* x : {&rem, nz, rneg, bneg, differ, fix, adj, sel})
      if (!arith_props(*x)) return 0;
    const std::optional<arg> a = use(rem, 0), b = use(rem, 1);
    const std::optional<type> t = scalar_result(*sel);
    if (!a || !b || !t) return 0;
    // The intermediate names are the expansion's own; only the select's result is the Buffer value.
    const std::string_view names[] = {sel->results[0]};
    const op_id id = emit(opcode::scalar_mod, {*a, *b}, {}, std::span<const type>(&*t, 1), names, rem.loc);
    entry e;
    e.op = operand::of(b_->fn().result(id));
    e.mlir_type = sel->result_types[0];
    define(sel->results[0], e, sel->loc);
    return 7;
  }

  //===--- PTO ops ---===//

  /// The operand count of each declared group of `p` in `o` (from `operandSegmentSizes` when the
  /// op has it, else inferred: at most one group is optional or variadic).
  std::optional<std::vector<std::size_t>> group_sizes(const generic_op& o, pto_op p) {
    const pto_op_def& d = def_of(p);
    const std::size_t groups = d.group_count();
    std::vector<std::size_t> sizes(groups, 1);
    const auto seg = o.prop("operandSegmentSizes");
    if (d.segmented()) {
      constexpr std::string_view head = "array<i32: ";
      if (!seg || seg->substr(0, head.size()) != head || seg->back() != '>') {
        fail(o.loc, text(o.name) << " needs operandSegmentSizes = array<i32: ...>");
        return std::nullopt;
      }
      const std::vector<std::string_view> xs = split_commas(seg->substr(head.size(), seg->size() - head.size() - 1));
      std::size_t total = 0;
      if (xs.size() != groups) {
        fail(o.loc, text(o.name) << ": operandSegmentSizes has " << static_cast<std::int64_t>(xs.size()) << " entries for "
                                 << static_cast<std::int64_t>(groups) << " operand groups");
        return std::nullopt;
      }
      for (std::size_t g = 0; g < groups; ++g) {
        const auto n = pto_read_int(xs[g]);
        if (!n || *n < 0 || (d.groups[g].kind == group_kind::one && *n != 1) ||
            (d.groups[g].kind == group_kind::optional && *n > 1)) {
          fail(o.loc, text(o.name) << ": operandSegmentSizes entry " << static_cast<std::int64_t>(g) << " (" << d.groups[g].name
                                   << ") is " << xs[g]);
          return std::nullopt;
        }
        sizes[g] = static_cast<std::size_t>(*n);
        total += sizes[g];
      }
      if (total != o.operand_names.size()) {
        fail(o.loc, text(o.name) << ": operandSegmentSizes counts " << static_cast<std::int64_t>(total)
                                 << " operands, the op has " << static_cast<std::int64_t>(o.operand_names.size()));
        return std::nullopt;
      }
      return sizes;
    }
    if (seg) {
      fail(o.loc, text(o.name) << " has no operandSegmentSizes");
      return std::nullopt;
    }
    std::size_t fixed = 0, variable = groups;
    for (std::size_t g = 0; g < groups; ++g)
      if (d.groups[g].kind == group_kind::one) ++fixed;
      else variable = g;
    if (o.operand_names.size() < fixed || (variable == groups && o.operand_names.size() != fixed) ||
        (variable < groups && d.groups[variable].kind == group_kind::optional && o.operand_names.size() > fixed + 1)) {
      fail(o.loc, text(o.name) << " has " << static_cast<std::int64_t>(o.operand_names.size())
                               << " operands, which its groups cannot take");
      return std::nullopt;
    }
    if (variable < groups) sizes[variable] = o.operand_names.size() - fixed;
    return sizes;
  }
  /// The case of enum property `name` (`#pto<kind case>`), its default when the op declares one
  /// and the text omits it, or nullopt (with an error when `required`).
  std::optional<std::string_view> enum_prop(const generic_op& o, pto_op p, std::string_view name, bool required) {
    const property_def* def = property_of(p, name);
    const auto v = o.prop(name);
    if (!v) {
      // A default the text may leave out; one whose meaning changed between versions must be written.
      if (def != nullptr && !def->default_case.empty() && !def->always_written) return def->default_case;
      if (required) fail(o.loc, text(o.name) << " needs its property " << name);
      return std::nullopt;
    }
    text head("#pto<");
    head << (def != nullptr ? def->enum_kind : std::string_view("?")) << ' ';
    if (v->substr(0, head.size()) != head.view() || v->back() != '>') {
      fail(o.loc, text(o.name) << ": " << name << " = " << *v << " is not a " << head.view() << "...>");
      return std::nullopt;
    }
    return v->substr(head.size(), v->size() - head.size() - 1);
  }
  /// Every property of `o` is one `p` declares, and those the Buffer op cannot carry (`fixed`)
  /// hold the value it implies.
  bool props_known(const generic_op& o, pto_op p, std::initializer_list<std::pair<std::string_view, std::string_view>> fixed) {
    for (const auto& [k, v] : o.props)
      if (k != "operandSegmentSizes" && property_of(p, k) == nullptr)
        return fail(o.loc, text(o.name) << ": unknown property " << k);
    for (const auto& [k, want] : fixed) {
      const auto got = enum_prop(o, p, k, false);
      if (!ok()) return false;
      if (got && *got != want)
        return fail(o.loc, text(o.name) << ": " << k << " is " << *got << "; the Buffer op it reads back into means " << want);
    }
    return true;
  }

  void read_pto_op(const generic_op& o) {
    if (o.name == "pto.make_tensor_view") return tensor_view(o);
    if (o.name == "pto.partition_view") return partition(o);
    const pto_inverse* inv = nullptr;
    for (const pto_inverse& r : pto_inverses)
      if (r.mnemonic == o.name) inv = &r;
    std::optional<pto_op> p;
    for (std::size_t i = 0; i < pto_op_count; ++i)
      if (pto_facts::table[i].mnemonic == o.name) p = static_cast<pto_op>(i);
    if (inv == nullptr || !p) return void(fail(o.loc, text("\"") << o.name << "\" is not a PTO op the emitter writes"));
    if (!o.regions.empty() || !o.attrs.empty())
      return void(fail(o.loc, text(o.name) << " takes no regions or discardable attributes"));
    const auto sizes = group_sizes(o, *p);
    if (!sizes) return;
    const pto_op_def& d = def_of(*p);
    // Operand indices per declared group.
    std::vector<std::vector<std::size_t>> g(d.group_count());
    std::size_t next = 0;
    for (std::size_t k = 0; k < g.size(); ++k)
      for (std::size_t j = 0; j < (*sizes)[k]; ++j) g[k].push_back(next++);
    static const std::vector<std::size_t> none;
    const auto group = [&](std::string_view name) -> const std::vector<std::size_t>& {
      for (std::size_t k = 0; k < g.size(); ++k)
        if (d.groups[k].name == name) return g[k];
      return none;  // a group this op does not declare has no operands
    };
    const auto absent = [&](std::initializer_list<std::string_view> names) {
      for (const std::string_view n : names)
        if (!group(n).empty()) return fail(o.loc, text(o.name) << ": operand " << n << " has no Buffer counterpart");
      return true;
    };
    const auto buf = [&](std::string_view name) -> std::optional<arg> {
      if (group(name).empty()) {
        fail(o.loc, text(o.name) << " needs its operand " << name);
        return std::nullopt;
      }
      return use_buffer(o, group(name)[0]);
    };
    const auto scal = [&](std::string_view name) -> std::optional<arg> {
      if (group(name).empty()) {
        fail(o.loc, text(o.name) << " needs its operand " << name);
        return std::nullopt;
      }
      return use(o, group(name)[0]);
    };
    const auto result_type = [&]() -> std::optional<type> {
      if (o.results.size() != 1) {
        fail(o.loc, text(o.name) << " defines one tile");
        return std::nullopt;
      }
      return tile_type(o.loc, o.result_types[0]);
    };
    if (!o.results.empty() && inv->kind != pto_read_kind::alloc && inv->kind != pto_read_kind::subview &&
        inv->kind != pto_read_kind::reshape)
      return void(fail(o.loc, text(o.name) << " defines no value"));
    // high_precision: for the Buffer ops that take it; the others must say `default`.
    std::vector<kwarg> kws;
    if (property_of(*p, "precisionType") != nullptr) {
      const auto prec = enum_prop(o, *p, "precisionType", true);
      if (!prec) return;
      const bool hp_ok = (info(inv->op).keywords & kw_bit(keyword::high_precision)) != 0;
      if (*prec == "high_precision" && hp_ok) kws.push_back(kwarg{keyword::high_precision, operand::boolean(true)});
      else if (*prec != "default")
        return void(
            fail(o.loc, text(o.name) << ": precisionType " << *prec << " has no " << mnemonic(inv->op) << " counterpart"));
    }
    const std::string_view dst = "dst";
    switch (inv->kind) {
      case pto_read_kind::binary:
      case pto_read_kind::col_expand_arith: {
        if (!props_known(o, *p, {})) return;
        const auto a = buf("src0"), b = buf("src1"), c = buf(dst);
        if (a && b && c) emit(inv->op, {*a, *b, *c}, kws, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::unary: {
        // A tmp reads back only for an op whose record takes one (trsqrt's high-precision scratch).
        const bool takes_tmp = !info(inv->op).scratch.empty() && !group("tmp").empty();
        if (!props_known(o, *p, {{"reluPreMode", "no_relu"}}) || !absent({"fp", "preQuantScalar"}) ||
            (!takes_tmp && !absent({"tmp"})))
          return;
        const auto a = buf("src"), c = buf(dst);
        if (!a || !c) return;
        if (!takes_tmp) return void(emit(inv->op, {*a, *c}, kws, {}, {}, o.loc));
        if (const auto t = buf("tmp")) emit(inv->op, {*a, *c, *t}, kws, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::scalar: {
        if (!props_known(o, *p, {})) return;
        const auto a = buf("src"), s = scal(inv->op == opcode::buffer_lrelu ? "slope" : "scalar"), c = buf(dst);
        if (a && s && c) emit(inv->op, {*a, *s, *c}, kws, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::fill: {
        if (!props_known(o, *p, {})) return;
        const auto s = scal("scalar"), c = buf(dst);
        if (s && c) emit(inv->op, {*s, *c}, kws, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::row_reduction: {
        if (!props_known(o, *p, {})) return;
        if (group("tmp").empty())
          return void(fail(o.loc, text(o.name) << " without tmp: " << mnemonic(inv->op) << " always has its scratch"));
        const auto a = buf("src"), t = buf("tmp"), c = buf(dst);
        if (a && t && c) emit(inv->op, {*a, *t, *c}, kws, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::col_sum: {
        if (!props_known(o, *p, {})) return;
        const auto binary = o.prop("isBinary");
        if (!binary || group("tmp").empty())
          return void(fail(o.loc, "pto.tcolsum reads back into buffer.col_sum only with its tmp and isBinary = false"));
        if (*binary != "false")
          return void(fail(o.loc, text("pto.tcolsum isBinary = ")
                                      << *binary << " sums pairwise; buffer.col_sum sums row by row (isBinary = false)"));
        const auto a = buf("src"), t = buf("tmp"), c = buf(dst);
        if (a && t && c) emit(inv->op, {*a, *t, *c}, kws, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::col_reduction: {
        if (!props_known(o, *p, {})) return;
        const auto a = buf("src"), c = buf(dst);
        if (a && c) emit(inv->op, {*a, *c}, kws, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::cast: return read_cast(o, *p, group("tmp").empty());
      case pto_read_kind::row_expand_arith: {
        if (!props_known(o, *p, {}) || !absent({"tmp"})) return;
        const auto a = buf("src0"), blk = buf("src1"), c = buf(dst);
        if (a && blk && c) emit(inv->op, {*a, *blk, *c}, kws, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::alloc: {
        if (!props_known(o, *p, {})) return;
        const std::optional<type> t = result_type();
        if (!t) return;
        std::vector<arg> valid;
        for (const std::string_view n : {std::string_view("valid_row"), std::string_view("valid_col")})
          if (!group(n).empty()) {
            const auto v = scal(n);
            if (!v) return;
            valid.push_back(*v);
          }
        std::vector<arg> args{tuple_of(std::move(valid))};
        if (!group("addr").empty()) {
          const auto a = scal("addr");
          if (!a) return;
          args.push_back(*a);
        }
        emit_one(o, inv->op, args, *t);
        return;
      }
      case pto_read_kind::set_validshape: {
        const auto t = buf("source"), r = scal("valid_row"), c = scal("valid_col");
        if (t && r && c) emit(inv->op, {*t, tuple_of({*r, *c})}, {}, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::load:
      case pto_read_kind::store: {
        const bool load = inv->kind == pto_read_kind::load;
        if (!props_known(o, *p, {{"atomicType", "atomic_none"}, {"reluPreMode", "no_relu"}, {"stPhase", "unspecified"}}) ||
            !absent({"pad_value", "left_padding_num", "right_padding_num", "init_condition", "fp", "preQuantScalar"}))
          return;
        if (group(load ? "src" : "dst").empty()) return void(fail(o.loc, text(o.name) << " needs its partition view"));
        const std::size_t view_at = group(load ? "src" : "dst")[0];
        const entry* pv = lookup(o, view_at);
        if (pv == nullptr) return;
        if (pv->kind != entry_kind::partition)
          return void(fail(o.loc, text(o.name) << ": %" << o.operand_names[view_at] << " must be a pto.partition_view"));
        const auto tile = buf(load ? "dst" : "src");
        if (!tile) return;
        std::vector<arg> window;
        for (const std::size_t k : pv->window) {
          const entry& w = entries_[k];
          arg a;
          a.op = w.op;
          a.literal = w.kind == entry_kind::literal;
          a.lit_dt = w.lit_dt;
          a.bits = w.bits;
          window.push_back(a);
        }
        arg tensor;
        tensor.op = operand::of(pv->tensor);
        const arg offsets = tuple_of({window[0], window[1]}), extents = tuple_of({window[2], window[3]});
        if (load) emit(inv->op, {tensor, offsets, extents, *tile}, {}, {}, {}, o.loc);
        else emit(inv->op, {*tile, offsets, extents, tensor}, {}, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::subview: {
        const std::optional<type> t = result_type();
        const auto src = buf("source");
        if (!t || !src) return;
        const auto sizes = o.prop("sizes");
        text want("[");
        want << t->shape[0] << ", " << t->shape[1] << ']';
        if (!sizes || *sizes != want.view())
          return void(fail(o.loc, text("pto.subview's sizes must be the result's shape ") << want.view()));
        const auto& offs = group("offsets");
        if (offs.size() != 2) return void(fail(o.loc, "pto.subview takes two offsets"));
        const auto o0 = use(o, offs[0]), o1 = use(o, offs[1]);
        if (!o0 || !o1) return;
        std::vector<arg> args{*src, tuple_of({*o0, *o1})};
        if (group("valid_row").size() != group("valid_col").size())
          return void(fail(o.loc, "pto.subview takes both valid operands or neither"));
        if (!group("valid_row").empty()) {
          const auto r = scal("valid_row"), c = scal("valid_col");
          if (!r || !c) return;
          args.push_back(tuple_of({*r, *c}));
        }
        emit_one(o, inv->op, args, *t);
        return;
      }
      case pto_read_kind::reshape: {
        const std::optional<type> t = result_type();
        const auto src = buf("src");
        if (t && src) emit_one(o, inv->op, {*src}, *t);
        return;
      }
      case pto_read_kind::extract: {
        if (!props_known(o, *p, {{"reluPreMode", "no_relu"}}) || !absent({"fp", "preQuantScalar"})) return;
        const auto src = buf("src"), r = scal("indexRow"), c = scal("indexCol"), d2 = buf(dst);
        if (src && r && c && d2) emit(inv->op, {*src, *r, *c, *d2}, {}, {}, {}, o.loc);
        return;
      }
      case pto_read_kind::matmul:
      case pto_read_kind::matmul_acc: {
        if (!props_known(o, *p, {{"accPhase", "unspecified"}})) return;
        const auto l = buf("lhs"), r = buf("rhs"), c = buf(dst);
        if (!l || !r || !c) return;
        if (inv->kind == pto_read_kind::matmul_acc &&
            (group("acc_in").empty() || o.operand_names[group("acc_in")[0]] != o.operand_names[group(dst)[0]]))
          return void(fail(o.loc, "pto.tmatmul.acc reads back into buffer.matmul_acc only when acc_in is its dst"));
        emit(inv->op, {*l, *r, *c}, {}, {}, {}, o.loc);
        return;
      }
    }
  }
  /// `tcvt`: `rmode` is buffer.cast's `mode` (the same numbers); `sat_mode` must be what
  /// buffer.cast does for the pair (ir/cast.hpp: saturate float -> integer only).
  void read_cast(const generic_op& o, pto_op p, bool no_tmp) {
    if (!props_known(o, p, {}) || !no_tmp) {
      if (ok()) fail(o.loc, "pto.tcvt with tmp: buffer.cast has no scratch");
      return;
    }
    const auto src = use_buffer(o, 0), dst = use_buffer(o, 1);
    if (!src || !dst) return;
    const auto r = enum_prop(o, p, "rmode", true);
    const auto s = enum_prop(o, p, "sat_mode", false);
    if (!r) return;
    if (!s) return void(fail(o.loc, "pto.tcvt without sat_mode: PTOAS 0.60 reads OFF, 0.63 ON"));
    const auto mode = std::find(pto_round_mode_names.begin(), pto_round_mode_names.end(), *r);
    if (mode == pto_round_mode_names.end() || *mode == "CAST_RINT")
      return void(fail(o.loc, text("pto.tcvt rmode ") << *r << " is no buffer.cast mode (0 NONE .. 6 ODD)"));
    const dtype from = b_->fn().type_of(src->op.value()).dt, to = b_->fn().type_of(dst->op.value()).dt;
    if (*s != "ON" && *s != "OFF") return void(fail(o.loc, text("pto.tcvt sat_mode ") << *s << " is neither ON nor OFF"));
    if ((*s == "ON") != cast_saturates(from, to))
      return void(fail(o.loc, text("pto.tcvt ")
                                  << name(from) << " -> " << name(to) << " says sat_mode = " << *s << ", but buffer.cast "
                                  << (cast_saturates(from, to) ? "saturates" : "does not saturate")
                                  << " that pair (ir/cast.hpp)"));
    const std::vector<kwarg> kws{kwarg{keyword::mode, operand::integer(mode - pto_round_mode_names.begin())}};
    emit(opcode::buffer_cast, {*src, *dst}, kws, {}, {}, o.loc);
  }
  void tensor_view(const generic_op& o) {
    // Read with the parameters (tensor_of); here it names the parameter for partition_view.
    if (o.operand_names.empty() || o.results.size() != 1) return void(fail(o.loc, "pto.make_tensor_view views one pointer"));
    const entry* ptr = lookup(o, 0);
    if (ptr == nullptr) return;
    if (ptr->kind != entry_kind::value || !b_->fn().type_of(ptr->op.value()).is_tensor())
      return void(fail(o.loc, "pto.make_tensor_view of a non-tensor"));
    entry e;
    e.kind = entry_kind::tensor_view;
    e.tensor = ptr->op.value();
    e.mlir_type = o.result_types[0];
    define(o.results[0], e, o.loc);
  }
  void partition(const generic_op& o) {
    const auto sizes = group_sizes(o, pto_op::partition_view);
    if (!sizes) return;
    if ((*sizes)[1] != 2 || (*sizes)[2] != 2 || o.results.size() != 1)
      return void(fail(o.loc, "pto.partition_view takes two offsets and two sizes"));
    const entry* tv = lookup(o, 0);
    if (tv == nullptr) return;
    if (tv->kind != entry_kind::tensor_view) return void(fail(o.loc, "pto.partition_view of a non-tensor-view"));
    entry e;
    e.kind = entry_kind::partition;
    e.tensor = tv->tensor;
    e.mlir_type = o.result_types[0];
    for (std::size_t i = 0; i < 4; ++i) {
      const entry* w = lookup(o, 1 + i);
      if (w == nullptr) return;
      if (w->kind != entry_kind::value && w->kind != entry_kind::literal)
        return void(fail(o.loc, "pto.partition_view's offsets and sizes are scalars"));
      e.window[i] = env_.at(o.operand_names[1 + i]);
    }
    // The view type's static dims are constant sizes (a `?` may be any size, a constant too:
    // the emitter writes `?` for a size bound by a named constant).
    const type& t = b_->fn().type_of(tv->tensor);
    std::string_view pt = o.result_types[0];
    constexpr std::string_view head = "!pto.partition_tensor_view<";
    bool good = pt.substr(0, head.size()) == head && pt.back() == '>';
    if (good) pt = pt.substr(head.size(), pt.size() - head.size() - 1);
    for (std::size_t i = 2; i < 4 && good; ++i) {
      const std::size_t x = pt.find('x');
      good = x != std::string_view::npos;
      if (!good) break;
      const std::string_view dim = pt.substr(0, x);
      const entry& w = entries_[e.window[i]];
      good = dim == "?" || (w.kind == entry_kind::literal && pto_read_int(dim) == std::optional<std::int64_t>(w.op.num));
      pt.remove_prefix(x + 1);
    }
    if (!good || pto_read_dtype(pt) != std::optional<dtype>(t.dt))
      return void(fail(o.loc, text("pto.partition_view's type ")
                                  << o.result_types[0]
                                  << " must have the sizes' constants (or ?) and the tensor's element type"));
    define(o.results[0], e, o.loc);
  }

  std::string_view src_;
  std::string_view function_;  ///< the func.func being read (errors name it)
  target_arch target_ = target_arch::a2a3;
  function_builder* b_ = nullptr;
  std::unordered_map<std::string_view, std::size_t> env_;
  std::vector<entry> entries_;
  std::vector<std::string_view> cond_args_;
  std::vector<pto_read_literal> literals_;
  diagnostic error_{};
};

}  // namespace detail

/// Reads the generic-form PTO-AS of one module (as `emit_pto` with `generic = true` writes it)
/// back into Buffer IR; errors are located in `generic_text` (source "pto-read").
template <class = void>
result<pto_reading> read_pto(std::string_view generic_text) {
  return detail::pto_reader(generic_text).run();
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
result<pto_reading> read_pto(std::string_view generic_text);  // TILE2BUFFER_EXTERN_PIPELINE: run time only
}
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::read_pto;
#endif

}  // namespace v0
}  // namespace tile2buffer
