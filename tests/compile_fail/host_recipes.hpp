// SPDX-License-Identifier: Apache-2.0
/// @file host_recipes.hpp
/// Host-written recipes for the recipe-set compile-fail cases: a valid one for tile.exp that
/// defers to the default recipe, and the same with one part of the contract missing.
#pragma once

#include <string_view>

#include <boost/hana/remove_if.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include "tile2buffer/lower.hpp"

namespace host {
namespace t2b = tile2buffer;

template <int Benefit, class Source = t2b::op_t<t2b::opcode::tile_exp>>
struct exp_recipe {
  using source = Source;
  static constexpr std::string_view name = "host-exp";
  static constexpr int benefit = Benefit;
  static constexpr bool default_rollout = true;
  static constexpr t2b::match_result match(t2b::typed<source> op, const t2b::match_context& ctx) {
    return t2b::lower_elementwise<t2b::opcode::tile_exp>::match(op, ctx);
  }
  static constexpr void rewrite(t2b::typed<source> op, t2b::lowering& l) {
    t2b::lower_elementwise<t2b::opcode::tile_exp>::rewrite(op, l);
  }
};

/// The default set without any entry for `Op` (a host trimming the set with Hana).
template <t2b::opcode Op>
struct is_for {
  template <class E>
  constexpr auto operator()(boost::hana::basic_type<E>) const {
    return boost::hana::bool_c<E::source::code == Op>;
  }
};
template <t2b::opcode Op>
using default_without = typename decltype(boost::hana::unpack(boost::hana::remove_if(t2b::default_recipes::entries, is_for<Op>{}),
                                                              boost::hana::template_<t2b::recipe_list>))::type;

/// Instantiates the whole pipeline with a host set, as a host compiler would.
template <class Set>
t2b::result<t2b::program> lower_with(const t2b::program& p) {
  return t2b::lower<Set>(p, t2b::options{});
}
}  // namespace host
