// SPDX-License-Identifier: Apache-2.0
/// @file ir/type_hash.hpp
/// A hash of a type descriptor, for interning types per function (function_builder). Written
/// once over a Boost.Hana tuple of member pointers, not field by field; a static_assert checks
/// the tuple against the aggregate's member count, so a member added to `type` fails to compile
/// until it is listed (and hashed). Why member pointers and not BOOST_HANA_ADAPT_STRUCT: the
/// binary format (serialize/schema.hpp) already adapts `type` as its own view of the fields.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/tuple.hpp>

#include "tile2buffer/config.hpp"
#include "tile2buffer/detail/reflect.hpp"
#include "tile2buffer/ir/ids.hpp"
#include "tile2buffer/ir/types.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Every member that makes two types different, hence every member.
inline constexpr auto type_members = boost::hana::make_tuple(&type::kind, &type::dt, &type::space, &type::tlayout, &type::blayout,
                                                             &type::slayout, &type::pad, &type::compact, &type::has_stride,
                                                             &type::fractal, &type::shape, &type::valid, &type::stride);
inline constexpr auto extent_members = boost::hana::make_tuple(&extent::number, &extent::ref);
template <class T, class Members>
constexpr bool lists_every_member(const Members& members) {
  return static_cast<std::size_t>(decltype(boost::hana::length(members))::value) == aggregate_member_count<T>();
}
static_assert(lists_every_member<type>(type_members) && lists_every_member<extent>(extent_members),
              "every member of tile2buffer::type and extent must be listed in ir/type_hash.hpp");

/// Changes one scalar leaf of a type (an enum, an integer, a bool).
template <class T>
constexpr void nudge(T& m) {
  if constexpr (std::is_same_v<T, bool>) m = !m;
  else if constexpr (std::is_enum_v<T>) m = static_cast<T>(static_cast<std::underlying_type_t<T>>(m) + 1);
  else m = static_cast<T>(m + 1);
}
/// True iff `==` tells `type{}` from a type whose leaf `leaf(t)` (an extent: each of its members)
/// was changed, in both argument orders.
template <class Leaf>
constexpr bool equality_sees(Leaf leaf) {
  const type base{};
  const auto differs = [&](auto change) {
    type t{};
    change(leaf(t));
    return !(base == t) && !(t == base);
  };
  using L = std::remove_cvref_t<decltype(leaf(std::declval<type&>()))>;
  if constexpr (std::is_same_v<L, extent>) {
    bool ok = true;
    boost::hana::for_each(extent_members, [&](auto member) { ok = ok && differs([&](extent& e) { nudge(e.*member); }); });
    return ok;
  } else if constexpr (requires(L & l) { l.index; }) {
    return differs([](L& id) { nudge(id.index); });
  } else {
    return differs([](L& m) { nudge(m); });
  }
}
/// `type`'s hand-written `==` compares every member, element by element.
constexpr bool equality_sees_every_member() {
  bool ok = true;
  boost::hana::for_each(type_members, [&](auto member) {
    using M = std::remove_cvref_t<decltype(std::declval<type&>().*member)>;
    if constexpr (requires { std::tuple_size<M>::value; }) {
      for (std::size_t i = 0; i < std::tuple_size<M>::value; ++i)
        ok = ok && equality_sees([&](type & t) -> auto& { return (t.*member)[i]; });
    } else {
      ok = ok && equality_sees([&](type & t) -> auto& { return t.*member; });
    }
  });
  return ok;
}

/// FNV-1a over 64-bit words: good enough for a table whose keys are few and compared exactly.
constexpr void mix(std::uint64_t& h, std::uint64_t word) {
  h ^= word;
  h *= 0x100000001b3ULL;
}
template <class T>
constexpr void hash_member(std::uint64_t& h, const T& m) {
  if constexpr (std::is_enum_v<T>) mix(h, static_cast<std::uint64_t>(m));
  else if constexpr (std::is_integral_v<T>) mix(h, static_cast<std::uint64_t>(m));
  else if constexpr (std::is_same_v<T, extent>)
    boost::hana::for_each(extent_members, [&](auto member) { hash_member(h, m.*member); });
  else if constexpr (requires { m.index; }) mix(h, m.index);  // a strong id
  else
    for (const auto& e : m) hash_member(h, e);  // std::array
}

}  // namespace detail

/// Equal types hash equal (every member is hashed; `type`'s `==` compares every member).
constexpr std::uint64_t hash(const type& t) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  boost::hana::for_each(detail::type_members, [&](auto member) { detail::hash_member(h, t.*member); });
  // FNV's low bits depend only on the words' low bits; the table indexes by low bits, and
  // offsets are multiples of large powers of two. Fold the high half in.
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 32);
}

/// Interns types into a caller's list (a function's `types`, or a pass's own table): equal types
/// share one entry. Open addressing over a power-of-two table kept at most half full, so
/// interning is O(1); entries the caller appends itself are indexed at the next growth.
class type_interner {
 public:
  /// The id of `t` in `types`, appended on first sight.
  constexpr type_id intern(std::vector<type>& types, const type& t) {
    // Why: consecutive values mostly share a type (a kernel's tiles, a Buffer program's
    // descriptors), and one comparison is cheaper than hashing every member.
    if (last_ < types.size() && types[last_] == t) return type_id{last_};
    const type_id id = intern_slow(types, t);
    last_ = id.index;
    return id;
  }

 private:
  constexpr type_id intern_slow(std::vector<type>& types, const type& t) {
    if (2 * (types.size() + 1) > slots_.size()) rehash(types, slots_.empty() ? 64 : 2 * slots_.size());
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>(hash(t)) & mask;; i = (i + 1) & mask) {
      const std::uint32_t slot = slots_[i];
      if (slot == 0) {
        types.push_back(t);
        slots_[i] = static_cast<std::uint32_t>(types.size());
        return type_id{static_cast<std::uint32_t>(types.size() - 1)};
      }
      if (types[slot - 1] == t) return type_id{slot - 1};
    }
  }
  constexpr void rehash(const std::vector<type>& types, std::size_t n) {
    slots_.assign(n, 0);
    for (std::size_t k = 0; k < types.size(); ++k) {
      std::size_t i = static_cast<std::size_t>(hash(types[k])) & (n - 1);
      while (slots_[i] != 0) i = (i + 1) & (n - 1);
      slots_[i] = static_cast<std::uint32_t>(k + 1);
    }
  }

  std::vector<std::uint32_t> slots_;  ///< 1 + index into the types, or 0 for an empty slot
  std::uint32_t last_ = no_id;        ///< the type interned last
};

}  // namespace v0
}  // namespace tile2buffer
