// SPDX-License-Identifier: Apache-2.0
/// @file recipe/elementwise.hpp
/// Typed elementwise recipes: one template, one instance per row of the spec's table
/// (recipe/spec_tables.hpp). Operands and destination must share one descriptor; scalar
/// element operands are converted explicitly to the destination dtype.
#pragma once

#include <array>
#include <vector>

#include "tile2buffer/recipe/common.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"

namespace tile2buffer {
inline namespace v0 {

template <opcode C>
struct lower_elementwise {
  using source = op_t<C>;
  static constexpr std::string_view name = detail::recipe_name<C>::value;
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr ew_kind kind = info(C).ew;
  // Why a constant: looking the counterpart up compares mnemonics over the whole op table, which
  // was a tenth of the lower pass's time when done per op.
  static constexpr opcode target = *buffer_counterpart(C);
  static_assert(kind != ew_kind::none, "lower_elementwise: the op is not elementwise");

  static constexpr match_result match(const function& f, op_id o, const match_context&) {
    const type& dst = f.type_of(f.result(o));
    if (auto why = dense_vec_problem(dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    if (!elementwise_allows(C, dst.dt))
      return match_result::no(text(mnemonic(C)) << " on " << tile2buffer::name(dst.dt) << " is not in the default rollout");
    if (auto why = detail::static_valid_problem(dst); !why.empty()) return match_result::no(static_cast<text&&>(why));
    const auto args = f.args(o);
    const std::size_t tiles = kind == ew_kind::binary ? 2 : (kind == ew_kind::fill ? 0 : 1);
    for (std::size_t i = 0; i < tiles; ++i) {
      const type* t = detail::tile_operand(f, o, i);
      if (t == nullptr || !detail::same_descriptor(*t, dst))
        return match_result::no(text(mnemonic(C)) << " operands and destination must have matching physical shapes, dtypes and valid extents");
    }
    if (kind == ew_kind::scalar_form || kind == ew_kind::fill) {
      const operand& s = args[kind == ew_kind::fill ? 0 : 1];
      if (auto why = detail::element_scalar_problem(f, s); !why.empty()) return match_result::no(static_cast<text&&>(why));
    }
    return match_result::yes();
  }

  static constexpr void rewrite(op_id o, lowering& l) {
    const function& f = l.source();
    const op_node& n = f.op(o);
    const value_id result = f.result(o);
    const dtype dt = f.type_of(result).dt;
    // Why a fixed array: elementwise ops have at most two inputs, and a heap list per op was a
    // visible share of the lower pass.
    const auto src_args = f.args(o);
    std::array<operand, 8> args{};
    std::size_t count = 0;
    for (std::size_t i = 0; i < src_args.size() && i + 1 < args.size(); ++i) {
      const operand& a = src_args[i];
      if (a.is_value() && f.type_of(a.value()).is_tile())
        args[count++] = operand::of(l.handle(a.value()));
      else
        args[count++] = l.element_scalar(a, dt, n.loc, name);
    }
    args[count++] = operand::of(l.handle(result));
    std::vector<kwarg> kws;
    if (kind != ew_kind::fill)  // fill's shape and dtype already live in the destination descriptor
      for (const kwarg& k : f.kwargs_of(o)) kws.push_back(kwarg{k.key, l.rw().map(k.value)});
    l.builder().emit(target, std::span<const operand>(args.data(), count), kws, {}, {}, n.loc);
  }
};

}  // namespace v0
}  // namespace tile2buffer
