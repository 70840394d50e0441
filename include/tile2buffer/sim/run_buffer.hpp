// SPDX-License-Identifier: Apache-2.0
/// @file sim/run_buffer.hpp
/// The Buffer interpreter: executes a Buffer-stage function on byte arenas, one per memory space.
///
/// Storage model (reference §9.1–9.2; one model per op in models_buffer.hpp):
///  - `buffer.alloc((valid...), addr)` places a handle at byte `addr` of its space's arena; handles
///    at overlapping addresses share bytes. Without an address the handle gets fresh storage far
///    above every address a planner can produce (from 2^40 up), so it never overlaps anything;
///    one addressless alloc op keeps its storage when it runs again (in a loop), like PTOAS.
///    Allocation neither initializes nor clears bytes: storage nobody wrote reads as poison.
///  - A handle is (descriptor, byte base, row pitch, runtime valid rectangle). Dense Vec element
///    (r, c) lives at base + r * pitch + c * esize (column-major: base + c * pitch + r * esize);
///    boxed layouts (NZ, ZN, Acc) at base + layout_index(desc, r, c) * esize.
///  - `?` valid dims start from the alloc's valid tuple (one extent per `?` dim, in axis order) and
///    change with `buffer.set_validshape`; views (subview, reshape) have fixed metadata.
///  - `buffer.subview(src, (r, c)[, valid])` aliases src's bytes at element offset (r, c) with src's
///    row pitch (a UINT8[N, 32] byte root therefore moves 32 bytes per row); `buffer.reshape`
///    reinterprets the same bytes under another descriptor.
///  - Copies (load, store, copy, extract, the Mat -> Left/Right relayout) move stored bytes, bit for
///    bit; only arithmetic and the Acc -> FP16/BF16 narrowing store convert values.
///  - Every op reads its inputs completely before writing its destination, and touches only the
///    valid rectangle (matmul also clobbers partially covered Acc boxes, which become poison).
///  - GM tensors are updated in place; a window past the last column continues in the next row
///    (packed strides), and writes into the sentinel band are recorded for compare.
/// Precondition violations the hardware would not diagnose but that make the program meaningless
/// (transfer extents that differ from the valid metadata, mismatched elementwise operands, views
/// outside their source, Vec views whose base address is not 32-byte aligned, wild GM accesses
/// beyond the sentinel band) stop the run with a diagnostic.
#pragma once

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/buffer_interpreter.hpp"
#include "tile2buffer/sim/model_table.hpp"
#include "tile2buffer/sim/models_buffer.hpp"
#include "tile2buffer/sim/options.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// `run_buffer` with the model set `Models` (a host's; sim/model_table.hpp). The set is checked
/// here: a missing model is one compile error naming the op.
template <class Models>
run_result run_buffer_with(const program& p, const function& f, const sim_inputs& inputs, const sim_options& opt = {}) {
  static_cast<void>(p);  // reserved for calls between functions
  if constexpr (!models_checked<Models>) {
    return run_result{};
  } else {
    detail::buffer_interpreter it(f, inputs, opt, model_table<Models>.data());
    it.run_body();
    return it.finish();
  }
}

/// Runs Buffer-stage function `f` of `p` on `inputs` (from `make_inputs` of the matching Tile
/// function). The result holds the final GM state of every tensor parameter and the diagnostic
/// that stopped the run, if any.
inline run_result run_buffer(const program& p, const function& f, const sim_inputs& inputs, const sim_options& opt = {}) {
  return run_buffer_with<buffer_models>(p, f, inputs, opt);
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
