// SPDX-License-Identifier: Apache-2.0
/// @file ir/op_record.hpp
/// The shape of one op's definition (`op_record`) and the compile-time check that a table of
/// records agrees with itself. The records themselves are in ir/opcode.hpp.
///
/// Why plain constexpr data and not a Hana map: every query here is by opcode value at run time
/// as well as in constant evaluation (the parser, the verifier, the passes), and a constexpr
/// array indexed by opcode costs no template instantiation in the headers everyone includes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tile2buffer {
inline namespace v0 {

enum class opcode : std::uint16_t;
/// No opcode: a family parameter the family does not use.
inline constexpr opcode no_opcode = static_cast<opcode>(0xffff);

enum class dialect : std::uint8_t { scalar, control, orchestration, tile, buffer };

/// Keyword arguments an op may carry (reference §3.2: registered kwargs only).
enum class keyword : std::uint8_t { addr, high_precision, init_cond, cache, atomic, st_phase, pre_quant, pre_relu, mode, count_ };
inline constexpr std::array<std::string_view, 9> keyword_names{"addr",     "high_precision", "init_cond", "cache", "atomic",
                                                               "st_phase", "pre_quant",      "pre_relu",  "mode"};
constexpr std::uint16_t kw_bit(keyword k) { return static_cast<std::uint16_t>(1u << static_cast<unsigned>(k)); }

/// How many results an op defines.
enum class arity : std::uint8_t { none, one, variadic };
/// Elementwise shape of an op (drives recipes, verifier and simulator alike): the parameter of
/// the elementwise family.
enum class ew_kind : std::uint8_t { none, binary, unary, scalar_form, fill };

/// The family an op belongs to: members of one family share their operands, verifier rule,
/// simulator model, PTO rule and recipe, and differ only in the family's parameters
/// (`combine`, `then`, `native`, `ew`). Code that treats a family asks the record for the
/// parameter instead of listing the members, so a new member is a record, not a new case.
enum class op_family : std::uint8_t {
  single,               ///< an op with no siblings (alloc, load, store, matmul, ...)
  scalar_arith,         ///< scalar.add ... max: `lhs op rhs` in the operands' type
  scalar_compare,       ///< scalar.lt ... ge: a BOOL
  scalar_logic,         ///< and, or, not: BOOL in, BOOL out
  control,              ///< if, for, while, yield, return
  elementwise,          ///< `ew` says binary, unary, scalar form or fill; `native` the PTO op
  row_reduction,        ///< each row folded by `combine` into an [R, 1] column
  col_reduction,        ///< each column folded by `combine` into a [1, C] row
  row_broadcast,        ///< an [R, 1] column repeated along rows
  col_broadcast,        ///< a [1, C] row repeated down columns
  row_broadcast_arith,  ///< `source[i, j] combine vector[i]`
  col_broadcast_arith,  ///< `then(source[i, j] combine vector[0, j])`
  cast,                 ///< a dtype conversion by rounding mode
  spmd_query,           ///< a launch index or count
};

/// The scalar families' parameter: the operation a scalar op computes. Switches over it list
/// every enumerator and no default, so a new scalar op that the simulator, the emitter or an
/// analysis does not handle is a compile error (-Wswitch under -Werror), never a silent branch.
enum class scalar_fn : std::uint8_t {
  none,
  add,
  sub,
  mul,
  floordiv,
  mod,
  min,
  max,
  lt,
  le,
  eq,
  ne,
  gt,
  ge,
  logical_and,
  logical_or,
  logical_not
};

/// Each family's name as `--list-ops`, docs/ops.md and the Python package spell it.
inline constexpr std::array<std::string_view, 14> family_names{
    "single",        "scalar_arith",  "scalar_compare",      "scalar_logic",
    "control",       "elementwise",   "row_reduction",       "col_reduction",
    "row_broadcast", "col_broadcast", "row_broadcast_arith", "col_broadcast_arith",
    "cast",          "spmd_query"};
static_assert(family_names.size() == static_cast<std::size_t>(op_family::spmd_query) + 1, "one name per op_family");
constexpr std::string_view family_name(op_family f) { return family_names[static_cast<std::size_t>(f)]; }
/// The names `--list-ops` and the Python package give an op's result arity, elementwise shape and
/// scalar operation (one list each, read by both).
inline constexpr std::array<std::string_view, 3> arity_names{"none", "one", "variadic"};
inline constexpr std::array<std::string_view, 5> ew_kind_names{"none", "binary", "unary", "scalar_form", "fill"};
inline constexpr std::array<std::string_view, 17> scalar_fn_names{
    "none", "add", "sub", "mul", "floordiv", "mod", "min", "max", "lt", "le", "eq", "ne", "gt", "ge", "and", "or", "not"};
static_assert(arity_names.size() == static_cast<std::size_t>(arity::variadic) + 1, "one name per arity");
static_assert(ew_kind_names.size() == static_cast<std::size_t>(ew_kind::fill) + 1, "one name per ew_kind");
static_assert(scalar_fn_names.size() == static_cast<std::size_t>(scalar_fn::logical_not) + 1, "one name per scalar_fn");

/// How an op's result type follows from its operands (the Python builder and `--list-ops` read
/// it; the verifier checks the same facts). `declared`: the result type is the author's.
enum class result_rule : std::uint8_t {
  none,            ///< no result, or region results the arms yield
  declared,        ///< given by the author (alloc, create, views whose shape is the author's)
  same_as,         ///< the type of operand `result_like`
  load_window,     ///< a Vec tile of `shape` in the tensor's dtype, `valid` extents if given
  window,          ///< `shape` of `source`'s dtype and space, `valid` extents if given
  matrix_product,  ///< [lhs rows, rhs cols] in the accumulator dtype, in Acc
  column_of,       ///< [R, 1] of `source`
  row_of,          ///< [1, C] of `source`, its valid columns kept
  converted,       ///< `source`'s shape and space in dtype `to`
  boolean,         ///< a BOOL scalar
  to_dtype,        ///< a scalar of dtype `to`
  index,           ///< an INDEX scalar
};
inline constexpr std::array<std::string_view, 12> result_rule_names{"none",      "declared",       "same_as",   "load_window",
                                                                    "window",    "matrix_product", "column_of", "row_of",
                                                                    "converted", "boolean",        "to_dtype",  "index"};
static_assert(result_rule_names.size() == static_cast<std::size_t>(result_rule::index) + 1, "one name per result_rule");
constexpr std::string_view result_rule_name(result_rule r) { return result_rule_names[static_cast<std::size_t>(r)]; }

/// What passes ask about an op instead of naming it. Each bit is a fact the record states; the
/// operand-naming facts (`in_place_of`, `writes`, `disjoint_from`, `extent_of`) are fields.
enum class trait : std::uint16_t {
  none = 0,
  relabel = 1u << 0,             ///< the result is `in_place_of`'s bytes under a new type or valid shape
  window = 1u << 1,              ///< the result is a window cut from `in_place_of`
  allocates = 1u << 2,           ///< the result is fresh root storage
  moves_valid_data = 1u << 3,    ///< moves data under valid extents: runs only when both are positive
  side_effects = 1u << 4,        ///< writes memory no result of it names (a GM store, a task)
  terminator = 1u << 5,          ///< ends its region
  exits_function = 1u << 6,      ///< ends the function, returning its operands
  loop = 1u << 7,                ///< a region op whose body repeats over carried values
  condition_region = 1u << 8,    ///< its first region computes the loop condition (while)
  spmd_query = 1u << 9,          ///< reads the launch's block or subblock index or count
  comparison = 1u << 10,         ///< a scalar comparison (BOOL result)
  may_alias_exactly = 1u << 11,  ///< the destination may be exactly a `disjoint_from` operand's window
};
constexpr trait operator|(trait a, trait b) {
  return static_cast<trait>(static_cast<std::uint16_t>(a) | static_cast<std::uint16_t>(b));
}
constexpr bool any(trait set, trait t) { return (static_cast<std::uint16_t>(set) & static_cast<std::uint16_t>(t)) != 0; }

/// One op's definition: what the parser, printer, verifier, passes and docs read about it.
/// `operands`: space-separated `name:kind` in positional order; kinds v = SSA value, s = scalar
/// (value or literal), p = pair tuple `(a, b)`, t = tuple of any length, m = memory-space name,
/// d = dtype name, f = function symbol; a `?` after the kind makes the operand optional, a `*`
/// makes it the variadic rest (any number of scalars or values).
/// Region ops: `if` args = [cond], regions = then, else. `for` args = [start, stop, step,
/// inits...], region args = [induction var, iteration values...]. `while` args = [inits...],
/// regions = cond (args = iteration values; a comparison and/or `yield bool`) and body.
/// `submit` args = [callee symbol, (call args...), (dependency tasks...)].
struct op_record {
  opcode code{};
  std::string_view mnemonic;
  dialect dia{};
  std::string_view operands;
  std::uint16_t keywords = 0;
  arity results = arity::one;
  std::uint8_t regions = 0;
  ew_kind ew = ew_kind::none;
  trait traits = trait::none;
  std::string_view in_place_of = {};    ///< the operand whose storage the result lives in
  std::string_view writes = {};         ///< the operand whose storage the op writes
  std::string_view disjoint_from = {};  ///< operands the written storage must not partially overlap
  std::string_view extent_of = {};      ///< `moves_valid_data`: the operand whose extents are moved (empty: the result's)
  /// A scratch operand the op clobbers (a native reduction's `tmp`): its storage must be disjoint
  /// from every other tile operand and from the result, and its contents are unspecified after.
  std::string_view scratch = {};
  std::string_view infix = {};    ///< scalar operators: their text spelling
  std::string_view summary = {};  ///< one-line semantics (docs/ops.md)
  op_family family = op_family::single;
  /// Reductions and fused broadcasts: the Tile elementwise binary op that combines two elements.
  opcode combine = no_opcode;
  /// Fused broadcasts: a Tile elementwise unary op applied to the combined element (expdif's exp).
  opcode then = no_opcode;
  /// The PTO op a Buffer op of an emitted family becomes (`pto.trowexpanddiv`); the Tile member
  /// carries its Buffer twin's.
  std::string_view native = {};
  result_rule result = result_rule::declared;
  std::string_view result_like = {};  ///< `same_as`: the operand whose type the result has
  scalar_fn fn = scalar_fn::none;     ///< scalar families: the operation
  [[nodiscard]] constexpr bool has(trait t) const { return any(traits, t); }
};

/// A list of `name:kind` words (or bare names) split once by position: `tensor:v valid:p?` gives
/// names `tensor`, `valid` and kinds `v`, `p?`. Every table derived from the records reads these
/// instead of splitting the record's text again.
struct operand_list {
  static constexpr std::size_t capacity = 8;
  std::array<std::string_view, capacity> names{};
  std::array<std::string_view, capacity> kinds{};  ///< empty for a word without `:`
  std::size_t size = 0;
  bool overflow = false;  ///< more than `capacity` words
  /// Position of `name`, or -1.
  [[nodiscard]] constexpr int position(std::string_view name) const {
    for (std::size_t i = 0; i < size; ++i)
      if (names[i] == name) return static_cast<int>(i);
    return -1;
  }
};

namespace detail {
// Why one pointer loop instead of string_view::find/substr: this runs in constant evaluation in
// every TU that includes the IR, where g++ evaluates each library call step by step.
constexpr operand_list split_operands(std::string_view list) {
  operand_list out;
  const char* p = list.data();
  const std::size_t n = list.size();
  std::size_t i = 0;
  while (i < n) {
    const std::size_t start = i;
    while (i < n && p[i] != ':' && p[i] != ' ') ++i;
    std::string_view name(p + start, i - start);
    std::string_view kind;
    if (i < n && p[i] == ':') {
      const std::size_t k = ++i;
      while (i < n && p[i] != ' ') ++i;
      kind = std::string_view(p + k, i - k);
    }
    if (out.size == operand_list::capacity) {
      out.overflow = true;
      return out;
    }
    out.names[out.size] = name;
    out.kinds[out.size++] = kind;
    ++i;  // the space
  }
  return out;
}

// Each check that a table of records can fail calls one of these on failure. Why functions that
// are not constexpr: calling one in constant evaluation is a compile error that names it.
inline void op_record_is_not_at_its_opcodes_position() {}
inline void op_record_trait_names_a_missing_operand() {}
inline void op_record_operand_has_no_kind() {}
inline void op_record_regions_without_a_region_op_result() {}
inline void op_record_relabel_or_window_without_in_place_of() {}
inline void op_record_lists_more_than_two_disjoint_operands() {}

inline void op_record_has_more_operands_than_operand_list_holds() {}
inline void op_record_family_member_without_its_combine_op() {}
inline void op_record_family_member_without_its_native_op() {}
inline void op_record_elementwise_kind_outside_the_elementwise_family() {}
inline void op_record_same_as_without_an_operand() {}
inline void op_record_scalar_family_member_without_its_operation() {}

/// What a family requires of its members' parameters (a member without them does not compile).
constexpr bool family_needs_combine(op_family f) {
  switch (f) {
    case op_family::row_reduction:
    case op_family::col_reduction:
    case op_family::row_broadcast_arith:
    case op_family::col_broadcast_arith: return true;
    case op_family::single:
    case op_family::scalar_arith:
    case op_family::scalar_compare:
    case op_family::scalar_logic:
    case op_family::control:
    case op_family::elementwise:
    case op_family::row_broadcast:
    case op_family::col_broadcast:
    case op_family::cast:
    case op_family::spmd_query: return false;
  }
  return false;
}
/// The families whose Buffer members are emitted as one PTO op named by the record.
constexpr bool family_needs_native(op_family f) {
  return f == op_family::elementwise || f == op_family::row_reduction || f == op_family::col_reduction ||
         f == op_family::row_broadcast || f == op_family::col_broadcast || f == op_family::row_broadcast_arith ||
         f == op_family::col_broadcast_arith;
}

constexpr void check_record(const op_record& r, std::size_t position) {
  if (static_cast<std::size_t>(r.code) != position) op_record_is_not_at_its_opcodes_position();
  const operand_list ops = split_operands(r.operands);
  if (ops.overflow) op_record_has_more_operands_than_operand_list_holds();
  for (std::size_t i = 0; i < ops.size; ++i)
    if (ops.kinds[i].empty()) op_record_operand_has_no_kind();
  for (const std::string_view named : {r.in_place_of, r.writes, r.extent_of, r.scratch})
    if (!named.empty() && ops.position(named) < 0) op_record_trait_names_a_missing_operand();
  const operand_list disjoint = split_operands(r.disjoint_from);
  if (disjoint.size > 2) op_record_lists_more_than_two_disjoint_operands();
  for (std::size_t i = 0; i < disjoint.size; ++i)
    if (ops.position(disjoint.names[i]) < 0) op_record_trait_names_a_missing_operand();
  if (r.regions > 0 && r.results != arity::variadic) op_record_regions_without_a_region_op_result();
  if ((r.has(trait::relabel) || r.has(trait::window)) && r.in_place_of.empty()) op_record_relabel_or_window_without_in_place_of();
  if (family_needs_combine(r.family) && r.combine == no_opcode) op_record_family_member_without_its_combine_op();
  if (family_needs_native(r.family) && r.dia != dialect::scalar && r.native.empty())
    op_record_family_member_without_its_native_op();
  if ((r.family == op_family::elementwise) != (r.ew != ew_kind::none))
    op_record_elementwise_kind_outside_the_elementwise_family();
  if (r.result == result_rule::same_as && ops.position(r.result_like) < 0) op_record_same_as_without_an_operand();
  const bool scalar_family = r.family == op_family::scalar_arith || r.family == op_family::scalar_compare ||
                             r.family == op_family::scalar_logic;
  if (scalar_family != (r.fn != scalar_fn::none)) op_record_scalar_family_member_without_its_operation();
}
}  // namespace detail

/// A table of records, checked: each record sits at its opcode's position and every trait names
/// an operand the record declares. A record that disagrees with itself does not compile.
template <std::size_t N>
consteval std::array<op_record, N> checked_records(std::array<op_record, N> records) {
  for (std::size_t i = 0; i < N; ++i) detail::check_record(records[i], i);
  return records;
}

}  // namespace v0
}  // namespace tile2buffer
