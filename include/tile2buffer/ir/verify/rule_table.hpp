// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/rule_table.hpp
/// The verifier's models collected into one table indexed by opcode, and the check that every op
/// has one: an op without a model is one compile error naming it (`no_verifier_model<op>`).
///
/// Why function pointers in a constexpr array: the walk looks a model up by the opcode it reads
/// at run time, in constant evaluation too, for the cost of one load and an indirect call.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include "tile2buffer/ir/coverage.hpp"
#include "tile2buffer/ir/verify/buffer_rules.hpp"
#include "tile2buffer/ir/verify/op_rule.hpp"
#include "tile2buffer/ir/verify/orchestration_rules.hpp"
#include "tile2buffer/ir/verify/region_rules.hpp"
#include "tile2buffer/ir/verify/scalar_rules.hpp"
#include "tile2buffer/ir/verify/spmd_rules.hpp"
#include "tile2buffer/ir/verify/tile_compute_rules.hpp"
#include "tile2buffer/ir/verify/tile_rules.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

template <class>
inline constexpr bool verifier_mistake = false;
template <opcode Op>
struct no_verifier_model {
  static_assert(
      verifier_mistake<no_verifier_model>,
      "tile2buffer: this op has no verifier model: specialize detail::op_rule<op, V> in ir/verify/ (a partial specialization on V) with "
      "`static constexpr void check(verify_state&, const op_view&, const enclosing_region&)`");
};

template <template <opcode, class> class Rule, opcode C>
concept has_verifier_model = requires {
  rule_fn{&Rule<C, void>::check};
};


/// The models of `Rule` by opcode; the first op without one is reported by name, alone.
template <template <opcode, class> class Rule, std::size_t... I>
consteval std::array<rule_fn, sizeof...(I)> collect_rules(std::index_sequence<I...>) {
  // A specialization is one model or none, so the counts are 0 or 1 (ir/coverage.hpp).
  constexpr std::array<std::size_t, sizeof...(I)> models{std::size_t{has_verifier_model<Rule, static_cast<opcode>(I)>}...};
  constexpr std::size_t missing = first_count_gap(models, [](std::size_t) { return entries::exactly_one; }).key;
  if constexpr (missing < sizeof...(I)) {
    // Why through decltype: instantiating the class is the one error; reading it would add more.
    using named [[maybe_unused]] = decltype(no_verifier_model<static_cast<opcode>(missing)>{});
    return {};
  } else {
    return {{&Rule<static_cast<opcode>(I), void>::check...}};
  }
}
template <template <opcode, class> class Rule>
consteval std::array<rule_fn, opcode_count> rule_table() {
  return collect_rules<Rule>(std::make_index_sequence<opcode_count>{});
}

/// Every op's model; `rule_table` does not compile while an op lacks one.
template <class = void>
inline constexpr std::array<rule_fn, opcode_count> op_rules = rule_table<op_rule>();

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
