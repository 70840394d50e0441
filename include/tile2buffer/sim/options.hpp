// SPDX-License-Identifier: Apache-2.0
/// @file sim/options.hpp
/// Run parameters of the simulator (seed, SPMD indices, scalar parameter values), the seeded
/// inputs built from them, and the result of one run.
///
/// Scalar parameters take, in order of preference:
///  1. the value bound by name in `sim_options::scalars`;
///  2. integer / INDEX parameters that some Tile type in the kernel uses as a valid extent
///     (`valid=[16, cols]`): the smallest physical extent they bound, i.e. a full valid region;
///  3. integer / INDEX parameters used only as loop bounds (a For's stop, a While condition's
///     operand): 2, so that a default run crosses a loop's backedge;
///  4. other integer / INDEX parameters (offsets such as `row`): 0, which keeps every runtime
///     window at its static origin;
///  5. BOOL parameters: one bit drawn from the seed; float parameters: a dyadic value in
///     {0.25, 0.5, ..., 2.0} drawn from the seed.
/// Bind explicit values to exercise other paths (e.g. `{"count", 3}`).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/sim/gm.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// A scalar SSA value: floats in `f` (already rounded to `dt`), integers and BOOL in `i`.
struct scalar_value {
  dtype dt = dtype::index;
  double f = 0.0;
  std::int64_t i = 0;

  [[nodiscard]] bool floating() const noexcept { return is_float(dt); }
  [[nodiscard]] double number() const noexcept { return floating() ? f : static_cast<double>(i); }
  [[nodiscard]] std::int64_t integer() const noexcept { return floating() ? static_cast<std::int64_t>(f) : i; }
  [[nodiscard]] bool truth() const noexcept { return floating() ? f != 0.0 : i != 0; }
  /// The value converted to `to` (float->int truncates, int->int wraps, floats round to `to`).
  [[nodiscard]] scalar_value as(dtype to) const {
    scalar_value r;
    r.dt = to;
    if (is_float(to))
      r.f = static_cast<double>(floating() ? round_double_to(to, f) : int_to_float_by_mode(to, i, round_mode::rint));
    else if (to == dtype::bool_) r.i = truth() ? 1 : 0;
    else r.i = floating() ? convert(dt, to, element{static_cast<float>(f), 0}).i : wrap_integer(to, i);
    return r;
  }
  static scalar_value of_int(dtype d, std::int64_t v) { return {d, 0.0, wrap_integer(d, v)}; }
  static scalar_value of_float(dtype d, double v) { return {d, static_cast<double>(round_double_to(d, v)), 0}; }
};

/// A named scalar parameter value. Integer parameters take `integer` when it is set (exact over the
/// whole INT64 range), else `value` truncated toward zero and saturated to INT64.
struct scalar_binding {
  std::string name;
  double value = 0.0;
  std::optional<std::int64_t> integer;

  scalar_binding() = default;
  scalar_binding(std::string n, double v) : name(std::move(n)), value(v) {}
  /// The value an integer parameter takes.
  std::int64_t as_integer() const {
    if (integer) return *integer;
    // Why the bounds: converting a double outside INT64's range is undefined behaviour.
    if (!(value > -9223372036854775808.0)) return value < 0 ? std::numeric_limits<std::int64_t>::min() : 0;
    if (value >= 9223372036854775808.0) return std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(value);
  }
};

struct sim_options {
  std::uint64_t seed = 1;         ///< seeds GM inputs and unbound BOOL/float scalars
  std::string source;             ///< the program's file name, for located notes (none when empty)
  std::int64_t block_idx = 0;     ///< result of get_block_idx
  std::int64_t block_num = 1;     ///< result of get_block_num
  std::int64_t subblock_idx = 0;  ///< result of get_subblock_idx
  std::int64_t subblock_num = 1;  ///< subblocks per block (no query returns it), for `whole_grid`
  /// Run every block in [0, block_num) and, in each, every subblock in [0, subblock_num), in order
  /// on one GM, instead of only block_idx/subblock_idx (sim/launch.hpp). An orchestration's
  /// submits always launch the whole grid.
  bool whole_grid = false;
  std::vector<scalar_binding> scalars;
  std::uint64_t max_steps = 1u << 22;  ///< executed-op budget; guards against endless loops
  std::uint64_t max_elements = std::uint64_t{1}
                               << 28;  ///< budget of elements touched (each op: its largest tile): under a minute per run
  int max_reported = 8;                ///< mismatches described in full by compare
  /// Signalling NaNs planted in each FP16/BF16/FP32 input tensor after seeding (0: none), at
  /// positions drawn from their own stream, so the other input values stay as the seed gives them.
  int signaling_nans = 0;
};

/// Per-parameter inputs: a GM tensor or a scalar, indexed by parameter position.
struct sim_inputs {
  std::vector<std::optional<gm_tensor>> tensors;
  std::vector<std::optional<scalar_value>> scalars;
};

/// A read through one Buffer allocation of bytes last written through another. Planned aliases do
/// this on purpose; when a comparison fails, these reads usually point at two live buffers whose
/// storage overlaps.
struct alias_read {
  std::uint32_t op = no_id;       ///< the reading op
  std::uint32_t read = no_id;     ///< value id of the handle it read
  std::uint32_t written = no_id;  ///< value id of the allocation the bytes were written through
  std::uint32_t writer = no_id;   ///< the op that wrote them
};

/// Final state of one run: the GM tensors (per parameter position) and the diagnostics that stopped
/// it, if any. `fn` resolves the op indices in the provenance.
struct run_result {
  const function* fn = nullptr;
  std::vector<std::optional<gm_tensor>> tensors;
  std::vector<diagnostic> errors;
  std::vector<alias_read> alias_reads;  ///< Buffer runs: distinct cross-allocation reads (first 64)
  std::size_t arena_pages = 0;          ///< Buffer runs: 4 KiB arena pages touched, all spaces

  [[nodiscard]] bool ok() const noexcept { return errors.empty(); }
  [[nodiscard]] const gm_tensor* tensor(std::string_view name) const {
    for (const auto& t : tensors)
      if (t && t->name == name) return &*t;
    return nullptr;
  }
};

/// Whether scalar parameter `v` is used only as a loop bound: a For's stop, or an operand of an op
/// in a While condition region (and at least once).
inline bool loop_bound_only(const function& f, value_id v) {
  bool bound = false, other = false;
  const auto scan = [&](const operand& x, bool is_bound, auto& self) -> void {
    if (x.is_value() && x.value() == v) (is_bound ? bound : other) = true;
    if (x.kind == operand_kind::tuple)
      for (const operand& e : f.elements(x)) self(e, is_bound, self);
  };
  for (std::uint32_t r = 0; r < f.regions.size(); ++r) {
    const op_id owner = f.regions[r].parent;
    const bool condition = owner.valid() && f.op(owner).code() == opcode::cf_while && f.region_of(owner, 0) == region_id{r};
    for (op_id o : f.ops_of(region_id{r})) {
      if (f.op(o).code() == opcode::cf_for) {
        const view<opcode::cf_for> loop(f, o);
        for (const operand& x : {loop.start(), loop.step()}) scan(x, condition, scan);
        scan(loop.stop(), true, scan);
        for (const operand& x : loop.inits()) scan(x, condition, scan);
      } else {
        for (const operand& x : f.args(o)) scan(x, condition, scan);
      }
      for (const kwarg& k : f.kwargs_of(o)) scan(k.value, false, scan);
    }
  }
  for (const value_info& val : f.values)
    for (const extent& e : f.types[val.ty.index].valid) other = other || (e.is_value() && e.value() == v);
  return bound && !other;
}

/// Seeded inputs for `f` (see the file comment for scalar defaults). Tensors are drawn from
/// `std::mt19937_64(seed)` in parameter order; scalars and planted signalling NaNs each from an
/// independent stream.
inline sim_inputs make_inputs(const function& f, const sim_options& opt) {
  sim_inputs in;
  std::mt19937_64 rng(opt.seed);
  std::mt19937_64 scalar_rng(opt.seed ^ 0x9E3779B97F4A7C15ull);
  std::mt19937_64 nan_rng(opt.seed ^ 0xC2B2AE3D27D4EB4Full);
  in.tensors.resize(f.params.size());
  in.scalars.resize(f.params.size());
  for (std::size_t p = 0; p < f.params.size(); ++p) {
    const value_id v = f.params[p].value;
    const type& t = f.type_of(v);
    if (t.is_tensor()) {
      gm_tensor g = gm_tensor::make(f.name_of(v), t, f.params[p].dir);
      if (f.params[p].dir != direction::out) {
        g.seed(rng);
        g.plant_signaling_nans(nan_rng, opt.signaling_nans);
      }
      in.tensors[p] = std::move(g);
      continue;
    }
    if (!t.is_scalar()) continue;
    const std::uint64_t draw = scalar_rng();
    const scalar_binding* bound = nullptr;
    for (const auto& b : opt.scalars)
      if (b.name == f.name_of(v)) bound = &b;
    if (bound) {
      in.scalars[p] = is_float(t.dt) ? scalar_value::of_float(t.dt, bound->value)
                                     : scalar_value::of_int(t.dt, bound->as_integer());
    } else if (t.dt == dtype::bool_) {
      in.scalars[p] = scalar_value::of_int(dtype::bool_, static_cast<std::int64_t>(draw & 1u));
    } else if (is_float(t.dt)) {
      in.scalars[p] = scalar_value::of_float(t.dt, static_cast<double>(draw % 8 + 1) / 4.0);
    } else {
      std::int64_t full = -1;
      for (const auto& val : f.values) {
        const type& vt = f.types[val.ty.index];
        if (!vt.is_tile()) continue;
        for (int axis = 0; axis < 2; ++axis)
          if (vt.valid[axis].is_value() && vt.valid[axis].value() == v && (full < 0 || vt.shape[axis] < full))
            full = vt.shape[axis];
      }
      in.scalars[p] = scalar_value::of_int(t.dt, full >= 0 ? full : loop_bound_only(f, v) ? 2 : 0);
    }
  }
  return in;
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
