// SPDX-License-Identifier: Apache-2.0
/// @file ir/op.hpp
/// Op structs and the op variant. One distinct, trivially copyable struct per mnemonic
/// (`tile::add`, `buffer::subview`, ...); operands live in the function's pools.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <array>
#include <utility>
#include <variant>

#include "tile2buffer/ir/ids.hpp"
#include "tile2buffer/ir/opcode.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The struct for one mnemonic. Positional operands and keyword arguments are ranges in the
/// function's operand and keyword pools (variable-length data stays out of the variant).
template <opcode C>
struct op_t {
  static constexpr opcode code = C;
  span32 args;
  span32 kwargs;
  friend constexpr bool operator==(const op_t&, const op_t&) = default;
};

/// Requirements: a trivially copyable struct naming its opcode, with operand and keyword ranges.
/// Why trivially copyable: clang 14 cannot constant-evaluate a variant holding anything else.
template <class T>
concept ir_op = std::is_trivially_copyable_v<T> && requires(const T& op) {
  { T::code } -> std::convertible_to<opcode>;
  { op.args } -> std::convertible_to<span32>;
  { op.kwargs } -> std::convertible_to<span32>;
};
template <class T>
concept tile_op = ir_op<T> && (dialect_of(T::code) == dialect::tile);
template <class T>
concept buffer_op = ir_op<T> && (dialect_of(T::code) == dialect::buffer);

namespace detail {
template <std::size_t... I>
auto make_op_variant(std::index_sequence<I...>) -> std::variant<op_t<static_cast<opcode>(I)>...>;
}
/// The single list of op alternatives; the variant index equals the opcode.
using any_op = decltype(detail::make_op_variant(std::make_index_sequence<opcode_count>{}));

static_assert(std::is_trivially_copyable_v<any_op>, "ops must stay trivially copyable (constexpr on clang 14)");

constexpr opcode code_of(const any_op& op) { return static_cast<opcode>(op.index()); }

namespace detail {
template <std::size_t I>
constexpr any_op make_one(span32 args, span32 kwargs) {
  return any_op{std::in_place_index<I>, op_t<static_cast<opcode>(I)>{args, kwargs}};
}
template <std::size_t... I>
constexpr auto make_op_table(std::index_sequence<I...>) {
  return std::array<any_op (*)(span32, span32), sizeof...(I)>{&make_one<I>...};
}
// Why: a table of constructors, because clang 14 cannot switch a variant's alternative in
// constant evaluation; every node is built with its final alternative.
inline constexpr auto op_makers = make_op_table(std::make_index_sequence<opcode_count>{});
}  // namespace detail

/// Builds the op struct for `c` holding the given operand and keyword ranges.
constexpr any_op make_op(opcode c, span32 args, span32 kwargs = {}) {
  return detail::op_makers[static_cast<std::size_t>(c)](args, kwargs);
}
/// The operand and keyword ranges of any op, without visiting.
constexpr span32 args_of(const any_op& op) {
  return std::visit([](const auto& o) { return o.args; }, op);
}
constexpr span32 kwargs_of(const any_op& op) {
  return std::visit([](const auto& o) { return o.kwargs; }, op);
}

namespace scalar {
using const_ = op_t<opcode::scalar_const>;
using add = op_t<opcode::scalar_add>;
using mul = op_t<opcode::scalar_mul>;
using cast = op_t<opcode::scalar_cast>;
}  // namespace scalar
namespace cf {
using if_ = op_t<opcode::cf_if>;
using for_ = op_t<opcode::cf_for>;
using while_ = op_t<opcode::cf_while>;
using yield = op_t<opcode::cf_yield>;
using return_ = op_t<opcode::cf_return>;
}  // namespace cf
namespace tile {
using alloc = op_t<opcode::tile_alloc>;
using create = op_t<opcode::tile_create>;
using full = op_t<opcode::tile_full>;
using load = op_t<opcode::tile_load>;
using store = op_t<opcode::tile_store>;
using move = op_t<opcode::tile_move>;
using slice = op_t<opcode::tile_slice>;
using assemble = op_t<opcode::tile_assemble>;
using add = op_t<opcode::tile_add>;
using mul = op_t<opcode::tile_mul>;
using recip = op_t<opcode::tile_recip>;
using row_max = op_t<opcode::tile_row_max>;
using row_sum = op_t<opcode::tile_row_sum>;
}  // namespace tile
namespace buffer {
using alloc = op_t<opcode::buffer_alloc>;
using load = op_t<opcode::buffer_load>;
using store = op_t<opcode::buffer_store>;
using copy = op_t<opcode::buffer_copy>;
using subview = op_t<opcode::buffer_subview>;
using reshape = op_t<opcode::buffer_reshape>;
using add = op_t<opcode::buffer_add>;
}  // namespace buffer

static_assert(tile_op<tile::add> && !tile_op<buffer::add> && buffer_op<buffer::subview>);

}  // namespace v0
}  // namespace tile2buffer
