// SPDX-License-Identifier: Apache-2.0
/// @file analysis/storage_overlap.hpp
/// When two Tile windows share bytes (reference §4.2): in one allocation by offsets; under an
/// addressed planner also across allocations by placed address. One definition for the pass that
/// decides where a result needs fresh storage (legalize) and the check that rejects what it missed
/// (checks/tile_storage.hpp): were they two, legalization could leave an overlap the check rejects.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/detail/checked.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/types.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// The reference's phrases for overlapping placed ranges (hosts match on them; both storage
/// checks, checks/tile_storage.hpp and checks/buffer.hpp, say them).
inline constexpr std::string_view partial_phrase = "rejects partially overlapping placed source and destination ranges";
inline constexpr std::string_view disjoint_phrase = "requires disjoint placed source and destination ranges";

/// Byte ranges of two Tile values in one allocation overlap.
template <class = void>
constexpr bool storage_overlaps(stored_tile a, stored_tile b) {
  return a.at.mem == b.at.mem && sum_exceeds(b.at.offset, b.ty.bytes(), a.at.offset) &&
         sum_exceeds(a.at.offset, a.ty.bytes(), b.at.offset);
}

/// Two Tile types name the same storage window (same allocation, offset and size).
template <class = void>
constexpr bool same_window(stored_tile a, stored_tile b) {
  return a.at.mem == b.at.mem && a.at.offset == b.at.offset && a.ty.bytes() == b.ty.bytes();
}

/// Where a Tile value's window lies in its memory space once placed: its allocation's address
/// plus its offset. None while either is unknown (an allocation not yet placed, or addressless).
template <class = void>
constexpr std::optional<std::int64_t> placed_start(const storage_facts& facts, stored_tile t) {
  const allocation* a = facts.find(t.at.mem);
  if (a == nullptr || !a->address) return std::nullopt;
  return checked_sum(*a->address, t.at.offset);
}

/// Two Tile values in different allocations that both carry an address share bytes of one
/// memory space. Why only then: an allocation still without an address is placed later around
/// the addressed ones, and addressless planners drop every address (their allocations are always
/// fresh storage). Different spaces are different arenas and may share an address. An address
/// whose end overflows cannot be proven disjoint: it counts as overlapping.
template <class = void>
constexpr bool placed_ranges_overlap(const storage_facts& facts, stored_tile a, stored_tile b) {
  if (a.at.mem == b.at.mem || a.ty.space != b.ty.space) return false;
  const allocation* pa = facts.find(a.at.mem);
  const allocation* pb = facts.find(b.at.mem);
  if (pa == nullptr || pb == nullptr || !pa->address || !pb->address) return false;
  const auto sa = placed_start(facts, a), sb = placed_start(facts, b);
  if (!sa || !sb) return true;
  return sum_exceeds(*sb, b.ty.bytes(), *sa) && sum_exceeds(*sa, a.ty.bytes(), *sb);
}

/// The verifier's view of storage (reference §4.2): in one allocation by offsets; under an
/// addressed planner ("allocated mode") also across allocations by placed address, where base
/// identity is not required and two windows at one placed range are the same window.
struct storage_view {
  const storage_facts& facts;
  bool placed;  ///< addressed planner: compare placed ranges across allocations

  [[nodiscard]] constexpr bool overlaps(stored_tile a, stored_tile b) const {
    return storage_overlaps(a, b) || (placed && placed_ranges_overlap(facts, a, b));
  }
  [[nodiscard]] constexpr bool same(stored_tile a, stored_tile b) const {
    if (same_window(a, b)) return true;
    if (!placed || a.ty.space != b.ty.space || a.ty.bytes() != b.ty.bytes()) return false;
    const auto sa = placed_start(facts, a), sb = placed_start(facts, b);
    return sa && sb && *sa == *sb;
  }
  /// " (placed Vec bytes [x, y) and [z, w))" when the two windows are in different placed allocations.
  [[nodiscard]] constexpr text where(stored_tile a, stored_tile b) const {
    const auto sa = placed_start(facts, a), sb = placed_start(facts, b);
    if (a.at.mem == b.at.mem || !sa || !sb) return text();
    return text(" (placed ") << name(a.ty.space) << " bytes [" << *sa << ", " << *sa + a.ty.bytes() << ") and [" << *sb << ", "
                             << *sb + b.ty.bytes() << "))";
  }
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
