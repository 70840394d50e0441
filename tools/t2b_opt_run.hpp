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
#include "tile2buffer/sim/host_run.hpp"
#include "tile2buffer/sim/options.hpp"
#include "tile2buffer/text/lexer.hpp"
#include "tool_error.hpp"

namespace t2b_opt_run {

using namespace tile2buffer;

using sim::scalar_arg;
using sim::bind_scalars;

/// What `--run`, `--input`, `--output-dir`, `--scalar`, `--grid` and `--subblocks` set (the last
/// three are shared with --check-numerics). The flag handlers return an error view into `message`
/// (an empty view when the value is accepted).
struct request {
  bool active = false;
  std::string kernel;
  std::vector<std::pair<std::string, std::string>> inputs;  ///< NAME, FILE in command-line order
  std::string output_dir;
  std::vector<scalar_arg> scalars;  ///< in command-line order
  std::int64_t grid = 1;            ///< blocks of a launch
  std::int64_t subblocks = 1;       ///< subblocks of each block
  std::string_view launch_flag;     ///< "--grid" or "--subblocks" when one was given
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
  /// The launch of every run (sim/host_run.hpp's rule).
  void launch(sim::sim_options& so) const { sim::launch_whole_grid(so, grid, subblocks); }
};

namespace detail {

inline int fail(const std::string& message) { return t2b_tools::tool_error(message); }

}  // namespace detail

/// Runs `req.kernel` of `to_run` (the program after the pipeline flags) on the `.npy` inputs and
/// writes its output tensors; `written` is the program as parsed (parameter names). Returns the
/// exit code. The checks and the run are sim/host_run.hpp's, shared with the Python package.
inline int run(const request& req, const program& written, const program& to_run, std::string_view display) {
  sim::run_request rr{req.kernel, {}, req.scalars, req.grid, req.subblocks};
  for (const auto& in : req.inputs) rr.inputs.push_back(in.first);
  sim::prepared_run prepared;
  if (const std::string e = sim::prepare_run(rr, written, to_run, display, prepared); !e.empty()) return detail::fail(e);
  const std::string& at = prepared.at;
  for (const auto& prm : prepared.named->params) {
    const std::string_view name = prepared.named->name_of(prm.value);
    if (prepared.named->type_of(prm.value).is_tensor() && prm.dir != direction::in && !tile2buffer::detail::is_identifier(name))
      return detail::fail("--run " + at + ": output parameter '" + std::string(name) +
                          "' is not an identifier, so it names no file");
  }
  for (std::size_t p = 0; p < prepared.input_of.size(); ++p) {
    if (prepared.input_of[p] < 0) continue;
    const auto& [name, path] = req.inputs[static_cast<std::size_t>(prepared.input_of[p])];
    std::string bytes;
    if (!t2b_tools::read_file(path, bytes)) return detail::fail("--input " + name + ": cannot read '" + path + "'");
    t2b_npy::array a;
    if (const std::string e = t2b_npy::parse(bytes, a); !e.empty())
      return detail::fail("--input " + name + ": '" + path + "': " + e);
    const std::span<const std::byte> data(reinterpret_cast<const std::byte*>(a.data.data()), a.data.size());
    if (const std::string e = sim::bind_input(prepared, p, name, a.descr, a.shape, data, "'" + path + "'"); !e.empty())
      return detail::fail(e);
  }

  const sim::finished_run r = sim::finish_run(prepared);
  if (!r.result.ok()) return t2b_tools::tool_error("--run " + at + ": the simulation stopped:", display, r.result.errors);
  if (!r.error.empty()) return detail::fail(r.error);

  std::error_code ec;
  std::filesystem::create_directories(req.output_dir, ec);
  if (ec || !std::filesystem::is_directory(req.output_dir, ec))
    return detail::fail("--output-dir: cannot create directory '" + req.output_dir + "'");
  for (const sim::run_output& o : r.outputs) {
    for (const diagnostic& w : o.warnings) {
      if (t2b_tools::json_errors) {
        diagnostic unlocated = w;  // as the text form: about an output file, at no line
        unlocated.loc = {};
        t2b_tools::json_add(unlocated, display);
      } else {
        t2b_tools::tool_warning(w.message.view());
      }
    }
    const std::string_view data(reinterpret_cast<const char*>(o.bytes.data()), o.bytes.size());
    const std::string path = (std::filesystem::path(req.output_dir) / (o.name + ".npy")).string();
    if (!t2b_tools::write_file(path, t2b_npy::serialize(sim::host_descr(o.dt), {o.rows, o.cols}, data)))
      return detail::fail("--output-dir: cannot write '" + path + "'");
    std::printf("%s (%s): wrote %s %s %s\n", at.c_str(), r.stage.c_str(), path.c_str(),
                std::string(tile2buffer::name(o.dt)).c_str(), t2b_npy::shape_text({o.rows, o.cols}).c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace t2b_opt_run
