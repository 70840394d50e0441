// SPDX-License-Identifier: Apache-2.0
/// @file tests/verify/kernels.hpp
/// Small constexpr-built kernels for the verifier tests: each valid kernel takes a `flaw` that
/// breaks exactly one rule, so every invalid case is a minimal edit of a kernel known to verify.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/verify.hpp"

namespace verify_test {
using namespace tile2buffer;

enum class flaw {
  none,
  // SSA
  use_before_def,
  use_other_region,
  unknown_value,
  valid_before_def,
  double_definition,
  // operand kinds and arity
  missing_operand,
  pair_kind,
  bad_keyword,
  // tile types
  add_shape,  ///< not a flaw any more: elementwise valid extents may differ (the kernel stays Tile)
  add_dtype,
  adds_scalar,
  load_dtype,
  load_extents,
  load_window,
  store_result,
  move_shape,
  slice_shape,
  slice_fit,
  assemble_result,
  matmul_spaces,
  matmul_shapes,
  matmul_acc_type,
  row_sum_shape,
  spmd_result,
  alloc_capacity,
  alloc_addr,
  storage_not_alloc,
  storage_space,
  storage_capacity,
  // scalar types
  scalar_dtypes,
  compare_result,
  cast_result,
  // regions
  if_cond,
  if_one_arm,
  yield_count,
  yield_type,
  for_bounds,
  for_carry,
  while_cond,
  yield_not_last,
  return_in_region,
  return_type,
  missing_return,
  // stage membership
  tile_param,
  tile_op_in_buffer,
  buffer_op_in_tile,
  tile_value_in_buffer,
  scalar_direction,
  // buffer types
  buffer_alloc_valid,
  buffer_add_descriptor,
  buffer_add_result,
  buffer_load_dtype,
  buffer_copy_spaces,
  subview_fit,
  reshape_bytes,
};

constexpr location at(std::uint32_t line, std::uint32_t col = 3) { return location{line, col}; }

constexpr type fp32_tile() { return tile_type(16, 32, dtype::fp32); }
constexpr type fp32_tensor() { return tensor_type(16, 32, dtype::fp32); }
constexpr type index_t() { return scalar_type(dtype::index); }

/// The spec's representation example (planned, PTOAS): load, load, add, store, return.
/// Lines: 2..4 allocs, 5..6 loads, 7 add, 8 store, 9 return.
constexpr function add_kernel(flaw fl = flaw::none) {
  function_builder b(function_kind::aiv, "add", at(1, 1));
  const type t = fp32_tensor();
  const value_id A = b.param("A", t, direction::in, at(1, 10));
  const value_id B = b.param("B", fl == flaw::tile_param ? fp32_tile() : t, direction::in, at(1, 20));
  const value_id Out = b.param("Out", t, direction::out, at(1, 30));
  const value_id n = b.param("n", index_t(), fl == flaw::scalar_direction ? direction::out : direction::in, at(1, 40));
  if (fl != flaw::missing_return) b.result_type(t);
  const value_id mem_a =
      b.emit1(opcode::tile_alloc, {operand::of(memory_space::vec), operand::integer(2048)}, mem_type(), "mem_a", at(2));
  const value_id mem_b =
      b.emit1(opcode::tile_alloc, {operand::of(memory_space::vec), operand::integer(fl == flaw::alloc_capacity ? 0 : 2048)},
              mem_type(), "mem_b", at(3), {kwarg{keyword::addr, operand::integer(fl == flaw::alloc_addr ? -64 : 0)}});
  const value_id mem_r = b.emit1(opcode::tile_alloc,
                                 {operand::of(fl == flaw::storage_space ? memory_space::mat : memory_space::vec),
                                  operand::integer(fl == flaw::storage_capacity ? 1024 : 2048)},
                                 mem_type(), "mem_r", at(4));
  const placed_type ta = in_storage(fp32_tile(), fl == flaw::storage_not_alloc ? n : mem_a);
  const placed_type tb = in_storage(fl == flaw::load_dtype ? tile_type(16, 32, dtype::fp16) : fp32_tile(), mem_b);
  const value_id lhs = b.emit1(opcode::tile_load,
                               {operand::of(A), fl == flaw::pair_kind ? operand::integer(0) : b.pair(0, 0),
                                fl == flaw::load_extents ? b.pair(32, 32) : b.pair(16, 32)},
                               ta, "lhs", at(5));
  const value_id rhs = b.emit1(opcode::tile_load,
                               {operand::of(B), fl == flaw::load_window ? b.pair(8, 0) : b.pair(0, 0), b.pair(16, 32)}, tb, "rhs",
                               at(6));
  placed_type tr = in_storage(fp32_tile(), mem_r);
  if (fl == flaw::add_shape) tr = in_storage(with_valid(fp32_tile(), extent::of(8), extent::of(32)), mem_r);
  if (fl == flaw::add_dtype) tr = in_storage(tile_type(16, 32, dtype::int32), mem_r);
  // Why: a value id one past this op's own result is the next op's result, i.e. defined later.
  const value_id later{static_cast<std::uint32_t>(b.fn().values.size() + 1)};
  const operand second = fl == flaw::use_before_def  ? operand::of(later)
                         : fl == flaw::unknown_value ? operand::of(value_id{9999})
                                                     : operand::of(rhs);
  value_id total;
  if (fl == flaw::missing_operand) {
    total = b.emit1(opcode::tile_add, {operand::of(lhs)}, tr, "total", at(7));
  } else if (fl == flaw::bad_keyword) {
    total =
        b.emit1(opcode::tile_add, {operand::of(lhs), second}, tr, "total", at(7), {kwarg{keyword::addr, operand::integer(0)}});
  } else {
    total = b.emit1(opcode::tile_add, {operand::of(lhs), second}, tr, "total", at(7));
  }
  const type stored = fl == flaw::store_result ? tensor_type(16, 16, dtype::fp32) : t;
  const value_id result =
      b.emit1(opcode::tile_store, {operand::of(total), b.pair(0, 0), operand::of(Out)}, stored, "result", at(8));
  if (fl == flaw::buffer_op_in_tile) b.emit1(opcode::buffer_get_block_idx, {}, index_t(), "blk", at(8, 40));
  if (fl == flaw::double_definition) b.fn().ops.back().results = b.fn().ops[b.fn().ops.size() - 2].results;
  if (fl != flaw::missing_return) b.emit0(opcode::cf_return, {operand::of(result)}, at(9));
  return b.finish();
}

/// Elementwise, view, reduction and query ops on unplanned Vec tiles (lines 2..).
constexpr function tile_ops_kernel(flaw fl = flaw::none) {
  function_builder b(function_kind::aiv, "tile_ops", at(1, 1));
  const type t = tensor_type(32, 32, dtype::fp32);
  const value_id X = b.param("X", t, direction::in, at(1, 10));
  const value_id Out = b.param("Out", t, direction::out, at(1, 20));
  const value_id s = b.param("s", scalar_type(dtype::fp32), direction::in, at(1, 30));
  b.result_type(t);
  const type big = tile_type(32, 32, dtype::fp32);
  const type small = tile_type(16, 32, dtype::fp32);
  const value_id x = b.emit1(opcode::tile_load, {operand::of(X), b.pair(0, 0), b.pair(32, 32)}, big, "x", at(2));
  const value_id half =
      b.emit1(opcode::tile_slice,
              {operand::of(x), b.pair(16, fl == flaw::slice_shape ? 16 : 32), b.pair(fl == flaw::slice_fit ? 24 : 16, 0)}, small,
              "half", at(3));
  const value_id scaled = b.emit1(
      opcode::tile_muls, {operand::of(half), fl == flaw::adds_scalar ? operand::of(x) : operand::of(s)}, small, "scaled", at(4));
  const value_id e = b.emit1(opcode::tile_exp, {operand::of(scaled)}, small, "e", at(5));
  const value_id placed = b.emit1(opcode::tile_assemble, {operand::of(x), operand::of(e), b.pair(0, 0)},
                                  fl == flaw::assemble_result ? small : big, "placed", at(6));
  const value_id moved = b.emit1(opcode::tile_move, {operand::of(placed)}, fl == flaw::move_shape ? small : big, "moved", at(7));
  const value_id sums = b.emit1(opcode::tile_row_sum, {operand::of(moved)},
                                tile_type(32, fl == flaw::row_sum_shape ? 2 : 1, dtype::fp32), "sums", at(8));
  b.emit1(opcode::tile_get_block_idx, {}, fl == flaw::spmd_result ? scalar_type(dtype::int32) : index_t(), "blk", at(9));
  const value_id r = b.emit1(opcode::tile_store, {operand::of(moved), b.pair(0, 0), operand::of(Out)}, t, "r", at(10));
  b.emit1(opcode::tile_full, {operand::decimal(0, 0)}, tile_type(32, 1, dtype::fp32), "zeros", at(11));
  (void)sums;
  b.emit0(opcode::cf_return, {operand::of(r)}, at(12));
  return b.finish();
}

/// The spec's cube example, planned by an addressed planner (lines 2..).
constexpr function cube_kernel(flaw fl = flaw::none) {
  function_builder b(function_kind::aic, "cube", at(1, 1));
  const value_id A = b.param("A", tensor_type(64, 64, dtype::fp16), direction::in, at(1, 10));
  const value_id B = b.param("B", tensor_type(64, 64, dtype::fp16), direction::in, at(1, 20));
  const value_id Out = b.param("Out", tensor_type(64, 64, dtype::fp32), direction::out, at(1, 30));
  b.result_type(tensor_type(64, 64, dtype::fp32));
  const auto alloc = [&](memory_space sp, std::int64_t cap, std::int64_t addr, std::string_view name, std::uint32_t line) {
    return b.emit1(opcode::tile_alloc, {operand::of(sp), operand::integer(cap)}, mem_type(), name, at(line),
                   {kwarg{keyword::addr, operand::integer(addr)}});
  };
  const value_id m_a = alloc(memory_space::mat, 8192, 0, "m_a", 2);
  const value_id m_b = alloc(memory_space::mat, 8192, 8192, "m_b", 3);
  const value_id l_a = alloc(memory_space::left, 8192, 0, "l_a", 4);
  const value_id r_b = alloc(memory_space::right, 8192, 0, "r_b", 5);
  const value_id m_acc = alloc(memory_space::acc, 16384, 0, "m_acc", 6);
  const value_id a = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(64, 64)},
                             in_storage(tile_type(64, 64, dtype::fp16, memory_space::mat), m_a), "a", at(7));
  const value_id bm = b.emit1(opcode::tile_load, {operand::of(B), b.pair(0, 0), b.pair(64, 64)},
                              in_storage(tile_type(64, 64, dtype::fp16, memory_space::mat), m_b), "b", at(8));
  const value_id a_l0 = b.emit1(opcode::tile_move, {operand::of(a)},
                                in_storage(tile_type(64, 64, dtype::fp16, memory_space::left), l_a), "a_l0", at(9));
  const value_id b_l0 = b.emit1(opcode::tile_move, {operand::of(bm)},
                                in_storage(tile_type(64, 64, dtype::fp16, memory_space::right), r_b), "b_l0", at(10));
  const placed_type acc = in_storage(tile_type(64, fl == flaw::matmul_shapes ? 32 : 64, dtype::fp32, memory_space::acc), m_acc);
  const value_id x =
      b.emit1(opcode::tile_matmul,
              {operand::of(fl == flaw::matmul_spaces ? b_l0 : a_l0), operand::of(fl == flaw::matmul_spaces ? a_l0 : b_l0)}, acc,
              "x", at(11));
  const value_id y =
      b.emit1(opcode::tile_matmul_acc, {operand::of(x), operand::of(a_l0), operand::of(b_l0)},
              fl == flaw::matmul_acc_type ? in_storage(tile_type(64, 64, dtype::int32, memory_space::acc), m_acc) : acc, "y",
              at(12), {kwarg{keyword::init_cond, operand::boolean(false)}});
  const value_id r = b.emit1(opcode::tile_store, {operand::of(y), b.pair(0, 0), operand::of(Out)},
                             tensor_type(64, 64, dtype::fp32), "result", at(13));
  b.emit0(opcode::cf_return, {operand::of(r)}, at(14));
  return b.finish();
}

/// The spec's branch example with a scalar prelude: an if with a Tile and an INDEX result.
/// Lines: 2..3 loads, 4 comparison, 5 if, 6..7 then arm, 8 else yield, 9 store, 10 return.
constexpr function branch_kernel(flaw fl = flaw::none) {
  function_builder b(function_kind::aiv, "branch", at(1, 1));
  const type t = fp32_tensor();
  const value_id A = b.param("A", t, direction::in, at(1, 10));
  const value_id B = b.param("B", t, direction::in, at(1, 20));
  const value_id Out = b.param("Out", tensor_type(32, 64, dtype::fp32), direction::out, at(1, 30));
  const value_id k = b.param("k", index_t(), direction::in, at(1, 40));
  const value_id wide = b.param("w", scalar_type(dtype::int32), direction::in, at(1, 50));
  b.result_type(tensor_type(32, 64, dtype::fp32));
  const value_id a = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32)}, fp32_tile(), "a", at(2));
  const value_id bb = b.emit1(opcode::tile_load, {operand::of(B), b.pair(0, 0), b.pair(16, 32)}, fp32_tile(), "b", at(3));
  const value_id flag = b.emit1(opcode::scalar_lt,
                                {operand::of(k), fl == flaw::scalar_dtypes ? operand::of(wide) : operand::integer(4)},
                                fl == flaw::compare_result ? index_t() : scalar_type(dtype::bool_), "flag", at(4));
  const region_id arms = b.reserve_regions(fl == flaw::if_one_arm ? 1 : 2);
  b.open_region(arms, {}, {});
  const value_id product = b.emit1(opcode::tile_mul, {operand::of(a), operand::of(bb)}, fp32_tile(), "product", at(6));
  if (fl == flaw::yield_not_last) {
    b.emit0(opcode::cf_yield, {operand::of(product), operand::integer(16)}, at(7));
    b.emit1(opcode::scalar_add, {operand::of(k), operand::integer(1)}, index_t(), "dead", at(7, 20));
  } else if (fl == flaw::return_in_region) {
    b.emit0(opcode::cf_return, {operand::of(Out)}, at(7));
  } else if (fl == flaw::yield_count) {
    b.emit0(opcode::cf_yield, {operand::of(product)}, at(7));
  } else {
    b.emit0(opcode::cf_yield, {operand::of(product), fl == flaw::yield_type ? operand::decimal(15, -1) : operand::integer(16)},
            at(7));
  }
  b.close_region();
  if (fl != flaw::if_one_arm) {
    b.open_region(region_id{arms.index + 1}, {}, {});
    b.emit0(opcode::cf_yield, {operand::of(a), operand::integer(0)}, at(8));
    b.close_region();
  }
  const type rts[] = {fp32_tile(), index_t()};
  const std::string_view names[] = {"chosen", "offset"};
  const operand cond[] = {fl == flaw::if_cond ? operand::of(k) : operand::of(flag)};
  const op_id iff = b.emit(opcode::cf_if, cond, {}, rts, names, at(5), span32{arms.index, fl == flaw::if_one_arm ? 1u : 2u});
  const value_id chosen = b.fn().result(iff, 0);
  const value_id offset = b.fn().result(iff, 1);
  const operand stored = fl == flaw::use_other_region ? operand::of(product) : operand::of(chosen);
  const value_id r = b.emit1(opcode::tile_store, {stored, b.tuple({operand::of(offset), operand::integer(0)}), operand::of(Out)},
                             tensor_type(32, 64, dtype::fp32), "result", at(9));
  b.emit0(opcode::cf_return, {operand::of(fl == flaw::return_type ? A : r)}, at(10));
  return b.finish();
}

/// The spec's loop example: a for with Tile and INDEX carries (swap), then a while (lines 2..).
constexpr function loop_kernel(flaw fl = flaw::none) {
  function_builder b(function_kind::aiv, "loops", at(1, 1));
  const type t = fp32_tensor();
  const value_id A = b.param("A", t, direction::in, at(1, 10));
  const value_id Out = b.param("Out", tensor_type(64, 64, dtype::fp32), direction::out, at(1, 20));
  const value_id count = b.param("count", index_t(), direction::in, at(1, 30));
  const value_id cols = b.param("cols", index_t(), direction::in, at(1, 40));
  const value_id x = b.param("x", scalar_type(dtype::fp32), direction::in, at(1, 50));
  b.result_type(tensor_type(64, 64, dtype::fp32));
  const value_id a = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32)}, fp32_tile(), "a", at(2));
  // for i in range(0, count, 1) iter(left = a, row = 0) -> (Tile, INDEX)
  const region_id body = b.reserve_regions(1);
  const type carried[] = {index_t(), fp32_tile(), fl == flaw::for_carry ? scalar_type(dtype::int32) : index_t()};
  const std::string_view carried_names[] = {"i", "left", "row"};
  b.open_region(body, carried, carried_names);
  const value_id left = b.fn().arg(body, 1);
  const value_id row = b.fn().arg(body, 2);
  const value_id next = b.emit1(opcode::tile_adds, {operand::of(left), operand::decimal(1, 0)}, fp32_tile(), "next", at(4));
  const value_id row_next = b.emit1(opcode::scalar_add, {operand::of(row), operand::integer(1)}, carried[2], "row_next", at(5));
  b.emit0(opcode::cf_yield, {operand::of(next), operand::of(row_next)}, at(6));
  b.close_region();
  const operand for_args[] = {operand::integer(0), fl == flaw::for_bounds ? operand::of(x) : operand::of(count),
                              operand::integer(1), operand::of(a), operand::integer(0)};
  const type for_results[] = {fp32_tile(), index_t()};
  const std::string_view for_names[] = {"left_out", "row_out"};
  const op_id loop = b.emit(opcode::cf_for, for_args, {}, for_results, for_names, at(3), span32{body.index, 1});
  const value_id left_out = b.fn().result(loop, 0);
  const value_id row_out = b.fn().result(loop, 1);
  // k_out = while iter(k = 0) cond(k < cols) { k_next = k + 1; yield k_next }
  const region_id wr = b.reserve_regions(2);
  const type wt[] = {index_t()};
  const std::string_view wn[] = {"k"};
  b.open_region(wr, wt, wn);
  const value_id c =
      b.emit1(opcode::scalar_lt, {operand::of(b.fn().arg(wr, 0)), operand::of(cols)}, scalar_type(dtype::bool_), "c", at(8));
  b.emit0(opcode::cf_yield, {fl == flaw::while_cond ? operand::of(b.fn().arg(wr, 0)) : operand::of(c)}, at(8, 30));
  b.close_region();
  const region_id wbody{wr.index + 1};
  const std::string_view wn2[] = {"k2"};
  b.open_region(wbody, wt, wn2);
  const value_id k_next =
      b.emit1(opcode::scalar_add, {operand::of(b.fn().arg(wbody, 0)), operand::integer(1)}, index_t(), "k_next", at(9));
  b.emit0(opcode::cf_yield, {operand::of(k_next)}, at(10));
  b.close_region();
  const operand w_args[] = {operand::integer(0)};
  const std::string_view w_names[] = {"k_out"};
  const op_id wl = b.emit(opcode::cf_while, w_args, {}, wt, w_names, at(7), span32{wr.index, 2});
  const value_id k_out = b.fn().result(wl, 0);
  const value_id col = b.emit1(opcode::scalar_mul, {operand::of(k_out), operand::integer(0)}, index_t(), "col", at(11));
  const value_id r = b.emit1(opcode::tile_store,
                             {operand::of(left_out), b.tuple({operand::of(row_out), operand::of(col)}), operand::of(Out)},
                             tensor_type(64, 64, dtype::fp32), "result", at(12));
  b.emit0(opcode::cf_return, {operand::of(r)}, at(13));
  return b.finish();
}

/// Runtime valid extents (spec §runtime valid), plus a cast (lines 2..).
constexpr function runtime_valid_kernel(flaw fl = flaw::none) {
  function_builder b(function_kind::aiv, "runtime_valid", at(1, 1));
  const type t = tensor_type(16, 64, dtype::fp32);
  const value_id X = b.param("X", t, direction::in, at(1, 10));
  const value_id Out = b.param("Out", t, direction::out, at(1, 20));
  const value_id n = b.param("n", scalar_type(dtype::int32), direction::in, at(1, 30));
  b.result_type(t);
  // Why: with valid_before_def the tile's valid extent names `cols`, defined only after it.
  const value_id cols_early{static_cast<std::uint32_t>(b.fn().values.size() + 1)};
  const value_id loaded_early = fl == flaw::valid_before_def
                                    ? b.emit1(opcode::tile_create, {},
                                              with_valid(tile_type(16, 64, dtype::fp32), extent::of(16), extent::of(cols_early)),
                                              "early", at(2))
                                    : value_id{};
  (void)loaded_early;
  const value_id cols = b.emit1(opcode::scalar_cast, {operand::of(n), operand::of(dtype::index)},
                                fl == flaw::cast_result ? scalar_type(dtype::int64) : index_t(), "cols", at(3));
  const type vt = with_valid(tile_type(16, 64, dtype::fp32), extent::of(16), extent::of(cols));
  const value_id loaded = b.emit1(
      opcode::tile_load, {operand::of(X), b.pair(0, 0), b.pair(16, 64), b.tuple({operand::integer(16), operand::of(cols)})}, vt,
      "loaded", at(4));
  const value_id doubled = b.emit1(opcode::tile_add, {operand::of(loaded), operand::of(loaded)}, vt, "doubled", at(5));
  const value_id r = b.emit1(opcode::tile_store, {operand::of(doubled), b.pair(0, 0), operand::of(Out)}, t, "result", at(6));
  b.emit0(opcode::cf_return, {operand::of(r)}, at(7));
  return b.finish();
}

/// The lowered representation example at Buffer stage (lines 2..).
constexpr function buffer_kernel(flaw fl = flaw::none) {
  function_builder b(function_kind::aiv, "add", at(1, 1));
  b.fn().stage = ir_stage::buffer;
  const type t = fp32_tensor();
  const value_id A = b.param("A", t, direction::in, at(1, 10));
  const value_id B = b.param("B", fl == flaw::buffer_load_dtype ? tensor_type(16, 32, dtype::fp16) : t, direction::in, at(1, 20));
  const value_id Out = b.param("Out", t, direction::out, at(1, 30));
  b.result_type(t);
  const type bt = buffer_type(16, 32, dtype::fp32);
  const value_id a_buf = b.emit1(opcode::buffer_alloc, {b.tuple({})}, bt, "a_buf", at(2));
  const value_id b_buf = b.emit1(opcode::buffer_alloc, {b.tuple({}), operand::integer(2048)}, bt, "b_buf", at(3));
  const value_id r_buf =
      b.emit1(opcode::buffer_alloc, {fl == flaw::buffer_alloc_valid ? b.tuple({operand::integer(16)}) : b.tuple({})},
              fl == flaw::buffer_add_descriptor ? with_valid(bt, extent::of(8), extent::of(32)) : bt, "r_buf", at(4));
  const value_id root =
      b.emit1(opcode::buffer_alloc, {b.tuple({}), operand::integer(8192)}, buffer_type(128, 32, dtype::uint8), "root", at(5));
  const value_id window = b.emit1(opcode::buffer_subview, {operand::of(root), b.pair(fl == flaw::subview_fit ? 100 : 2, 0)},
                                  buffer_type(64, 32, dtype::uint8), "window", at(6));
  const value_id part = b.emit1(opcode::buffer_reshape, {operand::of(window)},
                                fl == flaw::reshape_bytes ? buffer_type(16, 16, dtype::fp32) : buffer_type(16, 32, dtype::fp32),
                                "part", at(7));
  const value_id mat =
      b.emit1(opcode::buffer_alloc, {b.tuple({})}, buffer_type(16, 32, dtype::fp32, memory_space::mat), "mat", at(8));
  if (fl == flaw::tile_value_in_buffer) b.emit1(opcode::scalar_const, {operand::integer(1)}, fp32_tile(), "bad", at(9));
  b.emit0(opcode::buffer_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32), operand::of(a_buf)}, at(10));
  b.emit0(opcode::buffer_load, {operand::of(B), b.pair(0, 0), b.pair(16, 32), operand::of(b_buf)}, at(11));
  b.emit0(opcode::buffer_copy, {operand::of(fl == flaw::buffer_copy_spaces ? mat : part), operand::of(a_buf)}, at(12));
  if (fl == flaw::buffer_add_result) {
    b.emit1(opcode::buffer_add, {operand::of(a_buf), operand::of(b_buf), operand::of(r_buf)}, bt, "oops", at(13));
  } else {
    b.emit0(opcode::buffer_add, {operand::of(a_buf), operand::of(b_buf), operand::of(r_buf)}, at(13));
  }
  if (fl == flaw::tile_op_in_buffer) b.emit1(opcode::tile_create, {}, fp32_tile(), "t", at(14));
  b.emit0(opcode::buffer_store, {operand::of(r_buf), b.pair(0, 0), b.pair(16, 32), operand::of(Out)}, at(15));
  b.emit0(opcode::cf_return, {operand::of(Out)}, at(16));
  return b.finish();
}

/// A program: two kernels and an orchestration that submits both (spec example 02).
enum class orch_flaw {
  none,
  tile_op,
  submit_in_device,
  unknown_callee,
  callee_not_device,
  arg_count,
  arg_type,
  dep_not_task,
  duplicate_name
};
constexpr program orchestrated(orch_flaw fl = orch_flaw::none) {
  program p;
  {
    p.functions.push_back(add_kernel());
    if (fl == orch_flaw::duplicate_name) {
      p.functions.push_back(add_kernel());
      p.functions.back().loc = at(20, 1);
    }
  }
  {
    function_builder b(function_kind::aiv, "peak", at(30, 1));
    const value_id A = b.param("A", fp32_tensor(), direction::in, at(30, 10));
    const value_id Out = b.param("Out", tensor_type(16, 1, dtype::fp32), direction::out, at(30, 20));
    b.result_type(tensor_type(16, 1, dtype::fp32));
    const value_id x = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32)}, fp32_tile(), "x", at(31));
    const value_id m = b.emit1(opcode::tile_row_max, {operand::of(x)}, tile_type(16, 1, dtype::fp32), "m", at(32));
    if (fl == orch_flaw::submit_in_device)
      b.emit1(opcode::orch_submit, {b.symbol("add"), b.tuple({}), b.tuple({})}, task_type(), "t", at(33));
    const value_id r = b.emit1(opcode::tile_store, {operand::of(m), b.pair(0, 0), operand::of(Out)},
                               tensor_type(16, 1, dtype::fp32), "r", at(34));
    b.emit0(opcode::cf_return, {operand::of(r)}, at(35));
    p.functions.push_back(b.finish());
  }
  function_builder b(function_kind::orchestration, "main", at(40, 1));
  const value_id A = b.param("A", fp32_tensor(), direction::in, at(40, 10));
  const value_id B = b.param("B", fp32_tensor(), direction::in, at(40, 20));
  const value_id Out = b.param("Out", fp32_tensor(), direction::out, at(40, 30));
  const value_id Peak = b.param("Peak", tensor_type(16, 1, dtype::fp32), direction::out, at(40, 40));
  const value_id n = b.param("n", index_t(), direction::in, at(40, 50));
  const std::string_view callee = fl == orch_flaw::unknown_callee ? "nope" : fl == orch_flaw::callee_not_device ? "main" : "add";
  const operand args0 = fl == orch_flaw::arg_count ? b.tuple({operand::of(A), operand::of(B), operand::of(Out)})
                        : fl == orch_flaw::arg_type
                            ? b.tuple({operand::of(A), operand::of(Peak), operand::of(Out), operand::of(n)})
                            : b.tuple({operand::of(A), operand::of(B), operand::of(Out), operand::integer(3)});
  const value_id t0 = b.emit1(opcode::orch_submit, {b.symbol(callee), args0, b.tuple({})}, task_type(), "t0", at(41));
  if (fl == orch_flaw::tile_op) b.emit1(opcode::tile_create, {}, fp32_tile(), "bad", at(42));
  b.emit1(opcode::orch_submit,
          {b.symbol("peak"), b.tuple({operand::of(Out), operand::of(Peak)}),
           b.tuple({operand::of(fl == orch_flaw::dep_not_task ? n : t0)})},
          task_type(), "t1", at(43));
  b.emit0(opcode::cf_return, {}, at(44));
  p.functions.push_back(b.finish());
  return p;
}

constexpr program single(function f) {
  program p;
  p.functions.push_back(std::move(f));
  return p;
}

/// Number of diagnostics of `p` (constexpr-friendly: no diagnostic escapes the evaluation).
constexpr std::size_t error_count(const program& p) { return verify(p).size(); }

/// Whether some diagnostic contains `needle`, with source "verify" and (when given) location `loc`.
constexpr bool reports(const std::vector<diagnostic>& ds, std::string_view needle, location loc = {}) {
  for (const auto& d : ds)
    if (d.source == std::string_view("verify") && d.message.view().find(needle) != std::string_view::npos &&
        (!loc.known() || d.loc == loc))
      return true;
  return false;
}

}  // namespace verify_test
