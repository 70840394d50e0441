// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/shared_checks.hpp
/// Checks the Tile and Buffer models share: matmul operand shapes and spaces, static windows
/// inside a bound, and the dtypes a GM store may convert between.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "tile2buffer/detail/checked.hpp"
#include "tile2buffer/ir/verify/op_rule.hpp"
#include "tile2buffer/ir/verify/state.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// `[M, K] x [K, N] -> [M, N]`, Left x Right -> Acc, FP32 (float) or INT32 (integer) accumulation.
/// Shared by tile.matmul[_acc] and buffer.matmul[_acc].
template <class = void>
constexpr void check_matmul(verify_state& s, const op_view& v, const type* l, const type* r, const type* acc) {
  if (l == nullptr || r == nullptr || acc == nullptr) return;
  if (l->space != memory_space::left || r->space != memory_space::right || acc->space != memory_space::acc)
    s.fail(v.loc, v.mn, " operands must be Left x Right -> Acc");
  if (l->shape[1] != r->shape[0] || acc->shape[0] != l->shape[0] || acc->shape[1] != r->shape[1])
    s.fail(v.loc, v.mn, " shapes must be [M, K] x [K, N] -> [M, N]");
  if (l->dt != r->dt) {
    s.fail(v.loc, v.mn, " operands must have the same dtype");
  } else {
    const dtype want = is_float(l->dt) ? dtype::fp32 : dtype::int32;
    if (acc->dt != want) s.fail(v.loc, v.mn, " accumulator dtype must be FP32 for float operands and INT32 for integer operands");
  }
}

/// Static entries of `off` + `extent` lie within `bound`; runtime entries cannot be checked here.
constexpr bool static_fits(const index_pair& off, const std::array<std::int64_t, 2>& extent,
                           const std::array<std::int64_t, 2>& bound) {
  for (std::size_t i = 0; i < 2; ++i)
    if (off.known[i] && sum_exceeds(off.num[i], extent[i], bound[i])) return false;
  return true;
}
constexpr bool nonnegative(const index_pair& p) { return !(p.known[0] && p.num[0] < 0) && !(p.known[1] && p.num[1] < 0); }
/// Static entries of `p` lie in [0, bound].
constexpr bool within(const index_pair& p, const std::array<std::int64_t, 2>& bound) {
  for (std::size_t i = 0; i < 2; ++i)
    if (p.known[i] && (p.num[i] < 0 || p.num[i] > bound[i])) return false;
  return true;
}
/// The static valid extents of a shaped type (unknown entries count as the physical extent).
constexpr std::array<std::int64_t, 2> static_extent(const type& t) {
  return {t.valid[0].is_static() ? t.valid[0].number : t.shape[0], t.valid[1].is_static() ? t.valid[1].number : t.shape[1]};
}
/// GM store endpoint dtypes: identical, or the fix-pipe's unscaled FP32 -> FP16/BF16 from Acc.
/// A quantizing or relu store (`fixpipe_converts`) converts an Acc tile to any tensor dtype:
/// valid Tile IR, which stays Tile until a transfer recipe exists.
constexpr bool store_dtype_ok(const type& src, const type& tensor, bool fixpipe_converts = false) {
  if (fixpipe_converts && src.space == memory_space::acc) return true;
  return src.dt == tensor.dt ||
         (src.space == memory_space::acc && src.dt == dtype::fp32 && (tensor.dt == dtype::fp16 || tensor.dt == dtype::bf16));
}
/// `pre_quant` or `pre_relu` is given and not a literal false or 0 (a runtime value counts).
constexpr bool fixpipe_converts(std::span<const kwarg> kws) {
  for (const kwarg& kw : kws)
    if ((kw.key == keyword::pre_quant || kw.key == keyword::pre_relu) && !(kw.value.is_literal() && kw.value.num == 0))
      return true;
  return false;
}

/// A cast's `mode` keyword: an integer literal of the ISA's rounding enumeration (0 none, 1 RINT,
/// 2 ROUND, 3 FLOOR, 4 CEIL, 5 TRUNC, 6 ODD).
template <class = void>
constexpr void check_rounding_mode(verify_state& s, const op_view& v) {
  for (const auto& kw : v.kws)
    if (kw.key == keyword::mode && !(kw.value.kind == operand_kind::int_lit && kw.value.num >= 0 && kw.value.num <= 6))
      s.fail(v.loc, v.mn, " mode must be an integer literal from 0 to 6 (the ISA's rounding modes)");
}

/// The optional scratch `tmp` of a unary elementwise op (rsqrt's high-precision form, which the
/// a2a3 library runs as sqrt then a divide by a 32-byte block of ones it writes into tmp, whether
/// or not precisionType says so): a Vec row-major tile of the op's dtype of at least 32 bytes,
/// not the source. Shared by both stages (`kind`).
constexpr void unary_scratch_check(verify_state& s, const op_view& v, type_kind kind, const type* like) {
  const operand tmp = family_operand<"tmp">(v);
  if (!present(tmp)) return;
  const type* t = s.expect(v, tmp, kind, family_label<"tmp">(v));
  if (t == nullptr || like == nullptr) return;
  if (t->dt != like->dt || t->space != memory_space::vec || t->blayout != box_layout::row_major || t->bytes() < 32)
    s.fail(v.loc, v.mn, " scratch tmp must be a row-major Vec tile of the op's dtype of at least 32 bytes");
  // Buffer stage: the storage proofs (checks/buffer.hpp) name the overlapping operand instead.
  const operand source = family_operand<"source">(v);
  if (kind == type_kind::tile && source.is_value() && tmp.is_value() && source.value() == tmp.value())
    s.fail(v.loc, v.mn, " scratch tmp must not be the source");
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
