// SPDX-License-Identifier: Apache-2.0
/// @file sim/launch.hpp
/// How a function is launched in the simulator: one block of a device function, its whole grid,
/// or an orchestration function whose submits each launch a grid.
///
///     const function& f = *prog.find("kernel");
///     sim::sim_options o;
///     o.block_num = 32;
///     o.whole_grid = true;  // blocks 0..31, not just block_idx
///     sim::run_result r = sim::run_function(prog, f, sim::make_inputs(f, o), o);
///
/// Rules:
///  - A device function runs with the interpreter of its stage (Tile values or Buffer arenas).
///    Without `whole_grid` it runs once, as block `block_idx` (of `block_num`) and subblock
///    `subblock_idx`. With it, blocks 0 .. block_num-1 run one after another and, within each
///    block, subblocks 0 .. subblock_num-1, all on the same GM: each instance sees what the ones
///    before it wrote. The result is the GM after the last instance, or the diagnostic that
///    stopped one (with a note naming the block and subblock).
///  - An orchestration function runs its body (scalar ops and control flow as in a kernel). Each
///    `submit` launches the callee's whole grid (`block_num` x `subblock_num` of the options) on
///    the orchestration's GM tensors, converts scalar arguments to the parameter dtypes, and
///    finishes before the next op runs. Program order is a dependency order: a task can only
///    wait (`deps`) for tasks defined before it. Tasks without a dependency between them run in
///    program order too, one of the orders hardware may choose.
///  - A tensor passed twice to one submit, as parameters of which one is written, stops the run:
///    the callee's parameters are separate memories in the simulator, so it would not see the
///    aliasing that hardware has.
///  - Provenance in the GM after an orchestration run names the `submit` that last wrote each
///    element (op indices are the orchestration's).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/gm.hpp"
#include "tile2buffer/sim/interpreter.hpp"
#include "tile2buffer/sim/model_table.hpp"
#include "tile2buffer/sim/models_common.hpp"
#include "tile2buffer/sim/options.hpp"
#include "tile2buffer/sim/run_buffer.hpp"
#include "tile2buffer/sim/run_tile.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

inline run_result run_function(const program& p, const function& f, const sim_inputs& in, const sim_options& opt = {});

namespace detail {

inline run_result run_instance(const program& p, const function& f, const sim_inputs& in, const sim_options& opt) {
  return f.stage == ir_stage::buffer ? run_buffer(p, f, in, opt) : run_tile(p, f, in, opt);
}

inline void add_note(run_result& r, location loc, const std::string& message) {
  for (auto& d : r.errors) d.notes.push_back(note{loc, text(message)});
}

/// Every block and subblock of `f`'s launch, in order, on one GM (see the file comment).
inline run_result run_grid(const program& p, const function& f, const sim_inputs& in, const sim_options& opt) {
  if (opt.block_num < 1 || opt.subblock_num < 1) {
    run_result r;
    r.fn = &f;
    r.errors.push_back(
        diagnostic{f.loc,
                   text("sim.launch"),
                   text("a launch needs at least one block and one subblock (block_num " + std::to_string(opt.block_num) +
                        ", subblock_num " + std::to_string(opt.subblock_num) + ")"),
                   {}});
    return r;
  }
  sim_inputs gm = in;
  sim_options one = opt;
  std::vector<alias_read> alias_reads;
  std::size_t pages = 0;
  run_result r;
  for (std::int64_t b = 0; b < opt.block_num; ++b) {
    for (std::int64_t s = 0; s < opt.subblock_num; ++s) {
      one.block_idx = b;
      one.subblock_idx = s;
      r = run_instance(p, f, gm, one);
      for (const alias_read& a : r.alias_reads) {
        const auto same = [&](const alias_read& x) {
          return x.op == a.op && x.read == a.read && x.written == a.written && x.writer == a.writer;
        };
        if (alias_reads.size() < 64 && std::none_of(alias_reads.begin(), alias_reads.end(), same)) alias_reads.push_back(a);
      }
      pages = std::max(pages, r.arena_pages);
      if (!r.ok()) {
        if (opt.block_num > 1 || opt.subblock_num > 1)
          add_note(r, location{},
                   "in block " + std::to_string(b) + " of " + std::to_string(opt.block_num) + ", subblock " + std::to_string(s) +
                       " of " + std::to_string(opt.subblock_num));
        r.alias_reads = std::move(alias_reads);
        r.arena_pages = pages;
        return r;
      }
      for (std::size_t t = 0; t < gm.tensors.size() && t < r.tensors.size(); ++t)
        if (r.tensors[t]) gm.tensors[t] = std::move(r.tensors[t]);
    }
  }
  r.tensors = std::move(gm.tensors);
  r.alias_reads = std::move(alias_reads);
  r.arena_pages = pages;
  return r;
}

/// Runs an orchestration function: the common models (scalar ops and control flow) and `submit`
/// (`orchestration_models`).
class orchestration_interpreter : public interpreter<orchestration_interpreter> {
 public:
  orchestration_interpreter(const program& p, const function& f, const sim_inputs& in, const sim_options& opt,
                            const model<orchestration_interpreter>* models)
      : interpreter(f, opt, "sim.orchestration", models), p_(p), gm_(bind_params(in)) {}

  run_result finish() {
    run_result r;
    r.fn = &f_;
    r.errors = std::move(errors_);
    r.tensors = std::move(gm_);
    return r;
  }

  const program& p_;
  std::vector<std::optional<gm_tensor>> gm_;  ///< per parameter: its GM memory (tensor parameters only)
};

/// `submit`: launches the callee's whole grid on the orchestration's tensors (see the file comment).
inline bool submit(orchestration_interpreter& s, view<opcode::orch_submit> v) {
  const op_id o = v.id();
  const function& f = s.fn();
  if (v.callee().kind == operand_kind::none || v.call_args().kind == operand_kind::none || v.deps().kind == operand_kind::none)
    return s.fail(o, "needs a callee, its arguments and its dependencies");
  const std::string_view name = f.symbol(v.callee());
  const function* callee = s.p_.find(name);
  if (callee == nullptr || !callee->is_device())
    return s.fail(o, "@" + std::string(name) + " is not a device function of the program");
  const auto call = v.elements(v.call_args());
  const std::size_t n = callee->params.size();
  if (call.size() != n) return s.fail(o, "@" + std::string(name) + " takes " + std::to_string(n) + " arguments");
  sim_inputs in;
  in.tensors.resize(n);
  in.scalars.resize(n);
  std::vector<std::uint32_t> source(n, no_id);  // the orchestration tensor of each tensor argument
  for (std::size_t i = 0; i < n; ++i) {
    const param_info& prm = callee->params[i];
    const type& pt = callee->type_of(prm.value);
    const slot a = s.operand_slot(call[i]);
    if (pt.is_tensor()) {
      if (a.k != slot::kind::tensor || a.ref >= s.gm_.size() || !s.gm_[a.ref])
        return s.fail(o, "argument " + std::to_string(i) + " of @" + std::string(name) + " is not a tensor parameter of @" +
                             std::string(f.name_of()));
      for (std::size_t j = 0; j < i; ++j)
        if (source[j] == a.ref && (prm.dir != direction::in || callee->params[j].dir != direction::in))
          return s.fail(o, "passes " + s.gm_[a.ref]->name + " as arguments " + std::to_string(j) + " and " + std::to_string(i) +
                               " of @" + std::string(name) +
                               ", which writes one of them; the simulator keeps a kernel's parameters apart, so it "
                               "cannot run this aliasing");
      source[i] = a.ref;
      in.tensors[i] = *s.gm_[a.ref];
      // Why: cleared writers tell, after the call, which elements this task wrote.
      for (cell_meta& m : in.tensors[i]->meta) m.writer = no_id;
    } else if (pt.is_scalar()) {
      if (a.k != slot::kind::scalar)
        return s.fail(o, "argument " + std::to_string(i) + " of @" + std::string(name) + " is not a scalar");
      in.scalars[i] = a.s.as(pt.dt);
    }
  }
  sim_options launch = s.options();
  launch.whole_grid = true;
  run_result r = run_function(s.p_, *callee, in, launch);
  const std::string where = "in task `" + std::string(f.name_of(v.result())) + "` = submit @" + std::string(name);
  if (!r.ok()) {
    add_note(r, v.loc(), where);
    for (auto& d : r.errors) s.errors_.push_back(std::move(d));
    return false;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (source[i] == no_id || i >= r.tensors.size() || !r.tensors[i]) continue;
    gm_tensor& g = *s.gm_[source[i]];
    const gm_tensor& got = *r.tensors[i];
    if (got.bytes.size() != g.bytes.size() || got.meta.size() != g.meta.size())
      return s.fail(o, where + " returned a tensor of another size");
    // Bytes, not values: a copy through `element` could change a NaN's bits.
    const auto esize = static_cast<std::size_t>(element_bytes(g.dt));
    for (std::size_t k = 0; k < g.meta.size(); ++k) {
      const cell_meta& m = got.meta[k];
      if (m.writer == no_id) continue;
      std::copy_n(got.bytes.begin() + static_cast<std::ptrdiff_t>(k * esize), esize,
                  g.bytes.begin() + static_cast<std::ptrdiff_t>(k * esize));
      g.meta[k] = cell_meta{m.state, m.inexact, o.index, o.index, no_id, no_id, no_id};
    }
  }
  // The task value stays empty: its callee has finished, so `deps` on it hold already.
  return true;
}

/// Any op an orchestration function cannot hold: a Tile or Buffer op.
inline bool not_orchestration(orchestration_interpreter& s, op_id o) {
  return s.fail(o, "is not simulated in an orchestration function");
}

}  // namespace detail

/// The orchestration simulator's model set (sim/model_table.hpp): `submit`, the scalar and
/// control-flow ops.
struct orchestration_models {
  using state = detail::orchestration_interpreter;
  static constexpr bool needs(opcode c) { return dialect_of(c) == dialect::orchestration || detail::common_op(c); }
  static constexpr auto rows =
      concat_rows(detail::common_rows<state>, std::array<model_row<state>, 1>{{typed_model<&detail::submit>}});
  static constexpr model<state> otherwise = &detail::not_orchestration;
};

/// Runs `f` of `p` on `in` (see the file comment): a device function with the interpreter of its
/// stage, one block or (with `opt.whole_grid`) its whole grid; an orchestration function with
/// every submit launching a whole grid.
inline run_result run_function(const program& p, const function& f, const sim_inputs& in, const sim_options& opt) {
  if (!f.is_device()) {
    if constexpr (!models_checked<orchestration_models>) {
      return run_result{};
    } else {
      detail::orchestration_interpreter it(p, f, in, opt, model_table<orchestration_models>.data());
      it.run_body();
      return it.finish();
    }
  }
  return opt.whole_grid ? detail::run_grid(p, f, in, opt) : detail::run_instance(p, f, in, opt);
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
