// SPDX-License-Identifier: Apache-2.0
/// @file twins.hpp
/// Hand-built Tile kernels and their hand-lowered Buffer twins for the simulator tests (built with
/// `function_builder`; no parser or lowering needed). Each twin can carry a deliberate flaw so the
/// tests can prove that the numerics check fails, and how it reports the failure.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/builder.hpp"

namespace sim_test {
using namespace tile2buffer;

/// Thin convenience layer over function_builder: every op gets the next source line (column 3),
/// as if the kernel were written one statement per line after a header on line 1.
class kernel {
 public:
  explicit kernel(std::string_view name, ir_stage stage = ir_stage::tile, function_kind kind = function_kind::aiv)
      : b_(kind, name, location{1, 1}) {
    b_.fn().stage = stage;
  }
  value_id tensor(std::string_view name, std::int64_t r, std::int64_t c, dtype d = dtype::fp32, direction dir = direction::in) {
    return b_.param(name, tensor_type(r, c, d), dir);
  }
  value_id output(std::string_view name, std::int64_t r, std::int64_t c, dtype d = dtype::fp32) {
    const value_id v = tensor(name, r, c, d, direction::out);
    b_.result_type(tensor_type(r, c, d));
    return v;
  }
  value_id scalar(std::string_view name, dtype d = dtype::index) { return b_.param(name, scalar_type(d)); }

  operand pair(std::int64_t a, std::int64_t b) { return b_.pair(a, b); }
  operand pair(operand a, operand b) { return b_.tuple({a, b}); }
  operand empty() { return b_.tuple(std::initializer_list<operand>{}); }
  static operand v(value_id x) { return operand::of(x); }
  static operand i(std::int64_t n) { return operand::integer(n); }
  /// A float literal `mantissa * 10^exp10`.
  static operand f(std::int64_t mantissa, int exp10 = 0) { return operand::decimal(mantissa, exp10); }

  value_id op(opcode c, std::initializer_list<operand> args, const placed_type& t, std::string_view name = {},
              std::initializer_list<kwarg> kws = {}) {
    return b_.emit1(c, args, t, name, next(), kws);
  }
  op_id call(opcode c, std::initializer_list<operand> args) { return b_.emit0(c, args, next()); }
  void ret(std::initializer_list<operand> values) { b_.emit0(opcode::cf_return, values, next()); }
  void yield(std::vector<operand> values) { b_.emit(opcode::cf_yield, values, {}, {}, {}, next()); }

  /// `for iv in range(start, stop, step) iter(inits...)`; `body(iv, iters)` must end with yield.
  std::vector<value_id> for_(operand start, operand stop, operand step, std::vector<operand> inits, std::vector<type> carry_types,
                             const std::function<void(value_id, const std::vector<value_id>&)>& body) {
    const location at = next();
    const region_id r = b_.reserve_regions(1);
    std::vector<type> arg_types{scalar_type(dtype::index)};
    arg_types.insert(arg_types.end(), carry_types.begin(), carry_types.end());
    b_.open_region(r, arg_types, {});
    const span32 args = b_.fn().regions[r.index].args;
    std::vector<value_id> iters;
    for (std::uint32_t k = 1; k < args.count; ++k) iters.push_back(value_id{args.begin + k});
    body(value_id{args.begin}, iters);
    b_.close_region();
    std::vector<operand> ops{start, stop, step};
    ops.insert(ops.end(), inits.begin(), inits.end());
    return results(b_.emit(opcode::cf_for, ops, {}, carry_types, {}, at, span32{r.index, 1}));
  }

  /// `if cond -> (types) { then } else { otherwise }`; both bodies must end with yield when there
  /// are results.
  std::vector<value_id> if_(operand cond, std::vector<type> result_types, const std::function<void()>& then,
                            const std::function<void()>& otherwise) {
    const location at = next();
    const region_id r = b_.reserve_regions(2);
    b_.open_region(r, {}, {});
    then();
    b_.close_region();
    b_.open_region(region_id{r.index + 1}, {}, {});
    otherwise();
    b_.close_region();
    return results(b_.emit(opcode::cf_if, std::vector<operand>{cond}, {}, result_types, {}, at, span32{r.index, 2}));
  }

  /// `while iter(inits...) cond(...) { body }`: `cond(iters)` emits the condition and yields it;
  /// `body(iters)` ends with yield.
  std::vector<value_id> while_(std::vector<operand> inits, std::vector<type> carry_types,
                               const std::function<void(const std::vector<value_id>&)>& cond,
                               const std::function<void(const std::vector<value_id>&)>& body) {
    const location at = next();
    const region_id r = b_.reserve_regions(2);
    for (std::uint32_t k = 0; k < 2; ++k) {
      b_.open_region(region_id{r.index + k}, carry_types, {});
      const span32 args = b_.fn().regions[r.index + k].args;
      std::vector<value_id> iters;
      for (std::uint32_t a = 0; a < args.count; ++a) iters.push_back(value_id{args.begin + a});
      (k == 0 ? cond : body)(iters);
      b_.close_region();
    }
    return results(b_.emit(opcode::cf_while, inits, {}, carry_types, {}, at, span32{r.index, 2}));
  }

  program done() {
    program p;
    p.file = text("twin.t2b");
    p.functions.push_back(b_.finish());
    return p;
  }

 private:
  location next() { return location{++line_, 3}; }
  std::vector<value_id> results(op_id o) {
    std::vector<value_id> r;
    const span32 s = b_.fn().ops[o.index].results;
    for (std::uint32_t k = 0; k < s.count; ++k) r.push_back(value_id{s.begin + k});
    return r;
  }
  function_builder b_;
  std::uint32_t line_ = 1;
};

inline type vec(std::int64_t r, std::int64_t c, dtype d = dtype::fp32) { return tile_type(r, c, d); }
inline type buf(std::int64_t r, std::int64_t c, dtype d = dtype::fp32, memory_space s = memory_space::vec) {
  return buffer_type(r, c, d, s);
}

struct twin {
  program tile;
  program buffer;
};

//===--- load -> add -> mul -> store ---===//

enum class flaw {
  none,
  overlapping_live_buffers,  ///< rhs placed over the second half of lhs
  dropped_copy,              ///< copy_store: the buffer.copy is missing
  store_offset,              ///< the store lands 16 rows too low in a [32, 32] output
  store_past_end,            ///< the store lands one row too low: the last row hits the sentinel band
  never_written,             ///< the load into rhs is missing
  valid_overrun,             ///< runtime_valid: the Buffer kernel ignores the runtime valid columns
};

/// @add_mul: out = (A + B) * B on [16, 32] FP32 with addressed buffers. `out_rows` sizes Out.
inline twin add_mul(flaw fl = flaw::none, std::int64_t out_rows = 16) {
  twin t;
  {
    kernel k("add_mul");
    const auto A = k.tensor("A", 16, 32), B = k.tensor("B", 16, 32), Out = k.output("Out", out_rows, 32);
    const auto lhs = k.op(opcode::tile_load, {k.v(A), k.pair(0, 0), k.pair(16, 32)}, vec(16, 32), "lhs");
    const auto rhs = k.op(opcode::tile_load, {k.v(B), k.pair(0, 0), k.pair(16, 32)}, vec(16, 32), "rhs");
    const auto total = k.op(opcode::tile_add, {k.v(lhs), k.v(rhs)}, vec(16, 32), "total");
    const auto product = k.op(opcode::tile_mul, {k.v(total), k.v(rhs)}, vec(16, 32), "product");
    const auto r =
        k.op(opcode::tile_store, {k.v(product), k.pair(0, 0), k.v(Out)}, tensor_type(out_rows, 32, dtype::fp32), "result");
    k.ret({k.v(r)});
    t.tile = k.done();
  }
  {
    kernel k("add_mul", ir_stage::buffer);
    const auto A = k.tensor("A", 16, 32), B = k.tensor("B", 16, 32), Out = k.output("Out", out_rows, 32);
    const auto a = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(16, 32), "a_buf");
    const auto b =
        k.op(opcode::buffer_alloc, {k.empty(), k.i(fl == flaw::overlapping_live_buffers ? 1024 : 2048)}, buf(16, 32), "b_buf");
    const auto r = k.op(opcode::buffer_alloc, {k.empty(), k.i(4096)}, buf(16, 32), "r_buf");
    k.call(opcode::buffer_load, {k.v(A), k.pair(0, 0), k.pair(16, 32), k.v(a)});
    if (fl != flaw::never_written) k.call(opcode::buffer_load, {k.v(B), k.pair(0, 0), k.pair(16, 32), k.v(b)});
    k.call(opcode::buffer_add, {k.v(a), k.v(b), k.v(r)});
    k.call(opcode::buffer_mul, {k.v(r), k.v(b), k.v(r)});
    const std::int64_t row = fl == flaw::store_offset ? 16 : fl == flaw::store_past_end ? 1 : 0;
    k.call(opcode::buffer_store, {k.v(r), k.pair(row, 0), k.pair(16, 32), k.v(Out)});
    k.ret({k.v(Out)});
    t.buffer = k.done();
  }
  return t;
}

/// @copy_store: y = move(x); store y — the Buffer twin copies x into y (or forgets to).
inline twin copy_store(flaw fl = flaw::none) {
  twin t;
  {
    kernel k("copy_store");
    const auto A = k.tensor("A", 16, 32), Out = k.output("Out", 16, 32);
    const auto x = k.op(opcode::tile_load, {k.v(A), k.pair(0, 0), k.pair(16, 32)}, vec(16, 32), "x");
    const auto y = k.op(opcode::tile_move, {k.v(x)}, vec(16, 32), "y");
    const auto r = k.op(opcode::tile_store, {k.v(y), k.pair(0, 0), k.v(Out)}, tensor_type(16, 32, dtype::fp32), "r");
    k.ret({k.v(r)});
    t.tile = k.done();
  }
  {
    kernel k("copy_store", ir_stage::buffer);
    const auto A = k.tensor("A", 16, 32), Out = k.output("Out", 16, 32);
    const auto x = k.op(opcode::buffer_alloc, {k.empty()}, buf(16, 32), "x_buf");
    const auto y = k.op(opcode::buffer_alloc, {k.empty()}, buf(16, 32), "y_buf");
    k.call(opcode::buffer_load, {k.v(A), k.pair(0, 0), k.pair(16, 32), k.v(x)});
    if (fl != flaw::dropped_copy) k.call(opcode::buffer_copy, {k.v(x), k.v(y)});
    k.call(opcode::buffer_store, {k.v(y), k.pair(0, 0), k.pair(16, 32), k.v(Out)});
    k.ret({k.v(Out)});
    t.buffer = k.done();
  }
  return t;
}

/// @views (example 03): one 4096-byte byte root at 8192 serving FP32[32,32] and, 64 bytes in,
/// FP32[16,32] through subview + reshape.
inline twin storage_views() {
  twin t;
  {
    kernel k("views");
    const auto A = k.tensor("A", 32, 32), B = k.tensor("B", 16, 32);
    const auto Out = k.output("Out", 32, 32), Out2 = k.output("Out2", 16, 32);
    const auto whole = k.op(opcode::tile_load, {k.v(A), k.pair(0, 0), k.pair(32, 32)}, vec(32, 32), "whole");
    const auto r0 = k.op(opcode::tile_store, {k.v(whole), k.pair(0, 0), k.v(Out)}, tensor_type(32, 32, dtype::fp32), "r0");
    const auto part = k.op(opcode::tile_load, {k.v(B), k.pair(0, 0), k.pair(16, 32)}, vec(16, 32), "part");
    const auto doubled = k.op(opcode::tile_add, {k.v(part), k.v(part)}, vec(16, 32), "doubled");
    const auto r1 = k.op(opcode::tile_store, {k.v(doubled), k.pair(0, 0), k.v(Out2)}, tensor_type(16, 32, dtype::fp32), "r1");
    k.ret({k.v(r0), k.v(r1)});
    t.tile = k.done();
  }
  {
    kernel k("views", ir_stage::buffer);
    const auto A = k.tensor("A", 32, 32), B = k.tensor("B", 16, 32);
    const auto Out = k.output("Out", 32, 32), Out2 = k.output("Out2", 16, 32);
    const auto root = k.op(opcode::buffer_alloc, {k.empty(), k.i(8192)}, buf(128, 32, dtype::uint8), "root");
    const auto whole = k.op(opcode::buffer_reshape, {k.v(root)}, buf(32, 32), "whole");
    const auto window = k.op(opcode::buffer_subview, {k.v(root), k.pair(2, 0)}, buf(64, 32, dtype::uint8), "window");
    const auto part = k.op(opcode::buffer_reshape, {k.v(window)}, buf(16, 32), "part");
    const auto sum = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(16, 32), "sum");
    k.call(opcode::buffer_load, {k.v(A), k.pair(0, 0), k.pair(32, 32), k.v(whole)});
    k.call(opcode::buffer_store, {k.v(whole), k.pair(0, 0), k.pair(32, 32), k.v(Out)});
    k.call(opcode::buffer_load, {k.v(B), k.pair(0, 0), k.pair(16, 32), k.v(part)});
    k.call(opcode::buffer_add, {k.v(part), k.v(part), k.v(sum)});
    k.call(opcode::buffer_store, {k.v(sum), k.pair(0, 0), k.pair(16, 32), k.v(Out2)});
    k.ret({k.v(Out), k.v(Out2)});
    t.buffer = k.done();
  }
  return t;
}

/// @windows (example 04): a runtime-offset slice read by arithmetic and an in-place assemble.
inline twin windows() {
  twin t;
  {
    kernel k("windows");
    const auto X = k.tensor("X", 64, 64), C = k.tensor("C", 32, 32), Out = k.output("Out", 32, 32);
    const auto row = k.scalar("row");
    const auto whole = k.op(opcode::tile_load, {k.v(X), k.pair(0, 0), k.pair(64, 64)}, vec(64, 64), "whole");
    const auto canvas = k.op(opcode::tile_load, {k.v(C), k.pair(0, 0), k.pair(32, 32)}, vec(32, 32), "canvas");
    const auto window = k.op(opcode::tile_slice, {k.v(whole), k.pair(16, 32), k.pair(k.v(row), k.i(32))}, vec(16, 32), "window");
    const auto doubled = k.op(opcode::tile_add, {k.v(window), k.v(window)}, vec(16, 32), "doubled");
    const auto placed = k.op(opcode::tile_assemble, {k.v(canvas), k.v(doubled), k.pair(16, 0)}, vec(32, 32), "placed");
    const auto r = k.op(opcode::tile_store, {k.v(placed), k.pair(0, 0), k.v(Out)}, tensor_type(32, 32, dtype::fp32), "result");
    k.ret({k.v(r)});
    t.tile = k.done();
  }
  {
    kernel k("windows", ir_stage::buffer);
    const auto X = k.tensor("X", 64, 64), C = k.tensor("C", 32, 32), Out = k.output("Out", 32, 32);
    const auto row = k.scalar("row");
    const auto whole = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(64, 64), "whole_buf");
    const auto canvas = k.op(opcode::buffer_alloc, {k.empty(), k.i(16384)}, buf(32, 32), "canvas_buf");
    const auto doubled = k.op(opcode::buffer_alloc, {k.empty(), k.i(20480)}, buf(16, 32), "doubled_buf");
    k.call(opcode::buffer_load, {k.v(X), k.pair(0, 0), k.pair(64, 64), k.v(whole)});
    k.call(opcode::buffer_load, {k.v(C), k.pair(0, 0), k.pair(32, 32), k.v(canvas)});
    const auto window =
        k.op(opcode::buffer_subview, {k.v(whole), k.pair(k.v(row), k.i(32)), k.pair(16, 32)}, buf(16, 32), "window");
    k.call(opcode::buffer_add, {k.v(window), k.v(window), k.v(doubled)});
    const auto placed = k.op(opcode::buffer_subview, {k.v(canvas), k.pair(16, 0), k.pair(16, 32)}, buf(16, 32), "placed_window");
    k.call(opcode::buffer_copy, {k.v(doubled), k.v(placed)});
    k.call(opcode::buffer_store, {k.v(canvas), k.pair(0, 0), k.pair(32, 32), k.v(Out)});
    k.ret({k.v(Out)});
    t.buffer = k.done();
  }
  return t;
}

/// @runtime_valid (example 05): 16 x cols of a 16 x 64 tile are valid.
inline twin runtime_valid(flaw fl = flaw::none) {
  twin t;
  {
    kernel k("runtime_valid");
    const auto X = k.tensor("X", 16, 64), Out = k.output("Out", 16, 64);
    const auto cols = k.scalar("cols");
    const type vt = with_valid(vec(16, 64), extent::of(16), extent::of(cols));
    const auto loaded = k.op(opcode::tile_load, {k.v(X), k.pair(0, 0), k.pair(16, 64), k.pair(k.i(16), k.v(cols))}, vt, "loaded");
    const auto doubled = k.op(opcode::tile_add, {k.v(loaded), k.v(loaded)}, vt, "doubled");
    const auto r = k.op(opcode::tile_store, {k.v(doubled), k.pair(0, 0), k.v(Out)}, tensor_type(16, 64, dtype::fp32), "result");
    k.ret({k.v(r)});
    t.tile = k.done();
  }
  {
    kernel k("runtime_valid", ir_stage::buffer);
    const auto X = k.tensor("X", 16, 64), Out = k.output("Out", 16, 64);
    const auto cols = k.scalar("cols");
    const type dyn = with_valid(buf(16, 64), extent::runtime(), extent::runtime());
    const auto loaded = k.op(opcode::buffer_alloc, {k.pair(16, 64), k.i(0)}, dyn, "loaded_buf");
    const auto doubled = k.op(opcode::buffer_alloc, {k.pair(16, 64), k.i(4096)}, dyn, "doubled_buf");
    const operand valid = fl == flaw::valid_overrun ? k.pair(16, 64) : k.pair(k.i(16), k.v(cols));
    // Native ops cannot run on an empty rectangle: the data movement is guarded by cols > 0.
    const auto nonempty = k.op(opcode::scalar_gt, {k.v(cols), k.i(0)}, scalar_type(dtype::bool_), "nonempty");
    k.call(opcode::buffer_set_validshape, {k.v(loaded), valid});
    k.if_(
        k.v(nonempty), {},
        [&] {
          k.call(opcode::buffer_load, {k.v(X), k.pair(0, 0), valid, k.v(loaded)});
        },
        [] {});
    k.call(opcode::buffer_set_validshape, {k.v(doubled), valid});
    k.if_(
        k.v(nonempty), {},
        [&] {
          k.call(opcode::buffer_add, {k.v(loaded), k.v(loaded), k.v(doubled)});
          k.call(opcode::buffer_store, {k.v(doubled), k.pair(0, 0), valid, k.v(Out)});
        },
        [] {});
    k.ret({k.v(Out)});
    t.buffer = k.done();
  }
  return t;
}

/// @matmul_twice (example 06): y = a @ b + a @ b, FP16 operands in Mat/Left/Right, FP32 Acc.
/// With `transposed`, B is given as [N, K] and read through a ZN relabel of its NZ Mat tile.
inline twin cube(std::int64_t m = 32, std::int64_t kk = 48, std::int64_t n = 64, bool transposed = false) {
  twin t;
  const type mat_a = tile_type(m, kk, dtype::fp16, memory_space::mat);
  const type mat_b = tile_type(kk, n, dtype::fp16, memory_space::mat);
  type mat_bt = tile_type(n, kk, dtype::fp16, memory_space::mat);  // B stored as [N, K]
  type zn = tile_type(kk, n, dtype::fp16, memory_space::mat);      // its transpose, relabelled ZN
  zn.blayout = box_layout::row_major;
  zn.slayout = box_layout::col_major;
  {
    kernel k("matmul_twice", ir_stage::tile, function_kind::aic);
    const auto A = k.tensor("A", m, kk, dtype::fp16);
    const auto B = transposed ? k.tensor("B", n, kk, dtype::fp16) : k.tensor("B", kk, n, dtype::fp16);
    const auto Out = k.output("Out", m, n);
    const auto a = k.op(opcode::tile_load, {k.v(A), k.pair(0, 0), k.pair(m, kk)}, mat_a, "a");
    value_id b;
    if (transposed) {
      const auto bt = k.op(opcode::tile_load, {k.v(B), k.pair(0, 0), k.pair(n, kk)}, mat_bt, "bt");
      b = k.op(opcode::tile_transpose_view, {k.v(bt)}, zn, "b");
    } else {
      b = k.op(opcode::tile_load, {k.v(B), k.pair(0, 0), k.pair(kk, n)}, mat_b, "b");
    }
    const auto a_l0 = k.op(opcode::tile_move, {k.v(a)}, tile_type(m, kk, dtype::fp16, memory_space::left), "a_l0");
    const auto b_l0 = k.op(opcode::tile_move, {k.v(b)}, tile_type(kk, n, dtype::fp16, memory_space::right), "b_l0");
    const type acc = tile_type(m, n, dtype::fp32, memory_space::acc);
    const auto x = k.op(opcode::tile_matmul, {k.v(a_l0), k.v(b_l0)}, acc, "x");
    const auto y = k.op(opcode::tile_matmul_acc, {k.v(x), k.v(a_l0), k.v(b_l0)}, acc, "y");
    const auto r = k.op(opcode::tile_store, {k.v(y), k.pair(0, 0), k.v(Out)}, tensor_type(m, n, dtype::fp32), "result");
    k.ret({k.v(r)});
    t.tile = k.done();
  }
  {
    kernel k("matmul_twice", ir_stage::buffer, function_kind::aic);
    const auto A = k.tensor("A", m, kk, dtype::fp16);
    const auto B = transposed ? k.tensor("B", n, kk, dtype::fp16) : k.tensor("B", kk, n, dtype::fp16);
    const auto Out = k.output("Out", m, n);
    const auto a_mat = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(m, kk, dtype::fp16, memory_space::mat), "a_mat");
    type bdesc = transposed ? mat_bt : mat_b;
    bdesc.kind = type_kind::buffer;
    const auto b_mat = k.op(opcode::buffer_alloc, {k.empty(), k.i(16384)}, bdesc, "b_mat");
    value_id b_src = b_mat;
    if (transposed) {
      type zb = zn;
      zb.kind = type_kind::buffer;
      b_src = k.op(opcode::buffer_alloc, {k.empty(), k.i(16384)}, zb, "b_mat_t");  // same bytes, ZN [K, N]
    }
    const auto a_l0 = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(m, kk, dtype::fp16, memory_space::left), "a_l0");
    const auto b_l0 = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(kk, n, dtype::fp16, memory_space::right), "b_l0");
    const auto acc = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(m, n, dtype::fp32, memory_space::acc), "acc");
    k.call(opcode::buffer_load, {k.v(A), k.pair(0, 0), k.pair(m, kk), k.v(a_mat)});
    k.call(opcode::buffer_load, {k.v(B), k.pair(0, 0), transposed ? k.pair(n, kk) : k.pair(kk, n), k.v(b_mat)});
    k.call(opcode::buffer_copy, {k.v(a_mat), k.v(a_l0)});
    k.call(opcode::buffer_copy, {k.v(b_src), k.v(b_l0)});
    k.call(opcode::buffer_matmul, {k.v(a_l0), k.v(b_l0), k.v(acc)});
    k.call(opcode::buffer_matmul_acc, {k.v(a_l0), k.v(b_l0), k.v(acc)});
    k.call(opcode::buffer_store, {k.v(acc), k.pair(0, 0), k.pair(m, n), k.v(Out)});
    k.ret({k.v(Out)});
    t.buffer = k.done();
  }
  return t;
}

/// @branch (example 07): the chosen tile goes to a legalized destination; only the offset remains
/// a native branch result.
inline twin branch() {
  twin t;
  {
    kernel k("branch");
    const auto A = k.tensor("A", 16, 32), B = k.tensor("B", 16, 32), Out = k.output("Out", 32, 64);
    const auto flag = k.scalar("flag", dtype::bool_);
    const auto a = k.op(opcode::tile_load, {k.v(A), k.pair(0, 0), k.pair(16, 32)}, vec(16, 32), "a");
    const auto b = k.op(opcode::tile_load, {k.v(B), k.pair(0, 0), k.pair(16, 32)}, vec(16, 32), "b");
    const auto res = k.if_(
        k.v(flag), {vec(16, 32), scalar_type(dtype::index)},
        [&] {
          const auto p = k.op(opcode::tile_mul, {k.v(a), k.v(b)}, vec(16, 32), "product");
          k.yield({k.v(p), k.i(16)});
        },
        [&] {
          k.yield({k.v(a), k.i(0)});
        });
    const auto r = k.op(opcode::tile_store, {k.v(res[0]), k.pair(k.v(res[1]), k.i(0)), k.v(Out)},
                        tensor_type(32, 64, dtype::fp32), "result");
    k.ret({k.v(r)});
    t.tile = k.done();
  }
  {
    kernel k("branch", ir_stage::buffer);
    const auto A = k.tensor("A", 16, 32), B = k.tensor("B", 16, 32), Out = k.output("Out", 32, 64);
    const auto flag = k.scalar("flag", dtype::bool_);
    const auto a = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(16, 32), "a_buf");
    const auto b = k.op(opcode::buffer_alloc, {k.empty(), k.i(2048)}, buf(16, 32), "b_buf");
    const auto dst = k.op(opcode::buffer_alloc, {k.empty(), k.i(4096)}, buf(16, 32), "destination");
    k.call(opcode::buffer_load, {k.v(A), k.pair(0, 0), k.pair(16, 32), k.v(a)});
    k.call(opcode::buffer_load, {k.v(B), k.pair(0, 0), k.pair(16, 32), k.v(b)});
    const auto res = k.if_(
        k.v(flag), {scalar_type(dtype::index)},
        [&] {
          k.call(opcode::buffer_mul, {k.v(a), k.v(b), k.v(dst)});
          k.yield({k.i(16)});
        },
        [&] {
          k.call(opcode::buffer_copy, {k.v(a), k.v(dst)});
          k.yield({k.i(0)});
        });
    k.call(opcode::buffer_store, {k.v(dst), k.pair(k.v(res[0]), k.i(0)), k.pair(16, 32), k.v(Out)});
    k.ret({k.v(Out)});
    t.buffer = k.done();
  }
  return t;
}

/// @swap_loop (example 08): Tile carries swap every iteration; scalar carries advance.
inline twin swap_loop() {
  twin t;
  const type tt = vec(16, 32);
  const type idx = scalar_type(dtype::index);
  {
    kernel k("swap_loop");
    const auto A = k.tensor("A", 16, 32), B = k.tensor("B", 16, 32), Out = k.output("Out", 64, 64);
    const auto count = k.scalar("count");
    const auto a = k.op(opcode::tile_load, {k.v(A), k.pair(0, 0), k.pair(16, 32)}, tt, "a");
    const auto b = k.op(opcode::tile_load, {k.v(B), k.pair(0, 0), k.pair(16, 32)}, tt, "b");
    const auto res = k.for_(k.i(0), k.v(count), k.i(1), {k.v(a), k.i(0), k.v(b), k.i(0)}, {tt, idx, tt, idx},
                            [&](value_id, const std::vector<value_id>& it) {
                              const auto row_next = k.op(opcode::scalar_add, {k.v(it[1]), k.i(1)}, idx, "row_next");
                              const auto col_next = k.op(opcode::scalar_add, {k.v(it[3]), k.i(2)}, idx, "column_next");
                              k.yield({k.v(it[2]), k.v(row_next), k.v(it[0]), k.v(col_next)});
                            });
    const auto r = k.op(opcode::tile_store, {k.v(res[0]), k.pair(k.v(res[1]), k.v(res[3])), k.v(Out)},
                        tensor_type(64, 64, dtype::fp32), "result");
    k.ret({k.v(r)});
    t.tile = k.done();
  }
  {
    kernel k("swap_loop", ir_stage::buffer);
    const auto A = k.tensor("A", 16, 32), B = k.tensor("B", 16, 32), Out = k.output("Out", 64, 64);
    const auto count = k.scalar("count");
    const auto left = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(16, 32), "left_buf");
    const auto right = k.op(opcode::buffer_alloc, {k.empty(), k.i(2048)}, buf(16, 32), "right_buf");
    const auto sl = k.op(opcode::buffer_alloc, {k.empty(), k.i(4096)}, buf(16, 32), "scratch_left");
    const auto sr = k.op(opcode::buffer_alloc, {k.empty(), k.i(6144)}, buf(16, 32), "scratch_right");
    k.call(opcode::buffer_load, {k.v(A), k.pair(0, 0), k.pair(16, 32), k.v(left)});
    k.call(opcode::buffer_load, {k.v(B), k.pair(0, 0), k.pair(16, 32), k.v(right)});
    const auto res =
        k.for_(k.i(0), k.v(count), k.i(1), {k.i(0), k.i(0)}, {idx, idx}, [&](value_id, const std::vector<value_id>& it) {
          k.call(opcode::buffer_copy, {k.v(right), k.v(sr)});
          k.call(opcode::buffer_copy, {k.v(left), k.v(sl)});
          k.call(opcode::buffer_copy, {k.v(sr), k.v(left)});
          k.call(opcode::buffer_copy, {k.v(sl), k.v(right)});
          const auto row_next = k.op(opcode::scalar_add, {k.v(it[0]), k.i(1)}, idx, "row_next");
          const auto col_next = k.op(opcode::scalar_add, {k.v(it[1]), k.i(2)}, idx, "column_next");
          k.yield({k.v(row_next), k.v(col_next)});
        });
    k.call(opcode::buffer_store, {k.v(left), k.pair(k.v(res[0]), k.v(res[1])), k.pair(16, 32), k.v(Out)});
    k.ret({k.v(Out)});
    t.buffer = k.done();
  }
  return t;
}

/// @count_up (example 08): a while loop whose condition reads a carried scalar.
inline twin count_up() {
  twin t;
  const type tt = vec(16, 32);
  const type idx = scalar_type(dtype::index);
  const type boolean = scalar_type(dtype::bool_);
  {
    kernel k("count_up");
    const auto A = k.tensor("A", 16, 32), Out = k.output("Out", 16, 32);
    const auto limit = k.scalar("limit");
    const auto a = k.op(opcode::tile_load, {k.v(A), k.pair(0, 0), k.pair(16, 32)}, tt, "a");
    const auto res = k.while_(
        {k.v(a), k.i(0)}, {tt, idx},
        [&](const std::vector<value_id>& it) {
          const auto c = k.op(opcode::scalar_lt, {k.v(it[1]), k.v(limit)}, boolean, "c");
          k.yield({k.v(c)});
        },
        [&](const std::vector<value_id>& it) {
          const auto next = k.op(opcode::tile_adds, {k.v(it[0]), k.f(1)}, tt, "acc_next");
          const auto kn = k.op(opcode::scalar_add, {k.v(it[1]), k.i(1)}, idx, "k_next");
          k.yield({k.v(next), k.v(kn)});
        });
    const auto r = k.op(opcode::tile_store, {k.v(res[0]), k.pair(0, 0), k.v(Out)}, tensor_type(16, 32, dtype::fp32), "result");
    k.ret({k.v(r)});
    t.tile = k.done();
  }
  {
    kernel k("count_up", ir_stage::buffer);
    const auto A = k.tensor("A", 16, 32), Out = k.output("Out", 16, 32);
    const auto limit = k.scalar("limit");
    const auto acc = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(16, 32), "acc_buf");
    k.call(opcode::buffer_load, {k.v(A), k.pair(0, 0), k.pair(16, 32), k.v(acc)});
    k.while_(
        {k.i(0)}, {idx},
        [&](const std::vector<value_id>& it) {
          const auto c = k.op(opcode::scalar_lt, {k.v(it[0]), k.v(limit)}, boolean, "c");
          k.yield({k.v(c)});
        },
        [&](const std::vector<value_id>& it) {
          k.call(opcode::buffer_adds, {k.v(acc), k.f(1), k.v(acc)});
          const auto kn = k.op(opcode::scalar_add, {k.v(it[0]), k.i(1)}, idx, "k_next");
          k.yield({k.v(kn)});
        });
    k.call(opcode::buffer_store, {k.v(acc), k.pair(0, 0), k.pair(16, 32), k.v(Out)});
    k.ret({k.v(Out)});
    t.buffer = k.done();
  }
  return t;
}

/// @per_block (example 09): the block index selects an 8-column FP32 window.
inline twin per_block() {
  twin t;
  const type idx = scalar_type(dtype::index);
  {
    kernel k("per_block");
    const auto X = k.tensor("X", 16, 256), Out = k.output("Out", 16, 256);
    const auto block = k.op(opcode::tile_get_block_idx, {}, idx, "block");
    const auto column = k.op(opcode::scalar_mul, {k.v(block), k.i(8)}, idx, "column");
    const auto x = k.op(opcode::tile_load, {k.v(X), k.pair(0, 0), k.pair(16, 256)}, vec(16, 256), "x");
    const auto part = k.op(opcode::tile_slice, {k.v(x), k.pair(16, 8), k.pair(k.i(0), k.v(column))}, vec(16, 8), "part");
    const auto scaled = k.op(opcode::tile_muls, {k.v(part), k.f(2)}, vec(16, 8), "scaled");
    const auto r = k.op(opcode::tile_store, {k.v(scaled), k.pair(k.i(0), k.v(column)), k.v(Out)},
                        tensor_type(16, 256, dtype::fp32), "result");
    k.ret({k.v(r)});
    t.tile = k.done();
  }
  {
    kernel k("per_block", ir_stage::buffer);
    const auto X = k.tensor("X", 16, 256), Out = k.output("Out", 16, 256);
    const auto block = k.op(opcode::buffer_get_block_idx, {}, idx, "block");
    const auto column = k.op(opcode::scalar_mul, {k.v(block), k.i(8)}, idx, "column");
    const auto x = k.op(opcode::buffer_alloc, {k.empty(), k.i(0)}, buf(16, 256), "x_buf");
    const auto s = k.op(opcode::buffer_alloc, {k.empty(), k.i(16384)}, buf(16, 8), "scaled_buf");
    k.call(opcode::buffer_load, {k.v(X), k.pair(0, 0), k.pair(16, 256), k.v(x)});
    const auto part = k.op(opcode::buffer_subview, {k.v(x), k.pair(k.i(0), k.v(column)), k.pair(16, 8)}, buf(16, 8), "part");
    k.call(opcode::buffer_muls, {k.v(part), k.f(2), k.v(s)});
    k.call(opcode::buffer_store, {k.v(s), k.pair(k.i(0), k.v(column)), k.pair(16, 8), k.v(Out)});
    k.ret({k.v(Out)});
    t.buffer = k.done();
  }
  return t;
}

/// `mnemonic at line:col` of the `nth` op with opcode `c` in the kernel's function.
inline std::string op_text(const program& p, opcode c, int nth = 0) {
  const function& f = p.functions.front();
  for (std::uint32_t o = 0; o < f.ops.size(); ++o)
    if (f.ops[o].code() == c && nth-- == 0)
      return std::string(mnemonic(c)) + " at " + std::to_string(f.op_locs[o].line) + ":" + std::to_string(f.op_locs[o].col);
  return "<no such op>";
}

}  // namespace sim_test
