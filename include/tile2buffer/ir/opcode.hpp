// SPDX-License-Identifier: Apache-2.0
/// @file ir/opcode.hpp
/// The op catalogue: one opcode per mnemonic and one constexpr table describing each op's
/// operand signature, keyword arguments and result arity. Parser, printer, verifier, equality
/// and serializer are all driven by this table, so adding an op is one enum entry and one row.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tile2buffer {
inline namespace v0 {

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
  tile_abs, tile_exp, tile_sqrt, tile_neg, tile_relu, tile_log, tile_recip,
  tile_adds, tile_subs, tile_muls, tile_divs, tile_maximums, tile_minimums, tile_lrelu,
  tile_row_sum, tile_row_max,
  tile_get_block_idx, tile_get_block_num, tile_get_subblock_idx,
  // buffer
  buffer_alloc, buffer_set_validshape, buffer_load, buffer_store, buffer_copy, buffer_subview, buffer_reshape,
  buffer_extract, buffer_matmul, buffer_matmul_acc, buffer_full,
  buffer_add, buffer_mul, buffer_sub, buffer_div, buffer_maximum, buffer_minimum,
  buffer_abs, buffer_exp, buffer_sqrt, buffer_neg, buffer_relu, buffer_log, buffer_recip,
  buffer_adds, buffer_subs, buffer_muls, buffer_divs, buffer_maximums, buffer_minimums, buffer_lrelu,
  buffer_get_block_idx, buffer_get_block_num, buffer_get_subblock_idx,
  count_
};
inline constexpr std::size_t opcode_count = static_cast<std::size_t>(opcode::count_);

enum class dialect : std::uint8_t { scalar, control, orchestration, tile, buffer };

/// Keyword arguments an op may carry (reference §3.2: registered kwargs only).
enum class keyword : std::uint8_t { addr, high_precision, init_cond, cache, atomic, st_phase, pre_quant, pre_relu, count_ };
inline constexpr std::array<std::string_view, 8> keyword_names{"addr",   "high_precision", "init_cond", "cache",
                                                               "atomic", "st_phase",       "pre_quant", "pre_relu"};
constexpr std::optional<keyword> parse_keyword(std::string_view s) {
  for (std::size_t i = 0; i < keyword_names.size(); ++i)
    if (keyword_names[i] == s) return static_cast<keyword>(i);
  return std::nullopt;
}
constexpr std::uint16_t kw_bit(keyword k) { return static_cast<std::uint16_t>(1u << static_cast<unsigned>(k)); }

/// How many results an op defines.
enum class arity : std::uint8_t { none, one, variadic };
/// Elementwise shape of an op (drives recipes, verifier and simulator alike).
enum class ew_kind : std::uint8_t { none, binary, unary, scalar_form, fill };

/// One row of the catalogue.
/// `signature` letters, one per positional operand: v = SSA value, s = scalar (value or literal),
/// p = pair tuple `(a, b)`, t = tuple of any length, m = memory-space name, d = dtype name,
/// f = function symbol; `?` makes the operand before it optional; `*` = any number of scalars.
/// Region ops: `if` args = [cond], regions = then, else. `for` args = [start, stop, step, inits...],
/// region args = [induction var, iteration values...]. `while` args = [inits...], regions = cond
/// (args = iteration values; a comparison and/or `yield bool`) and body (args = iteration values).
/// `submit` args = [callee symbol, (call args...), (dependency tasks...)].
struct op_info {
  std::string_view mnemonic;
  dialect dia;
  std::string_view signature;
  std::uint16_t keywords;
  arity results;
  ew_kind ew = ew_kind::none;
  std::string_view infix = {};  ///< scalar operators: their text spelling
};

namespace detail {
using o = op_info;
using d = dialect;
inline constexpr std::uint16_t hp = kw_bit(keyword::high_precision);
inline constexpr auto store_kws =
    static_cast<std::uint16_t>(kw_bit(keyword::atomic) | kw_bit(keyword::st_phase) | kw_bit(keyword::pre_quant) |
                               kw_bit(keyword::pre_relu));
inline constexpr std::array<op_info, opcode_count> op_table{{
    {"scalar.const", d::scalar, "s", 0, arity::one},
    {"scalar.add", d::scalar, "ss", 0, arity::one, ew_kind::none, "+"},
    {"scalar.sub", d::scalar, "ss", 0, arity::one, ew_kind::none, "-"},
    {"scalar.mul", d::scalar, "ss", 0, arity::one, ew_kind::none, "*"},
    {"scalar.floordiv", d::scalar, "ss", 0, arity::one, ew_kind::none, "//"},
    {"scalar.mod", d::scalar, "ss", 0, arity::one, ew_kind::none, "%"},
    {"min", d::scalar, "ss", 0, arity::one},
    {"max", d::scalar, "ss", 0, arity::one},
    {"scalar.lt", d::scalar, "ss", 0, arity::one, ew_kind::none, "<"},
    {"scalar.le", d::scalar, "ss", 0, arity::one, ew_kind::none, "<="},
    {"scalar.eq", d::scalar, "ss", 0, arity::one, ew_kind::none, "=="},
    {"scalar.ne", d::scalar, "ss", 0, arity::one, ew_kind::none, "!="},
    {"scalar.gt", d::scalar, "ss", 0, arity::one, ew_kind::none, ">"},
    {"scalar.ge", d::scalar, "ss", 0, arity::one, ew_kind::none, ">="},
    {"scalar.and", d::scalar, "ss", 0, arity::one, ew_kind::none, "and"},
    {"scalar.or", d::scalar, "ss", 0, arity::one, ew_kind::none, "or"},
    {"not", d::scalar, "s", 0, arity::one},
    {"cast", d::scalar, "sd", 0, arity::one},
    {"if", d::control, "s", 0, arity::variadic},
    {"for", d::control, "sss*", 0, arity::variadic},
    {"while", d::control, "*", 0, arity::variadic},
    {"yield", d::control, "*", 0, arity::none},
    {"return", d::control, "*", 0, arity::none},
    {"submit", d::orchestration, "ftt", 0, arity::one},
    {"tile.alloc", d::tile, "ms", kw_bit(keyword::addr), arity::one},
    {"tile.create", d::tile, "", 0, arity::one},
    {"tile.full", d::tile, "s", 0, arity::one, ew_kind::fill},
    {"tile.load", d::tile, "vppp?", kw_bit(keyword::cache), arity::one},
    {"tile.store", d::tile, "vpv", store_kws, arity::one},
    {"tile.move", d::tile, "v", 0, arity::one},
    {"tile.reshape", d::tile, "vp", 0, arity::one},
    {"tile.reinterpret_view", d::tile, "v", 0, arity::one},
    {"tile.transpose_view", d::tile, "v", 0, arity::one},
    {"tile.slice", d::tile, "vppp?", 0, arity::one},
    {"tile.assemble", d::tile, "vvp", 0, arity::one},
    {"tile.set_validshape", d::tile, "vss", 0, arity::one},
    {"tile.extract", d::tile, "vss", 0, arity::one},
    {"tile.matmul", d::tile, "vv", 0, arity::one},
    {"tile.matmul_acc", d::tile, "vvv", kw_bit(keyword::init_cond), arity::one},
    {"tile.add", d::tile, "vv", 0, arity::one, ew_kind::binary},
    {"tile.mul", d::tile, "vv", 0, arity::one, ew_kind::binary},
    {"tile.sub", d::tile, "vv", 0, arity::one, ew_kind::binary},
    {"tile.div", d::tile, "vv", hp, arity::one, ew_kind::binary},
    {"tile.maximum", d::tile, "vv", 0, arity::one, ew_kind::binary},
    {"tile.minimum", d::tile, "vv", 0, arity::one, ew_kind::binary},
    {"tile.abs", d::tile, "v", 0, arity::one, ew_kind::unary},
    {"tile.exp", d::tile, "v", 0, arity::one, ew_kind::unary},
    {"tile.sqrt", d::tile, "v", 0, arity::one, ew_kind::unary},
    {"tile.neg", d::tile, "v", 0, arity::one, ew_kind::unary},
    {"tile.relu", d::tile, "v", 0, arity::one, ew_kind::unary},
    {"tile.log", d::tile, "v", hp, arity::one, ew_kind::unary},
    {"tile.recip", d::tile, "v", hp, arity::one, ew_kind::unary},
    {"tile.adds", d::tile, "vs", 0, arity::one, ew_kind::scalar_form},
    {"tile.subs", d::tile, "vs", 0, arity::one, ew_kind::scalar_form},
    {"tile.muls", d::tile, "vs", 0, arity::one, ew_kind::scalar_form},
    {"tile.divs", d::tile, "vs", 0, arity::one, ew_kind::scalar_form},
    {"tile.maximums", d::tile, "vs", 0, arity::one, ew_kind::scalar_form},
    {"tile.minimums", d::tile, "vs", 0, arity::one, ew_kind::scalar_form},
    {"tile.lrelu", d::tile, "vs", 0, arity::one, ew_kind::scalar_form},
    {"tile.row_sum", d::tile, "v", 0, arity::one},
    {"tile.row_max", d::tile, "v", 0, arity::one},
    {"tile.get_block_idx", d::tile, "", 0, arity::one},
    {"tile.get_block_num", d::tile, "", 0, arity::one},
    {"tile.get_subblock_idx", d::tile, "", 0, arity::one},
    {"buffer.alloc", d::buffer, "ts?", 0, arity::one},
    {"buffer.set_validshape", d::buffer, "vp", 0, arity::none},
    {"buffer.load", d::buffer, "vppv", 0, arity::none},
    {"buffer.store", d::buffer, "vppv", 0, arity::none},
    {"buffer.copy", d::buffer, "vv", 0, arity::none},
    {"buffer.subview", d::buffer, "vpp?", 0, arity::one},
    {"buffer.reshape", d::buffer, "v", 0, arity::one},
    {"buffer.extract", d::buffer, "vssv", 0, arity::none},
    {"buffer.matmul", d::buffer, "vvv", 0, arity::none},
    {"buffer.matmul_acc", d::buffer, "vvv", 0, arity::none},
    {"buffer.full", d::buffer, "sv", 0, arity::none, ew_kind::fill},
    {"buffer.add", d::buffer, "vvv", 0, arity::none, ew_kind::binary},
    {"buffer.mul", d::buffer, "vvv", 0, arity::none, ew_kind::binary},
    {"buffer.sub", d::buffer, "vvv", 0, arity::none, ew_kind::binary},
    {"buffer.div", d::buffer, "vvv", hp, arity::none, ew_kind::binary},
    {"buffer.maximum", d::buffer, "vvv", 0, arity::none, ew_kind::binary},
    {"buffer.minimum", d::buffer, "vvv", 0, arity::none, ew_kind::binary},
    {"buffer.abs", d::buffer, "vv", 0, arity::none, ew_kind::unary},
    {"buffer.exp", d::buffer, "vv", 0, arity::none, ew_kind::unary},
    {"buffer.sqrt", d::buffer, "vv", 0, arity::none, ew_kind::unary},
    {"buffer.neg", d::buffer, "vv", 0, arity::none, ew_kind::unary},
    {"buffer.relu", d::buffer, "vv", 0, arity::none, ew_kind::unary},
    {"buffer.log", d::buffer, "vv", hp, arity::none, ew_kind::unary},
    {"buffer.recip", d::buffer, "vv", hp, arity::none, ew_kind::unary},
    {"buffer.adds", d::buffer, "vsv", 0, arity::none, ew_kind::scalar_form},
    {"buffer.subs", d::buffer, "vsv", 0, arity::none, ew_kind::scalar_form},
    {"buffer.muls", d::buffer, "vsv", 0, arity::none, ew_kind::scalar_form},
    {"buffer.divs", d::buffer, "vsv", 0, arity::none, ew_kind::scalar_form},
    {"buffer.maximums", d::buffer, "vsv", 0, arity::none, ew_kind::scalar_form},
    {"buffer.minimums", d::buffer, "vsv", 0, arity::none, ew_kind::scalar_form},
    {"buffer.lrelu", d::buffer, "vsv", 0, arity::none, ew_kind::scalar_form},
    {"buffer.get_block_idx", d::buffer, "", 0, arity::one},
    {"buffer.get_block_num", d::buffer, "", 0, arity::one},
    {"buffer.get_subblock_idx", d::buffer, "", 0, arity::one},
}};
}  // namespace detail

constexpr const op_info& info(opcode c) { return detail::op_table[static_cast<std::size_t>(c)]; }
constexpr std::string_view mnemonic(opcode c) { return info(c).mnemonic; }
constexpr dialect dialect_of(opcode c) { return info(c).dia; }
/// Regions an op owns: `if` its then and else arms (an `if` without `else` has an empty else
/// region), `for` its body, `while` its condition and body, every other op none. The one
/// definition the verifier, the builder's users and the binary reader agree on.
constexpr std::uint32_t region_count(opcode c) {
  return c == opcode::cf_if || c == opcode::cf_while ? 2 : c == opcode::cf_for ? 1 : 0;
}

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
inline constexpr auto signatures = [] {
  std::array<signature, opcode_count> out{};
  for (std::size_t i = 0; i < opcode_count; ++i) out[i] = decode_signature(op_table[i].signature);
  return out;
}();
constexpr const signature& signature_of(opcode c) { return signatures[static_cast<std::size_t>(c)]; }
}  // namespace detail

constexpr bool is_tile_op(opcode c) { return dialect_of(c) == dialect::tile; }
constexpr bool is_buffer_op(opcode c) { return dialect_of(c) == dialect::buffer; }
constexpr bool is_region_op(opcode c) { return c == opcode::cf_if || c == opcode::cf_for || c == opcode::cf_while; }
constexpr bool is_terminator(opcode c) { return c == opcode::cf_yield || c == opcode::cf_return; }
constexpr bool is_spmd_query(opcode c) {
  return c == opcode::tile_get_block_idx || c == opcode::tile_get_block_num || c == opcode::tile_get_subblock_idx ||
         c == opcode::buffer_get_block_idx || c == opcode::buffer_get_block_num ||
         c == opcode::buffer_get_subblock_idx;
}
constexpr bool is_comparison(opcode c) { return c >= opcode::scalar_lt && c <= opcode::scalar_ge; }

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

static_assert(detail::op_table[static_cast<std::size_t>(opcode::tile_add)].mnemonic == "tile.add");
static_assert(detail::op_table[static_cast<std::size_t>(opcode::buffer_get_subblock_idx)].mnemonic ==
              "buffer.get_subblock_idx");
static_assert(detail::op_table[static_cast<std::size_t>(opcode::cf_return)].mnemonic == "return");

}  // namespace v0
}  // namespace tile2buffer
