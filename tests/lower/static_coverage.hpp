// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage.hpp
/// The spec's "Default whole-kernel selection" elementwise table, spelled out here from the spec
/// text (not read from the library's table), and the checks of each row x dtype against the
/// public pipeline. Every listed dtype lowers a GM load -> op -> GM store kernel to Buffer and
/// emits the row's Buffer op; every other probed dtype keeps the kernel Tile, with the op named
/// as the reason. static_coverage_{binary,unary,scalar}.cpp each assert a share of the rows, by
/// operand form (one TU took over half a minute of g++ CPU time); static_coverage_transfer.cpp
/// checks the GM load/store row. A failing cell names itself in the compiler's
/// instantiation note: `cell<row, opcode, dtype, probe>`.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "support/kernels.hpp"
#include "tile2buffer/lower.hpp"

namespace t2b_coverage {
using namespace tile2buffer;
using namespace t2b_test;

/// Operand forms from reference-semantics.md section 2.4 (inputs column).
enum class form { binary, unary, scalar, fill };

struct spec_row {
  std::string_view tile_op;
  std::string_view buffer_op;
  form shape;
  std::array<dtype, 3> dtypes;
  std::size_t count;
};

inline constexpr std::array<dtype, 3> fp32_only{dtype::fp32};
inline constexpr std::array<dtype, 3> fp16_fp32_int32{dtype::fp16, dtype::fp32, dtype::int32};

// lower-tile-to-buffer.md, "Default whole-kernel selection":
//   add, mul                                                          FP16, FP32, INT32
//   sub, div, maximum, minimum, abs, exp, sqrt, neg, relu, log, recip FP32
//   adds, subs, muls, divs, maximums, minimums, lrelu, full           FP32
inline constexpr spec_row spec_rows[] = {
    {"tile.add", "buffer.add", form::binary, fp16_fp32_int32, 3},
    {"tile.mul", "buffer.mul", form::binary, fp16_fp32_int32, 3},
    {"tile.sub", "buffer.sub", form::binary, fp32_only, 1},
    {"tile.div", "buffer.div", form::binary, fp32_only, 1},
    {"tile.maximum", "buffer.maximum", form::binary, fp32_only, 1},
    {"tile.minimum", "buffer.minimum", form::binary, fp32_only, 1},
    {"tile.abs", "buffer.abs", form::unary, fp32_only, 1},
    {"tile.exp", "buffer.exp", form::unary, fp32_only, 1},
    {"tile.sqrt", "buffer.sqrt", form::unary, fp32_only, 1},
    {"tile.neg", "buffer.neg", form::unary, fp32_only, 1},
    {"tile.relu", "buffer.relu", form::unary, fp32_only, 1},
    {"tile.log", "buffer.log", form::unary, fp32_only, 1},
    {"tile.recip", "buffer.recip", form::unary, fp32_only, 1},
    {"tile.adds", "buffer.adds", form::scalar, fp32_only, 1},
    {"tile.subs", "buffer.subs", form::scalar, fp32_only, 1},
    {"tile.muls", "buffer.muls", form::scalar, fp32_only, 1},
    {"tile.divs", "buffer.divs", form::scalar, fp32_only, 1},
    {"tile.maximums", "buffer.maximums", form::scalar, fp32_only, 1},
    {"tile.minimums", "buffer.minimums", form::scalar, fp32_only, 1},
    {"tile.lrelu", "buffer.lrelu", form::scalar, fp32_only, 1},
    {"tile.full", "buffer.full", form::fill, fp32_only, 1},
};

/// The dtypes probed in every row, spelled as diagnostics print them. INT8 is a legal Tile dtype
/// (cube operands) but not a Vec descriptor dtype, so it can never be selected for Vec arithmetic.
struct probe {
  dtype dt;
  std::string_view spelled;
  bool vec;  ///< the spec's Vec descriptor (and GM transfer) dtypes: FP16, BF16, FP32, INT32
};
inline constexpr probe probes[] = {
    {dtype::fp16, "FP16", true},   {dtype::bf16, "BF16", true},  {dtype::fp32, "FP32", true},
    {dtype::int32, "INT32", true}, {dtype::int8, "INT8", false},
};

constexpr bool listed(const spec_row& r, dtype d) {
  for (std::size_t i = 0; i < r.count; ++i)
    if (r.dtypes[i] == d) return true;
  return false;
}

constexpr bool contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

/// `Out = store(op(load(A)...))`, or `store(full(2.0))`: the op's only way in and out is GM.
constexpr function kernel(opcode op, form shape, dtype d) {
  function_builder b(function_kind::aiv, "k");
  const auto t = tensor_type(16, 64, d);
  const auto tt = tile_type(16, 64, d);
  const value_id A = b.param("A", t);
  const value_id Out = b.param("Out", t, direction::out);
  b.result_type(t);
  value_id y;
  if (shape == form::fill) {
    y = b.emit1(op, {operand::decimal(2, 0)}, tt, "y");
  } else {
    const value_id x = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 64)}, tt, "x");
    switch (shape) {
      case form::binary: y = b.emit1(op, {operand::of(x), operand::of(x)}, tt, "y"); break;
      case form::unary: y = b.emit1(op, {operand::of(x)}, tt, "y"); break;
      case form::scalar: y = b.emit1(op, {operand::of(x), operand::decimal(2, 0)}, tt, "y"); break;
      case form::fill: break;
    }
  }
  const value_id r = b.emit1(opcode::tile_store, {operand::of(y), b.pair(0, 0), operand::of(Out)}, t, "r");
  b.emit0(opcode::cf_return, {operand::of(r)});
  return b.finish();
}

/// Listed: the kernel reaches Buffer stage with no Tile op left and exactly one `buffer_op`.
constexpr bool lowers_to_buffer(const spec_row& row, opcode op, dtype d, planner_kind planner) {
  const auto r = lower(single(kernel(op, row.shape, d)), options{.planner = planner});
  if (!r.ok() || r.value.functions.size() != 1) return false;
  const function& f = r.value.functions[0];
  if (f.stage != ir_stage::buffer) return false;
  int emitted = 0;
  for (const auto& node : f.ops) {
    if (is_tile_op(node.code())) return false;
    if (mnemonic(node.code()) == row.buffer_op) ++emitted;
  }
  return emitted == 1;
}

/// Not listed: lowering succeeds, the kernel stays Tile and is recorded unselected, and the reason
/// is the op's own ("<op>: <op> on <dtype> is not in the default rollout"). An INT8 Vec tile stops
/// at its first Vec op (the load, or the fill) on the Vec descriptor rule instead.
constexpr bool stays_tile(const spec_row& row, opcode op, const probe& p) {
  const options opts{};
  const auto r = lower(single(kernel(op, row.shape, p.dt)), opts);
  if (!r.ok() || r.value.functions.size() != 1) return false;
  const function& f = r.value.functions[0];
  if (f.stage != ir_stage::tile || !f.buffer_ir_selected || *f.buffer_ir_selected) return false;
  for (const auto& node : f.ops)
    if (is_buffer_op(node.code())) return false;
  const auto why = explain_selection(r.value, opts);
  if (why.size() != 1 || why[0].selected) return false;
  const std::string_view reason = why[0].reason.view();
  if (!contains(reason, p.spelled)) return false;
  if (!p.vec) return contains(reason, "Vec descriptor must be dense rank-2");
  return reason.starts_with(row.tile_op) && reason.substr(row.tile_op.size()).starts_with(": ") &&
         contains(reason, "is not in the default rollout");
}

/// One cell of the table: `row` on the probed dtype (a listed dtype under all three planners),
/// `op` being the library's opcode for the row's name.
constexpr bool cell_holds(const spec_row& row, opcode op, const probe& p) {
  if (op == opcode::count_ || !is_tile_op(op)) return false;
  if (!listed(row, p.dt)) return stays_tile(row, op, p);
  return lowers_to_buffer(row, op, p.dt, planner_kind::pypto) && lowers_to_buffer(row, op, p.dt, planner_kind::dsa_rp) &&
         lowers_to_buffer(row, op, p.dt, planner_kind::ptoas);
}

/// The library's opcode for a spec mnemonic, or `opcode::count_` when it has none (a failing cell).
constexpr opcode opcode_of(std::string_view m) { return find_mnemonic(m).value_or(opcode::count_); }

// Why one instantiation per cell: each is its own constant evaluation (clang's step limit is per
// evaluation), and a failure's instantiation note names the cell: `cell<row, opcode, dtype, probe>`.
template <std::size_t Row, opcode Op, dtype D, std::size_t Probe>
struct cell {
  static_assert(cell_holds(spec_rows[Row], Op, probes[Probe]),
                "lowering disagrees with the spec's elementwise table for this op and dtype (see cell<...>)");
  static constexpr bool checked = true;
};
template <std::size_t Row, std::size_t... P>
constexpr bool row_checked(std::index_sequence<P...>) {
  return (cell<Row, opcode_of(spec_rows[Row].tile_op), probes[P].dt, P>::checked && ...);
}
template <form First, form Last, std::size_t Row>
constexpr bool row_in_share_checked() {
  if constexpr (spec_rows[Row].shape < First || spec_rows[Row].shape > Last) return true;  // another TU's share
  else return row_checked<Row>(std::make_index_sequence<std::size(probes)>{});
}
template <form First, form Last, std::size_t... R>
constexpr bool rows_checked(std::index_sequence<R...>) {
  return (row_in_share_checked<First, Last, R>() && ...);
}
/// Checks every cell of the rows whose operand form lies in [First, Last].
template <form First, form Last>
constexpr bool forms_checked() {
  return rows_checked<First, Last>(std::make_index_sequence<std::size(spec_rows)>{});
}

}  // namespace t2b_coverage
