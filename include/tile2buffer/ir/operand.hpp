// SPDX-License-Identifier: Apache-2.0
/// @file ir/operand.hpp
/// Positional operands and keyword arguments: an SSA value, a literal, a tuple, or a name
/// (memory space, dtype, function symbol).
#pragma once

#include <cstdint>

#include "tile2buffer/ir/enums.hpp"
#include "tile2buffer/ir/ids.hpp"
#include "tile2buffer/ir/opcode.hpp"

namespace tile2buffer {
inline namespace v0 {

enum class operand_kind : std::uint8_t { none, value, int_lit, float_lit, bool_lit, tuple, space, dtype, symbol };

/// A float literal is kept exactly as a decimal `mantissa * 10^exp10` (normalized: the mantissa
/// has no trailing zero digits), so printing is exact and constexpr without float formatting.
struct operand {
  operand_kind kind = operand_kind::none;
  std::int16_t exp10 = 0;
  std::uint32_t ref = no_id;  ///< value id, tuple begin in the operand pool, or name begin
  std::int64_t num = 0;       ///< literal payload, tuple count, enum value, or name length

  static constexpr operand of(value_id v) { return {operand_kind::value, 0, v.index, 0}; }
  static constexpr operand integer(std::int64_t n) { return {operand_kind::int_lit, 0, no_id, n}; }
  static constexpr operand boolean(bool b) { return {operand_kind::bool_lit, 0, no_id, b ? 1 : 0}; }
  static constexpr operand decimal(std::int64_t mantissa, int exp10) {
    while (mantissa != 0 && mantissa % 10 == 0) {
      mantissa /= 10;
      ++exp10;
    }
    if (mantissa == 0) exp10 = 0;
    return {operand_kind::float_lit, static_cast<std::int16_t>(exp10), no_id, mantissa};
  }
  static constexpr operand of(memory_space s) { return {operand_kind::space, 0, no_id, static_cast<std::int64_t>(s)}; }
  static constexpr operand of(dtype d) { return {operand_kind::dtype, 0, no_id, static_cast<std::int64_t>(d)}; }

  [[nodiscard]] constexpr bool is_value() const noexcept { return kind == operand_kind::value; }
  [[nodiscard]] constexpr bool is_literal() const noexcept {
    return kind == operand_kind::int_lit || kind == operand_kind::float_lit || kind == operand_kind::bool_lit;
  }
  [[nodiscard]] constexpr value_id value() const noexcept { return value_id{ref}; }
  [[nodiscard]] constexpr span32 tuple() const noexcept { return {ref, static_cast<std::uint32_t>(num)}; }
  /// The literal as a double (float literals are exact decimals; conversion rounds once).
  [[nodiscard]] constexpr double as_double() const noexcept {
    const double v = static_cast<double>(num);
    if (kind != operand_kind::float_lit || exp10 == 0) return v;
    // Why: powers of ten up to 1e22 are exact doubles, so one multiply or divide rounds once.
    double scale = 1.0;
    const int e = exp10 < 0 ? -exp10 : exp10;
    for (int i = 0; i < e; ++i) scale *= 10.0;
    return exp10 > 0 ? v * scale : v / scale;
  }
  friend constexpr bool operator==(const operand&, const operand&) = default;
};

struct kwarg {
  keyword key = keyword::addr;
  operand value;
  friend constexpr bool operator==(const kwarg&, const kwarg&) = default;
};

}  // namespace v0
}  // namespace tile2buffer
