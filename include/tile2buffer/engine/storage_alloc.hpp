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

/// Emits `mem_<name> = tile.alloc(SPACE, bytes)` sized for source Tile value `v` into the
/// rewriter's current region, at `loc`; returns the new allocation (a target value). `suffix`
/// extends the name (`mem_<name><suffix>`).
template <class = void>
constexpr value_id emit_alloc_for(rewriter& rw, value_id v, location loc, std::string_view suffix = {}) {
  const function& f = rw.source();
  const type& t = f.type_of(v);
  // Why a stack buffer: this runs once per allocation, and a heap-built name was a tenth of the
  // pass (the builder copies the name into its pool anyway).
  const std::string_view base = f.name_of(v);
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
  return rw.builder().create<tile::alloc>({.space = t.space, .capacity = t.bytes()}, mem_type(), nm, loc);
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
