// SPDX-License-Identifier: Apache-2.0
/// @file sim/model_table.hpp
/// How a simulator finds the semantics of an op: a *model set* lists one model per opcode it can
/// meet, and `model_table<Set>` turns the list into an array indexed by opcode.
///
/// A model set is a type with
///  - `state`: the interpreter the models run on (`tile_models::state` is the Tile interpreter);
///  - `static constexpr bool needs(opcode)`: the ops that must have a model (every op of the
///    simulator's stage, the scalar and control-flow ops);
///  - `static constexpr std::array<model_row<state>, N> rows`: the models;
///  - `static constexpr model<state> otherwise`: what any other op does (a diagnostic).
/// `models_checked<Set>` checks it the first time a run uses it: every needed op has exactly one
/// row. A mistake is one error whose first line names the op, `missing_simulator_model<opcode::X>`
/// or `two_simulator_models<opcode::X>` (tests/compile_fail/simulator_model_missing.cpp).
///
/// Why function pointers in a constexpr array and not a Hana map: dispatch is by run-time opcode,
/// and the set is included by t2b-opt and tests, so it should cost no template machinery beyond
/// one small instantiation per row.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include "tile2buffer/ir/coverage.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// Runs op `o` on the simulator state `S`; false when a diagnostic stopped the run.
template <class S>
using model = bool (*)(S&, op_id);

/// One entry of a model set: the model of op `op`.
template <class S>
struct model_row {
  opcode op = opcode::count_;
  model<S> run = nullptr;
};

namespace detail {
/// Adapts a model that takes its op's typed view (`bool load(S&, view<opcode::tile_load>)`) to
/// the table's signature. Why the opcode comes from the view's type: a row cannot hand an op to
/// the model of another op.
template <auto Fn>
struct through_view;
template <class S, opcode C, bool (*Fn)(S&, view<C>)>
struct through_view<Fn> {
  static bool run(S& s, op_id o) { return Fn(s, view<C>(s.fn(), o)); }
  static constexpr model_row<S> row{C, &run};
};
}  // namespace detail

/// The row of a model that reads its op through the typed view: `typed_model<&load>`.
template <auto Fn>
inline constexpr auto typed_model = detail::through_view<Fn>::row;

/// One row per member of family `F` in dialect `D`, each `Model<member>::row`: a family's model
/// is written once, as a template over the member, and a new member gets its row from its record.
template <class S, op_family F, dialect D, template <opcode> class Model>
inline constexpr auto family_rows = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<model_row<S>, sizeof...(I)>{{Model<members<F, D>[I]>::row...}};
}
(std::make_index_sequence<members<F, D>.size()>{});

/// The rows of `a` followed by those of `b` (a set built from shared and stage rows, or a host's
/// set extending the library's).
template <class S, std::size_t N, std::size_t M>
constexpr std::array<model_row<S>, N + M> concat_rows(const std::array<model_row<S>, N>& a,
                                                      const std::array<model_row<S>, M>& b) {
  std::array<model_row<S>, N + M> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = a[i];
  for (std::size_t i = 0; i < M; ++i) out[N + i] = b[i];
  return out;
}

/// `Set`'s rows without the ones of op `Op` (a host replacing one model; the compile-fail tests).
template <class Set, opcode Op>
inline constexpr auto rows_without = [] {
  constexpr std::size_t kept = [] {
    std::size_t n = 0;
    for (const auto& r : Set::rows) n += r.op != Op;
    return n;
  }();
  std::array<model_row<typename Set::state>, kept> out{};
  std::size_t k = 0;
  for (const auto& r : Set::rows)
    if (r.op != Op) out[k++] = r;
  return out;
}();

//===--- the mistakes a model set can contain, each reported once by name ---===//
// Why class templates with a failing static_assert: the first line of the compiler's error names
// the template and its argument, the op, and the message says the fix (as engine/registry.hpp).
namespace detail {
template <class T>
inline constexpr bool model_mistake = false;
}  // namespace detail

template <opcode Op>
struct missing_simulator_model {
  static_assert(detail::model_mistake<missing_simulator_model>,
                "tile2buffer: an op that can reach this simulator has no model in its model set: add a row for it "
                "(`typed_model<&your_model>`, see sim/models_tile.hpp and sim/models_buffer.hpp)");
};
template <opcode Op>
struct two_simulator_models {
  static_assert(detail::model_mistake<two_simulator_models>,
                "tile2buffer: an op has two rows in one model set, so which one runs would depend on their order: "
                "keep one (`rows_without<Set, op>` drops the library's)");
};

namespace detail {
/// How many rows of `Set` are models of `c`.
template <class Set>
constexpr std::size_t rows_of(opcode c) {
  std::size_t n = 0;
  for (const auto& r : Set::rows) n += r.op == c;
  return n;
}
/// The first op of `Set` with a wrong number of rows (ir/coverage.hpp): none where one is
/// needed, or more than one anywhere.
template <class Set>
constexpr coverage_gap first_model_gap() {
  return first_coverage_gap<opcode_count>(
      Set::rows, [](const auto& r) { return static_cast<std::size_t>(r.op); },
      [](std::size_t c) { return Set::needs(static_cast<opcode>(c)) ? entries::exactly_one : entries::at_most_one; });
}
/// Instantiates the template that names the mistake (its static_assert is the one error) and
/// answers false. Why through decltype: reading a member of the failed class would add errors.
template <class Mistake>
constexpr bool report_model_mistake() {
  using named [[maybe_unused]] = decltype(Mistake{});
  return false;
}
template <class Set>
constexpr bool check_models() {
  constexpr coverage_gap gap = first_model_gap<Set>();
  if constexpr (gap.found(opcode_count) && gap.count == 0)
    return report_model_mistake<missing_simulator_model<static_cast<opcode>(gap.key)>>();
  else if constexpr (gap.found(opcode_count)) return report_model_mistake<two_simulator_models<static_cast<opcode>(gap.key)>>();
  else return true;
}
}  // namespace detail

/// Whether `Set` has exactly one model for every op it needs (see the file comment). A run
/// asserts it with `if constexpr`, so a mistake is its one error.
template <class Set>
inline constexpr bool models_checked = detail::check_models<Set>();

/// Whether `Set` has a row for op `c` (`t2b-opt --list-ops` prints it per simulator, so tests that
/// must cover every modelled op ask the table instead of keeping their own list).
template <class Set>
constexpr bool has_model(opcode c) {
  return detail::rows_of<Set>(c) > 0;
}

/// The model of every opcode: its row's, else `Set::otherwise`.
template <class Set>
inline constexpr auto model_table = [] {
  std::array<model<typename Set::state>, opcode_count> t{};
  t.fill(Set::otherwise);
  for (const auto& r : Set::rows) t[static_cast<std::size_t>(r.op)] = r.run;
  return t;
}();

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
