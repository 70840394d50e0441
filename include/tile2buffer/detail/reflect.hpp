// SPDX-License-Identifier: Apache-2.0
/// @file detail/reflect.hpp
/// Compile-time checks over a struct adapted with `BOOST_HANA_ADAPT_STRUCT`: the adapted list is
/// written by hand next to the struct, so these prove it names every member, and that a function
/// of the struct (a cache key) sees each of them.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include <boost/hana/accessors.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/unpack.hpp>

namespace tile2buffer {
inline namespace v0 {
namespace detail {

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
constexpr E other_value(E v) {
  return v == E{} ? static_cast<E>(1) : E{};
}

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
