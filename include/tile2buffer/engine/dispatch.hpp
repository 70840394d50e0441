// SPDX-License-Identifier: Apache-2.0
/// @file engine/dispatch.hpp
/// Recipe lists and the constexpr dispatch table: the Tile op's variant index selects its
/// candidate recipes in benefit order. Build-time checks prove coverage and the absence of
/// collisions.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "tile2buffer/concepts/recipe.hpp"

namespace tile2buffer {
inline namespace v0 {

/// One registered recipe, type-erased into function pointers for table dispatch.
struct recipe_entry {
  opcode source{};
  std::string_view name;
  int benefit = 0;
  bool default_rollout = false;
  match_result (*match)(const function&, op_id, const match_context&) = nullptr;
  void (*rewrite)(op_id, lowering&) = nullptr;
};

template <recipe R>
constexpr recipe_entry entry_of() {
  return recipe_entry{R::source::code, R::name, R::benefit, R::default_rollout, &R::match, &R::rewrite};
}

/// A visible list of recipes. Hosts extend a list with `with_recipes<List, Mine...>`.
template <recipe... R>
struct recipe_list {
  static constexpr std::array<recipe_entry, sizeof...(R)> entries{entry_of<R>()...};
  template <class... More>
  using append = recipe_list<R..., More...>;
};

template <class List, class... R>
using with_recipes = typename List::template append<R...>;

/// A Tile op that deliberately has no recipe in the default rollout, and why.
struct stays_tile_entry {
  opcode op{};
  std::string_view reason;
};

/// Recipes of a list sorted by source op, then by benefit (highest first).
template <class List>
struct dispatch_table {
  static constexpr std::size_t size = List::entries.size();
  static constexpr std::array<recipe_entry, size> sorted = [] {
    auto e = List::entries;
    std::sort(e.begin(), e.end(), [](const recipe_entry& a, const recipe_entry& b) {
      return a.source != b.source ? a.source < b.source : a.benefit > b.benefit;
    });
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
  static constexpr std::span<const recipe_entry> candidates(opcode c) {
    const auto i = static_cast<std::size_t>(c);
    return std::span<const recipe_entry>(sorted).subspan(offsets[i], offsets[i + 1] - offsets[i]);
  }
};

/// True when no two recipes share a source op and a benefit (which would make the order arbitrary).
template <class List>
constexpr bool recipes_are_unambiguous() {
  const auto& s = dispatch_table<List>::sorted;
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i].source == s[i - 1].source && s[i].benefit == s[i - 1].benefit) return false;
  return true;
}

/// The first Tile op with neither a recipe nor a stays-Tile entry (opcode_count when none).
template <class List, std::size_t N>
constexpr std::size_t first_uncovered_tile_op(const std::array<stays_tile_entry, N>& stays) {
  for (std::size_t c = 0; c < opcode_count; ++c) {
    const auto op = static_cast<opcode>(c);
    if (!is_tile_op(op) || !dispatch_table<List>::candidates(op).empty()) continue;
    bool listed = false;
    for (const auto& s : stays) listed = listed || s.op == op;
    if (!listed) return c;
  }
  return opcode_count;
}

}  // namespace v0
}  // namespace tile2buffer
