// SPDX-License-Identifier: Apache-2.0
/// @file create_test.cpp
/// The typed builders (ir/create.hpp): the verifier's kernels (tests/verify/kernels.hpp, built
/// with the positional `emit1`/`emit0`/`emit`) rebuilt with `create` come out byte-identical,
/// arena by arena, and verify; in constant evaluation and at run time. Including
/// ir/create_check.hpp checks every opcode's operand and keyword structs against the catalogue.
#include <doctest/doctest.h>

#include <array>
#include <string_view>
#include <vector>

#include "../verify/kernels.hpp"
#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/ir/create_check.hpp"
#include "tile2buffer/ir/equal.hpp"

using namespace tile2buffer;
using verify_test::at;
using verify_test::fp32_tensor;
using verify_test::fp32_tile;
using verify_test::index_t;

namespace {

/// Byte-identical: every arena of the two functions holds the same records in the same order
/// (operand pools, kwargs, interned names and types included), not only an equivalent program.
constexpr bool identical(const function& a, const function& b) {
  const auto same_ops = [&] {
    if (a.ops.size() != b.ops.size() || a.op_locs.size() != b.op_locs.size()) return false;
    for (std::size_t i = 0; i < a.ops.size(); ++i) {
      const op_node &x = a.ops[i], &y = b.ops[i];
      if (!(x.header() == y.header() && a.op_locs[i] == b.op_locs[i] && x.results == y.results && x.regions() == y.regions()))
        return false;
    }
    return true;
  };
  const auto same_values = [&] {
    if (a.values.size() != b.values.size()) return false;
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      const value_info &x = a.values[i], &y = b.values[i];
      if (!(x.ty == y.ty && x.def == y.def && x.index == y.index && x.region == y.region)) return false;
    }
    return true;
  };
  const auto same_regions = [&] {
    if (a.regions.size() != b.regions.size()) return false;
    for (std::size_t i = 0; i < a.regions.size(); ++i) {
      const region_info &x = a.regions[i], &y = b.regions[i];
      if (!(x.ops == y.ops && x.args == y.args && x.parent == y.parent)) return false;
    }
    return true;
  };
  const auto same_params = [&] {
    if (a.params.size() != b.params.size()) return false;
    for (std::size_t i = 0; i < a.params.size(); ++i) {
      const param_info &x = a.params[i], &y = b.params[i];
      if (!(x.value == y.value && x.dir == y.dir && x.loc == y.loc)) return false;
    }
    return true;
  };
  return a.kind == b.kind && a.name == b.name && a.stage == b.stage && a.buffer_ir_selected == b.buffer_ir_selected &&
         a.target == b.target && a.loc == b.loc && a.body == b.body && same_params() && a.results == b.results && same_values() &&
         a.value_names == b.value_names && a.types == b.types && same_ops() && same_regions() && a.region_ops == b.region_ops &&
         a.operands == b.operands && a.kwargs == b.kwargs && a.names == b.names && structurally_equal(a, b);
}

/// verify_test::add_kernel() with `create`.
constexpr function add_kernel() {
  function_builder b(function_kind::aiv, "add", at(1, 1));
  const type t = fp32_tensor();
  const value_id A = b.param("A", t, direction::in, at(1, 10));
  const value_id B = b.param("B", t, direction::in, at(1, 20));
  const value_id Out = b.param("Out", t, direction::out, at(1, 30));
  b.param("n", index_t(), direction::in, at(1, 40));
  b.result_type(t);
  const value_id mem_a = b.create<tile::alloc>({.space = memory_space::vec, .capacity = 2048}, mem_type(), "mem_a", at(2));
  const value_id mem_b =
      b.create<tile::alloc>({.space = memory_space::vec, .capacity = 2048}, mem_type(), "mem_b", at(3), {.addr = 0});
  const value_id mem_r = b.create<tile::alloc>({.space = memory_space::vec, .capacity = 2048}, mem_type(), "mem_r", at(4));
  const value_id lhs =
      b.create<tile::load>({.tensor = A, .offsets = {0, 0}, .shape = {16, 32}}, in_storage(fp32_tile(), mem_a), "lhs", at(5));
  const value_id rhs =
      b.create<tile::load>({.tensor = B, .offsets = {0, 0}, .shape = {16, 32}}, in_storage(fp32_tile(), mem_b), "rhs", at(6));
  const value_id total = b.create<tile::add>({.lhs = lhs, .rhs = rhs}, in_storage(fp32_tile(), mem_r), "total", at(7));
  const value_id result = b.create<tile::store>({.tile = total, .offsets = {0, 0}, .tensor = Out}, t, "result", at(8));
  b.create<cf::return_>({.values = {result}}, at(9));
  return b.finish();
}

/// verify_test::tile_ops_kernel(): views, elementwise, reductions, queries, a decimal literal.
constexpr function tile_ops_kernel() {
  function_builder b(function_kind::aiv, "tile_ops", at(1, 1));
  const type t = tensor_type(32, 32, dtype::fp32);
  const value_id X = b.param("X", t, direction::in, at(1, 10));
  const value_id Out = b.param("Out", t, direction::out, at(1, 20));
  const value_id s = b.param("s", scalar_type(dtype::fp32), direction::in, at(1, 30));
  b.result_type(t);
  const type big = tile_type(32, 32, dtype::fp32);
  const type small = tile_type(16, 32, dtype::fp32);
  const value_id x = b.create<tile::load>({.tensor = X, .offsets = {0, 0}, .shape = {32, 32}}, big, "x", at(2));
  const value_id half = b.create<tile::slice>({.source = x, .shape = {16, 32}, .offsets = {16, 0}}, small, "half", at(3));
  const value_id scaled = b.create<tile::muls>({.source = half, .scalar = s}, small, "scaled", at(4));
  const value_id e = b.create<tile::exp>({.source = scaled}, small, "e", at(5));
  const value_id placed = b.create<tile::assemble>({.target = x, .source = e, .offsets = {0, 0}}, big, "placed", at(6));
  const value_id moved = b.create<tile::move>({.source = placed}, big, "moved", at(7));
  b.create<tile::row_sum>({.source = moved}, tile_type(32, 1, dtype::fp32), "sums", at(8));
  b.create<tile::get_block_idx>({}, index_t(), "blk", at(9));
  const value_id r = b.create<tile::store>({.tile = moved, .offsets = {0, 0}, .tensor = Out}, t, "r", at(10));
  b.create<tile::full>({.value = decimal{0, 0}}, tile_type(32, 1, dtype::fp32), "zeros", at(11));
  b.create<cf::return_>({.values = {r}}, at(12));
  return b.finish();
}

/// verify_test::cube_kernel(): placed allocations, matmul and matmul_acc with `init_cond`.
constexpr function cube_kernel() {
  function_builder b(function_kind::aic, "cube", at(1, 1));
  const value_id A = b.param("A", tensor_type(64, 64, dtype::fp16), direction::in, at(1, 10));
  const value_id B = b.param("B", tensor_type(64, 64, dtype::fp16), direction::in, at(1, 20));
  const value_id Out = b.param("Out", tensor_type(64, 64, dtype::fp32), direction::out, at(1, 30));
  b.result_type(tensor_type(64, 64, dtype::fp32));
  const auto alloc = [&](memory_space sp, std::int64_t cap, std::int64_t addr, std::string_view name, std::uint32_t line) {
    return b.create<tile::alloc>({.space = sp, .capacity = cap}, mem_type(), name, at(line), {.addr = addr});
  };
  const value_id m_a = alloc(memory_space::mat, 8192, 0, "m_a", 2);
  const value_id m_b = alloc(memory_space::mat, 8192, 8192, "m_b", 3);
  const value_id l_a = alloc(memory_space::left, 8192, 0, "l_a", 4);
  const value_id r_b = alloc(memory_space::right, 8192, 0, "r_b", 5);
  const value_id m_acc = alloc(memory_space::acc, 16384, 0, "m_acc", 6);
  const value_id a = b.create<tile::load>({.tensor = A, .offsets = {0, 0}, .shape = {64, 64}},
                                          in_storage(tile_type(64, 64, dtype::fp16, memory_space::mat), m_a), "a", at(7));
  const value_id bm = b.create<tile::load>({.tensor = B, .offsets = {0, 0}, .shape = {64, 64}},
                                           in_storage(tile_type(64, 64, dtype::fp16, memory_space::mat), m_b), "b", at(8));
  const value_id a_l0 =
      b.create<tile::move>({.source = a}, in_storage(tile_type(64, 64, dtype::fp16, memory_space::left), l_a), "a_l0", at(9));
  const value_id b_l0 =
      b.create<tile::move>({.source = bm}, in_storage(tile_type(64, 64, dtype::fp16, memory_space::right), r_b), "b_l0", at(10));
  const placed_type acc = in_storage(tile_type(64, 64, dtype::fp32, memory_space::acc), m_acc);
  const value_id x = b.create<tile::matmul>({.lhs = a_l0, .rhs = b_l0}, acc, "x", at(11));
  const value_id y = b.create<tile::matmul_acc>({.acc = x, .lhs = a_l0, .rhs = b_l0}, acc, "y", at(12), {.init_cond = false});
  const value_id r =
      b.create<tile::store>({.tile = y, .offsets = {0, 0}, .tensor = Out}, tensor_type(64, 64, dtype::fp32), "result", at(13));
  b.create<cf::return_>({.values = {r}}, at(14));
  return b.finish();
}

/// verify_test::branch_kernel(): a comparison, an `if` with two results, yields, a tuple with a value.
constexpr function branch_kernel() {
  function_builder b(function_kind::aiv, "branch", at(1, 1));
  const type t = fp32_tensor();
  const value_id A = b.param("A", t, direction::in, at(1, 10));
  const value_id B = b.param("B", t, direction::in, at(1, 20));
  const value_id Out = b.param("Out", tensor_type(32, 64, dtype::fp32), direction::out, at(1, 30));
  const value_id k = b.param("k", index_t(), direction::in, at(1, 40));
  b.param("w", scalar_type(dtype::int32), direction::in, at(1, 50));
  b.result_type(tensor_type(32, 64, dtype::fp32));
  const value_id a = b.create<tile::load>({.tensor = A, .offsets = {0, 0}, .shape = {16, 32}}, fp32_tile(), "a", at(2));
  const value_id bb = b.create<tile::load>({.tensor = B, .offsets = {0, 0}, .shape = {16, 32}}, fp32_tile(), "b", at(3));
  const value_id flag = b.create<scalar::lt>({.lhs = k, .rhs = 4}, scalar_type(dtype::bool_), "flag", at(4));
  const region_id arms = b.reserve_regions(2);
  b.open_region(arms, {}, {});
  const value_id product = b.create<tile::mul>({.lhs = a, .rhs = bb}, fp32_tile(), "product", at(6));
  b.create<cf::yield>({.values = {product, 16}}, at(7));
  b.close_region();
  b.open_region(region_id{arms.index + 1}, {}, {});
  b.create<cf::yield>({.values = {a, 0}}, at(8));
  b.close_region();
  const type rts[] = {fp32_tile(), index_t()};
  const std::string_view names[] = {"chosen", "offset"};
  const op_id iff = b.create<cf::if_>({.cond = flag}, arms, rts, names, at(5));
  const value_id chosen = b.fn().result(iff, 0);
  const value_id offset = b.fn().result(iff, 1);
  const value_id r = b.create<tile::store>({.tile = chosen, .offsets = {offset, 0}, .tensor = Out},
                                           tensor_type(32, 64, dtype::fp32), "result", at(9));
  b.create<cf::return_>({.values = {r}}, at(10));
  return b.finish();
}

/// verify_test::loop_kernel(): a `for` with Tile and INDEX carries, a `while`, scalar arithmetic.
constexpr function loop_kernel() {
  function_builder b(function_kind::aiv, "loops", at(1, 1));
  const type t = fp32_tensor();
  const value_id A = b.param("A", t, direction::in, at(1, 10));
  const value_id Out = b.param("Out", tensor_type(64, 64, dtype::fp32), direction::out, at(1, 20));
  const value_id count = b.param("count", index_t(), direction::in, at(1, 30));
  const value_id cols = b.param("cols", index_t(), direction::in, at(1, 40));
  b.param("x", scalar_type(dtype::fp32), direction::in, at(1, 50));
  b.result_type(tensor_type(64, 64, dtype::fp32));
  const value_id a = b.create<tile::load>({.tensor = A, .offsets = {0, 0}, .shape = {16, 32}}, fp32_tile(), "a", at(2));
  const region_id body = b.reserve_regions(1);
  const type carried[] = {index_t(), fp32_tile(), index_t()};
  const std::string_view carried_names[] = {"i", "left", "row"};
  b.open_region(body, carried, carried_names);
  const value_id left = b.fn().arg(body, 1);
  const value_id row = b.fn().arg(body, 2);
  const value_id next = b.create<tile::adds>({.source = left, .scalar = decimal{1, 0}}, fp32_tile(), "next", at(4));
  const value_id row_next = b.create<scalar::add>({.lhs = row, .rhs = 1}, carried[2], "row_next", at(5));
  b.create<cf::yield>({.values = {next, row_next}}, at(6));
  b.close_region();
  const type for_results[] = {fp32_tile(), index_t()};
  const std::string_view for_names[] = {"left_out", "row_out"};
  const op_id loop =
      b.create<cf::for_>({.start = 0, .stop = count, .step = 1, .inits = {a, 0}}, body, for_results, for_names, at(3));
  const value_id left_out = b.fn().result(loop, 0);
  const value_id row_out = b.fn().result(loop, 1);
  const region_id wr = b.reserve_regions(2);
  const type wt[] = {index_t()};
  const std::string_view wn[] = {"k"};
  b.open_region(wr, wt, wn);
  const value_id c = b.create<scalar::lt>({.lhs = b.fn().arg(wr, 0), .rhs = cols}, scalar_type(dtype::bool_), "c", at(8));
  b.create<cf::yield>({.values = {c}}, at(8, 30));
  b.close_region();
  const region_id wbody{wr.index + 1};
  const std::string_view wn2[] = {"k2"};
  b.open_region(wbody, wt, wn2);
  const value_id k_next = b.create<scalar::add>({.lhs = b.fn().arg(wbody, 0), .rhs = 1}, index_t(), "k_next", at(9));
  b.create<cf::yield>({.values = {k_next}}, at(10));
  b.close_region();
  const std::string_view w_names[] = {"k_out"};
  const op_id wl = b.create<cf::while_>({.inits = {0}}, wr, wt, w_names, at(7));
  const value_id k_out = b.fn().result(wl, 0);
  const value_id col = b.create<scalar::mul>({.lhs = k_out, .rhs = 0}, index_t(), "col", at(11));
  const value_id r = b.create<tile::store>({.tile = left_out, .offsets = {row_out, col}, .tensor = Out},
                                           tensor_type(64, 64, dtype::fp32), "result", at(12));
  b.create<cf::return_>({.values = {r}}, at(13));
  return b.finish();
}

/// verify_test::buffer_kernel(): destination-passing Buffer ops (they return the op id).
constexpr function buffer_kernel() {
  function_builder b(function_kind::aiv, "add", at(1, 1));
  b.fn().stage = ir_stage::buffer;
  const type t = fp32_tensor();
  const value_id A = b.param("A", t, direction::in, at(1, 10));
  const value_id B = b.param("B", t, direction::in, at(1, 20));
  const value_id Out = b.param("Out", t, direction::out, at(1, 30));
  b.result_type(t);
  const type bt = buffer_type(16, 32, dtype::fp32);
  const value_id a_buf = b.create<buffer::alloc>({.init_valid = empty_tuple}, bt, "a_buf", at(2));
  const value_id b_buf = b.create<buffer::alloc>({.init_valid = empty_tuple, .address = 2048}, bt, "b_buf", at(3));
  const value_id r_buf = b.create<buffer::alloc>({.init_valid = empty_tuple}, bt, "r_buf", at(4));
  const value_id root =
      b.create<buffer::alloc>({.init_valid = empty_tuple, .address = 8192}, buffer_type(128, 32, dtype::uint8), "root", at(5));
  const value_id window =
      b.create<buffer::subview>({.source = root, .offsets = {2, 0}}, buffer_type(64, 32, dtype::uint8), "window", at(6));
  const value_id part = b.create<buffer::reshape>({.source = window}, buffer_type(16, 32, dtype::fp32), "part", at(7));
  b.create<buffer::alloc>({.init_valid = empty_tuple}, buffer_type(16, 32, dtype::fp32, memory_space::mat), "mat", at(8));
  b.create<buffer::load>({.tensor = A, .offsets = {0, 0}, .valid = {16, 32}, .dest = a_buf}, at(10));
  b.create<buffer::load>({.tensor = B, .offsets = {0, 0}, .valid = {16, 32}, .dest = b_buf}, at(11));
  b.create<buffer::copy>({.source = part, .dest = a_buf}, at(12));
  b.create<buffer::add>({.lhs = a_buf, .rhs = b_buf, .dest = r_buf}, at(13));
  b.create<buffer::store>({.source = r_buf, .offsets = {0, 0}, .valid = {16, 32}, .tensor = Out}, at(15));
  b.create<cf::return_>({.values = {Out}}, at(16));
  return b.finish();
}

/// verify_test::orchestrated()'s orchestration: symbols and tuples, one built before the call.
constexpr function orchestration() {
  function_builder b(function_kind::orchestration, "main", at(40, 1));
  const value_id A = b.param("A", fp32_tensor(), direction::in, at(40, 10));
  const value_id B = b.param("B", fp32_tensor(), direction::in, at(40, 20));
  const value_id Out = b.param("Out", fp32_tensor(), direction::out, at(40, 30));
  const value_id Peak = b.param("Peak", tensor_type(16, 1, dtype::fp32), direction::out, at(40, 40));
  b.param("n", index_t(), direction::in, at(40, 50));
  const operand args0 = b.tuple({operand::of(A), operand::of(B), operand::of(Out), operand::integer(3)});
  const value_id t0 =
      b.create<orch::submit>({.callee = "add", .call_args = built(args0), .deps = empty_tuple}, task_type(), "t0", at(41));
  const std::vector<value_id> peak_args = {Out, Peak};
  b.create<orch::submit>({.callee = "peak", .call_args = peak_args, .deps = {t0}}, task_type(), "t1", at(43));
  b.create<cf::return_>({}, at(44));
  return b.finish();
}

/// Keywords in catalogue order, `valid`, a bool and a float literal, and ops whose kind letters
/// (m, d) only a few ops have, against the positional path.
constexpr function keyword_kernel(bool typed) {
  function_builder b(function_kind::aiv, "kw");
  const type t = fp32_tensor();
  const value_id A = b.param("A", t);
  const value_id Out = b.param("Out", t, direction::out);
  const value_id n = b.param("n", scalar_type(dtype::int32));
  const type tt = tile_type(16, 32, dtype::fp32);
  const type idx = index_t();
  if (typed) {
    const value_id x =
        b.create<tile::load>({.tensor = A, .offsets = {0, 0}, .shape = {16, 32}, .valid = {16, n}}, tt, "x", {}, {.cache = 1});
    const value_id y = b.create<tile::div>({.lhs = x, .rhs = x}, tt, "y", {}, {.high_precision = true});
    const value_id i = b.create<scalar::cast>({.value = n, .to = dtype::index}, idx, "i");
    const value_id c = b.create<scalar::const_>({.value = decimal{-25, -1}}, scalar_type(dtype::fp32), "c");
    const value_id z = b.create<tile::muls>({.source = y, .scalar = c}, tt, "z");
    const value_id v = b.create<tile::set_validshape>({.tile = z, .rows = i, .cols = 32}, tt, "v");
    b.create<scalar::not_>({.arg = true}, scalar_type(dtype::bool_), "f");
    const value_id r =
        b.create<tile::store>({.tile = v, .offsets = {i, 0}, .tensor = Out}, t, "r", {}, {.atomic = 1, .pre_relu = false});
    b.create<cf::return_>({.values = std::vector<value_id>{r}});
  } else {
    const value_id x = b.emit1(opcode::tile_load,
                               {operand::of(A), b.pair(0, 0), b.pair(16, 32), b.tuple({operand::integer(16), operand::of(n)})},
                               tt, "x", {}, {kwarg{keyword::cache, operand::integer(1)}});
    const value_id y = b.emit1(opcode::tile_div, {operand::of(x), operand::of(x)}, tt, "y", {},
                               {kwarg{keyword::high_precision, operand::boolean(true)}});
    const value_id i = b.emit1(opcode::scalar_cast, {operand::of(n), operand::of(dtype::index)}, idx, "i");
    const value_id c = b.emit1(opcode::scalar_const, {operand::decimal(-25, -1)}, scalar_type(dtype::fp32), "c");
    const value_id z = b.emit1(opcode::tile_muls, {operand::of(y), operand::of(c)}, tt, "z");
    const value_id v = b.emit1(opcode::tile_set_validshape, {operand::of(z), operand::of(i), operand::integer(32)}, tt, "v");
    b.emit1(opcode::scalar_not, {operand::boolean(true)}, scalar_type(dtype::bool_), "f");
    const value_id r = b.emit1(opcode::tile_store,
                               {operand::of(v), b.tuple({operand::of(i), operand::integer(0)}), operand::of(Out)}, t, "r", {},
                               {kwarg{keyword::atomic, operand::integer(1)}, kwarg{keyword::pre_relu, operand::boolean(false)}});
    b.emit0(opcode::cf_return, {operand::of(r)});
  }
  return b.finish();
}

/// Buffer ops of every elementwise family, extract, fill and the matmuls, both ways.
constexpr function buffer_families(bool typed) {
  function_builder b(function_kind::aiv, "families");
  b.fn().stage = ir_stage::buffer;
  const type bt = buffer_type(16, 32, dtype::fp32);
  const value_id p = b.param("p", bt), q = b.param("q", bt), d = b.param("d", bt, direction::out);
  const value_id s = b.param("s", scalar_type(dtype::fp32));
  if (typed) {
    b.create<buffer::mul>({.lhs = p, .rhs = q, .dest = d});
    b.create<buffer::exp>({.source = p, .dest = d});
    b.create<buffer::muls>({.source = p, .scalar = s, .dest = d});
    b.create<buffer::lrelu>({.source = p, .scalar = decimal{1, -1}, .dest = d});
    b.create<buffer::full>({.value = 0, .dest = d});
    b.create<buffer::extract>({.source = p, .row = 1, .col = 2, .dest = d});
    b.create<buffer::matmul_acc>({.lhs = p, .rhs = q, .dest = d});
    b.create<buffer::set_validshape>({.buffer = d, .valid = {s, 32}});
    b.create<buffer::div>({.lhs = p, .rhs = q, .dest = d}, {}, {.high_precision = true});
    b.create<buffer::get_block_idx>({}, index_t(), "blk");
  } else {
    b.emit0(opcode::buffer_mul, {operand::of(p), operand::of(q), operand::of(d)});
    b.emit0(opcode::buffer_exp, {operand::of(p), operand::of(d)});
    b.emit0(opcode::buffer_muls, {operand::of(p), operand::of(s), operand::of(d)});
    b.emit0(opcode::buffer_lrelu, {operand::of(p), operand::decimal(1, -1), operand::of(d)});
    b.emit0(opcode::buffer_full, {operand::integer(0), operand::of(d)});
    b.emit0(opcode::buffer_extract, {operand::of(p), operand::integer(1), operand::integer(2), operand::of(d)});
    b.emit0(opcode::buffer_matmul_acc, {operand::of(p), operand::of(q), operand::of(d)});
    b.emit0(opcode::buffer_set_validshape, {operand::of(d), b.tuple({operand::of(s), operand::integer(32)})});
    b.emit0(opcode::buffer_div, {operand::of(p), operand::of(q), operand::of(d)}, {},
            {kwarg{keyword::high_precision, operand::boolean(true)}});
    b.emit1(opcode::buffer_get_block_idx, {}, index_t(), "blk");
  }
  return b.finish();
}

constexpr bool tile_kernels_identical() {
  return identical(add_kernel(), verify_test::add_kernel()) && identical(tile_ops_kernel(), verify_test::tile_ops_kernel()) &&
         identical(cube_kernel(), verify_test::cube_kernel());
}
constexpr bool control_flow_identical() {
  return identical(branch_kernel(), verify_test::branch_kernel()) && identical(loop_kernel(), verify_test::loop_kernel());
}
/// `f` with every location cleared. Why: the two paths of keyword_kernel and buffer_families build
/// without locations, so each op records its own call's line (ir/caller_location.hpp), which
/// differs between the paths; every other byte must still agree.
constexpr function without_locations(function f) {
  f.loc = {};
  for (param_info& p : f.params) p.loc = {};
  for (location& l : f.op_locs) l = {};
  return f;
}
constexpr bool buffer_kernels_identical() {
  return identical(buffer_kernel(), verify_test::buffer_kernel()) &&
         identical(without_locations(buffer_families(true)), without_locations(buffer_families(false)));
}
constexpr bool scalar_and_keywords_identical() {
  return identical(without_locations(keyword_kernel(true)), without_locations(keyword_kernel(false)));
}
constexpr bool orchestration_identical() {
  const program p = verify_test::orchestrated();
  return identical(orchestration(), p.functions.back());
}
/// The kernels built with `create` verify: no diagnostic for any of them.
constexpr bool created_kernels_verify() {
  program p;
  p.functions.push_back(add_kernel());
  p.functions.push_back(cube_kernel());
  p.functions.push_back(branch_kernel());
  p.functions.push_back(loop_kernel());
  return verify(p).empty() && verify(verify_test::single(buffer_kernel())).empty() &&
         verify(verify_test::single(tile_ops_kernel())).empty();
}
/// Each check can fail: a kernel differing in one operand is not identical.
constexpr bool a_different_operand_is_seen() {
  function_builder b(function_kind::aiv, "add", at(1, 1));
  const value_id x = b.param("x", index_t());
  b.create<scalar::add>({.lhs = x, .rhs = 1}, index_t(), "y");
  function_builder c(function_kind::aiv, "add", at(1, 1));
  const value_id cx = c.param("x", index_t());
  c.create<scalar::add>({.lhs = cx, .rhs = 2}, index_t(), "y");
  return !identical(b.finish(), c.finish());
}

static_assert(tile_kernels_identical());
static_assert(control_flow_identical());
static_assert(buffer_kernels_identical());
static_assert(scalar_and_keywords_identical());
static_assert(orchestration_identical());
static_assert(created_kernels_verify());
static_assert(a_different_operand_is_seen());

// The structs: names and kinds as the catalogue gives them (the full check is create_check.hpp).
static_assert(std::is_same_v<operands_of<tile::add>, operands_of<tile::maximum>> &&
              std::is_same_v<operands_of<buffer::add>, operands_of<buffer::matmul>> &&
              !std::is_same_v<operands_of<tile::add>, operands_of<buffer::add>>);
static_assert(std::is_same_v<keywords_of<tile::div>, keywords_of<buffer::recip>> &&
              std::is_same_v<keywords_of<tile::add>, keywords::none>);
// A wrong kind or a left-out required member is no viable initialization (the compile-fail pair
// create_missing_operand / create_wrong_operand_kind shows the messages).
static_assert(std::is_constructible_v<pair_operand, int, value_id> && !std::is_constructible_v<pair_operand, int, int, int>);

}  // namespace

TEST_CASE("create builds the positional emit's IR byte for byte") {
  CHECK(tile_kernels_identical());
  CHECK(control_flow_identical());
  CHECK(buffer_kernels_identical());
  CHECK(scalar_and_keywords_identical());
  CHECK(orchestration_identical());
  CHECK(a_different_operand_is_seen());
}

TEST_CASE("kernels built with create verify") { CHECK(created_kernels_verify()); }

TEST_CASE("create returns the result, the op, or the region op") {
  function_builder b(function_kind::aiv, "k");
  const value_id x = b.param("x", index_t());
  const value_id y = b.create<scalar::add>({.lhs = x, .rhs = 1}, index_t(), "y");
  CHECK(b.fn().name_of(y) == "y");
  CHECK(b.fn().value(y).def.index == 0);
  const op_id ret = b.create<cf::return_>({.values = {y}});
  CHECK(b.fn().op(ret).code() == opcode::cf_return);
  CHECK(b.fn().args(ret).size() == 1);
  // Optional operands left out take no position; keywords left out are not stored.
  const value_id A = b.param("A", fp32_tensor());
  const value_id t = b.create<tile::load>({.tensor = A, .offsets = {0, 0}, .shape = {16, 32}}, fp32_tile(), "t");
  const op_id ld{b.fn().value(t).def};
  CHECK(b.fn().args(ld).size() == 3);
  CHECK(b.fn().kwargs_of(ld).empty());
  const value_id u = b.create<tile::load>({.tensor = A, .offsets = {0, 0}, .shape = {16, 32}, .valid = {8, 32}}, fp32_tile(), "u",
                                          {}, {.cache = 2});
  const op_id ld2{b.fn().value(u).def};
  REQUIRE(b.fn().args(ld2).size() == 4);
  CHECK(b.fn().elements(b.fn().args(ld2)[3])[0].num == 8);
  REQUIRE(b.fn().kwargs_of(ld2).size() == 1);
  CHECK(b.fn().kwargs_of(ld2)[0].key == keyword::cache);
}
