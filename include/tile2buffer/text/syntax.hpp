// SPDX-License-Identifier: Apache-2.0
/// @file text/syntax.hpp
/// Grammar facts shared by the `.t2b` parser and printer: reserved words, bounds, operand
/// signatures decoded from the op catalogue, layout shorthands and scalar result inference.
/// Keeping them in one place is what makes print and parse agree byte for byte.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/types.hpp"
#include "tile2buffer/text/lexer.hpp"
#include "tile2buffer/text/name_table.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace text_limits {
/// Largest extent of a shape dimension (Tensor, Tile, Buffer); the smallest is 1.
inline constexpr std::int64_t max_dim = std::int64_t{1} << 24;
/// Largest tensor stride, storage byte offset and fractal size the text accepts.
inline constexpr std::int64_t max_stride = std::int64_t{1} << 40;
inline constexpr std::int64_t max_offset = std::int64_t{1} << 40;
inline constexpr std::int64_t max_fractal = std::int64_t{1} << 20;
/// Deepest region nesting by default (`parse_limits::max_nesting`).
inline constexpr int max_depth = 64;
/// Deepest region nesting any `parse_limits` may ask for: it bounds the parser's recursion, so
/// the stack a parse needs stays small (well under 1 MiB) whatever the caller sets.
inline constexpr int max_depth_cap = 1024;
}  // namespace text_limits

/// Resource limits of one parse, for inputs that come from outside the compiler. Each exceeded
/// limit is one located diagnostic; `t2b-opt --max-nesting/--max-ops/--max-name-length/
/// --max-file-size` set them. The defaults admit every realistic kernel file.
struct parse_limits {
  int max_nesting = text_limits::max_depth;          ///< region nesting depth; clamped to `max_depth_cap`
  std::size_t max_ops = std::size_t{1} << 24;        ///< statements in the whole program (each is one op)
  std::size_t max_name_length = 1024;                ///< bytes of one name, symbol or other word
  std::size_t max_file_size = std::size_t{1} << 30;  ///< bytes of input; 4 GiB - 1 is a hard bound
};

namespace detail {

/// Words with a meaning in statement syntax; they cannot name values.
inline constexpr std::array<std::string_view, 17> reserved_words{"true", "false", "and",   "or",     "not",   "if",
                                                                 "else", "for",   "while", "in",     "iter",  "range",
                                                                 "cond", "do",    "yield", "return", "submit"};
/// By first character, the lengths (as bits) of the reserved words that start with it.
inline constexpr auto reserved_lengths = [] {
  std::array<std::uint32_t, 256> t{};
  for (const auto w : reserved_words) t[static_cast<unsigned char>(w[0])] |= std::uint32_t{1} << w.size();
  return t;
}();
constexpr bool is_reserved(std::string_view s) {
  // Why the table before any comparison: every name and every value use is checked, nearly all
  // of them against no reserved word of their first letter and length (`v12`, `mem_v3`).
  if (s.empty() || s.size() >= 32 || ((reserved_lengths[static_cast<unsigned char>(s[0])] >> s.size()) & 1) == 0) return false;
  for (const auto w : reserved_words)
    if (w == s) return true;
  return false;
}
/// A perfect hash of the reserved words by their length and first two bytes (checked below).
constexpr std::size_t reserved_slot(std::string_view s) {
  return (s.size() + static_cast<unsigned char>(s[0]) + 17 * static_cast<std::size_t>(static_cast<unsigned char>(s[1]))) & 63;
}
/// Slot -> 1 + index into reserved_words, or 0.
inline constexpr auto reserved_table = [] {
  std::array<std::uint8_t, 64> t{};
  for (std::size_t i = 0; i < reserved_words.size(); ++i) t[reserved_slot(reserved_words[i])] = static_cast<std::uint8_t>(i + 1);
  return t;
}();
/// The index of `s` in reserved_words, or -1. Why: a statement is told apart by its first word
/// (`if`, `yield`, ...), and comparing that word with each keyword in turn was a tenth of
/// parsing a statement; this probes once and compares at most one word.
constexpr int reserved_index(std::string_view s) {
  if (s.size() < 2 || s.size() > 6) return -1;
  const std::uint8_t slot = reserved_table[reserved_slot(s)];
  if (slot == 0) return -1;
  const std::string_view w = reserved_words[slot - 1u];
  if (w.size() != s.size()) return -1;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w[i] != s[i]) return -1;
  return slot - 1;
}
/// The index of reserved word `w` (which must be one), at compile time.
consteval int reserved(std::string_view w) {
  for (std::size_t i = 0; i < reserved_words.size(); ++i)
    if (reserved_words[i] == w) return static_cast<int>(i);
  return -1;
}
constexpr bool reserved_index_exact() {
  for (std::size_t i = 0; i < reserved_words.size(); ++i)
    if (reserved_words[i].size() < 2 || reserved_words[i].size() > 6 || reserved_index(reserved_words[i]) != static_cast<int>(i))
      return false;
  return reserved_index("i") == -1 && reserved_index("ifx") == -1 && reserved_index("yielD") == -1 && reserved_index("v1") == -1;
}
static_assert(reserved_index_exact(), "reserved_slot must tell every reserved word apart (change its multiplier)");
/// A string the printer may emit as a value name and the parser accepts back.
constexpr bool is_value_name(std::string_view s) { return is_identifier(s) && !is_reserved(s); }

//===--- mnemonic lookup ---===//

/// Every mnemonic in an open-addressing table built at compile time: a lookup hashes the word
/// once and nearly always compares one string (a binary search compared about eight, and was a
/// twelfth of parsing).
inline constexpr std::size_t mnemonic_slots = 512;
static_assert(2 * opcode_count <= mnemonic_slots, "keep the mnemonic table at most half full");
/// Why the name table's hash: the lexer has computed it for every word it read (`token::hash`).
constexpr std::size_t mnemonic_hash(std::string_view s) { return name_table::hash(s) & (mnemonic_slots - 1); }
/// Slot -> 1 + opcode, or 0 when empty.
inline constexpr auto mnemonic_table = [] {
  std::array<std::uint16_t, mnemonic_slots> t{};
  for (std::size_t i = 0; i < opcode_count; ++i) {
    std::size_t h = mnemonic_hash(op_table[i].mnemonic);
    while (t[h] != 0) h = (h + 1) & (mnemonic_slots - 1);
    t[h] = static_cast<std::uint16_t>(i + 1);
  }
  return t;
}();
/// `h` is `name_table::hash(m)` (a word's `token::hash`).
constexpr bool lookup_mnemonic(std::string_view m, std::uint32_t hash, opcode& out) {
  for (std::size_t h = hash & (mnemonic_slots - 1);; h = (h + 1) & (mnemonic_slots - 1)) {
    const std::uint16_t slot = mnemonic_table[h];
    if (slot == 0) return false;
    if (op_table[slot - 1].mnemonic == m) {
      out = static_cast<opcode>(slot - 1);
      return true;
    }
  }
}
constexpr bool lookup_mnemonic(std::string_view m, opcode& out) { return lookup_mnemonic(m, name_table::hash(m), out); }
/// Every mnemonic is found as its own opcode (and so the spellings are distinct).
constexpr bool mnemonics_round_trip() {
  for (std::size_t i = 0; i < opcode_count; ++i) {
    opcode c{};
    if (!lookup_mnemonic(op_table[i].mnemonic, c) || c != static_cast<opcode>(i)) return false;
  }
  opcode c{};
  return !lookup_mnemonic("tile.", c) && !lookup_mnemonic("", c) && !lookup_mnemonic("tile.addd", c);
}
static_assert(mnemonics_round_trip());

//===--- statement classes ---===//

/// Scalar ops written `a OP b`.
constexpr bool is_infix(opcode c) { return !info(c).infix.empty(); }
/// Scalar ops written like calls: `min(a, b)`, `max(a, b)`, `cast(a, DTYPE)`.
constexpr bool is_scalar_call(opcode c) { return c == opcode::scalar_min || c == opcode::scalar_max || c == opcode::scalar_cast; }
/// Ops the generic `name(args...)` statement form may spell.
constexpr bool is_call_form(opcode c) {
  const dialect d = dialect_of(c);
  return d == dialect::tile || d == dialect::buffer || is_scalar_call(c);
}
constexpr bool gives_bool(opcode c) {
  return is_comparison(c) || c == opcode::scalar_and || c == opcode::scalar_or || c == opcode::scalar_not;
}

/// The result type a scalar op has when the text omits `: TYPE`; kind `none` when it cannot be
/// inferred (both operands literals, or a constant from a literal). A literal takes the type of
/// the other operand, so the first value operand decides.
constexpr type inferred_scalar_type(const function& f, opcode c, std::span<const operand> args) {
  if (dialect_of(c) != dialect::scalar) return type{};
  if (gives_bool(c)) return scalar_type(dtype::bool_);
  if (c == opcode::scalar_cast) {
    const operand to = named_in<"to">(c, args);
    return args.size() == 2 && to.kind == operand_kind::dtype ? scalar_type(static_cast<dtype>(to.num)) : type{};
  }
  for (const operand& a : args) {
    if (!a.is_value()) continue;
    if (a.ref >= f.values.size()) return type{};
    const type& t = f.type_of(a.value());
    return t.is_scalar() ? scalar_type(t.dt) : type{};
  }
  return type{};
}

//===--- types ---===//

/// The (blayout, slayout) pairs that have a one-word spelling.
struct layout_shorthand {
  std::string_view name;
  box_layout blayout;
  box_layout slayout;
};
inline constexpr std::array<layout_shorthand, 3> layout_shorthands{{
    {"ND", box_layout::row_major, box_layout::none_box},
    {"NZ", box_layout::col_major, box_layout::row_major},
    {"ZN", box_layout::row_major, box_layout::col_major},
}};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
