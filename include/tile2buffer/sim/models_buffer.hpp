// SPDX-License-Identifier: Apache-2.0
/// @file sim/models_buffer.hpp
/// The semantics of the Buffer ops, one model per op (`buffer_models`), reading operands by the
/// names the op catalogue gives them. The storage model they implement is run_buffer.hpp's file
/// comment.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/sim/buffer_interpreter.hpp"
#include "tile2buffer/sim/kernels.hpp"
#include "tile2buffer/sim/model_table.hpp"
#include "tile2buffer/sim/models_common.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {
namespace detail {
namespace buffer_model {
using state = buffer_interpreter;
using cells = buffer_interpreter::cells;

//===--- storage ---===//

inline bool alloc(state& s, view<opcode::buffer_alloc> v) {
  const op_id o = v.id();
  const type& rt = v.result_type();
  if (!rt.is_buffer()) return s.fail(o, "result is not a Buffer");
  if (rt.slayout != box_layout::none_box && !whole_boxes(rt)) return s.fail(o, "boxed descriptor needs whole-box extents");
  std::vector<std::int64_t> runtime;
  if (v.init_valid().kind == operand_kind::tuple)
    for (const auto& e : v.elements(v.init_valid())) {
      std::int64_t x = 0;
      if (!s.integer(o, e, x)) return false;
      runtime.push_back(x);
    }
  const std::size_t dynamic = (rt.valid[0].is_static() ? 0u : 1u) + (rt.valid[1].is_static() ? 0u : 1u);
  if (runtime.size() != dynamic) return s.fail(o, "the valid tuple needs one extent per runtime (`?`) dim");
  handle h;
  h.desc = rt;
  std::array<std::int64_t, 2> valid{};
  if (!s.descriptor_valid(o, rt, runtime, valid)) return false;
  h.valid_rows = valid[0];
  h.valid_cols = valid[1];
  const std::int64_t es = element_bytes(rt.dt);
  h.pitch = rt.blayout == box_layout::col_major ? rt.shape[0] * es : rt.shape[1] * es;
  if (v.address().kind != operand_kind::none) {
    std::int64_t addr = 0;
    if (!s.integer(o, v.address(), addr)) return false;
    if (addr < 0) return s.fail(o, "negative address " + std::to_string(addr));
    h.base = static_cast<std::uint64_t>(addr);
  } else if (const auto it = s.placed_.find(o.index); it != s.placed_.end()) {
    h.base = it->second;  // re-executed (in a loop): the same allocation identity
  } else {
    auto& next = s.fresh_[static_cast<std::size_t>(rt.space)];
    h.base = next;
    s.placed_[o.index] = next;
    // Why: a gap after each fresh allocation keeps off-by-one views from silently aliasing.
    next += static_cast<std::uint64_t>((rt.bytes() + 511) / 512 * 512 + 512);
  }
  return s.define(o, h);
}

inline bool set_validshape(state& s, view<opcode::buffer_set_validshape> v) {
  const op_id o = v.id();
  const operand b = v.buffer();
  if (b.kind != operand_kind::value || s.env_[b.ref].k != slot::kind::handle)
    return s.fail(o, "expected a buffer handle operand");
  handle& h = s.handles_[s.env_[b.ref].ref];
  std::array<std::int64_t, 2> valid{};
  if (!s.pair(o, v.valid(), valid)) return false;
  if (h.view) return s.fail(o, "cannot mutate static view metadata of `" + s.name_of(h) + "`");
  for (int axis = 0; axis < 2; ++axis) {
    if (h.desc.valid[axis].is_static() && h.desc.valid[axis].number != valid[axis])
      return s.fail(o, "static valid dim " + std::to_string(axis) + " of `" + s.name_of(h) + "` cannot change");
    if (valid[axis] < 0 || valid[axis] > h.desc.shape[axis])
      return s.fail(o, "valid " + rect(valid[0], valid[1]) + " outside the shape of `" + s.name_of(h) + "`");
  }
  h.valid_rows = valid[0];
  h.valid_cols = valid[1];
  return true;
}

inline bool subview(state& s, view<opcode::buffer_subview> v) {
  const op_id o = v.id();
  const handle* src = s.handle_arg(o, v.source());
  std::array<std::int64_t, 2> off{};
  if (!src || !s.pair(o, v.offsets(), off)) return false;
  const type& rt = v.result_type();
  // A whole matrix tile seen through other valid extents (an Acc tail, recipe/valid.hpp): the same
  // boxes, so the same addressing; PTO's boxed subviews at box offsets are not needed elsewhere.
  const type& sd = src->desc;
  const bool whole_matrix = sd.space != memory_space::vec && sd.slayout != box_layout::none_box && off[0] == 0 && off[1] == 0 &&
                            rt.shape == sd.shape && rt.space == sd.space && rt.dt == sd.dt && rt.blayout == sd.blayout &&
                            rt.slayout == sd.slayout && rt.fractal == sd.fractal;
  if (!whole_matrix && (!src->dense() || sd.blayout != box_layout::row_major || sd.space != memory_space::vec ||
                        rt.slayout != box_layout::none_box || rt.blayout != box_layout::row_major || rt.dt != sd.dt))
    return s.fail(o, "subview needs dense row-major Vec source and result of one element type (or a whole matrix tile)");
  if (off[0] < 0 || off[1] < 0 || off[0] + rt.shape[0] > src->desc.shape[0] || off[1] + rt.shape[1] > src->desc.shape[1])
    return s.fail(o, "window " + rect(rt.shape[0], rt.shape[1]) + " at " + rect(off[0], off[1]) + " exceeds `" + s.name_of(*src) +
                         "` " + rect(src->desc.shape[0], src->desc.shape[1]));
  std::vector<std::int64_t> runtime;
  std::array<std::int64_t, 2> given{rt.shape[0], rt.shape[1]};
  if (v.valid().kind != operand_kind::none) {
    if (!s.pair(o, v.valid(), given)) return false;
    for (int axis = 0; axis < 2; ++axis) {
      if (rt.valid[axis].is_static() && rt.valid[axis].number != given[axis])
        return s.fail(o, "valid operand differs from the static descriptor");
      if (!rt.valid[axis].is_static()) runtime.push_back(given[axis]);
    }
  } else if (!rt.static_valid()) {
    return s.fail(o, "a runtime valid descriptor needs the valid operand");
  }
  handle h;
  h.desc = rt;
  h.view = true;
  h.root = src->root;
  h.pitch = src->pitch;
  h.base = src->address(off[0], off[1]);
  if (!s.aligned_window(o, h, "at " + rect(off[0], off[1]) + " of `" + s.name_of(*src) + "`")) return false;
  std::array<std::int64_t, 2> valid{};
  if (!s.descriptor_valid(o, rt, runtime, valid)) return false;
  if (valid[0] == 0 || valid[1] == 0)
    return s.fail(o, "builds an empty native subview: dynamic-valid views belong inside their consumers' guards");
  h.valid_rows = valid[0];
  h.valid_cols = valid[1];
  return s.define(o, h);
}

inline bool reshape(state& s, view<opcode::buffer_reshape> v) {
  const op_id o = v.id();
  const handle* src = s.handle_arg(o, v.source());
  if (!src) return false;
  const type& rt = v.result_type();
  if (!rt.static_valid()) return s.fail(o, "a reshape needs static valid extents");
  if (rt.space != src->desc.space) return s.fail(o, "a reshape cannot change the memory space");
  if (rt.bytes() != src->desc.bytes())
    return s.fail(o, "result has " + std::to_string(rt.bytes()) + " bytes, source `" + s.name_of(*src) + "` " +
                         std::to_string(src->desc.bytes()));
  handle h;
  h.desc = rt;
  h.view = true;
  h.root = src->root;
  h.base = src->base;
  h.valid_rows = rt.valid[0].number;
  h.valid_cols = rt.valid[1].number;
  if (rt.space == memory_space::vec) {
    // A column vector [R, 1] (extended rollout §2.5) holds its R elements contiguously, as a
    // dense row [1, R] does: either relabels the other.
    const std::int64_t es = element_bytes(rt.dt);
    const bool column_src = is_column_vector(src->desc) && src->pitch == src->desc.shape[0] * es;
    const bool row_src = src->dense() && src->desc.blayout == box_layout::row_major && src->pitch == src->desc.row_bytes();
    if (!(column_src || row_src) || rt.slayout != box_layout::none_box ||
        !(rt.blayout == box_layout::row_major || is_column_vector(rt)))
      return s.fail(o, "a Vec reshape needs a dense row-major source with dense row pitch");
    h.pitch = is_column_vector(rt) ? rt.shape[0] * es : rt.row_bytes();
    if (!s.aligned_window(o, h, "of `" + s.name_of(*src) + "`")) return false;
  } else {
    if (rt.slayout != box_layout::none_box && !whole_boxes(rt)) return s.fail(o, "boxed descriptor needs whole-box extents");
    h.pitch = src->pitch;
  }
  return s.define(o, h);
}

//===--- transfers ---===//

inline bool load(state& s, view<opcode::buffer_load> v) {
  const op_id o = v.id();
  gm_tensor* g = s.tensor_arg(o, v.tensor());
  const handle* dst = s.handle_arg(o, v.dest());
  std::array<std::int64_t, 2> off{}, ext{};
  if (!g || !dst || !s.pair(o, v.offsets(), off) || !s.pair(o, v.valid(), ext)) return false;
  if (ext[0] != dst->valid_rows || ext[1] != dst->valid_cols)
    return s.fail(o, "extents " + rect(ext[0], ext[1]) + " differ from the valid " + rect(dst->valid_rows, dst->valid_cols) +
                         " of `" + s.name_of(*dst) + "`");
  if (ext[0] == 0 || ext[1] == 0) return s.empty_rectangle(o);
  if (g->dt != dst->desc.dt) return s.fail(o, "tensor and buffer element types differ");
  if (dst->desc.space != memory_space::vec && dst->desc.space != memory_space::mat) return s.fail(o, "loads target Vec or Mat");
  const value_id param = s.fn().params[s.env_[v.tensor().ref].ref].value;
  cells c;
  for (std::int64_t i = 0; i < ext[0]; ++i)
    for (std::int64_t j = 0; j < ext[1]; ++j) {
      const std::int64_t fl = g->flat(off[0] + i, off[1] + j);
      if (!g->in_allocation(fl))
        return s.fail(o, "reads element " + rect(off[0] + i, off[1] + j) + " outside the allocation of `" + g->name + "`");
      cell_meta m = g->meta_at(fl);
      if (m.state == cell_state::unset) m.origin = param.index;
      c.emplace_back(g->get_bits(fl), moved(m, o.index));
    }
  s.scatter(*dst, ext[0], ext[1], c);
  return true;
}

inline bool store(state& s, view<opcode::buffer_store> v) {
  const op_id o = v.id();
  const handle* src = s.handle_arg(o, v.source());
  gm_tensor* g = s.tensor_arg(o, v.tensor());
  std::array<std::int64_t, 2> off{}, ext{};
  if (!g || !src || !s.pair(o, v.offsets(), off) || !s.pair(o, v.valid(), ext)) return false;
  if (ext[0] != src->valid_rows || ext[1] != src->valid_cols)
    return s.fail(o, "extents " + rect(ext[0], ext[1]) + " differ from the valid " + rect(src->valid_rows, src->valid_cols) +
                         " of `" + s.name_of(*src) + "`");
  if (ext[0] == 0 || ext[1] == 0) return s.empty_rectangle(o);
  const dtype from = src->desc.dt;
  const bool narrowing = src->desc.space == memory_space::acc && from == dtype::fp32 &&
                         (g->dt == dtype::fp16 || g->dt == dtype::bf16);
  if (from != g->dt && !narrowing) return s.fail(o, "buffer and tensor element types differ");
  cells c;
  for (std::int64_t i = 0; i < ext[0]; ++i)
    for (std::int64_t j = 0; j < ext[1]; ++j) {
      cell_meta m;
      const element_bits e = s.rd_bits(*src, i, j, m);
      cell_meta gm = moved(m, o.index);
      gm.via = m.writer;
      c.emplace_back(narrowing ? encode(g->dt, convert(from, g->dt, decode(from, e))) : e, gm);
    }
  std::size_t k = 0;
  for (std::int64_t i = 0; i < ext[0]; ++i)
    for (std::int64_t j = 0; j < ext[1]; ++j, ++k) {
      const std::int64_t fl = g->flat(off[0] + i, off[1] + j);
      if (!g->in_allocation(fl))
        return s.fail(o, "writes element " + rect(off[0] + i, off[1] + j) + " outside the allocation of `" + g->name + "`");
      g->put_bits(fl, c[k].first, c[k].second);
    }
  return true;
}

inline bool copy(state& s, view<opcode::buffer_copy> v) {
  const op_id o = v.id();
  const handle* src = s.handle_arg(o, v.source());
  const handle* dst = s.handle_arg(o, v.dest());
  if (!src || !dst) return false;
  const type& a = src->desc;
  const type& d = dst->desc;
  const bool vec = a.space == memory_space::vec && d.space == memory_space::vec && a.shape == d.shape && a.dt == d.dt &&
                   a.blayout == d.blayout && a.slayout == d.slayout && a.fractal == d.fractal;
  const bool mte1 = a.space == memory_space::mat && (d.space == memory_space::left || d.space == memory_space::right) &&
                    a.shape == d.shape && a.dt == d.dt;
  if (!vec && !mte1) return s.fail(o, "copies Vec to Vec with equal descriptors or Mat to Left/Right");
  if (!s.same_valid(o, *src, *dst)) return false;
  if (dst->valid_rows == 0 || dst->valid_cols == 0) return s.empty_rectangle(o);
  cells c;
  for (std::int64_t i = 0; i < dst->valid_rows; ++i)
    for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
      cell_meta m;
      const element_bits e = s.rd_bits(*src, i, j, m);
      c.emplace_back(e, moved(m, o.index));
    }
  s.scatter(*dst, dst->valid_rows, dst->valid_cols, c);
  return true;
}

inline bool extract(state& s, view<opcode::buffer_extract> v) {
  const op_id o = v.id();
  const handle* src = s.handle_arg(o, v.source());
  const handle* dst = s.handle_arg(o, v.dest());
  std::int64_t row = 0, col = 0;
  if (!src || !dst || !s.integer(o, v.row(), row) || !s.integer(o, v.col(), col)) return false;
  if (src->desc.dt != dst->desc.dt) return s.fail(o, "element types differ");
  if (row < 0 || col < 0 || row + dst->desc.shape[0] > src->desc.shape[0] || col + dst->desc.shape[1] > src->desc.shape[1])
    return s.fail(o, "window at " + rect(row, col) + " exceeds `" + s.name_of(*src) + "`");
  cells c;
  for (std::int64_t i = 0; i < dst->valid_rows; ++i)
    for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
      cell_meta m;
      const element_bits e = s.rd_bits(*src, row + i, col + j, m);
      c.emplace_back(e, moved(m, o.index));
    }
  s.scatter(*dst, dst->valid_rows, dst->valid_cols, c);
  return true;
}

//===--- cube ---===//

/// matmul and matmul_acc (`accumulate`): Left x Right into the Acc destination.
inline bool product(state& s, op_id o, const operand& lhs_operand, const operand& rhs_operand, const operand& dest,
                    bool accumulate) {
  const handle* lhs = s.handle_arg(o, lhs_operand);
  const handle* rhs = s.handle_arg(o, rhs_operand);
  const handle* dst = s.handle_arg(o, dest);
  if (!lhs || !rhs || !dst) return false;
  if (lhs->desc.space != memory_space::left || rhs->desc.space != memory_space::right || dst->desc.space != memory_space::acc)
    return s.fail(o, "operands must be Left x Right -> Acc");
  const auto acc_type = accumulator_of(lhs->desc.dt);
  if (lhs->desc.dt != rhs->desc.dt || !acc_type || dst->desc.dt != *acc_type)
    return s.fail(o, "operand/accumulator element types are not a supported cube pair");
  const std::int64_t m = lhs->valid_rows, k = lhs->valid_cols, n = rhs->valid_cols;
  if (rhs->valid_rows < k) return s.fail(o, "rhs valid rows are fewer than lhs valid columns");
  if (dst->valid_rows != m || dst->valid_cols != n)
    return s.fail(o, "destination valid " + rect(dst->valid_rows, dst->valid_cols) + " differs from the product " + rect(m, n));
  cells c;
  read_once lhs_at(m, k, [&](std::int64_t r, std::int64_t col, cell_meta& x) { return s.rd(*lhs, r, col, x); });
  read_once rhs_at(k, n, [&](std::int64_t r, std::int64_t col, cell_meta& x) { return s.rd(*rhs, r, col, x); });
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      cell_meta in;
      in.state = cell_state::value;
      const auto a = [&](std::int64_t kk) {
        cell_meta x;
        const element e = lhs_at(i, kk, x);
        in = merge(in, x);
        return e;
      };
      const auto b = [&](std::int64_t kk) {
        cell_meta x;
        const element e = rhs_at(kk, j, x);
        in = merge(in, x);
        return e;
      };
      element prior;
      if (accumulate) {
        cell_meta x;
        prior = s.rd(*dst, i, j, x);
        in = merge(in, x);
      }
      const element r = dot(*acc_type, k, a, b, accumulate ? &prior : nullptr);
      c.emplace_back(encode(dst->desc.dt, r), computed(in, o.index, false));
    }
  clobber_partial_boxes(dst->desc, m, n, [&](std::int64_t r, std::int64_t col) {
    cell_meta p;
    p.state = cell_state::poison;
    p.producer = p.writer = o.index;
    s.wr(*dst, r, col, element_bits{}, p);
  });
  s.scatter(*dst, m, n, c);
  return true;
}
inline bool matmul(state& s, view<opcode::buffer_matmul> v) { return product(s, v.id(), v.lhs(), v.rhs(), v.dest(), false); }
inline bool matmul_acc(state& s, view<opcode::buffer_matmul_acc> v) {
  return product(s, v.id(), v.lhs(), v.rhs(), v.dest(), true);
}

//===--- vector math ---===//

inline void clobber(state& s, op_id o, const handle& scratch);

/// What every elementwise op does, on the operands its kind names (`ew_rows`, models_common.hpp);
/// the op's row of ew_table (kernels.hpp) says what it computes. A scratch `tmp` (rsqrt's
/// high-precision form) is left unspecified, as the reductions' is.
inline bool elementwise(state& s, op_id o, const ew_operands& in) {
  const ew_semantics& op = *ew_op_of(s.fn().op(o).code());
  const operand dest = named_operand<"dest">(s.fn(), o);
  if (dest.kind == operand_kind::none) return s.fail(o, "needs a destination");
  const handle* dst = s.handle_arg(o, dest);
  if (!dst) return false;
  if (dst->valid_rows == 0 || dst->valid_cols == 0) return s.empty_rectangle(o);
  const dtype d = dst->desc.dt;
  if (!ew_defined(op, d)) return s.fail(o, std::string("not defined on ") + std::string(name(d)));
  const handle* a = nullptr;
  const handle* b = nullptr;
  element sc{};
  if (in.scalar) {
    scalar_value v;
    if (!s.scalar(o, *in.scalar, v)) return false;
    sc = scalar_element(v, d);
  }
  if (in.first && !(a = s.handle_arg(o, *in.first))) return false;
  if (in.second && !(b = s.handle_arg(o, *in.second))) return false;
  for (const handle* x : {a, b}) {
    if (!x) continue;
    if (x->desc.shape != dst->desc.shape || x->desc.dt != d || x->desc.space != dst->desc.space)
      return s.fail(o,
                    "operand `" + s.name_of(*x) + "` and destination `" + s.name_of(*dst) + "` differ in shape, type or space");
    if (!s.same_valid(o, *x, *dst)) return false;
  }
  const bool inexact = ew_inexact(op) && is_float(d);
  cells c;
  for (std::int64_t i = 0; i < dst->valid_rows; ++i)
    for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
      cell_meta m;
      m.state = cell_state::value;
      element x{}, y = sc;
      if (a) x = s.rd(*a, i, j, m);
      if (b) {
        cell_meta mb;
        y = s.rd(*b, i, j, mb);
        m = merge(m, mb);
      }
      c.emplace_back(encode(d, ew_apply(op, d, x, y)), computed(m, o.index, inexact));
    }
  s.scatter(*dst, dst->valid_rows, dst->valid_cols, c);
  if (const operand tmp = scratch_operand(s.fn(), o); tmp.is_value()) {
    const handle* t = s.handle_arg(o, tmp);
    if (!t) return false;
    clobber(s, o, *t);
  }
  return true;
}

/// A native scratch after its op: its contents are unspecified (extended rollout §2.3), so every
/// valid element becomes poison written by `o`.
inline void clobber(state& s, op_id o, const handle& scratch) {
  cell_meta clobbered;
  clobbered.state = cell_state::poison;
  clobbered.producer = clobbered.writer = o.index;
  for (std::int64_t i = 0; i < scratch.valid_rows; ++i)
    for (std::int64_t j = 0; j < scratch.valid_cols; ++j) s.wr(scratch, i, j, element_bits{}, clobbered);
}

/// Reductions, one model for both axes, as the Tile run folds them (fold_row): row_sum/max/min
/// each of the source's valid rows into the [R, 1] column-vector destination, col_sum/max/min
/// each valid column top to bottom into the [1, C] row. A scratch `tmp` (the row reductions',
/// col_sum's) is clobbered: poisoned over its valid rectangle, its contents being unspecified
/// after the op (extended rollout §2.3).
template <opcode C>
bool reduction(state& s, view<C> v) {
  constexpr bool rows = folds_rows(C);
  constexpr std::size_t kept = rows ? 0 : 1;  // the axis the destination keeps
  constexpr bool has_tmp = !info(C).scratch.empty();
  const op_id o = v.id();
  const handle* src = s.handle_arg(o, v.source());
  const handle* dst = s.handle_arg(o, v.dest());
  const handle* scratch = nullptr;
  if constexpr (has_tmp) scratch = s.handle_arg(o, v.tmp());
  if (!src || !dst || (has_tmp && !scratch)) return false;
  const dtype d = src->desc.dt;
  if (dst->desc.dt != d || (scratch && scratch->desc.dt != d) || dst->desc.shape[kept] != src->desc.shape[kept] ||
      dst->desc.shape[1 - kept] != 1)
    return s.fail(o, rows ? "destination must be [rows, 1] of the source type, tmp of the source type"
                          : "destination must be [1, columns] of the source type, tmp of the source type");
  if (!is_float(d))
    return s.fail(o, std::string(rows ? "row" : "column") + " reductions are not defined on " + std::string(name(d)));
  const std::int64_t lines = rows ? dst->valid_rows : dst->valid_cols, across = rows ? src->valid_cols : src->valid_rows;
  if (src->valid_rows == 0 || src->valid_cols == 0 || lines == 0) return s.empty_rectangle(o);
  if (lines != (rows ? src->valid_rows : src->valid_cols) || (rows ? dst->valid_cols : dst->valid_rows) != 1)
    return s.fail(o, "destination valid " + rect(dst->valid_rows, dst->valid_cols) +
                         (rows ? " is not the source's rows by 1" : " is not 1 by the source's columns"));
  const ew_semantics& step = *combine_step_of(C).combine;
  cells c;
  for (std::int64_t k = 0; k < lines; ++k) {
    cell_meta m;
    const element acc = fold_row(
        step, d, across, [&](std::int64_t t, cell_meta& x) { return rows ? s.rd(*src, k, t, x) : s.rd(*src, t, k, x); }, m);
    c.emplace_back(encode(d, acc), computed(m, o.index, false));
  }
  if (scratch) clobber(s, o, *scratch);
  s.scatter(*dst, rows ? lines : 1, rows ? 1 : lines, c);
  return true;
}

/// cast: each valid element of `source` converted to dest's dtype by the `mode` keyword (the Tile
/// run's cast_element).
inline bool cast(state& s, view<opcode::buffer_cast> v) {
  const op_id o = v.id();
  const handle* src = s.handle_arg(o, v.source());
  const handle* dst = s.handle_arg(o, v.dest());
  if (!src || !dst) return false;
  if (src->desc.shape != dst->desc.shape) return s.fail(o, "source and destination differ in shape");
  if (!s.same_valid(o, *src, *dst)) return false;
  if (dst->valid_rows == 0 || dst->valid_cols == 0) return s.empty_rectangle(o);
  const int mode = cast_mode(s.fn().kwarg_of(o, keyword::mode));
  cells c;
  for (std::int64_t i = 0; i < dst->valid_rows; ++i)
    for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
      cell_meta m;
      const element e = s.rd(*src, i, j, m);
      c.emplace_back(encode(dst->desc.dt, cast_element(src->desc.dt, dst->desc.dt, e, mode)), computed(m, o.index, false));
    }
  s.scatter(*dst, dst->valid_rows, dst->valid_cols, c);
  return true;
}

/// row_expand: `dest[i, j] = source[i, 0]` over dest's valid extents (the source's valid rows).
inline bool row_expand(state& s, view<opcode::buffer_row_expand> v) {
  const op_id o = v.id();
  const handle* src = s.handle_arg(o, v.source());
  const handle* dst = s.handle_arg(o, v.dest());
  if (!src || !dst) return false;
  if (src->desc.dt != dst->desc.dt || src->desc.shape[1] != 1 || src->desc.shape[0] != dst->desc.shape[0])
    return s.fail(o, "source must be an [R, 1] column of the destination's rows and type");
  if (dst->valid_rows == 0 || dst->valid_cols == 0 || src->valid_rows == 0) return s.empty_rectangle(o);
  if (src->valid_rows != dst->valid_rows)
    return s.fail(o, "source valid rows " + std::to_string(src->valid_rows) + " differ from the destination's " +
                         std::to_string(dst->valid_rows));
  cells c;
  for (std::int64_t i = 0; i < dst->valid_rows; ++i) {
    cell_meta m;
    const element_bits e = s.rd_bits(*src, i, 0, m);
    for (std::int64_t j = 0; j < dst->valid_cols; ++j) c.emplace_back(e, moved(m, o.index));
  }
  s.scatter(*dst, dst->valid_rows, dst->valid_cols, c);
  return true;
}

/// row_expand_sub/div/mul (mode 2): `dest[i, j] = source[i, j] op blk[i, 0]`, blk one block per
/// row filled by buffer.row_expand.
inline bool row_expand_arith(state& s, op_id o, const operand& source, const operand& blk_operand, const operand& dest) {
  const handle* x = s.handle_arg(o, source);
  const handle* blk = s.handle_arg(o, blk_operand);
  const handle* dst = s.handle_arg(o, dest);
  if (!x || !blk || !dst) return false;
  const dtype d = dst->desc.dt;
  if (x->desc.shape != dst->desc.shape || x->desc.dt != d || blk->desc.dt != d || !is_float(d))
    return s.fail(o, "source and destination must share one float descriptor, blk its type");
  if (!s.same_valid(o, *x, *dst)) return false;
  if (dst->valid_rows == 0 || dst->valid_cols == 0) return s.empty_rectangle(o);
  if (blk->valid_rows != dst->valid_rows) return s.fail(o, "blk valid rows differ from the destination's");
  const combine_step step = combine_step_of(s.fn().op(o).code());
  cells c;
  for (std::int64_t i = 0; i < dst->valid_rows; ++i) {
    cell_meta mv;
    const element y = s.rd(*blk, i, 0, mv);
    for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
      cell_meta m;
      const element e = s.rd(*x, i, j, m);
      c.emplace_back(encode(d, apply_step(step, d, e, y)), computed(merge(m, mv), o.index, step.inexact));
    }
  }
  s.scatter(*dst, dst->valid_rows, dst->valid_cols, c);
  return true;
}
template <opcode C>
bool row_expand_member(state& s, view<C> v) {
  return row_expand_arith(s, v.id(), v.source(), v.blk(), v.dest());
}

/// col_expand: `dest[i, j] = source[0, j]` over dest's valid extents (the source's valid columns).
inline bool col_expand(state& s, view<opcode::buffer_col_expand> v) {
  const op_id o = v.id();
  const handle* src = s.handle_arg(o, v.source());
  const handle* dst = s.handle_arg(o, v.dest());
  if (!src || !dst) return false;
  if (src->desc.dt != dst->desc.dt || src->desc.shape[0] != 1 || src->desc.shape[1] != dst->desc.shape[1])
    return s.fail(o, "source must be a [1, C] row of the destination's columns and type");
  if (dst->valid_rows == 0 || dst->valid_cols == 0 || src->valid_cols == 0) return s.empty_rectangle(o);
  if (src->valid_cols != dst->valid_cols)
    return s.fail(o, "source valid columns " + std::to_string(src->valid_cols) + " differ from the destination's " +
                         std::to_string(dst->valid_cols));
  cells c;
  for (std::int64_t i = 0; i < dst->valid_rows; ++i)
    for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
      cell_meta m;
      const element_bits e = s.rd_bits(*src, 0, j, m);
      c.emplace_back(e, moved(m, o.index));
    }
  s.scatter(*dst, dst->valid_rows, dst->valid_cols, c);
  return true;
}

/// col_expand_<op>: `dest[i, j] = source[i, j] op vector[0, j]`.
template <opcode C>
bool col_expand_arith(state& s, view<C> v) {
  const op_id o = v.id();
  const handle* x = s.handle_arg(o, v.source());
  const handle* row = s.handle_arg(o, v.vector());
  const handle* dst = s.handle_arg(o, v.dest());
  if (!x || !row || !dst) return false;
  const dtype d = dst->desc.dt;
  if (x->desc.shape != dst->desc.shape || x->desc.dt != d || row->desc.dt != d || !is_float(d))
    return s.fail(o, "source and destination must share one float descriptor, vector its type");
  if (!s.same_valid(o, *x, *dst)) return false;
  if (dst->valid_rows == 0 || dst->valid_cols == 0) return s.empty_rectangle(o);
  if (row->valid_cols != dst->valid_cols) return s.fail(o, "vector valid columns differ from the destination's");
  const combine_step step = combine_step_of(C);
  cells c;
  for (std::int64_t i = 0; i < dst->valid_rows; ++i)
    for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
      cell_meta m, mw;
      const element e = s.rd(*x, i, j, m);
      const element w = s.rd(*row, 0, j, mw);
      c.emplace_back(encode(d, apply_step(step, d, e, w)), computed(merge(m, mw), o.index, step.inexact));
    }
  s.scatter(*dst, dst->valid_rows, dst->valid_cols, c);
  return true;
}

// The families' models, one row per member (sim/model_table.hpp `family_rows`).
template <opcode C>
struct reduction_row {
  static constexpr auto row = typed_model<&reduction<C>>;
};
template <opcode C>
struct row_expand_row {
  static constexpr auto row = typed_model<&row_expand_member<C>>;
};
template <opcode C>
struct col_expand_row {
  static constexpr auto row = typed_model<&col_expand_arith<C>>;
};

/// Any op without a Buffer model: another stage's op.
inline bool not_buffer(state& s, op_id o) { return s.fail(o, "not a Buffer-stage op; the Buffer interpreter cannot run it"); }

/// The rows of the models above but the families' (see `buffer_models`).
inline constexpr std::array<model_row<state>, 13> singles{{
    typed_model<&alloc>,
    typed_model<&set_validshape>,
    typed_model<&load>,
    typed_model<&store>,
    typed_model<&copy>,
    typed_model<&subview>,
    typed_model<&reshape>,
    typed_model<&extract>,
    typed_model<&matmul>,
    typed_model<&matmul_acc>,
    typed_model<&cast>,
    typed_model<&row_expand>,
    typed_model<&col_expand>,
}};
inline constexpr auto ops =
    concat_rows(concat_rows(concat_rows(singles, family_rows<state, op_family::row_reduction, dialect::buffer, reduction_row>),
                            family_rows<state, op_family::col_reduction, dialect::buffer, reduction_row>),
                concat_rows(family_rows<state, op_family::row_broadcast_arith, dialect::buffer, row_expand_row>,
                            family_rows<state, op_family::col_broadcast_arith, dialect::buffer, col_expand_row>));
}  // namespace buffer_model
}  // namespace detail

/// The Buffer simulator's model set (sim/model_table.hpp): every Buffer op, the scalar and
/// control-flow ops.
struct buffer_models {
  using state = detail::buffer_interpreter;
  static constexpr bool needs(opcode c) { return is_buffer_op(c) || detail::common_op(c); }
  static constexpr auto rows = concat_rows(concat_rows(detail::common_rows<state>, detail::buffer_model::ops),
                                           detail::ew_rows<state, &detail::buffer_model::elementwise, &is_buffer_op>);
  static constexpr model<state> otherwise = &detail::buffer_model::not_buffer;
};

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
