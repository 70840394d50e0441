// SPDX-License-Identifier: Apache-2.0
/// @file text/name_table.hpp
/// An open-addressing hash table from names to ids, usable in constant evaluation. Keys are
/// stored as ranges into a caller-owned character buffer, so the buffer may grow (and move)
/// between calls: every call passes its current contents as `base`.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tile2buffer/ir/ids.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

class name_table {
 public:
  enum class state : std::uint8_t { empty, visible, hidden, released };
  /// A name (a range of the caller's buffer), the caller's number for it and its visibility.
  struct entry {
    std::uint32_t begin = 0;
    std::uint32_t len = 0;
    std::uint32_t value = no_id;
    state st = state::empty;
  };

  constexpr name_table() { clear(); }

  /// The hash of a key, in steps, so that the lexer computes it while it reads a name (each byte
  /// once) and a lookup need not read the name again: `finish(step(...step(seed, c0)..., cn))`.
  static constexpr std::uint32_t hash_seed = 2166136261u;  // FNV-1a
  static constexpr std::uint32_t hash_step(std::uint32_t h, char c) { return (h ^ static_cast<unsigned char>(c)) * 16777619u; }
  static constexpr std::uint32_t hash_finish(std::uint32_t h) {
    // Why: FNV's low bits mix poorly for names that differ only in trailing digits (t1, t2, ...);
    // a final avalanche (murmur3's) keeps linear-probing chains short.
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
  }
  static constexpr std::uint32_t hash(std::string_view key) {
    std::uint32_t h = hash_seed;
    for (const char c : key) h = hash_step(h, c);
    return hash_finish(h);
  }

  /// Forgets every entry. Expected O(1) lookups and inserts; the table doubles at half load.
  constexpr void clear() {
    slots_.assign(initial_capacity, slot{});
    entries_.clear();
  }
  /// Makes room for `n` entries, so that inserting them never rehashes.
  constexpr void reserve(std::size_t n) {
    std::size_t cap = slots_.size();
    while (cap < 2 * n) cap *= 2;
    if (cap != slots_.size()) rehash(cap);
    entries_.reserve(n);
  }

  /// The entry for `key`, or nullptr. `key` need not lie inside `base`. Valid until the next insert.
  [[nodiscard]] constexpr entry* find(std::string_view base, std::string_view key) { return find(base, key, hash(key)); }
  /// The same, with `h == hash(key)` already known.
  [[nodiscard]] constexpr entry* find(std::string_view base, std::string_view key, std::uint32_t h) {
    const slot& s = probe(base, key, h);
    return s.entry == 0 ? nullptr : &entries_[s.entry - 1];
  }
  /// An entry's position, stable across inserts (unlike its address), and the entry at one.
  [[nodiscard]] constexpr std::uint32_t index_of(const entry& e) const {
    return static_cast<std::uint32_t>(&e - entries_.data());
  }
  [[nodiscard]] constexpr entry& at(std::uint32_t index) { return entries_[index]; }

  /// Asks the CPU to fetch the slot where a probe for `key` starts (not in constant evaluation).
  constexpr void prefetch(std::string_view key) const {
#if defined(__GNUC__) || defined(__clang__)
    if (!std::is_constant_evaluated()) __builtin_prefetch(&slots_[hash(key) & (slots_.size() - 1)]);
#else
    (void)key;
#endif
  }

  /// Inserts `base[begin, begin + len)` unless it is present. Returns its entry (the existing
  /// one, or the new one) and whether it is new. One probe where `find` then `insert` take two
  /// (each a likely cache miss in a large table).
  constexpr std::pair<entry*, bool> emplace(std::string_view base, std::uint32_t begin, std::uint32_t len, std::uint32_t value,
                                            state st) {
    return emplace(base, begin, len, value, st, hash(base.substr(begin, len)));
  }
  /// The same, with `h` the hash of the key already known.
  constexpr std::pair<entry*, bool> emplace(std::string_view base, std::uint32_t begin, std::uint32_t len, std::uint32_t value,
                                            state st, std::uint32_t h) {
    const place p = slot_for(base, begin, len, h);
    if (p.s->entry != 0) return {&entries_[p.s->entry - 1], false};
    return {&fill(p, begin, len, value, st), true};
  }

  /// Inserts `base[begin, begin + len)`, which must be absent, and returns its entry.
  constexpr entry& insert(std::string_view base, std::uint32_t begin, std::uint32_t len, std::uint32_t value, state st) {
    return insert(base, begin, len, value, st, hash(base.substr(begin, len)));
  }
  /// The same, with `h` the hash of the key already known.
  constexpr entry& insert(std::string_view base, std::uint32_t begin, std::uint32_t len, std::uint32_t value, state st,
                          std::uint32_t h) {
    return fill(slot_for(base, begin, len, h), begin, len, value, st);
  }

 private:
  static constexpr std::size_t initial_capacity = 64;
  /// Why slots apart from entries: a probe reads only the 8-byte slots (the hash settles almost
  /// every mismatch), so a table of a million names is a third of the memory it was with the
  /// entries inline, and growing rehashes without reading the entries or the names.
  struct slot {
    std::uint32_t hash = 0;
    std::uint32_t entry = 0;  ///< index + 1 into entries_; 0 = empty
  };

  /// The slot of `base[begin, begin + len)` (its entry, or where it goes, with room to add it)
  /// and the key's hash.
  struct place {
    slot* s;
    std::uint32_t h;
  };
  constexpr place slot_for(std::string_view base, std::uint32_t begin, std::uint32_t len, std::uint32_t h) {
    if (2 * (entries_.size() + 1) > slots_.size()) rehash(2 * slots_.size());
    return place{&probe(base, std::string_view(base.data() + begin, len), h), h};
  }
  // Why a 32-bit entry index suffices: keys are 32-bit offsets into one buffer, so there are
  // fewer than 2^32 of them.
  constexpr entry& fill(place p, std::uint32_t begin, std::uint32_t len, std::uint32_t value, state st) {
    entries_.push_back(entry{begin, len, value, st});
    *p.s = slot{p.h, static_cast<std::uint32_t>(entries_.size())};
    return entries_.back();
  }
  constexpr slot& probe(std::string_view base, std::string_view key, std::uint32_t h) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    while (slots_[i].entry != 0 && (slots_[i].hash != h || !same_key(entries_[slots_[i].entry - 1], base, key)))
      i = (i + 1) & mask;
    return slots_[i];
  }
  static constexpr bool same_key(const entry& e, std::string_view base, std::string_view key) {
    if (e.len != key.size()) return false;
    // Why a loop and not `==`: names are a few bytes, where the call to memcmp costs more.
    const char* a = base.data() + e.begin;
    const char* b = key.data();
    for (std::uint32_t i = 0; i < e.len; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  constexpr void rehash(std::size_t capacity) {
    std::vector<slot> old(capacity, slot{});
    old.swap(slots_);
    const std::size_t mask = capacity - 1;
    for (const slot& s : old) {
      if (s.entry == 0) continue;
      std::size_t i = s.hash & mask;
      while (slots_[i].entry != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<slot> slots_;
  std::vector<entry> entries_;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
