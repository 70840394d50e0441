// SPDX-License-Identifier: Apache-2.0
/// @file sim/interpreter.hpp
/// The part of the simulator shared by the Tile, Buffer and orchestration interpreters: the value
/// environment, operand reading and the region loop, which hands each op to its model. Each
/// interpreter derives from `detail::interpreter`; the models shared by all three (scalar SSA,
/// control flow, SPMD queries) are in models_common.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/gm.hpp"
#include "tile2buffer/sim/memory.hpp"
#include "tile2buffer/sim/model_table.hpp"
#include "tile2buffer/sim/options.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// `mnemonic at line:col` for op `o` of `f` (`?:?` when the op has no location).
inline std::string describe_op(const function& f, std::uint32_t o) {
  if (o == no_id || o >= f.ops.size()) return "<input>";
  const location loc = f.loc_of(op_id{o});
  std::string s(mnemonic(f.ops[o].code()));
  s += " at ";
  s += loc.known() ? std::to_string(loc.line) + ":" + std::to_string(loc.col) : std::string("?:?");
  return s;
}

namespace detail {

/// What an SSA value holds during a run.
struct slot {
  enum class kind : std::uint8_t { empty, scalar, tile, tensor, handle };
  kind k = kind::empty;
  scalar_value s;
  std::shared_ptr<const image> tile;  ///< Tile run: the tile value
  std::uint32_t ref = no_id;          ///< tensor: the parameter it aliases; Buffer handle: handle index

  static slot of(scalar_value v) {
    slot x;
    x.k = kind::scalar;
    x.s = v;
    return x;
  }
};

/// `(a, b)`, for messages about rectangles and positions.
inline std::string rect(std::int64_t a, std::int64_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

/// The element a scalar operand becomes in a tile of type `d` (explicit conversion, §5.6), rounded
/// once from the scalar's exact value.
inline element scalar_element(const scalar_value& s, dtype d) {
  element e;
  if (is_float(d)) e.f = s.floating() ? round_double_to(d, s.f) : int_to_float_by_mode(d, s.i, round_mode::rint);
  else e.i = wrap_integer(d, s.integer());
  return e;
}

/// Poison every element of the Acc boxes that the product rectangle [0, m) x [0, n) touches but
/// does not cover (§9.4: the cube writes whole boxes). `poison(r, c)` marks one element.
template <class Poison>
void clobber_partial_boxes(const type& acc, std::int64_t m, std::int64_t n, Poison&& poison) {
  if (acc.slayout == box_layout::none_box || m <= 0 || n <= 0) return;
  const box_shape b = box_of(acc);
  const std::int64_t rows = (m + b.rows - 1) / b.rows * b.rows;
  const std::int64_t cols = (n + b.cols - 1) / b.cols * b.cols;
  for (std::int64_t r = 0; r < rows && r < acc.shape[0]; ++r)
    for (std::int64_t c = 0; c < cols && c < acc.shape[1]; ++c)
      if (r >= m || c >= n) poison(r, c);
}

/// The state every simulator shares and the loop that runs a region: each op goes to its model
/// in the table the run was given (sim/model_table.hpp). Why the members are public: the models
/// are free functions, one per op (models_common.hpp, models_tile.hpp, models_buffer.hpp).
template <class Derived>
class interpreter {
 public:
  interpreter(const function& f, const sim_options& opt, std::string_view source, const model<Derived>* models)
      : f_(f), opt_(opt), source_(source), models_(models), env_(f.values.size()) {}

  /// Runs the function body; false when a diagnostic stopped the run.
  bool run_body() {
    std::vector<slot> yielded;
    bool done = false;
    return exec_region(f_.body, yielded, done);
  }
  [[nodiscard]] std::vector<diagnostic>& errors() noexcept { return errors_; }
  [[nodiscard]] const function& fn() const noexcept { return f_; }
  [[nodiscard]] const sim_options& options() const noexcept { return opt_; }

  //===--- diagnostics ---===//
  bool fail(op_id o, std::string_view message) {
    diagnostic d;
    d.loc = o.valid() ? f_.loc_of(o) : f_.loc;
    d.source = text(source_);
    text m;
    if (o.valid()) m << mnemonic(f_.op(o).code()) << ": ";
    m << message;
    d.message = std::move(m);
    errors_.push_back(std::move(d));
    return false;
  }

  //===--- operands ---===//
  [[nodiscard]] const type& result_type(op_id o, std::uint32_t i = 0) const { return f_.type_of(f_.result(o, i)); }
  void bind(value_id v, slot s) { env_[v.index] = std::move(s); }
  /// Binds each parameter to its input (a tensor slot or a scalar) and returns the GM memory of
  /// the tensor parameters, indexed by parameter.
  std::vector<std::optional<gm_tensor>> bind_params(const sim_inputs& in) {
    std::vector<std::optional<gm_tensor>> gm(f_.params.size());
    for (std::size_t p = 0; p < f_.params.size(); ++p) {
      const value_id v = f_.params[p].value;
      if (p < in.tensors.size() && in.tensors[p]) {
        gm[p] = *in.tensors[p];
        slot s;
        s.k = slot::kind::tensor;
        s.ref = static_cast<std::uint32_t>(p);
        bind(v, std::move(s));
      } else if (p < in.scalars.size() && in.scalars[p]) {
        bind(v, slot::of(*in.scalars[p]));
      }
    }
    return gm;
  }
  [[nodiscard]] slot operand_slot(const operand& a) const {
    switch (a.kind) {
      case operand_kind::value: return env_[a.ref];
      case operand_kind::int_lit: return slot::of(scalar_value::of_int(dtype::index, a.num));
      case operand_kind::bool_lit: return slot::of(scalar_value::of_int(dtype::bool_, a.num));
      case operand_kind::float_lit: {
        scalar_value v;
        v.dt = dtype::fp32;
        v.f = a.as_double();
        return slot::of(v);
      }
      default: return slot{};
    }
  }
  /// A scalar operand (literal or scalar value).
  bool scalar(op_id o, const operand& a, scalar_value& out) {
    const slot s = operand_slot(a);
    if (s.k != slot::kind::scalar) return fail(o, "expected a scalar operand");
    out = s.s;
    return true;
  }
  bool integer(op_id o, const operand& a, std::int64_t& out) {
    scalar_value v;
    if (!scalar(o, a, v)) return false;
    if (v.floating()) return fail(o, "expected an integer operand");
    out = v.i;
    return true;
  }
  /// A rank-2 tuple operand of integers, e.g. offsets `(row, 32)`: its two elements, in order.
  bool pair(op_id o, const operand& a, std::array<std::int64_t, 2>& out) {
    if (a.kind != operand_kind::tuple || a.num != 2) return fail(o, "expected a pair `(a, b)`");
    const auto e = f_.elements(a);
    return integer(o, e.front(), out[0]) && integer(o, e.back(), out[1]);
  }
  /// Valid extents of a Tile type: static numbers or the current value of their scalar SSA values.
  bool tile_valid(op_id o, const type& t, std::array<std::int64_t, 2>& out) {
    for (int axis = 0; axis < 2; ++axis) {
      const extent e = t.valid[axis];
      if (e.is_static()) {
        out[axis] = e.number;
      } else if (e.is_value()) {
        const slot& s = env_[e.value().index];
        if (s.k != slot::kind::scalar || s.s.floating()) return fail(o, "valid extent is not an integer scalar");
        out[axis] = s.s.i;
      } else {
        return fail(o, "a runtime `?` valid extent needs Buffer metadata");
      }
      if (out[axis] < 0 || out[axis] > t.shape[axis])
        return fail(o, "valid extent " + std::to_string(out[axis]) + " outside [0, " + std::to_string(t.shape[axis]) +
                           "] on axis " + std::to_string(axis));
    }
    return true;
  }

  //===--- regions ---===//
  /// Executes the ops of `r`; `yielded` receives the operands of a trailing yield (`done` is set by
  /// yield and return).
  bool exec_region(region_id r, std::vector<slot>& yielded, bool& done) {
    for (const op_id o : f_.ops_of(r)) {
      if (++steps_ > opt_.max_steps) return fail(o, "step budget exhausted (endless loop?)");
      // Why a second budget: a few million ops over large tiles (a long loop) would run for
      // minutes within the op budget; each op also costs the elements of its largest tile.
      work_ += op_elements(o);
      if (work_ > opt_.max_elements)
        return fail(o, "element budget exhausted (a loop over large tiles runs too long to simulate)");
      current_ = o.index;
      if (!models_[static_cast<std::size_t>(f_.op(o).code())](static_cast<Derived&>(*this), o)) return false;
      if (region_ended_) {  // a yield or return: its values end this region, not an enclosing one
        region_ended_ = false;
        yielded = std::move(yielded_);
        yielded_.clear();
        done = true;
        return true;
      }
      if (has_returned_) {
        done = true;
        return true;
      }
    }
    return true;
  }
  /// What a yield or return does: hands `values` to the region that is running.
  void end_region(std::span<const operand> values) {
    yielded_.clear();
    for (const auto& a : values) yielded_.push_back(operand_slot(a));
    region_ended_ = true;
  }

  bool bind_results(op_id o, const std::vector<slot>& values) {
    const std::uint32_t n = f_.op(o).results.count;
    if (values.size() < n) return fail(o, "region yields fewer values than the op has results");
    for (std::uint32_t i = 0; i < n; ++i) bind(f_.result(o, i), values[i]);
    return true;
  }
  void bind_args(region_id r, std::span<const slot> values, std::size_t skip = 0) {
    const region_info& ri = f_.region(r);
    for (std::uint32_t i = 0; i + skip < ri.args.count && i < values.size(); ++i)
      bind(f_.arg(r, static_cast<std::uint32_t>(i + skip)), values[i]);
  }

  const function& f_;
  const sim_options& opt_;
  std::string_view source_;
  const model<Derived>* models_;  ///< indexed by opcode (model_table<Set>)
  std::vector<slot> env_;
  std::vector<diagnostic> errors_;
  std::vector<slot> yielded_;  ///< the values of the yield or return that ended the running region
  bool region_ended_ = false;
  bool has_returned_ = false;
  std::uint32_t current_ = no_id;  ///< the op being run
  std::uint64_t steps_ = 0;
  std::uint64_t work_ = 0;  ///< elements touched so far, see `max_elements`
  /// The element count of the largest tile or buffer among `o`'s operands and results (a GM
  /// tensor is only read or written through one).
  std::uint64_t op_elements(op_id o) const {
    std::int64_t most = 0;
    const auto take = [&](value_id v) {
      const type& t = f_.type_of(v);
      if (t.is_tile() || t.is_buffer()) most = std::max(most, t.elements());
    };
    for (const operand& a : f_.args(o))
      if (a.is_value()) take(a.value());
    for (std::uint32_t i = 0; i < f_.op(o).results.count; ++i) take(f_.result(o, i));
    return static_cast<std::uint64_t>(most);
  }
};

}  // namespace detail
}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
