// SPDX-License-Identifier: Apache-2.0
/// @file detail/reflect.hpp
/// Per-member code for structs adapted with `BOOST_HANA_ADAPT_STRUCT`: a `;name=value` key writer,
/// and compile-time checks that the hand-written adapted list names every member and that a
/// function of the struct (a cache key) sees each of them.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include <boost/hana/accessors.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/unpack.hpp>

#include "tile2buffer/detail/text.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

constexpr void append_key_value(text& k, bool v) { k << (v ? 1 : 0); }
template <class E>
  requires std::is_enum_v<E>
constexpr void append_key_value(text& k, E v) {
  k << name(v);  // found by ADL next to the enum
}

/// Appends `;member=value` for every adapted member of `t`, in the adapted order. Members are
/// bools (`0`/`1`) or enums with a `name()`; another member type fails here, asking for a writer.
template <class T>
constexpr void append_members_as_key(text& k, const T& t) {
  namespace hana = boost::hana;
  hana::for_each(hana::accessors<T>(), [&](auto field) {
    k << ';' << hana::to<const char*>(hana::first(field)) << '=';
    append_key_value(k, hana::second(field)(t));
  });
}

/// Converts to any member type; only named in unevaluated operands, so never defined.
struct any_member {
  template <class T>
  operator T() const;  // NOLINT: implicit by design
};

/// Number of members of aggregate `T`: the longest brace initializer of `any_member`s it accepts.
/// One `any_member` initializes one member whatever its type, because the conversion is always
/// viable and so brace elision never applies.
template <class T, class... Seen>
consteval std::size_t aggregate_member_count() {
  if constexpr (requires { T{Seen{}..., any_member{}}; }) return aggregate_member_count<T, Seen..., any_member>();
  else return sizeof...(Seen);
}

/// A value other than `v`, to see whether a function of the struct notices the member.
constexpr bool other_value(bool v) { return !v; }
template <class E>
  requires std::is_enum_v<E>
constexpr E other_value(E v) { return v == E{} ? static_cast<E>(1) : E{}; }

/// True iff the adapted member list has one entry per member of `T` and, starting from `T{}`,
/// changing each listed member gives `key` values that differ from the default's and from each
/// other's. Distinct keys imply distinct listed members, so with the count every member is covered.
template <class T, class Key>
constexpr bool every_member_changes(Key key) {
  namespace hana = boost::hana;
  constexpr auto fields = hana::accessors<T>();
  constexpr std::size_t n = decltype(hana::length(fields))::value;
  if (n != aggregate_member_count<T>()) return false;
  const auto keys = hana::unpack(fields, [&](auto... field) {
    const auto changed = [&](auto f) {
      T t{};
      auto& member = hana::second(f)(t);
      member = other_value(member);
      return key(t);
    };
    return std::array{key(T{}), changed(field)...};
  });
  for (std::size_t i = 0; i < keys.size(); ++i)
    for (std::size_t j = i + 1; j < keys.size(); ++j)
      if (keys[i] == keys[j]) return false;
  return true;
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
