// SPDX-License-Identifier: Apache-2.0
/// @file ir/cast.hpp
/// What `tile.cast` / `buffer.cast` mean for a dtype pair and a `mode`: the rounding the
/// conversion applies and whether it saturates. The simulator computes this (sim/numeric.hpp)
/// and the PTO-AS emitter spells it (`rmode`, `satmode` of `pto.tcvt`), so both read it here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tile2buffer/ir/enums.hpp"
#include "tile2buffer/ir/operand.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The ISA's rounding enumeration (`mode` 0..6) [PTO ISA include/pto/common/type.hpp].
enum class round_mode : std::uint8_t { none, rint, round, floor, ceil, trunc, odd };
inline constexpr int round_mode_count = 7;

/// A cast's `mode` from its keyword (`kwarg_of(o, keyword::mode)`): the integer literal, 1 (nearest
/// even) when absent; anything else the verifier rejects reads as 1 too.
constexpr int cast_mode(const std::optional<operand>& kw) {
  return kw && kw->kind == operand_kind::int_lit && kw->num >= 0 && kw->num < round_mode_count ? static_cast<int>(kw->num) : 1;
}

/// A cast pair the extended rollout lowers (§3.7) and the `mode`s it takes there: the one list
/// the cast recipe, the docs and the tests read. Adding a pair is one row (its rounding and
/// saturation already follow from `cast_rounding` / `cast_saturates` below).
struct cast_pair {
  dtype from, to;
  int min_mode = 0, max_mode = round_mode_count - 1;  ///< modes outside stay Tile with a reason
};
inline constexpr cast_pair extended_cast_pairs[] = {
    {dtype::fp16, dtype::fp32},  // widening is exact: any mode
    {dtype::bf16, dtype::fp32},
    {dtype::fp32, dtype::fp16, 1, 5},  // RINT, ROUND, FLOOR, CEIL, TRUNC (the a2a3 TCvt modes)
    {dtype::fp32, dtype::bf16, 1, 5},
    // The quantized path (quantized-path.md §2.2): dequantize, requantize.
    {dtype::int32, dtype::fp32, 0, 5},  // exact below 2^24; NONE as RINT (pypto writes mode="none")
    {dtype::fp32, dtype::int32},        // rounded by mode (0 and 6 truncate), saturating
    {dtype::int32, dtype::fp16},        // vconv_deq: nearest even whatever the mode
    {dtype::fp16, dtype::int8},         // rounded by mode (0 and 6 truncate), saturating to [-128, 127]
};
/// The extended rollout's row for the pair, if it lowers.
constexpr const cast_pair* extended_cast_pair(dtype from, dtype to) {
  for (const cast_pair& p : extended_cast_pairs)
    if (p.from == from && p.to == to) return &p;
  return nullptr;
}

/// The ISA name of a mode as PTOAS spells it in `#pto<round_mode NAME>`.
constexpr std::string_view isa_name(round_mode m) {
  constexpr std::array<std::string_view, round_mode_count> names{"NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD"};
  return names[static_cast<std::size_t>(m)];
}

/// The rounding a cast from `from` to `to` applies for keyword `mode` (0..6; absent is 1):
/// - float -> integer: modes 1-5 as written; 0 and 6 truncate: the default branch of the a2a3
///   conversion dispatch issues the `z` (toward zero) instruction (PTO ISA
///   include/pto/npu/a2a3/TCvt.hpp `GenCastCallFp32ToInt32`, `...Fp16ToInt8`: `default:
///   vconv_f322s32z`, `vconv_f162s8z`; docs/pto-as.md "Facts of the quantized path");
/// - integer -> FP16: nearest even whatever the mode (a2a3 converts through `vconv_deq`, which
///   takes no mode; quantized-path.md §2.2);
/// - other conversions to a float: as written, 0 taken as RINT;
/// - integer -> integer: exact or wrapped, no rounding (the mode is irrelevant).
constexpr round_mode cast_rounding(dtype from, dtype to, int mode) {
  const auto m = mode < 0 || mode >= round_mode_count ? round_mode::rint : static_cast<round_mode>(mode);
  if (is_float(from) && !is_float(to) && m == round_mode::none) return round_mode::trunc;
  if (m == round_mode::none) return round_mode::rint;
  if (is_float(from) && !is_float(to)) return m == round_mode::odd ? round_mode::trunc : m;
  if (!is_float(from) && to == dtype::fp16) return round_mode::rint;
  return m;
}

/// Whether a cast saturates out-of-range values (PTOAS `satmode = ON`): float -> integer clamps to
/// the integer's range and sends NaN to 0, the ISA's usual answer for its `vconv_f32*2s*` family
/// (quantized-path.md §2.2). Every other pair runs with saturation OFF: a float result overflows
/// to infinity by the rounding mode's IEEE rule and NaN stays NaN; an integer narrowing wraps.
constexpr bool cast_saturates(dtype from, dtype to) { return is_float(from) && is_integer(to); }

}  // namespace v0
}  // namespace tile2buffer
