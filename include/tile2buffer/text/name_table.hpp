// SPDX-License-Identifier: Apache-2.0
/// @file text/name_table.hpp
/// An open-addressing hash table from names to ids, usable in constant evaluation. Keys are
/// stored as ranges into a caller-owned character buffer, so the buffer may grow (and move)
/// between calls: every call passes its current contents as `base`.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/ids.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

class name_table {
 public:
  enum class state : std::uint8_t { empty, visible, hidden, released };
  struct slot {
    std::uint32_t begin = 0;
    std::uint32_t len = 0;
    std::uint32_t value = no_id;
    std::uint32_t hash = 0;
    state st = state::empty;
  };

  constexpr name_table() { clear(); }

  /// Forgets every entry. Expected O(1) lookups and inserts; the table doubles at half load.
  constexpr void clear() {
    slots_.assign(initial_capacity, slot{});
    used_ = 0;
  }

  /// The entry for `key`, or nullptr. `key` need not lie inside `base`.
  [[nodiscard]] constexpr slot* find(std::string_view base, std::string_view key) {
    slot& s = probe(base, key, hash(key));
    return s.st == state::empty ? nullptr : &s;
  }

  /// Inserts `base[begin, begin + len)` unless it is present: the new entry, or nullptr. One
  /// probe where `find` then `insert` take two (each a likely cache miss in a large table).
  constexpr slot* insert_new(std::string_view base, std::uint32_t begin, std::uint32_t len, std::uint32_t value, state st) {
    const place p = slot_for(base, begin, len);
    if (p.s->st != state::empty) return nullptr;
    return &fill(p, begin, len, value, st);
  }

  /// Inserts `base[begin, begin + len)`, which must be absent, and returns its entry.
  constexpr slot& insert(std::string_view base, std::uint32_t begin, std::uint32_t len, std::uint32_t value, state st) {
    return fill(slot_for(base, begin, len), begin, len, value, st);
  }

 private:
  static constexpr std::size_t initial_capacity = 64;

  static constexpr std::uint32_t hash(std::string_view key) {
    std::uint32_t h = 2166136261u;  // FNV-1a
    for (const char c : key) {
      h ^= static_cast<unsigned char>(c);
      h *= 16777619u;
    }
    // Why: FNV's low bits mix poorly for names that differ only in trailing digits (t1, t2, ...);
    // a final avalanche (murmur3's) keeps linear-probing chains short.
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
  }
  /// The slot of `base[begin, begin + len)` (its entry, or where it goes, with room to add it)
  /// and the key's hash.
  struct place {
    slot* s;
    std::uint32_t h;
  };
  constexpr place slot_for(std::string_view base, std::uint32_t begin, std::uint32_t len) {
    if (2 * (used_ + 1) > slots_.size()) grow(base);
    const std::string_view key = base.substr(begin, len);
    const std::uint32_t h = hash(key);
    return place{&probe(base, key, h), h};
  }
  constexpr slot& fill(place p, std::uint32_t begin, std::uint32_t len, std::uint32_t value, state st) {
    *p.s = slot{begin, len, value, p.h, st};
    ++used_;
    return *p.s;
  }
  constexpr slot& probe(std::string_view base, std::string_view key, std::uint32_t h) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    while (slots_[i].st != state::empty &&
           (slots_[i].hash != h || slots_[i].len != key.size() || base.substr(slots_[i].begin, slots_[i].len) != key))
      i = (i + 1) & mask;
    return slots_[i];
  }
  constexpr void grow(std::string_view base) {
    std::vector<slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const slot& s : old) {
      if (s.st == state::empty) continue;
      probe(base, base.substr(s.begin, s.len), s.hash) = s;
    }
  }

  std::vector<slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
