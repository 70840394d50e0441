// SPDX-License-Identifier: Apache-2.0
/// @file python/tile2buffer/_core.cpp
/// The compiled half of the `tile2buffer` Python package: thin bindings over the separately
/// compiled pipeline (TILE2BUFFER_EXTERN_PIPELINE), so this TU compiles the IR headers and the
/// binding code only. Policy lives in `__init__.py`: these functions never raise for a program's
/// own errors; they return `(value or None, diagnostics)` and the Python layer picks the
/// exception class. Every call that works on a program releases the GIL (the program is a C++
/// object owned by its Python wrapper and is not modified), so threads lower in parallel.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/emit/memory_map.hpp"
#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/sim/host_run.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace py = pybind11;
namespace t2b = tile2buffer;

namespace {

/// (file, line, column, severity, source, message, formatted, function): what `tile2buffer.Diagnostic` holds.
using diag_tuple =
    std::tuple<std::string, std::uint32_t, std::uint32_t, std::string, std::string, std::string, std::string, std::string>;

std::vector<diag_tuple> diagnostics(const std::vector<t2b::diagnostic>& ds, std::string_view file, std::string_view source) {
  std::vector<diag_tuple> out;
  out.reserve(ds.size());
  for (const t2b::diagnostic& d : ds) {
    const t2b::text formatted = t2b::format(d, file, source);
    out.emplace_back(std::string(file), d.loc.line, d.loc.col, std::string(t2b::name(d.level)), std::string(d.source.view()),
                     std::string(d.message.view()), std::string(formatted.view()), std::string(d.function.view()));
  }
  return out;
}

template <class T>
std::pair<std::optional<T>, std::vector<diag_tuple>> outcome(t2b::result<T>&& r, std::string_view file, std::string_view source) {
  if (r.ok()) return {std::move(r.value), {}};
  return {std::nullopt, diagnostics(r.errors, file, source)};
}

/// A program as Python sees it: the IR plus the text it was parsed from (for excerpts in later
/// diagnostics; empty when it came from binary).
struct py_program {
  t2b::program ir;
  std::string source;
};

std::string file_of(const py_program& p) { return std::string(p.ir.file.view()); }

/// The enumerator of `E` spelled `s` in `names` (the library's own table, also exported to Python
/// as PLANNERS and TARGETS), or a ValueError listing them.
template <class E, class Names>
E one_of(std::string_view what, const Names& names, std::string_view s) {
  std::string listed;
  for (std::size_t i = 0; i < std::size(names); ++i) {
    if (names[i] == s) return static_cast<E>(i);
    listed += (i == 0 ? "'" : ", '") + std::string(names[i]) + "'";
  }
  throw py::value_error(std::string(what) + " must be one of " + listed + ", not '" + std::string(s) + "'");
}

template <class Names>
py::tuple names_tuple(const Names& names) {
  py::tuple out(std::size(names));
  for (std::size_t i = 0; i < std::size(names); ++i) out[i] = py::str(std::string(names[i]));
  return out;
}

t2b::planner_kind planner_of(std::string_view s) { return one_of<t2b::planner_kind>("planner", t2b::planner_names, s); }
t2b::target_arch target_of(std::string_view s) { return one_of<t2b::target_arch>("target", t2b::detail::target_names, s); }

t2b::rollout_kind rollout_of(std::string_view s) { return one_of<t2b::rollout_kind>("rollout", t2b::rollout_names, s); }

t2b::options options_of(std::string_view planner, std::string_view target, std::string_view rollout, bool enable_buffer_ir,
                        bool verify) {
  t2b::options o;
  o.planner = planner_of(planner);
  o.target = target_of(target);
  o.rollout = rollout_of(rollout);
  o.enable_buffer_ir = enable_buffer_ir;
  o.verify = verify;
  return o;
}

/// How `tile2buffer.run`'s messages name what its caller passed (sim/host_run.hpp).
constexpr t2b::sim::run_wording python_wording{
    .run = "run(@{})",
    .no_function = "run",
    .input = "inputs['{}']",
    .scalar = "scalars['{}']",
    .scalar_value = "scalars['{}'] = {}",
    .no_input = "no array in inputs for",
    .no_scalar = "no value in scalars for",
    .inputs_hint = "every in/inout tensor needs one",
    .scalars_hint = "every scalar parameter needs one",
    .bind_as_scalar = "pass it in scalars",
    .grid_hint = " (only block 0 ran: grid=N runs blocks 0..N-1)",
};

/// An array as `__init__.py` hands it over: name, NumPy `dtype.str`, shape, C-order bytes.
using array_in = std::tuple<std::string, std::string, std::vector<std::int64_t>, py::bytes>;
/// name, `dtype.str`, rows, cols, bytes.
using array_out = std::tuple<std::string, std::string, std::int64_t, std::int64_t, py::bytes>;

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "tile2buffer's compiled core; use the `tile2buffer` package, not this module";
  m.attr("PLANNERS") = names_tuple(t2b::planner_names);
  m.attr("TARGETS") = names_tuple(t2b::detail::target_names);
  m.attr("ROLLOUTS") = names_tuple(t2b::rollout_names);
  m.attr("DTYPES") = names_tuple(t2b::detail::dtype_names);  // what a type's dtype and space may be
  m.attr("SPACES") = names_tuple(t2b::detail::space_names);
  m.attr("PASSES") = names_tuple(t2b::pass_names);

  py::class_<py_program>(m, "Program")
      .def("__str__",
           [](const py_program& p) {
             t2b::text t;
             {
               py::gil_scoped_release release;
               t = t2b::print(p.ir);
             }
             return std::string(t.view());
           })
      .def_property_readonly("file", &file_of)
      .def_property_readonly("functions",
                             [](const py_program& p) {
                               std::vector<std::tuple<std::string, std::string, std::string, bool>> out;
                               for (const t2b::function& f : p.ir.functions)
                                 out.emplace_back(std::string(f.name_of()), std::string(t2b::name(f.kind)),
                                                  std::string(t2b::name(f.stage)), f.is_device());
                               return out;
                             })
      .def("to_binary",
           [](const py_program& p) -> std::pair<std::optional<py::bytes>, std::vector<diag_tuple>> {
             t2b::result<std::vector<std::uint8_t>> r;
             {
               py::gil_scoped_release release;
               r = t2b::serialize(p.ir);
             }
             if (!r.ok()) return {std::nullopt, diagnostics(r.errors, file_of(p), p.source)};
             return {py::bytes(reinterpret_cast<const char*>(r.value.data()), r.value.size()), {}};  // NOLINT
           })
      .def("verify", [](const py_program& p) {
        std::vector<t2b::diagnostic> errors;
        {
          py::gil_scoped_release release;
          errors = t2b::verify(p.ir);
        }
        return diagnostics(errors, file_of(p), p.source);
      });

  m.def(
      "parse",
      [](std::string text, std::string file) {
        py::gil_scoped_release release;
        auto r = outcome(t2b::parse(text, file), file, text);
        std::optional<py_program> p;
        if (r.first) p = py_program{std::move(*r.first), std::move(text)};
        return std::make_pair(std::move(p), std::move(r.second));
      },
      py::arg("text"), py::arg("file"));

  m.def(
      "load_binary",
      [](py::bytes data, std::string file) {
        std::string bytes = data;
        py::gil_scoped_release release;
        auto r = outcome(t2b::deserialize(std::string_view(bytes)), file, {});
        std::optional<py_program> p;
        if (r.first) {
          if (!file.empty() || r.first->file.empty()) r.first->file = t2b::text(file);
          p = py_program{std::move(*r.first), {}};
        }
        return std::make_pair(std::move(p), std::move(r.second));
      },
      py::arg("data"), py::arg("file"));

  m.def(
      "lower",
      // (program or None, errors, notices): the notices (warnings, remarks) become Python warnings.
      [](const py_program& p, std::string planner, std::string target, std::string rollout, bool enable_buffer_ir, bool verify,
         unsigned workers) {
        const t2b::options o = options_of(planner, target, rollout, enable_buffer_ir, verify);
        py::gil_scoped_release release;
        t2b::result<t2b::program> lowered = t2b::lower(p.ir, o, t2b::parallelism{workers});
        std::vector<diag_tuple> notices = diagnostics(lowered.notices, file_of(p), p.source);
        auto r = outcome(std::move(lowered), file_of(p), p.source);
        std::optional<py_program> out;
        // The lowered program keeps the input's text: its ops keep their source locations.
        if (r.first) out = py_program{std::move(*r.first), p.source};
        return std::make_tuple(std::move(out), std::move(r.second), std::move(notices));
      },
      py::arg("program"), py::arg("planner"), py::arg("target"), py::arg("rollout"), py::arg("enable_buffer_ir"),
      py::arg("verify"), py::arg("workers"));

  m.def(
      "explain_selection",
      [](const py_program& p, std::string planner, std::string target, std::string rollout) {
        const t2b::options o = options_of(planner, target, rollout, true, true);
        py::gil_scoped_release release;
        // As the pipeline's select pass sees the program: after init_storage.
        auto storage = t2b::run_pipeline(p.ir, o, t2b::pass_id::init_storage);
        std::vector<std::tuple<std::string, bool, std::uint32_t, std::uint32_t, std::string>> entries;
        if (!storage.ok()) return std::make_pair(entries, diagnostics(storage.errors, file_of(p), p.source));
        for (const t2b::selection_entry& e : t2b::explain_selection(storage.value, o))
          entries.emplace_back(std::string(e.function.view()), e.selected, e.loc.line, e.loc.col,
                               std::string(t2b::stays_tile_reason(e).view()));
        return std::make_pair(entries, std::vector<diag_tuple>{});
      },
      py::arg("program"), py::arg("planner"), py::arg("target"), py::arg("rollout"));

  m.def(
      "emit_pto",
      [](const py_program& p, bool generic, std::string kernel, std::string target) {
        t2b::pto_options o;
        o.generic = generic;
        o.kernel = kernel;
        o.target = target_of(target);
        o.skip_tile_kernels = kernel.empty() && t2b::any_buffer_kernel(p.ir);  // as t2b-opt --emit=pto
        py::gil_scoped_release release;
        auto r = t2b::emit_pto(p.ir, o);
        std::optional<std::string> text;
        if (r.ok()) text = std::string(r.value.view());
        return std::make_pair(std::move(text), r.ok() ? std::vector<diag_tuple>{} : diagnostics(r.errors, file_of(p), p.source));
      },
      py::arg("program"), py::arg("generic"), py::arg("kernel"), py::arg("target"));

  // The op records (ir/opcode.hpp), for the Python builder: (mnemonic, operands as the record
  // writes them ("tensor:v offsets:p shape:p valid:p?"), keywords, result arity, regions,
  // elementwise kind, scalar infix spelling, whether it is a scalar op, family, result-type rule,
  // the operand a `same_as` result copies).
  m.def("op_records", [] {
    std::vector<std::tuple<std::string, std::string, std::vector<std::string>, std::string, unsigned, std::string, std::string,
                           bool, std::string, std::string, std::string>>
        out;
    for (std::size_t c = 0; c < t2b::opcode_count; ++c) {
      const auto& r = t2b::info(static_cast<t2b::opcode>(c));
      std::vector<std::string> keywords;
      for (std::size_t k = 0; k < t2b::keyword_names.size(); ++k)
        if ((r.keywords & t2b::kw_bit(static_cast<t2b::keyword>(k))) != 0) keywords.emplace_back(t2b::keyword_names[k]);
      out.emplace_back(std::string(r.mnemonic), std::string(r.operands), std::move(keywords),
                       std::string(t2b::arity_names[static_cast<std::size_t>(r.results)]), r.regions,
                       std::string(t2b::ew_kind_names[static_cast<std::size_t>(r.ew)]), std::string(r.infix),
                       r.dia == t2b::dialect::scalar, std::string(t2b::family_name(r.family)),
                       std::string(t2b::result_rule_name(r.result)), std::string(r.result_like));
    }
    return out;
  });

  // (outputs, warnings, stage, error, diagnostics): `error` is a one-line reason the run could not
  // start (ValueError), `diagnostics` the located errors of a simulation that stopped.
  m.def(
      "run",
      [](const py_program& p, std::string kernel, std::vector<array_in> inputs,
         std::vector<std::pair<std::string, std::string>> scalars, std::int64_t grid, std::int64_t subblocks) {
        std::vector<std::string> data;
        t2b::sim::run_request req;
        req.kernel = std::move(kernel);
        req.grid = grid;
        req.subblocks = subblocks;
        for (auto& [name, descr, shape, bytes] : inputs) {
          req.inputs.push_back(name);
          data.push_back(std::string(bytes));
        }
        for (auto& [name, value] : scalars) req.scalars.push_back({name, value});
        std::vector<array_out> outputs;
        std::vector<diag_tuple> warnings;
        std::string stage, error;
        std::vector<diag_tuple> diags;
        std::vector<std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::string>> raw;
        {
          py::gil_scoped_release release;
          t2b::sim::prepared_run prepared;
          error = t2b::sim::prepare_run(req, p.ir, p.ir, "the program", prepared, python_wording);
          for (std::size_t param = 0; error.empty() && param < prepared.input_of.size(); ++param) {
            if (prepared.input_of[param] < 0) continue;
            const auto k = static_cast<std::size_t>(prepared.input_of[param]);
            const auto& [name, descr, shape, bytes] = inputs[k];
            const std::span<const std::byte> b(reinterpret_cast<const std::byte*>(data[k].data()), data[k].size());
            error = t2b::sim::bind_input(prepared, param, name, descr, shape, b, "the array", python_wording);
          }
          if (error.empty()) {
            const t2b::sim::finished_run r = t2b::sim::finish_run(prepared, python_wording);
            if (!r.result.ok()) {
              diags = diagnostics(r.result.errors, file_of(p), p.source);
            } else if (!r.error.empty()) {
              error = r.error;
            } else {
              for (const t2b::sim::run_output& o : r.outputs)
                for (diag_tuple& w : diagnostics(o.warnings, file_of(p), p.source)) warnings.push_back(std::move(w));
              stage = r.stage;
              for (const t2b::sim::run_output& o : r.outputs)
                raw.emplace_back(o.name, std::string(t2b::sim::host_descr(o.dt)), o.rows, o.cols,
                                 std::string(reinterpret_cast<const char*>(o.bytes.data()), o.bytes.size()));
            }
          }
        }
        for (auto& [name, descr, rows, cols, bytes] : raw) outputs.emplace_back(name, descr, rows, cols, py::bytes(bytes));
        return std::make_tuple(std::move(outputs), std::move(warnings), std::move(stage), std::move(error), std::move(diags));
      },
      py::arg("program"), py::arg("kernel"), py::arg("inputs"), py::arg("scalars"), py::arg("grid"), py::arg("subblocks"));

  // The open pipeline: the passes named, in that order (passes/pipeline.hpp run_pass_pipeline).
  m.def(
      "run_passes",
      [](const py_program& p, std::vector<std::string> passes, std::string planner, std::string target, std::string rollout,
         bool verify, unsigned workers) {
        const t2b::options o = options_of(planner, target, rollout, true, verify);
        const std::vector<std::string_view> names(passes.begin(), passes.end());
        py::gil_scoped_release release;
        t2b::result<t2b::program> ran = t2b::run_pass_pipeline(p.ir, o, names, t2b::parallelism{workers});
        std::vector<diag_tuple> notices = diagnostics(ran.notices, file_of(p), p.source);  // as lower's
        auto r = outcome(std::move(ran), file_of(p), p.source);
        std::optional<py_program> out;
        if (r.first) out = py_program{std::move(*r.first), p.source};
        return std::make_tuple(std::move(out), std::move(r.second), std::move(notices));
      },
      py::arg("program"), py::arg("passes"), py::arg("planner"), py::arg("target"), py::arg("rollout"), py::arg("verify"),
      py::arg("workers"));

  // The SVG memory map (emit/memory_map.hpp) of one planner's plan, as `t2b-opt --memory-map`
  // draws it: the pipeline up to `plan`, whose tile.alloc ops the picture is read from.
  m.def(
      "memory_map",
      [](const py_program& p, std::string planner, std::string target, std::string rollout) {
        const t2b::options o = options_of(planner, target, rollout, true, true);
        py::gil_scoped_release release;
        auto planned = t2b::run_pipeline(p.ir, o, t2b::pass_id::plan);
        std::optional<std::string> svg;
        if (!planned) return std::make_pair(std::move(svg), diagnostics(planned.errors, file_of(p), p.source));
        const std::vector<t2b::memory_map_panel> panels{t2b::memory_map_of(planned.value, o.planner, &p.ir)};
        const std::string file = file_of(p);
        svg = std::string(t2b::render_memory_map(panels, file.empty() ? "<string>" : file).view());
        return std::make_pair(std::move(svg), std::vector<diag_tuple>{});
      },
      py::arg("program"), py::arg("planner"), py::arg("target"), py::arg("rollout"));

  // One error located in `program` and formatted with its excerpt, for the checks the Python
  // layer makes itself (`lower(strict=True)`: a kernel that stayed Tile).
  m.def(
      "diagnostic",
      [](const py_program& p, std::uint32_t line, std::uint32_t col, std::string source, std::string message) {
        const t2b::diagnostic d{t2b::location{line, col}, t2b::text(source), t2b::text(message), {}};
        return diagnostics({d}, file_of(p), p.source).front();
      },
      py::arg("program"), py::arg("line"), py::arg("column"), py::arg("source"), py::arg("message"));
}
