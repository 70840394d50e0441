// SPDX-License-Identifier: Apache-2.0
/// @file sim/kernels.hpp
/// Element kernels shared by the Tile and Buffer interpreters, so both runs compute every element
/// with the same code: the elementwise table (reference §9.3), and matmul accumulation (§9.4).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tile2buffer/ir/elementwise.hpp"
#include "tile2buffer/ir/enums.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/sim/memory.hpp"
#include "tile2buffer/sim/numeric.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// What one elementwise op computes on one element, for both stages (tile.add and buffer.add
/// share the `tile.add` row). `x` is the (first) tile operand, `y` the second tile operand or the
/// scalar, already converted to the element type. The op list itself is the catalogue's
/// (ir/elementwise.hpp); this table only adds the arithmetic, and is checked to cover it exactly.
struct ew_semantics {
  opcode op;                                                            ///< the Tile form
  float (*on_float)(float x, float y);                                  ///< in float; rounded once to the type
  std::int64_t (*on_integer)(dtype d, std::int64_t x, std::int64_t y);  ///< nullptr: undefined on integers
  /// The native implementation may differ from the correctly rounded result; values that depend
  /// on the op are compared with a tolerance (see compare.hpp).
  bool inexact;
};

namespace detail {
using i64 = std::int64_t;
inline constexpr std::array<ew_semantics, tile_elementwise_count> ew_table{{
    {opcode::tile_full, [](float, float y) { return y; }, [](dtype d, i64, i64 y) { return wrap_integer(d, y); }, false},
    {opcode::tile_add, [](float x, float y) { return x + y; }, [](dtype d, i64 x, i64 y) { return wrapping_add(d, x, y); },
     false},
    {opcode::tile_mul, [](float x, float y) { return x * y; }, [](dtype d, i64 x, i64 y) { return wrapping_mul(d, x, y); },
     false},
    {opcode::tile_sub, [](float x, float y) { return x - y; }, [](dtype d, i64 x, i64 y) { return wrapping_sub(d, x, y); },
     false},
    {opcode::tile_div, [](float x, float y) { return x / y; }, nullptr, true},
    {opcode::tile_maximum, [](float x, float y) { return x > y ? x : y; }, [](dtype, i64 x, i64 y) { return x > y ? x : y; },
     false},
    {opcode::tile_minimum, [](float x, float y) { return x < y ? x : y; }, [](dtype, i64 x, i64 y) { return x < y ? x : y; },
     false},
    {opcode::tile_abs, [](float x, float) { return std::fabs(x); },
     [](dtype d, i64 x, i64) { return wrap_integer(d, x < 0 ? wrapping_sub(dtype::int64, 0, x) : x); }, false},
    {opcode::tile_exp, [](float x, float) { return std::exp(x); }, nullptr, true},
    {opcode::tile_sqrt, [](float x, float) { return std::sqrt(x); }, nullptr, true},
    {opcode::tile_neg, [](float x, float) { return -x; }, [](dtype d, i64 x, i64) { return wrapping_sub(d, 0, x); }, false},
    {opcode::tile_relu, [](float x, float) { return x > 0.0f ? x : 0.0f; }, [](dtype, i64 x, i64) { return x > 0 ? x : i64{0}; },
     false},
    {opcode::tile_log, [](float x, float) { return std::log(x); }, nullptr, true},
    {opcode::tile_recip, [](float x, float) { return 1.0f / x; }, nullptr, true},
    {opcode::tile_rsqrt, [](float x, float) { return 1.0f / std::sqrt(x); }, nullptr, true},
    {opcode::tile_adds, [](float x, float y) { return x + y; }, [](dtype d, i64 x, i64 y) { return wrapping_add(d, x, y); },
     false},
    {opcode::tile_subs, [](float x, float y) { return x - y; }, [](dtype d, i64 x, i64 y) { return wrapping_sub(d, x, y); },
     false},
    {opcode::tile_muls, [](float x, float y) { return x * y; }, [](dtype d, i64 x, i64 y) { return wrapping_mul(d, x, y); },
     false},
    {opcode::tile_divs, [](float x, float y) { return x / y; }, nullptr, true},
    {opcode::tile_maximums, [](float x, float y) { return x > y ? x : y; }, [](dtype, i64 x, i64 y) { return x > y ? x : y; },
     false},
    {opcode::tile_minimums, [](float x, float y) { return x < y ? x : y; }, [](dtype, i64 x, i64 y) { return x < y ? x : y; },
     false},
    {opcode::tile_lrelu, [](float x, float y) { return x > 0.0f ? x : y * x; }, nullptr, false},
}};
static_assert(covers_tile_elementwise(ew_table, [](const ew_semantics& r) { return r.op; }),
              "tile2buffer: sim::detail::ew_table must have one row per elementwise op of the op catalogue");

/// ew_row_of[c]: index into ew_table of the elementwise op c of either stage (-1 otherwise).
inline constexpr std::array<std::int8_t, opcode_count> ew_row_of = [] {
  std::array<std::int8_t, opcode_count> a{};
  a.fill(-1);
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (const auto t = tile_elementwise_form(static_cast<opcode>(i)))
      for (std::size_t r = 0; r < ew_table.size(); ++r)
        if (ew_table[r].op == *t) a[i] = static_cast<std::int8_t>(r);
  return a;
}();
}  // namespace detail

/// The semantics of a tile.* or buffer.* elementwise opcode, or nullptr.
constexpr const ew_semantics* ew_op_of(opcode c) {
  const std::int8_t r = detail::ew_row_of[static_cast<std::size_t>(c)];
  return r < 0 ? nullptr : &detail::ew_table[static_cast<std::size_t>(r)];
}

inline bool ew_inexact(const ew_semantics& op) { return op.inexact; }

/// Whether the simulator defines `op` on element type `d`: every op on FP16/BF16/FP32; on signed
/// integers only the ones with exact wrapping semantics.
inline bool ew_defined(const ew_semantics& op, dtype d) {
  if (is_float(d)) return true;
  return is_integer(d) && op.on_integer != nullptr;
}

/// One element of `op` on type `d` (see ew_semantics). Floats compute in float and round once to `d`.
inline element ew_apply(const ew_semantics& op, dtype d, element a, element b) {
  element r;
  if (is_float(d)) {
    r.f = round_to(d, op.on_float(a.f, b.f));
    return r;
  }
  r.i = op.on_integer != nullptr ? op.on_integer(d, a.i, b.i) : 0;  // undefined ops: callers reject them first
  return r;
}

/// One row or column reduction: `read(j, meta)` for j < `cols` (a row's columns left to right, or
/// a column's rows top to bottom) folded with `step` (tile.add, tile.maximum, tile.minimum), each
/// step rounded to `d` (extended rollout §2.7: the simulator's fixed orders; col_sum's is the
/// native sequential one). `meta` gathers the inputs' provenance. Both
/// interpreters call this, so the Tile and the Buffer run agree bit for bit.
template <class Read>
element fold_row(const ew_semantics& step, dtype d, std::int64_t cols, Read&& read, cell_meta& meta) {
  meta.state = cell_state::value;
  element acc{};
  for (std::int64_t j = 0; j < cols; ++j) {
    cell_meta x;
    const element e = read(j, x);
    meta = merge(meta, x);
    acc = j == 0 ? e : ew_apply(step, d, acc, e);
  }
  return acc;
}

/// What a reduction or fused broadcast computes per element, read once per op from its record:
/// the ew_table rows of its `combine` and `then` (both stages share them, so both runs round
/// alike) and whether its results are compared with a tolerance (when either row is inexact:
/// div, expdif). Why once per op: the models apply it to every element.
struct combine_step {
  const ew_semantics* combine = nullptr;
  const ew_semantics* then = nullptr;  ///< expdif's exp; null when the family member has none
  bool inexact = false;
};
inline combine_step combine_step_of(opcode c) {
  const op_record& r = info(c);
  combine_step s{ew_op_of(r.combine), r.then == no_opcode ? nullptr : ew_op_of(r.then), false};
  s.inexact = ew_inexact(*s.combine) || (s.then != nullptr && ew_inexact(*s.then));
  return s;
}
/// One element: `x combine w`, then `then` of that (`expdif` is the unfused pair: the difference
/// rounded, then exp rounded).
inline element apply_step(const combine_step& s, dtype d, element x, element w) {
  const element combined = ew_apply(*s.combine, d, x, w);
  return s.then == nullptr ? combined : ew_apply(*s.then, d, combined, element{});
}

/// One element of a cast: rounded by `mode`, saturated where ir/cast.hpp says (cast_by_mode).
inline element cast_element(dtype from, dtype to, element x, int mode) { return cast_by_mode(from, to, x, mode); }

/// Accumulator element type of a matmul over operands of type `operand` (§2.6): FP32 for float
/// operands, INT32 for INT8; nullopt for unsupported operand types.
inline std::optional<dtype> accumulator_of(dtype operand) {
  if (is_float(operand)) return dtype::fp32;
  if (operand == dtype::int8) return dtype::int32;
  return std::nullopt;
}

/// One matmul operand read through `read(r, c, meta)`, each element at most once and in the order
/// first asked for. Why: a product asks for every lhs element n times and every rhs element m
/// times, and those reads (address, layout and provenance bookkeeping) were most of the
/// simulator's time on cube kernels. Reading is side-effect free but for the Buffer interpreter's
/// first-seen alias-read list, whose order the first-ask order keeps.
template <class Read>
class read_once {
 public:
  read_once(std::int64_t rows, std::int64_t cols, Read read)
      : cols_(cols), read_(std::move(read)), cells_(static_cast<std::size_t>(rows * cols)), seen_(cells_.size(), false) {}
  element operator()(std::int64_t r, std::int64_t c, cell_meta& m) {
    const auto i = static_cast<std::size_t>(r * cols_ + c);
    if (!seen_[i]) {
      cells_[i].first = read_(r, c, cells_[i].second);
      seen_[i] = true;
    }
    m = cells_[i].second;
    return cells_[i].first;
  }

 private:
  std::int64_t cols_;
  Read read_;
  std::vector<std::pair<element, cell_meta>> cells_;
  std::vector<bool> seen_;
};

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
