// SPDX-License-Identifier: Apache-2.0
/// @file serialize/schema.hpp
/// The records of the binary format (docs/binary-format.md) as seen through Boost.Hana struct
/// reflection: the adapted members, in the file's key order, are the fields the binary writer
/// and reader walk generically. Members the format spells differently, fields that are not
/// members (ids, names and types of values, `stride`, `storage`) and records that are not one
/// struct (ops, regions, operands) stay in serialize/binary.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>

#include <boost/hana/accessors.hpp>
#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include "tile2buffer/ir/function.hpp"

namespace tile2buffer::inline v0::detail {
/// A Tile's `storage` in the file: its planned allocation and the byte offset in it.
struct storage_clause {
  value_id mem;
  std::int64_t offset = 0;
};
}  // namespace tile2buffer::inline v0::detail

// Why here and not in ir/: the adaptation is the file format's view of the IR, not the IR's.
BOOST_HANA_ADAPT_STRUCT(tile2buffer::location, line, col);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::type, kind, shape, dt, tlayout, space, valid, blayout, slayout, fractal, pad, compact);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::param_info, dir, loc);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::function, kind, name, loc, stage, buffer_ir_selected, target);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::program, file, functions);
BOOST_HANA_ADAPT_STRUCT(tile2buffer::detail::storage_clause, mem, offset);

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// The file keys that are not the member's name (the format predates the reflection).
constexpr std::string_view file_key(std::string_view member) {
  if (member == "dt") return "dtype";
  if (member == "tlayout") return "layout";
  if (member == "dir") return "direction";
  return member;
}
/// How the reader's messages name a field whose key alone would read badly.
constexpr std::string_view field_noun(std::string_view key) {
  if (key == "loc") return "a location [line, col]";
  if (key == "line") return "a line";
  if (key == "col") return "a column";
  if (key == "storage") return "a storage clause";
  return key;
}

template <class T>
inline constexpr std::size_t field_count = decltype(boost::hana::length(boost::hana::accessors<T>()))::value;

/// Calls `f(key, member)` for each adapted member of `x`, in file order.
template <class T, class F>
constexpr void for_each_field(T& x, F&& f) {
  boost::hana::for_each(boost::hana::accessors<std::remove_const_t<T>>(), [&](auto field) {
    f(file_key(boost::hana::to<const char*>(boost::hana::first(field))), boost::hana::second(field)(x));
  });
}
/// The adapted keys of `T` followed by `extra` (the record's hand-written fields).
template <class T, std::size_t N>
constexpr std::array<std::string_view, field_count<T> + N> keys_of(std::array<std::string_view, N> extra) {
  std::array<std::string_view, field_count<T> + N> out{};
  std::size_t i = 0;
  T x{};
  for_each_field(x, [&](std::string_view key, const auto&) { out[i++] = key; });
  for (const std::string_view k : extra) out[i++] = k;
  return out;
}

/// A record's keys when they depend on its kind (`size` of them, in file order).
struct key_set {
  std::array<std::string_view, 16> keys{};
  std::size_t size = 0;
  [[nodiscard]] constexpr std::span<const std::string_view> view() const { return {keys.data(), size}; }
};
inline constexpr std::array<std::string_view, 7> type_kind_names{"none", "scalar", "tensor", "tile", "buffer", "mem", "task"};
inline constexpr std::array<std::string_view, 9> operand_kind_names{"none",  "value", "int",   "float", "bool",
                                                                    "tuple", "space", "dtype", "symbol"};
inline constexpr std::array<std::string_view, 7> type_nouns{"a type of this kind", "a scalar type", "a tensor type",
                                                            "a tile type",         "a buffer type", "a type of this kind",
                                                            "a type of this kind"};
inline constexpr auto type_keys = keys_of<type>(std::array<std::string_view, 2>{"stride", "storage"});

/// Which kinds of type carry a field (docs/binary-format.md, TYPE).
constexpr bool carries(type_kind k, std::string_view key) {
  const bool shaped = k == type_kind::tile || k == type_kind::buffer;
  if (key == "kind") return true;
  if (key == "dtype") return k == type_kind::scalar || k == type_kind::tensor || shaped;
  if (key == "shape") return k == type_kind::tensor || shaped;
  if (key == "layout" || key == "stride") return k == type_kind::tensor;
  if (key == "storage") return k == type_kind::tile;
  return shaped;
}
/// The keys a type of kind `k` carries, in file order.
constexpr key_set type_keys_of(type_kind k) {
  key_set out;
  for (const std::string_view key : type_keys)
    if (carries(k, key)) out.keys[out.size++] = key;
  return out;
}

/// The keys of an operand of kind `k` (docs/binary-format.md, OPERAND).
constexpr key_set operand_keys(operand_kind k) {
  switch (k) {
    case operand_kind::none: return {{"kind"}, 1};
    case operand_kind::value: return {{"kind", "id"}, 2};
    case operand_kind::float_lit: return {{"kind", "mantissa", "exp10"}, 3};
    case operand_kind::tuple: return {{"kind", "elements"}, 2};
    default: return {{"kind", "value"}, 2};
  }
}

/// An enum's spellings in the file and what the reader's messages call it.
struct enum_spelling {
  std::span<const std::string_view> names;
  std::string_view what;
};
constexpr enum_spelling spelling(type_kind) { return {type_kind_names, "type kind"}; }
constexpr enum_spelling spelling(operand_kind) { return {operand_kind_names, "operand kind"}; }
constexpr enum_spelling spelling(dtype) { return {dtype_names, "dtype"}; }
constexpr enum_spelling spelling(memory_space) { return {space_names, "memory space"}; }
constexpr enum_spelling spelling(tensor_layout) { return {tensor_layout_names, "tensor layout"}; }
constexpr enum_spelling spelling(box_layout) { return {box_layout_names, "box layout"}; }
constexpr enum_spelling spelling(pad_value) { return {pad_names, "pad value"}; }
constexpr enum_spelling spelling(compact_mode) { return {compact_names, "compact mode"}; }
constexpr enum_spelling spelling(direction) { return {direction_names, "direction"}; }
constexpr enum_spelling spelling(function_kind) { return {function_kind_names, "function kind"}; }
constexpr enum_spelling spelling(ir_stage) { return {stage_names, "stage"}; }
constexpr enum_spelling spelling(target_arch) { return {target_names, "target"}; }

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
