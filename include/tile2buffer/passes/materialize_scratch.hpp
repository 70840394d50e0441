// SPDX-License-Identifier: Apache-2.0
/// @file passes/materialize_scratch.hpp
/// MaterializeNativeScratch (extended rollout §2.3): the native row reductions and row-broadcast
/// arithmetic take a scratch tile as an explicit operand, and conversion adds no storage, so the
/// scratch is made explicit at Tile level before storage initialization: each such op without
/// its scratch operand gets `tmp = tile.create() : <native_scratch_type>` immediately before it. The
/// scratch is then an ordinary tile for planning (its lifetime is the one op), legalization and
/// verification. Runs only under `options::rollout == extended`; the default rollout never
/// schedules it, so its output is the spec's, byte for byte.
#pragma once

#include <string_view>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/scalar_contract.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/rewriter.hpp"
#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/options.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Whether op `o` is a native-scratch op written without its scratch operand.
constexpr bool needs_native_scratch(const function& f, op_id o) {
  if (info(f.op(o).code()).scratch.empty() || !is_tile_op(f.op(o).code())) return false;
  if (info(f.op(o).code()).ew == ew_kind::unary) {
    // rsqrt's tmp belongs to its high-precision form only (quantized-path.md §2.3).
    const operand source = named_operand<"source">(f, o);
    return high_precision_set(f, o) && source.is_value() && f.type_of(source.value()).is_tile() &&
           !scratch_operand(f, o).is_value();
  }
  const operand source = disjoint_operands(f, o)[0];
  const operand vector = named_operand<"vector">(f, o);
  if (vector.kind != operand_kind::none && !(vector.is_value() && f.type_of(vector.value()).is_tile())) return false;
  return source.is_value() && f.type_of(source.value()).is_tile() && !scratch_operand(f, o).is_value();
}

/// The scratch op `o` needs (§2.3 table): a row reduction's `tmp` has the source's physical shape
/// and layout, full valid; a row-broadcast op's `blk` is [R, 32 / esize] row-major, one 32-byte
/// block per row, valid rows following the column vector's. No storage yet (init_storage gives
/// it its own).
constexpr type native_scratch_type(const function& f, op_id o) {
  const bool unary = info(f.op(o).code()).ew == ew_kind::unary;
  const type& source = f.type_of((unary ? named_operand<"source">(f, o) : disjoint_operands(f, o)[0]).value());
  type t = source;
  t.valid = {extent::of(source.shape[0]), extent::of(source.shape[1])};
  if (unary) {
    // rsqrt's high-precision tmp: the one 32-byte block of ones the a2a3 library divides by
    // (TUnaryOp.hpp TRsqrtHighPrecision), a row-major [1, 32 / esize] tile.
    const std::int64_t lanes = 32 / element_bytes(source.dt);
    t.shape = {1, lanes};
    t.blayout = box_layout::row_major;
    t.valid = {extent::of(1), extent::of(lanes)};
    return t;
  }
  if (const operand v = named_operand<"vector">(f, o); v.is_value()) {
    const std::int64_t lanes = 32 / element_bytes(source.dt);
    t.shape = {source.shape[0], lanes};
    t.blayout = box_layout::row_major;
    t.valid = {f.type_of(v.value()).valid[0], extent::of(lanes)};
  }
  return t;
}

}  // namespace detail

/// The pass on one program (every device Tile function; the others are left as they are).
template <class = void>
constexpr void materialize_native_scratch_in_place(program& p, const options& opts, analysis_cache& cache) {
  if (opts.rollout == rollout_kind::standard) return;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    if (!f.is_device() || f.stage != ir_stage::tile) continue;
    bool any = false;
    walk(f, [&](op_id o) { any = any || detail::needs_native_scratch(f, o); });
    if (!any) continue;
    rewriter rw(f);
    rw.clone_ops(f.body, [&](op_id o) {
      if (!detail::needs_native_scratch(f, o)) return false;
      const op_node& n = f.op(o);
      const text name = text(f.name_of(f.result(o))) << '_' << info(n.code()).scratch;
      // Mapped: a runtime valid row count names a value of the function being built.
      const value_id tmp =
          rw.builder().create<tile::create>({}, rw.map(detail::native_scratch_type(f, o)), name.view(), f.loc_of(o));
      std::vector<operand> args = rw.map(f.args(o));
      args.push_back(operand::of(tmp));
      rw.emit_like(o, args);
      return true;
    });
    function out = rw.finish();
    p.functions[i] = static_cast<function&&>(out);
    cache.invalidate(i);
  }
}

/// The pass as pass sets register it (passes/table.hpp).
struct materialize_scratch_pass {
  static constexpr std::string_view name = "materialize_native_scratch";
  static constexpr bool buffer_ir_only = true;
  static constexpr bool extended_rollout_only = true;
  template <class Recipes>
  static constexpr result<program> run(const program& p, const options& opts, analysis_cache& cache) {
    result<program> r;
    r.value = p;
    materialize_native_scratch_in_place(r.value, opts, cache);
    return r;
  }
  template <class Recipes>
  static constexpr void run_in_place(program& p, const options& opts, analysis_cache& cache, std::vector<diagnostic>&) {
    materialize_native_scratch_in_place(p, opts, cache);
  }
};

}  // namespace v0
}  // namespace tile2buffer
