// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/op_rule.hpp
/// The shape of a per-op verifier model: `op_rule<C, V>` (a partial specialization on V) with
/// `static constexpr void check(verify_state&, const op_view&, const enclosing_region&)`, run
/// once the op's operand kinds matched its record. Each dialect's file specializes it; a family
/// that shares one shape (elementwise ops of one kind) specializes it once for the ops whose
/// record says so. `rule_table.hpp` collects the models and rejects an op without one.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/verify/state.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Where the checked op sits: the region op owning its region (invalid in the function body)
/// and which of the owner's regions it is. Only terminators read it.
struct enclosing_region {
  op_id owner;
  std::uint32_t which = 0;
};

using rule_fn = void (*)(verify_state&, const op_view&, const enclosing_region&);

/// No model: the primary template has no `check`, so `rule_table` names the op.
/// Why the second parameter: every model is a partial specialization, so what its `check` calls
/// is instantiated only where `verify<>` is (g++ still analyses the model's own body in every TU).
template <opcode C, class V = void>
struct op_rule {};

/// How diagnostics name an operand: "operand <its position in the record>", as they always have.
inline constexpr std::array<std::string_view, 8> operand_labels{"operand 0", "operand 1", "operand 2", "operand 3",
                                                                "operand 4", "operand 5", "operand 6", "operand 7"};

/// What a per-op model derives from: its typed view `op` and the labels of its operands, taken
/// from the record when the model is compiled (a name the record lacks does not compile).
template <opcode C>
struct model {
  using op = view<C>;
  static consteval std::string_view label(std::string_view name) {
    return operand_labels.at(static_cast<std::size_t>(operand_position(C, name)));
  }
};

/// The operand names that models shared by a family of ops read (no single opcode to take a
/// typed view of), and where each op's record has them (-1: nowhere), found in one pass over the
/// records. Why one table: a table per name (`named_operand`) costs compile time in every TU.
inline constexpr std::array<std::string_view, 9> family_names{"lhs",   "rhs", "source", "scalar", "dest",
                                                              "value", "tmp", "vector", "blk"};
inline constexpr auto family_positions = [] {
  std::array<std::array<std::int8_t, family_names.size()>, opcode_count> out{};
  for (std::size_t i = 0; i < opcode_count; ++i) {
    out[i].fill(-1);
    const operand_list& ops = operand_lists[i];
    for (std::size_t position = 0; position < ops.size; ++position)
      for (std::size_t k = 0; k < family_names.size(); ++k)
        if (ops.names[position] == family_names[k]) out[i][k] = static_cast<std::int8_t>(position);
  }
  return out;
}();
consteval std::size_t family_slot(std::string_view name) {
  std::size_t k = 0;
  while (k < family_names.size() && family_names[k] != name) ++k;
  return k;
}
template <fixed_string Name>
constexpr int family_position(const op_view& v) {
  constexpr std::size_t k = family_slot(Name.view());
  static_assert(k < family_names.size(), "tile2buffer: a family model reads an operand name missing from family_names");
  return family_positions[static_cast<std::size_t>(v.code)][k];
}
/// The operand `Name` of `v` (`operand{}` when absent), from the view's already checked span.
template <fixed_string Name>
constexpr operand family_operand(const op_view& v) {
  const int i = family_position<Name>(v);
  return i >= 0 && static_cast<std::size_t>(i) < v.args.size() ? v.args[static_cast<std::size_t>(i)] : operand{};
}
/// The label of operand `Name` of `v`.
template <fixed_string Name>
constexpr std::string_view family_label(const op_view& v) {
  const int i = family_position<Name>(v);
  return i >= 0 ? operand_labels[static_cast<std::size_t>(i)] : std::string_view("operand");
}

/// An optional operand the op was given (`named` answers `operand{}` for an absent one).
constexpr bool present(const operand& o) { return o.kind != operand_kind::none; }

/// Two scalar operands read as one index pair (a literal entry is known, a value is not).
constexpr index_pair scalar_pair(const operand& a, const operand& b) {
  return {true, {a.kind == operand_kind::int_lit, b.kind == operand_kind::int_lit}, {a.num, b.num}};
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
