// SPDX-License-Identifier: Apache-2.0
/// @file sim/interpreter.hpp
/// The part of the simulator shared by the Tile and Buffer interpreters: the value environment,
/// scalar SSA ops, SPMD queries and structured control flow (if/for/while with carries). Each
/// interpreter derives from `detail::interpreter` and executes its own dialect's ops.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/gm.hpp"
#include "tile2buffer/sim/memory.hpp"
#include "tile2buffer/sim/options.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// `mnemonic at line:col` for op `o` of `f` (`?:?` when the op has no location).
inline std::string describe_op(const function& f, std::uint32_t o) {
  if (o == no_id || o >= f.ops.size()) return "<input>";
  const op_node& n = f.ops[o];
  std::string s(mnemonic(n.code()));
  s += " at ";
  s += n.loc.known() ? std::to_string(n.loc.line) + ":" + std::to_string(n.loc.col) : std::string("?:?");
  return s;
}

namespace detail {

/// What an SSA value holds during a run.
struct slot {
  enum class kind : std::uint8_t { empty, scalar, tile, tensor, handle };
  kind k = kind::empty;
  scalar_value s;
  std::shared_ptr<const image> tile;        ///< Tile run: the tile value
  std::uint32_t ref = no_id;                ///< tensor: the parameter it aliases; Buffer handle: handle index

  static slot of(scalar_value v) {
    slot x;
    x.k = kind::scalar;
    x.s = v;
    return x;
  }
};

/// The element a scalar operand becomes in a tile of type `d` (explicit conversion, §5.6).
inline element scalar_element(const scalar_value& s, dtype d) {
  element e;
  if (is_float(d))
    e.f = round_to(d, to_float(s.number()));
  else
    e.i = wrap_integer(d, s.integer());
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

template <class Derived>
class interpreter {
 public:
  interpreter(const function& f, const sim_options& opt, std::string_view source)
      : f_(f), opt_(opt), source_(source), env_(f.values.size()) {}

  /// Runs the function body; false when a diagnostic stopped the run.
  bool run_body() {
    std::vector<slot> yielded;
    bool done = false;
    return exec_region(f_.body, yielded, done);
  }
  [[nodiscard]] std::vector<diagnostic>& errors() noexcept { return errors_; }

 protected:
  //===--- diagnostics ---===//
  bool fail(op_id o, std::string_view message) {
    diagnostic d;
    d.loc = o.valid() ? f_.op(o).loc : f_.loc;
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
  /// A rank-2 tuple of integers, e.g. offsets `(row, 32)`.
  bool pair(op_id o, const operand& a, std::array<std::int64_t, 2>& out) {
    if (a.kind != operand_kind::tuple || a.num != 2) return fail(o, "expected a pair `(a, b)`");
    const auto e = f_.elements(a);
    return integer(o, e[0], out[0]) && integer(o, e[1], out[1]);
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
      if (work_ > opt_.max_elements) return fail(o, "element budget exhausted (a loop over large tiles runs too long to simulate)");
      const opcode c = f_.op(o).code();
      if (c == opcode::cf_yield || c == opcode::cf_return) {
        yielded.clear();
        for (const auto& a : f_.args(o)) yielded.push_back(operand_slot(a));
        if (c == opcode::cf_return) has_returned_ = true;
        done = true;
        return true;
      }
      if (!exec_op(o)) return false;
      if (has_returned_) {
        done = true;
        return true;
      }
    }
    return true;
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

  bool exec_op(op_id o) {
    const opcode c = f_.op(o).code();
    if (dialect_of(c) == dialect::scalar) return exec_scalar(o, c);
    switch (c) {
      case opcode::cf_if: return exec_if(o);
      case opcode::cf_for: return exec_for(o);
      case opcode::cf_while: return exec_while(o);
      case opcode::tile_get_block_idx:
      case opcode::buffer_get_block_idx: return spmd(o, opt_.block_idx);
      case opcode::tile_get_block_num:
      case opcode::buffer_get_block_num: return spmd(o, opt_.block_num);
      case opcode::tile_get_subblock_idx:
      case opcode::buffer_get_subblock_idx: return spmd(o, opt_.subblock_idx);
      default: return static_cast<Derived*>(this)->exec_dialect(o, c);
    }
  }

  bool spmd(op_id o, std::int64_t v) {
    const dtype d = f_.op(o).results.count > 0 ? result_type(o).dt : dtype::index;
    if (f_.op(o).results.count > 0) bind(f_.result(o), slot::of(scalar_value::of_int(d, v)));
    return true;
  }

  bool exec_if(op_id o) {
    scalar_value cond;
    if (f_.args(o).empty() || !scalar(o, f_.args(o)[0], cond)) return fail(o, "needs a condition");
    const std::uint32_t nregions = f_.op(o).regions.count;
    std::vector<slot> yielded;
    bool done = false;
    if (cond.truth()) {
      if (!exec_region(f_.region_of(o, 0), yielded, done)) return false;
    } else if (nregions > 1) {
      if (!exec_region(f_.region_of(o, 1), yielded, done)) return false;
    }
    if (has_returned_) return true;
    return bind_results(o, yielded);
  }

  bool exec_for(op_id o) {
    const auto args = f_.args(o);
    if (args.size() < 3) return fail(o, "needs start, stop and step");
    std::int64_t start = 0, stop = 0, step = 0;
    if (!integer(o, args[0], start) || !integer(o, args[1], stop) || !integer(o, args[2], step)) return false;
    if (step <= 0) return fail(o, "step must be positive");
    std::vector<slot> carries;
    for (std::size_t i = 3; i < args.size(); ++i) carries.push_back(operand_slot(args[i]));
    const region_id body = f_.region_of(o, 0);
    const dtype iv_type = f_.region(body).args.count > 0 ? f_.type_of(f_.arg(body, 0)).dt : dtype::index;
    for (std::int64_t i = start; i < stop; i += step) {
      bind(f_.arg(body, 0), slot::of(scalar_value::of_int(iv_type, i)));
      bind_args(body, carries, 1);
      std::vector<slot> yielded;
      bool done = false;
      if (!exec_region(body, yielded, done)) return false;
      if (has_returned_) return true;
      if (yielded.size() < carries.size()) return fail(o, "body yields fewer values than the loop carries");
      yielded.resize(carries.size());
      // Why: all carries update simultaneously (swaps read the old values).
      carries = std::move(yielded);
    }
    return bind_results(o, carries);
  }

  bool exec_while(op_id o) {
    std::vector<slot> carries;
    for (const auto& a : f_.args(o)) carries.push_back(operand_slot(a));
    if (f_.op(o).regions.count < 2) return fail(o, "needs a condition and a body region");
    const region_id cond = f_.region_of(o, 0);
    const region_id body = f_.region_of(o, 1);
    for (;;) {
      bind_args(cond, carries);
      std::vector<slot> yielded;
      bool done = false;
      if (!exec_region(cond, yielded, done)) return false;
      if (has_returned_) return true;
      // The condition is the trailing yield's value, or else the result of the region's last op.
      slot c;
      if (done && !yielded.empty()) {
        c = yielded[0];
      } else {
        const auto ops = f_.ops_of(cond);
        if (ops.empty() || f_.op(ops.back()).results.count == 0) return fail(o, "condition region computes no value");
        c = env_[f_.result(ops.back()).index];
      }
      if (c.k != slot::kind::scalar) return fail(o, "condition is not a scalar");
      if (!c.s.truth()) break;
      bind_args(body, carries);
      yielded.clear();
      done = false;
      if (!exec_region(body, yielded, done)) return false;
      if (has_returned_) return true;
      if (yielded.size() < carries.size()) return fail(o, "body yields fewer values than the loop carries");
      yielded.resize(carries.size());
      carries = std::move(yielded);
    }
    return bind_results(o, carries);
  }

  //===--- scalar SSA ---===//
  bool exec_scalar(op_id o, opcode c) {
    const auto args = f_.args(o);
    const dtype rt = result_type(o).dt;
    scalar_value a, b;
    if (c == opcode::scalar_const) {
      if (args.empty() || !scalar(o, args[0], a)) return false;
      bind(f_.result(o), slot::of(a.as(rt)));
      return true;
    }
    if (c == opcode::scalar_cast) {
      if (args.empty() || !scalar(o, args[0], a)) return false;
      bind(f_.result(o), slot::of(a.as(rt)));
      return true;
    }
    if (c == opcode::scalar_not) {
      if (args.empty() || !scalar(o, args[0], a)) return false;
      bind(f_.result(o), slot::of(scalar_value::of_int(rt, a.truth() ? 0 : 1)));
      return true;
    }
    if (args.size() < 2 || !scalar(o, args[0], a) || !scalar(o, args[1], b)) return fail(o, "needs two scalar operands");
    if (is_comparison(c) || c == opcode::scalar_and || c == opcode::scalar_or) {
      bool r = false;
      const bool fp = a.floating() || b.floating();
      const double x = a.number(), y = b.number();
      const std::int64_t i = a.i, j = b.i;
      switch (c) {
        case opcode::scalar_lt: r = fp ? x < y : i < j; break;
        case opcode::scalar_le: r = fp ? x <= y : i <= j; break;
        case opcode::scalar_eq: r = fp ? x == y : i == j; break;
        case opcode::scalar_ne: r = fp ? x != y : i != j; break;
        case opcode::scalar_gt: r = fp ? x > y : i > j; break;
        case opcode::scalar_ge: r = fp ? x >= y : i >= j; break;
        case opcode::scalar_and: r = a.truth() && b.truth(); break;
        case opcode::scalar_or: r = a.truth() || b.truth(); break;
        default: break;
      }
      bind(f_.result(o), slot::of(scalar_value::of_int(rt, r ? 1 : 0)));
      return true;
    }
    if (is_float(rt)) {
      const double x = a.number(), y = b.number();
      double r = 0.0;
      switch (c) {
        case opcode::scalar_add: r = x + y; break;
        case opcode::scalar_sub: r = x - y; break;
        case opcode::scalar_mul: r = x * y; break;
        case opcode::scalar_floordiv: r = std::floor(x / y); break;
        case opcode::scalar_mod: r = x - std::floor(x / y) * y; break;
        case opcode::scalar_min: r = x < y ? x : y; break;
        case opcode::scalar_max: r = x > y ? x : y; break;
        default: return fail(o, "unsupported scalar op");
      }
      bind(f_.result(o), slot::of(scalar_value::of_float(rt, r)));
      return true;
    }
    const std::int64_t x = a.integer(), y = b.integer();
    std::int64_t r = 0;
    switch (c) {
      case opcode::scalar_add: r = wrapping_add(rt, x, y); break;
      case opcode::scalar_sub: r = wrapping_sub(rt, x, y); break;
      case opcode::scalar_mul: r = wrapping_mul(rt, x, y); break;
      case opcode::scalar_floordiv:
      case opcode::scalar_mod: {
        if (y == 0) return fail(o, "integer division by zero");
        if (y == -1) {  // exact; and x / -1 traps for the smallest INT64 on x86 (the quotient wraps)
          r = c == opcode::scalar_floordiv ? wrapping_sub(rt, 0, x) : 0;
          break;
        }
        std::int64_t q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;  // floor, as Python's //
        r = c == opcode::scalar_floordiv ? q : wrapping_sub(rt, x, wrapping_mul(rt, q, y));
        break;
      }
      case opcode::scalar_min: r = x < y ? x : y; break;
      case opcode::scalar_max: r = x > y ? x : y; break;
      default: return fail(o, "unsupported scalar op");
    }
    bind(f_.result(o), slot::of(scalar_value::of_int(rt, r)));
    return true;
  }

  const function& f_;
  const sim_options& opt_;
  std::string_view source_;
  std::vector<slot> env_;
  std::vector<diagnostic> errors_;
  bool has_returned_ = false;
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
