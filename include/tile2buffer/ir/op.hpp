// SPDX-License-Identifier: Apache-2.0
/// @file ir/op.hpp
/// Op structs and the dialect variants. One distinct, trivially copyable struct per mnemonic
/// (`tile::add`, `buffer::subview`, ...); operands live in the function's pools.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <type_traits>
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
concept tile_op = ir_op<T> &&(dialect_of(T::code) == dialect::tile);
template <class T>
concept buffer_op = ir_op<T> &&(dialect_of(T::code) == dialect::buffer);

namespace detail {
template <dialect D>
inline constexpr std::size_t dialect_size = [] {
  std::size_t n = 0;
  for (std::size_t i = 0; i < opcode_count; ++i) n += dialect_of(static_cast<opcode>(i)) == D;
  return n;
}();
/// The opcodes of dialect D in opcode order: the alternatives of its variant. Why from the
/// records rather than an opcode range: a new op (a family member appended to the enum) joins
/// its dialect's variant wherever its enumerator sits.
template <dialect D>
inline constexpr std::array<opcode, dialect_size<D>> dialect_ops = [] {
  std::array<opcode, dialect_size<D>> out{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (dialect_of(static_cast<opcode>(i)) == D) out[n++] = static_cast<opcode>(i);
  return out;
}();
/// Each op's index in its dialect's variant.
inline constexpr std::array<std::uint16_t, opcode_count> dialect_index = [] {
  std::array<std::uint16_t, opcode_count> out{};
  std::array<std::uint16_t, static_cast<std::size_t>(dialect::buffer) + 1> next{};
  for (std::size_t i = 0; i < opcode_count; ++i) out[i] = next[static_cast<std::size_t>(dialect_of(static_cast<opcode>(i)))]++;
  return out;
}();
template <dialect D, std::size_t... I>
auto make_dialect_variant(std::index_sequence<I...>) -> std::variant<op_t<dialect_ops<D>[I]>...>;
template <dialect D>
using dialect_variant = decltype(make_dialect_variant<D>(std::make_index_sequence<dialect_size<D>>{}));
}  // namespace detail

/// The op alternatives, one variant per dialect; a variant's index is the op's position among
/// its dialect's opcodes (`detail::dialect_index`).
namespace scalar {
using op = detail::dialect_variant<dialect::scalar>;
}
namespace cf {
using op = detail::dialect_variant<dialect::control>;
}
namespace orch {
using op = detail::dialect_variant<dialect::orchestration>;
}
namespace tile {
using op = detail::dialect_variant<dialect::tile>;
}
namespace buffer {
using op = detail::dialect_variant<dialect::buffer>;
}
static_assert(std::variant_size_v<scalar::op> + std::variant_size_v<cf::op> + std::variant_size_v<orch::op> +
                      std::variant_size_v<tile::op> + std::variant_size_v<buffer::op> ==
                  opcode_count,
              "every opcode is an alternative of exactly one dialect variant");

/// How an op is stored in a function: its opcode and its operand and keyword ranges.
/// Why not a variant object per node: with ~100 alternatives, constructing std::variant by index
/// instantiates O(n^2) templates and made every TU including the IR several seconds slower (SML's
/// variant-machine warning). The node keeps the alternative's index (the opcode) and its data;
/// `as<Op>` and `as_variant` give the typed alternative back when a host wants it.
struct op_header {
  opcode code{};
  span32 args;
  span32 kwargs;
  friend constexpr bool operator==(const op_header&, const op_header&) = default;
};
static_assert(std::is_trivially_copyable_v<op_header>);

constexpr op_header make_op(opcode c, span32 args, span32 kwargs = {}) { return op_header{c, args, kwargs}; }
constexpr opcode code_of(const op_header& h) { return h.code; }
constexpr span32 args_of(const op_header& h) { return h.args; }
constexpr span32 kwargs_of(const op_header& h) { return h.kwargs; }

/// The typed op struct of a stored op (which must have `Op::code`).
template <ir_op Op>
constexpr Op as(const op_header& h) {
  return Op{h.args, h.kwargs};
}
namespace detail {
template <class Variant, std::size_t I>
constexpr Variant variant_alternative_of(const op_header& h) {
  using alt = std::variant_alternative_t<I, Variant>;
  return Variant{std::in_place_index<I>, alt{h.args, h.kwargs}};
}
template <class Variant, std::size_t... I>
constexpr Variant as_variant_impl(const op_header& h, std::size_t index, std::index_sequence<I...>) {
  constexpr std::array<Variant (*)(const op_header&), sizeof...(I)> make{&variant_alternative_of<Variant, I>...};
  return make[index](h);
}
}  // namespace detail
/// The stored op as an alternative of its dialect variant (e.g. `tile::op`), for `std::visit`.
/// Instantiated only by hosts that ask for it. Precondition: the op belongs to that dialect.
template <class Variant>
constexpr Variant as_variant(const op_header& h) {
  return detail::as_variant_impl<Variant>(h, detail::dialect_index[static_cast<std::size_t>(h.code)],
                                          std::make_index_sequence<std::variant_size_v<Variant>>{});
}

namespace scalar {
using const_ = op_t<opcode::scalar_const>;
using add = op_t<opcode::scalar_add>;
using sub = op_t<opcode::scalar_sub>;
using mul = op_t<opcode::scalar_mul>;
using floordiv = op_t<opcode::scalar_floordiv>;
using mod = op_t<opcode::scalar_mod>;
using min = op_t<opcode::scalar_min>;
using max = op_t<opcode::scalar_max>;
using lt = op_t<opcode::scalar_lt>;
using le = op_t<opcode::scalar_le>;
using eq = op_t<opcode::scalar_eq>;
using ne = op_t<opcode::scalar_ne>;
using gt = op_t<opcode::scalar_gt>;
using ge = op_t<opcode::scalar_ge>;
using and_ = op_t<opcode::scalar_and>;
using or_ = op_t<opcode::scalar_or>;
using not_ = op_t<opcode::scalar_not>;
using cast = op_t<opcode::scalar_cast>;
}  // namespace scalar
namespace cf {
using if_ = op_t<opcode::cf_if>;
using for_ = op_t<opcode::cf_for>;
using while_ = op_t<opcode::cf_while>;
using yield = op_t<opcode::cf_yield>;
using return_ = op_t<opcode::cf_return>;
}  // namespace cf
namespace orch {
using submit = op_t<opcode::orch_submit>;
}  // namespace orch
namespace tile {
using alloc = op_t<opcode::tile_alloc>;
using create = op_t<opcode::tile_create>;
using full = op_t<opcode::tile_full>;
using load = op_t<opcode::tile_load>;
using store = op_t<opcode::tile_store>;
using move = op_t<opcode::tile_move>;
using reshape = op_t<opcode::tile_reshape>;
using reinterpret_view = op_t<opcode::tile_reinterpret_view>;
using transpose_view = op_t<opcode::tile_transpose_view>;
using slice = op_t<opcode::tile_slice>;
using assemble = op_t<opcode::tile_assemble>;
using set_validshape = op_t<opcode::tile_set_validshape>;
using extract = op_t<opcode::tile_extract>;
using matmul = op_t<opcode::tile_matmul>;
using matmul_acc = op_t<opcode::tile_matmul_acc>;
using add = op_t<opcode::tile_add>;
using mul = op_t<opcode::tile_mul>;
using sub = op_t<opcode::tile_sub>;
using div = op_t<opcode::tile_div>;
using maximum = op_t<opcode::tile_maximum>;
using minimum = op_t<opcode::tile_minimum>;
using abs = op_t<opcode::tile_abs>;
using exp = op_t<opcode::tile_exp>;
using sqrt = op_t<opcode::tile_sqrt>;
using neg = op_t<opcode::tile_neg>;
using relu = op_t<opcode::tile_relu>;
using log = op_t<opcode::tile_log>;
using recip = op_t<opcode::tile_recip>;
using rsqrt = op_t<opcode::tile_rsqrt>;
using adds = op_t<opcode::tile_adds>;
using subs = op_t<opcode::tile_subs>;
using muls = op_t<opcode::tile_muls>;
using divs = op_t<opcode::tile_divs>;
using maximums = op_t<opcode::tile_maximums>;
using minimums = op_t<opcode::tile_minimums>;
using lrelu = op_t<opcode::tile_lrelu>;
using row_sum = op_t<opcode::tile_row_sum>;
using row_max = op_t<opcode::tile_row_max>;
using row_min = op_t<opcode::tile_row_min>;
using col_sum = op_t<opcode::tile_col_sum>;
using col_max = op_t<opcode::tile_col_max>;
using col_min = op_t<opcode::tile_col_min>;
using cast = op_t<opcode::tile_cast>;
using row_expand = op_t<opcode::tile_row_expand>;
using row_expand_sub = op_t<opcode::tile_row_expand_sub>;
using row_expand_div = op_t<opcode::tile_row_expand_div>;
using row_expand_mul = op_t<opcode::tile_row_expand_mul>;
using col_expand = op_t<opcode::tile_col_expand>;
using col_expand_add = op_t<opcode::tile_col_expand_add>;
using col_expand_sub = op_t<opcode::tile_col_expand_sub>;
using col_expand_mul = op_t<opcode::tile_col_expand_mul>;
using col_expand_div = op_t<opcode::tile_col_expand_div>;
using col_expand_max = op_t<opcode::tile_col_expand_max>;
using col_expand_min = op_t<opcode::tile_col_expand_min>;
using col_expand_expdif = op_t<opcode::tile_col_expand_expdif>;
using get_block_idx = op_t<opcode::tile_get_block_idx>;
using get_block_num = op_t<opcode::tile_get_block_num>;
using get_subblock_idx = op_t<opcode::tile_get_subblock_idx>;
}  // namespace tile
namespace buffer {
using alloc = op_t<opcode::buffer_alloc>;
using set_validshape = op_t<opcode::buffer_set_validshape>;
using load = op_t<opcode::buffer_load>;
using store = op_t<opcode::buffer_store>;
using copy = op_t<opcode::buffer_copy>;
using subview = op_t<opcode::buffer_subview>;
using reshape = op_t<opcode::buffer_reshape>;
using extract = op_t<opcode::buffer_extract>;
using matmul = op_t<opcode::buffer_matmul>;
using matmul_acc = op_t<opcode::buffer_matmul_acc>;
using full = op_t<opcode::buffer_full>;
using add = op_t<opcode::buffer_add>;
using mul = op_t<opcode::buffer_mul>;
using sub = op_t<opcode::buffer_sub>;
using div = op_t<opcode::buffer_div>;
using maximum = op_t<opcode::buffer_maximum>;
using minimum = op_t<opcode::buffer_minimum>;
using abs = op_t<opcode::buffer_abs>;
using exp = op_t<opcode::buffer_exp>;
using sqrt = op_t<opcode::buffer_sqrt>;
using neg = op_t<opcode::buffer_neg>;
using relu = op_t<opcode::buffer_relu>;
using log = op_t<opcode::buffer_log>;
using recip = op_t<opcode::buffer_recip>;
using rsqrt = op_t<opcode::buffer_rsqrt>;
using adds = op_t<opcode::buffer_adds>;
using subs = op_t<opcode::buffer_subs>;
using muls = op_t<opcode::buffer_muls>;
using divs = op_t<opcode::buffer_divs>;
using maximums = op_t<opcode::buffer_maximums>;
using minimums = op_t<opcode::buffer_minimums>;
using lrelu = op_t<opcode::buffer_lrelu>;
using row_sum = op_t<opcode::buffer_row_sum>;
using row_max = op_t<opcode::buffer_row_max>;
using row_min = op_t<opcode::buffer_row_min>;
using col_sum = op_t<opcode::buffer_col_sum>;
using col_max = op_t<opcode::buffer_col_max>;
using col_min = op_t<opcode::buffer_col_min>;
using cast = op_t<opcode::buffer_cast>;
using row_expand = op_t<opcode::buffer_row_expand>;
using row_expand_sub = op_t<opcode::buffer_row_expand_sub>;
using row_expand_div = op_t<opcode::buffer_row_expand_div>;
using row_expand_mul = op_t<opcode::buffer_row_expand_mul>;
using col_expand = op_t<opcode::buffer_col_expand>;
using col_expand_add = op_t<opcode::buffer_col_expand_add>;
using col_expand_sub = op_t<opcode::buffer_col_expand_sub>;
using col_expand_mul = op_t<opcode::buffer_col_expand_mul>;
using col_expand_div = op_t<opcode::buffer_col_expand_div>;
using col_expand_max = op_t<opcode::buffer_col_expand_max>;
using col_expand_min = op_t<opcode::buffer_col_expand_min>;
using col_expand_expdif = op_t<opcode::buffer_col_expand_expdif>;
using get_block_idx = op_t<opcode::buffer_get_block_idx>;
using get_block_num = op_t<opcode::buffer_get_block_num>;
using get_subblock_idx = op_t<opcode::buffer_get_subblock_idx>;
}  // namespace buffer

static_assert(tile_op<tile::add> && !tile_op<buffer::add> && buffer_op<buffer::subview>);

}  // namespace v0
}  // namespace tile2buffer
