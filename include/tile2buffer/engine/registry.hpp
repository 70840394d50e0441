// SPDX-License-Identifier: Apache-2.0
/// @file engine/registry.hpp
/// Recipe sets: a Hana sequence of recipe and stays-Tile entry types, from which the per-op
/// buckets in benefit order (the constexpr dispatch table), coverage and ambiguity are computed
/// at compile time. Every set handed to `select<>`/`lower<>` (the `recipe_set` concept) is
/// checked; a mistake is reported once, naming the entry or the op, with the fix:
///
///   struct host_recipes : with_recipes<default_recipes, my_recipe, stays_tile<tile::exp, "why">> {};
///
/// `with_recipes` appends entries: a recipe replaces any stays-Tile entry of its source, a
/// stays-Tile entry removes every recipe of its source. A stays-Tile entry beside extended-tier
/// recipes of its op (the reductions) says why the op stays Tile in the default rollout. Deriving a named struct (as above) keeps
/// the set's name short in diagnostics.
#pragma once

#include <array>
#include <cstdint>
#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/hana/at.hpp>
#include <boost/hana/concat.hpp>
#include <boost/hana/filter.hpp>
#include <boost/hana/remove_if.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include "tile2buffer/concepts/recipe.hpp"

namespace tile2buffer {
inline namespace v0 {

/// One registered recipe, type-erased into function pointers for table dispatch.
struct recipe_entry {
  opcode source{};
  std::string_view name;
  int benefit = 0;
  bool default_rollout = false;
  std::span<const dtype> dtypes;  ///< the element types the recipe accepts; empty: no restriction of its own
  match_result (*match)(const function&, op_id, const match_context&) = nullptr;
  void (*rewrite)(const function&, op_id, lowering&) = nullptr;
};

/// One stays-Tile entry of a set.
struct stays_tile_info {
  opcode op{};
  std::string_view reason;
};

/// A recipe set: recipes and stays-Tile entries, in any order.
template <class... E>
struct recipe_list {
  using list_type = recipe_list;
  static constexpr auto entries = boost::hana::tuple_t<E...>;
};

/// The entries of several recipe lists, in order, as one list.
template <class... Lists>
struct join_recipe_lists;
template <class... E>
struct join_recipe_lists<recipe_list<E...>> {
  using type = recipe_list<E...>;
};
template <class... A, class... B, class... Rest>
struct join_recipe_lists<recipe_list<A...>, recipe_list<B...>, Rest...> : join_recipe_lists<recipe_list<A..., B...>, Rest...> {};

namespace detail {
template <op_family F, template <opcode> class Entry, class Seq>
struct family_entries;
template <op_family F, template <opcode> class Entry, std::size_t... I>
struct family_entries<F, Entry, std::index_sequence<I...>> {
  using type = recipe_list<Entry<members<F, dialect::tile>[I]>...>;
};
}  // namespace detail
/// `Entry<member>` for every Tile member of family `F`, in opcode order: a family's recipe (or
/// stays-Tile entry) is written once and each member, present or added later, gets it.
template <op_family F, template <opcode> class Entry>
using family_recipes =
    typename detail::family_entries<F, Entry, std::make_index_sequence<members<F, dialect::tile>.size()>>::type;

namespace detail {
template <class T>
struct is_recipe_list : std::false_type {};
template <class... E>
struct is_recipe_list<recipe_list<E...>> : std::true_type {};
}  // namespace detail

/// A type usable as the recipe set of `select<>`/`lower<>`: a `recipe_list` or a struct derived
/// from one. Its entries are checked when the set is first used (`registry<Set>::checked`).
// clang-format off
template <class S>
concept recipe_set = requires { typename S::list_type; } && detail::is_recipe_list<typename S::list_type>::value &&
                     std::is_base_of_v<typename S::list_type, S>;
// clang-format on

//===--- the mistakes a set can contain, each reported once by name ---===//
// Why class templates with a failing static_assert: the first line of the compiler's error
// names the template and its arguments (the entry, the pair, the op), and the message says the fix.
namespace detail {
template <class T>
inline constexpr bool mistake = false;

template <class Entry>
struct recipe_without_source {
  static_assert(mistake<recipe_without_source>,
                "tile2buffer: a recipe must name the Tile op it rewrites: add `using source = tile::<op>;` "
                "(for example `using source = op_t<opcode::tile_add>;`)");
};
template <class Entry>
struct recipe_source_is_not_a_tile_op {
  static_assert(mistake<recipe_source_is_not_a_tile_op>,
                "tile2buffer: a recipe's `source` must be a Tile op struct (tile::add, op_t<opcode::tile_load>, ...); "
                "Buffer, scalar and control-flow ops have no recipes");
};
template <class Entry>
struct recipe_contract_not_met {
  static_assert(mistake<recipe_contract_not_met>,
                "tile2buffer: a recipe needs `name`, `benefit`, `default_rollout`, "
                "`static constexpr match_result match(typed<source>, const match_context&)` and "
                "`static constexpr void rewrite(typed<source>, lowering&)` (see concepts/recipe.hpp); "
                "a stays-Tile entry is `stays_tile<tile::<op>, \"reason\">`");
};
template <class First, class Second>
struct ambiguous_recipes {
  static_assert(mistake<ambiguous_recipes>, "tile2buffer: two recipes of one source op share a benefit, so their order would be "
                                            "arbitrary: give one of them a higher `benefit`");
};
template <class Recipe, class StaysTile>
struct recipe_and_stays_tile_for_one_op {
  static_assert(mistake<recipe_and_stays_tile_for_one_op>,
                "tile2buffer: a set lists both a recipe and a stays-Tile entry for one op: keep one "
                "(`with_recipes` does this for you: a recipe replaces the stays-Tile entry)");
};
template <opcode Op>
struct uncovered_tile_op {
  static_assert(mistake<uncovered_tile_op>,
                "tile2buffer: a Tile op has neither a recipe nor a stays-Tile entry in this recipe set: "
                "add a recipe for it, or `stays_tile<tile::<op>, \"reason\">`, with with_recipes<Set, ...>");
};
/// Instantiates the template that names the mistake (its static_assert is the one error) and
/// answers false. Why through decltype: reading a member of the failed class would add errors.
template <class Mistake>
constexpr bool report() {
  using named [[maybe_unused]] = decltype(Mistake{});
  return false;
}

/// Checks one entry; on a mistake, instantiates the one template that names it.
template <class E>
constexpr bool entry_ok() {
  if constexpr (!requires { typename E::source; }) return report<recipe_without_source<E>>();
  else if constexpr (!tile_op<typename E::source>) return report<recipe_source_is_not_a_tile_op<E>>();
  else if constexpr (!recipe<E> && !stays_tile_entry<E>) return report<recipe_contract_not_met<E>>();
  else return true;
}

template <class E>
struct is_recipe : std::bool_constant<recipe<E>> {};
template <class E>
struct is_stays_tile : std::bool_constant<stays_tile_entry<E>> {};

template <class R>
constexpr match_result match_typed(const function& f, op_id o, const match_context& c) {
  return R::match(typed<typename R::source>(f, o), c);
}
template <class R>
constexpr void rewrite_typed(const function& f, op_id o, lowering& l) {
  R::rewrite(typed<typename R::source>(f, o), l);
}

/// A recipe's optional `dtypes` member (see concepts/recipe.hpp).
template <class R>
constexpr std::span<const dtype> dtypes_of() {
  if constexpr (requires { std::span<const dtype>(R::dtypes); }) return R::dtypes;
  else return {};
}
struct make_recipe_entries {
  template <class... R>
  constexpr std::array<recipe_entry, sizeof...(R)> operator()(boost::hana::basic_type<R>...) const {
    return {recipe_entry{R::source::code, R::name, R::benefit, R::default_rollout, dtypes_of<R>(), &match_typed<R>,
                         &rewrite_typed<R>}...};
  }
};
struct make_stays_entries {
  template <class... S>
  constexpr std::array<stays_tile_info, sizeof...(S)> operator()(boost::hana::basic_type<S>...) const {
    return {stays_tile_info{S::source::code, S::reason}...};
  }
};

template <class E>
constexpr opcode source_code() {
  if constexpr (requires { E::source::code; }) return E::source::code;
  else return opcode::count_;
}

/// with_recipes' rule: which existing entries the added ones override.
template <class... Added>
struct overridden_by {
  template <class E>
  constexpr auto operator()(boost::hana::basic_type<E>) const {
    constexpr opcode c = source_code<E>();
    constexpr bool hit = c != opcode::count_ &&
                         ((source_code<Added>() == c && (stays_tile_entry<Added> || stays_tile_entry<E>)) || ...);
    return boost::hana::bool_c<hit>;
  }
};
}  // namespace detail

/// The compile-time view of one recipe set: its entries, dispatch table and checks.
template <recipe_set Set>
struct registry {
  static constexpr auto entries = Set::list_type::entries;
  static constexpr auto recipes = boost::hana::filter(entries, boost::hana::trait<detail::is_recipe>);
  static constexpr auto stays = boost::hana::filter(entries, boost::hana::trait<detail::is_stays_tile>);
  static constexpr auto recipe_entries = boost::hana::unpack(recipes, detail::make_recipe_entries{});
  static constexpr auto stays_entries = boost::hana::unpack(stays, detail::make_stays_entries{});
  static constexpr std::size_t size = recipe_entries.size();

  /// Recipes sorted by source op, then by benefit (highest first). Why an insertion sort: it is
  /// stable and constexpr, and a set holds tens of recipes.
  static constexpr std::array<recipe_entry, size> sorted = [] {
    auto e = recipe_entries;
    const auto before = [](const recipe_entry& a, const recipe_entry& b) {
      return a.source != b.source ? a.source < b.source : a.benefit > b.benefit;
    };
    for (std::size_t i = 1; i < e.size(); ++i)
      for (std::size_t j = i; j > 0 && before(e[j], e[j - 1]); --j) std::swap(e[j], e[j - 1]);
    return e;
  }();
  /// offsets[c] .. offsets[c + 1] are the candidates of opcode c.
  static constexpr std::array<std::size_t, opcode_count + 1> offsets = [] {
    std::array<std::size_t, opcode_count + 1> o{};
    std::size_t i = 0;
    for (std::size_t c = 0; c < opcode_count; ++c) {
      o[c] = i;
      while (i < size && static_cast<std::size_t>(sorted[i].source) == c) ++i;
    }
    o[opcode_count] = i;
    return o;
  }();
  [[nodiscard]] static constexpr std::span<const recipe_entry> candidates(opcode c) {
    const auto i = static_cast<std::size_t>(c);
    return std::span<const recipe_entry>(sorted).subspan(offsets[i], offsets[i + 1] - offsets[i]);
  }
  /// stays_position[c]: the index of c's stays-Tile entry in `stays_entries`, or -1. Why a table:
  /// the dispatch asks for every op it tries, and the extended rollout tripled the entries, which
  /// made the scan a tenth of the default pipeline's instructions on elementwise kernels.
  static constexpr std::array<std::int16_t, opcode_count> stays_position = [] {
    std::array<std::int16_t, opcode_count> p{};
    for (auto& x : p) x = -1;
    for (std::size_t i = 0; i < stays_entries.size(); ++i)
      if (p[static_cast<std::size_t>(stays_entries[i].op)] < 0)
        p[static_cast<std::size_t>(stays_entries[i].op)] = static_cast<std::int16_t>(i);
    return p;
  }();
  /// The set's stays-Tile entry for `c`, if it has one.
  [[nodiscard]] static constexpr const stays_tile_info* stays_tile_reason(opcode c) {
    const std::int16_t i = stays_position[static_cast<std::size_t>(c)];
    return i < 0 ? nullptr : &stays_entries[static_cast<std::size_t>(i)];
  }

 private:
  struct pair {
    std::size_t first = 0, second = 0;
    bool found = false;
  };
  /// First two recipes (positions in `recipes`) with one source and one benefit.
  static constexpr pair first_ambiguity() {
    for (std::size_t i = 0; i < size; ++i)
      for (std::size_t j = i + 1; j < size; ++j)
        if (recipe_entries[i].source == recipe_entries[j].source && recipe_entries[i].benefit == recipe_entries[j].benefit)
          return {i, j, true};
    return {};
  }
  /// First default-tier recipe and stays-Tile entry (positions in `recipes`, `stays`) naming one
  /// op. An extended-tier recipe may share its op with a stays-Tile entry: the entry is then the
  /// op's reason under the default rollout (`reductions remain Tile in the normal pipeline`).
  static constexpr pair first_conflict() {
    for (std::size_t i = 0; i < size; ++i)
      for (std::size_t j = 0; j < stays_entries.size(); ++j)
        if (recipe_entries[i].default_rollout && recipe_entries[i].source == stays_entries[j].op) return {i, j, true};
    return {};
  }
  /// First Tile op with neither a recipe nor a stays-Tile entry (opcode::count_ when none): each
  /// needs at least one (ir/coverage.hpp).
  static constexpr opcode first_uncovered() {
    std::array<std::size_t, opcode_count> seen{};
    for (const recipe_entry& e : recipe_entries) ++seen[static_cast<std::size_t>(e.source)];
    for (const stays_tile_info& e : stays_entries) ++seen[static_cast<std::size_t>(e.op)];
    const coverage_gap gap = first_count_gap(
        seen, [](std::size_t c) { return is_tile_op(static_cast<opcode>(c)) ? entries::at_least_one : entries::at_most_one; });
    return gap.found(opcode_count) && gap.count == 0 ? static_cast<opcode>(gap.key) : opcode::count_;
  }
  template <std::size_t I, class Seq>
  using at = typename std::remove_cvref_t<decltype(boost::hana::at_c<I>(std::declval<Seq>()))>::type;

  static constexpr bool check() {
    constexpr pair amb = first_ambiguity();
    constexpr pair both = first_conflict();
    constexpr opcode uncovered = first_uncovered();
    if constexpr (amb.found)
      return detail::report<detail::ambiguous_recipes<at<amb.first, decltype(recipes)>, at<amb.second, decltype(recipes)>>>();
    else if constexpr (both.found)
      return detail::report<
          detail::recipe_and_stays_tile_for_one_op<at<both.first, decltype(recipes)>, at<both.second, decltype(stays)>>>();
    else if constexpr (uncovered != opcode::count_) return detail::report<detail::uncovered_tile_op<uncovered>>();
    else return true;
  }
  template <class... E>
  static constexpr bool entries_ok(boost::hana::basic_type<E>...) {
    return (detail::entry_ok<E>() && ...);
  }
  static constexpr bool checked_impl() {
    // Why the guard: a malformed entry is reported alone, not again as an uncovered op.
    if constexpr (!boost::hana::unpack(entries, [](auto... e) { return entries_ok(e...); })) return false;
    else return check();
  }

 public:
  /// Every entry is a recipe or a stays-Tile entry, no two recipes of one op share a benefit, no
  /// op has both, and every Tile op is covered. `select<>` and `lower<>` assert it.
  static constexpr bool checked = checked_impl();
};

/// `Set` extended by host entries (see the file comment for the override rule).
template <recipe_set Set, class... Added>
using with_recipes = typename decltype(boost::hana::unpack(
    boost::hana::concat(boost::hana::remove_if(Set::list_type::entries, detail::overridden_by<Added...>{}),
                        boost::hana::tuple_t<Added...>),
    boost::hana::template_<recipe_list>))::type;

}  // namespace v0
}  // namespace tile2buffer
