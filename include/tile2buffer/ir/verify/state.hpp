// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/state.hpp
/// The verifier's per-function state (visibility of every value, visited ops and regions) and
/// the small, bounds-checked accessors every rule uses. Internal to `ir/verify.hpp`.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Function names of a program, sorted once so `submit` callees resolve in O(log F).
struct function_index {
  std::vector<std::pair<std::string_view, std::uint32_t>> entries;

  constexpr explicit function_index(const program& p) {
    entries.reserve(p.functions.size());
    for (std::uint32_t i = 0; i < p.functions.size(); ++i) {
      const function& f = p.functions[i];
      // Why: a malformed name span must not be read; such a function is simply not callable.
      if (static_cast<std::size_t>(f.name.begin) + f.name.count <= f.names.size()) entries.emplace_back(f.name_of(), i);
    }
    std::sort(entries.begin(), entries.end());
  }
  [[nodiscard]] constexpr const function* find(const program& p, std::string_view name) const {
    const auto it = std::lower_bound(entries.begin(), entries.end(), std::pair<std::string_view, std::uint32_t>{name, 0});
    return it != entries.end() && it->first == name ? &p.functions[it->second] : nullptr;
  }
};

/// Visibility of a value during the walk.
enum class value_state : std::uint8_t { undefined, visible, out_of_scope };

/// A checked view of one op: only built once its pools ranges are known to be in bounds.
struct op_view {
  op_id id;
  opcode code = opcode::scalar_const;
  std::string_view mn;
  location loc;
  std::span<const operand> args;
  std::span<const kwarg> kws;
  span32 results;
  span32 regions;
};

constexpr bool in_bounds(span32 s, std::size_t size) { return static_cast<std::size_t>(s.begin) + s.count <= size; }

/// The view of op `o`, whose operand, keyword, result and region ranges the walk already checked.
constexpr op_view checked_view(const function& f, op_id o) {
  const op_node& n = f.ops[o.index];
  const span32 a = n.args;
  const span32 k = n.kwargs;
  return op_view{o,
                 n.code(),
                 mnemonic(n.code()),
                 f.op_locs[o.index],
                 std::span<const operand>(f.operands).subspan(a.begin, a.count),
                 std::span<const kwarg>(f.kwargs).subspan(k.begin, k.count),
                 n.results,
                 n.regions()};
}

template <class E>
constexpr bool enum_ok(E e, E last) {
  return static_cast<unsigned>(e) <= static_cast<unsigned>(last);
}
constexpr std::string_view dtype_text(dtype d) { return enum_ok(d, dtype::index) ? name(d) : "<invalid dtype>"; }
constexpr std::string_view space_text(memory_space s) { return enum_ok(s, memory_space::acc) ? name(s) : "<invalid space>"; }


/// Streaming: makes per-entry state `state` cover every entry of the growing `arena`. Sized to the
/// arena's capacity, so it grows only when the arena does (not once per op written).
template <class T, class Arena>
constexpr void cover(std::vector<T>& state, const Arena& arena, T fill) {
  if (state.size() < arena.size()) state.resize(arena.size() < arena.capacity() ? arena.capacity() : arena.size(), fill);
}

/// A rank-2 index tuple read from a pair operand: each entry static (known) or a scalar value.
struct index_pair {
  bool ok = false;
  std::array<bool, 2> known{false, false};
  std::array<std::int64_t, 2> num{0, 0};
};

struct verify_state {
  const program& prog;
  const function_index& index;
  const function& f;
  std::vector<diagnostic>& out;

  std::vector<value_state> values;  ///< indexed by value id
  std::vector<std::uint8_t> op_seen;
  std::vector<std::uint8_t> region_seen;
  std::vector<value_id> scope;  ///< values defined in the open regions, innermost last
  /// Per interned type: its own checks passed and read no value (static or `?` extents), so the
  /// next value of that type skips them; a planned kernel has a handful of types.
  std::vector<std::uint8_t> type_proven;

  constexpr verify_state(const program& p, const function_index& idx, const function& fn, std::vector<diagnostic>& o)
      : prog(p), index(idx), f(fn), out(o), values(fn.values.size(), value_state::undefined), op_seen(fn.ops.size(), 0),
        region_seen(fn.regions.size(), 0), type_proven(fn.types.size(), 0) {}

  /// Streaming: state for the values and types the builder added since.
  constexpr void grow() {
    cover(values, f.values, value_state::undefined);
    cover(type_proven, f.types, std::uint8_t{0});
  }

  //===--- reporting ---===//
  template <class... Parts>
  constexpr void fail(location loc, const Parts&... parts) {
    text message;
    (message << ... << parts);
    fail_with(loc, std::move(message));
  }
  // Why out of the template: `fail` has about a hundred instantiations (one per argument list);
  // building the diagnostic once here keeps each of them to the message fold.
  constexpr void fail_with(location loc, text&& message) {
    out.push_back(diagnostic{loc, text("verify"), std::move(message), {}});
  }

  [[nodiscard]] constexpr bool is_device() const { return enum_ok(f.kind, function_kind::orchestration) && f.is_device(); }
  [[nodiscard]] constexpr bool is_orchestration() const { return f.kind == function_kind::orchestration; }
  [[nodiscard]] constexpr bool buffer_stage() const { return is_device() && f.stage == ir_stage::buffer; }
  [[nodiscard]] constexpr bool tile_stage() const { return is_device() && f.stage != ir_stage::buffer; }

  /// The function's name, or a placeholder when its name span is malformed.
  [[nodiscard]] constexpr std::string_view fn_name() const {
    return in_bounds(f.name, f.names.size()) ? f.name_of() : std::string_view("<unnamed>");
  }
  /// How a value is named in messages: its name, else `%id`.
  [[nodiscard]] constexpr text label(value_id v) const {
    text t;
    if (v.index < f.values.size() && v.index < f.value_names.size() && in_bounds(f.value_names[v.index], f.names.size()) &&
        f.value_names[v.index].count != 0)
      t << f.name_of(v);
    else t << '%' << static_cast<std::int64_t>(v.index);
    return t;
  }

  /// Marks a use: reports unknown, not-yet-defined and out-of-scope values.
  constexpr bool use(value_id v, location loc) {
    if (!known(v)) {
      fail(loc, "use of unknown value %", static_cast<std::int64_t>(v.index));
      return false;
    }
    switch (values[v.index]) {
      case value_state::visible: return true;
      case value_state::undefined: fail(loc, "use of '", label(v), "' before its definition"); return false;
      case value_state::out_of_scope: fail(loc, "'", label(v), "' is not visible here (defined in another region)"); return false;
    }
    return false;
  }

  //===--- values and operands ---===//
  /// A value whose record, name and type are all in their arenas (a corrupted function may say
  /// otherwise; the verifier reports that once, see `arena_errors`).
  [[nodiscard]] constexpr bool known(value_id v) const {
    return v.index < f.values.size() && v.index < f.value_names.size() && f.values[v.index].ty.index < f.types.size();
  }
  [[nodiscard]] constexpr const type* type_of(value_id v) const {
    return known(v) ? &f.types[f.values[v.index].ty.index] : nullptr;
  }
  /// The type of a value operand; null for literals, names, tuples and unknown ids.
  [[nodiscard]] constexpr const type* type_of(const operand& o) const { return o.is_value() ? type_of(o.value()) : nullptr; }
  [[nodiscard]] constexpr const type* result_type(const op_view& v, std::uint32_t i = 0) const {
    return i < v.results.count ? type_of(value_id{v.results.begin + i}) : nullptr;
  }
  [[nodiscard]] constexpr std::span<const operand> elements(const operand& tuple) const {
    return in_bounds(tuple.tuple(), f.operands.size()) ? f.elements(tuple) : std::span<const operand>{};
  }

  /// A scalar operand: a literal, or a value of scalar type.
  [[nodiscard]] constexpr bool scalar_operand(const operand& o) const {
    if (o.is_literal()) return true;
    const type* t = type_of(o);
    return t != nullptr && t->is_scalar();
  }
  /// An integer (or INDEX) scalar: an integer literal or a value of integer scalar type.
  [[nodiscard]] constexpr bool integer_operand(const operand& o) const {
    if (o.kind == operand_kind::int_lit) return true;
    const type* t = type_of(o);
    return t != nullptr && t->is_scalar() && is_integer(t->dt);
  }
  /// A BOOL scalar: `true`/`false` or a value of type Scalar[BOOL].
  [[nodiscard]] constexpr bool bool_operand(const operand& o) const {
    if (o.kind == operand_kind::bool_lit) return true;
    const type* t = type_of(o);
    return t != nullptr && t->is_scalar() && t->dt == dtype::bool_;
  }
  /// Whether a literal can take type `d` (a literal adopts the type of what it meets).
  [[nodiscard]] static constexpr bool literal_fits(const operand& o, dtype d) {
    switch (o.kind) {
      case operand_kind::bool_lit: return d == dtype::bool_;
      case operand_kind::int_lit: return is_integer(d) || is_float(d);
      case operand_kind::float_lit: return is_float(d);
      default: return false;
    }
  }
  /// Whether operand `o` can stand where a value of type `t` is expected.
  [[nodiscard]] constexpr bool operand_has_type(const operand& o, const type& t) const {
    if (o.is_literal()) return t.is_scalar() && literal_fits(o, t.dt);
    const type* ot = type_of(o);
    return ot != nullptr && *ot == t;
  }

  /// Reads a pair of integer scalars; reports `<op> <what> must be a pair of integer scalars`.
  constexpr index_pair pair(const op_view& v, const operand& o, std::string_view what) {
    index_pair p;
    const auto e = o.kind == operand_kind::tuple ? elements(o) : std::span<const operand>{};
    if (e.size() != 2) {
      fail(v.loc, v.mn, ' ', what, " must be a pair of integer scalars");
      return p;
    }
    for (std::size_t i = 0; i < 2; ++i) {
      if (!integer_operand(e[i])) {
        fail(v.loc, v.mn, ' ', what, " must be a pair of integer scalars");
        return p;
      }
      p.known[i] = e[i].kind == operand_kind::int_lit;
      p.num[i] = e[i].num;
    }
    p.ok = true;
    return p;
  }

  /// Requires a value operand of the given type kind; reports `<op> <what> must be a <kind>`.
  constexpr const type* expect(const op_view& v, const operand& o, type_kind k, std::string_view what) {
    const type* t = type_of(o);
    if (t == nullptr || t->kind != k) {
      fail(v.loc, v.mn, ' ', what, " must be ", kind_text(k));
      return nullptr;
    }
    return t;
  }
  constexpr const type* expect_result(const op_view& v, type_kind k) {
    const type* t = result_type(v);
    if (t == nullptr || t->kind != k) {
      fail(v.loc, v.mn, " result must be ", kind_text(k));
      return nullptr;
    }
    return t;
  }
  static constexpr std::string_view kind_text(type_kind k) {
    switch (k) {
      case type_kind::scalar: return "a scalar";
      case type_kind::tensor: return "a tensor";
      case type_kind::tile: return "a tile";
      case type_kind::buffer: return "a buffer";
      case type_kind::mem: return "an allocation";
      case type_kind::task: return "a task";
      case type_kind::none: break;
    }
    return "typed";
  }
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
