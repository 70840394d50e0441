// SPDX-License-Identifier: Apache-2.0
/// @file recipe/elementwise.hpp
/// Typed elementwise recipes: one template, one instance per row of the spec's table
/// (recipe/spec_tables.hpp). Operands and destination must share one descriptor; scalar
/// element operands are converted explicitly to the destination dtype.
#pragma once

#include <span>
#include <array>
#include <vector>

#include "tile2buffer/analysis/scalar_contract.hpp"
#include "tile2buffer/recipe/common.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"

namespace tile2buffer {
inline namespace v0 {

template <opcode C>
struct lower_elementwise {
  using source = op_t<C>;
  static constexpr std::string_view name = detail::recipe_name<C>::value;
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = elementwise_row_of(C)->default_tier;
  static constexpr std::span<const dtype> dtypes = elementwise_dtypes(C);
  static constexpr ew_kind kind = info(C).ew;
  // Why a constant: looking the counterpart up compares mnemonics over the whole op table, which
  // was a tenth of the lower pass's time when done per op.
  static constexpr opcode target = *buffer_counterpart(C);
  static_assert(kind != ew_kind::none, "lower_elementwise: the op is not elementwise");
  /// rsqrt's optional high-precision scratch (quantized-path.md §2.3): Tile `source tmp?`.
  static constexpr bool has_scratch = !info(C).scratch.empty();

  /// Why the scratch `tmp` does not qualify, or empty: with high_precision the scratch
  /// MaterializeNativeScratch supplies (a dense row-major Vec [1, 32 / esize] block of the op's
  /// dtype, or any user tile at least that large). A user tmp without the keyword is pypto's
  /// spelling of the same form (pto.trsqrt with tmp and no precisionType runs it on a2a3).
  static constexpr text scratch_problem(typed<source> op) {
    const bool high = high_precision_set(op.fn(), op.id());
    const operand tmp = scratch_operand(op.fn(), op.id());
    if (!tmp.is_value()) return high ? text("needs its scratch tmp: run materialize_native_scratch before init_storage") : text{};
    const type& t = op.fn().type_of(tmp.value());
    const type& dst = op.result_type();
    if (!t.is_tile() || !is_dense_vec(t) || t.dt != dst.dt || t.bytes() < 32 || !t.static_valid() || !t.full_valid())
      return text("scratch tile smaller than the native rule (a dense row-major Vec tile of ")
             << tile2buffer::name(dst.dt) << " of at least 32 bytes, full valid)";
    return {};
  }

  static constexpr match_result match(typed<source> op, const match_context& ctx) {
    const type& dst = op.result_type();
    // Extended rollout §2.5: the same table on [R, 1] column vectors, lowered on [1, R] relabels.
    const bool column = ctx.opts.rollout == rollout_kind::extended && is_column_vector(dst);
    if (column) {
      if (auto why = detail::column_elementwise_problem(C, dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    } else if (auto why = dense_vec_problem(dst); !why.empty()) {
      return match_result::no(static_cast<text&&>(why));
    }
    if (!elementwise_allows(C, dst.dt))
      return match_result::no(text(mnemonic(C))
                              << " on " << tile2buffer::name(dst.dt)
                              << (default_rollout ? " is not in the default rollout" : " is not in the extended rollout"));
    if (auto why = detail::dynamic_storage_problem(op.fn(), ctx.kernel(), op.result()); !why.empty())
      return match_result::no(static_cast<text&&>(why));
    if (auto why = precision_flag_problem(op.fn(), op.id()); !why.empty()) return match_result::no(static_cast<text&&>(why));
    const auto matches_dst = [&](const operand& x) {
      const type* t = op.tile_type(x);
      return t != nullptr && detail::same_descriptor(*t, dst);
    };
    bool tiles_match = true;
    if constexpr (kind == ew_kind::binary) tiles_match = matches_dst(op.lhs()) && matches_dst(op.rhs());
    if constexpr (kind == ew_kind::unary || kind == ew_kind::scalar_form) tiles_match = matches_dst(op.source());
    if (!tiles_match)
      return match_result::no(text(mnemonic(C))
                              << " operands and destination must have matching physical shapes, dtypes and valid extents");
    if constexpr (has_scratch)
      if (auto why = scratch_problem(op); !why.empty()) return match_result::no(static_cast<text&&>(why));
    text scalar_problem;
    if constexpr (kind == ew_kind::scalar_form) scalar_problem = detail::element_scalar_problem(op.fn(), op.scalar());
    if constexpr (kind == ew_kind::fill) scalar_problem = detail::element_scalar_problem(op.fn(), op.value());
    if (!scalar_problem.empty()) return match_result::no(static_cast<text&&>(scalar_problem));
    return match_result::yes();
  }

  static constexpr void rewrite(typed<source> op, lowering& l) {
    const value_id result = op.result();
    const dtype dt = op.result_type().dt;
    // Column vectors: the native op runs on the operands' [1, R] relabels (extended rollout §2.5).
    const bool column = is_column_vector(op.result_type());
    std::array<std::pair<value_id, value_id>, 3> relabels{};
    std::size_t relabelled = 0;
    const auto handle_of = [&](const operand& x) {
      if (!column) return operand::of(l.typed_handle(x.value(), op.loc()));
      for (std::size_t i = 0; i < relabelled; ++i)
        if (relabels[i].first == x.value()) return operand::of(relabels[i].second);
      const value_id row = l.row_handle(x.value(), op.loc());
      relabels[relabelled++] = {x.value(), row};
      return operand::of(row);
    };
    const auto element = [&](const operand& x) { return detail::element_scalar(l, x, dt, op.loc(), name); };
    // Why a fixed array: elementwise ops have at most two inputs, and a heap list per op was a
    // visible share of the lower pass. Operands in the Buffer op's order (operand_names).
    std::array<operand, 3> args{};
    std::size_t count = 0;
    if constexpr (kind == ew_kind::binary) {
      args[count++] = handle_of(op.lhs());
      args[count++] = handle_of(op.rhs());
    } else if constexpr (kind == ew_kind::unary) {
      args[count++] = handle_of(op.source());
    } else if constexpr (kind == ew_kind::scalar_form) {
      args[count++] = handle_of(op.source());
      args[count++] = element(op.scalar());
    } else {
      args[count++] = element(op.value());
    }
    args[count++] = handle_of(operand::of(result));
    if constexpr (has_scratch)
      if (const operand tmp = scratch_operand(op.fn(), op.id()); tmp.is_value())
        args[count++] = operand::of(l.typed_handle(tmp.value(), op.loc()));
    std::vector<kwarg> kws;
    if constexpr (kind != ew_kind::fill)  // fill's shape and dtype already live in the destination descriptor
      for (const kwarg& k : op.kwargs()) kws.push_back(kwarg{k.key, l.rw().map(k.value)});
    l.builder().emit(target, std::span<const operand>(args.data(), count), kws, {}, {}, op.loc());
  }
};

}  // namespace v0
}  // namespace tile2buffer
