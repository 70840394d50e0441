// SPDX-License-Identifier: Apache-2.0
/// @file gen_program.hpp
/// Random generator of valid, unplanned, straight-line Tile kernels for differential testing.
///
///     tile2buffer::program p = tile2buffer::testing::generate_kernel(seed, 40, {});
///
/// The kernel (`aiv @gen_<seed>`) loads rank-2 Vec tiles (`rows` x a column count that is a
/// multiple of 32 bytes) from its `in` tensors, computes with every op of the spec's elementwise
/// table on its allowed element types (add/mul on FP16, FP32 and INT32; the other binary, unary and
/// scalar ops and full on FP32), and stores to `out` tensors (one 16-row slot per store, chained
/// through the store results; each output is returned). FP16, BF16, FP32 and INT32 are loaded and
/// stored; BF16 is only transferred, never computed. Shapes come from a small per-kernel set, so
/// values share inputs (one tensor loaded several times, tall tensors loaded by halves) and the
/// kernel has many short-lived temporaries, dead values and reuse opportunities.
///
/// Values stay finite: the generator tracks an interval per value (inputs are seeded in [-2, 2],
/// integers in [-16, 16], see sim/gm.hpp) and only emits an op when its precondition holds
/// (log of >= 0.25, sqrt of >= 0, division and recip by |x| >= 0.5, exp of <= 4) and its result stays
/// within a bound (FP32 1e4, FP16 1e3); otherwise it conditions an operand first (abs, adds 1,
/// minimums 2) or picks another op.
///
/// Growth: `generate_plan` produces an abstract plan (steps over value numbers) that `emit`
/// turns into IR; new features (views, control flow, runtime valid extents, cube) add step kinds
/// and options without changing existing seeds' programs when their options are off.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"

namespace tile2buffer {
namespace testing {

struct gen_options {
  std::int64_t rows = 16;             ///< tile rows
  bool fp16 = true;                   ///< FP16 tiles (add/mul)
  bool bf16 = true;                   ///< BF16 tiles (load/store only)
  bool int32 = true;                  ///< INT32 tiles (add/mul)
  int fp32_shapes = 2;                ///< distinct FP32 column counts per kernel
  std::int64_t max_row_bytes = 256;   ///< column counts are 32..max_row_bytes bytes, powers of two
  double load_probability = 0.18;     ///< chance that a step loads a new tile
  double store_probability = 0.08;    ///< chance that a step stores a live value
  double final_store_probability = 0.7;  ///< chance that a never-stored leaf is stored at the end
};

/// One planned step; `in` and `result` are value numbers, `tensor` an input or output number.
struct gen_step {
  opcode op = opcode::tile_add;
  std::vector<int> in;
  std::int64_t mantissa = 0;  ///< scalar operand mantissa * 10^exp10 (scalar forms, full)
  int exp10 = 0;
  int tensor = -1;
  std::int64_t row = 0;  ///< load/store row offset
  int result = -1;
};
struct gen_value {
  dtype dt = dtype::fp32;
  std::int64_t cols = 0;
  double lo = 0, hi = 0;  ///< conservative bounds of every element
  bool stored = false;
  bool used = false;
};
struct gen_tensor {
  dtype dt = dtype::fp32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};
struct gen_plan {
  std::uint64_t seed = 0;
  std::int64_t rows = 16;
  std::vector<gen_tensor> inputs;
  std::vector<gen_tensor> outputs;  ///< rows grow by `rows` per store
  std::vector<gen_value> values;
  std::vector<gen_step> steps;
};

namespace detail {

struct literal {
  std::int64_t mantissa;
  int exp10;
  [[nodiscard]] double value() const { return static_cast<double>(mantissa) * std::pow(10.0, exp10); }
};

class planner {
 public:
  planner(std::uint64_t seed, int ops, const gen_options& opt) : rng_(seed), ops_(ops), opt_(opt) {
    plan_.seed = seed;
    plan_.rows = opt.rows;
  }

  gen_plan run() {
    choose_classes();
    while (emitted_ < ops_) {
      const double r = uniform();
      if (live_count() == 0 || r < opt_.load_probability) {
        load();
      } else if (r < opt_.load_probability + opt_.store_probability) {
        store(pick_any());
      } else if (!compute()) {
        load();
      }
    }
    bool any = false;
    for (const auto& s : plan_.steps) any = any || s.op == opcode::tile_store;
    for (int v = 0; v < static_cast<int>(plan_.values.size()); ++v) {
      const gen_value& val = plan_.values[static_cast<std::size_t>(v)];
      if (!val.stored && !val.used && (uniform() < opt_.final_store_probability || !any)) {
        store(v);
        any = true;
      }
    }
    return plan_;
  }

 private:
  struct shape_class {
    dtype dt;
    std::int64_t cols;
    int weight;
  };

  double uniform() { return static_cast<double>(rng_() >> 11) * (1.0 / 9007199254740992.0); }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }
  std::int64_t cols_for(dtype d) {
    std::vector<std::int64_t> options;
    for (std::int64_t bytes = 32; bytes <= opt_.max_row_bytes; bytes *= 2) options.push_back(bytes / element_bytes(d));
    return options[below(options.size())];
  }
  void choose_classes() {
    for (int i = 0; i < std::max(1, opt_.fp32_shapes); ++i) {
      const std::int64_t c = cols_for(dtype::fp32);
      bool dup = false;
      for (const auto& k : classes_) dup = dup || k.cols == c;
      if (!dup) classes_.push_back({dtype::fp32, c, 6});
    }
    if (opt_.fp16) classes_.push_back({dtype::fp16, cols_for(dtype::fp16), 2});
    if (opt_.int32) classes_.push_back({dtype::int32, cols_for(dtype::int32), 2});
    if (opt_.bf16) classes_.push_back({dtype::bf16, cols_for(dtype::bf16), 1});
  }
  const shape_class& pick_class() {
    int total = 0;
    for (const auto& k : classes_) total += k.weight;
    int r = static_cast<int>(below(static_cast<std::size_t>(total)));
    for (const auto& k : classes_) {
      if (r < k.weight) return k;
      r -= k.weight;
    }
    return classes_.front();
  }
  int live_count() const { return static_cast<int>(plan_.values.size()); }
  int pick_any() { return static_cast<int>(below(plan_.values.size())); }
  /// A recent value of one class (short-lived temporaries): one of the last six.
  int pick_recent(dtype d, std::int64_t cols) {
    std::vector<int> of;
    for (int v = static_cast<int>(plan_.values.size()) - 1; v >= 0 && of.size() < 6; --v) {
      const gen_value& x = plan_.values[static_cast<std::size_t>(v)];
      if (x.dt == d && x.cols == cols) of.push_back(v);
    }
    return of.empty() ? -1 : of[below(of.size())];
  }
  int new_value(dtype d, std::int64_t cols, double lo, double hi) {
    plan_.values.push_back(gen_value{d, cols, lo, hi, false, false});
    return static_cast<int>(plan_.values.size()) - 1;
  }
  gen_value& val(int v) { return plan_.values[static_cast<std::size_t>(v)]; }

  void load() {
    const shape_class k = pick_class();
    std::vector<int> same;
    for (int t = 0; t < static_cast<int>(plan_.inputs.size()); ++t)
      if (plan_.inputs[static_cast<std::size_t>(t)].dt == k.dt && plan_.inputs[static_cast<std::size_t>(t)].cols == k.cols)
        same.push_back(t);
    int t;
    if (!same.empty() && uniform() < 0.5) {
      t = same[below(same.size())];  // a shared input, loaded again
    } else {
      plan_.inputs.push_back(gen_tensor{k.dt, uniform() < 0.3 ? 2 * opt_.rows : opt_.rows, k.cols});
      t = static_cast<int>(plan_.inputs.size()) - 1;
    }
    gen_step s;
    s.op = opcode::tile_load;
    s.tensor = t;
    s.row = plan_.inputs[static_cast<std::size_t>(t)].rows > opt_.rows && uniform() < 0.5 ? opt_.rows : 0;
    const double bound = is_float(k.dt) ? 2.0 : 16.0;
    s.result = new_value(k.dt, k.cols, -bound, bound);
    plan_.steps.push_back(s);
    ++emitted_;
  }

  void store(int v) {
    gen_value& x = val(v);
    int out = -1;
    for (int o = 0; o < static_cast<int>(plan_.outputs.size()); ++o)
      if (plan_.outputs[static_cast<std::size_t>(o)].dt == x.dt && plan_.outputs[static_cast<std::size_t>(o)].cols == x.cols)
        out = o;
    if (out < 0) {
      plan_.outputs.push_back(gen_tensor{x.dt, 0, x.cols});
      out = static_cast<int>(plan_.outputs.size()) - 1;
    }
    gen_step s;
    s.op = opcode::tile_store;
    s.in = {v};
    s.tensor = out;
    s.row = plan_.outputs[static_cast<std::size_t>(out)].rows;
    plan_.outputs[static_cast<std::size_t>(out)].rows += opt_.rows;
    plan_.steps.push_back(s);
    x.stored = true;
    ++emitted_;
  }

  static double limit(dtype d) { return d == dtype::fp16 ? 1e3 : d == dtype::fp32 ? 1e4 : 1e18; }
  static bool away_from_zero(const gen_value& x) { return x.lo >= 0.5 || x.hi <= -0.5; }

  /// Interval of `op` over operand intervals; false when its precondition fails.
  static bool result_interval(opcode op, const gen_value& a, const gen_value* b, double s, double& lo, double& hi) {
    const auto span = [&](std::initializer_list<double> xs) {
      lo = *std::min_element(xs.begin(), xs.end());
      hi = *std::max_element(xs.begin(), xs.end());
    };
    switch (op) {
      case opcode::tile_add: span({a.lo + b->lo, a.hi + b->hi}); return true;
      case opcode::tile_sub: span({a.lo - b->hi, a.hi - b->lo}); return true;
      case opcode::tile_mul: span({a.lo * b->lo, a.lo * b->hi, a.hi * b->lo, a.hi * b->hi}); return true;
      case opcode::tile_div:
        if (!away_from_zero(*b)) return false;
        span({a.lo / b->lo, a.lo / b->hi, a.hi / b->lo, a.hi / b->hi});
        return true;
      case opcode::tile_maximum: span({std::max(a.lo, b->lo), std::max(a.hi, b->hi)}); return true;
      case opcode::tile_minimum: span({std::min(a.lo, b->lo), std::min(a.hi, b->hi)}); return true;
      case opcode::tile_abs:
        if (a.lo >= 0) span({a.lo, a.hi});
        else if (a.hi <= 0) span({-a.hi, -a.lo});
        else span({0.0, std::max(-a.lo, a.hi)});
        return true;
      case opcode::tile_exp:
        if (a.hi > 4) return false;
        span({std::exp(a.lo), std::exp(a.hi)});
        return true;
      case opcode::tile_sqrt:
        if (a.lo < 0) return false;
        span({std::sqrt(a.lo), std::sqrt(a.hi)});
        return true;
      case opcode::tile_neg: span({-a.hi, -a.lo}); return true;
      case opcode::tile_relu: span({std::max(a.lo, 0.0), std::max(a.hi, 0.0)}); return true;
      case opcode::tile_log:
        if (a.lo < 0.25) return false;
        span({std::log(a.lo), std::log(a.hi)});
        return true;
      case opcode::tile_recip:
        if (!away_from_zero(a)) return false;
        span({1.0 / a.lo, 1.0 / a.hi});
        return true;
      case opcode::tile_adds: span({a.lo + s, a.hi + s}); return true;
      case opcode::tile_subs: span({a.lo - s, a.hi - s}); return true;
      case opcode::tile_muls: span({a.lo * s, a.hi * s}); return true;
      case opcode::tile_divs: span({a.lo / s, a.hi / s}); return true;
      case opcode::tile_maximums: span({std::max(a.lo, s), std::max(a.hi, s)}); return true;
      case opcode::tile_minimums: span({std::min(a.lo, s), std::min(a.hi, s)}); return true;
      case opcode::tile_lrelu:  // monotonic for slopes in (0, 1)
        span({a.lo > 0 ? a.lo : a.lo * s, a.hi > 0 ? a.hi : a.hi * s});
        return true;
      default: return false;
    }
  }

  literal scalar_for(opcode op) {
    static constexpr std::array<literal, 6> general{{{5, -1}, {15, -1}, {2, 0}, {-1, 0}, {25, -2}, {3, 0}}};
    static constexpr std::array<literal, 4> divisors{{{5, -1}, {2, 0}, {4, 0}, {-2, 0}}};
    static constexpr std::array<literal, 2> slopes{{{25, -2}, {5, -1}}};
    static constexpr std::array<literal, 4> fills{{{0, 0}, {1, 0}, {-25, -1}, {75, -2}}};
    switch (op) {
      case opcode::tile_divs: return divisors[below(divisors.size())];
      case opcode::tile_lrelu: return slopes[below(slopes.size())];
      case opcode::tile_full: return fills[below(fills.size())];
      default: return general[below(general.size())];
    }
  }

  /// Emits `op` on `in` (value numbers) if its interval is safe; returns the result or -1.
  int emit(opcode op, std::vector<int> in, literal s) {
    double lo = s.value(), hi = s.value();
    if (!in.empty() && !result_interval(op, val(in[0]), in.size() > 1 ? &val(in[1]) : nullptr, s.value(), lo, hi))
      return -1;
    const dtype d = in.empty() ? dtype::fp32 : val(in[0]).dt;
    const std::int64_t cols = in.empty() ? full_cols_ : val(in[0]).cols;
    if (std::max(std::fabs(lo), std::fabs(hi)) > limit(d)) return -1;
    for (int v : in) val(v).used = true;
    gen_step st;
    st.op = op;
    st.in = std::move(in);
    st.mantissa = s.mantissa;
    st.exp10 = s.exp10;
    st.result = new_value(d, cols, lo, hi);
    plan_.steps.push_back(st);
    ++emitted_;
    return st.result;
  }

  bool compute() {
    // A class with a live value that some op computes on.
    std::vector<const shape_class*> usable;
    for (const auto& k : classes_)
      if (k.dt != dtype::bf16 && pick_recent(k.dt, k.cols) >= 0) usable.push_back(&k);
    if (usable.empty()) return false;
    const shape_class& k = *usable[below(usable.size())];
    // The spec table's ops on this element type, in table order (the order fixes each seed's program).
    std::vector<opcode> table_ops;
    for (const auto& row : elementwise_table)
      if (elementwise_allows(row.op, k.dt)) table_ops.push_back(row.op);
    if (table_ops.empty()) return false;
    for (int attempt = 0; attempt < 8; ++attempt) {
      const opcode op = table_ops[below(table_ops.size())];
      const literal s = scalar_for(op);
      if (op == opcode::tile_full) {
        full_cols_ = k.cols;
        if (emit(op, {}, s) >= 0) return true;
        continue;
      }
      const ew_kind kind = info(op).ew;
      std::vector<int> in{pick_recent(k.dt, k.cols)};
      if (kind == ew_kind::binary) in.push_back(pick_recent(k.dt, k.cols));
      if (emit(op, in, s) >= 0) return true;
      // Condition an FP32 operand so the op's precondition holds, then retry once.
      if (k.dt != dtype::fp32 || emitted_ + 3 > ops_) continue;
      if (op == opcode::tile_exp) {
        in[0] = emit(opcode::tile_minimums, {in[0]}, literal{2, 0});
      } else if (op == opcode::tile_log || op == opcode::tile_recip || op == opcode::tile_sqrt || op == opcode::tile_div) {
        const std::size_t which = op == opcode::tile_div ? 1 : 0;
        const int t = emit(opcode::tile_abs, {in[which]}, literal{0, 0});
        in[which] = t < 0 ? -1 : emit(opcode::tile_adds, {t}, literal{1, 0});
      } else {
        continue;
      }
      if (in[0] < 0 || (in.size() > 1 && in[1] < 0)) continue;
      if (emit(op, in, s) >= 0) return true;
    }
    return false;
  }

  std::mt19937_64 rng_;
  int ops_;
  gen_options opt_;
  gen_plan plan_;
  std::vector<shape_class> classes_;
  int emitted_ = 0;
  std::int64_t full_cols_ = 0;
};

}  // namespace detail

/// The abstract plan of a kernel: deterministic per (seed, ops, options).
inline gen_plan generate_plan(std::uint64_t seed, int ops, const gen_options& opt = {}) {
  return detail::planner(seed, ops, opt).run();
}

/// Builds the Tile-stage program of a plan: one `aiv @gen_<seed>` function; op k is on line k + 2.
inline program emit(const gen_plan& plan) {
  const std::string name = "gen_" + std::to_string(plan.seed);
  function_builder b(function_kind::aiv, name, location{1, 1});
  std::vector<value_id> inputs, outputs;
  for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
    const gen_tensor& t = plan.inputs[i];
    inputs.push_back(b.param("In" + std::to_string(i), tensor_type(t.rows, t.cols, t.dt)));
  }
  for (std::size_t i = 0; i < plan.outputs.size(); ++i) {
    const gen_tensor& t = plan.outputs[i];
    outputs.push_back(b.param("Out" + std::to_string(i), tensor_type(t.rows, t.cols, t.dt), direction::out));
    b.result_type(tensor_type(t.rows, t.cols, t.dt));
  }
  std::vector<value_id> values(plan.values.size());
  std::vector<value_id> current = outputs;  // the latest version of each output
  std::uint32_t line = 1;
  for (const gen_step& s : plan.steps) {
    const location at{++line, 3};
    if (s.op == opcode::tile_store) {
      const gen_tensor& t = plan.outputs[static_cast<std::size_t>(s.tensor)];
      const value_id v = values[static_cast<std::size_t>(s.in[0])];
      auto& cur = current[static_cast<std::size_t>(s.tensor)];
      cur = b.emit1(opcode::tile_store, {operand::of(v), b.pair(s.row, 0), operand::of(cur)},
                    tensor_type(t.rows, t.cols, t.dt), "o" + std::to_string(line), at);
      continue;
    }
    const gen_value& r = plan.values[static_cast<std::size_t>(s.result)];
    const type tt = tile_type(plan.rows, r.cols, r.dt);
    const std::string vname = "v" + std::to_string(s.result);
    value_id out;
    if (s.op == opcode::tile_load) {
      out = b.emit1(opcode::tile_load,
                    {operand::of(inputs[static_cast<std::size_t>(s.tensor)]), b.pair(s.row, 0), b.pair(plan.rows, r.cols)},
                    tt, vname, at);
    } else {
      const operand lit = operand::decimal(s.mantissa, s.exp10);
      switch (info(s.op).ew) {
        case ew_kind::fill: out = b.emit1(s.op, {lit}, tt, vname, at); break;
        case ew_kind::unary: out = b.emit1(s.op, {operand::of(values[static_cast<std::size_t>(s.in[0])])}, tt, vname, at); break;
        case ew_kind::scalar_form:
          out = b.emit1(s.op, {operand::of(values[static_cast<std::size_t>(s.in[0])]), lit}, tt, vname, at);
          break;
        default:
          out = b.emit1(s.op,
                        {operand::of(values[static_cast<std::size_t>(s.in[0])]),
                         operand::of(values[static_cast<std::size_t>(s.in[1])])},
                        tt, vname, at);
      }
    }
    values[static_cast<std::size_t>(s.result)] = out;
  }
  std::vector<operand> rets;
  for (const value_id v : current) rets.push_back(operand::of(v));
  b.emit(opcode::cf_return, rets, {}, {}, {}, location{++line, 3});
  program p;
  p.file = text(name + ".t2b");
  p.functions.push_back(b.finish());
  return p;
}

/// A valid, unplanned, straight-line Tile kernel with about `ops` steps (see the file comment).
inline program generate_kernel(std::uint64_t seed, int ops, const gen_options& opt = {}) {
  return emit(generate_plan(seed, ops, opt));
}

}  // namespace testing
}  // namespace tile2buffer
