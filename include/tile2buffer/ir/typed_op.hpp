// SPDX-License-Identifier: Apache-2.0
/// @file ir/typed_op.hpp
/// Typed views of stored ops: `typed<tile::load>` reads `ld.tensor()`, `ld.offsets()`,
/// `ld.valid()` instead of `args[0]`, `args[1]`, `args[3]`.
///
/// The operand names are catalogue data (`operand_names`, one entry per opcode, checked against
/// the catalogue's signatures below). Each accessor exists on a view only when the op's catalogue
/// entry names that operand (a `requires` clause), so `typed<tile::add>{...}.tensor()` does not
/// compile, and an accessor's position is looked up in the table, never written by hand.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/op.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Space-separated operand names of an op, in positional order; a trailing `...` marks the
/// variadic rest (`for`: "start stop step inits...").
constexpr std::string_view operand_names(opcode c) {
  switch (info(c).ew) {
    case ew_kind::binary: return is_buffer_op(c) ? "lhs rhs dest" : "lhs rhs";
    case ew_kind::unary: return is_buffer_op(c) ? "source dest" : "source";
    case ew_kind::scalar_form: return is_buffer_op(c) ? "source scalar dest" : "source scalar";
    case ew_kind::fill: return is_buffer_op(c) ? "value dest" : "value";
    case ew_kind::none: break;
  }
  if (c >= opcode::scalar_add && c <= opcode::scalar_or) return "lhs rhs";
  switch (c) {
    case opcode::scalar_const: return "value";
    case opcode::scalar_not: return "arg";
    case opcode::scalar_cast: return "value to";
    case opcode::cf_if: return "cond";
    case opcode::cf_for: return "start stop step inits...";
    case opcode::cf_while: return "inits...";
    case opcode::cf_yield:
    case opcode::cf_return: return "values...";
    case opcode::orch_submit: return "callee call_args deps";
    case opcode::tile_alloc: return "space capacity";
    case opcode::tile_load: return "tensor offsets shape valid";
    case opcode::tile_store: return "tile offsets tensor";
    case opcode::tile_move:
    case opcode::tile_reinterpret_view:
    case opcode::tile_transpose_view:
    case opcode::tile_row_sum:
    case opcode::tile_row_max: return "source";
    case opcode::tile_reshape: return "source shape";
    case opcode::tile_slice: return "source shape offsets valid";
    case opcode::tile_assemble: return "target source offsets";
    case opcode::tile_set_validshape: return "tile rows cols";
    case opcode::tile_extract: return "source row col";
    case opcode::tile_matmul: return "lhs rhs";
    case opcode::tile_matmul_acc: return "acc lhs rhs";
    case opcode::buffer_alloc: return "init_valid address";
    case opcode::buffer_set_validshape: return "buffer valid";
    case opcode::buffer_load: return "tensor offsets valid dest";
    case opcode::buffer_store: return "source offsets valid tensor";
    case opcode::buffer_copy: return "source dest";
    case opcode::buffer_subview: return "source offsets valid";
    case opcode::buffer_reshape: return "source";
    case opcode::buffer_extract: return "source row col dest";
    case opcode::buffer_matmul:
    case opcode::buffer_matmul_acc: return "lhs rhs dest";
    default: return "";
  }
}

namespace detail {
/// Position of `name` among the operand names of `c`, or -1.
constexpr int operand_position(opcode c, std::string_view name) {
  std::string_view rest = operand_names(c);
  for (int i = 0; !rest.empty(); ++i) {
    const std::size_t end = rest.find(' ');
    std::string_view word = rest.substr(0, end);
    if (word.ends_with("...")) word.remove_suffix(3);
    if (word == name) return i;
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
  }
  return -1;
}
/// Positional operands the catalogue signature declares (letters; `?` and `*` are modifiers).
constexpr int signature_operands(opcode c) {
  int n = 0;
  for (char ch : info(c).signature) n += ch != '?' && ch != '*';
  return n;
}
constexpr int named_operands(opcode c) {
  int n = 0;
  for (std::string_view rest = operand_names(c); !rest.empty(); ++n) {
    const std::size_t end = rest.find(' ');
    if (rest.substr(0, end).ends_with("...")) return n;  // the variadic rest is the `*`
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
  }
  return n;
}
constexpr bool operand_names_match_signatures() {
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const auto c = static_cast<opcode>(i);
    if (named_operands(c) != signature_operands(c)) return false;
  }
  return true;
}
static_assert(operand_names_match_signatures(),
              "tile2buffer: operand_names disagrees with the op catalogue's signatures (ir/opcode.hpp)");

/// A string usable as a template argument: `named<"tensor">()`.
template <std::size_t N>
struct fixed_string {
  char chars[N]{};
  constexpr fixed_string(const char (&s)[N]) {
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  [[nodiscard]] constexpr std::string_view view() const { return {chars, N - 1}; }
};
}  // namespace detail

/// What every typed view offers: the op's function, id, location, results, kwargs and the
/// types of its operands.
template <opcode C>
class op_ref {
 public:
  static constexpr opcode code = C;
  constexpr op_ref(const function& f, op_id o) : f_(&f), id_(o) {}

  [[nodiscard]] constexpr const function& fn() const noexcept { return *f_; }
  [[nodiscard]] constexpr op_id id() const noexcept { return id_; }
  [[nodiscard]] constexpr location loc() const { return f_->op(id_).loc; }
  /// The stored alternative itself (`tile::load`), e.g. for a host's `std::variant`.
  [[nodiscard]] constexpr op_t<C> op() const { return as<op_t<C>>(f_->op(id_).op); }
  [[nodiscard]] constexpr value_id result(std::uint32_t i = 0) const { return f_->result(id_, i); }
  [[nodiscard]] constexpr std::uint32_t result_count() const { return f_->op(id_).results.count; }
  [[nodiscard]] constexpr const type& result_type(std::uint32_t i = 0) const { return f_->type_of(result(i)); }
  [[nodiscard]] constexpr std::span<const operand> args() const { return f_->args(id_); }
  [[nodiscard]] constexpr std::span<const kwarg> kwargs() const { return f_->kwargs_of(id_); }
  [[nodiscard]] constexpr std::optional<operand> kwarg_of(keyword k) const { return f_->kwarg_of(id_, k); }
  /// A kwarg that is present and not the literal 0/false.
  [[nodiscard]] constexpr bool kwarg_set(keyword k) const {
    const auto v = kwarg_of(k);
    return v && !(v->is_literal() && v->num == 0);
  }
  [[nodiscard]] constexpr std::span<const operand> elements(const operand& tuple) const { return f_->elements(tuple); }
  /// The type of a value operand; nullptr for literals, tuples and absent operands.
  [[nodiscard]] constexpr const type* type_of(const operand& o) const { return o.is_value() ? &f_->type_of(o.value()) : nullptr; }
  /// The Tile type of a value operand, or nullptr when it is not a Tile value.
  [[nodiscard]] constexpr const type* tile_type(const operand& o) const {
    const type* t = type_of(o);
    return t != nullptr && t->is_tile() ? t : nullptr;
  }

 protected:
  /// The operand named `Name` in the catalogue; absent optional operands are `operand{}`.
  template <detail::fixed_string Name>
  [[nodiscard]] constexpr operand named() const {
    constexpr int i = detail::operand_position(C, Name.view());
    static_assert(i >= 0, "tile2buffer: this op has no operand of that name in operand_names()");
    const auto a = args();
    return static_cast<std::size_t>(i) < a.size() ? a[static_cast<std::size_t>(i)] : operand{};
  }
  /// The variadic rest named `Name` (`for`'s inits, `return`'s values).
  template <detail::fixed_string Name>
  [[nodiscard]] constexpr std::span<const operand> named_rest() const {
    constexpr int i = detail::operand_position(C, Name.view());
    static_assert(i >= 0, "tile2buffer: this op has no operand of that name in operand_names()");
    const auto a = args();
    return static_cast<std::size_t>(i) < a.size() ? a.subspan(static_cast<std::size_t>(i)) : std::span<const operand>{};
  }

 private:
  const function* f_;
  op_id id_;
};

namespace detail {
template <opcode C, fixed_string Name>
inline constexpr bool has_operand = operand_position(C, Name.view()) >= 0;
}  // namespace detail

// Why one accessor per distinct name (not per op): the names table is the only per-op list;
// an accessor exists on the ops whose entry names it.
#define T2B_OPERAND_ACCESSOR(NAME) \
  [[nodiscard]] constexpr operand NAME() const requires detail::has_operand<C, #NAME> { return this->template named<#NAME>(); }
#define T2B_REST_ACCESSOR(NAME)                                                               \
  [[nodiscard]] constexpr std::span<const operand> NAME() const requires detail::has_operand<C, #NAME> { \
    return this->template named_rest<#NAME>();                                                \
  }

/// The typed view of an op with opcode C: `op_ref` plus the named accessors of its operands.
template <opcode C>
class view : public op_ref<C> {
 public:
  using op_ref<C>::op_ref;
  T2B_OPERAND_ACCESSOR(lhs)
  T2B_OPERAND_ACCESSOR(rhs)
  T2B_OPERAND_ACCESSOR(source)
  T2B_OPERAND_ACCESSOR(dest)
  T2B_OPERAND_ACCESSOR(scalar)
  T2B_OPERAND_ACCESSOR(value)
  T2B_OPERAND_ACCESSOR(arg)
  T2B_OPERAND_ACCESSOR(to)
  T2B_OPERAND_ACCESSOR(cond)
  T2B_OPERAND_ACCESSOR(start)
  T2B_OPERAND_ACCESSOR(stop)
  T2B_OPERAND_ACCESSOR(step)
  T2B_REST_ACCESSOR(inits)
  T2B_REST_ACCESSOR(values)
  T2B_OPERAND_ACCESSOR(callee)
  T2B_OPERAND_ACCESSOR(call_args)
  T2B_OPERAND_ACCESSOR(deps)
  T2B_OPERAND_ACCESSOR(space)
  T2B_OPERAND_ACCESSOR(capacity)
  T2B_OPERAND_ACCESSOR(tensor)
  T2B_OPERAND_ACCESSOR(offsets)
  T2B_OPERAND_ACCESSOR(shape)
  T2B_OPERAND_ACCESSOR(valid)
  T2B_OPERAND_ACCESSOR(tile)
  T2B_OPERAND_ACCESSOR(target)
  T2B_OPERAND_ACCESSOR(rows)
  T2B_OPERAND_ACCESSOR(cols)
  T2B_OPERAND_ACCESSOR(row)
  T2B_OPERAND_ACCESSOR(col)
  T2B_OPERAND_ACCESSOR(acc)
  T2B_OPERAND_ACCESSOR(init_valid)
  T2B_OPERAND_ACCESSOR(address)
  T2B_OPERAND_ACCESSOR(buffer)
  /// matmul_acc's `init_cond` keyword (absent: accumulate).
  [[nodiscard]] constexpr std::optional<operand> init_cond() const requires(C == opcode::tile_matmul_acc) {
    return this->kwarg_of(keyword::init_cond);
  }
};
#undef T2B_OPERAND_ACCESSOR
#undef T2B_REST_ACCESSOR

namespace detail {
/// Where each opcode has the operand named `Name` (-1: none), tabulated once per name.
template <fixed_string Name>
inline constexpr std::array<int, opcode_count> operand_positions = [] {
  std::array<int, opcode_count> p{};
  for (std::size_t i = 0; i < opcode_count; ++i) p[i] = operand_position(static_cast<opcode>(i), Name.view());
  return p;
}();
}  // namespace detail

/// The operand of op `o` that the catalogue names `Name`, for code that handles a family of ops
/// generically (every elementwise Buffer op has a `dest`); `operand{}` when it has none.
template <detail::fixed_string Name>
constexpr operand named_operand(const function& f, op_id o) {
  const int i = detail::operand_positions<Name>[static_cast<std::size_t>(f.op(o).code())];
  const auto a = f.args(o);
  return i >= 0 && static_cast<std::size_t>(i) < a.size() ? a[static_cast<std::size_t>(i)] : operand{};
}

/// `typed<tile::load>`: the view type of an op struct.
template <ir_op Op>
using typed = view<Op::code>;

/// The typed view of op `o`, which must have opcode C.
template <opcode C>
constexpr view<C> view_of(const function& f, op_id o) {
  return view<C>(f, o);
}

}  // namespace v0
}  // namespace tile2buffer
