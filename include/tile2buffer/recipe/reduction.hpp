// SPDX-License-Identifier: Apache-2.0
/// @file recipe/reduction.hpp
/// Extended-tier recipes (extended-rollout.md §3.1, §3.2): the row and column reductions. The
/// default rollout keeps them Tile with the spec's reason (the stays-Tile entries of recipe/table.hpp).
#pragma once

#include <string_view>

#include "tile2buffer/recipe/common.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Why a column-vector result does not qualify, or empty: `[R, 1]` column-major of the source's
/// rows and dtype, `R * esize` a multiple of 32, static valid `[r, 1]` with r the source's
/// (static) valid rows. A runtime row count stays Tile (extended rollout §3.8).
constexpr text column_result_problem(const type& r, const type& src) {
  if (!is_column_vector(r) || r.shape[0] != src.shape[0])
    return text("the result must be a [") << src.shape[0] << ", 1] column vector (col_major, no boxes)";
  if (r.bytes() % 32 != 0)
    return text("a column vector needs R * element bytes aligned to 32 (")
           << r.shape[0] << " x " << name(r.dt) << " is " << r.bytes() << " bytes)";
  if (!r.static_valid() || r.valid[1].number != 1 || !src.valid[0].is_static())
    return text("a column vector with runtime valid rows stays Tile");
  if (r.valid[0] != src.valid[0]) return text("the result's valid rows must equal the source's");
  return {};
}

/// Why scratch `tmp` does not satisfy the native rule for a reduction of `src` (§2.3), or empty.
constexpr text scratch_problem(const function& f, const operand& tmp, const operand& source, const type& src) {
  if (!tmp.is_value()) return {};  // MaterializeNativeScratch supplies it
  if (source.is_value() && tmp.value() == source.value()) return text("scratch tmp must not be the source");
  const type& t = f.type_of(tmp.value());
  if (!t.is_tile() || !is_dense_vec(t) || t.dt != src.dt || t.shape[0] < src.shape[0] || t.shape[1] < src.shape[1] ||
      !t.static_valid() || !t.full_valid())
    return text("scratch tile smaller than the native rule (a dense row-major Vec tile of at least the source's physical [")
           << src.shape[0] << ", " << src.shape[1] << "], full valid)";
  return {};
}

/// Why a [1, C] row result does not qualify for a column reduction of `src`, or empty.
constexpr text row_result_problem(const type& r, const type& src) {
  if (auto why = dense_vec_problem(r); !why.empty()) return text("result: ") << why;
  if (r.shape[0] != 1 || r.shape[1] != src.shape[1]) return text("the result must be a [1, ") << src.shape[1] << "] row";
  if (!(r.valid[0] == extent::of(1)) || !(r.valid[1] == src.valid[1]))
    return text("the result's valid columns must equal the source's");
  return {};
}

}  // namespace detail

/// The reductions, one recipe for both axes: row reductions (§3.1) `tile.row_*(x, tmp)` to
/// `buffer.row_*(x, tmp, dst)` into an [R, 1] column vector; column reductions (§3.2)
/// `tile.col_sum(x, tmp)` to `buffer.col_sum(x, tmp, dst)` (emitted with the sequential
/// `isBinary = false` form) and `tile.col_max/col_min(x)` to `buffer.col_*(x, dst)`, into a
/// [1, C] row.
template <opcode C>
struct lower_reduction {
  using source = op_t<C>;
  static constexpr std::string_view name = detail::recipe_name<C>::value;
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = false;
  static constexpr std::span<const dtype> dtypes = extended_arithmetic_dtypes;
  static constexpr opcode target = *buffer_counterpart(C);
  static constexpr bool has_scratch = !info(C).scratch.empty();
  static constexpr bool rows = folds_rows(C);

  static constexpr match_result match(typed<source> op, const match_context& ctx) {
    const type* src = op.tile_type(op.source());
    if (src == nullptr) return match_result::no(text(mnemonic(C)) << " source must be a tile");
    if (!extended_allows(src->dt))
      return match_result::no(text(mnemonic(C)) << " on " << tile2buffer::name(src->dt) << " is not in the extended rollout");
    if (auto why = dense_vec_problem(*src); !why.empty()) return match_result::no(text("source: ") << why);
    if (auto why = rows ? detail::column_result_problem(op.result_type(), *src)
                        : detail::row_result_problem(op.result_type(), *src);
        !why.empty())
      return match_result::no(static_cast<text&&>(why));
    if constexpr (has_scratch)
      if (auto why = detail::scratch_problem(op.fn(), op.tmp(), op.source(), *src); !why.empty())
        return match_result::no(static_cast<text&&>(why));
    if (auto why = detail::dynamic_storage_problem(op.fn(), ctx.kernel(), op.result()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    return match_result::yes();
  }

  static constexpr void rewrite(typed<source> op, lowering& l) {
    const value_id x = l.typed_handle(op.source().value(), op.loc());
    if constexpr (has_scratch) {
      if (!op.tmp().is_value()) {
        l.fail(op.loc(), name, text("needs its scratch tmp: run materialize_native_scratch before init_storage"));
        return;
      }
      const value_id tmp = l.typed_handle(op.tmp().value(), op.loc());
      const value_id dst = l.typed_handle(op.result(), op.loc());
      l.builder().create<op_t<target>>({.source = x, .tmp = tmp, .dest = dst}, op.loc());
    } else {
      const value_id dst = l.typed_handle(op.result(), op.loc());
      l.builder().create<op_t<target>>({.source = x, .dest = dst}, op.loc());
    }
  }
};

}  // namespace v0
}  // namespace tile2buffer
