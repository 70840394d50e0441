// SPDX-License-Identifier: Apache-2.0
/// @file ir/elementwise.hpp
/// The elementwise family as the op catalogue defines it (rows with an `ew_kind`): its Tile ops,
/// the Tile <-> Buffer pairing, and `covers_tile_elementwise`, the check that every per-op table
/// elsewhere (spec dtypes, simulator arithmetic, PTO mnemonics) lists exactly this family.
#pragma once

#include <array>
#include <cstddef>
#include <optional>

#include "tile2buffer/ir/opcode.hpp"

namespace tile2buffer {
inline namespace v0 {

constexpr bool is_elementwise(opcode c) { return info(c).ew != ew_kind::none; }

/// How many Tile ops the catalogue marks elementwise.
inline constexpr std::size_t tile_elementwise_count = [] {
  std::size_t n = 0;
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (is_tile_op(static_cast<opcode>(i)) && is_elementwise(static_cast<opcode>(i))) ++n;
  return n;
}();

/// The Tile elementwise ops in catalogue order.
inline constexpr std::array<opcode, tile_elementwise_count> tile_elementwise_ops = [] {
  std::array<opcode, tile_elementwise_count> ops{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (is_tile_op(static_cast<opcode>(i)) && is_elementwise(static_cast<opcode>(i))) ops[n++] = static_cast<opcode>(i);
  return ops;
}();

namespace detail {
/// tile_of[c]: the Tile op whose `buffer_counterpart` is c (opcode::count_ when none), computed
/// once so lookups at run time (the simulator's, per executed op) cost one load.
inline constexpr std::array<opcode, opcode_count> tile_of = [] {
  std::array<opcode, opcode_count> a{};
  a.fill(opcode::count_);
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (const auto b = buffer_counterpart(static_cast<opcode>(i))) a[static_cast<std::size_t>(*b)] = static_cast<opcode>(i);
  return a;
}();
}  // namespace detail

/// The Tile op whose `buffer_counterpart` is `c`, if any.
constexpr std::optional<opcode> tile_counterpart(opcode c) {
  const opcode t = detail::tile_of[static_cast<std::size_t>(c)];
  if (t == opcode::count_) return std::nullopt;
  return t;
}

/// The Tile form of an elementwise op of either stage (`c` itself for Tile ops).
constexpr std::optional<opcode> tile_elementwise_form(opcode c) {
  if (!is_elementwise(c)) return std::nullopt;
  return is_tile_op(c) ? std::optional<opcode>(c) : tile_counterpart(c);
}

/// True when `key(row)` over `rows` names every Tile elementwise op exactly once and nothing
/// else (a Buffer op counts as its Tile form). Per-op tables static_assert this, so adding an op
/// to the catalogue without its row (or keeping a stale row) stops the build.
template <class Rows, class Key>
constexpr bool covers_tile_elementwise(const Rows& rows, Key key) {
  // A row whose op has no Tile elementwise form is keyed past the end: a gap (ir/coverage.hpp).
  const auto tile_form = [&](const auto& row) {
    const auto t = tile_elementwise_form(key(row));
    return t ? static_cast<std::size_t>(*t) : opcode_count;
  };
  const auto needs = [](std::size_t c) {
    const auto op = static_cast<opcode>(c);
    return is_tile_op(op) && is_elementwise(op) ? entries::exactly_one : entries::none;
  };
  return first_coverage_gap<opcode_count>(rows, tile_form, needs).key == opcode_count;
}

namespace detail {
/// The catalogue pairs each Tile elementwise op with a Buffer op of the same shape and
/// precision keyword, and every Buffer elementwise op with one Tile op.
constexpr bool elementwise_pairs_are_consistent() {
  for (opcode t : tile_elementwise_ops) {
    const auto b = buffer_counterpart(t);
    if (!b || info(*b).ew != info(t).ew) return false;
    if ((info(*b).keywords & kw_bit(keyword::high_precision)) != (info(t).keywords & kw_bit(keyword::high_precision)))
      return false;
  }
  std::size_t buffer_ops = 0;
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (is_buffer_op(static_cast<opcode>(i)) && is_elementwise(static_cast<opcode>(i))) {
      ++buffer_ops;
      if (!tile_counterpart(static_cast<opcode>(i))) return false;
    }
  return buffer_ops == tile_elementwise_count;
}
}  // namespace detail
static_assert(detail::elementwise_pairs_are_consistent(),
              "tile2buffer: the op catalogue's Tile and Buffer elementwise rows do not pair up one to one");

}  // namespace v0
}  // namespace tile2buffer
