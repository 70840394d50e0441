// SPDX-License-Identifier: Apache-2.0
/// @file ir/opcode.hpp
/// The op catalogue: one opcode per mnemonic and one op record per opcode (ir/op_record.hpp):
/// named operands with their kinds, keywords, results, regions, traits and a one-line summary.
/// Parser, printer, verifier, passes, serializer and docs/ops.md all read these records; the
/// records are checked against the enum position by position when the table is built.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tile2buffer/ir/coverage.hpp"
#include "tile2buffer/ir/op_record.hpp"

namespace tile2buffer {
inline namespace v0 {

// clang-format off
enum class opcode : std::uint16_t {
  // scalar SSA
  scalar_const, scalar_add, scalar_sub, scalar_mul, scalar_floordiv, scalar_mod, scalar_min, scalar_max,
  scalar_lt, scalar_le, scalar_eq, scalar_ne, scalar_gt, scalar_ge, scalar_and, scalar_or, scalar_not, scalar_cast,
  // control flow (dialect-neutral)
  cf_if, cf_for, cf_while, cf_yield, cf_return,
  // orchestration
  orch_submit,
  // tile
  tile_alloc, tile_create, tile_full, tile_load, tile_store, tile_move, tile_reshape, tile_reinterpret_view,
  tile_transpose_view, tile_slice, tile_assemble, tile_set_validshape, tile_extract, tile_matmul, tile_matmul_acc,
  tile_add, tile_mul, tile_sub, tile_div, tile_maximum, tile_minimum,
  tile_abs, tile_exp, tile_sqrt, tile_neg, tile_relu, tile_log, tile_recip, tile_rsqrt,
  tile_adds, tile_subs, tile_muls, tile_divs, tile_maximums, tile_minimums, tile_lrelu,
  tile_row_sum, tile_row_max, tile_row_min, tile_col_sum, tile_col_max, tile_col_min,
  tile_cast,
  tile_row_expand, tile_row_expand_sub, tile_row_expand_div, tile_row_expand_mul,
  tile_col_expand, tile_col_expand_add, tile_col_expand_sub, tile_col_expand_mul, tile_col_expand_div, tile_col_expand_max, tile_col_expand_min, tile_col_expand_expdif,
  tile_get_block_idx, tile_get_block_num, tile_get_subblock_idx,
  // buffer
  buffer_alloc, buffer_set_validshape, buffer_load, buffer_store, buffer_copy, buffer_subview, buffer_reshape,
  buffer_extract, buffer_matmul, buffer_matmul_acc, buffer_full,
  buffer_add, buffer_mul, buffer_sub, buffer_div, buffer_maximum, buffer_minimum,
  buffer_abs, buffer_exp, buffer_sqrt, buffer_neg, buffer_relu, buffer_log, buffer_recip, buffer_rsqrt,
  buffer_adds, buffer_subs, buffer_muls, buffer_divs, buffer_maximums, buffer_minimums, buffer_lrelu,
  buffer_row_sum, buffer_row_max, buffer_row_min, buffer_col_sum, buffer_col_max, buffer_col_min,
  buffer_cast,
  buffer_row_expand, buffer_row_expand_sub, buffer_row_expand_div, buffer_row_expand_mul,
  buffer_col_expand, buffer_col_expand_add, buffer_col_expand_sub, buffer_col_expand_mul, buffer_col_expand_div, buffer_col_expand_max, buffer_col_expand_min, buffer_col_expand_expdif,
  buffer_get_block_idx, buffer_get_block_num, buffer_get_subblock_idx,
  count_
};
// clang-format on
inline constexpr std::size_t opcode_count = static_cast<std::size_t>(opcode::count_);

constexpr std::optional<keyword> parse_keyword(std::string_view s) {
  for (std::size_t i = 0; i < keyword_names.size(); ++i)
    if (keyword_names[i] == s) return static_cast<keyword>(i);
  return std::nullopt;
}

/// Compatibility name: the catalogue's rows are op records.
using op_info = op_record;

namespace detail {
using d = dialect;
using r = op_record;
using o = opcode;
using k = ew_kind;
using fam = op_family;
using res = result_rule;
inline constexpr std::uint16_t hp = kw_bit(keyword::high_precision);
inline constexpr auto store_kws = static_cast<std::uint16_t>(kw_bit(keyword::atomic) | kw_bit(keyword::st_phase) |
                                                             kw_bit(keyword::pre_quant) | kw_bit(keyword::pre_relu));

//===--- families of both stages: one line per member ---===//

/// One member of a family that exists in both stages, written once: its Tile record and its
/// Buffer twin are derived from it (`family_records`), their mnemonics `tile.` / `buffer.` +
/// `stem`, their summaries from `meaning` or from the combining op's meaning. Adding a member
/// of an existing family is an opcode of each stage and one of these lines.
struct member {
  op_family family;
  opcode tile, buffer;
  std::string_view stem;
  std::string_view native;        ///< the PTO op of the Buffer twin
  opcode combine = no_opcode;     ///< fused broadcasts: the Tile elementwise binary op they apply
  opcode then = no_opcode;        ///< fused broadcasts: a Tile elementwise unary op applied after
  ew_kind ew = ew_kind::none;     ///< elementwise members: their operand shape
  std::string_view meaning = {};  ///< elementwise members: the formula over `lhs`, `rhs`, `source`, `scalar`
  std::uint16_t keywords = 0;
  bool never_in_place = false;  ///< the result never shares storage with its source (recip)
  /// An optional scratch operand the native op clobbers (rsqrt's high-precision `tmp`): Tile
  /// `source tmp?`, Buffer `source dest tmp?` (the PTO op's generic order).
  std::string_view scratch = {};
};
// clang-format off
constexpr member ew_member(opcode t, opcode b, std::string_view stem, ew_kind ew, std::string_view native,
                           std::string_view meaning, std::uint16_t kws = 0, bool never_in_place = false,
                           std::string_view scratch = {}) {
  return {.family = fam::elementwise, .tile = t, .buffer = b, .stem = stem, .native = native, .ew = ew, .meaning = meaning,
          .keywords = kws, .never_in_place = never_in_place, .scratch = scratch};
}
constexpr member row_arith(opcode t, opcode b, std::string_view stem, opcode combine, std::string_view native) {
  return {.family = fam::row_broadcast_arith, .tile = t, .buffer = b, .stem = stem, .native = native, .combine = combine};
}
constexpr member col_arith(opcode t, opcode b, std::string_view stem, opcode combine, std::string_view native,
                           opcode then = no_opcode) {
  return {.family = fam::col_broadcast_arith, .tile = t, .buffer = b, .stem = stem, .native = native, .combine = combine,
          .then = then};
}

inline constexpr member family_members[] = {
    ew_member(o::tile_add, o::buffer_add, "add", k::binary, "pto.tadd", "lhs + rhs"),
    ew_member(o::tile_mul, o::buffer_mul, "mul", k::binary, "pto.tmul", "lhs * rhs"),
    ew_member(o::tile_sub, o::buffer_sub, "sub", k::binary, "pto.tsub", "lhs - rhs"),
    ew_member(o::tile_div, o::buffer_div, "div", k::binary, "pto.tdiv", "lhs / rhs", hp),
    ew_member(o::tile_maximum, o::buffer_maximum, "maximum", k::binary, "pto.tmax", "max(lhs, rhs)"),
    ew_member(o::tile_minimum, o::buffer_minimum, "minimum", k::binary, "pto.tmin", "min(lhs, rhs)"),
    ew_member(o::tile_abs, o::buffer_abs, "abs", k::unary, "pto.tabs", "abs(source)"),
    ew_member(o::tile_exp, o::buffer_exp, "exp", k::unary, "pto.texp", "e^source"),
    ew_member(o::tile_sqrt, o::buffer_sqrt, "sqrt", k::unary, "pto.tsqrt", "sqrt(source)"),
    ew_member(o::tile_neg, o::buffer_neg, "neg", k::unary, "pto.tneg", "-source"),
    ew_member(o::tile_relu, o::buffer_relu, "relu", k::unary, "pto.trelu", "max(source, 0)"),
    ew_member(o::tile_log, o::buffer_log, "log", k::unary, "pto.tlog", "ln(source)", hp),
    ew_member(o::tile_recip, o::buffer_recip, "recip", k::unary, "pto.trecip", "1 / source, never in its source's storage", hp, true),
    ew_member(o::tile_rsqrt, o::buffer_rsqrt, "rsqrt", k::unary, "pto.trsqrt", "1 / sqrt(source)", hp, false, "tmp"),
    ew_member(o::tile_adds, o::buffer_adds, "adds", k::scalar_form, "pto.tadds", "source + scalar"),
    ew_member(o::tile_subs, o::buffer_subs, "subs", k::scalar_form, "pto.tsubs", "source - scalar"),
    ew_member(o::tile_muls, o::buffer_muls, "muls", k::scalar_form, "pto.tmuls", "source * scalar"),
    ew_member(o::tile_divs, o::buffer_divs, "divs", k::scalar_form, "pto.tdivs", "source / scalar"),
    ew_member(o::tile_maximums, o::buffer_maximums, "maximums", k::scalar_form, "pto.tmaxs", "max(source, scalar)"),
    ew_member(o::tile_minimums, o::buffer_minimums, "minimums", k::scalar_form, "pto.tmins", "min(source, scalar)"),
    ew_member(o::tile_lrelu, o::buffer_lrelu, "lrelu", k::scalar_form, "pto.tlrelu", "source, times scalar where negative"),
    row_arith(o::tile_row_expand_sub, o::buffer_row_expand_sub, "row_expand_sub", o::tile_sub, "pto.trowexpandsub"),
    row_arith(o::tile_row_expand_div, o::buffer_row_expand_div, "row_expand_div", o::tile_div, "pto.trowexpanddiv"),
    row_arith(o::tile_row_expand_mul, o::buffer_row_expand_mul, "row_expand_mul", o::tile_mul, "pto.trowexpandmul"),
    col_arith(o::tile_col_expand_add, o::buffer_col_expand_add, "col_expand_add", o::tile_add, "pto.tcolexpandadd"),
    col_arith(o::tile_col_expand_sub, o::buffer_col_expand_sub, "col_expand_sub", o::tile_sub, "pto.tcolexpandsub"),
    col_arith(o::tile_col_expand_mul, o::buffer_col_expand_mul, "col_expand_mul", o::tile_mul, "pto.tcolexpandmul"),
    col_arith(o::tile_col_expand_div, o::buffer_col_expand_div, "col_expand_div", o::tile_div, "pto.tcolexpanddiv"),
    col_arith(o::tile_col_expand_max, o::buffer_col_expand_max, "col_expand_max", o::tile_maximum, "pto.tcolexpandmax"),
    col_arith(o::tile_col_expand_min, o::buffer_col_expand_min, "col_expand_min", o::tile_minimum, "pto.tcolexpandmin"),
    col_arith(o::tile_col_expand_expdif, o::buffer_col_expand_expdif, "col_expand_expdif", o::tile_sub, "pto.tcolexpandexpdif", o::tile_exp),
};
// clang-format on
inline constexpr std::size_t member_count = sizeof(family_members) / sizeof(family_members[0]);

/// Where the strings the members' records derive (mnemonics, summaries) are written: counted
/// first (`out` null), then written into an array of exactly that size the records' string_views
/// point into. Why two passes and no slack: g++ keeps every element of a constant-evaluated
/// array, so an oversized buffer costs compiler memory in every TU that includes the records.
struct string_sink {
  char* out = nullptr;
  std::size_t used = 0;
  constexpr void put(std::string_view text) {
    if (out != nullptr)
      for (const char c : text) out[used++] = c;
    else used += text.size();
  }
};
struct string_span {
  std::size_t at = 0, size = 0;
};
constexpr bool word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
/// `text` with each whole word `from[i]` replaced by `to[i]`.
// Why arrays and not std::span: <span> is about 15 MB of compiler memory in a header every TU
// includes (docs/performance-history.md).
template <std::size_t N>
constexpr void put_substituted(string_sink& s, std::string_view text, const std::array<std::string_view, N>& from,
                               const std::array<std::string_view, N>& to) {
  std::size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    if (i == 0 || !word_char(text[i - 1]))
      for (std::size_t w = 0; w < from.size() && !replaced; ++w) {
        const std::string_view f = from[w];
        const std::size_t end = i + f.size();
        if (text.substr(i, f.size()) == f && (end == text.size() || !word_char(text[end]))) {
          s.put(to[w]);
          i = end;
          replaced = true;
        }
      }
    if (!replaced) s.put(text.substr(i++, 1));
  }
}
constexpr std::string_view meaning_of(opcode tile_op) {
  for (const member& m : family_members)
    if (m.tile == tile_op) return m.meaning;
  return {};
}
/// A fused broadcast's formula: the combining op's over `source[i, j]` and `vector`, inside
/// `then`'s when given (`e^(source[i, j] - vector[0, j])`: its `source` word wraps the former).
constexpr void put_fused(string_sink& s, const member& m, std::string_view vector) {
  const std::array<std::string_view, 2> from{"lhs", "rhs"};
  const std::array<std::string_view, 2> to{"source[i, j]", vector};
  if (m.then == no_opcode) return put_substituted(s, meaning_of(m.combine), from, to);
  const std::string_view outer = meaning_of(m.then);
  const std::size_t at = outer.find("source");
  s.put(outer.substr(0, at));
  s.put("(");
  put_substituted(s, meaning_of(m.combine), from, to);
  s.put(")");
  s.put(outer.substr(at + 6));
}
/// Every member's four strings (Tile mnemonic, Buffer mnemonic, Tile summary, Buffer summary)
/// into `s`, their spans into `spans` when given.
constexpr void put_member_strings(string_sink& s, std::array<std::array<string_span, 4>, member_count>* spans) {
  for (std::size_t i = 0; i < member_count; ++i) {
    const member& m = family_members[i];
    const auto piece = [&](std::size_t k, auto&& write) {
      const std::size_t at = s.used;
      write();
      if (spans != nullptr) (*spans)[i][k] = {at, s.used - at};
    };
    piece(0, [&] { s.put("tile."), s.put(m.stem); });
    piece(1, [&] { s.put("buffer."), s.put(m.stem); });
    const bool row = m.family == fam::row_broadcast_arith;
    piece(2, [&] {
      if (m.family == fam::elementwise) s.put(m.meaning);
      else put_fused(s, m, row ? "vector[i]" : "vector[0, j]");
    });
    piece(3, [&] {
      if (m.family == fam::elementwise) {
        s.put("dest = "), s.put(m.meaning);
      } else {
        s.put("dest[i, j] = "), put_fused(s, m, row ? "blk[i, 0]" : "vector[0, j]");
      }
    });
  }
}
inline constexpr std::size_t member_chars = [] {
  string_sink count;
  put_member_strings(count, nullptr);
  return count.used;
}();
struct derived_strings {
  std::array<char, member_chars> chars{};
  std::array<std::array<string_span, 4>, member_count> of{};
};
inline constexpr derived_strings member_strings = [] {
  derived_strings d;
  string_sink s{d.chars.data()};
  put_member_strings(s, &d.of);
  return d;
}();
constexpr std::string_view member_string(std::size_t i, std::size_t k) {
  const string_span p = member_strings.of[i][k];
  return std::string_view(member_strings.chars.data() + p.at, p.size);
}

/// A member's two records: the family's operand shape, traits and scratch at each stage.
inline void op_record_family_has_no_two_stage_members() {}
constexpr std::array<op_record, 2> member_records(std::size_t i) {
  const member& m = family_members[i];
  r t{.code = m.tile,
      .mnemonic = member_string(i, 0),
      .dia = d::tile,
      .operands = {},
      .keywords = m.keywords,
      .summary = member_string(i, 2),
      .family = m.family,
      .combine = m.combine,
      .then = m.then,
      .native = m.native,
      .result = res::same_as};  // an operand's type: which one is the family's (below)
  r b{.code = m.buffer,
      .mnemonic = member_string(i, 1),
      .dia = d::buffer,
      .operands = {},
      .keywords = m.keywords,
      .results = arity::none,
      .writes = "dest",
      .summary = member_string(i, 3),
      .family = m.family,
      .combine = m.combine,
      .then = m.then,
      .native = m.native,
      .result = res::none};
  switch (m.family) {
    case fam::elementwise:
      // A Buffer elementwise op writes `dest`, which may be exactly one of its inputs' windows
      // (in place) or disjoint from it, never partially overlapping.
      t.operands = m.ew == k::binary  ? "lhs:v rhs:v"
                   : m.ew == k::unary ? (m.scratch.empty() ? "source:v" : "source:v tmp:v?")
                                      : "source:v scalar:s";
      b.operands = m.ew == k::binary  ? "lhs:v rhs:v dest:v"
                   : m.ew == k::unary ? (m.scratch.empty() ? "source:v dest:v" : "source:v dest:v tmp:v?")
                                      : "source:v scalar:s dest:v";
      t.scratch = b.scratch = m.scratch;
      t.ew = b.ew = m.ew;
      t.traits = trait::moves_valid_data;
      b.traits = m.never_in_place ? trait::none : trait::may_alias_exactly;
      t.disjoint_from = m.never_in_place ? "source" : "";
      b.disjoint_from = m.ew == k::binary ? "lhs rhs" : "source";
      t.result_like = m.ew == k::binary ? "lhs" : "source";
      break;
    case fam::row_broadcast_arith:
      // `source[i, j] op vector[i]` for an [R, 1] column `vector`; `blk` is the [R, 32 / esize]
      // block the native mode-2 instruction reads the per-row value from (optional on Tile,
      // where MaterializeNativeScratch supplies it).
      t.operands = "source:v vector:v blk:v?";
      b.operands = "source:v blk:v dest:v";
      t.traits = trait::moves_valid_data | trait::may_alias_exactly;
      b.traits = trait::may_alias_exactly;
      t.disjoint_from = "source vector";
      b.disjoint_from = "source";
      t.scratch = b.scratch = "blk";
      t.result_like = "source";
      break;
    case fam::col_broadcast_arith:
      // `source[i, j] op vector[0, j]` for a [1, C] row `vector`; no scratch. The result may be
      // its source's storage, never the vector's.
      t.operands = "source:v vector:v";
      b.operands = "source:v vector:v dest:v";
      t.traits = trait::moves_valid_data | trait::may_alias_exactly;
      b.traits = trait::may_alias_exactly;
      t.disjoint_from = b.disjoint_from = "source vector";
      t.result_like = "source";
      break;
    case fam::single:
    case fam::scalar_arith:
    case fam::scalar_compare:
    case fam::scalar_logic:
    case fam::control:
    case fam::row_reduction:
    case fam::col_reduction:
    case fam::row_broadcast:
    case fam::col_broadcast:
    case fam::cast:
    case fam::spmd_query: op_record_family_has_no_two_stage_members();
  }
  return {t, b};
}

//===--- every other op: families of one stage, and ops of their own ---===//

// clang-format off
constexpr r scalar_binary(opcode c, std::string_view m, scalar_fn fn, std::string_view infix, std::string_view summary,
                          op_family f = fam::scalar_arith) {
  return {.code = c, .mnemonic = m, .dia = d::scalar, .operands = "lhs:s rhs:s",
          .traits = f == fam::scalar_compare ? trait::comparison : trait::none, .infix = infix, .summary = summary, .family = f,
          .result = f == fam::scalar_arith ? res::same_as : res::boolean, .result_like = f == fam::scalar_arith ? "lhs" : "",
          .fn = fn};
}
/// Row reductions (extended rollout): the source's valid [r, c] folded per row by `combine` into
/// an [R, 1] column vector; `tmp` is the native instruction's scratch (optional on Tile, where
/// the MaterializeNativeScratch pass supplies it). The result never shares storage with either.
constexpr r tile_row_reduction(opcode c, std::string_view m, opcode combine, std::string_view native, std::string_view summary) {
  return {.code = c, .mnemonic = m, .dia = d::tile, .operands = "source:v tmp:v?", .traits = trait::moves_valid_data,
          .disjoint_from = "source tmp", .extent_of = "source", .scratch = "tmp", .summary = summary,
          .family = fam::row_reduction, .combine = combine, .native = native, .result = res::column_of};
}
constexpr r buffer_row_reduction(opcode c, std::string_view m, opcode combine, std::string_view native, std::string_view summary) {
  return {.code = c, .mnemonic = m, .dia = d::buffer, .operands = "source:v tmp:v dest:v", .results = arity::none,
          .writes = "dest", .disjoint_from = "source tmp", .scratch = "tmp", .summary = summary,
          .family = fam::row_reduction, .combine = combine, .native = native, .result = res::none};
}
/// Column reductions (extended rollout §3.2): the source's valid [r, c] folded per column into a
/// [1, C] row; only col_sum's native form takes a scratch `tmp`.
constexpr r tile_col_reduction(opcode c, std::string_view m, opcode combine, std::string_view native, std::string_view summary,
                               bool scratch) {
  return {.code = c, .mnemonic = m, .dia = d::tile, .operands = scratch ? "source:v tmp:v?" : "source:v",
          .traits = trait::moves_valid_data, .disjoint_from = scratch ? "source tmp" : "source", .extent_of = "source",
          .scratch = scratch ? "tmp" : "", .summary = summary, .family = fam::col_reduction, .combine = combine, .native = native,
          .result = res::row_of};
}
constexpr r buffer_col_reduction(opcode c, std::string_view m, opcode combine, std::string_view native, std::string_view summary,
                                 bool scratch) {
  return {.code = c, .mnemonic = m, .dia = d::buffer, .operands = scratch ? "source:v tmp:v dest:v" : "source:v dest:v",
          .results = arity::none, .writes = "dest", .disjoint_from = scratch ? "source tmp" : "source",
          .scratch = scratch ? "tmp" : "", .summary = summary, .family = fam::col_reduction, .combine = combine, .native = native,
          .result = res::none};
}
constexpr r spmd(opcode c, std::string_view m, dialect dia, std::string_view summary) {
  return {.code = c, .mnemonic = m, .dia = dia, .operands = "", .traits = trait::spmd_query, .summary = summary,
          .family = fam::spmd_query, .result = res::index};
}

inline constexpr op_record single_records[] = {
    {.code = o::scalar_const, .mnemonic = "scalar.const", .dia = d::scalar, .operands = "value:s", .summary = "the literal `value`", .result = res::declared},
    scalar_binary(o::scalar_add, "scalar.add", scalar_fn::add, "+", "lhs + rhs"),
    scalar_binary(o::scalar_sub, "scalar.sub", scalar_fn::sub, "-", "lhs - rhs"),
    scalar_binary(o::scalar_mul, "scalar.mul", scalar_fn::mul, "*", "lhs * rhs"),
    scalar_binary(o::scalar_floordiv, "scalar.floordiv", scalar_fn::floordiv, "//", "lhs divided by rhs, rounded toward negative infinity"),
    scalar_binary(o::scalar_mod, "scalar.mod", scalar_fn::mod, "%", "lhs modulo rhs, with the sign of rhs"),
    scalar_binary(o::scalar_min, "min", scalar_fn::min, {}, "the smaller of lhs and rhs"),
    scalar_binary(o::scalar_max, "max", scalar_fn::max, {}, "the larger of lhs and rhs"),
    scalar_binary(o::scalar_lt, "scalar.lt", scalar_fn::lt, "<", "lhs < rhs", fam::scalar_compare),
    scalar_binary(o::scalar_le, "scalar.le", scalar_fn::le, "<=", "lhs <= rhs", fam::scalar_compare),
    scalar_binary(o::scalar_eq, "scalar.eq", scalar_fn::eq, "==", "lhs == rhs", fam::scalar_compare),
    scalar_binary(o::scalar_ne, "scalar.ne", scalar_fn::ne, "!=", "lhs != rhs", fam::scalar_compare),
    scalar_binary(o::scalar_gt, "scalar.gt", scalar_fn::gt, ">", "lhs > rhs", fam::scalar_compare),
    scalar_binary(o::scalar_ge, "scalar.ge", scalar_fn::ge, ">=", "lhs >= rhs", fam::scalar_compare),
    scalar_binary(o::scalar_and, "scalar.and", scalar_fn::logical_and, "and", "logical and of two BOOLs", fam::scalar_logic),
    scalar_binary(o::scalar_or, "scalar.or", scalar_fn::logical_or, "or", "logical or of two BOOLs", fam::scalar_logic),
    {.code = o::scalar_not, .mnemonic = "not", .dia = d::scalar, .operands = "arg:s", .summary = "logical not of a BOOL",
     .family = fam::scalar_logic, .result = res::boolean, .fn = scalar_fn::logical_not},
    {.code = o::scalar_cast, .mnemonic = "cast", .dia = d::scalar, .operands = "value:s to:d", .summary = "`value` converted to dtype `to`", .result = res::to_dtype},
    {.code = o::cf_if, .mnemonic = "if", .dia = d::control, .operands = "cond:s", .results = arity::variadic, .regions = 2,
     .summary = "runs the then region when `cond` holds, else the else region; results are what the arm yields",
     .family = fam::control, .result = res::none},
    {.code = o::cf_for, .mnemonic = "for", .dia = d::control, .operands = "start:s stop:s step:s inits:s*",
     .results = arity::variadic, .regions = 1, .traits = trait::loop,
     .summary = "runs its body for start <= i < stop by step, carrying `inits` through each iteration's yield",
     .family = fam::control, .result = res::none},
    {.code = o::cf_while, .mnemonic = "while", .dia = d::control, .operands = "inits:s*", .results = arity::variadic,
     .regions = 2, .traits = trait::loop | trait::condition_region,
     .summary = "runs its body while the condition region yields true, carrying `inits`",
     .family = fam::control, .result = res::none},
    {.code = o::cf_yield, .mnemonic = "yield", .dia = d::control, .operands = "values:s*", .results = arity::none,
     .traits = trait::terminator, .summary = "ends a region, passing `values` to its owner",
     .family = fam::control, .result = res::none},
    {.code = o::cf_return, .mnemonic = "return", .dia = d::control, .operands = "values:s*", .results = arity::none,
     .traits = trait::terminator | trait::exits_function, .summary = "ends the function, returning `values`",
     .family = fam::control, .result = res::none},
    {.code = o::orch_submit, .mnemonic = "submit", .dia = d::orchestration, .operands = "callee:f call_args:t deps:t",
     .traits = trait::side_effects, .summary = "submits a task running `callee` on `call_args` after `deps`; the result is the task"},
    {.code = o::tile_alloc, .mnemonic = "tile.alloc", .dia = d::tile, .operands = "space:m capacity:s",
     .keywords = kw_bit(keyword::addr), .traits = trait::allocates,
     .summary = "planned storage of `capacity` bytes in `space`, at `addr` when placed"},
    {.code = o::tile_create, .mnemonic = "tile.create", .dia = d::tile, .operands = "",
     .summary = "a tile of its result type whose contents are undefined"},
    {.code = o::tile_full, .mnemonic = "tile.full", .dia = d::tile, .operands = "value:s", .ew = k::fill,
     .traits = trait::moves_valid_data, .summary = "a tile with every valid element `value`",
     .family = fam::elementwise, .native = "pto.texpands"},
    {.code = o::tile_load, .mnemonic = "tile.load", .dia = d::tile, .operands = "tensor:v offsets:p shape:p valid:p?",
     .keywords = kw_bit(keyword::cache), .traits = trait::moves_valid_data,
     .summary = "the `shape` window of GM `tensor` at `offsets`, `valid` extents read", .result = res::load_window},
    {.code = o::tile_store, .mnemonic = "tile.store", .dia = d::tile, .operands = "tile:v offsets:p tensor:v",
     .keywords = store_kws, .traits = trait::moves_valid_data | trait::side_effects, .writes = "tensor", .extent_of = "tile",
     .summary = "writes `tile`'s valid elements into GM `tensor` at `offsets`; the result is the tensor", .result = res::same_as, .result_like = "tensor"},
    {.code = o::tile_move, .mnemonic = "tile.move", .dia = d::tile, .operands = "source:v",
     .traits = trait::moves_valid_data | trait::may_alias_exactly, .disjoint_from = "source",
     .summary = "a copy of `source` in the result's storage (a layout or memory-space change)"},
    {.code = o::tile_reshape, .mnemonic = "tile.reshape", .dia = d::tile, .operands = "source:v shape:p",
     .traits = trait::relabel, .in_place_of = "source", .summary = "`source`'s bytes seen with row-major shape `shape`"},
    {.code = o::tile_reinterpret_view, .mnemonic = "tile.reinterpret_view", .dia = d::tile, .operands = "source:v",
     .traits = trait::relabel, .in_place_of = "source", .summary = "`source`'s bytes seen as the result type"},
    {.code = o::tile_transpose_view, .mnemonic = "tile.transpose_view", .dia = d::tile, .operands = "source:v",
     .traits = trait::relabel, .in_place_of = "source", .summary = "`source` seen transposed (its layout swaps)"},
    {.code = o::tile_slice, .mnemonic = "tile.slice", .dia = d::tile, .operands = "source:v shape:p offsets:p valid:p?",
     .traits = trait::window, .in_place_of = "source", .summary = "the `shape` window of `source` at `offsets`", .result = res::window},
    {.code = o::tile_assemble, .mnemonic = "tile.assemble", .dia = d::tile, .operands = "target:v source:v offsets:p",
     .in_place_of = "target", .writes = "target", .summary = "`target` with `source` written at `offsets`", .result = res::same_as, .result_like = "target"},
    {.code = o::tile_set_validshape, .mnemonic = "tile.set_validshape", .dia = d::tile, .operands = "tile:v rows:s cols:s",
     .traits = trait::relabel, .in_place_of = "tile", .summary = "`tile` with valid extents `rows` x `cols`"},
    {.code = o::tile_extract, .mnemonic = "tile.extract", .dia = d::tile, .operands = "source:v row:s col:s",
     .summary = "the scalar element of `source` at (`row`, `col`)"},
    {.code = o::tile_matmul, .mnemonic = "tile.matmul", .dia = d::tile, .operands = "lhs:v rhs:v",
     .summary = "the matrix product lhs x rhs", .result = res::matrix_product},
    {.code = o::tile_matmul_acc, .mnemonic = "tile.matmul_acc", .dia = d::tile, .operands = "acc:v lhs:v rhs:v",
     .keywords = kw_bit(keyword::init_cond), .in_place_of = "acc", .writes = "acc",
     .summary = "acc + lhs x rhs in `acc`'s storage (lhs x rhs alone when `init_cond` holds)", .result = res::same_as, .result_like = "acc"},
    tile_row_reduction(o::tile_row_sum, "tile.row_sum", o::tile_add, "pto.trowsum", "each row's sum over its valid columns, as a column vector"),
    tile_row_reduction(o::tile_row_max, "tile.row_max", o::tile_maximum, "pto.trowmax", "each row's maximum over its valid columns, as a column vector"),
    tile_row_reduction(o::tile_row_min, "tile.row_min", o::tile_minimum, "pto.trowmin", "each row's minimum over its valid columns, as a column vector"),
    tile_col_reduction(o::tile_col_sum, "tile.col_sum", o::tile_add, "pto.tcolsum", "each column's sum over its valid rows, top to bottom, as a row", true),
    tile_col_reduction(o::tile_col_max, "tile.col_max", o::tile_maximum, "pto.tcolmax", "each column's maximum over its valid rows, as a row", false),
    tile_col_reduction(o::tile_col_min, "tile.col_min", o::tile_minimum, "pto.tcolmin", "each column's minimum over its valid rows, as a row", false),
    {.code = o::tile_cast, .mnemonic = "tile.cast", .dia = d::tile, .operands = "source:v to:d", .keywords = kw_bit(keyword::mode),
     .traits = trait::moves_valid_data, .disjoint_from = "source",
     .summary = "`source` converted to dtype `to`, rounded by `mode` (the ISA's enumeration; 1, nearest-even, by default)",
     .family = fam::cast, .result = res::converted},
    {.code = o::tile_row_expand, .mnemonic = "tile.row_expand", .dia = d::tile, .operands = "source:v",
     .traits = trait::moves_valid_data, .disjoint_from = "source",
     .summary = "the [R, 1] column `source` broadcast along each row of the result type",
     .family = fam::row_broadcast, .native = "pto.trowexpand"},
    {.code = o::tile_col_expand, .mnemonic = "tile.col_expand", .dia = d::tile, .operands = "source:v",
     .traits = trait::moves_valid_data, .disjoint_from = "source",
     .summary = "the [1, C] row `source` broadcast down each column of the result type",
     .family = fam::col_broadcast, .native = "pto.tcolexpand"},
    spmd(o::tile_get_block_idx, "tile.get_block_idx", d::tile, "this block's index in the launch"),
    spmd(o::tile_get_block_num, "tile.get_block_num", d::tile, "the launch's block count"),
    spmd(o::tile_get_subblock_idx, "tile.get_subblock_idx", d::tile, "this subblock's index in its block"),
    {.code = o::buffer_alloc, .mnemonic = "buffer.alloc", .dia = d::buffer, .operands = "init_valid:t address:s?",
     .traits = trait::allocates, .summary = "a handle of fresh storage with valid extents `init_valid`, at `address` when placed"},
    {.code = o::buffer_set_validshape, .mnemonic = "buffer.set_validshape", .dia = d::buffer, .operands = "buffer:v valid:p",
     .results = arity::none, .summary = "sets the runtime valid extents of the handle `buffer`", .result = res::none},
    {.code = o::buffer_load, .mnemonic = "buffer.load", .dia = d::buffer, .operands = "tensor:v offsets:p valid:p dest:v",
     .results = arity::none, .writes = "dest", .summary = "copies the `valid` window of GM `tensor` at `offsets` into `dest`", .result = res::none},
    {.code = o::buffer_store, .mnemonic = "buffer.store", .dia = d::buffer, .operands = "source:v offsets:p valid:p tensor:v",
     .results = arity::none, .traits = trait::side_effects, .writes = "tensor",
     .summary = "copies `source`'s `valid` window into GM `tensor` at `offsets`", .result = res::none},
    {.code = o::buffer_copy, .mnemonic = "buffer.copy", .dia = d::buffer, .operands = "source:v dest:v", .results = arity::none,
     .traits = trait::may_alias_exactly, .writes = "dest", .disjoint_from = "source",
     .summary = "copies `source`'s valid elements into `dest`", .result = res::none},
    {.code = o::buffer_subview, .mnemonic = "buffer.subview", .dia = d::buffer, .operands = "source:v offsets:p valid:p?",
     .traits = trait::window, .in_place_of = "source", .summary = "the handle of `source`'s window at `offsets`"},
    {.code = o::buffer_reshape, .mnemonic = "buffer.reshape", .dia = d::buffer, .operands = "source:v",
     .traits = trait::relabel, .in_place_of = "source", .summary = "`source`'s bytes under the result's descriptor"},
    {.code = o::buffer_extract, .mnemonic = "buffer.extract", .dia = d::buffer, .operands = "source:v row:s col:s dest:v",
     .results = arity::none, .writes = "dest", .disjoint_from = "source",
     .summary = "copies the window of `source` at (`row`, `col`) into `dest`", .result = res::none},
    {.code = o::buffer_matmul, .mnemonic = "buffer.matmul", .dia = d::buffer, .operands = "lhs:v rhs:v dest:v",
     .results = arity::none, .writes = "dest", .summary = "dest = lhs x rhs", .result = res::none},
    {.code = o::buffer_matmul_acc, .mnemonic = "buffer.matmul_acc", .dia = d::buffer, .operands = "lhs:v rhs:v dest:v",
     .results = arity::none, .writes = "dest", .summary = "dest += lhs x rhs", .result = res::none},
    {.code = o::buffer_full, .mnemonic = "buffer.full", .dia = d::buffer, .operands = "value:s dest:v", .results = arity::none,
     .ew = k::fill, .writes = "dest", .summary = "sets every valid element of `dest` to `value`", .family = fam::elementwise, .native = "pto.texpands", .result = res::none},
    buffer_row_reduction(o::buffer_row_sum, "buffer.row_sum", o::tile_add, "pto.trowsum", "dest[i, 0] = the sum of source's row i; clobbers tmp"),
    buffer_row_reduction(o::buffer_row_max, "buffer.row_max", o::tile_maximum, "pto.trowmax", "dest[i, 0] = the maximum of source's row i; clobbers tmp"),
    buffer_row_reduction(o::buffer_row_min, "buffer.row_min", o::tile_minimum, "pto.trowmin", "dest[i, 0] = the minimum of source's row i; clobbers tmp"),
    buffer_col_reduction(o::buffer_col_sum, "buffer.col_sum", o::tile_add, "pto.tcolsum", "dest[0, j] = the sum of source's column j, row by row; clobbers tmp", true),
    buffer_col_reduction(o::buffer_col_max, "buffer.col_max", o::tile_maximum, "pto.tcolmax", "dest[0, j] = the maximum of source's column j", false),
    buffer_col_reduction(o::buffer_col_min, "buffer.col_min", o::tile_minimum, "pto.tcolmin", "dest[0, j] = the minimum of source's column j", false),
    {.code = o::buffer_cast, .mnemonic = "buffer.cast", .dia = d::buffer, .operands = "source:v dest:v",
     .keywords = kw_bit(keyword::mode), .results = arity::none, .writes = "dest", .disjoint_from = "source",
     .summary = "dest = source converted to dest's dtype, rounded by `mode`", .family = fam::cast, .result = res::none},
    {.code = o::buffer_row_expand, .mnemonic = "buffer.row_expand", .dia = d::buffer, .operands = "source:v dest:v",
     .results = arity::none, .writes = "dest", .disjoint_from = "source",
     .summary = "dest[i, j] = source[i, 0] over dest's valid extents (an [R, 1] column broadcast along rows)",
     .family = fam::row_broadcast, .native = "pto.trowexpand", .result = res::none},
    {.code = o::buffer_col_expand, .mnemonic = "buffer.col_expand", .dia = d::buffer, .operands = "source:v dest:v",
     .results = arity::none, .writes = "dest", .disjoint_from = "source",
     .summary = "dest[i, j] = source[0, j] over dest's valid extents (a [1, C] row broadcast down columns)",
     .family = fam::col_broadcast, .native = "pto.tcolexpand", .result = res::none},
    spmd(o::buffer_get_block_idx, "buffer.get_block_idx", d::buffer, "this block's index in the launch"),
    spmd(o::buffer_get_block_num, "buffer.get_block_num", d::buffer, "the launch's block count"),
    spmd(o::buffer_get_subblock_idx, "buffer.get_subblock_idx", d::buffer, "this subblock's index in its block"),
};
// clang-format on
inline constexpr std::size_t single_count = sizeof(single_records) / sizeof(single_records[0]);

inline void op_record_missing_or_twice_for_an_opcode() {}
/// The records placed at their opcodes' positions: every opcode has exactly one record, from
/// `single_records` or a member of `family_members` (ir/coverage.hpp), and each is checked.
consteval std::array<op_record, opcode_count> place_records() {
  std::array<op_record, single_count + 2 * member_count> all{};
  std::size_t n = 0;
  for (const op_record& rec : single_records) all[n++] = rec;
  for (std::size_t i = 0; i < member_count; ++i)
    for (const op_record& rec : member_records(i)) all[n++] = rec;
  const coverage_gap gap = first_coverage_gap<opcode_count>(
      all, [](const op_record& rec) { return static_cast<std::size_t>(rec.code); },
      [](std::size_t) { return entries::exactly_one; });
  if (gap.key != opcode_count) op_record_missing_or_twice_for_an_opcode();
  std::array<op_record, opcode_count> table{};
  for (const op_record& rec : all) table[static_cast<std::size_t>(rec.code)] = rec;
  return checked_records(table);
}
inline constexpr std::array<op_record, opcode_count> op_table = place_records();
}  // namespace detail

constexpr const op_info& info(opcode c) { return detail::op_table[static_cast<std::size_t>(c)]; }
constexpr std::string_view mnemonic(opcode c) { return info(c).mnemonic; }
constexpr dialect dialect_of(opcode c) { return info(c).dia; }
/// Regions an op owns: `if` its then and else arms (an `if` without `else` has an empty else
/// region), `for` its body, `while` its condition and body, every other op none. The one
/// definition the verifier, the builder's users and the binary reader agree on.
constexpr std::uint32_t region_count(opcode c) { return info(c).regions; }
/// Whether the record of `c` states trait `t`.
constexpr bool has_trait(opcode c, trait t) { return info(c).has(t); }

namespace detail {
/// An op's positional operands decoded from its catalogue signature, once per opcode: the parser
/// and the verifier read operand kinds per position from here instead of rescanning the text.
struct signature {
  std::array<char, 8> letters{};  ///< operand kind per position (see `op_info`)
  std::uint8_t size = 0;          ///< positions listed in `letters`
  std::uint8_t min = 0;           ///< required positional operands
  bool variadic = false;          ///< `*`: any number of further scalars
  [[nodiscard]] constexpr char at(std::size_t i) const { return i < size ? letters[i] : 's'; }
  [[nodiscard]] constexpr bool accepts(std::size_t n) const { return n >= min && (variadic || n <= size); }
};
constexpr signature decode_signature(std::string_view s) {
  signature sig;
  for (const char c : s) {
    if (c == '?') {
      sig.min = static_cast<std::uint8_t>(sig.min - 1);
    } else if (c == '*') {
      sig.variadic = true;
    } else {
      sig.letters[sig.size++] = c;
      ++sig.min;
    }
  }
  return sig;
}
/// Each record's operands split by position, once (see `operand_list`).
inline constexpr auto operand_lists = [] {
  std::array<operand_list, opcode_count> out{};
  for (std::size_t i = 0; i < opcode_count; ++i) out[i] = split_operands(op_table[i].operands);
  return out;
}();
/// The signature of split operands: each kind's letters in order (`tensor:v valid:p?` gives
/// `vp?`), read by `decode_signature`; a kind ending in `*` is the variadic rest (any number of
/// scalars or values), which `decode_signature` reads as `*`.
constexpr signature record_signature(const operand_list& ops) {
  std::array<char, 16> letters{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < ops.size; ++i) {
    const std::string_view kind = ops.kinds[i];
    if (!kind.empty() && kind.back() == '*') {
      letters[n++] = '*';
      continue;
    }
    for (const char c : kind) letters[n++] = c;
  }
  return decode_signature(std::string_view(letters.data(), n));
}
inline constexpr auto signatures = [] {
  std::array<signature, opcode_count> out{};
  for (std::size_t i = 0; i < opcode_count; ++i) out[i] = record_signature(operand_lists[i]);
  return out;
}();
constexpr const signature& signature_of(opcode c) { return signatures[static_cast<std::size_t>(c)]; }
}  // namespace detail

constexpr bool is_tile_op(opcode c) { return dialect_of(c) == dialect::tile; }
constexpr bool is_buffer_op(opcode c) { return dialect_of(c) == dialect::buffer; }
constexpr bool is_region_op(opcode c) { return region_count(c) > 0; }
constexpr bool is_terminator(opcode c) { return has_trait(c, trait::terminator); }
constexpr bool is_spmd_query(opcode c) { return has_trait(c, trait::spmd_query); }
constexpr bool is_comparison(opcode c) { return has_trait(c, trait::comparison); }
constexpr bool is_loop_op(opcode c) { return has_trait(c, trait::loop); }
/// A region op that runs one of its regions once (`if`).
constexpr bool is_branch_op(opcode c) { return is_region_op(c) && !is_loop_op(c); }
constexpr bool is_relabel_op(opcode c) { return has_trait(c, trait::relabel); }
/// The family of `c` and its parameters (ir/op_record.hpp `op_family`).
constexpr op_family family_of(opcode c) { return info(c).family; }
namespace detail {
template <op_family F, dialect D>
inline constexpr std::size_t member_count_of = [] {
  std::size_t n = 0;
  for (const op_record& rec : op_table) n += rec.family == F && rec.dia == D;
  return n;
}();
}  // namespace detail
/// The ops of family `F` in dialect `D`, in opcode order: what a table with one entry per
/// member (a simulator's rows, the recipes, the PTO rules) is generated from.
template <op_family F, dialect D>
inline constexpr std::array<opcode, detail::member_count_of<F, D>> members = [] {
  std::array<opcode, detail::member_count_of<F, D>> out{};
  std::size_t n = 0;
  for (const op_record& rec : detail::op_table)
    if (rec.family == F && rec.dia == D) out[n++] = rec.code;
  return out;
}();

/// Looks an op up by its text mnemonic (scalar infix operators are looked up by `infix`).
constexpr std::optional<opcode> find_mnemonic(std::string_view m) {
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (detail::op_table[i].mnemonic == m) return static_cast<opcode>(i);
  return std::nullopt;
}
constexpr std::optional<opcode> find_infix(std::string_view sym) {
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (!detail::op_table[i].infix.empty() && detail::op_table[i].infix == sym) return static_cast<opcode>(i);
  return std::nullopt;
}

/// The Buffer op that an elementwise or query Tile op lowers to (same suffix), if any.
constexpr std::optional<opcode> buffer_counterpart(opcode c) {
  if (!is_tile_op(c)) return std::nullopt;
  const auto suffix = mnemonic(c).substr(5);  // after "tile."
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const auto& row = detail::op_table[i];
    if (row.dia == dialect::buffer && row.mnemonic.substr(7) == suffix) return static_cast<opcode>(i);
  }
  return std::nullopt;
}

/// Whether a reduction folds each row (row_sum/max/min, Tile or Buffer, into an [R, 1] column)
/// rather than each column (col_sum/max/min, into a [1, C] row). The simulators and the recipes
/// pick their axis from it.
constexpr bool folds_rows(opcode reduction) { return family_of(reduction) == op_family::row_reduction; }

}  // namespace v0
}  // namespace tile2buffer
