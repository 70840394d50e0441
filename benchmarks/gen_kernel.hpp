// SPDX-License-Identifier: Apache-2.0
/// @file gen_kernel.hpp
/// Benchmark kernels built in memory with `function_builder` (so generation is never timed): the
/// same programs as `tools/gen_tile.py` and, shape for shape, as `../shared/bench/mlir/gen_mlir.py`.
///
///     tile2buffer::program p = tile2buffer::bench::make_program(tile2buffer::bench::shape::shared, 100000);
///
/// line, shared, loops: one `aiv @f(A, B, Out)`: v0, v1 are loads of A and B; compute op i (add
/// on even i, mul on odd) reads v[-1] and v[-1-d] with d = 1 + i % 4 (clamped to the first value);
/// with `reuse_every` K, op i with i % K == K - 1 reads v0 instead (one input live across the whole
/// kernel); the last value is stored to Out and the store's result returned. `shape::loops` groups
/// the ops into chained `for` loops of `body` ops (4 trips) carrying one tile. Names are `v<k>`,
/// `r<k>`, `i<k>`, `acc<k>` (window adds `p<k>`, `w<k>`; cube names its operands `a`, `b`, `la`,
/// `ra`, `lb`, `rb`), so `print` of the kernel is exactly gen_tile.py's text.
///
/// Two shapes have no MLIR twin and ignore `reuse_every` (gen_tile.py's docstring has their text):
/// `shape::window` reads every compute op's second operand through its own static, row-aligned
/// `tile.slice` of one of two [64, 32] parents (so the window path is exercised once per op and
/// the parents live across the kernel); `shape::cube` is an `aic` chain of one `tile.matmul` and
/// N-1 in-place `tile.matmul_acc` on four [16, 16] FP16 operands, so any N fits every planner.
/// `shape::valid` (no MLIR twin either) takes a fourth parameter `rows: Scalar[INDEX]`: w0 is
/// `tile.set_validshape` of the load of A to [rows, 32], then op i writes w<i+1> =
/// tile.add|tile.mul(w<i>, w<i>) (add on even i), every value runtime-valid, so each compute op
/// lowers through the valid-extent path (dynamic handles) and asks the shared-storage rule.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/builder.hpp"

namespace tile2buffer {
namespace bench {

enum class shape : std::uint8_t { line, shared, loops, window, cube, valid };

constexpr std::string_view shape_name(shape s) {
  switch (s) {
    case shape::line: return "line";
    case shape::shared: return "shared";
    case shape::loops: return "loops";
    case shape::window: return "window";
    case shape::cube: return "cube";
    case shape::valid: return "valid";
  }
  return "?";
}
/// The shape named `name`, if any.
constexpr std::optional<shape> parse_shape(std::string_view name) {
  for (const shape s : {shape::line, shape::shared, shape::loops, shape::window, shape::cube, shape::valid})
    if (shape_name(s) == name) return s;
  return std::nullopt;
}
/// The shape's `--reuse-every` default, as in gen_mlir.py's figures (shared, loops: 16; line:
/// never; window and cube do not reuse).
constexpr int default_reuse(shape s) { return s == shape::shared || s == shape::loops ? 16 : 0; }

namespace detail {
/// `prefix` followed by the decimal `k`, in a small reusable buffer.
class numbered_name {
 public:
  std::string_view operator()(std::string_view prefix, std::int64_t k) {
    std::size_t n = prefix.copy(buf_, sizeof buf_);
    n = static_cast<std::size_t>(std::to_chars(buf_ + n, buf_ + sizeof buf_, k).ptr - buf_);
    return {buf_, n};
  }

 private:
  char buf_[40]{};
};
}  // namespace detail

/// Every shape's `@f(A, B, Out) -> Out` header: the builder and the three parameters.
struct kernel_header {
  function_builder b;
  value_id A, B, Out;
};
inline kernel_header begin_kernel(function_kind kind, const type& in, const type& out) {
  kernel_header h{function_builder(kind, "f"), {}, {}, {}};
  h.A = h.b.param("A", in);
  h.B = h.b.param("B", in);
  h.Out = h.b.param("Out", out, direction::out);
  h.b.result_type(out);
  return h;
}

/// `shape::window`: see the file comment.
inline function make_window_kernel(std::int64_t n) {
  const type tt = tile_type(16, 32, dtype::fp32);
  const type parent_t = tile_type(64, 32, dtype::fp32);
  const type gm_in = tensor_type(64, 32, dtype::fp32);
  const type gm_out = tensor_type(16, 32, dtype::fp32);
  auto [b, A, B, Out] = begin_kernel(function_kind::aiv, gm_in, gm_out);
  detail::numbered_name nm;
  const value_id parents[] = {b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(64, 32)}, parent_t, "p0"),
                              b.emit1(opcode::tile_load, {operand::of(B), b.pair(0, 0), b.pair(64, 32)}, parent_t, "p1")};
  value_id last{};
  for (std::int64_t i = 0; i < n; ++i) {
    const value_id w =
        b.emit1(opcode::tile_slice, {operand::of(parents[i % 2]), b.pair(16, 32), b.pair(16 * (i / 2 % 4), 0)}, tt, nm("w", i));
    const value_id lhs = i == 0 ? w : last;
    last = b.emit1(i % 2 == 0 ? opcode::tile_add : opcode::tile_mul, {operand::of(lhs), operand::of(w)}, tt, nm("v", i));
  }
  const value_id result = b.emit1(opcode::tile_store, {operand::of(last), b.pair(0, 0), operand::of(Out)}, gm_out, "result");
  b.emit0(opcode::cf_return, {operand::of(result)});
  return b.finish();
}

/// `shape::cube`: see the file comment.
inline function make_cube_kernel(std::int64_t n) {
  const type mat_t = tile_type(16, 16, dtype::fp16, memory_space::mat);
  const type left_t = tile_type(16, 16, dtype::fp16, memory_space::left);
  const type right_t = tile_type(16, 16, dtype::fp16, memory_space::right);
  const type acc_t = tile_type(16, 16, dtype::fp32, memory_space::acc);
  const type gm_in = tensor_type(16, 16, dtype::fp16);
  const type gm_out = tensor_type(16, 16, dtype::fp32);
  auto [b, A, B, Out] = begin_kernel(function_kind::aic, gm_in, gm_out);
  detail::numbered_name nm;
  const value_id a = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 16)}, mat_t, "a");
  const value_id bm = b.emit1(opcode::tile_load, {operand::of(B), b.pair(0, 0), b.pair(16, 16)}, mat_t, "b");
  const value_id la = b.emit1(opcode::tile_move, {operand::of(a)}, left_t, "la");
  const value_id ra = b.emit1(opcode::tile_move, {operand::of(a)}, right_t, "ra");
  const value_id lb = b.emit1(opcode::tile_move, {operand::of(bm)}, left_t, "lb");
  const value_id rb = b.emit1(opcode::tile_move, {operand::of(bm)}, right_t, "rb");
  value_id last = b.emit1(opcode::tile_matmul, {operand::of(la), operand::of(rb)}, acc_t, "v0");
  for (std::int64_t i = 1; i < n; ++i) {
    const bool even = i % 2 == 0;
    last = b.emit1(opcode::tile_matmul_acc, {operand::of(last), operand::of(even ? la : lb), operand::of(even ? rb : ra)}, acc_t,
                   nm("v", i));
  }
  const value_id result = b.emit1(opcode::tile_store, {operand::of(last), b.pair(0, 0), operand::of(Out)}, gm_out, "result");
  b.emit0(opcode::cf_return, {operand::of(result)});
  return b.finish();
}

/// `shape::valid`: see the file comment.
inline function make_valid_kernel(std::int64_t n) {
  const type gm = tensor_type(16, 32, dtype::fp32);
  auto [b, A, B, Out] = begin_kernel(function_kind::aiv, gm, gm);
  static_cast<void>(B);
  const value_id rows = b.param("rows", scalar_type(dtype::index));
  const type vt = with_valid(tile_type(16, 32, dtype::fp32), extent::of(rows), extent::of(32));
  detail::numbered_name nm;
  const value_id v0 =
      b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32)}, tile_type(16, 32, dtype::fp32), "v0");
  value_id last = b.emit1(opcode::tile_set_validshape, {operand::of(v0), operand::of(rows), operand::integer(32)}, vt, "w0");
  for (std::int64_t i = 0; i < n; ++i)
    last = b.emit1(i % 2 == 0 ? opcode::tile_add : opcode::tile_mul, {operand::of(last), operand::of(last)}, vt, nm("w", i + 1));
  const value_id result = b.emit1(opcode::tile_store, {operand::of(last), b.pair(0, 0), operand::of(Out)}, gm, "result");
  b.emit0(opcode::cf_return, {operand::of(result)});
  return b.finish();
}

/// The benchmark kernel of `n` compute ops; `reuse_every` < 0 takes the shape's default.
inline function make_kernel(shape s, std::int64_t n, int body = 8, int reuse_every = -1) {
  if (s == shape::window) return make_window_kernel(n);
  if (s == shape::cube) return make_cube_kernel(n);
  if (s == shape::valid) return make_valid_kernel(n);
  const int reuse = reuse_every < 0 ? default_reuse(s) : reuse_every;
  const type tt = tile_type(16, 32, dtype::fp32);
  const type gm = tensor_type(16, 32, dtype::fp32);
  kernel_header h = begin_kernel(function_kind::aiv, gm, gm);  // not a structured binding: lambdas below use it
  function_builder& b = h.b;
  const value_id A = h.A, B = h.B, Out = h.Out;
  detail::numbered_name nm;
  const value_id v0 = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32)}, tt, "v0");
  const value_id v1 = b.emit1(opcode::tile_load, {operand::of(B), b.pair(0, 0), b.pair(16, 32)}, tt, "v1");
  std::int64_t next_name = 2;
  std::vector<value_id> vals;
  const auto emit = [&](std::int64_t i) {
    const value_id lhs = vals.back();
    value_id rhs;
    if (reuse > 0 && i % reuse == reuse - 1) {
      rhs = v0;
    } else {
      const auto d = static_cast<std::size_t>(1 + i % 4);
      rhs = vals[vals.size() - 1 >= d ? vals.size() - 1 - d : 0];
    }
    const opcode c = i % 2 == 0 ? opcode::tile_add : opcode::tile_mul;
    vals.push_back(b.emit1(c, {operand::of(lhs), operand::of(rhs)}, tt, nm("v", next_name++)));
  };

  value_id last;
  if (s != shape::loops) {
    vals.reserve(static_cast<std::size_t>(n) + 2);
    vals = {v0, v1};
    for (std::int64_t i = 0; i < n; ++i) emit(i);
    last = vals.back();
  } else {
    value_id cur = v1;
    const type index_t = scalar_type(dtype::index);
    for (std::int64_t i = 0, loop = 0; i < n; ++loop) {
      const std::int64_t nb = body < n - i ? body : n - i;
      const region_id r = b.reserve_regions(1);
      const type arg_types[] = {index_t, tt};
      // Why copies: both names must outlive `open_region`, and `nm` has one buffer.
      detail::numbered_name nm_i, nm_acc;
      const std::string_view arg_names[] = {nm_i("i", loop), nm_acc("acc", loop)};
      b.open_region(r, arg_types, arg_names);
      vals = {b.fn().arg(r, 1), v0};
      for (std::int64_t j = 0; j < nb; ++j, ++i) emit(i);
      b.emit0(opcode::cf_yield, {operand::of(vals.back())});
      b.close_region();
      const operand for_args[] = {operand::integer(0), operand::integer(4), operand::integer(1), operand::of(cur)};
      const std::string_view res_names[] = {nm("r", loop)};
      const op_id o = b.emit(opcode::cf_for, for_args, {}, std::span<const type>(&tt, 1), res_names, {}, span32{r.index, 1});
      cur = b.fn().result(o);
    }
    last = cur;
  }
  const value_id result = b.emit1(opcode::tile_store, {operand::of(last), b.pair(0, 0), operand::of(Out)}, gm, "result");
  b.emit0(opcode::cf_return, {operand::of(result)});
  return b.finish();
}

inline program make_program(shape s, std::int64_t n, int body = 8, int reuse_every = -1) {
  program p;
  p.functions.push_back(make_kernel(s, n, body, reuse_every));
  return p;
}

}  // namespace bench
}  // namespace tile2buffer
