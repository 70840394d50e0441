// SPDX-License-Identifier: Apache-2.0
/// @file passes/pass.hpp
/// Pass sets: a Boost.Hana sequence of pass types (`pass_list<...>`, the default is
/// `default_passes` in passes/table.hpp), from which the pipeline's table is derived at compile
/// time: each pass's name (what `--pass-pipeline`, `--print-after` and `--timing` say), whether it
/// runs without Buffer IR, and its entry points. Every set handed to `run_pipeline<>` is checked
/// on first use (`pass_table<Set, Recipes>::checked`); a malformed pass is one error naming it.
///
/// concept pass
/// ------------
/// *Requirements.* `P::name` converts to `std::string_view` in constant evaluation and is unique
/// in its set. `P` transforms or checks a program, never mutating its input:
///  - a transforming pass: `template <recipe_set Recipes> static constexpr result<program>
///    run(const program&, const options&, analysis_cache&)` (a plain static `run` also works);
///  - a checking pass: `static constexpr std::vector<diagnostic> check(const program&, const
///    options&, analysis_cache&)`; the pipeline runs it without copying the program.
/// *Optional.* `static constexpr bool buffer_ir_only = true` (skipped when
/// `options::enable_buffer_ir` is false); `static constexpr bool extended_rollout_only = true`
/// (skipped under the default rollout); `run_in_place<Recipes>(program&, const options&,
/// analysis_cache&, std::vector<diagnostic>&)`, used instead of `run` on a program the run already
/// owns (the pass annotates it, or rebuilds its functions one at a time); `using verified_by = C;` (its
/// output already passed checking pass `C`, so `C` right after it is skipped);
/// `static constexpr bool verifies_program = true` (a checking pass whose success includes the
/// structural verifier on the whole program, so the pipeline does not verify its output again);
/// `static constexpr std::vector<diagnostic> notices(const program& after, const options&,
/// analysis_cache&)` (the warnings and remarks about the program the pass left, which
/// `result::notices` carries; plan's PTOAS over-capacity warning);
/// `static constexpr bool notes_kernels_left_tile = true` (once it ran, every device kernel still
/// Tile gets a remark with selection's reason: `lower`; also when it is skipped because Buffer IR
/// is off, which leaves them all Tile).
/// *Safe default.* Leave the optional members out: the pipeline copies, checks and verifies.
/// *Models.* The nine passes of `default_passes`; `tests/lower/pass_test.cpp` (a host's pass).
/// *Example.* `tests/golden/lower/pass_pipeline/without_plan.t2b` (a list without `plan`).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/hana/at.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/recipe/table.hpp"

namespace tile2buffer {
inline namespace v0 {

/// A pass set: pass types in the order the pipeline runs them.
template <class... P>
struct pass_list {
  using pass_list_type = pass_list;
  static constexpr auto entries = boost::hana::tuple_t<P...>;
};

namespace detail {
template <class T>
struct is_pass_list : std::false_type {};
template <class... P>
struct is_pass_list<pass_list<P...>> : std::true_type {};

template <class P>
concept named_pass = requires {
  { P::name } -> std::convertible_to<std::string_view>;
};
template <class P, class Recipes>
concept runs_with = requires(const program& p, const options& o, analysis_cache& c) {
  { P::template run<Recipes>(p, o, c) } -> std::same_as<result<program>>;
};
template <class P>
concept runs_plain = requires(const program& p, const options& o, analysis_cache& c) {
  { P::run(p, o, c) } -> std::same_as<result<program>>;
};
template <class P>
concept checking_pass = requires(const program& p, const options& o, analysis_cache& c) {
  { P::check(p, o, c) } -> std::same_as<std::vector<diagnostic>>;
};
template <class P, class Recipes>
concept runs_in_place_with = requires(program& p, const options& o, analysis_cache& c, std::vector<diagnostic>& e) {
  P::template run_in_place<Recipes>(p, o, c, e);
};
}  // namespace detail

/// A type the pipeline can run (see the file comment).
template <class P>
concept pass = detail::named_pass<P> &&
    (detail::runs_with<P, default_recipes> || detail::runs_plain<P> || detail::checking_pass<P>);

/// A type usable as the pass set of `run_pipeline<>`: a `pass_list` or a struct derived from one.
// clang-format off
template <class S>
concept pass_set = requires { typename S::pass_list_type; } && detail::is_pass_list<typename S::pass_list_type>::value &&
                   std::is_base_of_v<typename S::pass_list_type, S>;
// clang-format on

/// What one pipeline run hands from pass to pass.
struct pass_state {
  const options& opts;
  analysis_cache& cache;          ///< the kernels' shared analyses of `*latest`
  const program* latest;          ///< the program as the last pass left it: the input until a pass builds one
  result<program> current{};      ///< the program the run owns, once a pass built one
  std::string_view checked_by{};  ///< the checking pass `current` already passed (its builder's `verified_by`)
  [[nodiscard]] constexpr bool owns_latest() const { return latest == &current.value; }
};

/// One pass of a set, type-erased for the run-time pass sequence.
struct pass_entry {
  std::string_view name;
  bool buffer_ir_only = false;
  bool verifies_program = false;
  bool extended_rollout_only = false;    ///< skipped under `rollout_kind::standard` (MaterializeNativeScratch)
  bool notes_kernels_left_tile = false;  ///< the pipeline remarks on each kernel still Tile after it
  /// The pass's notices about the program it left (none: it has none).
  std::vector<diagnostic> (*notices)(const program& after, const options& opts, analysis_cache& cache) = nullptr;
  /// The pass alone on `p` (a checking pass returns a copy of `p` when it passes).
  result<program> (*run)(const program& p, const options& opts, analysis_cache& cache) = nullptr;
  /// The pass inside a run: updates the state; returns its diagnostics.
  std::vector<diagnostic> (*step)(pass_state& state) = nullptr;
};

//===--- the mistakes a pass set can contain, each reported once by name ---===//
// As for recipe sets (engine/registry.hpp): the first line of the error names the template and
// the pass, and the message says the fix.
namespace detail {
template <class Pass>
struct pass_without_name {
  static_assert(mistake<pass_without_name>,
                "tile2buffer: a pass must be named: add `static constexpr std::string_view name = \"my_pass\";` "
                "(the name --pass-pipeline, --print-after and --timing use)");
};
template <class Pass>
struct pass_without_run {
  static_assert(mistake<pass_without_run>,
                "tile2buffer: a pass needs `template <recipe_set Recipes> static constexpr result<program> run(const program&, "
                "const options&, analysis_cache&)`, or, if it only checks, `static constexpr std::vector<diagnostic> "
                "check(const program&, const options&, analysis_cache&)` (see passes/pass.hpp)");
};
template <class First, class Second>
struct passes_share_a_name {
  static_assert(mistake<passes_share_a_name>, "tile2buffer: two passes of one set have the same `name`, so --pass-pipeline, "
                                              "--print-after and --timing could not tell them apart: rename one");
};

template <class P>
constexpr bool pass_ok() {
  if constexpr (!named_pass<P>) return report<pass_without_name<P>>();
  else if constexpr (!pass<P>) return report<pass_without_run<P>>();
  else return true;
}

template <class P, class Recipes>
constexpr result<program> run_alone(const program& p, const options& o, analysis_cache& c) {
  if constexpr (checking_pass<P>) {
    result<program> r;
    r.errors = P::check(p, o, c);
    if (r.ok()) r.value = p;
    return r;
  } else if constexpr (runs_with<P, Recipes>) {
    return P::template run<Recipes>(p, o, c);
  } else {
    return P::run(p, o, c);
  }
}

template <class P>
constexpr std::string_view verified_by() {
  if constexpr (requires { typename P::verified_by; }) return P::verified_by::name;
  else return {};
}

template <class P, class Recipes>
constexpr std::vector<diagnostic> step(pass_state& s) {
  if constexpr (checking_pass<P>) {
    // Why a check and not `run`: the program stays as it is, so its output would be a copy.
    if (s.owns_latest() && s.checked_by == P::name) return {};  // its builder already ran this check
    return P::check(*s.latest, s.opts, s.cache);
  } else {
    if constexpr (runs_in_place_with<P, Recipes>) {
      if (s.owns_latest()) {
        // The run owns this program and the pass only annotates it or rewrites a few functions:
        // update it where it is instead of copying it.
        std::vector<diagnostic> errors;
        s.checked_by = {};
        P::template run_in_place<Recipes>(s.current.value, s.opts, s.cache, errors);
        if (errors.empty() && s.opts.verify_each) errors = verify<>(s.current.value);
        if (errors.empty()) s.checked_by = verified_by<P>();
        return errors;
      }
    }
    result<program> next = run_alone<P, Recipes>(*s.latest, s.opts, s.cache);
    if (next.ok() && s.opts.verify_each) next.errors = verify<>(next.value);
    if (!next.ok()) return static_cast<std::vector<diagnostic>&&>(next.errors);
    s.current = static_cast<result<program>&&>(next);
    s.latest = &s.current.value;
    s.checked_by = verified_by<P>();
    return {};
  }
}

template <class P>
constexpr bool flag_buffer_ir_only() {
  if constexpr (requires { bool{P::buffer_ir_only}; }) return P::buffer_ir_only;
  else return false;
}
template <class P>
constexpr bool flag_extended_rollout_only() {
  if constexpr (requires { bool{P::extended_rollout_only}; }) return P::extended_rollout_only;
  else return false;
}
template <class P>
constexpr bool flag_notes_kernels_left_tile() {
  if constexpr (requires { bool{P::notes_kernels_left_tile}; }) return P::notes_kernels_left_tile;
  else return false;
}
template <class P>
constexpr auto notices_of() -> std::vector<diagnostic> (*)(const program&, const options&, analysis_cache&) {
  if constexpr (requires(const program& p, const options& o, analysis_cache& c) {
                  { P::notices(p, o, c) } -> std::same_as<std::vector<diagnostic>>;
                })
    return &P::notices;
  else return nullptr;
}
template <class P>
constexpr bool flag_verifies_program() {
  if constexpr (requires { bool{P::verifies_program}; }) return P::verifies_program;
  else return false;
}

template <class... P>
constexpr std::array<std::string_view, sizeof...(P)> names_of(boost::hana::basic_type<P>...) {
  return {std::string_view(P::name)...};
}
/// The names of a set's passes, in order (its passes must be named).
template <class Set>
constexpr auto pass_names_of() {
  return boost::hana::unpack(Set::pass_list_type::entries, [](auto... p) { return names_of(p...); });
}

template <class Recipes>
struct make_pass_entries {
  template <class... P>
  constexpr std::array<pass_entry, sizeof...(P)> operator()(boost::hana::basic_type<P>...) const {
    return {pass_entry{P::name, flag_buffer_ir_only<P>(), flag_verifies_program<P>(), flag_extended_rollout_only<P>(),
                       flag_notes_kernels_left_tile<P>(), notices_of<P>(), &run_alone<P, Recipes>, &step<P, Recipes>}...};
  }
};
}  // namespace detail

/// The compile-time view of one pass set under one recipe set: its entries and checks.
template <pass_set Set, recipe_set Recipes>
struct pass_table {
  static constexpr auto types = Set::pass_list_type::entries;
  using recipes = Recipes;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  template <class... P>
  static constexpr bool passes_ok(boost::hana::basic_type<P>...) {
    return (detail::pass_ok<P>() && ...);
  }
  struct pair {
    std::size_t first = 0, second = 0;
    bool found = false;
  };
  template <std::size_t N>
  static constexpr pair first_duplicate(const std::array<std::string_view, N>& names) {
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = i + 1; j < N; ++j)
        if (names[i] == names[j]) return {i, j, true};
    return {};
  }
  template <std::size_t I>
  using at = typename std::remove_cvref_t<decltype(boost::hana::at_c<I>(types))>::type;
  static constexpr bool checked_impl() {
    // Why the guard: a malformed pass is reported alone, not again when its entry is built.
    if constexpr (!boost::hana::unpack(types, [](auto... p) { return passes_ok(p...); })) {
      return false;
    } else {
      constexpr pair dup = first_duplicate(detail::pass_names_of<Set>());
      if constexpr (dup.found) return detail::report<detail::passes_share_a_name<at<dup.first>, at<dup.second>>>();
      else return true;
    }
  }
  static constexpr auto make_entries() {
    if constexpr (checked_impl()) return boost::hana::unpack(types, detail::make_pass_entries<Recipes>{});
    else return std::array<pass_entry, 0>{};
  }

 public:
  /// Every type is a pass and no two share a name. `run_pipeline<>` asserts it.
  static constexpr bool checked = checked_impl();
  static constexpr auto entries = make_entries();

  /// The position of the pass called `name`, or `npos`.
  [[nodiscard]] static constexpr std::size_t find(std::string_view name) {
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (entries[i].name == name) return i;
    return npos;
  }
};

}  // namespace v0
}  // namespace tile2buffer
