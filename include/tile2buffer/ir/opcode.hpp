// SPDX-License-Identifier: Apache-2.0
/// @file ir/opcode.hpp
/// The op catalogue: one opcode per mnemonic and one op record per opcode (ir/op_record.hpp):
/// named operands with their kinds, keywords, results, regions, traits and a one-line summary.
/// Parser, printer, verifier, passes, serializer and docs/ops.md all read these records; the
/// records are checked against the enum position by position when the table is built.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tile2buffer/ir/op_record.hpp"

namespace tile2buffer {
inline namespace v0 {

enum class opcode : std::uint16_t {
  // scalar SSA
  scalar_const, scalar_add, scalar_sub, scalar_mul, scalar_floordiv, scalar_mod, scalar_min, scalar_max,
  scalar_lt, scalar_le, scalar_eq, scalar_ne, scalar_gt, scalar_ge, scalar_and, scalar_or, scalar_not, scalar_cast,
  // control flow (dialect-neutral)
  cf_if, cf_for, cf_while, cf_yield, cf_return,
  // orchestration
  orch_submit,
  // tile
  tile_alloc, tile_create, tile_full, tile_load, tile_store, tile_move, tile_reshape, tile_reinterpret_view,
  tile_transpose_view, tile_slice, tile_assemble, tile_set_validshape, tile_extract, tile_matmul, tile_matmul_acc,
  tile_add, tile_mul, tile_sub, tile_div, tile_maximum, tile_minimum,
  tile_abs, tile_exp, tile_sqrt, tile_neg, tile_relu, tile_log, tile_recip, tile_rsqrt,
  tile_adds, tile_subs, tile_muls, tile_divs, tile_maximums, tile_minimums, tile_lrelu,
  tile_row_sum, tile_row_max, tile_row_min, tile_col_sum, tile_col_max, tile_col_min,
  tile_cast,
  tile_row_expand, tile_row_expand_sub, tile_row_expand_div, tile_row_expand_mul,
  tile_col_expand, tile_col_expand_add, tile_col_expand_sub, tile_col_expand_mul, tile_col_expand_div, tile_col_expand_max, tile_col_expand_min, tile_col_expand_expdif,
  tile_get_block_idx, tile_get_block_num, tile_get_subblock_idx,
  // buffer
  buffer_alloc, buffer_set_validshape, buffer_load, buffer_store, buffer_copy, buffer_subview, buffer_reshape,
  buffer_extract, buffer_matmul, buffer_matmul_acc, buffer_full,
  buffer_add, buffer_mul, buffer_sub, buffer_div, buffer_maximum, buffer_minimum,
  buffer_abs, buffer_exp, buffer_sqrt, buffer_neg, buffer_relu, buffer_log, buffer_recip, buffer_rsqrt,
  buffer_adds, buffer_subs, buffer_muls, buffer_divs, buffer_maximums, buffer_minimums, buffer_lrelu,
  buffer_row_sum, buffer_row_max, buffer_row_min, buffer_col_sum, buffer_col_max, buffer_col_min,
  buffer_cast,
  buffer_row_expand, buffer_row_expand_sub, buffer_row_expand_div, buffer_row_expand_mul,
  buffer_col_expand, buffer_col_expand_add, buffer_col_expand_sub, buffer_col_expand_mul, buffer_col_expand_div, buffer_col_expand_max, buffer_col_expand_min, buffer_col_expand_expdif,
  buffer_get_block_idx, buffer_get_block_num, buffer_get_subblock_idx,
  count_
};
inline constexpr std::size_t opcode_count = static_cast<std::size_t>(opcode::count_);

constexpr std::optional<keyword> parse_keyword(std::string_view s) {
  for (std::size_t i = 0; i < keyword_names.size(); ++i)
    if (keyword_names[i] == s) return static_cast<keyword>(i);
  return std::nullopt;
}

/// Compatibility name: the catalogue's rows are op records.
using op_info = op_record;

namespace detail {
using d = dialect;
using r = op_record;
inline constexpr std::uint16_t hp = kw_bit(keyword::high_precision);
inline constexpr auto store_kws =
    static_cast<std::uint16_t>(kw_bit(keyword::atomic) | kw_bit(keyword::st_phase) | kw_bit(keyword::pre_quant) |
                               kw_bit(keyword::pre_relu));
// Families share a shape; each helper states that shape once.
constexpr r scalar_binary(opcode c, std::string_view m, std::string_view infix, std::string_view summary, trait t = trait::none) {
  return {.code = c, .mnemonic = m, .dia = d::scalar, .operands = "lhs:s rhs:s", .traits = t, .infix = infix, .summary = summary};
}
constexpr r tile_ew(opcode c, std::string_view m, ew_kind ew, std::string_view summary, std::uint16_t kws = 0) {
  const std::string_view operands = ew == ew_kind::binary ? "lhs:v rhs:v" : ew == ew_kind::unary ? "source:v" : "source:v scalar:s";
  return {.code = c, .mnemonic = m, .dia = d::tile, .operands = operands, .keywords = kws, .ew = ew,
          .traits = trait::moves_valid_data, .summary = summary};
}
/// A Buffer elementwise op writes `dest`, which may be exactly one of its inputs' windows (in
/// place) or disjoint from it, never partially overlapping.
constexpr r buffer_ew(opcode c, std::string_view m, ew_kind ew, std::string_view summary, std::uint16_t kws = 0) {
  const std::string_view operands =
      ew == ew_kind::binary ? "lhs:v rhs:v dest:v" : ew == ew_kind::unary ? "source:v dest:v" : "source:v scalar:s dest:v";
  return {.code = c, .mnemonic = m, .dia = d::buffer, .operands = operands, .keywords = kws, .results = arity::none, .ew = ew,
          .traits = trait::may_alias_exactly, .writes = "dest", .disjoint_from = ew == ew_kind::binary ? "lhs rhs" : "source",
          .summary = summary};
}
/// Row reductions (extended rollout): the source's valid [r, c] folded per row into an [R, 1]
/// column vector; `tmp` is the native instruction's scratch (optional on Tile, where the
/// MaterializeNativeScratch pass supplies it). The result never shares storage with either.
constexpr r tile_row_reduction(opcode c, std::string_view m, std::string_view summary) {
  return {.code = c, .mnemonic = m, .dia = d::tile, .operands = "source:v tmp:v?", .traits = trait::moves_valid_data,
          .disjoint_from = "source tmp", .extent_of = "source", .scratch = "tmp", .summary = summary};
}
constexpr r buffer_row_reduction(opcode c, std::string_view m, std::string_view summary) {
  return {.code = c, .mnemonic = m, .dia = d::buffer, .operands = "source:v tmp:v dest:v", .results = arity::none,
          .writes = "dest", .disjoint_from = "source tmp", .scratch = "tmp", .summary = summary};
}
/// Row-broadcast arithmetic (extended rollout §3.4): `source[i, j] op vector[i]` for an [R, 1]
/// column `vector`; `blk` is the [R, 32 / esize] block the native mode-2 instruction reads the
/// per-row value from (optional on Tile, where MaterializeNativeScratch supplies it).
constexpr r tile_row_expand_arith(opcode c, std::string_view m, std::string_view summary, std::uint16_t kws = 0) {
  return {.code = c, .mnemonic = m, .dia = d::tile, .operands = "source:v vector:v blk:v?", .keywords = kws,
          .traits = trait::moves_valid_data | trait::may_alias_exactly, .disjoint_from = "source vector", .scratch = "blk",
          .summary = summary};
}
constexpr r buffer_row_expand_arith(opcode c, std::string_view m, std::string_view summary, std::uint16_t kws = 0) {
  return {.code = c, .mnemonic = m, .dia = d::buffer, .operands = "source:v blk:v dest:v", .keywords = kws, .results = arity::none,
          .traits = trait::may_alias_exactly, .writes = "dest", .disjoint_from = "source", .scratch = "blk", .summary = summary};
}
/// Column-broadcast arithmetic (extended rollout §3.5b): `source[i, j] op vector[0, j]` for a
/// [1, C] row `vector`; no scratch. The result may be its source's storage, never the vector's.
constexpr r tile_col_expand_arith(opcode c, std::string_view m, std::string_view summary) {
  return {.code = c, .mnemonic = m, .dia = d::tile, .operands = "source:v vector:v",
          .traits = trait::moves_valid_data | trait::may_alias_exactly, .disjoint_from = "source vector", .summary = summary};
}
constexpr r buffer_col_expand_arith(opcode c, std::string_view m, std::string_view summary) {
  return {.code = c, .mnemonic = m, .dia = d::buffer, .operands = "source:v vector:v dest:v", .results = arity::none,
          .traits = trait::may_alias_exactly, .writes = "dest", .disjoint_from = "source vector", .summary = summary};
}
/// Column reductions (extended rollout §3.2): the source's valid [r, c] folded per column into a
/// [1, C] row; only col_sum's native form takes a scratch `tmp`.
constexpr r tile_col_reduction(opcode c, std::string_view m, std::string_view summary, bool scratch) {
  return {.code = c, .mnemonic = m, .dia = d::tile, .operands = scratch ? "source:v tmp:v?" : "source:v",
          .traits = trait::moves_valid_data, .disjoint_from = scratch ? "source tmp" : "source", .extent_of = "source",
          .scratch = scratch ? "tmp" : "", .summary = summary};
}
constexpr r buffer_col_reduction(opcode c, std::string_view m, std::string_view summary, bool scratch) {
  return {.code = c, .mnemonic = m, .dia = d::buffer, .operands = scratch ? "source:v tmp:v dest:v" : "source:v dest:v",
          .results = arity::none, .writes = "dest", .disjoint_from = scratch ? "source tmp" : "source",
          .scratch = scratch ? "tmp" : "", .summary = summary};
}
constexpr r spmd(opcode c, std::string_view m, dialect dia, std::string_view summary) {
  return {.code = c, .mnemonic = m, .dia = dia, .operands = "", .traits = trait::spmd_query, .summary = summary};
}
using o = opcode;
using k = ew_kind;
inline constexpr std::array<op_record, opcode_count> op_table = checked_records(std::array<op_record, opcode_count>{{
    {.code = o::scalar_const, .mnemonic = "scalar.const", .dia = d::scalar, .operands = "value:s", .summary = "the literal `value`"},
    scalar_binary(o::scalar_add, "scalar.add", "+", "lhs + rhs"),
    scalar_binary(o::scalar_sub, "scalar.sub", "-", "lhs - rhs"),
    scalar_binary(o::scalar_mul, "scalar.mul", "*", "lhs * rhs"),
    scalar_binary(o::scalar_floordiv, "scalar.floordiv", "//", "lhs divided by rhs, rounded toward negative infinity"),
    scalar_binary(o::scalar_mod, "scalar.mod", "%", "lhs modulo rhs, with the sign of rhs"),
    scalar_binary(o::scalar_min, "min", {}, "the smaller of lhs and rhs"),
    scalar_binary(o::scalar_max, "max", {}, "the larger of lhs and rhs"),
    scalar_binary(o::scalar_lt, "scalar.lt", "<", "lhs < rhs", trait::comparison),
    scalar_binary(o::scalar_le, "scalar.le", "<=", "lhs <= rhs", trait::comparison),
    scalar_binary(o::scalar_eq, "scalar.eq", "==", "lhs == rhs", trait::comparison),
    scalar_binary(o::scalar_ne, "scalar.ne", "!=", "lhs != rhs", trait::comparison),
    scalar_binary(o::scalar_gt, "scalar.gt", ">", "lhs > rhs", trait::comparison),
    scalar_binary(o::scalar_ge, "scalar.ge", ">=", "lhs >= rhs", trait::comparison),
    scalar_binary(o::scalar_and, "scalar.and", "and", "logical and of two BOOLs"),
    scalar_binary(o::scalar_or, "scalar.or", "or", "logical or of two BOOLs"),
    {.code = o::scalar_not, .mnemonic = "not", .dia = d::scalar, .operands = "arg:s", .summary = "logical not of a BOOL"},
    {.code = o::scalar_cast, .mnemonic = "cast", .dia = d::scalar, .operands = "value:s to:d", .summary = "`value` converted to dtype `to`"},
    {.code = o::cf_if, .mnemonic = "if", .dia = d::control, .operands = "cond:s", .results = arity::variadic, .regions = 2,
     .summary = "runs the then region when `cond` holds, else the else region; results are what the arm yields"},
    {.code = o::cf_for, .mnemonic = "for", .dia = d::control, .operands = "start:s stop:s step:s inits:s*",
     .results = arity::variadic, .regions = 1, .traits = trait::loop,
     .summary = "runs its body for start <= i < stop by step, carrying `inits` through each iteration's yield"},
    {.code = o::cf_while, .mnemonic = "while", .dia = d::control, .operands = "inits:s*", .results = arity::variadic,
     .regions = 2, .traits = trait::loop | trait::condition_region,
     .summary = "runs its body while the condition region yields true, carrying `inits`"},
    {.code = o::cf_yield, .mnemonic = "yield", .dia = d::control, .operands = "values:s*", .results = arity::none,
     .traits = trait::terminator, .summary = "ends a region, passing `values` to its owner"},
    {.code = o::cf_return, .mnemonic = "return", .dia = d::control, .operands = "values:s*", .results = arity::none,
     .traits = trait::terminator | trait::exits_function, .summary = "ends the function, returning `values`"},
    {.code = o::orch_submit, .mnemonic = "submit", .dia = d::orchestration, .operands = "callee:f call_args:t deps:t",
     .traits = trait::side_effects, .summary = "submits a task running `callee` on `call_args` after `deps`; the result is the task"},
    {.code = o::tile_alloc, .mnemonic = "tile.alloc", .dia = d::tile, .operands = "space:m capacity:s",
     .keywords = kw_bit(keyword::addr), .traits = trait::allocates,
     .summary = "planned storage of `capacity` bytes in `space`, at `addr` when placed"},
    {.code = o::tile_create, .mnemonic = "tile.create", .dia = d::tile, .operands = "",
     .summary = "a tile of its result type whose contents are undefined"},
    {.code = o::tile_full, .mnemonic = "tile.full", .dia = d::tile, .operands = "value:s", .ew = k::fill,
     .traits = trait::moves_valid_data, .summary = "a tile with every valid element `value`"},
    {.code = o::tile_load, .mnemonic = "tile.load", .dia = d::tile, .operands = "tensor:v offsets:p shape:p valid:p?",
     .keywords = kw_bit(keyword::cache), .traits = trait::moves_valid_data,
     .summary = "the `shape` window of GM `tensor` at `offsets`, `valid` extents read"},
    {.code = o::tile_store, .mnemonic = "tile.store", .dia = d::tile, .operands = "tile:v offsets:p tensor:v",
     .keywords = store_kws, .traits = trait::moves_valid_data | trait::side_effects, .writes = "tensor", .extent_of = "tile",
     .summary = "writes `tile`'s valid elements into GM `tensor` at `offsets`; the result is the tensor"},
    {.code = o::tile_move, .mnemonic = "tile.move", .dia = d::tile, .operands = "source:v",
     .traits = trait::moves_valid_data | trait::may_alias_exactly, .disjoint_from = "source",
     .summary = "a copy of `source` in the result's storage (a layout or memory-space change)"},
    {.code = o::tile_reshape, .mnemonic = "tile.reshape", .dia = d::tile, .operands = "source:v shape:p",
     .traits = trait::relabel, .in_place_of = "source", .summary = "`source`'s bytes seen with row-major shape `shape`"},
    {.code = o::tile_reinterpret_view, .mnemonic = "tile.reinterpret_view", .dia = d::tile, .operands = "source:v",
     .traits = trait::relabel, .in_place_of = "source", .summary = "`source`'s bytes seen as the result type"},
    {.code = o::tile_transpose_view, .mnemonic = "tile.transpose_view", .dia = d::tile, .operands = "source:v",
     .traits = trait::relabel, .in_place_of = "source", .summary = "`source` seen transposed (its layout swaps)"},
    {.code = o::tile_slice, .mnemonic = "tile.slice", .dia = d::tile, .operands = "source:v shape:p offsets:p valid:p?",
     .traits = trait::window, .in_place_of = "source", .summary = "the `shape` window of `source` at `offsets`"},
    {.code = o::tile_assemble, .mnemonic = "tile.assemble", .dia = d::tile, .operands = "target:v source:v offsets:p",
     .in_place_of = "target", .writes = "target", .summary = "`target` with `source` written at `offsets`"},
    {.code = o::tile_set_validshape, .mnemonic = "tile.set_validshape", .dia = d::tile, .operands = "tile:v rows:s cols:s",
     .traits = trait::relabel, .in_place_of = "tile", .summary = "`tile` with valid extents `rows` x `cols`"},
    {.code = o::tile_extract, .mnemonic = "tile.extract", .dia = d::tile, .operands = "source:v row:s col:s",
     .summary = "the scalar element of `source` at (`row`, `col`)"},
    {.code = o::tile_matmul, .mnemonic = "tile.matmul", .dia = d::tile, .operands = "lhs:v rhs:v",
     .summary = "the matrix product lhs x rhs"},
    {.code = o::tile_matmul_acc, .mnemonic = "tile.matmul_acc", .dia = d::tile, .operands = "acc:v lhs:v rhs:v",
     .keywords = kw_bit(keyword::init_cond), .in_place_of = "acc", .writes = "acc",
     .summary = "acc + lhs x rhs in `acc`'s storage (lhs x rhs alone when `init_cond` holds)"},
    tile_ew(o::tile_add, "tile.add", k::binary, "lhs + rhs"),
    tile_ew(o::tile_mul, "tile.mul", k::binary, "lhs * rhs"),
    tile_ew(o::tile_sub, "tile.sub", k::binary, "lhs - rhs"),
    tile_ew(o::tile_div, "tile.div", k::binary, "lhs / rhs", hp),
    tile_ew(o::tile_maximum, "tile.maximum", k::binary, "max(lhs, rhs)"),
    tile_ew(o::tile_minimum, "tile.minimum", k::binary, "min(lhs, rhs)"),
    tile_ew(o::tile_abs, "tile.abs", k::unary, "abs(source)"),
    tile_ew(o::tile_exp, "tile.exp", k::unary, "e^source"),
    tile_ew(o::tile_sqrt, "tile.sqrt", k::unary, "sqrt(source)"),
    tile_ew(o::tile_neg, "tile.neg", k::unary, "-source"),
    tile_ew(o::tile_relu, "tile.relu", k::unary, "max(source, 0)"),
    tile_ew(o::tile_log, "tile.log", k::unary, "ln(source)", hp),
    [] {
      r rec = tile_ew(o::tile_recip, "tile.recip", k::unary, "1 / source; its result never shares storage with its source", hp);
      rec.disjoint_from = "source";
      return rec;
    }(),
    tile_ew(o::tile_rsqrt, "tile.rsqrt", k::unary, "1 / sqrt(source) (extended rollout)"),
    tile_ew(o::tile_adds, "tile.adds", k::scalar_form, "source + scalar"),
    tile_ew(o::tile_subs, "tile.subs", k::scalar_form, "source - scalar"),
    tile_ew(o::tile_muls, "tile.muls", k::scalar_form, "source * scalar"),
    tile_ew(o::tile_divs, "tile.divs", k::scalar_form, "source / scalar"),
    tile_ew(o::tile_maximums, "tile.maximums", k::scalar_form, "max(source, scalar)"),
    tile_ew(o::tile_minimums, "tile.minimums", k::scalar_form, "min(source, scalar)"),
    tile_ew(o::tile_lrelu, "tile.lrelu", k::scalar_form, "source, times scalar where negative"),
    tile_row_reduction(o::tile_row_sum, "tile.row_sum", "each row's sum over its valid columns, as a column vector"),
    tile_row_reduction(o::tile_row_max, "tile.row_max", "each row's maximum over its valid columns, as a column vector"),
    tile_row_reduction(o::tile_row_min, "tile.row_min", "each row's minimum over its valid columns, as a column vector"),
    tile_col_reduction(o::tile_col_sum, "tile.col_sum", "each column's sum over its valid rows, top to bottom, as a row", true),
    tile_col_reduction(o::tile_col_max, "tile.col_max", "each column's maximum over its valid rows, as a row", false),
    tile_col_reduction(o::tile_col_min, "tile.col_min", "each column's minimum over its valid rows, as a row", false),
    {.code = o::tile_cast, .mnemonic = "tile.cast", .dia = d::tile, .operands = "source:v to:d", .keywords = kw_bit(keyword::mode),
     .traits = trait::moves_valid_data, .disjoint_from = "source",
     .summary = "`source` converted to dtype `to`, rounded by `mode` (the ISA's enumeration; 1, nearest-even, by default)"},
    {.code = o::tile_row_expand, .mnemonic = "tile.row_expand", .dia = d::tile, .operands = "source:v",
     .traits = trait::moves_valid_data, .disjoint_from = "source",
     .summary = "the [R, 1] column `source` broadcast along each row of the result type"},
    tile_row_expand_arith(o::tile_row_expand_sub, "tile.row_expand_sub", "source[i, j] - vector[i]"),
    tile_row_expand_arith(o::tile_row_expand_div, "tile.row_expand_div", "source[i, j] / vector[i]"),
    tile_row_expand_arith(o::tile_row_expand_mul, "tile.row_expand_mul", "source[i, j] * vector[i]"),
    {.code = o::tile_col_expand, .mnemonic = "tile.col_expand", .dia = d::tile, .operands = "source:v",
     .traits = trait::moves_valid_data, .disjoint_from = "source",
     .summary = "the [1, C] row `source` broadcast down each column of the result type"},
    tile_col_expand_arith(o::tile_col_expand_add, "tile.col_expand_add", "source[i, j] + vector[0, j]"),
    tile_col_expand_arith(o::tile_col_expand_sub, "tile.col_expand_sub", "source[i, j] - vector[0, j]"),
    tile_col_expand_arith(o::tile_col_expand_mul, "tile.col_expand_mul", "source[i, j] * vector[0, j]"),
    tile_col_expand_arith(o::tile_col_expand_div, "tile.col_expand_div", "source[i, j] / vector[0, j]"),
    tile_col_expand_arith(o::tile_col_expand_max, "tile.col_expand_max", "max(source[i, j], vector[0, j])"),
    tile_col_expand_arith(o::tile_col_expand_min, "tile.col_expand_min", "min(source[i, j], vector[0, j])"),
    tile_col_expand_arith(o::tile_col_expand_expdif, "tile.col_expand_expdif", "exp(source[i, j] - vector[0, j])"),
    spmd(o::tile_get_block_idx, "tile.get_block_idx", d::tile, "this block's index in the launch"),
    spmd(o::tile_get_block_num, "tile.get_block_num", d::tile, "the launch's block count"),
    spmd(o::tile_get_subblock_idx, "tile.get_subblock_idx", d::tile, "this subblock's index in its block"),
    {.code = o::buffer_alloc, .mnemonic = "buffer.alloc", .dia = d::buffer, .operands = "init_valid:t address:s?",
     .traits = trait::allocates, .summary = "a handle of fresh storage with valid extents `init_valid`, at `address` when placed"},
    {.code = o::buffer_set_validshape, .mnemonic = "buffer.set_validshape", .dia = d::buffer, .operands = "buffer:v valid:p",
     .results = arity::none, .summary = "sets the runtime valid extents of the handle `buffer`"},
    {.code = o::buffer_load, .mnemonic = "buffer.load", .dia = d::buffer, .operands = "tensor:v offsets:p valid:p dest:v",
     .results = arity::none, .writes = "dest", .summary = "copies the `valid` window of GM `tensor` at `offsets` into `dest`"},
    {.code = o::buffer_store, .mnemonic = "buffer.store", .dia = d::buffer, .operands = "source:v offsets:p valid:p tensor:v",
     .results = arity::none, .traits = trait::side_effects, .writes = "tensor",
     .summary = "copies `source`'s `valid` window into GM `tensor` at `offsets`"},
    {.code = o::buffer_copy, .mnemonic = "buffer.copy", .dia = d::buffer, .operands = "source:v dest:v", .results = arity::none,
     .traits = trait::may_alias_exactly, .writes = "dest", .disjoint_from = "source",
     .summary = "copies `source`'s valid elements into `dest`"},
    {.code = o::buffer_subview, .mnemonic = "buffer.subview", .dia = d::buffer, .operands = "source:v offsets:p valid:p?",
     .traits = trait::window, .in_place_of = "source", .summary = "the handle of `source`'s window at `offsets`"},
    {.code = o::buffer_reshape, .mnemonic = "buffer.reshape", .dia = d::buffer, .operands = "source:v",
     .traits = trait::relabel, .in_place_of = "source", .summary = "`source`'s bytes under the result's descriptor"},
    {.code = o::buffer_extract, .mnemonic = "buffer.extract", .dia = d::buffer, .operands = "source:v row:s col:s dest:v",
     .results = arity::none, .writes = "dest", .disjoint_from = "source",
     .summary = "copies the window of `source` at (`row`, `col`) into `dest`"},
    {.code = o::buffer_matmul, .mnemonic = "buffer.matmul", .dia = d::buffer, .operands = "lhs:v rhs:v dest:v",
     .results = arity::none, .writes = "dest", .summary = "dest = lhs x rhs"},
    {.code = o::buffer_matmul_acc, .mnemonic = "buffer.matmul_acc", .dia = d::buffer, .operands = "lhs:v rhs:v dest:v",
     .results = arity::none, .writes = "dest", .summary = "dest += lhs x rhs"},
    {.code = o::buffer_full, .mnemonic = "buffer.full", .dia = d::buffer, .operands = "value:s dest:v", .results = arity::none,
     .ew = k::fill, .writes = "dest", .summary = "sets every valid element of `dest` to `value`"},
    buffer_ew(o::buffer_add, "buffer.add", k::binary, "dest = lhs + rhs"),
    buffer_ew(o::buffer_mul, "buffer.mul", k::binary, "dest = lhs * rhs"),
    buffer_ew(o::buffer_sub, "buffer.sub", k::binary, "dest = lhs - rhs"),
    buffer_ew(o::buffer_div, "buffer.div", k::binary, "dest = lhs / rhs", hp),
    buffer_ew(o::buffer_maximum, "buffer.maximum", k::binary, "dest = max(lhs, rhs)"),
    buffer_ew(o::buffer_minimum, "buffer.minimum", k::binary, "dest = min(lhs, rhs)"),
    buffer_ew(o::buffer_abs, "buffer.abs", k::unary, "dest = abs(source)"),
    buffer_ew(o::buffer_exp, "buffer.exp", k::unary, "dest = e^source"),
    buffer_ew(o::buffer_sqrt, "buffer.sqrt", k::unary, "dest = sqrt(source)"),
    buffer_ew(o::buffer_neg, "buffer.neg", k::unary, "dest = -source"),
    buffer_ew(o::buffer_relu, "buffer.relu", k::unary, "dest = max(source, 0)"),
    buffer_ew(o::buffer_log, "buffer.log", k::unary, "dest = ln(source)", hp),
    [] {
      r rec = buffer_ew(o::buffer_recip, "buffer.recip", k::unary, "dest = 1 / source; dest never overlaps source", hp);
      rec.traits = trait::none;  // never in place
      return rec;
    }(),
    buffer_ew(o::buffer_rsqrt, "buffer.rsqrt", k::unary, "dest = 1 / sqrt(source)"),
    buffer_ew(o::buffer_adds, "buffer.adds", k::scalar_form, "dest = source + scalar"),
    buffer_ew(o::buffer_subs, "buffer.subs", k::scalar_form, "dest = source - scalar"),
    buffer_ew(o::buffer_muls, "buffer.muls", k::scalar_form, "dest = source * scalar"),
    buffer_ew(o::buffer_divs, "buffer.divs", k::scalar_form, "dest = source / scalar"),
    buffer_ew(o::buffer_maximums, "buffer.maximums", k::scalar_form, "dest = max(source, scalar)"),
    buffer_ew(o::buffer_minimums, "buffer.minimums", k::scalar_form, "dest = min(source, scalar)"),
    buffer_ew(o::buffer_lrelu, "buffer.lrelu", k::scalar_form, "dest = source, times scalar where negative"),
    buffer_row_reduction(o::buffer_row_sum, "buffer.row_sum", "dest[i, 0] = the sum of source's row i; clobbers tmp"),
    buffer_row_reduction(o::buffer_row_max, "buffer.row_max", "dest[i, 0] = the maximum of source's row i; clobbers tmp"),
    buffer_row_reduction(o::buffer_row_min, "buffer.row_min", "dest[i, 0] = the minimum of source's row i; clobbers tmp"),
    buffer_col_reduction(o::buffer_col_sum, "buffer.col_sum", "dest[0, j] = the sum of source's column j, row by row; clobbers tmp", true),
    buffer_col_reduction(o::buffer_col_max, "buffer.col_max", "dest[0, j] = the maximum of source's column j", false),
    buffer_col_reduction(o::buffer_col_min, "buffer.col_min", "dest[0, j] = the minimum of source's column j", false),
    {.code = o::buffer_cast, .mnemonic = "buffer.cast", .dia = d::buffer, .operands = "source:v dest:v",
     .keywords = kw_bit(keyword::mode), .results = arity::none, .writes = "dest", .disjoint_from = "source",
     .summary = "dest = source converted to dest's dtype, rounded by `mode`"},
    {.code = o::buffer_row_expand, .mnemonic = "buffer.row_expand", .dia = d::buffer, .operands = "source:v dest:v",
     .results = arity::none, .writes = "dest", .disjoint_from = "source",
     .summary = "dest[i, j] = source[i, 0] over dest's valid extents (an [R, 1] column broadcast along rows)"},
    buffer_row_expand_arith(o::buffer_row_expand_sub, "buffer.row_expand_sub", "dest[i, j] = source[i, j] - blk[i, 0]"),
    buffer_row_expand_arith(o::buffer_row_expand_div, "buffer.row_expand_div", "dest[i, j] = source[i, j] / blk[i, 0]"),
    buffer_row_expand_arith(o::buffer_row_expand_mul, "buffer.row_expand_mul", "dest[i, j] = source[i, j] * blk[i, 0]"),
    {.code = o::buffer_col_expand, .mnemonic = "buffer.col_expand", .dia = d::buffer, .operands = "source:v dest:v",
     .results = arity::none, .writes = "dest", .disjoint_from = "source",
     .summary = "dest[i, j] = source[0, j] over dest's valid extents (a [1, C] row broadcast down columns)"},
    buffer_col_expand_arith(o::buffer_col_expand_add, "buffer.col_expand_add", "dest[i, j] = source[i, j] + vector[0, j]"),
    buffer_col_expand_arith(o::buffer_col_expand_sub, "buffer.col_expand_sub", "dest[i, j] = source[i, j] - vector[0, j]"),
    buffer_col_expand_arith(o::buffer_col_expand_mul, "buffer.col_expand_mul", "dest[i, j] = source[i, j] * vector[0, j]"),
    buffer_col_expand_arith(o::buffer_col_expand_div, "buffer.col_expand_div", "dest[i, j] = source[i, j] / vector[0, j]"),
    buffer_col_expand_arith(o::buffer_col_expand_max, "buffer.col_expand_max", "dest[i, j] = max(source[i, j], vector[0, j])"),
    buffer_col_expand_arith(o::buffer_col_expand_min, "buffer.col_expand_min", "dest[i, j] = min(source[i, j], vector[0, j])"),
    buffer_col_expand_arith(o::buffer_col_expand_expdif, "buffer.col_expand_expdif", "dest[i, j] = exp(source[i, j] - vector[0, j])"),
    spmd(o::buffer_get_block_idx, "buffer.get_block_idx", d::buffer, "this block's index in the launch"),
    spmd(o::buffer_get_block_num, "buffer.get_block_num", d::buffer, "the launch's block count"),
    spmd(o::buffer_get_subblock_idx, "buffer.get_subblock_idx", d::buffer, "this subblock's index in its block"),
}});
}  // namespace detail

constexpr const op_info& info(opcode c) { return detail::op_table[static_cast<std::size_t>(c)]; }
constexpr std::string_view mnemonic(opcode c) { return info(c).mnemonic; }
constexpr dialect dialect_of(opcode c) { return info(c).dia; }
/// Regions an op owns: `if` its then and else arms (an `if` without `else` has an empty else
/// region), `for` its body, `while` its condition and body, every other op none. The one
/// definition the verifier, the builder's users and the binary reader agree on.
constexpr std::uint32_t region_count(opcode c) { return info(c).regions; }
/// Whether the record of `c` states trait `t`.
constexpr bool has_trait(opcode c, trait t) { return info(c).has(t); }

namespace detail {
/// An op's positional operands decoded from its catalogue signature, once per opcode: the parser
/// and the verifier read operand kinds per position from here instead of rescanning the text.
struct signature {
  std::array<char, 8> letters{};  ///< operand kind per position (see `op_info`)
  std::uint8_t size = 0;          ///< positions listed in `letters`
  std::uint8_t min = 0;           ///< required positional operands
  bool variadic = false;          ///< `*`: any number of further scalars
  [[nodiscard]] constexpr char at(std::size_t i) const { return i < size ? letters[i] : 's'; }
  [[nodiscard]] constexpr bool accepts(std::size_t n) const { return n >= min && (variadic || n <= size); }
};
constexpr signature decode_signature(std::string_view s) {
  signature sig;
  for (const char c : s) {
    if (c == '?') {
      sig.min = static_cast<std::uint8_t>(sig.min - 1);
    } else if (c == '*') {
      sig.variadic = true;
    } else {
      sig.letters[sig.size++] = c;
      ++sig.min;
    }
  }
  return sig;
}
/// Each record's operands split by position, once (see `operand_list`).
inline constexpr auto operand_lists = [] {
  std::array<operand_list, opcode_count> out{};
  for (std::size_t i = 0; i < opcode_count; ++i) out[i] = split_operands(op_table[i].operands);
  return out;
}();
/// The signature of split operands: each kind's letters in order (`tensor:v valid:p?` gives
/// `vp?`), read by `decode_signature`; a kind ending in `*` is the variadic rest (any number of
/// scalars or values), which `decode_signature` reads as `*`.
constexpr signature record_signature(const operand_list& ops) {
  std::array<char, 16> letters{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < ops.size; ++i) {
    const std::string_view kind = ops.kinds[i];
    if (!kind.empty() && kind.back() == '*') {
      letters[n++] = '*';
      continue;
    }
    for (const char c : kind) letters[n++] = c;
  }
  return decode_signature(std::string_view(letters.data(), n));
}
inline constexpr auto signatures = [] {
  std::array<signature, opcode_count> out{};
  for (std::size_t i = 0; i < opcode_count; ++i) out[i] = record_signature(operand_lists[i]);
  return out;
}();
constexpr const signature& signature_of(opcode c) { return signatures[static_cast<std::size_t>(c)]; }
}  // namespace detail

constexpr bool is_tile_op(opcode c) { return dialect_of(c) == dialect::tile; }
constexpr bool is_buffer_op(opcode c) { return dialect_of(c) == dialect::buffer; }
constexpr bool is_region_op(opcode c) { return region_count(c) > 0; }
constexpr bool is_terminator(opcode c) { return has_trait(c, trait::terminator); }
constexpr bool is_spmd_query(opcode c) { return has_trait(c, trait::spmd_query); }
constexpr bool is_comparison(opcode c) { return has_trait(c, trait::comparison); }
constexpr bool is_loop_op(opcode c) { return has_trait(c, trait::loop); }
/// A region op that runs one of its regions once (`if`).
constexpr bool is_branch_op(opcode c) { return is_region_op(c) && !is_loop_op(c); }
constexpr bool is_relabel_op(opcode c) { return has_trait(c, trait::relabel); }
/// The fused column-broadcast arithmetic ops of either stage (extended rollout §3.5b).
constexpr bool is_col_expand_arith(opcode c) {
  return (c >= opcode::tile_col_expand_add && c <= opcode::tile_col_expand_expdif) ||
         (c >= opcode::buffer_col_expand_add && c <= opcode::buffer_col_expand_expdif);
}

/// Looks an op up by its text mnemonic (scalar infix operators are looked up by `infix`).
constexpr std::optional<opcode> find_mnemonic(std::string_view m) {
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (detail::op_table[i].mnemonic == m) return static_cast<opcode>(i);
  return std::nullopt;
}
constexpr std::optional<opcode> find_infix(std::string_view sym) {
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (!detail::op_table[i].infix.empty() && detail::op_table[i].infix == sym) return static_cast<opcode>(i);
  return std::nullopt;
}

/// The Buffer op that an elementwise or query Tile op lowers to (same suffix), if any.
constexpr std::optional<opcode> buffer_counterpart(opcode c) {
  if (!is_tile_op(c)) return std::nullopt;
  const auto suffix = mnemonic(c).substr(5);  // after "tile."
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const auto& row = detail::op_table[i];
    if (row.dia == dialect::buffer && row.mnemonic.substr(7) == suffix) return static_cast<opcode>(i);
  }
  return std::nullopt;
}

/// Whether a reduction folds each row (row_sum/max/min, Tile or Buffer, into an [R, 1] column)
/// rather than each column (col_sum/max/min, into a [1, C] row). The simulators and the recipes
/// pick their axis from it.
constexpr bool folds_rows(opcode reduction) {
  switch (reduction) {
    case opcode::tile_row_sum:
    case opcode::tile_row_max:
    case opcode::tile_row_min:
    case opcode::buffer_row_sum:
    case opcode::buffer_row_max:
    case opcode::buffer_row_min: return true;
    default: return false;
  }
}

}  // namespace v0
}  // namespace tile2buffer
