// SPDX-License-Identifier: Apache-2.0
/// @file sim/kernels.hpp
/// Element kernels shared by the Tile and Buffer interpreters, so both runs compute every element
/// with the same code: the elementwise table (reference §9.3), and matmul accumulation (§9.4).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>

#include "tile2buffer/ir/enums.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/sim/numeric.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// The elementwise operations, independent of stage (tile.add and buffer.add are both `add`).
enum class ew_op : std::uint8_t {
  add, mul, sub, div, maximum, minimum, abs, exp, sqrt, neg, relu, log, recip,
  adds, subs, muls, divs, maximums, minimums, lrelu, full
};

/// Maps a tile.* or buffer.* elementwise opcode to its operation.
inline std::optional<ew_op> ew_op_of(opcode c) {
  const auto from = [&](opcode first, opcode x) { return static_cast<ew_op>(static_cast<int>(x) - static_cast<int>(first)); };
  if (c >= opcode::tile_add && c <= opcode::tile_lrelu) return from(opcode::tile_add, c);
  if (c >= opcode::buffer_add && c <= opcode::buffer_lrelu) return from(opcode::buffer_add, c);
  if (c == opcode::tile_full || c == opcode::buffer_full) return ew_op::full;
  return std::nullopt;
}
static_assert(static_cast<int>(opcode::tile_lrelu) - static_cast<int>(opcode::tile_add) == static_cast<int>(ew_op::lrelu));
static_assert(static_cast<int>(opcode::buffer_lrelu) - static_cast<int>(opcode::buffer_add) == static_cast<int>(ew_op::lrelu));

/// Ops whose native implementation may differ from the correctly rounded result; values that
/// depend on them are compared with a tolerance (see compare.hpp).
inline bool ew_inexact(ew_op op) {
  return op == ew_op::div || op == ew_op::divs || op == ew_op::recip || op == ew_op::exp || op == ew_op::log ||
         op == ew_op::sqrt;
}

/// Whether the simulator defines `op` on element type `d`: every op on FP16/BF16/FP32; on signed
/// integers only the ones with exact wrapping semantics.
inline bool ew_defined(ew_op op, dtype d) {
  if (is_float(d)) return true;
  if (!is_integer(d)) return false;
  switch (op) {
    case ew_op::add: case ew_op::mul: case ew_op::sub: case ew_op::maximum: case ew_op::minimum: case ew_op::abs:
    case ew_op::neg: case ew_op::relu: case ew_op::adds: case ew_op::subs: case ew_op::muls: case ew_op::maximums:
    case ew_op::minimums: case ew_op::full: return true;
    default: return false;
  }
}

/// One element of `op` on type `d`: `a` is the (first) tile operand, `b` the second tile operand or
/// the scalar (already converted to `d`). Floats compute in float and round once to `d`.
inline element ew_apply(ew_op op, dtype d, element a, element b) {
  element r;
  if (is_float(d)) {
    const float x = a.f;
    const float y = b.f;
    float v = 0.0f;
    switch (op) {
      case ew_op::add: case ew_op::adds: v = x + y; break;
      case ew_op::sub: case ew_op::subs: v = x - y; break;
      case ew_op::mul: case ew_op::muls: v = x * y; break;
      case ew_op::div: case ew_op::divs: v = x / y; break;
      case ew_op::maximum: case ew_op::maximums: v = x > y ? x : y; break;
      case ew_op::minimum: case ew_op::minimums: v = x < y ? x : y; break;
      case ew_op::abs: v = std::fabs(x); break;
      case ew_op::exp: v = std::exp(x); break;
      case ew_op::sqrt: v = std::sqrt(x); break;
      case ew_op::neg: v = -x; break;
      case ew_op::relu: v = x > 0.0f ? x : 0.0f; break;
      case ew_op::log: v = std::log(x); break;
      case ew_op::recip: v = 1.0f / x; break;
      case ew_op::lrelu: v = x > 0.0f ? x : y * x; break;
      case ew_op::full: v = y; break;
    }
    r.f = round_to(d, v);
    return r;
  }
  const std::int64_t x = a.i;
  const std::int64_t y = b.i;
  switch (op) {
    case ew_op::add: case ew_op::adds: r.i = wrapping_add(d, x, y); break;
    case ew_op::sub: case ew_op::subs: r.i = wrapping_sub(d, x, y); break;
    case ew_op::mul: case ew_op::muls: r.i = wrapping_mul(d, x, y); break;
    case ew_op::maximum: case ew_op::maximums: r.i = x > y ? x : y; break;
    case ew_op::minimum: case ew_op::minimums: r.i = x < y ? x : y; break;
    case ew_op::abs: r.i = wrap_integer(d, x < 0 ? wrapping_sub(dtype::int64, 0, x) : x); break;
    case ew_op::neg: r.i = wrapping_sub(d, 0, x); break;
    case ew_op::relu: r.i = x > 0 ? x : 0; break;
    case ew_op::full: r.i = wrap_integer(d, y); break;
    default: r.i = 0; break;  // not defined on integers (ew_defined); callers reject it first
  }
  return r;
}

/// Accumulator element type of a matmul over operands of type `operand` (§2.6): FP32 for float
/// operands, INT32 for INT8; nullopt for unsupported operand types.
inline std::optional<dtype> accumulator_of(dtype operand) {
  if (is_float(operand)) return dtype::fp32;
  if (operand == dtype::int8) return dtype::int32;
  return std::nullopt;
}

/// Dot product of one product element: Σ_k a(k)·b(k) in FP32 (float operands are widened exactly)
/// or wrapping INT32, in increasing k. `acc` (when accumulating) is added after the sum.
template <class A, class B>
element dot(dtype acc_type, std::int64_t k_count, A&& a, B&& b, const element* acc) {
  element r;
  if (acc_type == dtype::fp32) {
    float sum = 0.0f;
    for (std::int64_t k = 0; k < k_count; ++k) {
      const float prod = a(k).f * b(k).f;
      sum += prod;
    }
    r.f = acc ? acc->f + sum : sum;
  } else {
    std::int64_t sum = 0;
    for (std::int64_t k = 0; k < k_count; ++k) sum = wrapping_add(dtype::int32, sum, wrapping_mul(dtype::int32, a(k).i, b(k).i));
    r.i = acc ? wrapping_add(dtype::int32, acc->i, sum) : sum;
  }
  return r;
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
