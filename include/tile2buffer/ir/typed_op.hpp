// SPDX-License-Identifier: Apache-2.0
/// @file ir/typed_op.hpp
/// Typed views of stored ops: `typed<tile::load>` reads `ld.tensor()`, `ld.offsets()`,
/// `ld.valid()` instead of `args[0]`, `args[1]`, `args[3]`.
///
/// The operand names come from the op records (ir/opcode.hpp). Each accessor exists on a view only when the op's catalogue
/// entry names that operand (a `requires` clause), so `typed<tile::add>{...}.tensor()` does not
/// compile, and an accessor's position is looked up in the table, never written by hand.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/op.hpp"

namespace tile2buffer {
inline namespace v0 {

namespace detail {
/// The names of each op's operands, space-separated in positional order with `...` after the
/// variadic rest, spelled out of the records once.
inline constexpr auto operand_name_lists = [] {
  struct list {
    std::array<char, 48> chars{};
    std::size_t size = 0;
  };
  std::array<list, opcode_count> out{};
  for (std::size_t i = 0; i < opcode_count; ++i) {
    list& l = out[i];
    const operand_list& ops = operand_lists[i];
    for (std::size_t k = 0; k < ops.size; ++k) {
      if (l.size != 0) l.chars[l.size++] = ' ';
      for (const char c : ops.names[k]) l.chars[l.size++] = c;
      if (!ops.kinds[k].empty() && ops.kinds[k].back() == '*')
        for (int dot = 0; dot < 3; ++dot) l.chars[l.size++] = '.';
    }
  }
  return out;
}();
}  // namespace detail

/// Space-separated operand names of an op, in positional order; a trailing `...` marks the
/// variadic rest (`for`: "start stop step inits...").
constexpr std::string_view operand_names(opcode c) {
  const auto& l = detail::operand_name_lists[static_cast<std::size_t>(c)];
  return {l.chars.data(), l.size};
}

namespace detail {
/// Position of `name` among the operands of `c`, or -1.
constexpr int operand_position(opcode c, std::string_view name) {
  return operand_lists[static_cast<std::size_t>(c)].position(name);
}

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
  [[nodiscard]] constexpr location loc() const { return f_->loc_of(id_); }
  /// The stored alternative itself (`tile::load`), e.g. for a host's `std::variant`.
  [[nodiscard]] constexpr op_t<C> op() const { return as<op_t<C>>(f_->op(id_).header()); }
  [[nodiscard]] constexpr value_id result(std::uint32_t i = 0) const { return f_->result(id_, i); }
  [[nodiscard]] constexpr std::uint32_t result_count() const { return f_->op(id_).results.count; }
  [[nodiscard]] constexpr const type& result_type(std::uint32_t i = 0) const { return f_->type_of(result(i)); }
  /// Where result `i` lives (invalid `mem` when unplanned).
  [[nodiscard]] constexpr const value_storage& result_storage(std::uint32_t i = 0) const { return f_->storage_of(result(i)); }
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
  /// The storage of a value operand; none for literals, tuples and absent operands.
  [[nodiscard]] constexpr value_storage storage_of(const operand& o) const {
    return o.is_value() ? f_->storage_of(o.value()) : value_storage{};
  }
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
#define T2B_REST_ACCESSOR(NAME)                                                                          \
  [[nodiscard]] constexpr std::span<const operand> NAME() const requires detail::has_operand<C, #NAME> { \
    return this->template named_rest<#NAME>();                                                           \
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
  T2B_OPERAND_ACCESSOR(tmp)
  T2B_OPERAND_ACCESSOR(vector)
  T2B_OPERAND_ACCESSOR(blk)
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

/// The operand named `Name` among the positional operands `args` of an op with opcode `c`, for
/// the raw path that holds operands before or apart from an op (the parser, the printer);
/// `operand{}` when the op has no such operand or it is absent.
template <detail::fixed_string Name>
constexpr operand named_in(opcode c, std::span<const operand> args) {
  const int i = detail::operand_positions<Name>[static_cast<std::size_t>(c)];
  return i >= 0 && static_cast<std::size_t>(i) < args.size() ? args[static_cast<std::size_t>(i)] : operand{};
}

namespace detail {
/// Where each record's operand-naming traits point, resolved to positions once (-1: none).
struct trait_positions {
  std::int8_t in_place_of = -1;
  std::int8_t writes = -1;
  std::int8_t extent_of = -1;
  std::int8_t scratch = -1;
  std::array<std::int8_t, 2> disjoint_from{-1, -1};
};
inline constexpr auto trait_position_table = [] {
  std::array<trait_positions, opcode_count> out{};
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const auto c = static_cast<opcode>(i);
    const op_record& r = op_table[i];
    auto at = [&](std::string_view name) { return static_cast<std::int8_t>(name.empty() ? -1 : operand_position(c, name)); };
    out[i].in_place_of = at(r.in_place_of);
    out[i].writes = at(r.writes);
    out[i].extent_of = at(r.extent_of);
    out[i].scratch = at(r.scratch);
    const operand_list disjoint = split_operands(r.disjoint_from);
    for (std::size_t n = 0; n < disjoint.size && n < 2; ++n) out[i].disjoint_from[n] = at(disjoint.names[n]);
  }
  return out;
}();
constexpr operand operand_at(const function& f, op_id o, int position) {
  const auto a = f.args(o);
  return position >= 0 && static_cast<std::size_t>(position) < a.size() ? a[static_cast<std::size_t>(position)] : operand{};
}
constexpr const trait_positions& trait_positions_of(const function& f, op_id o) {
  return trait_position_table[static_cast<std::size_t>(f.op(o).code())];
}
}  // namespace detail

/// The operand whose storage op `o`'s result lives in (its record's `in_place_of`): a relabel's
/// or window's source, an in-place writer's target; `operand{}` when none.
constexpr operand in_place_operand(const function& f, op_id o) {
  return detail::operand_at(f, o, detail::trait_positions_of(f, o).in_place_of);
}
/// The operand whose storage op `o` writes (its record's `writes`); `operand{}` when none.
constexpr operand written_operand(const function& f, op_id o) {
  return detail::operand_at(f, o, detail::trait_positions_of(f, o).writes);
}
/// Whether ops with opcode `c` name operands their written storage must not partially overlap.
constexpr bool has_disjoint_operands(opcode c) {
  return detail::trait_position_table[static_cast<std::size_t>(c)].disjoint_from[0] >= 0;
}
/// The operands whose storage op `o`'s written storage must not partially overlap (its record's
/// `disjoint_from`, at most two); `operand{}` for the ones it does not have.
constexpr std::array<operand, 2> disjoint_operands(const function& f, op_id o) {
  const auto& p = detail::trait_positions_of(f, o);
  return {detail::operand_at(f, o, p.disjoint_from[0]), detail::operand_at(f, o, p.disjoint_from[1])};
}
/// The operand whose valid extents op `o`'s data movement covers (its record's `extent_of`);
/// `operand{}` when that is the op's result.
constexpr operand extent_operand(const function& f, op_id o) {
  return detail::operand_at(f, o, detail::trait_positions_of(f, o).extent_of);
}

/// The scratch operand op `o` clobbers (its record's `scratch`); `operand{}` when none or absent.
constexpr operand scratch_operand(const function& f, op_id o) {
  return detail::operand_at(f, o, detail::trait_positions_of(f, o).scratch);
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
