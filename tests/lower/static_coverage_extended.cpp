// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_extended.cpp
/// Compiling is passing: the extended rollout's op catalogue (extended-rollout.md §3), spelled
/// here from the spec file, against the public pipeline in constant evaluation. Each op x dtype
/// cell: FP32 (the extended arithmetic type, §2.2) lowers under `rollout = extended` with all three
/// planners to Buffer stage with exactly the op's Buffer op(s) and no Tile op left; the default
/// rollout keeps the same kernel on Tile with the spec's reason (§1.2); FP16 stays Tile under the
/// extended rollout with "`<op>` on FP16 is not in the extended rollout". A failing cell names
/// itself in the compiler's note: `cell<row, probe>`.
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "support/kernels.hpp"
#include "tile2buffer/lower.hpp"

namespace {
using namespace tile2buffer;
using namespace t2b_test;

/// How a row's op is fed: the shapes of its operands and result.
enum class form { row_reduce, col_reduce, row_expand, row_expand_arith, col_expand, col_expand_arith, unary };

struct ext_row {
  std::string_view tile_op;
  std::string_view buffer_op;  ///< the Buffer op it lowers to (the arithmetic ops also emit a block fill)
  form shape;
  std::string_view default_reason;  ///< the reason the default rollout gives (§1.2)
};

constexpr std::string_view reductions = "reductions remain Tile in the normal pipeline";
constexpr std::string_view broadcasts = "axis broadcasts remain Tile in the normal pipeline";
constexpr std::string_view not_default = "not in the default rollout";

// extended-rollout.md §3: the catalogue (tile.cast's pairs are checked in golden
// lower/extended/cast.t2b: its dtype is not one probe here).
constexpr ext_row rows[] = {
    {"tile.row_sum", "buffer.row_sum", form::row_reduce, reductions},
    {"tile.row_max", "buffer.row_max", form::row_reduce, reductions},
    {"tile.row_min", "buffer.row_min", form::row_reduce, reductions},
    {"tile.col_sum", "buffer.col_sum", form::col_reduce, reductions},
    {"tile.col_max", "buffer.col_max", form::col_reduce, reductions},
    {"tile.col_min", "buffer.col_min", form::col_reduce, reductions},
    {"tile.row_expand", "buffer.row_expand", form::row_expand, broadcasts},
    {"tile.row_expand_sub", "buffer.row_expand_sub", form::row_expand_arith, broadcasts},
    {"tile.row_expand_div", "buffer.row_expand_div", form::row_expand_arith, broadcasts},
    {"tile.row_expand_mul", "buffer.row_expand_mul", form::row_expand_arith, broadcasts},
    {"tile.col_expand", "buffer.col_expand", form::col_expand, broadcasts},
    {"tile.col_expand_add", "buffer.col_expand_add", form::col_expand_arith, broadcasts},
    {"tile.col_expand_sub", "buffer.col_expand_sub", form::col_expand_arith, broadcasts},
    {"tile.col_expand_mul", "buffer.col_expand_mul", form::col_expand_arith, broadcasts},
    {"tile.col_expand_div", "buffer.col_expand_div", form::col_expand_arith, broadcasts},
    {"tile.col_expand_max", "buffer.col_expand_max", form::col_expand_arith, broadcasts},
    {"tile.col_expand_min", "buffer.col_expand_min", form::col_expand_arith, broadcasts},
    {"tile.col_expand_expdif", "buffer.col_expand_expdif", form::col_expand_arith, broadcasts},
    {"tile.rsqrt", "buffer.rsqrt", form::unary, not_default},
};

enum class probe { fp32_pypto, fp32_dsa_rp, fp32_ptoas, fp32_default_rollout, fp16_extended };

constexpr bool contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

/// GM -> op -> GM. Broadcast operands come from tile.create (no other op can be the reason).
constexpr function kernel(opcode op, form shape, dtype d) {
  function_builder b(function_kind::aiv, "k");
  const bool column_result = shape == form::row_reduce;
  const auto t = tensor_type(16, 64, d);
  const auto tt = tile_type(16, 64, d);
  const value_id X = b.param("X", t);
  const auto out_t = column_result ? tensor_type(16, 1, d) : t;  // a column is stored contiguously (one-column GM)
  const value_id Out = b.param("Out", out_t, direction::out);
  b.result_type(out_t);
  const value_id x = b.emit1(opcode::tile_load, {operand::of(X), b.pair(0, 0), b.pair(16, 64)}, tt, "x");
  value_id y;
  switch (shape) {
    case form::row_reduce: y = b.emit1(op, {operand::of(x)}, tile_type(16, 1, d), "y"); break;
    case form::col_reduce: y = b.emit1(op, {operand::of(x)}, tile_type(1, 64, d), "y"); break;
    case form::unary: y = b.emit1(op, {operand::of(x)}, tt, "y"); break;
    case form::row_expand:
    case form::row_expand_arith: {
      const value_id v = b.emit1(opcode::tile_create, {}, tile_type(16, 1, d), "v");
      y = shape == form::row_expand ? b.emit1(op, {operand::of(v)}, tt, "y")
                                    : b.emit1(op, {operand::of(x), operand::of(v)}, tt, "y");
      break;
    }
    case form::col_expand:
    case form::col_expand_arith: {
      const value_id w = b.emit1(opcode::tile_create, {}, tile_type(1, 64, d), "w");
      y = shape == form::col_expand ? b.emit1(op, {operand::of(w)}, tt, "y")
                                    : b.emit1(op, {operand::of(x), operand::of(w)}, tt, "y");
      break;
    }
  }
  const value_id r = b.emit1(opcode::tile_store, {operand::of(y), b.pair(0, 0), operand::of(Out)}, out_t, "r");
  b.emit0(opcode::cf_return, {operand::of(r)});
  return b.finish();
}

constexpr opcode opcode_of(std::string_view m) { return find_mnemonic(m).value_or(opcode::count_); }

constexpr bool lowers(const ext_row& row, planner_kind planner) {
  const options opts{.planner = planner, .rollout = rollout_kind::extended};
  const auto r = lower(single(kernel(opcode_of(row.tile_op), row.shape, dtype::fp32)), opts);
  if (!r.ok() || r.value.functions.size() != 1 || r.value.functions[0].stage != ir_stage::buffer) return false;
  int emitted = 0, fills = 0;
  for (const auto& node : r.value.functions[0].ops) {
    if (is_tile_op(node.code())) return false;
    emitted += mnemonic(node.code()) == row.buffer_op;
    fills += node.code() == opcode::buffer_row_expand;
  }
  // A row-broadcast arithmetic op lowers to its block fill and the mode-2 op.
  return emitted == 1 && (row.shape != form::row_expand_arith || fills == 1);
}

constexpr bool stays(const ext_row& row, dtype d, rollout_kind rollout, std::string_view reason) {
  const options opts{.rollout = rollout};
  const auto r = lower(single(kernel(opcode_of(row.tile_op), row.shape, d)), opts);
  if (!r.ok() || r.value.functions.size() != 1 || r.value.functions[0].stage != ir_stage::tile) return false;
  const auto why = explain_selection(r.value, opts);
  if (why.size() != 1 || why[0].selected) return false;
  const std::string_view got = why[0].reason.view();
  if (reason.empty()) return true;
  return got.starts_with(row.tile_op) && got.substr(row.tile_op.size()).starts_with(": ") && contains(got, reason);
}

constexpr bool cell_holds(const ext_row& row, probe p) {
  if (opcode_of(row.tile_op) == opcode::count_) return false;
  switch (p) {
    case probe::fp32_pypto: return lowers(row, planner_kind::pypto);
    case probe::fp32_dsa_rp: return lowers(row, planner_kind::dsa_rp);
    case probe::fp32_ptoas: return lowers(row, planner_kind::ptoas);
    case probe::fp32_default_rollout: {
      // The kernel stays Tile; the op's own reason is the spec's (§1.2). A broadcast's operand
      // built here by tile.create is itself a column vector, which the default rollout rejects
      // first, so the reason is checked on the set's entry for the op.
      const opcode op = opcode_of(row.tile_op);
      const bool fed_by_create = row.shape != form::row_reduce && row.shape != form::col_reduce && row.shape != form::unary;
      const stays_tile_info* entry = registry<default_recipes>::stays_tile_reason(op);
      const bool reason_ok = row.default_reason == not_default
                                 ? entry == nullptr && !registry<default_recipes>::candidates(op).empty()
                                 : entry != nullptr && entry->reason == row.default_reason;
      return reason_ok && stays(row, dtype::fp32, rollout_kind::standard, fed_by_create ? "" : row.default_reason);
    }
    case probe::fp16_extended: return stays(row, dtype::fp16, rollout_kind::extended, "on FP16 is not in the extended rollout");
  }
  return false;
}

// Why one instantiation per cell: each is its own constant evaluation, and a failure names it.
template <std::size_t Row, probe P>
struct cell {
  static_assert(cell_holds(rows[Row], P), "lowering disagrees with the extended rollout's catalogue for this op (see cell<...>)");
  static constexpr bool checked = true;
};
template <std::size_t Row>
constexpr bool row_checked() {
  return cell<Row, probe::fp32_pypto>::checked && cell<Row, probe::fp32_dsa_rp>::checked &&
         cell<Row, probe::fp32_ptoas>::checked && cell<Row, probe::fp32_default_rollout>::checked &&
         cell<Row, probe::fp16_extended>::checked;
}
template <std::size_t... R>
constexpr bool rows_checked(std::index_sequence<R...>) {
  return (row_checked<R>() && ...);
}
static_assert(rows_checked(std::make_index_sequence<std::size(rows)>{}));

}  // namespace
