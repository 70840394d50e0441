// SPDX-License-Identifier: Apache-2.0
/// @file passes/materialize_scratch.hpp
/// MaterializeNativeScratch (extended rollout §2.3): the native row reductions take a scratch
/// tile as an explicit operand, and conversion adds no storage, so the scratch is made explicit
/// at Tile level before storage initialization: each reduction without its `tmp` operand gets
/// `tmp = tile.create() : <the source's physical type, full valid>` immediately before it. The
/// scratch is then an ordinary tile for planning (its lifetime is the one op), legalization and
/// verification. Runs only under `options::rollout == extended`; the default rollout never
/// schedules it, so its output is the spec's, byte for byte.
#pragma once

#include <string_view>

#include "tile2buffer/analysis/kernel.hpp"
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
  const operand source = disjoint_operands(f, o)[0];
  return source.is_value() && f.type_of(source.value()).is_tile() && !scratch_operand(f, o).is_value();
}

/// The scratch of a row reduction over `source`: its physical shape and layout, full valid, no
/// storage yet (init_storage gives it its own).
constexpr type native_scratch_type(const type& source) {
  type t = source;
  t.valid = {extent::of(source.shape[0]), extent::of(source.shape[1])};
  t.mem = value_id{};
  t.mem_offset = 0;
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
      const operand source = disjoint_operands(f, o)[0];
      const op_node& n = f.op(o);
      const text name = text(f.name_of(f.result(o))) << "_tmp";
      const value_id tmp = rw.builder().create<tile::create>({}, detail::native_scratch_type(f.type_of(source.value())),
                                                             name.view(), n.loc);
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
