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

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/gm.hpp"
#include "tile2buffer/sim/interpreter.hpp"
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
    r.errors.push_back(diagnostic{f.loc, text("sim.launch"),
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
        const auto same = [&](const alias_read& x) { return x.op == a.op && x.read == a.read && x.written == a.written && x.writer == a.writer; };
        if (alias_reads.size() < 64 && std::none_of(alias_reads.begin(), alias_reads.end(), same)) alias_reads.push_back(a);
      }
      pages = std::max(pages, r.arena_pages);
      if (!r.ok()) {
        if (opt.block_num > 1 || opt.subblock_num > 1)
          add_note(r, location{}, "in block " + std::to_string(b) + " of " + std::to_string(opt.block_num) + ", subblock " +
                                      std::to_string(s) + " of " + std::to_string(opt.subblock_num));
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

/// Runs an orchestration function: scalar ops and control flow from the shared interpreter,
/// `submit` here.
class orchestration_interpreter : public interpreter<orchestration_interpreter> {
  friend class interpreter<orchestration_interpreter>;

 public:
  orchestration_interpreter(const program& p, const function& f, const sim_inputs& in, const sim_options& opt)
      : interpreter(f, opt, "sim.orchestration"), p_(p), gm_(f.params.size()) {
    for (std::size_t q = 0; q < f.params.size(); ++q) {
      const value_id v = f.params[q].value;
      if (q < in.tensors.size() && in.tensors[q]) {
        gm_[q] = *in.tensors[q];
        slot s;
        s.k = slot::kind::tensor;
        s.ref = static_cast<std::uint32_t>(q);
        bind(v, std::move(s));
      } else if (q < in.scalars.size() && in.scalars[q]) {
        bind(v, slot::of(*in.scalars[q]));
      }
    }
  }

  run_result finish() {
    run_result r;
    r.fn = &f_;
    r.errors = std::move(errors_);
    r.tensors = std::move(gm_);
    return r;
  }

 private:
  bool exec_dialect(op_id o, opcode c) {
    if (c != opcode::orch_submit) return fail(o, "is not simulated in an orchestration function");
    return submit(o);
  }

  bool submit(op_id o) {
    const auto args = f_.args(o);
    if (args.size() < 3) return fail(o, "needs a callee, its arguments and its dependencies");
    const std::string_view name = f_.symbol(args[0]);
    const function* callee = p_.find(name);
    if (callee == nullptr || !callee->is_device()) return fail(o, "@" + std::string(name) + " is not a device function of the program");
    const auto call = f_.elements(args[1]);
    const std::size_t n = callee->params.size();
    if (call.size() != n) return fail(o, "@" + std::string(name) + " takes " + std::to_string(n) + " arguments");
    sim_inputs in;
    in.tensors.resize(n);
    in.scalars.resize(n);
    std::vector<std::uint32_t> source(n, no_id);  // the orchestration tensor of each tensor argument
    for (std::size_t i = 0; i < n; ++i) {
      const param_info& prm = callee->params[i];
      const type& pt = callee->type_of(prm.value);
      const slot s = operand_slot(call[i]);
      if (pt.is_tensor()) {
        if (s.k != slot::kind::tensor || s.ref >= gm_.size() || !gm_[s.ref])
          return fail(o, "argument " + std::to_string(i) + " of @" + std::string(name) + " is not a tensor parameter of @" +
                             std::string(f_.name_of()));
        for (std::size_t j = 0; j < i; ++j)
          if (source[j] == s.ref && (prm.dir != direction::in || callee->params[j].dir != direction::in))
            return fail(o, "passes " + gm_[s.ref]->name + " as arguments " + std::to_string(j) + " and " + std::to_string(i) + " of @" +
                               std::string(name) + ", which writes one of them; the simulator keeps a kernel's parameters apart, so it "
                               "cannot run this aliasing");
        source[i] = s.ref;
        in.tensors[i] = *gm_[s.ref];
        // Why: cleared writers tell, after the call, which elements this task wrote.
        for (cell_meta& m : in.tensors[i]->meta) m.writer = no_id;
      } else if (pt.is_scalar()) {
        if (s.k != slot::kind::scalar) return fail(o, "argument " + std::to_string(i) + " of @" + std::string(name) + " is not a scalar");
        in.scalars[i] = s.s.as(pt.dt);
      }
    }
    sim_options launch = opt_;
    launch.whole_grid = true;
    run_result r = run_function(p_, *callee, in, launch);
    const std::string where = "in task `" + std::string(f_.name_of(f_.result(o))) + "` = submit @" + std::string(name);
    if (!r.ok()) {
      add_note(r, f_.op(o).loc, where);
      for (auto& d : r.errors) errors_.push_back(std::move(d));
      return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (source[i] == no_id || i >= r.tensors.size() || !r.tensors[i]) continue;
      gm_tensor& g = *gm_[source[i]];
      const gm_tensor& got = *r.tensors[i];
      if (got.bytes.size() != g.bytes.size() || got.meta.size() != g.meta.size()) return fail(o, where + " returned a tensor of another size");
      // Bytes, not values: a copy through `element` could change a NaN's bits.
      const auto esize = static_cast<std::size_t>(element_bytes(g.dt));
      for (std::size_t k = 0; k < g.meta.size(); ++k) {
        const cell_meta& m = got.meta[k];
        if (m.writer == no_id) continue;
        std::copy_n(got.bytes.begin() + static_cast<std::ptrdiff_t>(k * esize), esize, g.bytes.begin() + static_cast<std::ptrdiff_t>(k * esize));
        g.meta[k] = cell_meta{m.state, m.inexact, o.index, o.index, no_id, no_id, no_id};
      }
    }
    // The task value stays empty: its callee has finished, so `deps` on it hold already.
    return true;
  }

  const program& p_;
  std::vector<std::optional<gm_tensor>> gm_;  ///< per parameter: its GM memory (tensor parameters only)
};

}  // namespace detail

/// Runs `f` of `p` on `in` (see the file comment): a device function with the interpreter of its
/// stage, one block or (with `opt.whole_grid`) its whole grid; an orchestration function with
/// every submit launching a whole grid.
inline run_result run_function(const program& p, const function& f, const sim_inputs& in, const sim_options& opt) {
  if (!f.is_device()) {
    detail::orchestration_interpreter it(p, f, in, opt);
    it.run_body();
    return it.finish();
  }
  return opt.whole_grid ? detail::run_grid(p, f, in, opt) : detail::run_instance(p, f, in, opt);
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
