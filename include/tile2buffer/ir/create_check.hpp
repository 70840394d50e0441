// SPDX-License-Identifier: Apache-2.0
/// @file ir/create_check.hpp
/// The operand and keyword structs of the typed builders (ir/create.hpp) adapted as Boost.Hana
/// structs, and the check that they agree with the op catalogue: for every opcode, the members of
/// `operands_of` are `operand_names(c)` in that order, of the kinds `detail::signature_of(c)`
/// gives (`?` optional, `*` the variadic rest), every member is adapted, and the members of
/// `keywords_of` are the op's registered keywords in catalogue order, each an optional scalar.
///
/// Why a header of its own: the adaptations cost more to compile than the builder itself, and a
/// TU that only creates ops does not need them (create.hpp checks each created op's member kinds
/// cheaply). The library's tests include this header (tests/unit/create_test.cpp, and every
/// header is compiled on its own), so the structs are checked on every build of the tests; a
/// host that iterates the structs with `boost::hana::accessors` includes it too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/hana/accessors.hpp>
#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/ir/typed_op.hpp"

BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::none);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::value, value);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::scalar_binary, lhs, rhs);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::scalar_not, arg);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::scalar_cast, value, to);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::if_, cond);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::for_, start, stop, step, inits);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::while_, inits);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::values, values);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::submit, callee, call_args, deps);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_alloc, space, capacity);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_load, tensor, offsets, shape, valid);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_store, tile, offsets, tensor);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::unary, source);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_reshape, source, shape);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_slice, source, shape, offsets, valid);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_assemble, target, source, offsets);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_set_validshape, tile, rows, cols);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_extract, source, row, col);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_binary, lhs, rhs);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_matmul_acc, acc, lhs, rhs);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_scalar, source, scalar);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_row_reduction, source, tmp);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_row_expand_arith, source, vector, blk);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_col_expand_arith, source, vector);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_cast, source, to);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_alloc, init_valid, address);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_set_validshape, buffer, valid);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_load, tensor, offsets, valid, dest);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_store, source, offsets, valid, tensor);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_unary, source, dest);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_unary_tmp, source, dest, tmp);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::tile_unary_tmp, source, tmp);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_subview, source, offsets, valid);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_extract, source, row, col, dest);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_binary, lhs, rhs, dest);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_fill, value, dest);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_scalar, source, scalar, dest);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_row_reduction, source, tmp, dest);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_row_expand_arith, source, blk, dest);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::operands::buffer_col_expand_arith, source, vector, dest);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::keywords::none);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::keywords::tile_alloc, addr);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::keywords::tile_load, cache);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::keywords::tile_store, atomic, st_phase, pre_quant, pre_relu);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::keywords::matmul_acc, init_cond);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::keywords::precision, high_precision);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::keywords::rounding, mode);

namespace tile2buffer {
inline namespace v0 {

namespace detail {
/// A struct's member names ("tensor offsets shape valid", the rest with "...") and kinds
/// ("vppp?", the rest as "*"), read through its Boost.Hana adaptation.
struct struct_shape {
  std::array<char, 64> names{};
  std::array<char, 16> kinds{};
  std::size_t names_size = 0, kinds_size = 0;
  std::size_t member_bytes = 0;  ///< sum of the adapted members' sizes
  [[nodiscard]] constexpr std::string_view names_view() const { return {names.data(), names_size}; }
  [[nodiscard]] constexpr std::string_view kinds_view() const { return {kinds.data(), kinds_size}; }
  constexpr void add_name(std::string_view s) {
    if (names_size != 0) names[names_size++] = ' ';
    for (const char c : s) names[names_size++] = c;
  }
};
template <class S>
consteval struct_shape shape_of() {
  namespace hana = boost::hana;
  struct_shape out;
  hana::for_each(hana::accessors<S>(), [&](auto field) {
    using M = std::remove_cvref_t<decltype(hana::second(field)(std::declval<S&>()))>;
    out.member_bytes += sizeof(M);
    out.add_name(hana::to<const char*>(hana::first(field)));
    if constexpr (std::same_as<M, rest_operands>) {
      for (const char c : std::string_view("...")) out.names[out.names_size++] = c;
      out.kinds[out.kinds_size++] = '*';
    } else {
      out.kinds[out.kinds_size++] = M::letter;
      if constexpr (is_optional<M>) out.kinds[out.kinds_size++] = '?';
    }
  });
  return out;
}
template <class S>
inline constexpr struct_shape shape_of_v = shape_of<S>();
/// Every member is adapted: no padding exists between the wrappers (all 8-byte aligned, sizes
/// multiples of 8), so an unadapted member shows as bytes the adapted ones do not account for.
template <class S>
constexpr bool adapts_every_member() {
  return std::is_empty_v<S> ? shape_of_v<S>.member_bytes == 0 : shape_of_v<S>.member_bytes == sizeof(S);
}
constexpr std::string_view keyword_list(std::uint16_t mask, std::array<char, 96>& buf) {
  std::size_t n = 0;
  for (std::size_t k = 0; k < keyword_names.size(); ++k) {
    if ((mask & kw_bit(static_cast<keyword>(k))) == 0) continue;
    if (n != 0) buf[n++] = ' ';
    for (const char c : keyword_names[k]) buf[n++] = c;
  }
  return {buf.data(), n};
}
template <opcode C>
constexpr bool create_matches_catalogue() {
  using ops = typename create_traits<C>::operands;
  using kws = typename create_traits<C>::keywords;
  constexpr const struct_shape& o = shape_of_v<ops>;
  constexpr const struct_shape& k = shape_of_v<kws>;
  std::array<char, 96> buf{};
  std::size_t optional_keywords = 0;
  for (std::size_t i = 0; i < k.kinds_size; i += 2) optional_keywords += k.kinds[i] == 's' && k.kinds[i + 1] == '?';
  const signature mine = decode_signature(o.kinds_view());
  const signature& sig = signature_of(C);
  const bool same_kinds = mine.letters == sig.letters && mine.size == sig.size && mine.min == sig.min &&
                          mine.variadic == sig.variadic;
  return o.names_view() == operand_names(C) && same_kinds && adapts_every_member<ops>() &&
         k.names_view() == keyword_list(info(C).keywords, buf) && 2 * optional_keywords == k.kinds_size &&
         adapts_every_member<kws>();
}
/// The first opcode whose structs disagree with the catalogue, or `count_`.
template <std::size_t... I>
consteval opcode first_create_mismatch(std::index_sequence<I...>) {
  const bool ok[] = {create_matches_catalogue<static_cast<opcode>(I)>()...};
  for (std::size_t i = 0; i < sizeof...(I); ++i)
    if (!ok[i]) return static_cast<opcode>(i);
  return opcode::count_;
}
/// The structs of opcode C agree with the catalogue; the error names C when they do not.
template <opcode C>
struct create_structs_of {
  static_assert(create_matches_catalogue<C>(),
                "tile2buffer: an operand or keyword struct of ir/create.hpp disagrees with the op catalogue (the "
                "opcode is create_structs_of's argument): its members must be operand_names(c) in order, of the "
                "signature's kinds, and the op's registered keywords");
  static constexpr bool agree = true;
};
template <>
struct create_structs_of<opcode::count_> {
  static constexpr bool agree = true;
};
static_assert(create_structs_of<first_create_mismatch(std::make_index_sequence<opcode_count>{})>::agree);
}  // namespace detail

}  // namespace v0
}  // namespace tile2buffer
