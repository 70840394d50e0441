// SPDX-License-Identifier: Apache-2.0
/// @file gen_program.cpp
/// The generator's planner and emitter (see gen_program.hpp), compiled once into the test support
/// library: every campaign, the simulator's generated tests and t2b-campaign link it instead of
/// compiling two thousand lines of generator in each of their translation units.
#include "support/gen_program.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tile2buffer/ir/cast.hpp"
#include "tile2buffer/ir/coverage.hpp"
#include "tile2buffer/ir/elementwise.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"

namespace tile2buffer {
namespace testing {

namespace detail {

struct literal {
  std::int64_t mantissa;
  int exp10;
  [[nodiscard]] double value() const { return static_cast<double>(mantissa) * std::pow(10.0, exp10); }
};

//===--- what the generator knows of each op beyond its record ---===//
/// A value's bounds: what the interval rules read and give.
struct bounds {
  double lo, hi;
};
/// The smallest interval holding `xs`.
bounds hull(std::initializer_list<double> xs) {
  return {*std::min_element(xs.begin(), xs.end()), *std::max_element(xs.begin(), xs.end())};
}
constexpr bool away_from_zero(bounds x) { return x.lo >= 0.5 || x.hi <= -0.5; }

/// The result's bounds from operand `a` (and `b` of a binary op, scalar `s` of a scalar form or
/// fill); none when the op's precondition fails, so the generator never emits it there.
using interval_rule = std::optional<bounds> (*)(bounds a, bounds b, double s);

/// How `compute` conditions an FP32 operand that an op's precondition rejects before trying the
/// op once more (and, for a fused broadcast's combining op, how its vector is conditioned).
enum class conditioning : std::uint8_t {
  none,          ///< no precondition, or none one op on an operand fixes
  at_most_two,   ///< minimums(x, 2): keeps exp's argument under its bound of 4
  abs_plus_one,  ///< adds(abs(x), 1): at least 1, for a logarithm, a root or a divisor
};
/// A reduction's bounds when this op is its combining op: a fold of 1 to n elements of [lo, hi].
enum class fold : std::uint8_t {
  none,   ///< no rule: a reduction combining by this op does not compile (see below)
  stays,  ///< idempotent (max, min): within [lo, hi]
  sums,   ///< a sum of 1 to n elements: the hull of [lo, hi] and [n lo, n hi]
};

inline constexpr std::array<literal, 6> general_literals{{{5, -1}, {15, -1}, {2, 0}, {-1, 0}, {25, -2}, {3, 0}}};
inline constexpr std::array<literal, 4> divisor_literals{{{5, -1}, {2, 0}, {4, 0}, {-2, 0}}};
inline constexpr std::array<literal, 2> slope_literals{{{25, -2}, {5, -1}}};
inline constexpr std::array<literal, 4> fill_literals{{{0, 0}, {1, 0}, {-25, -1}, {75, -2}}};

/// One Tile elementwise op as the generator uses it. Why a table and not the record: bounds,
/// literals and conditioning are the generator's policy for keeping values finite, not facts of
/// the op; the static_assert below makes a new elementwise op a compile error here until it has
/// its row, instead of an op the generator silently never emits or cannot bound.
struct elementwise_rule {
  opcode op;
  interval_rule interval;
  /// What its scalar operand is drawn from. Why every op has a list: `scalar_for` draws for every
  /// op, so each seed's sequence of draws (and program) does not depend on the op's shape.
  std::span<const literal> scalars = general_literals;
  conditioning fix = conditioning::none;
  std::size_t fix_operand = 0;  ///< the operand `fix` conditions
  fold folds = fold::none;
  /// Its position in `update_menu` (what `update_of` draws a loop carry's update from), or -1.
  /// Why a position: the menu's order fixes each seed's program.
  int update_slot = -1;
  std::optional<literal> update_scalar = std::nullopt;  ///< the literal an update uses instead of a drawn one
};

using rule_result = std::optional<bounds>;
inline constexpr std::array<elementwise_rule, 22> elementwise_rules{{
    {.op = opcode::tile_full,
     .interval = [](bounds, bounds, double s) -> rule_result {
       return bounds{s, s};
     },
     .scalars = fill_literals},
    {.op = opcode::tile_add,
     .interval = [](bounds a, bounds b, double) -> rule_result {
       return hull({a.lo + b.lo, a.hi + b.hi});
     },
     .folds = fold::sums,
     .update_slot = 9},
    {.op = opcode::tile_mul,
     .interval = [](bounds a, bounds b, double) -> rule_result {
       return hull({a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi});
     },
     .update_slot = 11},
    {.op = opcode::tile_sub,
     .interval = [](bounds a, bounds b, double) -> rule_result {
       return hull({a.lo - b.hi, a.hi - b.lo});
     },
     .update_slot = 10},
    {.op = opcode::tile_div,
     .interval = [](bounds a, bounds b, double) -> rule_result {
       if (!away_from_zero(b)) return std::nullopt;
       return hull({a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi});
     },
     .fix = conditioning::abs_plus_one,
     .fix_operand = 1},
    {.op = opcode::tile_maximum,
     .interval = [](bounds a, bounds b, double) -> rule_result {
       return hull({std::max(a.lo, b.lo), std::max(a.hi, b.hi)});
     },
     .folds = fold::stays},
    {.op = opcode::tile_minimum,
     .interval = [](bounds a, bounds b, double) -> rule_result {
       return hull({std::min(a.lo, b.lo), std::min(a.hi, b.hi)});
     },
     .folds = fold::stays},
    {.op = opcode::tile_abs,
     .interval = [](bounds a, bounds, double) -> rule_result {
       if (a.lo >= 0) return hull({a.lo, a.hi});
       if (a.hi <= 0) return hull({-a.hi, -a.lo});
       return hull({0.0, std::max(-a.lo, a.hi)});
     },
     .update_slot = 5},
    {.op = opcode::tile_exp,
     .interval = [](bounds a, bounds, double) -> rule_result {
       if (a.hi > 4) return std::nullopt;
       return hull({std::exp(a.lo), std::exp(a.hi)});
     },
     .fix = conditioning::at_most_two},
    {.op = opcode::tile_sqrt,
     .interval = [](bounds a, bounds, double) -> rule_result {
       if (a.lo < 0) return std::nullopt;
       return hull({std::sqrt(a.lo), std::sqrt(a.hi)});
     },
     .fix = conditioning::abs_plus_one},
    {.op = opcode::tile_neg,
     .interval = [](bounds a, bounds, double) -> rule_result {
       return hull({-a.hi, -a.lo});
     },
     .update_slot = 6},
    {.op = opcode::tile_relu,
     .interval = [](bounds a, bounds, double) -> rule_result {
       return hull({std::max(a.lo, 0.0), std::max(a.hi, 0.0)});
     },
     .update_slot = 7},
    {.op = opcode::tile_log,
     .interval = [](bounds a, bounds, double) -> rule_result {
       if (a.lo < 0.25) return std::nullopt;
       return hull({std::log(a.lo), std::log(a.hi)});
     },
     .fix = conditioning::abs_plus_one},
    {.op = opcode::tile_recip,
     .interval = [](bounds a, bounds, double) -> rule_result {
       if (!away_from_zero(a)) return std::nullopt;
       return hull({1.0 / a.lo, 1.0 / a.hi});
     },
     .fix = conditioning::abs_plus_one},
    {.op = opcode::tile_rsqrt,
     .interval = [](bounds a, bounds, double) -> rule_result {
       if (a.lo < 0.25) return std::nullopt;
       return hull({1.0 / std::sqrt(a.lo), 1.0 / std::sqrt(a.hi)});
     },
     .fix = conditioning::abs_plus_one},
    {.op = opcode::tile_adds,
     .interval = [](bounds a, bounds, double s) -> rule_result {
       return hull({a.lo + s, a.hi + s});
     },
     .update_slot = 0},
    {.op = opcode::tile_subs,
     .interval = [](bounds a, bounds, double s) -> rule_result {
       return hull({a.lo - s, a.hi - s});
     },
     .update_slot = 2},
    // Why a fixed half as an update: the drawn literals reach 3, and a carry multiplied by 3 on
    // every iteration soon leaves the bounds.
    {.op = opcode::tile_muls,
     .interval = [](bounds a, bounds, double s) -> rule_result {
       return hull({a.lo * s, a.hi * s});
     },
     .update_slot = 1,
     .update_scalar = literal{5, -1}},
    {.op = opcode::tile_divs,
     .interval = [](bounds a, bounds, double s) -> rule_result {
       return hull({a.lo / s, a.hi / s});
     },
     .scalars = divisor_literals},
    {.op = opcode::tile_maximums,
     .interval = [](bounds a, bounds, double s) -> rule_result {
       return hull({std::max(a.lo, s), std::max(a.hi, s)});
     },
     .update_slot = 3},
    {.op = opcode::tile_minimums,
     .interval = [](bounds a, bounds, double s) -> rule_result {
       return hull({std::min(a.lo, s), std::min(a.hi, s)});
     },
     .update_slot = 4},
    // Monotonic for slopes in (0, 1), the only ones drawn.
    {.op = opcode::tile_lrelu,
     .interval = [](bounds a, bounds, double s) -> rule_result {
       return hull({a.lo > 0 ? a.lo : a.lo * s, a.hi > 0 ? a.hi : a.hi * s});
     },
     .scalars = slope_literals,
     .update_slot = 8},
}};
static_assert(covers_tile_elementwise(elementwise_rules, [](const elementwise_rule& r) { return r.op; }),
              "gen_program: elementwise_rules must have one row per Tile elementwise op (its bounds, literals, conditioning)");

inline void gen_program_has_no_elementwise_rule_for_this_op() {}
/// The rule of `op`. Why a call that is not constexpr on a miss: in the static_asserts below a
/// family member whose combining op has no rule is then a compile error naming it.
constexpr const elementwise_rule& rule_of(opcode op) {
  for (const elementwise_rule& r : elementwise_rules)
    if (r.op == op) return r;
  gen_program_has_no_elementwise_rule_for_this_op();
  throw std::logic_error("gen_program: an op without an elementwise rule");
}
/// Whether a fused broadcast's vector is made nonzero before use: its combining op conditions its
/// right operand (a divisor) to at least 1.
constexpr bool conditions_vector(opcode fused) {
  const elementwise_rule& c = rule_of(info(fused).combine);
  return c.fix == conditioning::abs_plus_one && c.fix_operand == 1;
}
/// Every reduction's combining op says how its fold is bounded, and every fused broadcast's
/// combining op (and `then`) has a rule: a new member is bounded, or does not compile.
constexpr bool family_members_have_rules() {
  for (const auto& family : {std::span<const opcode>(members<op_family::row_reduction, dialect::tile>),
                             std::span<const opcode>(members<op_family::col_reduction, dialect::tile>)})
    for (const opcode m : family)
      if (rule_of(info(m).combine).folds == fold::none) return false;
  for (const auto& family : {std::span<const opcode>(members<op_family::row_broadcast_arith, dialect::tile>),
                             std::span<const opcode>(members<op_family::col_broadcast_arith, dialect::tile>)})
    for (const opcode m : family)
      if (rule_of(info(m).combine).interval == nullptr ||
          (info(m).then != no_opcode && rule_of(info(m).then).interval == nullptr))
        return false;
  return true;
}
static_assert(family_members_have_rules(),
              "gen_program: a reduction whose combining op has no fold, or a fused broadcast without rules");

/// The loop-carry updates (`update_slot`), in slot order.
inline constexpr std::size_t update_count = [] {
  std::size_t n = 0;
  for (const elementwise_rule& r : elementwise_rules) n += r.update_slot >= 0;
  return n;
}();
inline constexpr std::array<opcode, update_count> update_menu = [] {
  std::array<opcode, update_count> out{};
  for (const elementwise_rule& r : elementwise_rules)
    if (r.update_slot >= 0 && static_cast<std::size_t>(r.update_slot) < update_count)
      out[static_cast<std::size_t>(r.update_slot)] = r.op;
  return out;
}();
constexpr bool update_slots_are_each_taken_once() {
  std::array<std::size_t, update_count> seen{};
  for (const elementwise_rule& r : elementwise_rules) {
    if (r.update_slot < 0) continue;
    if (static_cast<std::size_t>(r.update_slot) >= update_count) return false;
    ++seen[static_cast<std::size_t>(r.update_slot)];
  }
  return first_count_gap(seen, [](std::size_t) { return entries::exactly_one; }).key == update_count;
}
static_assert(update_slots_are_each_taken_once(), "gen_program: update_slot must number the updates 0, 1, ... once each");

/// Whether a plan step defines a scalar (INDEX or BOOL) rather than a tile: the emitter builds it
/// from its two index operands, and interval re-derivation passes over it.
constexpr bool defines_scalar(opcode c) { return dialect_of(c) == dialect::scalar || is_spmd_query(c); }

class planner {
 public:
  planner(std::uint64_t seed, int ops, const gen_options& opt) : rng_(seed), ops_(ops), opt_(opt) {
    plan_.seed = seed;
    plan_.rows = opt.rows;
  }

  gen_plan run() {
    if (opt_.cube) return cube_kernel();
    choose_classes();
    // Why every draw below sits behind `opt_.windows`: with windows off, each seed must draw
    // exactly the numbers it drew before windows existed, so its program is unchanged.
    plan_.unaligned = opt_.windows && uniform() < opt_.unaligned_probability;
    // Why region kernels drop the unalignable slice: their Tile-only share is a region construct.
    if (opt_.regions) plan_.unaligned = false;
    pending_unaligned_ = plan_.unaligned;
    // Why never both: a kernel that must stay Tile has exactly one construct selection rejects,
    // so the reason it reports is the one the plan records.
    if (opt_.valid_extents && !opt_.regions && !plan_.unaligned && uniform() < opt_.stays_tile_probability) {
      pending_window_setter_ = opt_.windows && uniform() < 0.5;
      pending_stale_ = !pending_window_setter_;
      plan_.tile_reason = pending_window_setter_ ? "window" : "metadata version";
    }
    if (opt_.regions && uniform() < opt_.region_tile_probability) {
      static constexpr const char* reasons[] = {"step", "GM branch results must alias the same parameter",
                                                "GM loop results must retain their initial parameter alias"};
      pending_region_tile_ = 1 + static_cast<int>(below(3));
      plan_.tile_reason = reasons[pending_region_tile_ - 1];
      // Why behind the option: without it each seed draws what it drew before, so its program is unchanged.
      if (!opt_.extended && opt_.region_valid_probability > 0 && uniform() < opt_.region_valid_probability) {
        pending_region_tile_ = 4;
        plan_.tile_reason = "user control flow with dynamic valid state";
      }
    }
    // The extended rollout lowers the same construct (quantized-path.md §2.6: runtime valid state
    // set and read inside one loop body), so it is owed with no Tile reason.
    if (opt_.extended && opt_.regions && pending_region_tile_ == 0 && opt_.region_valid_probability > 0 &&
        uniform() < opt_.region_valid_probability)
      pending_region_tile_ = 4;
    while (emitted_ < ops_) {
      if (opt_.windows && live_count() > 0 && uniform() < opt_.window_probability && window()) continue;
      if (opt_.valid_extents && live_count() > 0 && uniform() < opt_.setter_probability && setter()) continue;
      if (opt_.regions && live_count() > 0 && uniform() < opt_.region_probability && region(0)) continue;
      const double r = uniform();
      if (live_count() == 0 || r < opt_.load_probability) {
        load();
      } else if (r < opt_.load_probability + opt_.store_probability) {
        store(pick_any());
      } else if (!compute()) {
        load();
      }
    }
    if (opt_.windows && (pending_unaligned_ || !window_done_) && !window()) slice_of(load_of(parent()), false);
    if (pending_stale_ || pending_window_setter_) setter();
    // Every region kernel has a region (and its pending Tile-only construct, if any).
    for (int attempt = 0; opt_.regions && (!region_done_ || pending_region_tile_ != 0); ++attempt) {
      if (live_count() == 0) load();
      if (attempt < 8) {
        region(0);
        continue;
      }
      // Constructs that cannot fail: a loop swapping two loads (with the owed runtime step or GM
      // alias change), or the owed GM branch.
      const bool ok = pending_region_tile_ == 2 ? gm_branch() : loop(0, false, pending_region_tile_, true);
      if (ok) pending_region_tile_ = 0;
      region_done_ = region_done_ || ok;
    }
    bool any = false;
    for (const auto& s : plan_.steps) any = any || s.op == opcode::tile_store;
    for (int v = 0; v < static_cast<int>(plan_.values.size()); ++v) {
      const gen_value& val = plan_.values[static_cast<std::size_t>(v)];
      if (!val.stored && !val.used && !val.hidden && (uniform() < opt_.final_store_probability || !any)) {
        store(v);
        any = true;
      }
    }
    plan_.gm_by_parameter = opt_.gm_parameter_probability > 0 && uniform() < opt_.gm_parameter_probability;
    // Why last and behind their options: without them each seed draws what it drew before. Why
    // only in kernels without another Tile-only construct: selection must report this one.
    const bool clean = plan_.tile_reason.empty() && !plan_.unaligned;
    if (opt_.extended && opt_.half_reduction_probability > 0 && uniform() < opt_.half_reduction_probability && clean)
      half_reduction();
    else if (opt_.abi_probability > 0 && uniform() < opt_.abi_probability && clean) abi_breach();
    if (opt_.extended && !opt_.regions && opt_.column_transfer_probability > 0 && uniform() < opt_.column_transfer_probability)
      column_outputs();
    return plan_;
  }

 private:
  struct shape_class {
    dtype dt;
    std::int64_t rows;
    std::int64_t cols;
    int weight;  ///< load weight; 0 for shapes only windows produce
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
      if (!dup) classes_.push_back({dtype::fp32, opt_.rows, c, 6});
    }
    if (opt_.fp16) classes_.push_back({dtype::fp16, opt_.rows, cols_for(dtype::fp16), 2});
    if (opt_.int32) classes_.push_back({dtype::int32, opt_.rows, cols_for(dtype::int32), 2});
    if (opt_.bf16) classes_.push_back({dtype::bf16, opt_.rows, cols_for(dtype::bf16), 1});
    if (!opt_.windows) return;
    // Window parents: 2 * rows x 256 bytes or rows x 512 bytes, so windows have room to move.
    std::vector<dtype> others;
    if (opt_.fp16) others.push_back(dtype::fp16);
    if (opt_.int32) others.push_back(dtype::int32);
    if (opt_.bf16) others.push_back(dtype::bf16);
    const auto add_parent = [&](dtype d, int weight) {
      const bool tall = uniform() < 0.5;
      classes_.push_back({d, tall ? 2 * opt_.rows : opt_.rows, (tall ? 256 : 512) / element_bytes(d), weight});
    };
    add_parent(dtype::fp32, 4);
    parent_ = classes_.size() - 1;
    if (!others.empty()) add_parent(others[below(others.size())], 2);
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
  int pick_any() {
    if (!opt_.valid_extents && !opt_.regions) return static_cast<int>(below(plan_.values.size()));
    std::vector<int> current;
    for (int v = 0; v < live_count(); ++v)
      if (!val(v).stale && !val(v).hidden) current.push_back(v);
    return pick(current);
  }
  /// A recent current version of one class (short-lived temporaries): one of the last six, with
  /// valid extents `like` when given (elementwise operands must agree on them structurally).
  int pick_recent(const shape_class& k, const std::array<gen_index, 2>* like = nullptr) {
    std::vector<int> of;
    for (int v = static_cast<int>(plan_.values.size()) - 1; v >= 0 && of.size() < 6; --v) {
      const gen_value& x = plan_.values[static_cast<std::size_t>(v)];
      if (x.dt == k.dt && x.rows == k.rows && x.cols == k.cols && !x.stale && !x.hidden && (!like || x.valid == *like))
        of.push_back(v);
    }
    return of.empty() ? -1 : of[below(of.size())];
  }
  int new_value(dtype d, std::int64_t rows, std::int64_t cols, double lo, double hi, gen_kind kind = gen_kind::dense,
                std::int64_t pitch = 0) {
    gen_value x;
    x.dt = d;
    x.rows = rows;
    x.cols = cols;
    x.lo = lo;
    x.hi = hi;
    x.kind = kind;
    x.pitch = pitch > 0 ? pitch : cols;
    x.valid = {fixed(rows), fixed(cols)};
    plan_.values.push_back(x);
    return static_cast<int>(plan_.values.size()) - 1;
  }
  gen_value& val(int v) { return plan_.values[static_cast<std::size_t>(v)]; }

  void load() { load_of(pick_class(), true); }
  /// Loads a tile of class `k`; with valid extents and `may_narrow`, possibly partially valid;
  /// with `forced`, valid extents `forced` (whose scalars exist already).
  /// With `gm_column`, a column-vector class is a window of a one-column input.
  int load_of(const shape_class k, bool may_narrow = false, std::optional<std::array<gen_index, 2>> forced = std::nullopt,
              bool gm_column = false) {
    // A column vector is a window of a one-column input (quantized-path.md §2.4) or a load's row
    // maximum; a column of a wider input stays Tile (a2a3 loads a DN tile from a DN view only).
    const bool column = k.cols == 1 && k.rows > 1;
    if (column && (gm_column || (opt_.column_transfer_probability > 0 && uniform() < opt_.column_transfer_probability))) {
      may_narrow = false;  // a column vector with runtime valid rows has no elementwise use
    } else if (column) {
      const shape_class* base = fp32_class(k.rows);
      if (base == nullptr) throw std::logic_error("gen_program: a column-vector class without an FP32 class of its rows");
      const int x = load_of(*base);
      const gen_value& v = val(x);
      return add_step(opcode::tile_row_max, {x}, dtype::fp32, v.rows, 1, {fixed(v.rows), fixed(1)});
    }
    std::vector<int> same;
    for (int t = 0; t < static_cast<int>(plan_.inputs.size()); ++t) {
      const gen_tensor& in = plan_.inputs[static_cast<std::size_t>(t)];
      if (in.dt == k.dt && in.cols == k.cols && in.rows >= k.rows) same.push_back(t);
    }
    int t;
    if (!same.empty() && uniform() < 0.5) {
      t = same[below(same.size())];  // a shared input, loaded again
    } else {
      plan_.inputs.push_back(gen_tensor{k.dt, uniform() < 0.3 ? 2 * k.rows : k.rows, k.cols});
      t = static_cast<int>(plan_.inputs.size()) - 1;
    }
    gen_step s;
    s.op = opcode::tile_load;
    s.tensor = t;
    s.row = plan_.inputs[static_cast<std::size_t>(t)].rows >= 2 * k.rows && uniform() < 0.5 ? k.rows : 0;
    const double bound = is_float(k.dt) ? 2.0 : 16.0;
    // Before the result exists: a runtime extent may add scalar steps, which must come first.
    std::optional<std::array<gen_index, 2>> valid = forced;
    if (!valid && may_narrow && opt_.valid_extents && uniform() < opt_.partial_valid_probability) valid = load_valid(k);
    s.result = new_value(k.dt, k.rows, k.cols, -bound, bound);
    if (valid) val(s.result).valid = *valid;
    plan_.steps.push_back(s);
    ++emitted_;
    return s.result;
  }

  void store(int v) {
    gen_value& x = val(v);
    const int out = output_for(x.dt, x.cols);
    gen_step s;
    s.op = opcode::tile_store;
    s.in = {v};
    s.tensor = out;
    s.row = plan_.outputs[static_cast<std::size_t>(out)].rows;
    plan_.outputs[static_cast<std::size_t>(out)].rows += x.rows;
    plan_.steps.push_back(s);
    x.stored = true;
    ++emitted_;
  }

  static double limit(dtype d) { return d == dtype::fp16 ? 1e3 : d == dtype::fp32 ? 1e4 : 1e18; }

  /// Interval of `op` over operand intervals; false when its precondition fails.
  static bool result_interval(opcode op, const gen_value& a, const gen_value* b, double s, double& lo, double& hi) {
    const std::optional<bounds> r = interval_of(op, a, b, s);
    if (r) lo = r->lo, hi = r->hi;
    return r.has_value();
  }
  /// The extended rollout's families are bounded by their combining op: a reduction as a fold of
  /// 1 to n valid elements, a fused broadcast as its elementwise pair (then `then`); broadcasts
  /// and casts keep the values (rounding is far inside the bounds).
  static std::optional<bounds> interval_of(opcode op, const gen_value& x, const gen_value* y, double s) {
    const bounds a{x.lo, x.hi};
    const bounds b = y != nullptr ? bounds{y->lo, y->hi} : bounds{0, 0};
    const op_record& r = info(op);
    switch (r.family) {
      case op_family::elementwise: return rule_of(op).interval(a, b, s);
      case op_family::row_reduction:
      case op_family::col_reduction: {
        const double n = static_cast<double>(folds_rows(op) ? x.cols : x.rows);
        switch (rule_of(r.combine).folds) {
          case fold::stays: return hull({a.lo, a.hi});
          case fold::sums: return hull({a.lo, a.hi, n * a.lo, n * a.hi});
          case fold::none: return std::nullopt;
        }
        return std::nullopt;
      }
      case op_family::row_broadcast:
      case op_family::col_broadcast:
      case op_family::cast: return hull({a.lo, a.hi});  // an integer target moves a value by < 1: far inside the bounds
      case op_family::row_broadcast_arith:
      case op_family::col_broadcast_arith: {
        const std::optional<bounds> combined = rule_of(r.combine).interval(a, b, s);
        if (!combined || r.then == no_opcode) return combined;
        return rule_of(r.then).interval(*combined, bounds{0, 0}, s);
      }
      case op_family::single:
      case op_family::scalar_arith:
      case op_family::scalar_compare:
      case op_family::scalar_logic:
      case op_family::control:
      case op_family::spmd_query: return std::nullopt;
    }
    return std::nullopt;
  }

  literal scalar_for(opcode op) {
    const std::span<const literal> of = rule_of(op).scalars;
    return of[below(of.size())];
  }

  /// Emits `op` on `in` (value numbers) if its interval is safe; returns the result or -1.
  int emit(opcode op, std::vector<int> in, literal s) {
    double lo = s.value(), hi = s.value();
    if (!in.empty() && !result_interval(op, val(in[0]), in.size() > 1 ? &val(in[1]) : nullptr, s.value(), lo, hi)) return -1;
    const dtype d = in.empty() ? dtype::fp32 : val(in[0]).dt;
    const std::int64_t rows = in.empty() ? full_rows_ : val(in[0]).rows;
    const std::int64_t cols = in.empty() ? full_cols_ : val(in[0]).cols;
    if (std::max(std::fabs(lo), std::fabs(hi)) > limit(d)) return -1;
    for (int v : in) val(v).used = true;
    gen_step st;
    st.op = op;
    st.in = std::move(in);
    st.mantissa = s.mantissa;
    st.exp10 = s.exp10;
    // rsqrt's high-precision form (quantized-path.md §2.3), its scratch left to the pipeline;
    // drawn only under the extended option, so that other seeds keep their programs.
    if (opt_.extended && !info(op).scratch.empty() && uniform() < 0.5)
      st.flags.push_back(kwarg{keyword::high_precision, operand::boolean(true)});
    st.result = new_value(d, rows, cols, lo, hi);
    if (!st.in.empty()) val(st.result).valid = val(st.in[0]).valid;
    val(st.result).made_by = op;
    plan_.steps.push_back(st);
    ++emitted_;
    return st.result;
  }

  bool compute() {
    // Why behind the option: without it each seed draws what it drew before, so its program is unchanged.
    if (opt_.extended && uniform() < opt_.extended_probability && extended_step()) return true;
    // A class with a live value that some op computes on.
    std::vector<const shape_class*> usable;
    for (const auto& k : classes_)
      if (k.dt != dtype::bf16 && pick_recent(k) >= 0) usable.push_back(&k);
    if (usable.empty()) return false;
    const shape_class& k = *usable[below(usable.size())];
    // The spec table's ops on this element type, in table order (the order fixes each seed's program).
    std::vector<opcode> table_ops;
    for (const auto& row : elementwise_table)
      if (elementwise_allows(row.op, k.dt) && (row.default_tier || opt_.extended)) table_ops.push_back(row.op);
    if (table_ops.empty()) return false;
    for (int attempt = 0; attempt < 8; ++attempt) {
      const opcode op = table_ops[below(table_ops.size())];
      const literal s = scalar_for(op);
      const ew_kind kind = info(op).ew;
      if (kind == ew_kind::fill) {
        full_rows_ = k.rows;
        full_cols_ = k.cols;
        if (emit(op, {}, s) >= 0) return true;
        continue;
      }
      std::vector<int> in{pick_recent(k)};
      const std::array<gen_index, 2> like = val(in[0]).valid;
      if (kind == ew_kind::binary) in.push_back(pick_recent(k, &like));
      if (emit(op, in, s) >= 0) return true;
      // Condition an FP32 operand so the op's precondition holds, then retry once.
      if (k.dt != dtype::fp32 || emitted_ + 3 > ops_) continue;
      const elementwise_rule& rule = rule_of(op);
      const std::size_t which = rule.fix_operand;
      switch (rule.fix) {
        case conditioning::none: continue;
        case conditioning::at_most_two: in[which] = emit(opcode::tile_minimums, {in[which]}, literal{2, 0}); break;
        case conditioning::abs_plus_one: {
          const int t = emit(opcode::tile_abs, {in[which]}, literal{0, 0});
          in[which] = t < 0 ? -1 : emit(opcode::tile_adds, {t}, literal{1, 0});
          break;
        }
      }
      if (in[0] < 0 || (in.size() > 1 && in[1] < 0)) continue;
      if (emit(op, in, s) >= 0) return true;
    }
    return false;
  }

  //===--- the extended rollout (gen_options::extended) ---===//
  /// An [R, C] operand of a reduction or broadcast: FP32 (the extended arithmetic type), an
  /// allocation of its own (not a window or relabel), current and in scope, not itself a vector.
  static bool axis_operand(const gen_value& x) {
    return x.dt == dtype::fp32 && x.space == memory_space::vec && x.kind == gen_kind::dense && !x.stale && !x.hidden &&
           x.rows > 1 && x.cols > 1;
  }
  /// An `[R, 1]` column vector (a row reduction's result, or computed from one).
  static bool is_column(const gen_value& x) { return x.cols == 1 && x.rows > 1; }
  /// Never empty under any binding: a reduction over an empty axis leaves its (non-empty) result
  /// unspecified (extended-rollout.md §2.4), which a kernel must not read.
  bool nonzero(const gen_index& e) const { return low(e) >= 1; }
  std::vector<int> current_of(bool (*keep)(const gen_value&)) const {
    return recent([keep](int, const gen_value& x) { return !x.stale && !x.hidden && keep(x); });
  }
  /// Appends a step whose result has the given type, valid extents and bounds; -1 past the bound.
  int add_step(opcode op, std::vector<int> in, dtype d, std::int64_t rows, std::int64_t cols,
               const std::array<gen_index, 2>& valid, std::vector<kwarg> flags = {}) {
    double lo = 0, hi = 0;
    if (!result_interval(op, val(in[0]), in.size() > 1 ? &val(in[1]) : nullptr, 0, lo, hi)) return -1;
    if (!(std::max(std::fabs(lo), std::fabs(hi)) <= limit(d))) return -1;
    for (int v : in) val(v).used = true;
    gen_step st;
    st.op = op;
    st.in = std::move(in);
    st.flags = std::move(flags);
    st.result = new_value(d, rows, cols, lo, hi);
    val(st.result).valid = valid;
    val(st.result).made_by = op;
    plan_.steps.push_back(st);
    ++emitted_;
    note_class(d, rows, cols);
    return st.result;
  }
  /// A loaded FP32 class to reduce or broadcast over (rows > 1).
  const shape_class* fp32_class(std::int64_t rows = 0, std::int64_t cols = 0) {
    std::vector<const shape_class*> of;
    for (const auto& k : classes_)
      if (k.dt == dtype::fp32 && k.rows > 1 && k.rows % 8 == 0 && k.cols > 1 && (rows == 0 || k.rows == rows) &&
          (cols == 0 || k.cols == cols) && (k.weight > 0 || rows != 0 || cols != 0))
        of.push_back(&k);
    return of.empty() ? nullptr : of[below(of.size())];
  }
  /// A runtime extent in [1, full] for the reduced axis (never empty, see `nonzero`).
  gen_index nonempty_extent(int axis, std::int64_t full) {
    for (int s = 0; s < static_cast<int>(plan_.scalars.size()); ++s)
      if (scalar(s).extent && !scalar(s).hidden && scalar(s).lo == 1 && scalar(s).hi == full && uniform() < 0.5) return ssa(s);
    if (extent_params_ >= max_extent_params) return fixed(between(1, full));
    const int p = new_scalar((axis == 0 ? "nrows" : "ncols") + std::to_string(extent_params_++), true, 1, full, 1);
    mark_extent(ssa(p));
    return ssa(p);
  }
  /// The source of a reduction along `axis` (0: each row's columns, 1: each column's rows): a
  /// recent operand whose reduced extent is never empty (and, for rows, whose valid rows are
  /// static and whose rows fill 32 bytes as a column: a column vector with runtime valid rows, or
  /// of 4 FP32 rows, stays Tile), or a fresh load, with
  /// valid extents sometimes partial or runtime (straight-line code only: dynamic valid state in
  /// user control flow stays Tile).
  int reduction_source(int axis) {
    const auto a = static_cast<std::size_t>(axis);
    std::vector<int> from = recent([&](int, const gen_value& x) {
      return axis_operand(x) && nonzero(x.valid[1 - a]) && (axis == 1 || (x.valid[0].scalar < 0 && x.rows * 4 % 32 == 0));
    });
    if (!from.empty() && !(opt_.valid_extents && depth_ == 0 && uniform() < 0.4)) return pick(from);
    const shape_class* k = fp32_class();
    if (k == nullptr) return -1;
    if (!opt_.valid_extents || depth_ > 0) return load_of(*k);
    // The reduced axis: full, a literal or a runtime extent in [1, n]; the kept axis: full, a
    // literal, or (columns of a column reduction) any runtime extent.
    const std::array<std::int64_t, 2> n{k->rows, k->cols};
    std::array<gen_index, 2> v{fixed(n[0]), fixed(n[1])};
    const auto reduced = static_cast<std::size_t>(1 - axis);
    const double r = uniform();
    v[reduced] = r < 0.3 ? fixed(n[reduced]) : r < 0.6 ? fixed(between(1, n[reduced])) : nonempty_extent(1 - axis, n[reduced]);
    const double q = uniform();
    if (q < 0.3) v[a] = fixed(between(1, n[a]));
    else if (axis == 1 && q < 0.6) v[a] = runtime_extent(1, n[a]);
    return load_of(*k, false, v);
  }
  int reduce(int axis) {
    const int x = reduction_source(axis);
    if (x < 0) return -1;
    constexpr auto& rows_ops = members<op_family::row_reduction, dialect::tile>;
    constexpr auto& cols_ops = members<op_family::col_reduction, dialect::tile>;
    const gen_value s = val(x);
    if (axis == 0) return add_step(rows_ops[below(rows_ops.size())], {x}, dtype::fp32, s.rows, 1, {s.valid[0], fixed(1)});
    return add_step(cols_ops[below(cols_ops.size())], {x}, dtype::fp32, 1, s.cols, {fixed(1), s.valid[1]});
  }
  /// `x` made nonzero for a divisor: |x| + 1 (elementwise, so also on a column vector or row).
  int away_from_zero_of(int x) {
    if (away_from_zero(bounds{val(x).lo, val(x).hi})) return x;
    const int t = emit(opcode::tile_abs, {x}, literal{0, 0});
    return t < 0 ? -1 : emit(opcode::tile_adds, {t}, literal{1, 0});
  }
  /// A new column vector: a row reduction or (`column_transfer_probability`) a window of a
  /// one-column input, as the per-row scales of pypto-lib's dequantization come.
  int new_column() {
    if (opt_.column_transfer_probability > 0 && uniform() < opt_.column_transfer_probability)
      if (const shape_class* k = fp32_class(); k != nullptr)
        return load_of(shape_class{dtype::fp32, k->rows, 1, 0}, false, {}, true);
    return reduce(0);
  }
  /// A row broadcast: `tile.row_expand(v)` to a class width, or `tile.row_expand_sub/div/mul(x, v)`
  /// with x's valid rows those of the column vector v (a recent one, or a new row reduction).
  bool row_broadcast() {
    const std::vector<int> vs =
        current_of([](const gen_value& x) { return is_column(x) && x.dt == dtype::fp32 && x.kind == gen_kind::dense; });
    int v = vs.empty() || uniform() < 0.2 ? new_column() : pick(vs);
    if (v < 0) return false;
    const gen_value c = val(v);
    if (uniform() < 0.3) {
      const shape_class* k = fp32_class(c.rows);
      return k != nullptr &&
             add_step(opcode::tile_row_expand, {v}, dtype::fp32, c.rows, k->cols, {c.valid[0], fixed(k->cols)}) >= 0;
    }
    const std::vector<int> xs =
        recent([&](int, const gen_value& x) { return axis_operand(x) && x.rows == c.rows && x.valid[0] == c.valid[0]; });
    if (xs.empty()) return true;  // the reduction (or nothing new) is this step
    const int x = pick(xs);
    constexpr auto& ops = members<op_family::row_broadcast_arith, dialect::tile>;
    const opcode op = ops[below(ops.size())];
    if (conditions_vector(op) && (v = away_from_zero_of(v)) < 0) return true;
    const gen_value s = val(x);
    add_step(op, {x, v}, dtype::fp32, s.rows, s.cols, s.valid);
    return true;
  }
  /// A column broadcast: `tile.col_expand(w)` down a class's rows, or `tile.col_expand_<op>(x, w)`
  /// with x's valid columns those of the [1, C] row w (one valid row; a recent one or a new column
  /// reduction).
  bool col_broadcast() {
    const std::vector<int> ws = current_of([](const gen_value& x) {
      return x.rows == 1 && x.cols > 1 && x.dt == dtype::fp32 && x.kind == gen_kind::dense && x.valid[0] == fixed(1);
    });
    int w = ws.empty() || uniform() < 0.2 ? reduce(1) : pick(ws);
    if (w < 0) return false;
    const gen_value r = val(w);
    if (uniform() < 0.3) {
      const shape_class* k = fp32_class(0, r.cols);
      return k != nullptr &&
             add_step(opcode::tile_col_expand, {w}, dtype::fp32, k->rows, r.cols, {fixed(k->rows), r.valid[1]}) >= 0;
    }
    const std::vector<int> xs =
        recent([&](int, const gen_value& x) { return axis_operand(x) && x.cols == r.cols && x.valid[1] == r.valid[1]; });
    if (xs.empty()) return true;
    const int x = pick(xs);
    constexpr auto& ops = members<op_family::col_broadcast_arith, dialect::tile>;
    const opcode op = ops[below(ops.size())];
    if (conditions_vector(op) && (w = away_from_zero_of(w)) < 0) return true;
    const gen_value s = val(x);
    if (add_step(op, {x, w}, dtype::fp32, s.rows, s.cols, s.valid) < 0 && info(op).then != no_opcode) {
      // then(x - w) overflows the bound (expdif's exp, the one `then`): bring x under 2 and w
      // over -2 first.
      const int xc = emit(opcode::tile_minimums, {x}, literal{2, 0});
      const int wc = xc < 0 ? -1 : emit(opcode::tile_maximums, {w}, literal{-2, 0});
      if (wc >= 0) add_step(op, {xc, wc}, dtype::fp32, s.rows, s.cols, s.valid);
    }
    return true;
  }
  /// `tile.cast`: a pair of `extended_cast_pairs` (ir/cast.hpp: FP32 <-> FP16/BF16, and the
  /// quantized path's INT32 -> FP32/FP16, FP32 -> INT32, FP16 -> INT8) from a recent dense Vec
  /// value, with one of the pair's modes or none; the result's rows stay 32-byte aligned and its
  /// values inside the target's range (no saturation drawn: the interval stays exact).
  bool cast() {
    struct choice {
      int x;
      const cast_pair* pair;
    };
    std::vector<choice> of;
    for (const int x : recent([&](int, const gen_value& v) {
           return !v.stale && !v.hidden && v.kind == gen_kind::dense && v.space == memory_space::vec && !is_column(v);
         })) {
      const gen_value& v = val(x);
      for (const cast_pair& p : extended_cast_pairs) {
        if (p.from != v.dt || v.cols * element_bytes(p.to) % 32 != 0) continue;
        const double bound = p.to == dtype::int8 ? 127 : limit(p.to);
        if (std::max(std::fabs(v.lo), std::fabs(v.hi)) + (is_float(p.to) ? 0 : 1) <= bound) of.push_back({x, &p});
      }
    }
    if (of.empty()) return false;
    const choice c = of[below(of.size())];
    const gen_value s = val(c.x);
    std::vector<kwarg> mode;
    if (uniform() < 0.7) mode.push_back(kwarg{keyword::mode, operand::integer(between(c.pair->min_mode, c.pair->max_mode))});
    return add_step(opcode::tile_cast, {c.x}, c.pair->to, s.rows, s.cols, s.valid, std::move(mode)) >= 0;
  }
  /// An FP16 or BF16 row or column reduction of a fresh load, its result unused: the extended
  /// rollout reduces FP32 only (§3.1), so the kernel must stay Tile with that reason.
  void half_reduction() {
    const dtype d = uniform() < 0.5 ? dtype::fp16 : dtype::bf16;
    const shape_class k{d, opt_.rows, cols_for(d), 0};
    const int x = load_of(k);
    const bool rows = uniform() < 0.5;
    const std::span<const opcode> ops = rows ? std::span<const opcode>(members<op_family::row_reduction, dialect::tile>)
                                             : std::span<const opcode>(members<op_family::col_reduction, dialect::tile>);
    const opcode op = ops[below(ops.size())];
    const std::array<gen_index, 2> valid{fixed(rows ? k.rows : 1), fixed(rows ? 1 : k.cols)};
    if (add_step(op, {x}, d, rows ? k.rows : 1, rows ? 1 : k.cols, valid) < 0) return;
    plan_.tile_reason = std::string("on ") + std::string(name(d)) + " is not in the extended rollout";
  }
  /// Every output only column vectors are stored to becomes one column wide: the DN view of
  /// their column-vector stores (quantized-path.md §2.4). Why not in regions: a GM carry is
  /// an access the ABI's column-only rule does not follow.
  void column_outputs() {
    for (int o = 0; o < static_cast<int>(plan_.outputs.size()); ++o) {
      bool columns = false, others = false;
      for (const gen_step& s : plan_.steps)
        if ((s.op == opcode::tile_store || (s.op == opcode::tile_load && s.from_output)) && s.tensor == o)
          (s.op == opcode::tile_store && is_column(val(s.in[0])) ? columns : others) = true;
      if (columns && !others) plan_.outputs[static_cast<std::size_t>(o)].cols = 1;
    }
  }
  /// One construct the PTO kernel ABI forbids (analysis/pto_abi.hpp; see gen_options::abi_probability).
  void abi_breach() {
    if (uniform() < 0.5) {
      // An unused one-column input: a one-column tensor that carries no column vector.
      plan_.inputs.push_back(gen_tensor{dtype::fp32, opt_.rows, 1});
      plan_.tile_reason = "columns > 1";
      return;
    }
    // A load of the first rows of an output a store wrote (at the top level), its result unused.
    for (int o = 0; o < static_cast<int>(plan_.outputs.size()); ++o) {
      const gen_tensor out = plan_.outputs[static_cast<std::size_t>(o)];
      if (out.rows <= 0 || out.cols <= 1) continue;
      gen_step s;
      s.op = opcode::tile_load;
      s.tensor = o;
      s.from_output = true;
      s.result = new_value(out.dt, std::min(out.rows, opt_.rows), out.cols, -2, 2);
      plan_.steps.push_back(s);
      ++emitted_;
      plan_.tile_reason = "parameter direction";
      return;
    }
  }
  /// One step of the extended rollout's families (rsqrt comes with the elementwise table).
  bool extended_step() {
    switch (below(5)) {
      case 0: return reduce(0) >= 0;
      case 1: return reduce(1) >= 0;
      case 2: return row_broadcast();
      case 3: return col_broadcast();
      default: return cast();
    }
  }

  //===--- windows ---===//
  static constexpr int max_params = 4;
  static std::int64_t unit(dtype d) { return 32 / element_bytes(d); }  ///< elements per 32 bytes
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::size_t>(hi - lo + 1)));
  }
  const shape_class& parent() const { return classes_[parent_]; }
  void note_class(dtype d, std::int64_t rows, std::int64_t cols) {
    for (const auto& k : classes_)
      if (k.dt == d && k.rows == rows && k.cols == cols) return;
    classes_.push_back({d, rows, cols, 0});
  }
  /// Up to ten of the latest values, newest first, that `keep(value number, value)` accepts.
  template <class Keep>
  std::vector<int> recent(Keep keep) const {
    std::vector<int> out;
    for (int v = live_count() - 1; v >= 0 && out.size() < 10; --v)
      if (!plan_.values[static_cast<std::size_t>(v)].hidden && keep(v, plan_.values[static_cast<std::size_t>(v)]))
        out.push_back(v);
    return out;
  }
  int pick(const std::vector<int>& of) { return of[below(of.size())]; }

  // Scalars. Every operand is nonnegative, so sums and products take their extremes at the ends.
  const gen_scalar& scalar(int s) const { return plan_.scalars[static_cast<std::size_t>(s)]; }
  std::int64_t low(const gen_index& x) const { return x.scalar >= 0 ? scalar(x.scalar).lo : x.num; }
  std::int64_t high(const gen_index& x) const { return x.scalar >= 0 ? scalar(x.scalar).hi : x.num; }
  std::int64_t multiple(const gen_index& x) const { return x.scalar >= 0 ? scalar(x.scalar).multiple : x.num; }
  bool provably_aligned(const gen_index& x, dtype d) const { return multiple(x) * element_bytes(d) % 32 == 0; }
  static gen_index fixed(std::int64_t n) { return gen_index{-1, n}; }
  static gen_index ssa(int s) { return gen_index{s, 0}; }
  int new_scalar(std::string name, bool param, std::int64_t lo, std::int64_t hi, std::int64_t mult) {
    plan_.scalars.push_back(gen_scalar{std::move(name), param, lo, hi, mult});
    return static_cast<int>(plan_.scalars.size()) - 1;
  }
  int new_param(const char* prefix, std::int64_t hi) { return new_scalar(prefix + std::to_string(params_++), true, 0, hi, 1); }
  /// A scalar op on nonnegative operands (`sub`: a - b never negative; `mod`: by a positive literal).
  int scalar_step(opcode op, gen_index a, gen_index b) {
    std::int64_t lo = 0, hi = 0;
    const scalar_fn fn = info(op).fn;
    switch (fn) {
      case scalar_fn::add: lo = low(a) + low(b), hi = high(a) + high(b); break;
      case scalar_fn::mul: lo = low(a) * low(b), hi = high(a) * high(b); break;
      case scalar_fn::min: lo = std::min(low(a), low(b)), hi = std::min(high(a), high(b)); break;
      case scalar_fn::max: lo = std::max(low(a), low(b)), hi = std::max(high(a), high(b)); break;
      case scalar_fn::sub: lo = low(a) - high(b), hi = high(a) - low(b); break;
      case scalar_fn::mod: lo = high(a) < b.num ? low(a) : 0, hi = std::min(high(a), b.num - 1); break;
      // Why no range: the generator draws none of these as an INDEX step (its BOOL `eq` is built
      // apart), and a rule nothing exercises would be a guess.
      case scalar_fn::none:
      case scalar_fn::floordiv:
      case scalar_fn::lt:
      case scalar_fn::le:
      case scalar_fn::eq:
      case scalar_fn::ne:
      case scalar_fn::gt:
      case scalar_fn::ge:
      case scalar_fn::logical_and:
      case scalar_fn::logical_or:
      case scalar_fn::logical_not:
        throw std::logic_error("gen_program: scalar_step has no range rule for " + std::string(mnemonic(op)));
    }
    // Why gcd for every other op: a sum, difference, min, max or remainder is a multiple of
    // whatever divides both operands (the remainder a - q * b, too), and of nothing more in general.
    const std::int64_t mult = fn == scalar_fn::mul ? multiple(a) * multiple(b) : std::gcd(multiple(a), multiple(b));
    gen_step st;
    st.op = op;
    st.args = {a, b};
    st.result = new_scalar("s" + std::to_string(plan_.scalars.size()), false, lo, hi, mult);
    plan_.steps.push_back(st);
    ++emitted_;
    return st.result;
  }
  /// The block index, queried once per kernel; its range is fixed by the first window using it.
  int block_index(std::int64_t max) {
    if (block_ >= 0) return block_;
    plan_.block_max = max;
    gen_step st;
    st.op = opcode::tile_get_block_idx;
    st.result = block_ = new_scalar("block", false, 0, max, 1);
    plan_.steps.push_back(st);
    ++emitted_;
    return block_;
  }
  /// Earlier scalars whose whole range lies in [0, hi] (optionally: provably aligned for `d`).
  std::vector<int> scalars_within(std::int64_t hi, const dtype* aligned_for = nullptr) const {
    std::vector<int> out;
    for (int s = 0; s < static_cast<int>(plan_.scalars.size()); ++s)
      if (!scalar(s).hidden && !scalar(s).control && scalar(s).lo >= 0 && scalar(s).hi <= hi &&
          (!aligned_for || provably_aligned(ssa(s), *aligned_for)))
        out.push_back(s);
    return out;
  }

  /// A row offset in [0, slack] under every legal binding. Rows need no alignment, so any earlier
  /// scalar that fits will do, as does a parameter (plus a literal).
  gen_index row_offset(std::int64_t slack, bool runtime) {
    if (!runtime || slack == 0) return fixed(between(0, slack));
    const std::vector<int> fits = scalars_within(slack);
    if (!fits.empty() && (uniform() < 0.4 || params_ >= max_params)) return ssa(pick(fits));
    if (params_ >= max_params) return fixed(between(0, slack));
    const std::int64_t hi = uniform() < 0.6 ? slack : between(1, slack);
    const int p = new_param("row", hi);
    if (hi < slack && uniform() < 0.5) return ssa(scalar_step(opcode::scalar_add, ssa(p), fixed(between(1, slack - hi))));
    return ssa(p);
  }

  /// A column offset in [0, room] elements that selection can prove 32-byte aligned: a literal
  /// multiple of the unit, or (runtime) block * K, p * K, their sum, plus an aligned literal,
  /// every K a whole number of units.
  gen_index column_offset(dtype d, std::int64_t room, bool runtime) {
    const std::int64_t a = unit(d), units = room / a;
    if (!runtime || units == 0) return fixed(a * between(0, units));
    const std::vector<int> fits = scalars_within(a * units, &d);
    if (!fits.empty() && uniform() < 0.35) return ssa(pick(fits));
    const double form = uniform();
    const bool want_block = form < 0.65, want_param = form >= 0.4;
    std::int64_t left = units;  // in units
    std::optional<gen_index> acc;
    if (want_block) {
      const std::int64_t budget = want_param ? left - 1 : left;  // leave the parameter a unit
      std::int64_t max = plan_.block_max;
      if (max < 0 && budget >= 1) max = between(1, std::min<std::int64_t>(budget, 7));
      if (max >= 1 && max <= budget) {
        const std::int64_t k = between(1, budget / max);
        acc = ssa(scalar_step(opcode::scalar_mul, ssa(block_index(max)), fixed(k * a)));
        left -= k * max;
      }
    }
    if (want_param && left >= 1) {
      std::vector<int> reuse;
      for (int s = 0; s < static_cast<int>(plan_.scalars.size()); ++s)
        if (scalar(s).param && !scalar(s).control && scalar(s).hi <= left) reuse.push_back(s);
      int p = -1;
      std::int64_t k = 1;
      if (!reuse.empty() && (uniform() < 0.3 || params_ >= max_params)) {
        p = pick(reuse);
        k = between(1, left / std::max<std::int64_t>(1, scalar(p).hi));
      } else if (params_ < max_params) {
        k = between(1, std::min<std::int64_t>(2, left));
        p = new_param("col", uniform() < 0.6 ? left / k : between(1, left / k));
      }
      if (p >= 0) {
        left -= k * scalar(p).hi;
        const gen_index term = ssa(scalar_step(opcode::scalar_mul, ssa(p), fixed(k * a)));
        acc = acc ? ssa(scalar_step(opcode::scalar_add, *acc, term)) : term;
      }
    }
    if (!acc) return fixed(a * between(0, units));
    if (left >= 1 && uniform() < 0.3) acc = ssa(scalar_step(opcode::scalar_add, *acc, fixed(a * between(1, left))));
    return *acc;
  }

  /// A column offset in [0, room] (room >= 1) that selection cannot prove aligned: a literal off
  /// the 32-byte grid, a parameter used directly, or (room permitting) an aligned runtime term
  /// combined with such an offset by a sum, difference, min, max or mod. Why the combinations:
  /// the proof must give each the alignment of its weaker operand, and a proof that took the
  /// stronger one would select these kernels (and run them on misaligned windows).
  gen_index unaligned_column_offset(dtype d, std::int64_t room) {
    const std::int64_t a = unit(d);
    if (room > a && params_ < max_params && uniform() < 0.5) {
      const std::int64_t top = a * ((room - 1) / a);  // the aligned term's maximum, below room
      const gen_index aligned = ssa(scalar_step(opcode::scalar_mul, ssa(new_param("col", top / a)), fixed(a)));
      // Literals off the grid, each keeping the result within [0, room].
      switch (below(5)) {
        case 0: return ssa(scalar_step(opcode::scalar_add, aligned, fixed(between(1, std::min(a - 1, room - top)))));
        case 1: {  // (aligned + a) - off: at least 1
          const gen_index above = ssa(scalar_step(opcode::scalar_add, aligned, fixed(a)));
          return ssa(scalar_step(opcode::scalar_sub, above, fixed(between(std::max<std::int64_t>(1, top + a - room), a - 1))));
        }
        case 2: return ssa(scalar_step(opcode::scalar_min, aligned, fixed(a * between(0, top / a) + between(1, a - 1))));
        case 3: return ssa(scalar_step(opcode::scalar_max, aligned, fixed(between(1, a - 1))));
        default: return ssa(scalar_step(opcode::scalar_mod, aligned, fixed(a + between(1, a - 1))));
      }
    }
    if (params_ < max_params && uniform() < 0.5) return ssa(new_param("col", room));
    std::int64_t c = 0;
    while (c % unit(d) == 0) c = between(1, room);
    return fixed(c);
  }

  /// A window shape inside `s` whose rows are whole 32-byte units, leaving a unit of room when
  /// the column offset must be able to leave the 32-byte grid.
  std::array<std::int64_t, 2> window_shape(const gen_value& s, bool unaligned) {
    const std::int64_t a = unit(s.dt), max_cols = unaligned ? s.cols - a : s.cols;
    // Shapes that already exist keep binary ops between windows and other values likely.
    std::vector<std::array<std::int64_t, 2>> known;
    for (const auto& k : classes_)
      if (k.dt == s.dt && k.cols % a == 0 && k.rows <= s.rows && k.cols <= max_cols && (k.rows != s.rows || k.cols != s.cols))
        known.push_back({k.rows, k.cols});
    if (!known.empty() && uniform() < 0.5) return known[below(known.size())];
    std::vector<std::int64_t> rows{s.rows};
    for (std::int64_t r : {s.rows / 2, s.rows / 4})
      if (r >= 1 && std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
    std::vector<std::int64_t> cols;
    for (std::int64_t c : {a, 2 * a, 4 * a, s.cols / 2, s.cols})
      if (c % a == 0 && c >= a && c <= max_cols && std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    const std::int64_t r = uniform() < 0.15 ? between(1, s.rows) : rows[below(rows.size())];
    return {r, cols[below(cols.size())]};
  }

  /// Values a slice may cut: not relabels (a window of a relabel stays Tile) and not unalignable
  /// windows, with room for a smaller window (two units of columns for an unaligned one).
  std::vector<int> slice_sources(bool unaligned) const {
    return recent([&](int, const gen_value& x) {
      if (x.kind == gen_kind::relabel || x.unaligned || !windowable(x)) return false;
      return unaligned ? x.cols >= 2 * unit(x.dt) : x.rows > 1 || x.cols > unit(x.dt);
    });
  }

  /// Slices `src`; returns the window. The step's offsets are in plan.steps.back().
  int slice_of(int src, bool unaligned) { return slice_of(src, unaligned, opt_.runtime_offset_probability); }
  int slice_of(int src, bool unaligned, double runtime_probability) {
    const gen_value s = val(src);  // a copy: new values may move the vector
    const auto [h, w] = window_shape(s, unaligned);
    const std::size_t mode = uniform() < runtime_probability ? 1 + below(3) : 0;  // 1: row, 2: column, 3: both
    const gen_index col = unaligned ? unaligned_column_offset(s.dt, s.cols - w) : column_offset(s.dt, s.cols - w, mode >= 2);
    const gen_index row = row_offset(s.rows - h, mode == 1 || mode == 3);
    gen_step st;
    st.op = opcode::tile_slice;
    st.in = {src};
    st.offsets = {row, col};
    st.result = new_value(s.dt, h, w, s.lo, s.hi, gen_kind::window, s.pitch);
    val(st.result).made_by = st.op;
    val(st.result).unaligned = unaligned;
    val(src).used = val(src).viewed = true;
    plan_.steps.push_back(st);
    ++emitted_;
    note_class(s.dt, h, w);
    window_done_ = true;
    return st.result;
  }

  /// Reshapes a recent dense non-window tile to another width whose rows are a multiple of 32 bytes.
  bool reshape() {
    const std::vector<int> from = recent([](int, const gen_value& x) { return x.kind == gen_kind::dense && windowable(x); });
    if (from.empty()) return false;
    const int v = pick(from);
    const gen_value s = val(v);
    const std::int64_t elements = s.rows * s.cols;
    std::vector<std::int64_t> widths;
    for (std::int64_t bytes = 32; bytes <= 512; bytes *= 2) {
      const std::int64_t w = bytes / element_bytes(s.dt);
      if (w != s.cols && elements % w == 0 && elements / w <= 128) widths.push_back(w);
    }
    if (widths.empty()) return false;
    const std::int64_t w = widths[below(widths.size())];
    gen_step st;
    st.op = opcode::tile_reshape;
    st.in = {v};
    st.result = new_value(s.dt, elements / w, w, s.lo, s.hi, gen_kind::relabel);
    val(st.result).made_by = st.op;
    val(v).used = val(v).viewed = true;
    plan_.steps.push_back(st);
    ++emitted_;
    note_class(s.dt, elements / w, w);
    window_done_ = true;
    return true;
  }

  /// Static aligned offsets placing a `src`-shaped window inside `target`.
  std::array<gen_index, 2> place(const gen_value& target, const gen_value& src) {
    const std::int64_t a = unit(target.dt);
    return {fixed(between(0, target.rows - src.rows)), fixed(a * between(0, (target.cols - src.cols) / a))};
  }

  /// Assembles into a recent dense tile a source with its row pitch: a slice of the target itself
  /// (at its own offsets, or elsewhere: overlapping), or another tile as wide as the target, or a
  /// slice of one.
  bool assemble() {
    const std::vector<int> targets = recent([](int, const gen_value& x) { return x.kind == gen_kind::dense && windowable(x); });
    if (targets.empty()) return false;
    const int t = pick(targets);
    const gen_value target = val(t);
    const double r = uniform();
    int src = -1;
    std::array<gen_index, 2> at{};
    std::vector<int> same_pitch;
    if (r >= 0.5)
      same_pitch = recent([&](int v, const gen_value& x) {
        const bool pitch = x.kind == gen_kind::window ? x.pitch == target.cols
                                                      : x.kind == gen_kind::dense && x.cols == target.cols;
        return v != t && x.dt == target.dt && !x.unaligned && windowable(x) && pitch && x.rows <= target.rows &&
               x.cols <= target.cols;
      });
    if (same_pitch.empty()) {
      // Mostly static offsets: an exact self-write at runtime offsets needs the recipe to see the
      // same SSA on both sides, which only some kernels should depend on.
      src = slice_of(t, false, 0.3);
      at = r < 0.2 ? plan_.steps.back().offsets : place(target, val(src));
    } else {
      src = pick(same_pitch);
      at = place(target, val(src));
    }
    gen_step st;
    st.op = opcode::tile_assemble;
    st.in = {t, src};
    st.offsets = at;
    st.result =
        new_value(target.dt, target.rows, target.cols, std::min(target.lo, val(src).lo), std::max(target.hi, val(src).hi));
    val(st.result).made_by = st.op;
    val(t).used = val(src).used = val(t).viewed = true;
    plan_.steps.push_back(st);
    ++emitted_;
    window_done_ = true;
    return true;
  }

  /// One window step; false when nothing suits the chosen kind. A kernel meant to stay Tile gets
  /// its unalignable slice first, so no other window op can be the reason selection gives.
  bool window() {
    if (pending_unaligned_) {
      std::vector<int> from = slice_sources(true);
      slice_of(from.empty() ? load_of(parent()) : pick(from), true);
      pending_unaligned_ = false;
      return true;
    }
    const double r = uniform();
    if (r < 0.5) {
      const std::vector<int> from = slice_sources(false);
      if (from.empty()) return false;
      slice_of(pick(from), false);
      return true;
    }
    return r < 0.7 ? reshape() : assemble();
  }

  //===--- valid extents ---===//
  static constexpr int max_extent_params = 4;
  static bool full_valid(const gen_value& x) { return x.valid[0] == fixed(x.rows) && x.valid[1] == fixed(x.cols); }
  /// Windows take only fully valid current versions that no setter made: a window of a partial
  /// rectangle could read uninitialized elements, and a window of versioned storage is the
  /// separate Tile-only share.
  static bool windowable(const gen_value& x) {
    return !x.stale && x.made_by != opcode::tile_set_validshape && full_valid(x) && !is_column(x);
  }
  void mark_extent(const gen_index& x) {
    if (x.scalar >= 0) plan_.scalars[static_cast<std::size_t>(x.scalar)].extent = true;
  }
  int new_extent_param(int axis, std::int64_t hi) {
    const int p = new_scalar((axis == 0 ? "rows" : "cols") + std::to_string(extent_params_++), true, 0, hi, 1);
    mark_extent(ssa(p));
    return p;
  }
  /// Extent scalars whose range is [0, hi] exactly (`exact`) or lies within it.
  std::vector<int> extent_scalars(std::int64_t hi, bool exact) const {
    std::vector<int> out;
    for (int s = 0; s < static_cast<int>(plan_.scalars.size()); ++s)
      if (scalar(s).extent && !scalar(s).hidden && scalar(s).lo == 0 && (exact ? scalar(s).hi == hi : scalar(s).hi <= hi))
        out.push_back(s);
    return out;
  }
  struct valid_pattern {
    dtype dt;
    std::int64_t rows, cols;
    std::array<gen_index, 2> valid;
  };
  void note_pattern(const gen_value& x) {
    if (!full_valid(x)) patterns_.push_back({x.dt, x.rows, x.cols, x.valid});
  }

  /// The block index scaled onto [0, full]: `block`, or `block * K` when the block range (fixed by
  /// the block's first use) times K is `full`, else `min(block * K, full)`.
  gen_index block_extent(std::int64_t full) {
    std::int64_t k = 1;
    if (block_ < 0) {
      std::vector<std::int64_t> ks;
      for (const std::int64_t d : {1, 2, 4})
        if (full % d == 0 && full / d >= 1) ks.push_back(d);
      k = ks[below(ks.size())];
      block_index(full / k);
    } else {
      const std::int64_t m = std::max<std::int64_t>(1, plan_.block_max);
      k = (full + m - 1) / m;
    }
    gen_index e = ssa(block_);
    if (k > 1) e = ssa(scalar_step(opcode::scalar_mul, e, fixed(k)));
    if (plan_.block_max * k != full) e = ssa(scalar_step(opcode::scalar_min, e, fixed(full)));
    mark_extent(e);
    return e;
  }
  /// A runtime extent ranging over exactly [0, full]: an earlier one (so loads can match),
  /// block index arithmetic, or a new parameter.
  gen_index runtime_extent(int axis, std::int64_t full) {
    const std::vector<int> same = extent_scalars(full, true);
    if (!same.empty() && uniform() < 0.4) return ssa(pick(same));
    if (uniform() < opt_.spmd_extent_probability) return block_extent(full);
    if (extent_params_ < max_extent_params) return ssa(new_extent_param(axis, full));
    return same.empty() ? block_extent(full) : ssa(pick(same));
  }
  /// The valid rectangle of a partially valid load of class `k`: often one the class already has
  /// (elementwise operands must match structurally), else per axis the full extent, a literal in
  /// [1, extent] or a runtime extent, not full on both.
  std::array<gen_index, 2> load_valid(const shape_class& k) {
    std::vector<int> known;
    for (int i = 0; i < static_cast<int>(patterns_.size()); ++i) {
      const valid_pattern& p = patterns_[static_cast<std::size_t>(i)];
      if (p.dt == k.dt && p.rows == k.rows && p.cols == k.cols) known.push_back(i);
    }
    if (!known.empty() && uniform() < 0.5) return patterns_[static_cast<std::size_t>(pick(known))].valid;
    const std::array<std::int64_t, 2> full{k.rows, k.cols};
    std::array<gen_index, 2> v{};
    for (const int axis : {0, 1}) {
      const std::int64_t n = full[static_cast<std::size_t>(axis)];
      gen_index& e = v[static_cast<std::size_t>(axis)];
      if (uniform() < 0.3) e = fixed(n);
      else if (uniform() < opt_.runtime_extent_probability) e = runtime_extent(axis, n);
      else e = fixed(between(1, n));
    }
    if (v[0] == fixed(full[0]) && v[1] == fixed(full[1])) v[1] = fixed(between(1, std::max<std::int64_t>(1, full[1] - 1)));
    patterns_.push_back({k.dt, k.rows, k.cols, v});
    return v;
  }

  /// An extent that never exceeds `cur` under any legal binding: a literal no larger than a
  /// literal `cur`, a runtime extent ranging within it, or `min(cur, k)` of a runtime `cur`.
  gen_index narrowed(int axis, const gen_index& cur) {
    if (cur.scalar < 0) {
      const std::int64_t n = cur.num;
      if (n <= 0 || uniform() < 0.5) return fixed(between(std::min<std::int64_t>(1, n), n));
      const std::vector<int> fits = extent_scalars(n, false);
      if (!fits.empty() && (uniform() < 0.4 || extent_params_ >= max_extent_params)) return ssa(pick(fits));
      if (extent_params_ < max_extent_params) return ssa(new_extent_param(axis, n));
      return fixed(between(1, n));
    }
    gen_index other = fixed(between(1, std::max<std::int64_t>(1, high(cur))));
    std::vector<int> others = extent_scalars(high(cur), false);
    others.erase(std::remove(others.begin(), others.end(), cur.scalar), others.end());
    if (!others.empty() && uniform() < 0.3) other = ssa(pick(others));
    const gen_index e = ssa(scalar_step(opcode::scalar_min, cur, other));
    mark_extent(e);
    return e;
  }
  /// `tile.set_validshape(t, r, c)` narrowing at least one axis (see `narrowed`); `t` becomes
  /// stale. Returns the new version.
  int narrow(int t) {
    const gen_value x = val(t);  // a copy: new values may move the vector
    std::array<bool, 2> change{uniform() < 0.6, uniform() < 0.6};
    if (!change[0] && !change[1]) change[below(2)] = true;
    std::array<gen_index, 2> v = x.valid;
    for (const int axis : {0, 1}) {
      const auto a = static_cast<std::size_t>(axis);
      if (change[a]) v[a] = narrowed(axis, x.valid[a]);
    }
    gen_step st;
    st.op = opcode::tile_set_validshape;
    st.in = {t};
    st.args = {v[0], v[1]};
    st.result = new_value(x.dt, x.rows, x.cols, x.lo, x.hi, x.kind, x.pitch);
    val(st.result).valid = v;
    val(st.result).made_by = st.op;
    val(t).used = val(t).stale = true;
    plan_.steps.push_back(st);
    ++emitted_;
    note_pattern(val(st.result));
    return st.result;
  }
  /// A set_validshape step on a recent allocation-backed current version (not a window, relabel
  /// or assemble result, and with no view of it that a later step could read as an alias of the
  /// old version), or the kernel's pending Tile-only share: a read of the old version right after
  /// its setter, or a narrowed slice. False when nothing suits.
  bool setter() {
    if (pending_window_setter_) {
      pending_window_setter_ = false;
      const std::vector<int> from = slice_sources(false);
      store(narrow(slice_of(from.empty() ? load_of(parent()) : pick(from), false)));
      return true;
    }
    std::vector<int> from = recent([](int, const gen_value& x) {
      return !x.stale && !x.viewed && x.kind == gen_kind::dense && x.made_by != opcode::tile_assemble && !is_column(x);
    });
    if (from.empty()) {
      if (!pending_stale_) return false;
      from.push_back(load_of(pick_class()));
    }
    // Chains of versions (a setter of a setter result) are rare by chance; favour them a little.
    std::vector<int> versions;
    for (const int v : from)
      if (val(v).made_by == opcode::tile_set_validshape) versions.push_back(v);
    const int t = !versions.empty() && uniform() < 0.4 ? pick(versions) : pick(from);
    narrow(t);
    if (pending_stale_) {
      pending_stale_ = false;
      if (val(t).dt == dtype::fp32 && uniform() < 0.5)
        emit(opcode::tile_abs, {t}, literal{0, 0});  // |x| keeps every bound: it cannot fail
      else store(t);
    }
    return true;
  }

  //===--- regions ---===//
  static constexpr int max_control_params = 3;  ///< per role: flags, counts, limits, steps
  struct scope_mark {
    int values;
    std::size_t scalars;
    int floor;
  };
  /// Enters a region: what is defined from here on goes out of scope at `close_scope`.
  scope_mark open_scope() {
    const scope_mark m{live_count(), plan_.scalars.size(), region_floor_};
    region_floor_ = live_count();
    ++depth_;
    return m;
  }
  void close_scope(const scope_mark& m) {
    for (int v = m.values; v < live_count(); ++v) val(v).hidden = true;
    for (std::size_t s = m.scalars; s < plan_.scalars.size(); ++s)
      if (!plan_.scalars[s].param) plan_.scalars[s].hidden = true;
    region_floor_ = m.floor;
    --depth_;
  }
  static bool same_class(const gen_value& x, const shape_class& k) {
    return x.dt == k.dt && x.rows == k.rows && x.cols == k.cols;
  }
  /// A value a branch may yield or a loop may carry: in scope, dense, fully and statically valid.
  static bool carriable(const gen_value& x) { return !x.hidden && !x.stale && x.kind == gen_kind::dense && full_valid(x); }
  static bool adds(dtype d) { return d == dtype::fp32 || d == dtype::fp16 || d == dtype::int32; }
  /// A class that kernels load (not one only windows produce); `add`: one tile.add supports.
  /// With the extended rollout and `vectors`, sometimes an [R, 1] column-vector class (a carried
  /// row statistic, as online softmax carries its running max and sum; `load_of` makes one by a
  /// row reduction of a load).
  const shape_class& region_class(bool add, bool vectors = false) {
    std::vector<int> of;
    for (int i = 0; i < static_cast<int>(classes_.size()); ++i) {
      const shape_class& k = classes_[static_cast<std::size_t>(i)];
      if (k.weight > 0 && (!add || adds(k.dt))) of.push_back(i);
    }
    if (vectors && opt_.extended && uniform() < 0.3) {
      std::vector<int> columns;
      for (int i = 0; i < static_cast<int>(classes_.size()); ++i)
        if (classes_[static_cast<std::size_t>(i)].cols == 1 && fp32_class(classes_[static_cast<std::size_t>(i)].rows) != nullptr)
          columns.push_back(i);
      if (!columns.empty()) return classes_[static_cast<std::size_t>(pick(columns))];
    }
    return of.empty() ? classes_.front() : classes_[static_cast<std::size_t>(pick(of))];
  }
  /// A carriable value of class `k` defined before this point: a recent one, or a new load.
  int outer_of(const shape_class& k, int other = -1) {
    const std::vector<int> c = recent([&](int v, const gen_value& x) { return v != other && carriable(x) && same_class(x, k); });
    if (!c.empty() && uniform() < 0.8) return pick(c);
    return load_of(k);
  }
  /// A value of class `k` computed here (an elementwise op on class values), else a new load.
  int fresh_of(const shape_class& k) {
    if (k.dt != dtype::bf16) {
      std::vector<opcode> table_ops;
      for (const auto& row : elementwise_table)
        if (elementwise_allows(row.op, k.dt) && (row.default_tier || opt_.extended)) table_ops.push_back(row.op);
      for (int attempt = 0; attempt < 6 && !table_ops.empty(); ++attempt) {
        const opcode op = table_ops[below(table_ops.size())];
        const literal s = scalar_for(op);
        int r = -1;
        if (info(op).ew == ew_kind::fill) {
          full_rows_ = k.rows;
          full_cols_ = k.cols;
          r = emit(op, {}, s);
        } else {
          std::vector<int> in{pick_recent(k)};
          if (in[0] < 0 || !full_valid(val(in[0]))) continue;
          if (info(op).ew == ew_kind::binary) in.push_back(pick_recent(k, &val(in[0]).valid));
          r = emit(op, in, s);
        }
        if (r >= 0) return r;
      }
    }
    return load_of(k);
  }
  /// `x` updated by one elementwise op (FP32: any unary or scalar form, else add/mul with a class
  /// value), or `x` itself when no op keeps the bounds.
  int update_of(int x) {
    const gen_value v = val(x);
    const shape_class k{v.dt, v.rows, v.cols, 0};
    if (v.dt == dtype::fp32) {
      for (int attempt = 0; attempt < 4; ++attempt) {
        const opcode op = update_menu[below(update_menu.size())];
        std::vector<int> in{x};
        if (info(op).ew == ew_kind::binary) in.push_back(pick_recent(k));
        if (in.back() < 0) continue;
        const std::optional<literal> fixed_scalar = rule_of(op).update_scalar;
        const int r = emit(op, in, fixed_scalar ? *fixed_scalar : scalar_for(op));
        if (r >= 0) return r;
      }
      return x;
    }
    if (!adds(v.dt)) return x;
    const int other = pick_recent(k);
    const int r = other < 0 ? -1 : emit(uniform() < 0.7 ? opcode::tile_add : opcode::tile_mul, {x, other}, literal{0, 0});
    return r >= 0 ? r : x;
  }
  /// A region parameter of a role (`flag`, `count`, `limit`, `step`): an earlier one, or a new one.
  int control_param(const std::string& role, std::int64_t lo, std::int64_t hi) {
    std::vector<int> same;
    for (int s = 0; s < static_cast<int>(plan_.scalars.size()); ++s)
      if (scalar(s).control && scalar(s).name.rfind(role, 0) == 0) same.push_back(s);
    if (!same.empty() && (static_cast<int>(same.size()) >= max_control_params || uniform() < 0.35)) return pick(same);
    const int p = new_scalar(role + std::to_string(same.size()), true, lo, hi, 1);
    plan_.scalars[static_cast<std::size_t>(p)].control = true;
    plan_.scalars[static_cast<std::size_t>(p)].flag = role == "flag";
    return p;
  }
  /// An INDEX scalar defined by a region (argument or result) over [lo, hi]. Multiple 1: no
  /// alignment proof sees through a region, so column offsets never use it.
  int region_scalar(std::int64_t lo, std::int64_t hi) {
    return new_scalar("k" + std::to_string(plan_.scalars.size()), false, lo, hi, 1);
  }
  /// The output a value of class (d, cols) is stored to (the last such one, or a new one).
  /// An output for values `cols` wide (a column vector's: 32 bytes, see `store`).
  int output_for(dtype d, std::int64_t cols) {
    // A column vector is stored into a contiguous GM column, a one-column output (a2a3 writes a
    // DN tile as one run; docs/pto-as.md "Column vectors and GM"). In region kernels a GM carry is
    // an access the ABI's column-only rule does not follow, so there it lands in one column of a
    // 32-byte-wide output, which must stay Tile.
    if (cols == 1 && opt_.regions) {
      cols = unit(d);
      if (plan_.tile_reason.empty()) plan_.tile_reason = "a column-vector store needs a contiguous GM column";
    }
    int out = -1;
    for (int o = 0; o < static_cast<int>(plan_.outputs.size()); ++o)
      if (plan_.outputs[static_cast<std::size_t>(o)].dt == d && plan_.outputs[static_cast<std::size_t>(o)].cols == cols) out = o;
    if (out >= 0) return out;
    plan_.outputs.push_back(gen_tensor{d, 0, cols});
    return static_cast<int>(plan_.outputs.size()) - 1;
  }
  /// Stores `v` at row `base + off` of an output, reserving the rows every binding may reach.
  void store_at(int v, const gen_index& off) {
    const gen_value x = val(v);
    const int out = output_for(x.dt, x.cols);
    const std::int64_t base = plan_.outputs[static_cast<std::size_t>(out)].rows;
    gen_step s;
    s.op = opcode::tile_store;
    s.in = {v};
    s.tensor = out;
    s.row = base;
    s.args = {base == 0 ? off : ssa(scalar_step(opcode::scalar_add, off, fixed(base)))};
    plan_.outputs[static_cast<std::size_t>(out)].rows += x.rows + high(off);
    plan_.steps.push_back(s);
    val(v).stored = true;
    ++emitted_;
  }
  /// Outputs stored inside steps [from, to) (at any depth).
  std::vector<int> outputs_stored(std::size_t from, std::size_t to) const {
    std::vector<int> out;
    for (std::size_t i = from; i < to; ++i) {
      const gen_step& s = plan_.steps[i];
      if (s.op == opcode::tile_store && std::find(out.begin(), out.end(), s.tensor) == out.end()) out.push_back(s.tensor);
    }
    return out;
  }
  static gen_ref tile_ref(int v) { return gen_ref{gen_ref_kind::tile, v, {}}; }
  static gen_ref scalar_ref(const gen_index& x) { return gen_ref{gen_ref_kind::scalar, -1, x}; }
  static gen_ref tensor_ref(int id) { return gen_ref{gen_ref_kind::tensor, id, {}}; }
  void push_mark(opcode op, gen_mark m) {
    gen_step s;
    s.op = op;
    s.mark = m;
    plan_.steps.push_back(s);
  }
  void push_yield(std::vector<gen_ref> refs) {
    gen_step s;
    s.op = opcode::cf_yield;
    s.refs = std::move(refs);
    plan_.steps.push_back(s);
  }

  /// A few ordinary steps inside a region: computations, loads, slices of values defined outside
  /// (static offsets, or a row offset from a scalar in scope), and nested regions.
  void body_steps(int n, int depth) {
    for (int i = 0; i < n; ++i) {
      const double r = uniform();
      if (depth < opt_.region_depth && r < 0.25) {
        region(depth);
      } else if (opt_.windows && r < 0.45) {
        if (!body_slice()) load_of(pick_class());
      } else if (r < 0.6 || !compute()) {
        load_of(pick_class());
      }
    }
  }
  bool body_slice() {
    const std::vector<int> from = recent([&](int v, const gen_value& x) {
      return v < region_floor_ && !x.carried && x.kind != gen_kind::relabel && !x.unaligned && windowable(x) &&
             (x.rows > 1 || x.cols > unit(x.dt));
    });
    if (from.empty()) return false;
    const int src = pick(from);
    const int w = slice_of(src, false, 0.0);
    const std::int64_t slack = val(src).rows - val(w).rows;
    const std::vector<int> rows = scalars_within(slack);
    if (!rows.empty() && uniform() < 0.5) plan_.steps.back().offsets[0] = ssa(pick(rows));
    return true;
  }

  /// One branch or loop (a pending Tile-only construct first, at the top level).
  bool region(int depth) {
    bool ok = false;
    if (depth == 0 && pending_region_tile_ != 0) {
      ok = pending_region_tile_ == 2 ? gm_branch() : loop(0, false, pending_region_tile_);
      if (ok) pending_region_tile_ = 0;
    } else {
      const double r = uniform();
      ok = r < 0.4 ? branch(depth) : loop(depth, r >= 0.75);
    }
    region_done_ = region_done_ || (ok && depth == 0);
    return ok;
  }

  /// An `if` on a flag whose results mix Tile values (fresh in an arm, defined before the branch,
  /// the same value in both arms, a swapped pair) and an INDEX scalar; outputs stored inside its
  /// arms become GM results yielding the same parameter in both arms.
  bool branch(int depth) {
    const int flag = control_param("flag", 0, 1);
    enum class arm : std::uint8_t { fresh, outer };
    struct result_plan {
      shape_class k;
      std::array<arm, 2> how;
      std::array<int, 2> value;  ///< outer values per arm
    };
    std::vector<result_plan> tiles;
    const int n = 1 + static_cast<int>(below(2));
    for (int i = 0; i < n; ++i) {
      const double r = uniform();
      const shape_class k = region_class(false, true);
      if (r < 0.25 && k.dt != dtype::bf16) {  // fresh in one arm, defined before in the other
        const int a = outer_of(k);
        const bool then_fresh = uniform() < 0.6;
        tiles.push_back({k, {then_fresh ? arm::fresh : arm::outer, then_fresh ? arm::outer : arm::fresh}, {a, a}});
      } else if (r < 0.4) {  // the same outer value in both arms
        const int a = outer_of(k);
        tiles.push_back({k, {arm::outer, arm::outer}, {a, a}});
      } else if (r < 0.65) {  // a swapped pair
        const int a = outer_of(k), b = outer_of(k, a);
        tiles.push_back({k, {arm::outer, arm::outer}, {a, b}});
        tiles.push_back({k, {arm::outer, arm::outer}, {b, a}});
        ++i;
      } else if (r < 0.85 && k.dt != dtype::bf16) {
        tiles.push_back({k, {arm::fresh, arm::fresh}, {-1, -1}});
      } else {  // different values defined before the branch
        const int a = outer_of(k), b = outer_of(k, a);
        tiles.push_back({k, {arm::outer, arm::outer}, {a, b}});
      }
    }
    const bool with_scalar = uniform() < 0.5;
    std::array<gen_index, 2> offsets{};
    if (with_scalar)
      for (gen_index& o : offsets) {
        const std::vector<int> known = scalars_within(4 * opt_.rows);
        o = !known.empty() && uniform() < 0.3 ? ssa(pick(known)) : fixed(opt_.rows * static_cast<std::int64_t>(below(3)));
      }
    // A GM result over an input, the same parameter in both arms.
    const int gm_input = !plan_.inputs.empty() && uniform() < 0.15 ? static_cast<int>(below(plan_.inputs.size())) : -1;

    gen_step h;
    h.op = opcode::cf_if;
    h.mark = gen_mark::open;
    h.args = {ssa(flag)};
    const std::size_t hdr = plan_.steps.size();
    plan_.steps.push_back(h);
    ++emitted_;
    std::array<std::size_t, 2> yields{};
    std::array<std::vector<double>, 2> lo, hi;
    for (int side = 0; side < 2; ++side) {
      if (side == 1) push_mark(opcode::cf_if, gen_mark::next);
      const scope_mark m = open_scope();
      body_steps(static_cast<int>(below(3)), depth + 1);
      std::vector<gen_ref> refs;
      for (const result_plan& t : tiles) {
        const int v = t.how[static_cast<std::size_t>(side)] == arm::fresh ? fresh_of(t.k)
                                                                          : t.value[static_cast<std::size_t>(side)];
        refs.push_back(tile_ref(v));
        lo[static_cast<std::size_t>(side)].push_back(val(v).lo);
        hi[static_cast<std::size_t>(side)].push_back(val(v).hi);
      }
      if (with_scalar) refs.push_back(scalar_ref(offsets[static_cast<std::size_t>(side)]));
      if (gm_input >= 0) refs.push_back(tensor_ref(-1 - gm_input));
      yields[static_cast<std::size_t>(side)] = plan_.steps.size();
      push_yield(std::move(refs));
      close_scope(m);
    }
    for (const int o : outputs_stored(hdr, plan_.steps.size())) {
      plan_.steps[yields[0]].refs.push_back(tensor_ref(o));
      plan_.steps[yields[1]].refs.push_back(tensor_ref(o));
      plan_.steps[hdr].carries.push_back(gen_carry{tensor_ref(o), -1, -1});
    }
    push_mark(opcode::cf_if, gen_mark::close);
    std::vector<gen_carry> results;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      const shape_class& k = tiles[i].k;
      const int r = new_value(k.dt, k.rows, k.cols, std::min(lo[0][i], lo[1][i]), std::max(hi[0][i], hi[1][i]));
      val(r).made_by = opcode::cf_if;
      results.push_back(gen_carry{{}, -1, r});
    }
    int offset = -1;
    if (with_scalar) {
      offset = region_scalar(std::min(low(offsets[0]), low(offsets[1])), std::max(high(offsets[0]), high(offsets[1])));
      results.push_back(gen_carry{scalar_ref({}), -1, offset});
    }
    if (gm_input >= 0) results.push_back(gen_carry{tensor_ref(-1 - gm_input), -1, -1});
    auto& carries = plan_.steps[hdr].carries;
    carries.insert(carries.begin(), results.begin(), results.end());
    // The scalar result as a store's row offset (as in the spec's branch example).
    if (offset >= 0 && uniform() < 0.6) store_at(results.front().result, ssa(offset));
    return true;
  }

  /// The Tile-only branch: its arms yield two different input parameters, then a load reads the
  /// result.
  bool gm_branch() {
    const shape_class k = region_class(false);
    const int a = static_cast<int>(plan_.inputs.size());
    plan_.inputs.push_back(gen_tensor{k.dt, k.rows, k.cols});
    plan_.inputs.push_back(gen_tensor{k.dt, k.rows, k.cols});
    gen_step h;
    h.op = opcode::cf_if;
    h.mark = gen_mark::open;
    h.args = {ssa(control_param("flag", 0, 1))};
    h.carries = {gen_carry{tensor_ref(-1 - a), -1, -1}};
    plan_.steps.push_back(h);
    ++emitted_;
    push_yield({tensor_ref(-1 - a)});
    push_mark(opcode::cf_if, gen_mark::next);
    push_yield({tensor_ref(-2 - a)});
    push_mark(opcode::cf_if, gen_mark::close);
    load_through(a, k);
    return true;
  }
  /// A load of input `t` (through its current version, e.g. a region result).
  void load_through(int t, const shape_class& k) {
    gen_step s;
    s.op = opcode::tile_load;
    s.tensor = t;
    const double bound = is_float(k.dt) ? 2.0 : 16.0;
    s.result = new_value(k.dt, k.rows, k.cols, -bound, bound);
    plan_.steps.push_back(s);
    ++emitted_;
  }

  /// A for or while loop with carries: Tile swaps, rotations, fan-outs, accumulators and updates,
  /// INDEX offsets, and GM outputs stored at a carried row offset. `special`: 1 a runtime step
  /// (Tile-only), 3 a GM carry whose backedge names another parameter (Tile-only), 4 a runtime-
  /// valid load stored in the body (Tile-only); `safe`: one
  /// swap of two loads and no other body steps, which cannot fail. False (and the planner
  /// unchanged, but for random draws) when the body's values would leave their bounds over the
  /// loop's iterations.
  bool loop(int depth, bool is_while, int special = 0, bool safe = false) {
    planner saved = *this;
    const auto rollback = [&] {
      const auto now = rng_;
      *this = std::move(saved);
      rng_ = now;
    };
    gen_step h;
    h.op = is_while ? opcode::cf_while : opcode::cf_for;
    h.mark = gen_mark::open;
    std::int64_t trips = 0;
    if (is_while) {
      const gen_index limit = uniform() < 0.6 ? ssa(control_param("limit", 0, 3)) : fixed(between(1, 3));
      h.args = {limit};
      trips = high(limit);
    } else if (special == 1) {
      const gen_index stop = uniform() < 0.5 ? ssa(control_param("count", 0, 3)) : fixed(3);
      h.args = {fixed(0), stop, ssa(control_param("step", 1, 2))};
      trips = high(stop);
    } else if (special == 0 && uniform() < 0.5) {
      const std::int64_t step = uniform() < 0.7 ? 1 : 2, start = uniform() < 0.7 ? 0 : 1;
      trips = uniform() < 0.1 ? 0 : between(1, 3);
      const std::int64_t stop = trips == 0 ? start : start + step * (trips - 1) + between(1, step);
      h.args = {fixed(start), fixed(stop), fixed(step)};
    } else if (safe && special == 0) {
      trips = between(1, 3);
      h.args = {fixed(0), fixed(trips), fixed(1)};
    } else {
      const std::int64_t step = uniform() < 0.8 ? 1 : 2;
      h.args = {fixed(0), ssa(control_param("count", 0, 3)), fixed(step)};
      trips = (3 + step - 1) / step;
    }
    h.trips = trips;
    const std::int64_t runs = std::max<std::int64_t>(trips, 1);  // rows reserved per carried store

    // The carries' jobs, and their initializers (defined before the loop).
    enum class job_kind : std::uint8_t { counter, accumulate, update, swap, rotate, fanout, offset, gm, alias };
    struct job {
      job_kind kind;
      std::size_t first;  ///< its first carry
      shape_class k;
      std::int64_t inc = 1;
    };
    std::vector<job> jobs;
    std::vector<gen_carry>& carries = h.carries;
    const auto tile_carry = [&](int init) { carries.push_back(gen_carry{tile_ref(init), -1, -1}); };
    if (is_while) {
      jobs.push_back({job_kind::counter, carries.size(), classes_.front(), 1});
      carries.push_back(gen_carry{scalar_ref(fixed(0)), -1, -1});
    }
    if (special == 3) {
      const shape_class k = region_class(false);
      const int a = static_cast<int>(plan_.inputs.size());
      plan_.inputs.push_back(gen_tensor{k.dt, k.rows, k.cols});
      plan_.inputs.push_back(gen_tensor{k.dt, k.rows, k.cols});
      jobs.push_back({job_kind::alias, carries.size(), k, 0});
      carries.push_back(gen_carry{tensor_ref(-1 - a), -1, -1});
    } else if (safe) {
      const shape_class k = region_class(false);
      jobs.push_back({job_kind::swap, carries.size(), k, 0});
      const int a = load_of(k);
      tile_carry(a);
      tile_carry(load_of(k));
    } else {
      const int n = 1 + static_cast<int>(below(2));
      for (int i = 0; i < n; ++i) {
        const double r = uniform();
        job j{job_kind::update, carries.size(), region_class(false, true), 1};
        if (r < 0.2) {
          j.kind = job_kind::accumulate;
          j.k = region_class(true);
          tile_carry(outer_of(j.k));
        } else if (r < 0.35) {
          tile_carry(outer_of(j.k));
        } else if (r < 0.5) {
          j.kind = job_kind::swap;
          const int a = outer_of(j.k);
          tile_carry(a);
          tile_carry(outer_of(j.k, a));
        } else if (r < 0.6) {
          j.kind = job_kind::rotate;
          const int a = outer_of(j.k), b = outer_of(j.k, a);
          tile_carry(a);
          tile_carry(b);
          tile_carry(outer_of(j.k, b));
        } else if (r < 0.72) {
          j.kind = job_kind::fanout;
          const int a = outer_of(j.k);
          tile_carry(a);
          tile_carry(a);
        } else if (r < 0.82) {
          j.kind = job_kind::offset;
          const std::vector<int> known = scalars_within(2 * opt_.rows);
          const gen_index init = !known.empty() && uniform() < 0.4 ? ssa(pick(known)) : fixed(between(0, 2));
          j.inc = uniform() < 0.5 ? 1 : opt_.rows;
          carries.push_back(gen_carry{scalar_ref(init), -1, -1});
        } else {
          j.kind = job_kind::gm;
          const int out = output_for(j.k.dt, j.k.cols);
          const std::int64_t base = plan_.outputs[static_cast<std::size_t>(out)].rows;
          plan_.outputs[static_cast<std::size_t>(out)].rows += runs * j.k.rows;
          j.inc = j.k.rows;
          carries.push_back(gen_carry{tensor_ref(out), -1, -1});
          carries.push_back(gen_carry{scalar_ref(fixed(base)), -1, -1});
        }
        jobs.push_back(j);
      }
    }
    const std::size_t hdr = plan_.steps.size();
    plan_.steps.push_back(h);
    ++emitted_;

    // Region arguments, then the body and the backedge.
    const scope_mark m = open_scope();
    std::vector<std::int64_t> incs(carries.size(), 0);
    for (const job& j : jobs)
      if (j.kind == job_kind::counter || j.kind == job_kind::offset || j.kind == job_kind::gm)
        incs[j.kind == job_kind::gm ? j.first + 1 : j.first] = j.inc;
    for (std::size_t c = 0; c < plan_.steps[hdr].carries.size(); ++c) {
      gen_carry& g = plan_.steps[hdr].carries[c];
      if (g.init.kind == gen_ref_kind::tile) {
        const gen_value x = val(g.init.id);
        g.arg = new_value(x.dt, x.rows, x.cols, x.lo, x.hi);
        val(g.arg).carried = true;
        val(g.arg).made_by = h.op;
      } else if (g.init.kind == gen_ref_kind::scalar) {
        const gen_index& i = g.init.index;
        g.arg = region_scalar(low(i), high(i) + incs[c] * std::max<std::int64_t>(trips - 1, 0));
      }
    }
    if (special != 3 && !safe) body_steps(static_cast<int>(below(3)), depth + 1);
    if (special == 4) {  // a load whose valid rows are a runtime parameter (or empty), stored in the body
      const shape_class k = region_class(false);
      const gen_index rows = extent_params_ < max_extent_params ? ssa(new_extent_param(0, k.rows)) : fixed(0);
      const int loaded = load_of(k, false, std::array<gen_index, 2>{rows, fixed(k.cols)});
      store(loaded);
      // Why hidden: the carries' updates below pick recent tiles of their class whatever their
      // valid extents; this one is only stored (the extended rollout lowers it, so a mismatched
      // operand would make the kernel stay Tile for another reason).
      val(loaded).hidden = true;
    }
    const std::vector<gen_carry> cs = plan_.steps[hdr].carries;  // a copy: steps may grow
    std::vector<gen_ref> refs(cs.size());
    for (const job& j : jobs) {
      const std::size_t f = j.first;
      const int a = cs[f].arg;
      switch (j.kind) {
        case job_kind::counter:
        case job_kind::offset: refs[f] = scalar_ref(ssa(scalar_step(opcode::scalar_add, ssa(a), fixed(j.inc)))); break;
        case job_kind::accumulate: {
          const int x = pick_recent(j.k);
          const int r = x < 0 ? -1 : emit(opcode::tile_add, {a, x}, literal{0, 0});
          refs[f] = tile_ref(r >= 0 ? r : a);
          break;
        }
        case job_kind::update: refs[f] = tile_ref(update_of(a)); break;
        case job_kind::swap:
          refs[f] = tile_ref(uniform() < 0.3 ? update_of(cs[f + 1].arg) : cs[f + 1].arg);
          refs[f + 1] = tile_ref(a);
          break;
        case job_kind::rotate:
          refs[f] = tile_ref(cs[f + 1].arg);
          refs[f + 1] = tile_ref(cs[f + 2].arg);
          refs[f + 2] = tile_ref(a);
          break;
        case job_kind::fanout: {
          const int y = update_of(a);
          refs[f] = tile_ref(y);
          refs[f + 1] = tile_ref(uniform() < 0.5 ? y : cs[f + 1].arg);
          break;
        }
        case job_kind::gm: {
          // Store a class value (a carried one, one defined before, or a new one) at the carried row.
          std::vector<int> of = recent([&](int, const gen_value& x) { return same_class(x, j.k) && full_valid(x) && !x.stale; });
          const int x = !of.empty() && uniform() < 0.8 ? pick(of) : load_of(j.k);
          gen_step s;
          s.op = opcode::tile_store;
          s.in = {x};
          s.tensor = cs[f].init.id;
          s.args = {ssa(cs[f + 1].arg)};
          plan_.steps.push_back(s);
          val(x).stored = true;
          ++emitted_;
          refs[f] = cs[f].init;
          refs[f + 1] = scalar_ref(ssa(scalar_step(opcode::scalar_add, ssa(cs[f + 1].arg), fixed(j.inc))));
          break;
        }
        case job_kind::alias: refs[f] = tensor_ref(cs[f].init.id - 1); break;
      }
    }
    // Outputs stored by nested loops are carried here too (the same parameter, unchanged alias).
    for (const int o : outputs_stored(hdr + 1, plan_.steps.size())) {
      bool carried = false;
      for (const gen_carry& g : cs) carried = carried || (g.init.kind == gen_ref_kind::tensor && g.init.id == o);
      if (carried) continue;
      plan_.steps[hdr].carries.push_back(gen_carry{tensor_ref(o), -1, -1});
      refs.push_back(tensor_ref(o));
    }
    push_yield(std::move(refs));
    close_scope(m);
    push_mark(h.op, gen_mark::close);
    const std::size_t end = plan_.steps.size() - 1;
    std::vector<int> inits;
    for (std::size_t c = 0; c < plan_.steps[hdr].carries.size(); ++c) {
      gen_carry& g = plan_.steps[hdr].carries[c];
      if (g.init.kind == gen_ref_kind::tile) {
        const gen_value x = val(g.init.id);
        g.result = new_value(x.dt, x.rows, x.cols, x.lo, x.hi);
        val(g.result).made_by = h.op;
        inits.push_back(static_cast<int>(c));
      } else if (g.init.kind == gen_ref_kind::scalar) {
        const gen_index& i = g.init.index;
        g.result = region_scalar(low(i), high(i) + incs[c] * trips);
      }
    }
    if (!rederive_region(hdr, end)) {
      rollback();
      return false;
    }
    if (special == 3) load_through(-1 - cs[0].init.id, jobs.back().k);
    // An initializer read again after the loop: it must have kept its value.
    if (!inits.empty() && uniform() < 0.4) {
      const gen_carry g = plan_.steps[hdr].carries[static_cast<std::size_t>(inits[below(inits.size())])];
      if (adds(val(g.init.id).dt) && emit(opcode::tile_add, {g.init.id, g.result}, literal{0, 0}) >= 0) return true;
      if (!val(g.init.id).hidden) store(g.init.id);
    }
    return true;
  }

  //===--- cube ---===//
  /// One chain's operands: dtype `d`, product [m, k] x [k, n]; `bt`: the rhs comes from B^T.
  struct cube_shape {
    dtype d;
    std::int64_t m, n, k;
    bool bt;
  };
  static dtype accumulator(dtype d) { return is_float(d) ? dtype::fp32 : dtype::int32; }

  gen_plan cube_kernel() {
    plan_.cube = true;
    if (uniform() < opt_.cube_tile_probability) {
      static constexpr const char* keys[] = {"atomic", "pre_relu", "pre_quant", runtime_matrix_valid};
      plan_.tile_reason = keys[below(std::size(keys))];
    }
    const int chains = 1 + static_cast<int>(below(static_cast<std::size_t>(std::clamp(ops_ / 8, 1, 3))));
    for (int i = 0; i < chains; ++i) cube_chain(i == 0 && plan_.tile_reason == runtime_matrix_valid);
    for (const int v : deferred_) cube_store(v);
    return plan_;
  }
  /// Shapes are whole boxes of every space the operands pass through: M, N multiples of 16 and K
  /// of 32 (an INT8 box is [16, 32], an FP32 one [16, 8]); an INT8 rhs loaded as Mat [K, N] (NZ,
  /// box [16, 32]) needs N a multiple of 32, B^T as Mat [N, K] does not. At most 64 so that the
  /// operands and accumulators of a chain fit L0 (Left/Right 64 KiB, Acc 128 KiB) together.
  /// The Tile-only reason of a matrix tile with a runtime valid extent (Mat has no runtime metadata).
  static constexpr const char* runtime_matrix_valid = "static positive valid extents";
  void cube_chain(bool runtime_valid) {
    static constexpr dtype dts[] = {dtype::fp16, dtype::bf16, dtype::fp32, dtype::int8};
    cube_shape c{dts[below(std::size(dts))], 16 * between(1, 4), 16 * between(1, 4), 32 * between(1, 2), false};
    c.bt = uniform() < opt_.cube_transpose_probability;
    if (c.d == dtype::int8 && !c.bt && c.n % 32 != 0) c.n += 16;
    const double r = uniform();
    int acc = -1;
    if (runtime_valid) {
      acc = cube_partial(c, true);
    } else if (r < opt_.cube_loop_probability) {
      acc = cube_loop(c);
    } else if (r < opt_.cube_loop_probability + opt_.cube_wide_probability) {
      acc = cube_wide(c);
    } else if (r < opt_.cube_loop_probability + opt_.cube_wide_probability + opt_.cube_partial_probability) {
      acc = cube_partial(c);
    } else {
      int more = 0;
      while (more < 2 && uniform() < opt_.cube_acc_probability) ++more;
      if (more > 0 && uniform() < 0.5) {
        // Every operand pair in L0 before the first product: several Left/Right tiles live at once.
        std::vector<std::pair<int, int>> pairs{operands(c)};
        for (int i = 0; i < more; ++i) pairs.push_back(next_operands(c));
        acc = cube_op(opcode::tile_matmul, {pairs[0].first, pairs[0].second}, accumulator(c.d), c.m, c.n, memory_space::acc);
        for (int i = 1; i <= more; ++i)
          acc = guard() ? guarded_accumulate(acc, c, pairs[static_cast<std::size_t>(i)])
                        : accumulate(acc, c, pairs[static_cast<std::size_t>(i)]);
      } else {
        acc = matmul_of(c);
        for (int i = 0; i < more; ++i) acc = guard() ? guarded_accumulate(acc, c) : accumulate(acc, c, next_operands(c));
      }
    }
    // Half the results are stored at the end of the kernel: accumulators of several chains live at once.
    if (uniform() < 0.5) cube_store(acc);
    else deferred_.push_back(acc);
  }
  /// `c` with its rhs loaded as Mat [K, N] (an INT8 N then whole [16, 32] NZ boxes).
  static cube_shape without_bt(cube_shape c) {
    c.bt = false;
    if (c.d == dtype::int8 && c.n % 32 != 0) c.n += 16;
    return c;
  }
  /// An input tensor [rows, cols] of `d`: often one an earlier load read.
  int cube_input(dtype d, std::int64_t rows, std::int64_t cols) {
    std::vector<int> same;
    for (int t = 0; t < static_cast<int>(plan_.inputs.size()); ++t) {
      const gen_tensor& in = plan_.inputs[static_cast<std::size_t>(t)];
      if (in.dt == d && in.rows == rows && in.cols == cols) same.push_back(t);
    }
    if (!same.empty() && uniform() < 0.5) return pick(same);
    plan_.inputs.push_back(gen_tensor{d, rows, cols});
    return static_cast<int>(plan_.inputs.size()) - 1;
  }
  /// A Mat load of [rows, cols] at (r0, c0) of input `t`, valid in `vcols` columns and `vrows`
  /// rows where those are >= 0 (else fully).
  int cube_load(int t, std::int64_t rows, std::int64_t cols, gen_index r0, gen_index c0, std::int64_t vcols = -1,
                std::int64_t vrows = -1) {
    gen_step s;
    s.op = opcode::tile_load;
    s.tensor = t;
    s.offsets = {r0, c0};
    s.result = new_value(plan_.inputs[static_cast<std::size_t>(t)].dt, rows, cols, 0, 0);
    val(s.result).space = memory_space::mat;
    if (vcols >= 0) val(s.result).valid[1] = fixed(vcols);
    if (vrows >= 0) val(s.result).valid[0] = fixed(vrows);
    plan_.steps.push_back(s);
    ++emitted_;
    return s.result;
  }
  int cube_op(opcode op, std::vector<int> in, dtype d, std::int64_t rows, std::int64_t cols, memory_space sp) {
    for (int v : in) val(v).used = true;
    gen_step st;
    st.op = op;
    st.in = std::move(in);
    st.result = new_value(d, rows, cols, 0, 0);
    val(st.result).space = sp;
    val(st.result).made_by = op;
    plan_.steps.push_back(st);
    ++emitted_;
    return st.result;
  }
  int compare_step(gen_index a, gen_index b) {
    gen_step st;
    st.op = opcode::scalar_eq;
    st.args = {a, b};
    st.result = new_scalar("first" + std::to_string(plan_.scalars.size()), false, 0, 1, 1);
    plan_.scalars[static_cast<std::size_t>(st.result)].flag = true;
    plan_.steps.push_back(st);
    ++emitted_;
    return st.result;
  }
  /// An operand on its way to L0: its Mat source (already loaded) and how it gets there.
  struct staged {
    int src;
    memory_space to;
    bool extract = false;
    std::array<gen_index, 2> off{};
  };
  /// The Left operand [m, k]'s source: a Mat load of [m, k] to move, or a larger Mat tile to
  /// extract from at offsets on the Left box grid (16 rows, one box width of columns).
  staged lhs_stage(const cube_shape& c) {
    if (uniform() >= opt_.cube_extract_probability)
      return {cube_load(cube_input(c.d, c.m, c.k), c.m, c.k, fixed(0), fixed(0)), memory_space::left};
    const std::int64_t er = 16 * between(0, 2);
    const std::int64_t ec = er == 0 ? 32 : 32 * between(0, 1);
    const int src = cube_load(cube_input(c.d, c.m + er, c.k + ec), c.m + er, c.k + ec, fixed(0), fixed(0));
    return {src, memory_space::left, true, {fixed(16 * between(0, er / 16)), fixed(unit(c.d) * between(0, ec / unit(c.d)))}};
  }
  /// The Right operand [k, n]'s source from input `t` at K offset `off`: B [K, N] loaded as Mat,
  /// or B^T [N, K] loaded as Mat and relabelled by tile.transpose_view (Mat ZN [K, N]).
  staged rhs_stage_from(const cube_shape& c, int t, gen_index off) {
    if (!c.bt) return {cube_load(t, c.k, c.n, off, fixed(0)), memory_space::right};
    const int b = cube_op(opcode::tile_transpose_view, {cube_load(t, c.n, c.k, fixed(0), off)}, c.d, c.k, c.n, memory_space::mat);
    val(b).zn = true;
    return {b, memory_space::right};
  }
  /// The Right operand's source: rhs_stage_from, or a larger Mat tile to extract from at offsets
  /// on both box grids (Mat NZ [16, p], Right ZN [p, 16]: multiples of max(16, p) on both axes).
  staged rhs_stage(const cube_shape& c) {
    if (c.bt || uniform() >= opt_.cube_extract_probability)
      return rhs_stage_from(c, c.bt ? cube_input(c.d, c.n, c.k) : cube_input(c.d, c.k, c.n), fixed(0));
    const std::int64_t a = std::max<std::int64_t>(16, unit(c.d));
    const std::int64_t er = a * between(0, 2);
    const std::int64_t ec = er == 0 ? a : a * between(0, 2);
    const int src = cube_load(cube_input(c.d, c.k + er, c.n + ec), c.k + er, c.n + ec, fixed(0), fixed(0));
    return {src, memory_space::right, true, {fixed(a * between(0, er / a)), fixed(a * between(0, ec / a))}};
  }
  /// Moves or extracts a staged operand into L0 (a Right operand keeps its source's valid).
  int finish(const staged& s, const cube_shape& c) {
    const bool left = s.to == memory_space::left;
    const std::int64_t rows = left ? c.m : c.k, cols = left ? c.k : c.n;
    // The extended rollout's Mat window (quantized-path.md §2.5): the same box-grid offsets as a
    // tile.slice of the Mat tile moved to L0, half the time.
    if (s.extract && opt_.extended && uniform() < 0.5) {
      gen_step st;
      st.op = opcode::tile_slice;
      st.in = {s.src};
      st.offsets = s.off;
      st.result = new_value(c.d, rows, cols, val(s.src).lo, val(s.src).hi, gen_kind::window, val(s.src).cols);
      val(st.result).space = memory_space::mat;
      val(st.result).made_by = st.op;
      val(s.src).used = val(s.src).viewed = true;
      plan_.steps.push_back(st);
      ++emitted_;
      return finish(staged{st.result, s.to}, c);
    }
    const int v = cube_op(s.extract ? opcode::tile_extract : opcode::tile_move, {s.src}, c.d, rows, cols, s.to);
    if (s.extract) plan_.steps.back().offsets = s.off;
    if (!s.extract) val(v).valid = val(s.src).valid;
    return (left ? last_l_ : last_r_) = v;
  }
  int lhs_of(const cube_shape& c) { return finish(lhs_stage(c), c); }
  int rhs_of(const cube_shape& c) { return finish(rhs_stage(c), c); }
  /// Both operands of a product: each loaded and moved in turn, or both Mat loads first (two Mat
  /// tiles live at once, so a planner that overlaps them is caught).
  std::pair<int, int> operands(const staged& l, const std::function<staged()>& stage_r, const cube_shape& c) {
    if (uniform() < 0.5) {
      const int a = finish(l, c);
      return {a, finish(stage_r(), c)};
    }
    const staged r = stage_r();
    const int a = finish(l, c);
    return {a, finish(r, c)};
  }
  std::pair<int, int> operands(const cube_shape& c) {
    return operands(
        lhs_stage(c), [&] { return rhs_stage(c); }, c);
  }
  /// Operands for a further product: fresh, or reusing the latest Left or Right operand.
  std::pair<int, int> next_operands(const cube_shape& c) {
    const bool keep_l = uniform() < 0.3, keep_r = uniform() < 0.3;
    if (!keep_l && !keep_r) return operands(c);
    const int l = keep_l ? last_l_ : lhs_of(c);
    return {l, keep_r ? last_r_ : rhs_of(c)};
  }
  int matmul_of(const cube_shape& c) {
    const auto [l, r] = operands(c);
    return cube_op(opcode::tile_matmul, {l, r}, accumulator(c.d), c.m, c.n, memory_space::acc);
  }
  /// init_cond of a matmul_acc whose accumulator holds data: none, a literal, or a BOOL parameter.
  std::vector<gen_index> init_choice() {
    const double r = uniform();
    if (r < 0.3) return {};
    if (r < 0.45) return {fixed(1)};
    if (r < 0.7) return {fixed(0)};
    return {ssa(control_param("flag", 0, 1))};
  }
  /// `acc` plus the product of `lr` (the accumulator is never read again).
  int accumulate(int acc, const cube_shape& c, std::pair<int, int> lr) {
    const int y = cube_op(opcode::tile_matmul_acc, {acc, lr.first, lr.second}, accumulator(c.d), c.m, c.n, memory_space::acc);
    plan_.steps.back().args = init_choice();
    return y;
  }
  /// Whether the next update is guarded (no draw when the option is off, so seeds keep their programs).
  bool guard() { return opt_.cube_guard_probability > 0 && uniform() < opt_.cube_guard_probability; }
  /// A guarded accumulation, `x = if flag { y = tile.matmul_acc(acc, ..); yield y } else { yield
  /// acc }` (the update in either arm): lowers only through guarded accumulator coalescing
  /// (reference §4.1). `lr`: operands made before the branch; none: made in the updating arm.
  int guarded_accumulate(int acc, const cube_shape& c, std::optional<std::pair<int, int>> lr = std::nullopt) {
    gen_step h;
    h.op = opcode::cf_if;
    h.mark = gen_mark::open;
    h.args = {ssa(control_param("flag", 0, 1))};
    const std::size_t hdr = plan_.steps.size();
    plan_.steps.push_back(h);
    ++emitted_;
    const bool then_updates = uniform() < 0.5;
    const int keep_l = last_l_, keep_r = last_r_;
    for (int side = 0; side < 2; ++side) {
      if (side == 1) push_mark(opcode::cf_if, gen_mark::next);
      const scope_mark m = open_scope();
      const int y = (side == 0) == then_updates ? accumulate(acc, c, lr ? *lr : next_operands(c)) : acc;
      push_yield({tile_ref(y)});
      close_scope(m);
      // Why: operands made in an arm are out of scope after it; later products reuse older ones.
      last_l_ = keep_l;
      last_r_ = keep_r;
    }
    push_mark(opcode::cf_if, gen_mark::close);
    const int r = new_value(val(acc).dt, val(acc).rows, val(acc).cols, 0, 0);
    val(r).space = memory_space::acc;
    val(r).made_by = opcode::cf_if;
    plan_.steps[hdr].carries = {gen_carry{{}, -1, r}};
    return r;
  }
  /// Whether a K loop's update is written as an if (no draw when the option is off, so seeds keep their programs).
  bool branch_init() { return opt_.cube_branch_init_probability > 0 && uniform() < opt_.cube_branch_init_probability; }
  /// A K loop's update as pypto-lib's gemm.py writes it: `x = if first { y = tile.matmul(l, r);
  /// yield y } else { y = tile.matmul_acc(acc, l, r); yield y }` on operands made before the if
  /// (quantized-path.md §2.7: fold_matmul_if makes it matmul_acc(init_cond = first) under the
  /// extended rollout; the default rollout keeps the kernel Tile with the carry reason).
  int branch_written_init(int acc, const cube_shape& c, std::pair<int, int> lr, gen_index first) {
    gen_step h;
    h.op = opcode::cf_if;
    h.mark = gen_mark::open;
    h.args = {first};
    const std::size_t hdr = plan_.steps.size();
    plan_.steps.push_back(h);
    ++emitted_;
    for (int side = 0; side < 2; ++side) {
      if (side == 1) push_mark(opcode::cf_if, gen_mark::next);
      const scope_mark m = open_scope();
      const int y =
          side == 0 ? cube_op(opcode::tile_matmul, {lr.first, lr.second}, accumulator(c.d), c.m, c.n, memory_space::acc)
                    : cube_op(opcode::tile_matmul_acc, {acc, lr.first, lr.second}, accumulator(c.d), c.m, c.n, memory_space::acc);
      push_yield({tile_ref(y)});
      close_scope(m);
    }
    push_mark(opcode::cf_if, gen_mark::close);
    const int r = new_value(val(acc).dt, val(acc).rows, val(acc).cols, 0, 0);
    val(r).space = memory_space::acc;
    val(r).made_by = opcode::cf_if;
    plan_.steps[hdr].carries = {gen_carry{{}, -1, r}};
    return r;
  }
  /// A wider accumulator: a full [m, n] product, then a product of [m, k] x [k, n] whose rhs is
  /// valid in only its first `vn` columns (whole 16-column Acc box columns, so the rest of the
  /// accumulator is preserved), read from a partially valid Mat load.
  int cube_wide(cube_shape c) {
    c = without_bt(c);
    if (c.n == 16) c.n = 32;
    const std::int64_t vn = 16 * between(1, c.n / 16 - 1);
    const int acc = matmul_of(c);
    const staged b{cube_load(cube_input(c.d, c.k, uniform() < 0.5 ? c.n : vn), c.k, c.n, fixed(0), fixed(0), vn),
                   memory_space::right};
    const int l = uniform() < 0.5 ? last_l_ : lhs_of(c);
    const int r = finish(b, c);
    const int y = cube_op(opcode::tile_matmul_acc, {acc, l, r}, accumulator(c.d), c.m, c.n, memory_space::acc);
    plan_.steps.back().args = init_choice();
    return y;
  }
  /// Where a K loop's operands come from: inputs A (`ta`) and B or B^T (`tb`), each sliced by a
  /// load per slice, or (`amat`, `bmat` >= 0) loaded whole into Mat before the loop and cut by
  /// tile.extract at the slice offset; `shared_l` >= 0: one Left operand for every slice.
  struct loop_sources {
    int ta = -1, tb = -1, amat = -1, bmat = -1, shared_l = -1;
  };
  /// The operands of slice `off` along K.
  std::pair<int, int> slice_operands(const cube_shape& c, const loop_sources& src, gen_index off) {
    const auto stage_r = [&] {
      return src.bmat >= 0 ? staged{src.bmat, memory_space::right, true, {off, fixed(0)}} : rhs_stage_from(c, src.tb, off);
    };
    if (src.shared_l >= 0) return {src.shared_l, finish(stage_r(), c)};
    const staged l = src.amat >= 0 ? staged{src.amat, memory_space::left, true, {fixed(0), off}}
                                   : staged{cube_load(src.ta, c.m, c.k, fixed(0), off), memory_space::left};
    return operands(l, stage_r, c);
  }
  /// A product of partially valid operands: Left valid [vm, vk], Right valid [vk', vn] with vk'
  /// >= vk (any extents, not box-aligned; vn >= 2), into an accumulator valid in [vm, vn].
  int cube_partial(cube_shape c, bool runtime = false) {
    c = without_bt(c);
    // Why vn >= 2 and A at least 2 columns wide: PTO-AS takes GM parameters with cols > 1 only.
    const std::int64_t vm = between(1, c.m), vk = between(1, c.k), vn = between(2, c.n), vkr = between(vk, c.k);
    const int a =
        cube_load(cube_input(c.d, runtime ? c.m : vm, std::max<std::int64_t>(vk, 2)), c.m, c.k, fixed(0), fixed(0), vk, vm);
    // The Tile-only form: Left rows valid in `rows<n>` (in [1, m]), so the product's rows too.
    const gen_index rows = runtime ? ssa(new_param("rows", c.m)) : fixed(vm);
    if (runtime) plan_.scalars[static_cast<std::size_t>(rows.scalar)].lo = 1;
    val(a).valid[0] = rows;
    const int b = cube_load(cube_input(c.d, vkr, vn), c.k, c.n, fixed(0), fixed(0), vn, vkr);
    const int l = finish(staged{a, memory_space::left}, c);
    const int r = finish(staged{b, memory_space::right}, c);
    const int y = cube_op(opcode::tile_matmul, {l, r}, accumulator(c.d), c.m, c.n, memory_space::acc);
    val(y).valid = {rows, fixed(vn)};
    return y;
  }
  /// A K loop over slices of `c.k` columns of A [m, 3k] and rows of B [3k, n] (or B^T [n, 3k]) at
  /// runtime offsets `k * c.k`, accumulating into a carried Acc tile: either from tile.create()
  /// with `init_cond = (k == 0)` (the first iteration overwrites; trip count 1 to 3, constant or
  /// a `count` parameter), or from the product of slice 0 over iterations 1 .. stop (0 to 2 trips)
  /// with no init_cond, `false`, `k == 0` or a BOOL parameter. A and B may stay resident in Mat
  /// (extracts at runtime offsets), or one Left operand may serve every slice (a value defined
  /// before the loop and read in its body).
  int cube_loop(const cube_shape& c) {
    const bool from_create = uniform() < 0.5;
    const std::int64_t start = from_create ? 0 : 1;
    const gen_index stop = uniform() < 0.35 ? ssa(control_param("count", 1, 3)) : fixed(between(1, 3));
    loop_sources src;
    src.ta = cube_input(c.d, c.m, 3 * c.k);
    src.tb = c.bt ? cube_input(c.d, c.n, 3 * c.k) : cube_input(c.d, 3 * c.k, c.n);
    if (uniform() < 0.3) src.amat = cube_load(src.ta, c.m, 3 * c.k, fixed(0), fixed(0));
    if (!c.bt && uniform() < 0.3) src.bmat = cube_load(src.tb, 3 * c.k, c.n, fixed(0), fixed(0));
    const bool share = uniform() < 0.2;
    // A second accumulator carried beside the first: the same Left slices times B2 [3k, n2].
    cube_shape c2 = c;
    c2.n = uniform() < 0.25 ? 16 * between(1, 4) : 0;
    c2 = without_bt(c2);
    const int tb2 = c2.n > 0 ? cube_input(c.d, 3 * c.k, c2.n) : -1;
    const dtype ad = accumulator(c.d);
    int init = -1, init2 = -1;
    if (from_create) {
      init = cube_op(opcode::tile_create, {}, ad, c.m, c.n, memory_space::acc);
      if (c2.n > 0) init2 = cube_op(opcode::tile_create, {}, ad, c.m, c2.n, memory_space::acc);
      if (share)
        src.shared_l = src.amat >= 0 ? finish(staged{src.amat, memory_space::left, true, {fixed(0), fixed(0)}}, c)
                                     : finish(staged{cube_load(src.ta, c.m, c.k, fixed(0), fixed(0)), memory_space::left}, c);
    } else {
      const auto [l, r] = slice_operands(c, src, fixed(0));
      init = cube_op(opcode::tile_matmul, {l, r}, ad, c.m, c.n, memory_space::acc);
      if (c2.n > 0) {
        const int r2 = finish(rhs_stage_from(c2, tb2, fixed(0)), c2);
        init2 = cube_op(opcode::tile_matmul, {l, r2}, ad, c.m, c2.n, memory_space::acc);
      }
      if (share) src.shared_l = l;
    }
    gen_step h;
    h.op = opcode::cf_for;
    h.mark = gen_mark::open;
    h.args = {fixed(start), stop, fixed(1)};
    h.trips = std::max<std::int64_t>(0, high(stop) - start);
    h.carries = {gen_carry{tile_ref(init), -1, -1}};
    if (init2 >= 0) h.carries.push_back(gen_carry{tile_ref(init2), -1, -1});
    const std::size_t hdr = plan_.steps.size();
    plan_.steps.push_back(h);
    ++emitted_;
    const scope_mark m = open_scope();
    const int iv = region_scalar(start, std::max(start, high(stop) - 1));
    plan_.steps[hdr].iv = iv;
    const auto carried = [&](int init_value) {
      const gen_value x = val(init_value);
      const int a = new_value(ad, x.rows, x.cols, 0, 0);
      val(a).space = memory_space::acc;
      val(a).carried = true;
      val(a).made_by = opcode::cf_for;
      return a;
    };
    for (gen_carry& g : plan_.steps[hdr].carries) g.arg = carried(g.init.id);
    const int arg = plan_.steps[hdr].carries[0].arg;
    const int off = scalar_step(opcode::scalar_mul, ssa(iv), fixed(c.k));
    const auto [l, r] = slice_operands(c, src, ssa(off));
    std::vector<gen_index> cond;
    if (from_create || uniform() < 0.25) cond = {ssa(compare_step(ssa(iv), fixed(0)))};
    else cond = init_choice();
    if (!cond.empty() && cond[0] == fixed(1)) cond[0] = fixed(0);  // a loop that always overwrites accumulates nothing
    int y = -1;
    if (from_create && branch_init()) {
      y = branch_written_init(arg, c, {l, r}, cond[0]);
    } else {
      y = cube_op(opcode::tile_matmul_acc, {arg, l, r}, ad, c.m, c.n, memory_space::acc);
      plan_.steps.back().args = cond;
    }
    std::vector<gen_ref> yields{tile_ref(y)};
    if (init2 >= 0) {
      const int r2 = finish(rhs_stage_from(c2, tb2, ssa(off)), c2);
      const int y2 = cube_op(opcode::tile_matmul_acc, {plan_.steps[hdr].carries[1].arg, l, r2}, ad, c.m, c2.n, memory_space::acc);
      plan_.steps.back().args = cond;
      yields.push_back(tile_ref(y2));
    }
    push_yield(std::move(yields));
    close_scope(m);
    push_mark(opcode::cf_for, gen_mark::close);
    for (gen_carry& g : plan_.steps[hdr].carries) {
      g.result = new_value(ad, c.m, val(g.init.id).cols, 0, 0);
      val(g.result).space = memory_space::acc;
      val(g.result).made_by = opcode::cf_for;
    }
    if (init2 >= 0) deferred_.push_back(plan_.steps[hdr].carries[1].result);
    return plan_.steps[hdr].carries[0].result;
  }
  /// Stores an accumulator's valid rectangle through the fix-pipe (FP32 to FP32, FP16 or BF16,
  /// INT32 to INT32) into an output as wide as the rectangle. The first store of a Tile-only
  /// kernel carries its keyword.
  void cube_store(int v) {
    // The extended rollout's Acc tail (quantized-path.md §2.6): sometimes the accumulator is
    // trimmed to runtime valid rows first (a batch tail), and the trimmed tile is stored.
    if (opt_.extended && val(v).space == memory_space::acc && plan_.tile_reason.empty() && extent_params_ < max_extent_params &&
        uniform() < 0.3) {
      const gen_value a = val(v);
      gen_step st;
      st.op = opcode::tile_set_validshape;
      st.in = {v};
      st.args = {ssa(new_extent_param(0, high(a.valid[0]))), a.valid[1]};
      st.result = new_value(a.dt, a.rows, a.cols, a.lo, a.hi);
      val(st.result).valid = {st.args[0], st.args[1]};
      val(st.result).space = memory_space::acc;
      val(st.result).made_by = st.op;
      val(v).used = val(v).stale = true;
      plan_.steps.push_back(st);
      ++emitted_;
      v = st.result;
    }
    const gen_value x = val(v);
    dtype out = x.dt;
    if (x.dt == dtype::fp32) {
      const double r = uniform();
      out = r < 0.5 ? dtype::fp32 : r < 0.75 ? dtype::fp16 : dtype::bf16;
    }
    const int o = output_for(out, high(x.valid[1]));
    gen_step s;
    s.op = opcode::tile_store;
    s.in = {v};
    s.tensor = o;
    s.row = plan_.outputs[static_cast<std::size_t>(o)].rows;
    // A runtime row count may reach the tile's physical rows as far as the verifier knows.
    plan_.outputs[static_cast<std::size_t>(o)].rows += opt_.extended && x.valid[0].scalar >= 0 ? x.rows : high(x.valid[0]);
    const std::string& why = plan_.tile_reason;
    if (!why.empty() && !cube_tile_done_) {
      cube_tile_done_ = true;
      if (why == "atomic") s.flags.push_back(kwarg{keyword::atomic, operand::integer(1)});
      if (why == "pre_relu") s.flags.push_back(kwarg{keyword::pre_relu, operand::boolean(true)});
      if (why == "pre_quant") s.flags.push_back(kwarg{keyword::pre_quant, operand::integer(1)});
    }
    plan_.steps.push_back(s);
    val(v).stored = true;
    ++emitted_;
  }

  //===--- interval re-derivation over regions ---===//
  std::size_t close_of(std::size_t open) const {
    int depth = 0;
    for (std::size_t i = open; i < plan_.steps.size(); ++i) {
      if (plan_.steps[i].mark == gen_mark::open) ++depth;
      if (plan_.steps[i].mark == gen_mark::close && --depth == 0) return i;
    }
    return plan_.steps.size();
  }
  std::size_t next_of(std::size_t open) const {
    int depth = 0;
    for (std::size_t i = open; i < plan_.steps.size(); ++i) {
      const gen_mark m = plan_.steps[i].mark;
      if (m == gen_mark::open) ++depth;
      if (m == gen_mark::close) --depth;
      if (m == gen_mark::next && depth == 1) return i;
    }
    return plan_.steps.size();
  }
  /// Re-derives the intervals of the values steps [from, to) define from their operands' current
  /// intervals; false when a precondition fails or a bound is exceeded.
  bool rederive(std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
      const gen_step& s = plan_.steps[i];
      if (s.mark == gen_mark::open) {
        const std::size_t end = close_of(i);
        if (!rederive_region(i, end)) return false;
        i = end;
        continue;
      }
      if (s.result < 0 || s.mark != gen_mark::none || defines_scalar(s.op) || s.op == opcode::tile_load) continue;
      gen_value& r = val(s.result);
      const gen_value& a = val(s.in.empty() ? s.result : s.in[0]);
      switch (s.op) {
        case opcode::tile_slice:
        case opcode::tile_reshape:
        case opcode::tile_set_validshape:
          r.lo = a.lo;
          r.hi = a.hi;
          break;
        case opcode::tile_assemble:
          r.lo = std::min(a.lo, val(s.in[1]).lo);
          r.hi = std::max(a.hi, val(s.in[1]).hi);
          break;
        default: {
          double lo = 0, hi = 0;
          const literal lit{s.mantissa, s.exp10};
          if (!result_interval(s.op, a, s.in.size() > 1 ? &val(s.in[1]) : nullptr, lit.value(), lo, hi)) return false;
          if (std::max(std::fabs(lo), std::fabs(hi)) > limit(r.dt)) return false;
          r.lo = lo;
          r.hi = hi;
        }
      }
    }
    return true;
  }
  /// The region op between steps `open` and `end` (its close marker): branch results are the
  /// hull of both arms' yields; a loop's Tile carries are widened over its iterations (a body
  /// runs at most `trips` times) until the argument and result intervals cover every iteration.
  bool rederive_region(std::size_t open, std::size_t end) {
    const std::vector<gen_carry> cs = plan_.steps[open].carries;
    if (plan_.steps[open].op == opcode::cf_if) {
      const std::size_t next = next_of(open);
      if (!rederive(open + 1, next) || !rederive(next + 1, end)) return false;
      const std::vector<gen_ref>& a = plan_.steps[next - 1].refs;
      const std::vector<gen_ref>& b = plan_.steps[end - 1].refs;
      for (std::size_t c = 0; c < cs.size(); ++c) {
        if (cs[c].result < 0 || a[c].kind != gen_ref_kind::tile) continue;
        val(cs[c].result).lo = std::min(val(a[c].id).lo, val(b[c].id).lo);
        val(cs[c].result).hi = std::max(val(a[c].id).hi, val(b[c].id).hi);
      }
      return true;
    }
    std::vector<std::pair<double, double>> j;
    for (const gen_carry& g : cs)
      j.emplace_back(g.init.kind == gen_ref_kind::tile ? val(g.init.id).lo : 0.0,
                     g.init.kind == gen_ref_kind::tile ? val(g.init.id).hi : 0.0);
    const auto bind = [&] {
      for (std::size_t c = 0; c < cs.size(); ++c)
        if (cs[c].init.kind == gen_ref_kind::tile) {
          val(cs[c].arg).lo = j[c].first;
          val(cs[c].arg).hi = j[c].second;
        }
    };
    for (std::int64_t t = 0; t < plan_.steps[open].trips; ++t) {
      bind();
      if (!rederive(open + 1, end)) return false;
      const std::vector<gen_ref>& y = plan_.steps[end - 1].refs;
      for (std::size_t c = 0; c < cs.size(); ++c)
        if (cs[c].init.kind == gen_ref_kind::tile) {
          j[c].first = std::min(j[c].first, val(y[c].id).lo);
          j[c].second = std::max(j[c].second, val(y[c].id).hi);
        }
    }
    bind();
    if (!rederive(open + 1, end)) return false;
    for (std::size_t c = 0; c < cs.size(); ++c)
      if (cs[c].init.kind == gen_ref_kind::tile) {
        val(cs[c].result).lo = j[c].first;
        val(cs[c].result).hi = j[c].second;
      }
    return true;
  }

  std::mt19937_64 rng_;
  int ops_;
  gen_options opt_;
  gen_plan plan_;
  std::vector<shape_class> classes_;
  int emitted_ = 0;
  std::int64_t full_rows_ = 0;
  std::int64_t full_cols_ = 0;
  std::size_t parent_ = 0;  ///< the FP32 window parent class
  bool pending_unaligned_ = false;
  bool window_done_ = false;
  int params_ = 0;
  int block_ = -1;                      ///< the block index scalar, once queried
  bool pending_stale_ = false;          ///< the kernel still owes its read of an old version
  bool pending_window_setter_ = false;  ///< the kernel still owes its narrowed slice
  int extent_params_ = 0;
  std::vector<valid_pattern> patterns_;  ///< partial valid rectangles so far, per class
  int region_floor_ = 0;                 ///< values numbered below it are defined outside the innermost open region
  int depth_ = 0;                        ///< open regions
  int pending_region_tile_ =
      0;  ///< the kernel still owes: 1 a runtime step, 2 a GM branch of two parameters, 3 a GM loop changing its parameter, 4 dynamic valid state in a loop
  bool region_done_ = false;       ///< a top-level region was planned
  int last_l_ = -1, last_r_ = -1;  ///< the latest cube operands (a later product may reuse them)
  bool cube_tile_done_ = false;    ///< the Tile-only store keyword was placed
  std::vector<int> deferred_;      ///< chain results stored at the end of the kernel
};

}  // namespace detail

gen_plan generate_plan(std::uint64_t seed, int ops, const gen_options& opt) { return detail::planner(seed, ops, opt).run(); }

program emit(const gen_plan& plan) {
  const std::string name = "gen_" + std::to_string(plan.seed);
  function_builder b(plan.cube ? function_kind::aic : function_kind::aiv, name, location{1, 1});
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
  const type index = scalar_type(dtype::index);
  std::vector<value_id> scalars(plan.scalars.size());
  for (std::size_t i = 0; i < plan.scalars.size(); ++i)
    if (plan.scalars[i].param)
      scalars[i] = b.param(plan.scalars[i].name, plan.scalars[i].flag ? scalar_type(dtype::bool_) : index);
  const auto index_operand = [&](const gen_index& x) {
    return x.scalar >= 0 ? operand::of(scalars[static_cast<std::size_t>(x.scalar)]) : operand::integer(x.num);
  };
  const auto extent_of = [&](const gen_index& x) {
    return x.scalar >= 0 ? extent::of(scalars[static_cast<std::size_t>(x.scalar)]) : extent::of(x.num);
  };
  // A value's Tile type: its space's default layout (ZN for a transpose_view result), its valid.
  const auto tile_of = [&](const gen_value& x) {
    type t = tile_type(x.rows, x.cols, x.dt, x.space);
    if (x.zn) {
      t.blayout = box_layout::row_major;
      t.slayout = box_layout::col_major;
    }
    const bool full = x.valid[0] == gen_index{-1, x.rows} && x.valid[1] == gen_index{-1, x.cols};
    return full ? t : with_valid(t, extent_of(x.valid[0]), extent_of(x.valid[1]));
  };
  std::vector<value_id> values(plan.values.size());
  std::vector<value_id> current = outputs;  // the latest version of each output
  std::vector<value_id> through = inputs;   // what loads of each input read (a GM region result)
  // Regions: a tensor reference's current version and type, and the stack of open region ops.
  const auto gm = [&](int id) -> value_id& {
    return id >= 0 ? current[static_cast<std::size_t>(id)] : through[static_cast<std::size_t>(-1 - id)];
  };
  const auto gm_type = [&](int id) {
    const gen_tensor& t = id >= 0 ? plan.outputs[static_cast<std::size_t>(id)] : plan.inputs[static_cast<std::size_t>(-1 - id)];
    return tensor_type(t.rows, t.cols, t.dt);
  };
  const auto carry_type = [&](const gen_carry& c, int v) {
    if (c.init.kind == gen_ref_kind::scalar) return index;
    if (c.init.kind == gen_ref_kind::tensor) return gm_type(c.init.id);
    return tile_of(plan.values[static_cast<std::size_t>(v)]);
  };
  const auto carry_name = [&](const gen_carry& c, int v, std::size_t step, std::size_t i) {
    if (c.init.kind == gen_ref_kind::scalar) return plan.scalars[static_cast<std::size_t>(v)].name;
    if (c.init.kind == gen_ref_kind::tensor) return "g" + std::to_string(step) + "_" + std::to_string(i);
    return "v" + std::to_string(v);
  };
  struct frame {
    std::size_t step;  ///< the open step
    region_id first;
    std::vector<value_id> outputs, inputs;  ///< versions before the region
  };
  std::vector<frame> open;
  // Binds a region's arguments (after a for loop's induction variable) to the plan's numbers.
  const auto bind_args = [&](const gen_step& h, region_id r, std::uint32_t skip) {
    for (std::size_t i = 0; i < h.carries.size(); ++i) {
      const gen_carry& c = h.carries[i];
      const value_id a = b.fn().arg(r, static_cast<std::uint32_t>(i) + skip);
      if (c.init.kind == gen_ref_kind::tile) values[static_cast<std::size_t>(c.arg)] = a;
      else if (c.init.kind == gen_ref_kind::scalar) scalars[static_cast<std::size_t>(c.arg)] = a;
      else gm(c.init.id) = a;
    }
  };
  const auto open_with_args = [&](const gen_step& h, region_id r, std::size_t step, bool with_iv) {
    std::vector<type> types;
    std::vector<std::string> names;
    if (with_iv) {
      types.push_back(index);
      names.push_back(h.iv >= 0 ? plan.scalars[static_cast<std::size_t>(h.iv)].name : "i" + std::to_string(step));
    }
    for (std::size_t i = 0; i < h.carries.size(); ++i) {
      types.push_back(carry_type(h.carries[i], h.carries[i].arg));
      names.push_back(carry_name(h.carries[i], h.carries[i].arg, step, i));
    }
    const std::vector<std::string_view> views(names.begin(), names.end());
    b.open_region(r, types, views);
    if (with_iv && h.iv >= 0) scalars[static_cast<std::size_t>(h.iv)] = b.fn().arg(r, 0);
  };
  std::uint32_t line = 1;
  for (std::size_t step = 0; step < plan.steps.size(); ++step) {
    const gen_step& s = plan.steps[step];
    const location at{++line, 3};
    if (s.mark == gen_mark::open) {
      open.push_back(frame{step, b.reserve_regions(s.op == opcode::cf_for ? 1 : 2), current, through});
      const region_id first = open.back().first;
      if (s.op == opcode::cf_if) {
        b.open_region(first, {}, {});
      } else if (s.op == opcode::cf_for) {
        open_with_args(s, first, step, true);
        bind_args(s, first, 1);
      } else {  // while: the condition `carries[0] < limit`, then the body
        open_with_args(s, first, step, false);
        const value_id lt = b.emit1(opcode::scalar_lt, {operand::of(b.fn().arg(first, 0)), index_operand(s.args[0])},
                                    scalar_type(dtype::bool_), "", at);
        b.emit0(opcode::cf_yield, {operand::of(lt)}, at);
        b.close_region();
        const region_id body{first.index + 1};
        open_with_args(s, body, step, false);
        bind_args(s, body, 0);
      }
      continue;
    }
    if (s.mark == gen_mark::next) {
      b.close_region();
      current = open.back().outputs;
      through = open.back().inputs;
      b.open_region(region_id{open.back().first.index + 1}, {}, {});
      continue;
    }
    if (s.mark == gen_mark::close) {
      const frame f = open.back();
      open.pop_back();
      b.close_region();
      current = f.outputs;
      through = f.inputs;
      const gen_step& h = plan.steps[f.step];
      std::vector<operand> args;
      if (h.op != opcode::cf_while)  // a while's limit is read by its condition region
        for (const gen_index& x : h.args) args.push_back(index_operand(x));
      if (h.op != opcode::cf_if)
        for (const gen_carry& c : h.carries)
          args.push_back(c.init.kind == gen_ref_kind::tile     ? operand::of(values[static_cast<std::size_t>(c.init.id)])
                         : c.init.kind == gen_ref_kind::scalar ? index_operand(c.init.index)
                                                               : operand::of(gm(c.init.id)));
      std::vector<type> types;
      std::vector<std::string> names;
      for (std::size_t i = 0; i < h.carries.size(); ++i) {
        types.push_back(carry_type(h.carries[i], h.carries[i].result));
        names.push_back(carry_name(h.carries[i], h.carries[i].result, f.step, i) +
                        (h.carries[i].init.kind == gen_ref_kind::tensor ? "r" : ""));
      }
      const std::vector<std::string_view> views(names.begin(), names.end());
      const op_id o = b.emit(h.op, args, {}, types, views, at, span32{f.first.index, h.op == opcode::cf_for ? 1u : 2u});
      for (std::size_t i = 0; i < h.carries.size(); ++i) {
        const gen_carry& c = h.carries[i];
        const value_id r = b.fn().result(o, static_cast<std::uint32_t>(i));
        if (c.init.kind == gen_ref_kind::tile) values[static_cast<std::size_t>(c.result)] = r;
        else if (c.init.kind == gen_ref_kind::scalar) scalars[static_cast<std::size_t>(c.result)] = r;
        else gm(c.init.id) = r;
      }
      continue;
    }
    if (s.op == opcode::cf_yield) {
      std::vector<operand> refs;
      for (const gen_ref& r : s.refs)
        refs.push_back(r.kind == gen_ref_kind::tile     ? operand::of(values[static_cast<std::size_t>(r.id)])
                       : r.kind == gen_ref_kind::scalar ? index_operand(r.index)
                                                        : operand::of(gm(r.id)));
      b.emit(opcode::cf_yield, refs, {}, {}, {}, at);
      continue;
    }
    if (s.op == opcode::tile_store) {
      const gen_tensor& t = plan.outputs[static_cast<std::size_t>(s.tensor)];
      const value_id v = values[static_cast<std::size_t>(s.in[0])];
      auto& cur = current[static_cast<std::size_t>(s.tensor)];
      // Unchained: the store names the parameter, and the next one does too.
      const bool unchained = plan.gm_by_parameter && open.empty();
      const value_id into = unchained ? outputs[static_cast<std::size_t>(s.tensor)] : cur;
      const operand row = s.args.empty() ? b.pair(s.row, 0) : b.tuple({index_operand(s.args[0]), operand::integer(0)});
      const operand ops[] = {operand::of(v), row, operand::of(into)};
      const type gt = tensor_type(t.rows, t.cols, t.dt);
      const std::string oname = "o" + std::to_string(line);
      const std::string_view onames[] = {oname};
      const value_id stored =
          b.fn().result(b.emit(opcode::tile_store, ops, s.flags, std::span<const type>(&gt, 1), onames, at), 0);
      if (!unchained) cur = stored;
      continue;
    }
    if (detail::defines_scalar(s.op)) {
      const std::string& sname = plan.scalars[static_cast<std::size_t>(s.result)].name;
      const type st = info(s.op).result == result_rule::boolean ? scalar_type(dtype::bool_) : index;
      scalars[static_cast<std::size_t>(s.result)] =
          s.args.empty() ? b.emit1(s.op, {}, st, sname, at)
                         : b.emit1(s.op, {index_operand(s.args[0]), index_operand(s.args[1])}, st, sname, at);
      continue;
    }
    const gen_value& r = plan.values[static_cast<std::size_t>(s.result)];
    const bool full = r.valid[0] == gen_index{-1, r.rows} && r.valid[1] == gen_index{-1, r.cols};
    const type tt = tile_of(r);
    const std::string vname = "v" + std::to_string(s.result);
    const auto in = [&](std::size_t i) { return operand::of(values[static_cast<std::size_t>(s.in[i])]); };
    value_id out;
    // Elementwise kernels load rows (s.row, 0); cube kernels load at (row, column) index operands.
    const operand origin = r.space == memory_space::vec ? b.pair(s.row, 0)
                                                        : b.tuple({index_operand(s.offsets[0]), index_operand(s.offsets[1])});
    // What a load reads: an input, or (a kernel that must stay Tile) an output's current version.
    const auto source = [&] { return operand::of((s.from_output ? current : through)[static_cast<std::size_t>(s.tensor)]); };
    if (s.op == opcode::tile_load && full) {
      out = b.emit1(opcode::tile_load, {source(), origin, b.pair(r.rows, r.cols)}, tt, vname, at);
    } else if (s.op == opcode::tile_load) {
      out = b.emit1(opcode::tile_load,
                    {source(), origin, b.pair(r.rows, r.cols), b.tuple({index_operand(r.valid[0]), index_operand(r.valid[1])})},
                    tt, vname, at);
    } else if (s.op == opcode::tile_create) {
      out = b.emit1(opcode::tile_create, {}, tt, vname, at);
    } else if (s.op == opcode::tile_move || s.op == opcode::tile_transpose_view) {
      out = b.emit1(s.op, {in(0)}, tt, vname, at);
    } else if (s.op == opcode::tile_extract) {
      out = b.emit1(opcode::tile_extract, {in(0), index_operand(s.offsets[0]), index_operand(s.offsets[1])}, tt, vname, at);
    } else if (s.op == opcode::tile_matmul) {
      out = b.emit1(opcode::tile_matmul, {in(0), in(1)}, tt, vname, at);
    } else if (s.op == opcode::tile_matmul_acc) {
      // init_cond: a BOOL scalar, or a literal encoded as 0 / 1.
      const gen_index& c = s.args.empty() ? gen_index{} : s.args[0];
      const operand cond = c.scalar >= 0 ? index_operand(c) : operand::boolean(c.num != 0);
      if (s.args.empty()) out = b.emit1(opcode::tile_matmul_acc, {in(0), in(1), in(2)}, tt, vname, at);
      else out = b.emit1(opcode::tile_matmul_acc, {in(0), in(1), in(2)}, tt, vname, at, {kwarg{keyword::init_cond, cond}});
    } else if (s.op == opcode::tile_set_validshape) {
      out = b.emit1(opcode::tile_set_validshape, {in(0), index_operand(s.args[0]), index_operand(s.args[1])}, tt, vname, at);
    } else if (s.op == opcode::tile_slice) {
      out = b.emit1(opcode::tile_slice,
                    {in(0), b.pair(r.rows, r.cols), b.tuple({index_operand(s.offsets[0]), index_operand(s.offsets[1])})}, tt,
                    vname, at);
    } else if (s.op == opcode::tile_assemble) {
      out = b.emit1(opcode::tile_assemble, {in(0), in(1), b.tuple({index_operand(s.offsets[0]), index_operand(s.offsets[1])})},
                    tt, vname, at);
    } else if (s.op == opcode::tile_reshape) {
      out = b.emit1(opcode::tile_reshape, {in(0), b.pair(r.rows, r.cols)}, tt, vname, at);
    } else if (s.op == opcode::tile_cast) {
      const std::string_view names[] = {vname};
      const operand ops[] = {in(0), operand::of(r.dt)};
      out = b.fn().result(b.emit(opcode::tile_cast, ops, s.flags, std::span<const type>(&tt, 1), names, at), 0);
    } else if (info(s.op).ew ==
               ew_kind::none) {  // the extended rollout's reductions (scratch left to the pipeline) and broadcasts
      out = s.in.size() == 1 ? b.emit1(s.op, {in(0)}, tt, vname, at) : b.emit1(s.op, {in(0), in(1)}, tt, vname, at);
    } else {
      const operand lit = operand::decimal(s.mantissa, s.exp10);
      switch (info(s.op).ew) {
        case ew_kind::fill: out = b.emit1(s.op, {lit}, tt, vname, at); break;
        case ew_kind::unary: {
          const std::string_view names[] = {vname};
          const operand ops[] = {in(0)};
          out = b.fn().result(b.emit(s.op, ops, s.flags, std::span<const type>(&tt, 1), names, at), 0);
          break;
        }
        case ew_kind::scalar_form: out = b.emit1(s.op, {in(0), lit}, tt, vname, at); break;
        default: out = b.emit1(s.op, {in(0), in(1)}, tt, vname, at);
      }
    }
    values[static_cast<std::size_t>(s.result)] = out;
  }
  std::vector<operand> rets;
  for (const value_id v : plan.gm_by_parameter ? outputs : current) rets.push_back(operand::of(v));
  b.emit(opcode::cf_return, rets, {}, {}, {}, location{++line, 3});
  program p;
  p.file = text(name + ".t2b");
  p.functions.push_back(b.finish());
  return p;
}

program generate_kernel(std::uint64_t seed, int ops, const gen_options& opt) { return emit(generate_plan(seed, ops, opt)); }

program collapse_addresses(const program& p) {
  program q = p;
  for (auto& f : q.functions)
    for (const auto& n : f.ops)
      if (n.code() == opcode::buffer_alloc && n.args.count == 2) f.operands[n.args.begin + 1] = operand::integer(0);
  return q;
}

std::string describe(const gen_binding& b) {
  std::string s = "block_idx=" + std::to_string(b.block_idx);
  for (const auto& [name, value] : b.scalars) s += " " + name + "=" + std::to_string(value);
  return s;
}

std::vector<gen_binding> bindings(const gen_plan& plan) {
  const auto at = [](std::int64_t lo, std::int64_t hi, int which, int nth) {
    switch (which) {
      case 0: return lo;
      case 1: return std::min(lo + 1, hi);
      case 2: return lo + (hi - lo) / 2;
      case 3: return hi;
      default: return nth % 2 == 0 ? hi : lo;
    }
  };
  bool control = false;
  for (const gen_scalar& s : plan.scalars) control = control || (s.param && s.control);
  const auto mix = [](const gen_scalar& s, int which, int nth) {
    if (which == 5) return s.flag ? (nth % 2 == 0 ? s.hi : s.lo) : std::min(s.lo + 2, s.hi);
    return s.flag ? (nth % 2 == 0 ? s.lo : s.hi) : s.lo + (nth + 1) % (s.hi - s.lo + 1);
  };
  std::vector<gen_binding> out;
  for (int which = 0; which < (control ? 7 : 5); ++which) {
    gen_binding b;
    int nth = 0;
    for (const gen_scalar& s : plan.scalars) {
      if (!s.param) continue;
      const int n = nth++;
      b.scalars.emplace_back(
          s.name, which >= 5 ? (s.control ? mix(s, which, n) : at(s.lo, s.hi, which == 5 ? 2 : 4, n)) : at(s.lo, s.hi, which, n));
    }
    if (plan.block_max >= 0) b.block_idx = which >= 4 ? plan.block_max : at(0, plan.block_max, which, 0);
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(std::move(b));
  }
  return out;
}

sim::sim_options sim_options_for(const gen_plan& plan, const gen_binding& b, std::uint64_t seed) {
  sim::sim_options o;
  o.seed = seed;
  o.block_idx = b.block_idx;
  o.block_num = std::max<std::int64_t>(1, plan.block_max + 1);
  for (const auto& [name, value] : b.scalars) o.scalars.push_back({name, static_cast<double>(value)});
  // Why one per tensor: every kernel's copies then carry a signalling NaN somewhere (each must
  // arrive bit for bit), while arithmetic spreads it (a matmul over a row) only to a few outputs.
  o.signaling_nans = 1;
  return o;
}

}  // namespace testing
}  // namespace tile2buffer
