// SPDX-License-Identifier: Apache-2.0
/// @file tools/t2b_opt_run.hpp
/// `t2b-opt --run=FUNCTION --input NAME=FILE.npy ... [--scalar NAME=VALUE ...] [--grid=N]
/// [--subblocks=M] --output-dir DIR`: runs one function in the reference simulator on tensors read
/// from `.npy` files and writes its output tensors as `.npy` files.
///
/// Rules (README.md and `t2b-opt --help` summarize them):
///  - The function runs as the program stands after the command line's pipeline flags: as written
///    (Tile IR, or Buffer IR when the file holds Buffer IR) without one, after lowering with
///    `--lower`, `--planner`, `--target`, .... Each stage runs in its own interpreter.
///  - A device function runs as a launch of `--grid=N` blocks (default 1), each of `--subblocks=M`
///    subblocks (default 1): get_block_idx, get_block_num and get_subblock_idx return the
///    instance's values, and the instances run one after another in order (block 0 subblock 0,
///    block 0 subblock 1, ...) on the same GM. An orchestration function runs its body; each
///    `submit` launches its kernel's whole grid, in program order, which respects `deps`
///    (sim/launch.hpp). --check-numerics takes the same --grid and --subblocks, and compares
///    each orchestration that submits a lowered kernel as well as the kernels.
///  - Parameters are named as written in the input file: the value name of the parameter, without
///    the function's `@` (`A` in `aiv @k(A: Tensor[...])`). Names are resolved in the function as
///    written and bound by position in the function that runs, so a renaming pass cannot change
///    them.
///  - Every `in` and `inout` tensor parameter needs `--input NAME=FILE`; there are no default
///    values. `out` parameters take no input. The file's shape must equal the tensor's static shape
///    `[rows, cols]` and its dtype must be the tensor's: FP16 `<f2`, FP32 `<f4`, INT8 `|i1`, INT32
///    `<i4`, and BF16 as raw bit patterns in `<u2` (NumPy has no bfloat16: build them with
///    `(np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)` for truncation, or
///    round first). Tensors of other dtypes cannot be run.
///  - Every scalar parameter needs `--scalar NAME=VALUE`; there are no default values either. The
///    value must fit the parameter's dtype: integer and INDEX parameters take an integer within
///    the dtype's range (`3.5` is an error, not 3), BOOL takes `true`, `false`, `1` or `0`, float
///    parameters take a finite number (rounded to the dtype). A `--scalar` that names no scalar
///    parameter of the function is an error.
///  - Every `out` and `inout` tensor parameter is written to DIR/NAME.npy with the dtype mapping
///    above: its GM contents after the run (an `inout` tensor holds its input wherever the kernel did
///    not write). DIR is created when missing. Elements of an `out` tensor the kernel never wrote
///    hold the simulator's -555, values derived from never-written storage are poison, and writes
///    outside a tensor hit its sentinel band: each is a warning on stderr (the files are still
///    written, exit 0).
///  - Errors (unknown or missing names, values that do not fit, shape or dtype mismatches,
///    unreadable or malformed `.npy` files, a failing simulation) print one `t2b-opt: ...` line
///    and exit 1 (a failing simulation adds its located diagnostics); command-line misuse
///    (`--input` without `--run`, a name given twice, `--run` with `-o` or `--emit`, ...) exits 2
///    with the usage.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "file_io.hpp"
#include "npy.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/compare.hpp"
#include "tile2buffer/sim/options.hpp"
#include "tile2buffer/text/lexer.hpp"
#include "tool_error.hpp"

namespace t2b_opt_run {

// Why: the simulator's GM bytes are host-order (memcpy) and .npy data here is little-endian;
// they are copied as bytes.
static_assert(std::endian::native == std::endian::little, "t2b-opt --run copies little-endian .npy data as host bytes");

using namespace tile2buffer;

/// A `--scalar NAME=VALUE` as written. Its value is typed only against the parameter it binds
/// (`bind_scalar`): "3" binds an INDEX parameter exactly and "3.5" does not bind one at all.
struct scalar_arg {
  std::string name;
  std::string value;
};

/// What `--run`, `--input`, `--output-dir`, `--scalar`, `--grid` and `--subblocks` set (the last
/// three are shared with --check-numerics). The flag handlers return an error view into `message`
/// (an empty view when the value is accepted).
struct request {
  bool active = false;
  std::string kernel;
  std::vector<std::pair<std::string, std::string>> inputs;  ///< NAME, FILE in command-line order
  std::string output_dir;
  std::vector<scalar_arg> scalars;        ///< in command-line order
  std::int64_t grid = 1;                  ///< blocks of a launch
  std::int64_t subblocks = 1;             ///< subblocks of each block
  std::string_view launch_flag;           ///< "--grid" or "--subblocks" when one was given
  std::string message;

  std::string_view set_kernel(std::string_view v) {
    if (!v.empty() && v.front() == '@') v.remove_prefix(1);
    if (v.empty()) return "--run needs a function name";
    if (active) return "--run given twice";
    active = true;
    kernel = std::string(v);
    return {};
  }
  std::string_view add_input(std::string_view v) {
    const std::size_t eq = v.find('=');
    if (eq == 0 || eq == std::string_view::npos || eq + 1 == v.size()) return "--input needs NAME=FILE";
    const std::string name(v.substr(0, eq));
    for (const auto& in : inputs)
      if (in.first == name) {
        message = "--input " + name + " given twice";
        return message;
      }
    inputs.emplace_back(name, std::string(v.substr(eq + 1)));
    return {};
  }
  std::string_view set_output_dir(std::string_view v) {
    if (v.empty()) return "--output-dir needs a directory";
    output_dir = std::string(v);
    return {};
  }
  /// Checks the form only (a number, `true` or `false`); whether it fits waits for the parameter.
  std::string_view add_scalar(std::string_view v) {
    const std::size_t eq = v.find('=');
    if (eq == 0 || eq == std::string_view::npos || eq + 1 == v.size()) return "--scalar needs NAME=VALUE";
    scalar_arg a{std::string(v.substr(0, eq)), std::string(v.substr(eq + 1))};
    for (const auto& b : scalars)
      if (b.name == a.name) {
        message = "--scalar " + a.name + " given twice";
        return message;
      }
    if (a.value != "true" && a.value != "false") {
      char* end = nullptr;
      const double d = std::strtod(a.value.c_str(), &end);
      if (end != a.value.c_str() + a.value.size() || !std::isfinite(d)) {
        message = "--scalar " + a.name + "=" + a.value + ": VALUE must be a finite number, true or false";
        return message;
      }
    }
    scalars.push_back(std::move(a));
    return {};
  }
  /// `--grid=N` / `--subblocks=M`: a count from 1 to 65535 (a launch's block count fits 16 bits).
  std::string_view set_launch(std::string_view flag, std::string_view v) {
    std::uint64_t n = 0;
    bool digits = !v.empty() && v.size() <= 5;
    for (const char c : v) {
      digits = digits && c >= '0' && c <= '9';
      if (digits) n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (!digits || n < 1 || n > 65535) {
      message = std::string(flag) + ": expected a number from 1 to 65535";
      return message;
    }
    (flag == "--grid" ? grid : subblocks) = static_cast<std::int64_t>(n);
    launch_flag = flag == "--grid" ? "--grid" : "--subblocks";
    return {};
  }
  /// Checks between flags once the whole command line is read; "" when consistent.
  /// `output_flag` is "-o" or "--emit" when given (they shape an IR output that --run does not write).
  [[nodiscard]] std::string check(bool check_numerics, std::string_view output_flag) const {
    if (!active && (!inputs.empty() || !output_dir.empty())) return "--input and --output-dir need --run=FUNCTION";
    if (!active && !check_numerics && !launch_flag.empty()) return std::string(launch_flag) + " needs --run or --check-numerics";
    if (active && !output_flag.empty())
      return "--run writes its tensors to --output-dir, not IR; it cannot be combined with " + std::string(output_flag);
    if (active && output_dir.empty()) return "--run needs --output-dir DIR";
    if (active && check_numerics) return "--run and --check-numerics cannot be combined";
    return {};
  }
  /// The launch of every run: the whole grid, even of one block (sim/launch.hpp).
  void launch(sim::sim_options& so) const {
    so.block_num = grid;
    so.subblock_num = subblocks;
    so.whole_grid = true;
  }
};

/// The binding of `a` for scalar parameter `t` of `fn`, or in `error` why the value does not fit
/// (see the file comment for the rules).
inline bool bind_scalar(const scalar_arg& a, const function& fn, const type& t, sim::scalar_binding& out, std::string& error) {
  const std::string_view dt = tile2buffer::name(t.dt);
  // "an INT8", "an FP16", "an INDEX"; "a BOOL", "a UINT8", "a BF16".
  const std::string what = "--scalar " + a.name + "=" + a.value + ": " + a.name + " is a" +
                           (dt.front() == 'I' || dt.front() == 'F' ? "n " : " ") + std::string(dt) + " parameter of @" +
                           std::string(fn.name_of());
  const bool word = a.value == "true" || a.value == "false";
  out = sim::scalar_binding{a.name, 0.0};
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
    if (word) {
      error = what + " and takes a number";
      return false;
    }
    out.value = std::strtod(a.value.c_str(), nullptr);
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
  if (sim::wrap_integer(t.dt, whole) != whole) {
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
inline bool bind_scalars(const std::vector<scalar_arg>& args, const function& fn, std::vector<sim::scalar_binding>& out, std::string& error) {
  for (const auto& a : args)
    for (const auto& prm : fn.params)
      if (fn.name_of(prm.value) == a.name && fn.type_of(prm.value).is_scalar()) {
        sim::scalar_binding b;
        if (!bind_scalar(a, fn, fn.type_of(prm.value), b, error)) return false;
        out.push_back(std::move(b));
      }
  return true;
}

/// The `.npy` descriptor of a tensor dtype, or "" when --run does not map it.
inline std::string_view npy_descr(dtype d) {
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

inline int fail(const std::string& message) { return t2b_tools::tool_error(message); }

inline std::string shape_of(const type& t) { return "(" + std::to_string(t.shape[0]) + ", " + std::to_string(t.shape[1]) + ")"; }

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

/// "Tile IR", "Buffer IR", or for an orchestration "orchestration of @a Buffer IR, @b Tile IR".
inline std::string stage_of(const program& p, const function& f) {
  const auto label = [](const function& k) { return k.stage == ir_stage::buffer ? "Buffer IR" : "Tile IR"; };
  if (f.is_device()) return label(f);
  std::string s = "orchestration";
  const char* sep = " of @";
  for (const function* k : kernels_of(p, f)) {
    s += sep + std::string(k->name_of()) + " " + label(*k);
    sep = ", @";
  }
  return s;
}

/// Whether a kernel `f` runs asks for its block index.
inline bool queries_block(const program& p, const function& f) {
  for (const function* k : kernels_of(p, f))
    for (const op_node& n : k->ops)
      if (n.code() == opcode::tile_get_block_idx || n.code() == opcode::buffer_get_block_idx) return true;
  return false;
}

}  // namespace detail

/// Runs `req.kernel` of `to_run` (the program after the pipeline flags) on the `.npy` inputs and
/// writes its output tensors; `written` is the program as parsed (parameter names). Returns the
/// exit code.
inline int run(const request& req, const program& written, const program& to_run, std::string_view display) {
  const std::string at = "@" + req.kernel;
  const function* fn = to_run.find(req.kernel);
  if (fn == nullptr) {
    std::string names;
    for (const auto& f : to_run.functions) names += (names.empty() ? "@" : ", @") + std::string(f.name_of());
    return detail::fail("--run: no function " + at + " in " + std::string(display) + "; its functions: " +
                        (names.empty() ? std::string("none") : names));
  }
  const function* named = written.find(req.kernel);
  if (named == nullptr) named = fn;
  bool same = named->params.size() == fn->params.size();
  for (std::size_t p = 0; same && p < fn->params.size(); ++p) {
    const type& a = named->type_of(named->params[p].value);
    const type& b = fn->type_of(fn->params[p].value);
    same = a.kind == b.kind && a.dt == b.dt && a.shape == b.shape && named->params[p].dir == fn->params[p].dir;
  }
  if (!same) return detail::fail("--run: the pipeline changed the parameters of " + at);

  // Names, then dtypes: everything that does not need a file is checked before any file is read.
  const auto param_named = [&](std::string_view name) -> std::ptrdiff_t {
    for (std::size_t p = 0; p < named->params.size(); ++p)
      if (named->name_of(named->params[p].value) == name) return static_cast<std::ptrdiff_t>(p);
    return -1;
  };
  std::string tensor_names;
  for (const auto& prm : named->params)
    if (named->type_of(prm.value).is_tensor())
      tensor_names += (tensor_names.empty() ? "" : ", ") + std::string(named->name_of(prm.value));
  std::vector<std::ptrdiff_t> input_of(named->params.size(), -1);  // param -> index into req.inputs
  for (std::size_t k = 0; k < req.inputs.size(); ++k) {
    const std::string& name = req.inputs[k].first;
    const std::ptrdiff_t p = param_named(name);
    if (p < 0)
      return detail::fail("--input " + name + ": " + at + " has no parameter '" + name + "' (its tensor parameters: " +
                          (tensor_names.empty() ? std::string("none") : tensor_names) + ")");
    const auto& prm = named->params[static_cast<std::size_t>(p)];
    if (!named->type_of(prm.value).is_tensor())
      return detail::fail("--input " + name + ": '" + name + "' is a scalar parameter of " + at + "; bind it with --scalar " + name + "=VALUE");
    if (prm.dir == direction::out)
      return detail::fail("--input " + name + ": '" + name + "' is an out parameter of " + at + "; the kernel writes it and reads no input");
    input_of[static_cast<std::size_t>(p)] = static_cast<std::ptrdiff_t>(k);
  }
  std::string missing;
  for (std::size_t p = 0; p < named->params.size(); ++p) {
    const auto& prm = named->params[p];
    if (named->type_of(prm.value).is_tensor() && prm.dir != direction::out && input_of[p] < 0)
      missing += (missing.empty() ? "" : ", ") + std::string(named->name_of(prm.value)) + " (" + std::string(tile2buffer::name(prm.dir)) + ")";
  }
  if (!missing.empty())
    return detail::fail("--run " + at + ": no --input for tensor parameter" + (missing.find(',') != std::string::npos ? "s " : " ") +
                        missing + "; every in/inout tensor needs --input NAME=FILE.npy");
  for (const auto& a : req.scalars) {
    const std::ptrdiff_t p = param_named(a.name);
    if (p < 0 || !named->type_of(named->params[static_cast<std::size_t>(p)].value).is_scalar())
      return detail::fail("--scalar " + a.name + ": " + at + " has no scalar parameter '" + a.name + "'");
  }
  std::vector<sim::scalar_binding> scalars;
  if (std::string e; !bind_scalars(req.scalars, *named, scalars, e)) return detail::fail(e);
  // Why no defaults: a guessed offset or loop count would run a kernel the user did not ask for.
  std::string unbound;
  for (const auto& prm : named->params) {
    const type& t = named->type_of(prm.value);
    const std::string_view name = named->name_of(prm.value);
    if (!t.is_scalar() || std::any_of(scalars.begin(), scalars.end(), [&](const sim::scalar_binding& b) { return b.name == name; }))
      continue;
    unbound += (unbound.empty() ? "" : ", ") + std::string(name) + " (" + std::string(tile2buffer::name(t.dt)) + ")";
  }
  if (!unbound.empty())
    return detail::fail("--run " + at + ": no --scalar for scalar parameter" + (unbound.find(',') != std::string::npos ? "s " : " ") +
                        unbound + "; every scalar parameter needs --scalar NAME=VALUE");
  for (const auto& prm : named->params) {
    const type& t = named->type_of(prm.value);
    if (!t.is_tensor()) continue;
    const std::string name(named->name_of(prm.value));
    if (npy_descr(t.dt).empty())
      return detail::fail("--run " + at + ": tensor parameter " + name + " has dtype " + std::string(tile2buffer::name(t.dt)) +
                          ", which has no .npy mapping (FP16 <f2, BF16 <u2 bit patterns, FP32 <f4, INT8 |i1, INT32 <i4)");
    if (t.shape[0] < 0 || t.shape[1] < 0) return detail::fail("--run " + at + ": tensor parameter " + name + " has no static shape");
    if (prm.dir != direction::in && !tile2buffer::detail::is_identifier(name))
      return detail::fail("--run " + at + ": output parameter '" + name + "' is not an identifier, so it names no file");
  }

  sim::sim_options so;
  so.scalars = scalars;
  req.launch(so);
  sim::sim_inputs in = sim::make_inputs(*named, so);
  for (std::size_t p = 0; p < named->params.size(); ++p) {
    if (input_of[p] < 0) continue;
    const auto& [name, path] = req.inputs[static_cast<std::size_t>(input_of[p])];
    const type& t = named->type_of(named->params[p].value);
    std::string bytes;
    if (!t2b_tools::read_file(path, bytes)) return detail::fail("--input " + name + ": cannot read '" + path + "'");
    t2b_npy::array a;
    if (const std::string e = t2b_npy::parse(bytes, a); !e.empty()) return detail::fail("--input " + name + ": '" + path + "': " + e);
    const std::string_view want = npy_descr(t.dt);
    if (a.descr != want)
      return detail::fail("--input " + name + ": dtype mismatch: '" + path + "' holds '" + a.descr + "', parameter " + name + " is " +
                          std::string(tile2buffer::name(t.dt)) + " ('" + std::string(want) + "'" +
                          (t.dt == dtype::bf16 ? ", BF16 bit patterns)" : ")"));
    const std::vector<std::int64_t> shape{t.shape[0], t.shape[1]};
    if (a.shape != shape)
      return detail::fail("--input " + name + ": shape mismatch: '" + path + "' holds " + t2b_npy::shape_text(a.shape) +
                          ", parameter " + name + " is " + detail::shape_of(t));
    sim::gm_tensor& g = *in.tensors[p];
    const auto esize = static_cast<std::size_t>(element_bytes(g.dt));
    // The interior starts `band` elements into the byte vector (sim/gm.hpp); the file holds
    // exactly rows*cols elements of the same encoding.
    std::copy(a.data.begin(), a.data.end(), g.bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(g.band) * esize));
    sim::cell_meta defined;
    defined.state = sim::cell_state::value;
    for (std::int64_t f = 0; f < g.size(); ++f) g.meta_at(f) = defined;
  }

  const sim::run_result r = sim::run_function(to_run, *fn, in, so);
  if (!r.ok()) {
    return t2b_tools::tool_error("--run " + at + ": the simulation stopped:", display, r.errors);
  }

  std::error_code ec;
  std::filesystem::create_directories(req.output_dir, ec);
  if (ec || !std::filesystem::is_directory(req.output_dir, ec))
    return detail::fail("--output-dir: cannot create directory '" + req.output_dir + "'");
  const std::string stage = detail::stage_of(to_run, *fn);
  // A hint when a grid would write the rest: the kernel asks which block it is.
  const bool one_block = req.grid == 1 && detail::queries_block(to_run, *fn);
  for (std::size_t p = 0; p < named->params.size(); ++p) {
    const auto& prm = named->params[p];
    if (!named->type_of(prm.value).is_tensor() || prm.dir == direction::in) continue;
    const std::string name(named->name_of(prm.value));
    if (p >= r.tensors.size() || !r.tensors[p]) return detail::fail("--run " + at + ": the simulator returned no tensor for " + name);
    const sim::gm_tensor& g = *r.tensors[p];
    std::int64_t unwritten = 0, poison = 0, band_hits = 0;
    for (std::int64_t f = -g.band; f < g.size() + g.band; ++f) {
      const sim::cell_meta& m = g.meta_at(f);
      if (!g.interior(f))
        band_hits += m.writer != no_id ? 1 : 0;
      else if (m.state == sim::cell_state::poison)
        ++poison;
      else if (m.writer == no_id && g.dir == direction::out)
        ++unwritten;
    }
    if (unwritten > 0)
      t2b_tools::tool_warning("--run " + at + ": " + std::to_string(unwritten) + " of " + std::to_string(g.size()) + " elements of " +
                              name + " were never written; they hold -555" +
                              (one_block ? " (only block 0 ran: --grid=N runs blocks 0..N-1)" : ""));
    if (poison > 0)
      t2b_tools::tool_warning("--run " + at + ": " + std::to_string(poison) + " elements of " + name +
                              " derive from never-written storage (poison)");
    if (band_hits > 0)
      t2b_tools::tool_warning("--run " + at + ": " + std::to_string(band_hits) + " writes outside " + name + " (its sentinel band)");
    const auto esize = static_cast<std::size_t>(element_bytes(g.dt));
    const std::string_view data(reinterpret_cast<const char*>(g.bytes.data()) + static_cast<std::size_t>(g.band) * esize,
                                static_cast<std::size_t>(g.size()) * esize);
    const std::string path = (std::filesystem::path(req.output_dir) / (name + ".npy")).string();
    if (!t2b_tools::write_file(path, t2b_npy::serialize(npy_descr(g.dt), {g.rows, g.cols}, data)))
      return detail::fail("--output-dir: cannot write '" + path + "'");
    std::printf("%s (%s): wrote %s %s %s\n", at.c_str(), stage.c_str(), path.c_str(), std::string(tile2buffer::name(g.dt)).c_str(),
                detail::shape_of(named->type_of(prm.value)).c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace t2b_opt_run
