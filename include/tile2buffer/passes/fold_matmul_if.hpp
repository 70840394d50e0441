// SPDX-License-Identifier: Apache-2.0
/// @file passes/fold_matmul_if.hpp
/// FoldMatmulIf (quantized-path.md §2.7): `acc1 = if c { m = tile.matmul(a, b); yield m } else
/// { m2 = tile.matmul_acc(acc0, a, b); yield m2 }` is `acc1 = tile.matmul_acc(acc0, a, b,
/// init_cond = c)`. Why before storage: the if's two arms give `acc1` two Acc windows (the fresh
/// product's and `acc0`'s), and a matrix carry cannot be copied between windows (region_contract.hpp,
/// "matrix region carries must preserve one storage alias"); the folded op writes in place of
/// `acc0`, so a K loop carrying the accumulator keeps one window, as an author's explicit
/// `init_cond` does. The arms swapped (matmul_acc when `c` holds) fold with `init_cond = not c`.
/// Anything else is left as it is (and keeps that reason). Runs only under the extended rollout,
/// so the default rollout's output is the spec's, byte for byte.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/options.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

template <ir_op Op>
constexpr bool op_is(const function& f, op_id o) {
  return f.op(o).code() == Op::code;
}

/// The one op of a branch arm before its yield, when the arm is exactly that op and the yield
/// of its single result.
constexpr std::optional<op_id> sole_yielded_op(const function& f, region_id r) {
  const auto ops = f.ops_of(r);
  if (ops.size() != 2 || !op_is<cf::yield>(f, ops[1]) || f.op(ops[0]).results.count != 1) return std::nullopt;
  const auto yielded = typed<cf::yield>(f, ops[1]).values();
  if (yielded.size() != 1 || !yielded[0].is_value() || yielded[0].value() != f.result(ops[0])) return std::nullopt;
  return ops[0];
}

/// How an `if` folds into one tile.matmul_acc: the accumulating arm's op, and whether the
/// condition must be negated (the matmul_acc is the then arm).
struct matmul_if_fold {
  op_id acc_op;
  bool negate = false;
};

/// Whether `if` op `o` is a matmul / matmul_acc pair over the same operands (file comment).
/// Operand identity is SSA identity: the arms hold nothing but the two ops, so `a` and `b` are
/// values defined before the `if`, and equal ids are the same tiles in both arms.
constexpr std::optional<matmul_if_fold> matmul_if_fold_of(const function& f, op_id o) {
  if (!op_is<cf::if_>(f, o) || f.op(o).results.count != 1) return std::nullopt;
  const auto then_op = sole_yielded_op(f, f.region_of(o, 0));
  const auto else_op = sole_yielded_op(f, f.region_of(o, 1));
  if (!then_op || !else_op) return std::nullopt;
  const bool negate = op_is<tile::matmul_acc>(f, *then_op);
  const op_id product_op = negate ? *else_op : *then_op;
  const op_id acc_op = negate ? *then_op : *else_op;
  if (!op_is<tile::matmul>(f, product_op) || !op_is<tile::matmul_acc>(f, acc_op)) return std::nullopt;
  const typed<tile::matmul> product(f, product_op);
  const typed<tile::matmul_acc> acc(f, acc_op);
  // An explicit init_cond already chooses the write: the pair would need both conditions combined.
  if (acc.init_cond() || !(product.lhs() == acc.lhs()) || !(product.rhs() == acc.rhs())) return std::nullopt;
  const type& r = f.type_of(f.result(o));
  if (!r.is_tile() || product.result_type() != r || acc.result_type() != r) return std::nullopt;
  // `not` takes a BOOL value (the verifier makes the if's condition one); a literal condition is left.
  if (negate && !typed<cf::if_>(f, o).cond().is_value()) return std::nullopt;
  return matmul_if_fold{acc_op, negate};
}

}  // namespace detail

/// The pass on one program (every device Tile function; the others are left as they are).
template <class = void>
constexpr void fold_matmul_if_in_place(program& p, const options& opts, analysis_cache& cache) {
  if (opts.rollout == rollout_kind::standard) return;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    if (!f.is_device() || f.stage != ir_stage::tile) continue;
    bool any = false;
    walk(f, [&](op_id o) { any = any || detail::matmul_if_fold_of(f, o).has_value(); });
    if (!any) continue;
    rewriter rw(f);
    rw.clone_ops(f.body, [&](op_id o) {
      const auto fold = detail::matmul_if_fold_of(f, o);
      if (!fold) return false;
      // Why the if's location and result: the folded op stands where the if stood and defines
      // its value (`acc1`, by its name), so a later reason or diagnostic about the accumulator
      // points at the statement that chose between the two products.
      operand cond = rw.map(typed<cf::if_>(f, o).cond());
      if (fold->negate) {
        const text name = text(f.name_of(f.result(o))) << "_init";
        cond = operand::of(
            rw.builder().create<scalar::not_>({.arg = built(cond)}, scalar_type(dtype::bool_), name.view(), f.loc_of(o)));
      }
      const typed<tile::matmul_acc> acc(f, fold->acc_op);
      const std::array<operand, 3> args{rw.map(acc.acc()), rw.map(acc.lhs()), rw.map(acc.rhs())};
      const std::array<kwarg, 1> init{kwarg{keyword::init_cond, cond}};
      rw.emit_as(tile::matmul_acc::code, o, args, {}, init);
      return true;
    });
    function out = rw.finish();
    p.functions[i] = static_cast<function&&>(out);
    cache.invalidate(i);
  }
}

/// The pass as pass sets register it (passes/table.hpp).
struct fold_matmul_if_pass {
  static constexpr std::string_view name = "fold_matmul_if";
  static constexpr bool buffer_ir_only = true;
  static constexpr bool extended_rollout_only = true;
  template <class Recipes>
  static constexpr result<program> run(const program& p, const options& opts, analysis_cache& cache) {
    result<program> r;
    r.value = p;
    fold_matmul_if_in_place(r.value, opts, cache);
    return r;
  }
  template <class Recipes>
  static constexpr void run_in_place(program& p, const options& opts, analysis_cache& cache, std::vector<diagnostic>&) {
    fold_matmul_if_in_place(p, opts, cache);
  }
};

}  // namespace v0
}  // namespace tile2buffer
