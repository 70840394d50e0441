// SPDX-License-Identifier: Apache-2.0
/// @file sim/run_tile.hpp
/// The Tile interpreter: executes a Tile-stage function with value semantics for tiles and memory
/// semantics for GM.
///
/// Every Tile value is its own image (bytes in its descriptor's physical layout plus a valid
/// rectangle); an op never changes its inputs. Elements outside a value's valid rectangle are
/// poison: fresh values are entirely unset, and reading outside a valid rectangle yields poison.
/// GM is memory, as on the device and as the spec's numerical tests observe it (§9.2: a store leaves
/// GM outside its window untouched, and the host reads the parameters after the run): every tensor
/// value is an alias of the parameter it derives from, `tile.store` writes that parameter's memory
/// in execution order and its result names the same memory, and a load reads the memory as it is
/// when the load runs. So a store takes effect whether or not its result is returned or yielded,
/// and two stores that both name the parameter both land. The final state of a tensor parameter is
/// its memory at the end of the run. Planning is ignored (`tile.alloc` and storage clauses have no
/// effect).
///
/// Per-op semantics (reference §9.2–9.4; one model per op in models_tile.hpp): load/store copy the valid rectangle between GM and the
/// tile (store converts FP32 accumulators to FP16/BF16 with round-to-nearest-even; every other
/// copy below moves the stored bytes, so it is bit-exact for every pattern); move copies
/// the valid rectangle across memory spaces (re-laying it out); reshape and reinterpret_view keep
/// the physical bytes under the new descriptor; transpose_view is the logical transpose; slice
/// copies the window at its offsets; assemble copies the target and writes the source's valid
/// rectangle at the offsets; set_validshape changes only the valid rectangle; extract copies the
/// window at (row, col); matmul/matmul_acc accumulate in FP32 (INT32 for INT8), and matmul_acc
/// poisons the parts of partially covered Acc boxes outside the product; row_sum/row_max fold each
/// valid row in increasing column order; an elementwise op computes each element of the valid
/// rectangle its operands and result share, and stops the run, naming the operand, when their
/// valid extents differ (physical shapes may: such kernels stay Tile).
#pragma once

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/model_table.hpp"
#include "tile2buffer/sim/models_tile.hpp"
#include "tile2buffer/sim/options.hpp"
#include "tile2buffer/sim/tile_interpreter.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// `run_tile` with the model set `Models` (a host's, e.g. `tile_models` with one model replaced;
/// sim/model_table.hpp). The set is checked here: a missing model is one compile error naming the op.
template <class Models>
run_result run_tile_with(const program& p, const function& f, const sim_inputs& inputs, const sim_options& opt = {}) {
  static_cast<void>(p);  // reserved for calls between functions
  if constexpr (!models_checked<Models>) {
    return run_result{};
  } else {
    detail::tile_interpreter it(f, inputs, opt, model_table<Models>.data());
    it.run_body();
    return it.finish();
  }
}

/// Runs Tile-stage function `f` of `p` on `inputs` (from `make_inputs`). The result holds the final
/// GM state of every tensor parameter and the diagnostic that stopped the run, if any.
inline run_result run_tile(const program& p, const function& f, const sim_inputs& inputs, const sim_options& opt = {}) {
  return run_tile_with<tile_models>(p, f, inputs, opt);
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
