// SPDX-License-Identifier: Apache-2.0
/// @file sim/host_run.hpp
/// Runs one function of a program in the reference simulator on arrays a host supplies, with the
/// checks a user needs before a run means anything: every in/inout tensor has an array of the
/// parameter's dtype and static shape, every scalar parameter a value that fits its dtype, no
/// name that the function lacks. `t2b-opt --run` (.npy files, tools/t2b_opt_run.hpp) and the
/// Python package's `tile2buffer.run` (NumPy arrays) are its two front ends; each passes a
/// `run_wording` so that a message names what its user wrote (`--input A` or `inputs['A']`).
///
/// Three steps, so a front end can check everything that needs no data before it reads any:
/// `prepare_run` (names, scalar values, dtypes with a host mapping, static shapes), `bind_input`
/// (one array's dtype and shape, then its bytes into the GM tensor), `finish_run` (the simulation,
/// then each out/inout tensor's bytes and counts of never-written, poison and out-of-bounds
/// elements). Arrays are little-endian, row-major, in the `.npy` encoding `host_descr` names.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/launch.hpp"
#include "tile2buffer/sim/options.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

// Why: the simulator's GM bytes are host-order (memcpy) and host arrays here are little-endian.
static_assert(std::endian::native == std::endian::little, "sim/host_run.hpp copies little-endian arrays as host bytes");

/// How a front end names what a run binds, for its messages. `{}` is replaced by the name (and, in
/// `scalar_value`, then by the value as written).
struct run_wording {
  std::string_view run = "--run @{}";
  std::string_view no_function = "--run";
  std::string_view input = "--input {}";
  std::string_view scalar = "--scalar {}";
  std::string_view scalar_value = "--scalar {}={}";
  std::string_view no_input = "no --input for";
  std::string_view no_scalar = "no --scalar for";
  std::string_view inputs_hint = "every in/inout tensor needs --input NAME=FILE.npy";
  std::string_view scalars_hint = "every scalar parameter needs --scalar NAME=VALUE";
  std::string_view bind_as_scalar = "bind it with --scalar {}=VALUE";
  std::string_view grid_hint = " (only block 0 ran: --grid=N runs blocks 0..N-1)";
};

/// A scalar value as written (`3`, `-2.5`, `true`). It is typed only against the parameter it binds
/// (`bind_scalar`): "3" binds an INDEX parameter exactly and "3.5" does not bind one at all.
struct scalar_arg {
  std::string name;
  std::string value;
};

/// The `.npy` descriptor (NumPy's `dtype.str`) of a tensor dtype, or "" when it has no host
/// mapping. BF16 travels as its bit patterns in `<u2` (NumPy has no bfloat16).
inline std::string_view host_descr(dtype d) {
  switch (d) {
    case dtype::fp16: return "<f2";
    case dtype::bf16: return "<u2";
    case dtype::fp32: return "<f4";
    case dtype::int8: return "|i1";
    case dtype::int32: return "<i4";
    default: return {};
  }
}

namespace detail {

/// `pattern` with each `{}` replaced by the next of `args`.
inline std::string worded(std::string_view pattern, std::initializer_list<std::string_view> args) {
  std::string out;
  auto next = args.begin();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{' && i + 1 < pattern.size() && pattern[i + 1] == '}' && next != args.end()) {
      out += *next++;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

/// A shape as NumPy prints it: `(16, 32)`, `(4096,)`.
inline std::string shape_text(std::span<const std::int64_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// "parameter" or "parameters", with the list.
inline std::string listed(std::string_view what, const std::string& names) {
  return std::string(what) + (names.find(',') != std::string::npos ? "s " : " ") + names;
}

}  // namespace detail

/// The binding of `a` for scalar parameter `t` of `fn`, or in `error` why the value does not fit:
/// BOOL takes true, false, 1 or 0; float parameters a finite number (rounded to the dtype later);
/// integer and INDEX parameters an integer within the dtype's range.
inline bool bind_scalar(const scalar_arg& a, const function& fn, const type& t, scalar_binding& out, std::string& error,
                        const run_wording& w = {}) {
  const std::string_view dt = name(t.dt);
  // "an INT8", "an FP16", "an INDEX"; "a BOOL", "a UINT8", "a BF16".
  const std::string what = detail::worded(w.scalar_value, {a.name, a.value}) + ": " + a.name + " is a" +
                           (dt.front() == 'I' || dt.front() == 'F' ? "n " : " ") + std::string(dt) + " parameter of @" +
                           std::string(fn.name_of());
  const bool word = a.value == "true" || a.value == "false";
  out = scalar_binding{a.name, 0.0};
  if (t.dt == dtype::bool_) {
    const bool one = a.value == "true" || a.value == "1";
    if (!one && a.value != "false" && a.value != "0") {
      error = what + " and takes true, false, 1 or 0";
      return false;
    }
    out.value = one ? 1.0 : 0.0;
    out.integer = one ? 1 : 0;
    return true;
  }
  if (is_float(t.dt)) {
    char* end = nullptr;
    const double d = word ? 0.0 : std::strtod(a.value.c_str(), &end);
    if (word || a.value.empty() || end != a.value.c_str() + a.value.size()) {
      error = what + " and takes a number";
      return false;
    }
    if (!std::isfinite(d)) {
      error = what + " and takes a finite number";
      return false;
    }
    out.value = d;
    return true;
  }
  std::string_view digits = a.value;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t whole = 0;
  const auto [stop, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), whole);
  const std::string too_big = what + "; " + a.value + " does not fit in " + std::string(dt);
  if (ec == std::errc::result_out_of_range) {
    error = too_big;
    return false;
  }
  if (ec != std::errc{} || stop != digits.data() + digits.size()) {
    error = what + " and takes an integer";
    return false;
  }
  if (wrap_integer(t.dt, whole) != whole) {
    error = too_big;
    return false;
  }
  out.value = static_cast<double>(whole);
  out.integer = whole;
  return true;
}

/// The bindings of `args` for the scalar parameters of `fn` that they name; `error` when one does
/// not fit. Names that no scalar parameter of `fn` has are skipped (--check-numerics binds one
/// command line to every kernel).
inline bool bind_scalars(const std::vector<scalar_arg>& args, const function& fn, std::vector<scalar_binding>& out,
                         std::string& error, const run_wording& w = {}) {
  for (const auto& a : args)
    for (const auto& prm : fn.params)
      if (fn.name_of(prm.value) == a.name && fn.type_of(prm.value).is_scalar()) {
        scalar_binding b;
        if (!bind_scalar(a, fn, fn.type_of(prm.value), b, error, w)) return false;
        out.push_back(std::move(b));
      }
  return true;
}

/// The launch every run makes (sim/launch.hpp): the whole grid of `grid` blocks of `subblocks`
/// subblocks, even of one block. `--check-numerics` launches the same way.
inline void launch_whole_grid(sim_options& so, std::int64_t grid, std::int64_t subblocks) {
  so.block_num = grid;
  so.subblock_num = subblocks;
  so.whole_grid = true;
}

/// What a run binds: the function, the names of the tensors given (their arrays follow through
/// `bind_input`), the scalars, and the launch (sim/launch.hpp: every run launches the whole grid).
struct run_request {
  std::string kernel;
  std::vector<std::string> inputs;
  std::vector<scalar_arg> scalars;
  std::int64_t grid = 1;
  std::int64_t subblocks = 1;
};

/// A run that passed `prepare_run`: the function in the program that runs and as written (whose
/// parameter names the request uses), which input each parameter takes, and the GM tensors.
struct prepared_run {
  const program* to_run = nullptr;
  const function* fn = nullptr;
  const function* named = nullptr;
  std::string at;                        ///< "@kernel"
  std::vector<std::ptrdiff_t> input_of;  ///< parameter -> index into run_request::inputs, or -1
  sim_options options;
  sim_inputs inputs;
};

/// Checks `req` against `req.kernel` of `to_run` (the program after any passes; `written` is the
/// program as parsed, whose parameter names bind) and sets up its GM tensors. Returns "" or the
/// one-line reason the run cannot start. `display` names the program in a message.
inline std::string prepare_run(const run_request& req, const program& written, const program& to_run, std::string_view display,
                               prepared_run& out, const run_wording& w = {}) {
  out = prepared_run{};
  out.to_run = &to_run;
  out.at = "@" + req.kernel;
  const std::string run = detail::worded(w.run, {req.kernel});
  const std::string& at = out.at;
  const function* fn = to_run.find(req.kernel);
  if (fn == nullptr) {
    std::string names;
    for (const auto& f : to_run.functions) names += (names.empty() ? "@" : ", @") + std::string(f.name_of());
    return std::string(w.no_function) + ": no function " + at + " in " + std::string(display) +
           "; its functions: " + (names.empty() ? std::string("none") : names);
  }
  const function* named = written.find(req.kernel);
  if (named == nullptr) named = fn;
  bool same = named->params.size() == fn->params.size();
  for (std::size_t p = 0; same && p < fn->params.size(); ++p) {
    const type& a = named->type_of(named->params[p].value);
    const type& b = fn->type_of(fn->params[p].value);
    same = a.kind == b.kind && a.dt == b.dt && a.shape == b.shape && named->params[p].dir == fn->params[p].dir;
  }
  if (!same) return std::string(w.no_function) + ": the pipeline changed the parameters of " + at;
  out.fn = fn;
  out.named = named;

  // Names, then values and dtypes: everything that needs no array is checked before any is read.
  const auto param_named = [&](std::string_view n) -> std::ptrdiff_t {
    for (std::size_t p = 0; p < named->params.size(); ++p)
      if (named->name_of(named->params[p].value) == n) return static_cast<std::ptrdiff_t>(p);
    return -1;
  };
  std::string tensor_names;
  for (const auto& prm : named->params)
    if (named->type_of(prm.value).is_tensor())
      tensor_names += (tensor_names.empty() ? "" : ", ") + std::string(named->name_of(prm.value));
  out.input_of.assign(named->params.size(), -1);
  for (std::size_t k = 0; k < req.inputs.size(); ++k) {
    const std::string& n = req.inputs[k];
    const std::string input = detail::worded(w.input, {n});
    const std::ptrdiff_t p = param_named(n);
    if (p < 0)
      return input + ": " + at + " has no parameter '" + n +
             "' (its tensor parameters: " + (tensor_names.empty() ? std::string("none") : tensor_names) + ")";
    const auto& prm = named->params[static_cast<std::size_t>(p)];
    if (!named->type_of(prm.value).is_tensor())
      return input + ": '" + n + "' is a scalar parameter of " + at + "; " + detail::worded(w.bind_as_scalar, {n});
    if (prm.dir == direction::out)
      return input + ": '" + n + "' is an out parameter of " + at + "; the kernel writes it and reads no input";
    if (out.input_of[static_cast<std::size_t>(p)] >= 0) return input + ": given twice";
    out.input_of[static_cast<std::size_t>(p)] = static_cast<std::ptrdiff_t>(k);
  }
  std::string missing;
  for (std::size_t p = 0; p < named->params.size(); ++p) {
    const auto& prm = named->params[p];
    if (named->type_of(prm.value).is_tensor() && prm.dir != direction::out && out.input_of[p] < 0)
      missing += (missing.empty() ? "" : ", ") + std::string(named->name_of(prm.value)) + " (" + std::string(name(prm.dir)) + ")";
  }
  if (!missing.empty())
    return run + ": " + std::string(w.no_input) + " " + detail::listed("tensor parameter", missing) + "; " +
           std::string(w.inputs_hint);
  for (const auto& a : req.scalars) {
    const std::ptrdiff_t p = param_named(a.name);
    if (p < 0 || !named->type_of(named->params[static_cast<std::size_t>(p)].value).is_scalar())
      return detail::worded(w.scalar, {a.name}) + ": " + at + " has no scalar parameter '" + a.name + "'";
  }
  std::vector<scalar_binding> scalars;
  if (std::string e; !bind_scalars(req.scalars, *named, scalars, e, w)) return e;
  // Why no defaults: a guessed offset or loop count would run a kernel the user did not ask for.
  std::string unbound;
  for (const auto& prm : named->params) {
    const type& t = named->type_of(prm.value);
    const std::string_view n = named->name_of(prm.value);
    if (!t.is_scalar() || std::any_of(scalars.begin(), scalars.end(), [&](const scalar_binding& b) { return b.name == n; }))
      continue;
    unbound += (unbound.empty() ? "" : ", ") + std::string(n) + " (" + std::string(name(t.dt)) + ")";
  }
  if (!unbound.empty())
    return run + ": " + std::string(w.no_scalar) + " " + detail::listed("scalar parameter", unbound) + "; " +
           std::string(w.scalars_hint);
  for (const auto& prm : named->params) {
    const type& t = named->type_of(prm.value);
    if (!t.is_tensor()) continue;
    const std::string n(named->name_of(prm.value));
    if (host_descr(t.dt).empty())
      return run + ": tensor parameter " + n + " has dtype " + std::string(name(t.dt)) +
             ", which has no .npy mapping (FP16 <f2, BF16 <u2 bit patterns, FP32 <f4, INT8 |i1, INT32 <i4)";
    if (t.shape[0] < 0 || t.shape[1] < 0) return run + ": tensor parameter " + n + " has no static shape";
  }
  out.options.scalars = std::move(scalars);
  launch_whole_grid(out.options, req.grid, req.subblocks);
  out.inputs = make_inputs(*named, out.options);
  return {};
}

/// Copies one array into parameter `param`'s GM tensor after checking its `.npy` descriptor and
/// shape. `input` is the name the request gave it, `source` says where the array came from in a
/// message ("'a.npy'", "the array"). Returns "" or the reason.
inline std::string bind_input(prepared_run& r, std::size_t param, std::string_view input, std::string_view descr,
                              std::span<const std::int64_t> shape, std::span<const std::byte> bytes, std::string_view source,
                              const run_wording& w = {}) {
  const type& t = r.named->type_of(r.named->params[param].value);
  const std::string head = detail::worded(w.input, {input});
  const std::string_view want = host_descr(t.dt);
  if (descr != want)
    return head + ": dtype mismatch: " + std::string(source) + " holds '" + std::string(descr) + "', parameter " +
           std::string(input) + " is " + std::string(name(t.dt)) + " ('" + std::string(want) + "'" +
           (t.dt == dtype::bf16 ? ", BF16 bit patterns)" : ")");
  if (shape.size() != 2 || shape[0] != t.shape[0] || shape[1] != t.shape[1])
    return head + ": shape mismatch: " + std::string(source) + " holds " + detail::shape_text(shape) + ", parameter " +
           std::string(input) + " is " + detail::shape_text(t.shape);
  gm_tensor& g = *r.inputs.tensors[param];
  const auto esize = static_cast<std::size_t>(element_bytes(g.dt));
  if (bytes.size() != static_cast<std::size_t>(g.size()) * esize)
    return head + ": " + std::string(source) + " holds the wrong number of bytes";
  // The interior starts `band` elements into the byte vector (sim/gm.hpp).
  std::transform(bytes.begin(), bytes.end(),
                 g.bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(g.band) * esize),
                 [](std::byte b) { return static_cast<std::uint8_t>(b); });
  cell_meta defined;
  defined.state = cell_state::value;
  for (std::int64_t f = 0; f < g.size(); ++f) g.meta_at(f) = defined;
  return {};
}

/// One out/inout tensor after a run: its GM bytes (row-major, `host_descr(dt)`) and what in them
/// the kernel did not compute: elements of an `out` tensor never written (they hold -555), values
/// derived from never-written storage (poison), writes into the sentinel band around it.
struct run_output {
  std::string name;
  dtype dt = dtype::fp32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::span<const std::uint8_t> bytes;  ///< into `finished_run::result`
  std::int64_t unwritten = 0;
  std::int64_t poison = 0;
  std::int64_t band_hits = 0;
  /// One warning (source "run", naming the function run) for each of the three counts that is not 0.
  std::vector<diagnostic> warnings;
};

/// Move-only: the outputs' byte spans point into `result`.
struct finished_run {
  run_result result;                ///< errors set when the simulation stopped
  std::vector<run_output> outputs;  ///< in parameter order
  std::string stage;                ///< "Tile IR", "Buffer IR", or an orchestration's list
  std::string error;                ///< a run that finished without a tensor it should have written

  finished_run() = default;
  finished_run(finished_run&&) = default;
  finished_run& operator=(finished_run&&) = default;
  finished_run(const finished_run&) = delete;
  finished_run& operator=(const finished_run&) = delete;
};

/// The device functions `f` runs: itself, or the callees of an orchestration's submits in order.
inline std::vector<const function*> kernels_of(const program& p, const function& f) {
  if (f.is_device()) return {&f};
  std::vector<const function*> out;
  for (std::uint32_t i = 0; i < f.ops.size(); ++i) {
    const op_id o{i};
    if (f.op(o).code() != opcode::orch_submit || f.args(o).empty()) continue;
    const function* callee = p.find(f.symbol(f.args(o)[0]));
    if (callee != nullptr && std::find(out.begin(), out.end(), callee) == out.end()) out.push_back(callee);
  }
  return out;
}

/// Runs a prepared and bound run. `result.errors` holds the located diagnostics when the
/// simulation stopped, `error` a missing output; either way `outputs` is then empty.
inline finished_run finish_run(const prepared_run& r, const run_wording& w = {}) {
  finished_run out;
  out.result = run_function(*r.to_run, *r.fn, r.inputs, r.options);
  if (!out.result.ok()) return out;
  const auto label = [](const function& k) { return k.stage == ir_stage::buffer ? "Buffer IR" : "Tile IR"; };
  bool queries_block = false;
  out.stage = r.fn->is_device() ? "" : "orchestration";
  const char* sep = " of @";
  for (const function* k : kernels_of(*r.to_run, *r.fn)) {
    if (r.fn->is_device()) {
      out.stage = label(*k);
    } else {
      out.stage += sep + std::string(k->name_of()) + " " + label(*k);
      sep = ", @";
    }
    for (const op_node& n : k->ops)
      queries_block = queries_block || n.code() == opcode::tile_get_block_idx || n.code() == opcode::buffer_get_block_idx;
  }
  // A hint when a grid would write the rest: the kernel asks which block it is.
  const bool one_block = r.options.block_num == 1 && queries_block;
  const std::string run = detail::worded(w.run, {std::string_view(r.at).substr(1)});
  for (std::size_t p = 0; p < r.named->params.size(); ++p) {
    const auto& prm = r.named->params[p];
    if (!r.named->type_of(prm.value).is_tensor() || prm.dir == direction::in) continue;
    run_output o;
    o.name = std::string(r.named->name_of(prm.value));
    if (p >= out.result.tensors.size() || !out.result.tensors[p]) {
      out.error = run + ": the simulator returned no tensor for " + o.name;
      out.outputs.clear();
      return out;
    }
    const gm_tensor& g = *out.result.tensors[p];
    for (std::int64_t f = -g.band; f < g.size() + g.band; ++f) {
      const cell_meta& m = g.meta_at(f);
      if (!g.interior(f)) o.band_hits += m.writer != no_id ? 1 : 0;
      else if (m.state == cell_state::poison) ++o.poison;
      else if (m.writer == no_id && g.dir == direction::out) ++o.unwritten;
    }
    const auto warn = [&](const std::string& message) {
      o.warnings.push_back(
          diagnostic{r.fn->loc, text("run"), text(std::string_view(message)), {}, severity::warning, text(r.fn->name_of())});
    };
    if (o.unwritten > 0)
      warn(run + ": " + std::to_string(o.unwritten) + " of " + std::to_string(g.size()) + " elements of " + o.name +
           " were never written; they hold -555" + (one_block ? std::string(w.grid_hint) : std::string()));
    if (o.poison > 0)
      warn(run + ": " + std::to_string(o.poison) + " elements of " + o.name + " derive from never-written storage (poison)");
    if (o.band_hits > 0) warn(run + ": " + std::to_string(o.band_hits) + " writes outside " + o.name + " (its sentinel band)");
    const auto esize = static_cast<std::size_t>(element_bytes(g.dt));
    o.dt = g.dt;
    o.rows = g.rows;
    o.cols = g.cols;
    o.bytes = std::span<const std::uint8_t>(g.bytes.data() + static_cast<std::size_t>(g.band) * esize,
                                            static_cast<std::size_t>(g.size()) * esize);
    out.outputs.push_back(std::move(o));
  }
  return out;
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
