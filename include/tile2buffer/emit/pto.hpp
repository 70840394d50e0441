// SPDX-License-Identifier: Apache-2.0
/// @file emit/pto.hpp
/// PTO-AS emission of Buffer-stage kernels (reference §6): one `func.func` per kernel with the
/// tensor-then-scalar signature, SPMD ABI parameters when queried, hoisted constants, one
/// `pto.make_tensor_view` per tensor parameter, then every Buffer op and `scf` control flow
/// carrying scalars only, in a module that names its target (`pto.target_arch`).
///
/// The emitter builds one `mlir_op` record per op (the PTO ops from the op model of
/// `emit/pto_ops.hpp`: real operand groups, segments and properties); `emit/printer.hpp` renders
/// the records in the PTO-AS custom form or in MLIR's generic op form, as MLIR's own printer
/// writes the real dialect's ops. This file is the entry points (`check_pto`, `emit_pto`); the
/// rules and which op gets which are emit/pto_emitter.hpp (on emit/pto_values.hpp's state).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/decimal.hpp"
#include "tile2buffer/detail/mlir_float.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/emit/mlir.hpp"
#include "tile2buffer/emit/preflight.hpp"
#include "tile2buffer/emit/printer.hpp"
#include "tile2buffer/emit/pto_ops.hpp"
#include "tile2buffer/emit/pto_emitter.hpp"
#include "tile2buffer/ir/cast.hpp"
#include "tile2buffer/ir/elementwise.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/checks/buffer.hpp"

namespace tile2buffer {
inline namespace v0 {

/// How `emit_pto` writes a program.
struct pto_options {
  bool generic = false;       ///< MLIR generic op form instead of the PTO-AS custom forms
  std::string_view kernel{};  ///< emit only this function (empty: every Buffer-stage kernel)
  /// The module's `pto.target_arch` and the layouts printed for it; a kernel's own `target`
  /// attribute wins (every emitted kernel must then agree).
  target_arch target = target_arch::a2a3;
  /// Whole-program emission (no `kernel`) leaves out Tile-stage kernels, with a comment in the
  /// module, instead of rejecting them: a mixed program whose reductions stay Tile still gives
  /// the PTO-AS of its Buffer kernels. The caller says which kernels stayed and why.
  bool skip_tile_kernels = false;
};

/// Checks one Buffer-stage kernel of `p` for emission: the IR verifier, the preflight, then the
/// Buffer storage proofs of `verify_buffer` (a kernel may come here without the pipeline).
/// Empty when `f` can be emitted.
constexpr std::vector<diagnostic> check_pto(const program& p, const function& f) {
  std::vector<diagnostic> out;
  if (!f.is_device()) {
    out.push_back(diagnostic{f.loc,
                             text(detail::pto_source),
                             text("@") << f.name_of() << " is an orchestration function; PTO-AS holds device kernels only",
                             {}});
    return out;
  }
  if (f.stage != ir_stage::buffer) {
    out.push_back(diagnostic{f.loc,
                             text(detail::pto_source),
                             text("@") << f.name_of()
                                       << " is a Tile-stage kernel; the PTO emitter writes Buffer-stage kernels only "
                                          "(legacy Tile emission is out of scope)",
                             {}});
    return out;
  }
  // A checker's findings, reported by the emitter as invalid Buffer IR.
  const auto invalid_ir = [&](std::vector<diagnostic> found) {
    for (diagnostic& d : found) {
      d.message = text("Invalid Buffer IR (") << d.source << "): " << d.message;
      d.source = text(detail::pto_source);
      out.push_back(static_cast<diagnostic&&>(d));
    }
  };
  invalid_ir(verify<>(p, f));
  // The preflight and the storage proofs read only verified IR: malformed arenas never reach
  // them. The preflight first: where both object, its emission-level message is the one to read.
  if (out.empty()) detail::pto_preflight(f, out).run();
  if (out.empty()) invalid_ir(detail::buffer_checker(f).run());
  return out;
}

/// Whether `p` has a Buffer-stage kernel. Hosts set `pto_options::skip_tile_kernels` from it for
/// a whole program: the kernels that stayed Tile are left out beside a lowered one, while a program
/// with none has nothing to emit and the emitter says why.
constexpr bool any_buffer_kernel(const program& p) {
  for (const function& f : p.functions)
    if (f.is_device() && f.stage == ir_stage::buffer) return true;
  return false;
}

/// Whether whole-program emission under `o` leaves Tile-stage kernel `f` out.
constexpr bool skipped_tile_kernel(const pto_options& o, const function& f) {
  return o.skip_tile_kernels && o.kernel.empty() && f.is_device() && f.stage != ir_stage::buffer;
}

/// PTO-AS text for the Buffer-stage kernels of `p`, in one `module` whose `pto.target_arch` is
/// the kernels' target. Orchestration functions are host code and are skipped (a comment says
/// so); a Tile-stage kernel is an error (unless `o.skip_tile_kernels`), as is any kernel the preflight rejects, and a module
/// whose kernels disagree on their target or on the PTOAS level (addresses on every allocation
/// or on none). With `o.kernel`, only that function is emitted. A first comment line names the
/// `--pto-level` ptoas needs for the module (docs/pto-as.md, "Level").
template <class = void>
constexpr result<text> emit_pto(const program& p, const pto_options& o = {}) {
  result<text> out;
  bool found = o.kernel.empty();
  std::vector<const function*> kernels;
  for (const function& f : p.functions) {
    if (!o.kernel.empty() && f.name_of() != o.kernel) continue;
    found = true;
    if (o.kernel.empty() && !f.is_device()) continue;
    if (skipped_tile_kernel(o, f)) continue;
    std::vector<diagnostic> errors = check_pto(p, f);
    for (auto& d : errors) out.errors.push_back(static_cast<diagnostic&&>(d));
    if (errors.empty()) kernels.push_back(&f);
  }
  if (!found)
    out.errors.push_back(
        diagnostic{location{}, text(detail::pto_source), text("no function named @") << o.kernel << " in the program", {}});
  if (!out.errors.empty()) return out;

  // One module, one target: a kernel's own `target` attribute, else the option.
  const auto target_of = [&](const function& f) { return f.target ? *f.target : o.target; };
  const target_arch target = kernels.empty() ? o.target : target_of(*kernels.front());
  for (const function* f : kernels)
    if (target_of(*f) != target) {
      out.errors.push_back(
          diagnostic{f->loc,
                     text(detail::pto_source),
                     text("@") << f->name_of() << " is for target " << name(target_of(*f)) << " but @"
                               << kernels.front()->name_of() << " for " << name(target)
                               << "; a PTO module has one pto.target_arch (emit the kernels separately with --pto-kernel)",
                     {}});
      return out;
    }
  detail::pto_level_check level;
  for (const function* f : kernels) level.add(*f, out.errors);
  if (!out.errors.empty()) return out;

  const detail::mlir_printer printer(o.generic);
  text funcs;
  std::size_t next = 0;
  for (const function& f : p.functions) {
    if (!o.kernel.empty() && f.name_of() != o.kernel) continue;
    if (o.kernel.empty() && !f.is_device()) {
      funcs << "  // @" << f.name_of() << ": orchestration (host code), not emitted\n";
      continue;
    }
    if (skipped_tile_kernel(o, f)) {
      funcs << "  // @" << f.name_of() << ": stays Tile, not emitted\n";
      continue;
    }
    detail::pto_emitter(*kernels[next++], printer, target).run(funcs);
  }
  // Why a comment: ptoas and pto-check-opt default to level2, which rejects every planned addr,
  // and nothing else in the text says which level it was written for.
  if (const std::string_view needed = level.needed(); !needed.empty())
    out.value << "// tile2buffer: check with --pto-level=" << needed
              << (needed == "level3" ? " (every pto.alloc_tile has an addr)\n"
                                     : " (the default: no pto.alloc_tile has an addr)\n");
  const text attrs = text("pto.target_arch = \"") << detail::target_arch_spelling(target) << '"';
  printer.module(out.value, attrs.view(), funcs);
  return out;
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
result<text> emit_pto(const program& p, const pto_options& o = {});  // TILE2BUFFER_EXTERN_PIPELINE: run time only
}
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::emit_pto;
#endif

}  // namespace v0
}  // namespace tile2buffer
