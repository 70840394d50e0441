// SPDX-License-Identifier: Apache-2.0
/// @file ir/enums.hpp
/// Element types, memory spaces, layouts and the other small enums of the IR, with their
/// spellings in the `.t2b` text format.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tile2buffer {
inline namespace v0 {

enum class dtype : std::uint8_t { bool_, int8, uint8, int16, int32, uint32, int64, fp16, bf16, fp32, index };
enum class memory_space : std::uint8_t { vec, mat, left, right, acc };
enum class box_layout : std::uint8_t { none_box, row_major, col_major };
enum class pad_value : std::uint8_t { null, zero, max, min };
enum class compact_mode : std::uint8_t { null, normal };
enum class tensor_layout : std::uint8_t { nd, dn, nz };
enum class direction : std::uint8_t { in, out, inout };
enum class function_kind : std::uint8_t { incore, aic, aiv, orchestration };
enum class ir_stage : std::uint8_t { tile, buffer };
enum class target_arch : std::uint8_t { a2a3, a5 };

namespace detail {
template <class E, std::size_t N>
constexpr std::optional<E> enum_from(const std::array<std::string_view, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}
inline constexpr std::array<std::string_view, 11> dtype_names{"BOOL",  "INT8", "UINT8", "INT16", "INT32", "UINT32",
                                                              "INT64", "FP16", "BF16",  "FP32",  "INDEX"};
inline constexpr std::array<std::string_view, 5> space_names{"Vec", "Mat", "Left", "Right", "Acc"};
inline constexpr std::array<std::string_view, 3> box_layout_names{"none_box", "row_major", "col_major"};
inline constexpr std::array<std::string_view, 4> pad_names{"null", "zero", "max", "min"};
inline constexpr std::array<std::string_view, 2> compact_names{"null", "normal"};
inline constexpr std::array<std::string_view, 3> tensor_layout_names{"ND", "DN", "NZ"};
inline constexpr std::array<std::string_view, 3> direction_names{"in", "out", "inout"};
inline constexpr std::array<std::string_view, 4> function_kind_names{"incore", "aic", "aiv", "orchestration"};
inline constexpr std::array<std::string_view, 2> stage_names{"tile", "buffer"};
inline constexpr std::array<std::string_view, 2> target_names{"a2a3", "a5"};
}  // namespace detail

constexpr std::string_view name(dtype v) { return detail::dtype_names[static_cast<std::size_t>(v)]; }
constexpr std::string_view name(memory_space v) { return detail::space_names[static_cast<std::size_t>(v)]; }
constexpr std::string_view name(box_layout v) { return detail::box_layout_names[static_cast<std::size_t>(v)]; }
constexpr std::string_view name(pad_value v) { return detail::pad_names[static_cast<std::size_t>(v)]; }
constexpr std::string_view name(compact_mode v) { return detail::compact_names[static_cast<std::size_t>(v)]; }
constexpr std::string_view name(tensor_layout v) { return detail::tensor_layout_names[static_cast<std::size_t>(v)]; }
constexpr std::string_view name(direction v) { return detail::direction_names[static_cast<std::size_t>(v)]; }
constexpr std::string_view name(function_kind v) { return detail::function_kind_names[static_cast<std::size_t>(v)]; }
constexpr std::string_view name(ir_stage v) { return detail::stage_names[static_cast<std::size_t>(v)]; }
constexpr std::string_view name(target_arch v) { return detail::target_names[static_cast<std::size_t>(v)]; }

constexpr std::optional<dtype> parse_dtype(std::string_view s) { return detail::enum_from<dtype>(detail::dtype_names, s); }
constexpr std::optional<memory_space> parse_space(std::string_view s) {
  return detail::enum_from<memory_space>(detail::space_names, s);
}
constexpr std::optional<box_layout> parse_box_layout(std::string_view s) {
  return detail::enum_from<box_layout>(detail::box_layout_names, s);
}
constexpr std::optional<pad_value> parse_pad(std::string_view s) { return detail::enum_from<pad_value>(detail::pad_names, s); }
constexpr std::optional<compact_mode> parse_compact(std::string_view s) {
  return detail::enum_from<compact_mode>(detail::compact_names, s);
}
constexpr std::optional<tensor_layout> parse_tensor_layout(std::string_view s) {
  return detail::enum_from<tensor_layout>(detail::tensor_layout_names, s);
}
constexpr std::optional<direction> parse_direction(std::string_view s) {
  return detail::enum_from<direction>(detail::direction_names, s);
}
constexpr std::optional<function_kind> parse_function_kind(std::string_view s) {
  return detail::enum_from<function_kind>(detail::function_kind_names, s);
}
constexpr std::optional<ir_stage> parse_stage(std::string_view s) { return detail::enum_from<ir_stage>(detail::stage_names, s); }
constexpr std::optional<target_arch> parse_target(std::string_view s) {
  return detail::enum_from<target_arch>(detail::target_names, s);
}

/// Bytes per element; BOOL and INDEX are scalar-only and report their host width.
constexpr int element_bytes(dtype d) {
  // clang-format off
  switch (d) {
    case dtype::bool_: case dtype::int8: case dtype::uint8: return 1;
    case dtype::int16: case dtype::fp16: case dtype::bf16: return 2;
    case dtype::int32: case dtype::uint32: case dtype::fp32: return 4;
    case dtype::int64: case dtype::index: return 8;
  }
  // clang-format on
  return 0;
}
constexpr bool is_float(dtype d) { return d == dtype::fp16 || d == dtype::bf16 || d == dtype::fp32; }
constexpr bool is_signed_integer(dtype d) {
  return d == dtype::int8 || d == dtype::int16 || d == dtype::int32 || d == dtype::int64 || d == dtype::index;
}
constexpr bool is_integer(dtype d) { return is_signed_integer(d) || d == dtype::uint8 || d == dtype::uint32; }
constexpr bool is_unsigned(dtype d) { return d == dtype::uint8 || d == dtype::uint32; }
constexpr int bit_width(dtype d) { return d == dtype::bool_ ? 1 : element_bytes(d) * 8; }
constexpr bool is_device_function(function_kind k) { return k != function_kind::orchestration; }

}  // namespace v0
}  // namespace tile2buffer
