// SPDX-License-Identifier: Apache-2.0
/// @file engine/storage_alloc.hpp
/// The `tile.alloc` a storage pass adds for a Tile value: init_storage one per storage family,
/// legalize one per fresh destination, snapshot and parallel-move scratch. Here, not in either
/// pass, so that neither pass includes the other.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/ir/create.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Emits `mem_<name> = tile.alloc(SPACE, bytes)` sized for Tile value `v` of `src` into the
/// builder's current region, at `loc`; returns the new allocation. `suffix` extends the name
/// (`mem_<name><suffix>`). `src` may be the function `b` is extending: what is read of `v` is
/// copied before anything is appended.
template <class = void>
constexpr value_id emit_alloc_for(function_builder& b, const function& src, value_id v, location loc,
                                  std::string_view suffix = {}) {
  const memory_space space = src.type_of(v).space;
  const std::int64_t bytes = src.type_of(v).bytes();
  // Why a stack buffer: this runs once per allocation, and a heap-built name was a tenth of the
  // pass (the builder copies the name into its pool anyway).
  const std::string_view base = src.name_of(v);
  std::array<char, 96> small{};
  text large;
  std::string_view nm;
  if (4 + base.size() + suffix.size() <= small.size()) {
    std::size_t n = 0;
    for (const char c : std::string_view("mem_")) small[n++] = c;
    for (const char c : base) small[n++] = c;
    for (const char c : suffix) small[n++] = c;
    nm = std::string_view(small.data(), n);
  } else {
    large << "mem_" << base << suffix;
    nm = large.view();
  }
  return b.create<tile::alloc>({.space = space, .capacity = bytes}, mem_type(), nm, loc);
}
/// The same for source value `v` of a rewriter, into its current region (a target value).
template <class = void>
constexpr value_id emit_alloc_for(rewriter& rw, value_id v, location loc, std::string_view suffix = {}) {
  return emit_alloc_for(rw.builder(), rw.source(), v, loc, suffix);
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
