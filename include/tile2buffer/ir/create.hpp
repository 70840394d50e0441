// SPDX-License-Identifier: Apache-2.0
/// @file ir/create.hpp
/// Typed builders: `b.create<tile::load>({.tensor = a, .offsets = {0, 0}, .shape = {16, 32}}, tt, "lhs")`
/// instead of the positional `b.emit1(opcode::tile_load, {operand::of(a), b.pair(0, 0), b.pair(16, 32)}, tt, "lhs")`.
///
/// Each op takes one aggregate of its operands (`operands_of<tile::load>`), whose members are named
/// as `operand_names(opcode)` names them, in that order, and typed by the kind the catalogue
/// signature gives them (`detail::signature_of`):
///
///   letter  member type       accepts
///   v       value_operand     a value_id
///   s       scalar_operand    a value_id, an integer, a bool, or `decimal{mantissa, exp10}`
///   p       pair_operand      `{a, b}` of two scalars (`{0, 0}`, `{row, 0}`)
///   t       tuple_operand     `{a, b, ...}` of scalars, a contiguous range of scalar_operand or
///                             value_id, or `empty_tuple` (`{}` is a left-out member)
///   m       space_operand     a memory_space
///   d       dtype_operand     a dtype
///   f       symbol_operand    a function name (string_view)
///   x?      optional_operand<x's type>, may be omitted
///   *       rest_operands     the variadic rest, like `t`, may be omitted (empty)
///
/// and, for every kind, `built(operand)`: an operand built before the call (a tuple from
/// `b.tuple`, an operand a rewriter mapped), whose kind is checked against the slot in constant
/// evaluation and otherwise by the verifier, as for `emit`.
///
/// A required member left out, or a value of the wrong kind, is a compile error whose message
/// starts with "tile2buffer::create:" (tests/compile_fail/create_missing_operand.cpp,
/// create_wrong_operand_kind.cpp). The structs are checked against the catalogue, not trusted:
/// ir/create_check.hpp adapts them with Boost.Hana and static_asserts for every opcode that member
/// names, order and kinds equal `operand_names` and the signature, and a keyword struct's members
/// the op's registered keywords (the tests include it); this header checks the member kinds of
/// each op it creates, which costs next to nothing.
///
/// Overloads, chosen by the op's result arity in the catalogue:
///   one result:       value_id create<Op>(operands, const type&, std::string_view name, location = {}, keywords = {})
///   no result:        op_id    create<Op>(operands, location = {}, keywords = {})
///   region ops (if, for, while; results variadic):
///                     op_id    create<Op>(operands, region_id first_region, std::span<const type> results,
///                                         std::span<const std::string_view> names, location = {})
/// Keyword arguments are a second aggregate, `keywords_of<Op>`, whose members are the op's
/// registered keywords (`{.cache = 1}`, `{.init_cond = false}`); each may be omitted.
///
/// Layout: operands are materialized in member order (a pair or a tuple written in the call is
/// added to the operand pool there, as `b.pair` in an `emit1` argument list is), then the op is
/// emitted as `emit` does, with keywords in catalogue keyword order. So an `emit1` call site with
/// its keywords in that order and its `b.pair`s in the argument list builds byte-identical IR
/// when rewritten with `create` (tests/unit/create_test.cpp checks this).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {

/// A float literal `mantissa * 10^exp10` for a scalar operand: `decimal{15, -1}` is 1.5.
struct decimal {
  std::int64_t mantissa = 0;
  int exp10 = 0;
};

/// An operand built before the call, passed as is (see the file comment).
struct built_operand {
  operand op;
};
constexpr built_operand built(const operand& o) { return {o}; }

namespace detail {
template <class T>
inline constexpr bool missing_operand = false;
template <class T>
inline constexpr bool wrong_operand_kind = false;
/// Constructs a wrapper in the "absent" state (optional_operand's empty value).
struct absent_t {};
inline constexpr absent_t absent{};

template <class T, class... U>
concept one_of = (std::same_as<std::remove_cvref_t<T>, U> || ...);

/// Not constexpr: reached only when a `built(operand)` does not fit its slot, so in constant
/// evaluation the mismatch is a compile error naming it; at run time the verifier reports it.
inline void create_built_operand_has_the_wrong_kind() noexcept {}
constexpr bool fits(char letter, const operand& o) {
  switch (letter) {
    case 'v': return o.is_value();
    case 's': return o.is_value() || o.is_literal();
    case 'p': return o.kind == operand_kind::tuple && o.num == 2;
    case 't': return o.kind == operand_kind::tuple;
    case 'm': return o.kind == operand_kind::space;
    case 'd': return o.kind == operand_kind::dtype;
    case 'f': return o.kind == operand_kind::symbol;
    default: return false;
  }
}
constexpr operand built_checked(char letter, const operand& o) {
  if (!fits(letter, o)) create_built_operand_has_the_wrong_kind();
  return o;
}
}  // namespace detail

// Why a macro: every required wrapper needs the same two guards, and constructors cannot be
// inherited as default constructors. The default constructor is a template so that its
// static_assert fires only when an aggregate initialization leaves the member out; the
// catch-all constructor only when a value of another kind is given.
#define T2B_CREATE_GUARDS(CLASS, LETTER, ACCEPTS)                                                              \
  template <class T = void>                                                                                    \
  constexpr CLASS() : CLASS(detail::absent) {                                                                  \
    static_assert(detail::missing_operand<T>,                                                                  \
                  "tile2buffer::create: a required operand is missing (only the catalogue's `?` operands and " \
                  "the variadic rest may be left out; see operand_names() in ir/typed_op.hpp)");               \
  }                                                                                                            \
  template <class T>                                                                                           \
    requires(!ACCEPTS)                                                                                         \
  constexpr CLASS(T&&) : CLASS(detail::absent) {                                                               \
    static_assert(detail::wrong_operand_kind<T>, "tile2buffer::create: wrong operand kind: a `" LETTER         \
                                                 "` operand does not take this type (see ir/create.hpp)");     \
  }

/// `v`: an SSA value.
struct value_operand {
  static constexpr char letter = 'v';
  operand op;
  constexpr value_operand(value_id v) : op(operand::of(v)) {}
  constexpr value_operand(built_operand b) : op(b.op) {}
  constexpr explicit value_operand(detail::absent_t) : op{} {}
  T2B_CREATE_GUARDS(value_operand, "v", (detail::one_of<T, value_id, built_operand, value_operand>))
  [[nodiscard]] constexpr operand build(function_builder&) const { return detail::built_checked(letter, op); }
};

/// `s`: an SSA value or a literal.
struct scalar_operand {
  static constexpr char letter = 's';
  operand op;
  constexpr scalar_operand(value_id v) : op(operand::of(v)) {}
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  constexpr scalar_operand(I n) : op(operand::integer(static_cast<std::int64_t>(n))) {}
  template <std::same_as<bool> B>
  constexpr scalar_operand(B b) : op(operand::boolean(b)) {}
  constexpr scalar_operand(decimal d) : op(operand::decimal(d.mantissa, d.exp10)) {}
  constexpr scalar_operand(built_operand b) : op(b.op) {}
  constexpr explicit scalar_operand(detail::absent_t) : op{} {}
  T2B_CREATE_GUARDS(scalar_operand, "s",
                    (std::integral<std::remove_cvref_t<T>> ||
                     detail::one_of<T, value_id, decimal, built_operand, scalar_operand>))
  [[nodiscard]] constexpr operand build(function_builder&) const { return detail::built_checked(letter, op); }
};

/// `p`: a pair tuple `(a, b)` of scalars.
struct pair_operand {
  static constexpr char letter = 'p';
  std::array<operand, 2> elements{};
  operand prebuilt{};
  bool is_built = false;
  constexpr pair_operand(scalar_operand a, scalar_operand b) : elements{a.op, b.op} {}
  constexpr pair_operand(built_operand b) : prebuilt(b.op), is_built(true) {}
  constexpr explicit pair_operand(detail::absent_t) {}
  T2B_CREATE_GUARDS(pair_operand, "p", (detail::one_of<T, built_operand, pair_operand>))
  [[nodiscard]] constexpr operand build(function_builder& b) const {
    return is_built ? detail::built_checked(letter, prebuilt) : b.tuple(std::span<const operand>(elements));
  }
};

namespace detail {
/// Scalars given as a braced list or a contiguous range; a view, like std::span: it refers to
/// the caller's elements, which live until the end of the `create` call they are written in.
class scalar_list {
 public:
  constexpr scalar_list() = default;
  constexpr scalar_list(std::span<const scalar_operand> s) : scalars_(s) {}
  constexpr scalar_list(std::span<const value_id> v) : values_(v), from_(from::values) {}
  /// Operands built before the call (a pass forwarding a yield's remapped operands).
  constexpr scalar_list(std::span<const operand> o) : operands_(o), from_(from::operands) {}
  [[nodiscard]] constexpr std::size_t size() const {
    return from_ == from::values ? values_.size() : from_ == from::operands ? operands_.size() : scalars_.size();
  }
  [[nodiscard]] constexpr operand at(std::size_t i) const {
    if (from_ == from::values) return operand::of(values_[i]);
    return built_checked('s', from_ == from::operands ? operands_[i] : scalars_[i].op);
  }

 private:
  enum class from : std::uint8_t { scalars, values, operands };
  std::span<const scalar_operand> scalars_;
  std::span<const value_id> values_;
  std::span<const operand> operands_;
  from from_ = from::scalars;
};
// clang-format off
template <class R>
concept scalar_range = requires(const R& r) {
  std::data(r);
  std::size(r);
} && one_of<decltype(*std::data(std::declval<const R&>())), scalar_operand, value_id, operand>;
// clang-format on
template <class R>
constexpr scalar_list list_of(const R& r) {
  using E = std::remove_cvref_t<decltype(*std::data(r))>;
  return scalar_list(std::span<const E>(std::data(r), std::size(r)));
}
}  // namespace detail

/// The empty tuple `()` for a `t` operand: `{}` cannot say it, since a left-out member is `{}`.
struct empty_tuple_t {};
inline constexpr empty_tuple_t empty_tuple{};

/// `t`: a tuple of scalars of any length.
struct tuple_operand {
  static constexpr char letter = 't';
  detail::scalar_list elements;
  operand prebuilt{};
  bool is_built = false;
  constexpr tuple_operand(std::initializer_list<scalar_operand> l)
      : elements(std::span<const scalar_operand>(l.begin(), l.size())) {}
  template <detail::scalar_range R>
  constexpr tuple_operand(const R& r) : elements(detail::list_of(r)) {}
  constexpr tuple_operand(empty_tuple_t) {}
  constexpr tuple_operand(built_operand b) : prebuilt(b.op), is_built(true) {}
  constexpr explicit tuple_operand(detail::absent_t) {}
  T2B_CREATE_GUARDS(tuple_operand, "t",
                    (detail::scalar_range<std::remove_cvref_t<T>> ||
                     detail::one_of<T, empty_tuple_t, built_operand, tuple_operand>))
  [[nodiscard]] constexpr operand build(function_builder& b) const {
    if (is_built) return detail::built_checked(letter, prebuilt);
    std::vector<operand> ops;
    ops.reserve(elements.size());
    for (std::size_t i = 0; i < elements.size(); ++i) ops.push_back(elements.at(i));
    return b.tuple(std::span<const operand>(ops));
  }
};

/// `m`: a memory-space name.
struct space_operand {
  static constexpr char letter = 'm';
  operand op;
  constexpr space_operand(memory_space s) : op(operand::of(s)) {}
  constexpr space_operand(built_operand b) : op(b.op) {}
  constexpr explicit space_operand(detail::absent_t) : op{} {}
  T2B_CREATE_GUARDS(space_operand, "m", (detail::one_of<T, memory_space, built_operand, space_operand>))
  [[nodiscard]] constexpr operand build(function_builder&) const { return detail::built_checked(letter, op); }
};

/// `d`: a dtype name.
struct dtype_operand {
  static constexpr char letter = 'd';
  operand op;
  constexpr dtype_operand(dtype d) : op(operand::of(d)) {}
  constexpr dtype_operand(built_operand b) : op(b.op) {}
  constexpr explicit dtype_operand(detail::absent_t) : op{} {}
  T2B_CREATE_GUARDS(dtype_operand, "d", (detail::one_of<T, dtype, built_operand, dtype_operand>))
  [[nodiscard]] constexpr operand build(function_builder&) const { return detail::built_checked(letter, op); }
};

/// `f`: a function symbol, interned when the op is created.
struct symbol_operand {
  static constexpr char letter = 'f';
  std::string_view name;
  operand prebuilt{};
  bool is_built = false;
  constexpr symbol_operand(std::string_view s) : name(s) {}
  constexpr symbol_operand(const char* s) : name(s) {}
  constexpr symbol_operand(built_operand b) : prebuilt(b.op), is_built(true) {}
  constexpr explicit symbol_operand(detail::absent_t) {}
  T2B_CREATE_GUARDS(symbol_operand, "f",
                    (detail::one_of<T, std::string_view, const char*, char*, built_operand, symbol_operand> ||
                     std::is_array_v<std::remove_cvref_t<T>>))
  [[nodiscard]] constexpr operand build(function_builder& b) const {
    return is_built ? detail::built_checked(letter, prebuilt) : b.symbol(name);
  }
};
#undef T2B_CREATE_GUARDS

/// `x?`: an operand that may be left out (it then takes no position).
template <class W>
struct optional_operand {
  static constexpr char letter = W::letter;
  W operand_;
  bool present = false;
  constexpr optional_operand() : operand_(detail::absent) {}
  template <class T>
    requires(!std::same_as<std::remove_cvref_t<T>, optional_operand>)
  constexpr optional_operand(T&& t) : operand_(std::forward<T>(t)), present(true) {}
  // clang-format off
  constexpr optional_operand(scalar_operand a, scalar_operand b)
    requires std::same_as<W, pair_operand>
      : operand_(a, b), present(true) {}
  constexpr optional_operand(std::initializer_list<scalar_operand> l)
    requires std::same_as<W, tuple_operand>
      : operand_(l), present(true) {}
  // clang-format on
};
using optional_scalar = optional_operand<scalar_operand>;
using optional_pair = optional_operand<pair_operand>;
using optional_value = optional_operand<value_operand>;

/// `*`: the variadic rest (`for`'s inits, `yield`'s values): scalars, may be left out.
struct rest_operands {
  detail::scalar_list elements;
  constexpr rest_operands() = default;
  constexpr rest_operands(std::initializer_list<scalar_operand> l)
      : elements(std::span<const scalar_operand>(l.begin(), l.size())) {}
  template <detail::scalar_range R>
  constexpr rest_operands(const R& r) : elements(detail::list_of(r)) {}
};

namespace detail {
template <class W>
inline constexpr bool is_optional = false;
template <class W>
inline constexpr bool is_optional<optional_operand<W>> = true;

/// Appends the operands of member `m` in positional order.
/// Room for the positional operands of an op without a variadic rest: no allocation per op.
template <std::size_t N>
struct fixed_operands {
  std::array<operand, N == 0 ? 1 : N> items{};
  std::size_t count = 0;
  constexpr void push_back(const operand& o) { items[count++] = o; }
  constexpr void reserve(std::size_t) {}
  constexpr operator std::span<const operand>() const { return {items.data(), count}; }
};

template <class W, class Out>
constexpr void lay_out(function_builder& b, const W& m, Out& out) {
  if constexpr (std::same_as<W, rest_operands>) {
    for (std::size_t i = 0; i < m.elements.size(); ++i) out.push_back(m.elements.at(i));
  } else if constexpr (is_optional<W>) {
    if (m.present) out.push_back(m.operand_.build(b));
  } else {
    out.push_back(m.build(b));
  }
}
}  // namespace detail

//===--- the operand structs, one per op or family, adapted for reflection at the end ---===//
// clang-format off
namespace operands {
struct none {};
struct value { scalar_operand value; };             // scalar.const, tile.full
struct scalar_binary { scalar_operand lhs, rhs; };  // scalar.add ... scalar.or, min, max
struct scalar_not { scalar_operand arg; };
struct scalar_cast { scalar_operand value; dtype_operand to; };
struct if_ { scalar_operand cond; };
struct for_ {
  scalar_operand start, stop, step;
  rest_operands inits = {};
};
struct while_ { rest_operands inits = {}; };
struct values { rest_operands values = {}; };  // yield, return
struct submit { symbol_operand callee; tuple_operand call_args, deps; };
struct tile_alloc { space_operand space; scalar_operand capacity; };
struct tile_load {
  value_operand tensor;
  pair_operand offsets, shape;
  optional_pair valid = {};
};
struct tile_store { value_operand tile; pair_operand offsets; value_operand tensor; };
struct unary { value_operand source; };  // Tile unary elementwise, move, views, row reductions; buffer.reshape
struct tile_reshape { value_operand source; pair_operand shape; };
struct tile_slice {
  value_operand source;
  pair_operand shape, offsets;
  optional_pair valid = {};
};
struct tile_assemble { value_operand target, source; pair_operand offsets; };
struct tile_set_validshape { value_operand tile; scalar_operand rows, cols; };
struct tile_extract { value_operand source; scalar_operand row, col; };
struct tile_binary { value_operand lhs, rhs; };  // Tile binary elementwise, tile.matmul
struct tile_matmul_acc { value_operand acc, lhs, rhs; };
struct tile_scalar { value_operand source; scalar_operand scalar; };
struct tile_row_reduction {
  value_operand source;
  optional_value tmp = {};
};
struct tile_col_expand_arith { value_operand source, vector; };
struct tile_cast {
  value_operand source;
  dtype_operand to;
};
struct tile_unary_tmp {  // Tile unary elementwise with an optional scratch (rsqrt's high-precision tmp)
  value_operand source;
  optional_value tmp = {};
};
struct tile_row_expand_arith {
  value_operand source, vector;
  optional_value blk = {};
};
struct buffer_alloc {
  tuple_operand init_valid;
  optional_scalar address = {};
};
struct buffer_set_validshape { value_operand buffer; pair_operand valid; };
struct buffer_load { value_operand tensor; pair_operand offsets, valid; value_operand dest; };
struct buffer_store { value_operand source; pair_operand offsets, valid; value_operand tensor; };
struct buffer_unary { value_operand source, dest; };  // Buffer unary elementwise, buffer.copy
struct buffer_unary_tmp {                             // Buffer unary elementwise with an optional scratch
  value_operand source, dest;
  optional_value tmp = {};
};
struct buffer_subview {
  value_operand source;
  pair_operand offsets;
  optional_pair valid = {};
};
struct buffer_extract { value_operand source; scalar_operand row, col; value_operand dest; };
struct buffer_binary { value_operand lhs, rhs, dest; };  // Buffer binary elementwise, buffer.matmul(_acc)
struct buffer_fill { scalar_operand value; value_operand dest; };
struct buffer_scalar { value_operand source; scalar_operand scalar; value_operand dest; };
struct buffer_row_reduction { value_operand source, tmp, dest; };
struct buffer_row_expand_arith { value_operand source, blk, dest; };
struct buffer_col_expand_arith { value_operand source, vector, dest; };
}  // namespace operands

//===--- keyword structs: one per set of registered keywords ---===//
namespace keywords {
struct none {};
struct tile_alloc { optional_scalar addr = {}; };
struct tile_load { optional_scalar cache = {}; };
struct tile_store {
  optional_scalar atomic = {}, st_phase = {}, pre_quant = {}, pre_relu = {};
};
struct matmul_acc { optional_scalar init_cond = {}; };
struct precision { optional_scalar high_precision = {}; };
struct rounding { optional_scalar mode = {}; };
}  // namespace keywords
// clang-format on

}  // namespace v0
}  // namespace tile2buffer

namespace tile2buffer {
inline namespace v0 {

namespace detail {
template <class T>
using create_type = std::type_identity<T>;
/// The operand struct of each opcode: the families first (as operand_names groups them).
template <opcode C>
consteval auto operands_type() {
  namespace o = operands;
  constexpr bool buf = is_buffer_op(C);
  if constexpr (info(C).ew == ew_kind::binary)
    return std::conditional_t<buf, create_type<o::buffer_binary>, create_type<o::tile_binary>>{};
  else if constexpr (info(C).ew == ew_kind::unary && !info(C).scratch.empty())
    return std::conditional_t<buf, create_type<o::buffer_unary_tmp>, create_type<o::tile_unary_tmp>>{};
  else if constexpr (info(C).ew == ew_kind::unary)
    return std::conditional_t<buf, create_type<o::buffer_unary>, create_type<o::unary>>{};
  else if constexpr (info(C).ew == ew_kind::scalar_form)
    return std::conditional_t<buf, create_type<o::buffer_scalar>, create_type<o::tile_scalar>>{};
  else if constexpr (info(C).ew == ew_kind::fill)
    return std::conditional_t<buf, create_type<o::buffer_fill>, create_type<o::value>>{};
  else if constexpr (info(C).family == op_family::scalar_arith || info(C).family == op_family::scalar_compare ||
                     (info(C).family == op_family::scalar_logic && C != opcode::scalar_not))
    return create_type<o::scalar_binary>{};
  else if constexpr (C == opcode::scalar_const) return create_type<o::value>{};
  else if constexpr (C == opcode::scalar_not) return create_type<o::scalar_not>{};
  else if constexpr (C == opcode::scalar_cast) return create_type<o::scalar_cast>{};
  else if constexpr (C == opcode::cf_if) return create_type<o::if_>{};
  else if constexpr (C == opcode::cf_for) return create_type<o::for_>{};
  else if constexpr (C == opcode::cf_while) return create_type<o::while_>{};
  else if constexpr (C == opcode::cf_yield || C == opcode::cf_return) return create_type<o::values>{};
  else if constexpr (C == opcode::orch_submit) return create_type<o::submit>{};
  else if constexpr (C == opcode::tile_alloc) return create_type<o::tile_alloc>{};
  else if constexpr (C == opcode::tile_load) return create_type<o::tile_load>{};
  else if constexpr (C == opcode::tile_store) return create_type<o::tile_store>{};
  else if constexpr (C == opcode::tile_move || C == opcode::tile_reinterpret_view || C == opcode::tile_transpose_view ||
                     C == opcode::buffer_reshape)
    return create_type<o::unary>{};
  // Reductions: a scratch `tmp` (row reductions, col_sum) or none.
  else if constexpr (info(C).family == op_family::row_reduction || info(C).family == op_family::col_reduction) {
    if constexpr (info(C).scratch.empty()) return std::conditional_t<buf, create_type<o::buffer_unary>, create_type<o::unary>>{};
    else return std::conditional_t<buf, create_type<o::buffer_row_reduction>, create_type<o::tile_row_reduction>>{};
  } else if constexpr (info(C).family == op_family::row_broadcast || info(C).family == op_family::col_broadcast)
    return std::conditional_t<buf, create_type<o::buffer_unary>, create_type<o::unary>>{};
  else if constexpr (info(C).family == op_family::cast)
    return std::conditional_t<buf, create_type<o::buffer_unary>, create_type<o::tile_cast>>{};
  else if constexpr (info(C).family == op_family::col_broadcast_arith)
    return std::conditional_t<buf, create_type<o::buffer_col_expand_arith>, create_type<o::tile_col_expand_arith>>{};
  else if constexpr (info(C).family == op_family::row_broadcast_arith)
    return std::conditional_t<buf, create_type<o::buffer_row_expand_arith>, create_type<o::tile_row_expand_arith>>{};
  else if constexpr (C == opcode::tile_reshape) return create_type<o::tile_reshape>{};
  else if constexpr (C == opcode::tile_slice) return create_type<o::tile_slice>{};
  else if constexpr (C == opcode::tile_assemble) return create_type<o::tile_assemble>{};
  else if constexpr (C == opcode::tile_set_validshape) return create_type<o::tile_set_validshape>{};
  else if constexpr (C == opcode::tile_extract) return create_type<o::tile_extract>{};
  else if constexpr (C == opcode::tile_matmul) return create_type<o::tile_binary>{};
  else if constexpr (C == opcode::tile_matmul_acc) return create_type<o::tile_matmul_acc>{};
  else if constexpr (C == opcode::buffer_alloc) return create_type<o::buffer_alloc>{};
  else if constexpr (C == opcode::buffer_set_validshape) return create_type<o::buffer_set_validshape>{};
  else if constexpr (C == opcode::buffer_load) return create_type<o::buffer_load>{};
  else if constexpr (C == opcode::buffer_store) return create_type<o::buffer_store>{};
  else if constexpr (C == opcode::buffer_copy) return create_type<o::buffer_unary>{};
  else if constexpr (C == opcode::buffer_subview) return create_type<o::buffer_subview>{};
  else if constexpr (C == opcode::buffer_extract) return create_type<o::buffer_extract>{};
  else if constexpr (C == opcode::buffer_matmul || C == opcode::buffer_matmul_acc) return create_type<o::buffer_binary>{};
  else return create_type<o::none>{};  // tile.create and the SPMD queries; checked below like every other
}
/// The keyword struct of a set of registered keywords (`op_info::keywords`).
template <std::uint16_t Mask>
consteval auto keywords_type() {
  namespace k = keywords;
  if constexpr (Mask == kw_bit(keyword::addr)) return create_type<k::tile_alloc>{};
  else if constexpr (Mask == kw_bit(keyword::cache)) return create_type<k::tile_load>{};
  else if constexpr (Mask == store_kws) return create_type<k::tile_store>{};
  else if constexpr (Mask == kw_bit(keyword::init_cond)) return create_type<k::matmul_acc>{};
  else if constexpr (Mask == hp) return create_type<k::precision>{};
  else if constexpr (Mask == kw_bit(keyword::mode)) return create_type<k::rounding>{};
  else return create_type<k::none>{};
}
}  // namespace detail

/// The operand and keyword structs of opcode C, and the typed builders `function_builder::create`
/// forwards to (declared in ir/builder.hpp, so that `b.create<Op>` is a member).
template <opcode C>
struct create_traits {
  using operands = typename decltype(detail::operands_type<C>())::type;
  using keywords = typename decltype(detail::keywords_type<info(C).keywords>())::type;
  static constexpr value_id create_one(function_builder& b, const operands& ops, const placed_type& result, std::string_view name,
                                       location loc, const keywords& kws);
  static constexpr op_id create_none(function_builder& b, const operands& ops, location loc, const keywords& kws);
  static constexpr op_id create_region(function_builder& b, const operands& ops, region_id first_region,
                                       std::span<const type> results, std::span<const std::string_view> names, location loc);
};
/// `operands_of<tile::load>`: the aggregate `b.create<tile::load>` takes; `keywords_of` its keywords.
template <ir_op Op>
using operands_of = typename create_traits<Op::code>::operands;
template <ir_op Op>
using keywords_of = typename create_traits<Op::code>::keywords;

namespace detail {
/// Calls `f(member, index)` for each of the first N members of aggregate `s`, in declaration
/// order. Why structured bindings and not the Hana adaptation: this runs in every TU that creates
/// an op, and the adaptation's accessors cost more to compile than the whole builder
/// (ir/create_check.hpp adapts the structs and checks them once).
template <std::size_t N, class S, class F>
constexpr void for_each_member(const S& s, F&& f) {
  using std::integral_constant;
  using I = std::size_t;
  if constexpr (N == 1) {
    const auto& [m0] = s;
    f(m0, integral_constant<I, 0>{});
  } else if constexpr (N == 2) {
    const auto& [m0, m1] = s;
    f(m0, integral_constant<I, 0>{}), f(m1, integral_constant<I, 1>{});
  } else if constexpr (N == 3) {
    const auto& [m0, m1, m2] = s;
    f(m0, integral_constant<I, 0>{}), f(m1, integral_constant<I, 1>{}), f(m2, integral_constant<I, 2>{});
  } else if constexpr (N == 4) {
    const auto& [m0, m1, m2, m3] = s;
    f(m0, integral_constant<I, 0>{}), f(m1, integral_constant<I, 1>{}), f(m2, integral_constant<I, 2>{}),
        f(m3, integral_constant<I, 3>{});
  } else {
    static_assert(N == 0, "tile2buffer::create: an op with more than 4 operand or keyword members needs a case here");
  }
}
/// Members of C's operand struct: one per signature position, plus the variadic rest.
template <opcode C>
inline constexpr std::size_t operand_members = signature_of(C).size + (signature_of(C).variadic ? 1 : 0);
/// The registered keywords of C in catalogue order (the keyword struct's member order).
template <opcode C>
inline constexpr auto registered_keywords = [] {
  std::array<keyword, keyword_names.size()> out{};
  std::size_t n = 0;
  for (std::size_t k = 0; k < keyword_names.size(); ++k)
    if ((info(C).keywords & kw_bit(static_cast<keyword>(k))) != 0) out[n++] = static_cast<keyword>(k);
  return std::pair{out, n};
}();
/// Member I of C's operand struct has type M: the kind the signature gives position I (the
/// names are checked by ir/create_check.hpp).
template <opcode C, std::size_t I, class M>
constexpr bool member_kind_matches() {
  constexpr signature sig = signature_of(C);
  if constexpr (std::same_as<M, rest_operands>) return sig.variadic && I == sig.size;
  else return I < sig.size && M::letter == sig.letters[I] && (is_optional<M> == (I >= sig.min));
}

/// Lays out the operands and keywords of one op in positional order.
template <opcode C>
struct create_layout {
  // Why a vector only for variadic ops: a pass creates an op per value it adds, and a heap
  // allocation each time was measurable on the pipeline.
  std::conditional_t<signature_of(C).variadic, std::vector<operand>, fixed_operands<operand_members<C>>> args;
  std::array<kwarg, keyword_names.size()> kws{};
  std::size_t kw_count = 0;
  constexpr create_layout(function_builder& b, const typename create_traits<C>::operands& ops,
                          const typename create_traits<C>::keywords& k) {
    args.reserve(operand_members<C>);
    for_each_member<operand_members<C>>(ops, [&](const auto& m, auto i) {
      static_assert(member_kind_matches<C, decltype(i)::value, std::remove_cvref_t<decltype(m)>>(),
                    "tile2buffer::create: an operand struct member's kind disagrees with the catalogue signature");
      lay_out(b, m, args);
    });
    for_each_member<registered_keywords<C>.second>(k, [&](const auto& m, auto i) {
      static_assert(is_optional<std::remove_cvref_t<decltype(m)>>, "tile2buffer::create: keywords are optional scalars");
      if (m.present) kws[kw_count++] = kwarg{registered_keywords<C>.first[decltype(i)::value], m.operand_.build(b)};
    });
  }
  [[nodiscard]] constexpr std::span<const kwarg> kwargs() const { return {kws.data(), kw_count}; }
};
}  // namespace detail

template <opcode C>
constexpr value_id create_traits<C>::create_one(function_builder& b, const operands& ops, const placed_type& result,
                                                std::string_view name, location loc, const keywords& kws) {
  const detail::create_layout<C> l(b, ops, kws);
  const std::string_view names[] = {name};
  const op_id o = b.emit(C, std::span<const operand>(l.args), l.kwargs(), std::span<const type>(&result.ty, 1), names, loc);
  const value_id v = b.fn().result(o, 0);
  b.set_storage(v, result.at);
  return v;
}
template <opcode C>
constexpr op_id create_traits<C>::create_none(function_builder& b, const operands& ops, location loc, const keywords& kws) {
  const detail::create_layout<C> l(b, ops, kws);
  return b.emit(C, std::span<const operand>(l.args), l.kwargs(), {}, {}, loc);
}
template <opcode C>
constexpr op_id create_traits<C>::create_region(function_builder& b, const operands& ops, region_id first_region,
                                                std::span<const type> results, std::span<const std::string_view> names,
                                                location loc) {
  const detail::create_layout<C> l(b, ops, {});
  return b.emit(C, std::span<const operand>(l.args), l.kwargs(), results, names, loc,
                span32{first_region.index, region_count(C)});
}

}  // namespace v0
}  // namespace tile2buffer
