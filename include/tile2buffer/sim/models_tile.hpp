// SPDX-License-Identifier: Apache-2.0
/// @file sim/models_tile.hpp
/// The semantics of the Tile ops, one model per op (`tile_models`), reading operands by the names
/// the op catalogue gives them. The rules they implement are run_tile.hpp's file comment.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/sim/kernels.hpp"
#include "tile2buffer/sim/model_table.hpp"
#include "tile2buffer/sim/models_common.hpp"
#include "tile2buffer/sim/tile_interpreter.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {
namespace detail {
namespace tile_model {
using state = tile_interpreter;

//===--- storage ---===//

inline bool alloc(state&, view<opcode::tile_alloc>) { return true; }  // planning is ignored

inline bool create(state& s, view<opcode::tile_create> v) {
  image im;
  return s.fresh_result(v.id(), im) && s.set_result(v.id(), std::move(im));
}

//===--- transfers ---===//

inline bool load(state& s, view<opcode::tile_load> v) {
  const op_id o = v.id();
  const slot* t = s.tensor_arg(o, v.tensor());
  if (!t) return false;
  const gm_tensor& g = *s.gm_[t->ref];
  std::array<std::int64_t, 2> off{}, shape{};
  if (!s.pair(o, v.offsets(), off) || !s.pair(o, v.shape(), shape)) return false;
  image im;
  if (!s.fresh_result(o, im)) return false;
  if (g.dt != im.desc.dt) return s.fail(o, "tile and tensor element types differ");
  if (shape[0] != im.desc.shape[0] || shape[1] != im.desc.shape[1]) return s.fail(o, "shape operand differs from the tile shape");
  if (off[0] < 0 || off[1] < 0 || off[0] + im.valid_rows > g.rows || off[1] + im.valid_cols > g.cols)
    return s.fail(o, "window at " + rect(off[0], off[1]) + " of " + rect(im.valid_rows, im.valid_cols) + " exceeds tensor `" +
                         g.name + "` " + rect(g.rows, g.cols));
  for (std::int64_t i = 0; i < im.valid_rows; ++i)
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      const std::int64_t fl = g.flat(off[0] + i, off[1] + j);
      cell_meta m = g.meta_at(fl);
      if (m.state == cell_state::unset) m.origin = s.fn().params[t->ref].value.index;
      im.write_bits(i, j, g.get_bits(fl), moved(m, o.index));
    }
  return s.set_result(o, std::move(im));
}

inline bool store(state& s, view<opcode::tile_store> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.tile());
  const slot* t = s.tensor_arg(o, v.tensor());
  std::array<std::int64_t, 2> off{};
  if (!src || !t || !s.pair(o, v.offsets(), off)) return false;
  // Why refuse: running such a store as a plain one would write values the device does not.
  for (const keyword k : {keyword::pre_quant, keyword::pre_relu, keyword::atomic, keyword::st_phase})
    if (v.kwarg_set(k))
      return s.fail(o, std::string("a store with '") + std::string(keyword_names[static_cast<std::size_t>(k)]) +
                           "' is not simulated (its fix-pipe conversion and ordering are not modelled)");
  gm_tensor* g = &*s.gm_[t->ref];
  const dtype from = src->desc.dt;
  const bool narrowing = from == dtype::fp32 && (g->dt == dtype::fp16 || g->dt == dtype::bf16);
  if (from != g->dt && !narrowing) return s.fail(o, "tile and tensor element types differ");
  if (off[0] < 0 || off[1] < 0 || off[0] + src->valid_rows > g->rows || off[1] + src->valid_cols > g->cols)
    return s.fail(o, "window at " + rect(off[0], off[1]) + " of " + rect(src->valid_rows, src->valid_cols) + " exceeds tensor `" +
                         g->name + "` " + rect(g->rows, g->cols));
  for (std::int64_t i = 0; i < src->valid_rows; ++i)
    for (std::int64_t j = 0; j < src->valid_cols; ++j) {
      cell_meta m;
      const element_bits e = image_bits(*src, i, j, m);
      cell_meta gm = moved(m, o.index);
      gm.via = m.writer;
      g->put_bits(g->flat(off[0] + i, off[1] + j), narrowing ? encode(g->dt, convert(from, g->dt, decode(from, e))) : e, gm);
    }
  slot r;
  r.k = slot::kind::tensor;
  r.ref = t->ref;
  s.bind(v.result(), std::move(r));
  return true;
}

inline bool move(state& s, view<opcode::tile_move> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.source());
  image im;
  if (!src || !s.fresh_result(o, im)) return false;
  if (src->desc.dt != im.desc.dt) return s.fail(o, "element types differ");
  if (im.valid_rows > src->desc.shape[0] || im.valid_cols > src->desc.shape[1])
    return s.fail(o, "result valid region exceeds the source shape");
  for (std::int64_t i = 0; i < im.valid_rows; ++i)
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      cell_meta m;
      const element_bits e = image_bits(*src, i, j, m);
      im.write_bits(i, j, e, moved(m, o.index));
    }
  return s.set_result(o, std::move(im));
}

//===--- views ---===//

/// reshape and reinterpret_view: the source's bytes under the result's descriptor.
template <opcode C>
bool relabel(state& s, view<C> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.source());
  if (!src) return false;
  const type& rt = s.result_type(o);
  std::array<std::int64_t, 2> valid{};
  if (!s.tile_valid(o, rt, valid)) return false;
  if (rt.bytes() != src->desc.bytes())
    return s.fail(o, "result has " + std::to_string(rt.bytes()) + " bytes, source " + std::to_string(src->desc.bytes()));
  if (rt.slayout != box_layout::none_box && !whole_boxes(rt)) return s.fail(o, "boxed tile needs whole-box extents");
  image im = *src;
  im.desc = rt;
  im.valid_rows = valid[0];
  im.valid_cols = valid[1];
  return s.set_result(o, std::move(im));
}

inline bool transpose(state& s, view<opcode::tile_transpose_view> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.source());
  image im;
  if (!src || !s.fresh_result(o, im)) return false;
  if (im.desc.shape[0] != src->desc.shape[1] || im.desc.shape[1] != src->desc.shape[0] || im.desc.dt != src->desc.dt)
    return s.fail(o, "result must be the transposed shape of the source");
  for (std::int64_t i = 0; i < im.valid_rows; ++i)
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      cell_meta m;
      const element_bits e = image_bits(*src, j, i, m);
      im.write_bits(i, j, e, moved(m, o.index));
    }
  return s.set_result(o, std::move(im));
}

inline bool slice(state& s, view<opcode::tile_slice> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.source());
  std::array<std::int64_t, 2> shape{}, off{};
  image im;
  if (!src || !s.pair(o, v.shape(), shape) || !s.pair(o, v.offsets(), off) || !s.fresh_result(o, im)) return false;
  if (shape[0] != im.desc.shape[0] || shape[1] != im.desc.shape[1])
    return s.fail(o, "shape operand differs from the result shape");
  if (im.desc.dt != src->desc.dt) return s.fail(o, "element types differ");
  if (off[0] < 0 || off[1] < 0 || !inside(src->desc, off[0] + shape[0], off[1] + shape[1]))
    return s.fail(o, "window " + rect(shape[0], shape[1]) + " at " + rect(off[0], off[1]) + " exceeds the source " +
                         rect(src->desc.shape[0], src->desc.shape[1]));
  for (std::int64_t i = 0; i < im.valid_rows; ++i)
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      cell_meta m;
      const element_bits e = image_bits(*src, off[0] + i, off[1] + j, m);
      im.write_bits(i, j, e, moved(m, o.index));
    }
  return s.set_result(o, std::move(im));
}

inline bool assemble(state& s, view<opcode::tile_assemble> v) {
  const op_id o = v.id();
  const image* target = s.tile_arg(o, v.target());
  const image* source = s.tile_arg(o, v.source());
  std::array<std::int64_t, 2> off{};
  if (!target || !source || !s.pair(o, v.offsets(), off)) return false;
  const type& rt = s.result_type(o);
  std::array<std::int64_t, 2> valid{};
  if (!s.tile_valid(o, rt, valid)) return false;
  if (rt.shape != target->desc.shape || rt.dt != target->desc.dt || source->desc.dt != rt.dt)
    return s.fail(o, "result, target and source must share the element type and the target's shape");
  if (off[0] < 0 || off[1] < 0 || !inside(rt, off[0] + source->valid_rows, off[1] + source->valid_cols))
    return s.fail(o, "source valid region at " + rect(off[0], off[1]) + " exceeds the target");
  image im = image::fresh(rt, valid[0], valid[1]);
  for (std::int64_t i = 0; i < rt.shape[0]; ++i)
    for (std::int64_t j = 0; j < rt.shape[1]; ++j) {
      cell_meta m;
      const element_bits e = image_bits(*target, i, j, m);
      if (m.state != cell_state::unset) im.write_bits(i, j, e, m);
    }
  for (std::int64_t i = 0; i < source->valid_rows; ++i)
    for (std::int64_t j = 0; j < source->valid_cols; ++j) {
      cell_meta m;
      const element_bits e = image_bits(*source, i, j, m);
      im.write_bits(off[0] + i, off[1] + j, e, moved(m, o.index));
    }
  return s.set_result(o, std::move(im));
}

inline bool set_validshape(state& s, view<opcode::tile_set_validshape> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.tile());
  std::int64_t r = 0, c = 0;
  if (!src || !s.integer(o, v.rows(), r) || !s.integer(o, v.cols(), c)) return false;
  if (r < 0 || c < 0 || r > src->desc.shape[0] || c > src->desc.shape[1])
    return s.fail(o, "valid " + rect(r, c) + " outside the shape " + rect(src->desc.shape[0], src->desc.shape[1]));
  // Why a copy of every byte: set_validshape is metadata only (§9.2), the result names the
  // source's storage. Growing the valid region initializes nothing; it exposes what the storage
  // holds: data where something wrote it (a load before a narrowing), poison where nothing did.
  image im = *src;
  im.valid_rows = r;
  im.valid_cols = c;
  return s.set_result(o, std::move(im));
}

inline bool extract(state& s, view<opcode::tile_extract> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.source());
  std::int64_t row = 0, col = 0;
  image im;
  if (!src || !s.integer(o, v.row(), row) || !s.integer(o, v.col(), col) || !s.fresh_result(o, im)) return false;
  if (im.desc.dt != src->desc.dt) return s.fail(o, "element types differ");
  if (row < 0 || col < 0 || !inside(src->desc, row + im.desc.shape[0], col + im.desc.shape[1]))
    return s.fail(o, "window at " + rect(row, col) + " exceeds the source");
  for (std::int64_t i = 0; i < im.valid_rows; ++i)
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      cell_meta m;
      const element_bits e = image_bits(*src, row + i, col + j, m);
      im.write_bits(i, j, e, moved(m, o.index));
    }
  return s.set_result(o, std::move(im));
}

//===--- cube ---===//

/// matmul and matmul_acc: `acc` is null for matmul; `init` says whether the product replaces the
/// accumulator instead of adding to it.
inline bool product(state& s, op_id o, const image* lhs, const image* rhs, const image* acc, bool init) {
  image im;
  if (!s.fresh_result(o, im)) return false;
  const auto acc_type = accumulator_of(lhs->desc.dt);
  if (lhs->desc.dt != rhs->desc.dt || !acc_type || im.desc.dt != *acc_type)
    return s.fail(o, "operand/accumulator element types are not a supported cube pair");
  const std::int64_t m = lhs->valid_rows, k = lhs->valid_cols, n = rhs->valid_cols;
  if (rhs->valid_rows < k) return s.fail(o, "rhs valid rows are fewer than lhs valid columns");
  if (m > im.desc.shape[0] || n > im.desc.shape[1]) return s.fail(o, "product exceeds the accumulator shape");
  if (acc) {
    if (acc->desc.shape != im.desc.shape || acc->desc.dt != im.desc.dt)
      return s.fail(o, "accumulator type differs from the result");
    for (std::int64_t i = 0; i < im.desc.shape[0]; ++i)
      for (std::int64_t j = 0; j < im.desc.shape[1]; ++j) {
        cell_meta mm;
        im.write_bits(i, j, acc->read_bits(i, j, mm), mm);
      }
    clobber_partial_boxes(im.desc, m, n, [&](std::int64_t r, std::int64_t c) {
      cell_meta p;
      p.state = cell_state::poison;
      p.producer = p.writer = o.index;
      im.write(r, c, element{}, p);
    });
  }
  read_once lhs_at(m, k, [&](std::int64_t r, std::int64_t c, cell_meta& x) { return image_value(*lhs, r, c, x); });
  read_once rhs_at(k, n, [&](std::int64_t r, std::int64_t c, cell_meta& x) { return image_value(*rhs, r, c, x); });
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
      if (!init) {
        cell_meta x;
        prior = image_value(*acc, i, j, x);
        in = merge(in, x);
      }
      const element r = dot(*acc_type, k, a, b, init ? nullptr : &prior);
      im.write(i, j, r, computed(in, o.index, false));
    }
  return s.set_result(o, std::move(im));
}

inline bool matmul(state& s, view<opcode::tile_matmul> v) {
  const image* lhs = s.tile_arg(v.id(), v.lhs());
  const image* rhs = s.tile_arg(v.id(), v.rhs());
  if (!lhs || !rhs) return false;
  return product(s, v.id(), lhs, rhs, nullptr, true);
}

inline bool matmul_acc(state& s, view<opcode::tile_matmul_acc> v) {
  const op_id o = v.id();
  const image* lhs = s.tile_arg(o, v.lhs());
  const image* rhs = s.tile_arg(o, v.rhs());
  if (!lhs || !rhs) return false;
  const image* acc = s.tile_arg(o, v.acc());
  if (!acc) return false;
  bool init = false;
  if (const auto kw = v.init_cond()) {
    scalar_value c;
    if (!s.scalar(o, *kw, c)) return false;
    init = c.truth();
  }
  return product(s, o, lhs, rhs, acc, init);
}

//===--- vector math ---===//

/// What every elementwise op does, on the operands its kind names (`ew_rows`, models_common.hpp);
/// the op's row of ew_table (kernels.hpp) says what it computes.
inline bool elementwise(state& s, op_id o, const ew_operands& in) {
  const ew_semantics& op = *ew_op_of(s.fn().op(o).code());
  image im;
  if (!s.fresh_result(o, im)) return false;
  const dtype d = im.desc.dt;
  if (!ew_defined(op, d)) return s.fail(o, std::string("not defined on ") + std::string(name(d)));
  const image* a = nullptr;
  const image* b = nullptr;
  element sc{};
  if (in.scalar) {
    scalar_value v;
    if (!s.scalar(o, *in.scalar, v)) return false;
    sc = scalar_element(v, d);
  }
  if (in.first && !(a = s.tile_arg(o, *in.first))) return false;
  if (in.second && !(b = s.tile_arg(o, *in.second))) return false;
  for (const image* x : {a, b})
    if (x && x->desc.dt != d) return s.fail(o, "operands and result must share the element type");
  // Operands may differ from the result in physical shape: valid Tile IR that stays Tile (spec,
  // default selection: "Elementwise Tile operands and their destination must have matching
  // physical shapes and valid extents; matching valid extents alone do not qualify"). What such
  // an op computes is defined only on one valid rectangle that every operand and the result
  // share (reference §9.2-9.3: ops read and write the valid rectangle, "per valid element"), so
  // the run stops at the op, naming the mismatch, when the valid extents differ at run time: a
  // [32, 16] operand of a [16, 32] result would read elements it does not hold (poison), and a
  // result smaller than its operands would drop theirs.
  const auto named = [&](value_id v) {
    const std::string_view n = s.fn().name_of(v);
    return n.empty() ? "%" + std::to_string(v.index) : std::string(n);
  };
  for (const auto& [x, at] : {std::pair{a, in.first}, std::pair{b, in.second}})
    if (x && (x->valid_rows != im.valid_rows || x->valid_cols != im.valid_cols))
      return s.fail(o, "valid " + rect(x->valid_rows, x->valid_cols) + " of `" + named(at->value()) + "` differs from valid " +
                           rect(im.valid_rows, im.valid_cols) + " of the result `" + named(s.fn().result(o)) +
                           "`: elementwise operands and result must have the same valid extents (no common valid rectangle to "
                           "compute)");
  const bool inexact = ew_inexact(op) && is_float(d);
  for (std::int64_t i = 0; i < im.valid_rows; ++i)
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      cell_meta m;
      m.state = cell_state::value;
      element x{}, y = sc;
      if (a) x = image_value(*a, i, j, m);
      if (b) {
        cell_meta mb;
        y = image_value(*b, i, j, mb);
        m = merge(m, mb);
      }
      im.write(i, j, ew_apply(op, d, x, y), computed(m, o.index, inexact));
    }
  return s.set_result(o, std::move(im));
}

/// Reductions, one model for both axes: row_sum/max/min fold each valid row in increasing column
/// order into an [R, 1] column, col_sum/max/min each valid column top to bottom into a [1, C]
/// row (fold_row either way). A scratch operand is the native instruction's; a Tile run neither
/// reads nor needs it. An empty source (no valid rows or columns) skips the op: the result is
/// unspecified, so poison.
template <opcode C>
bool reduce(state& s, view<C> v) {
  constexpr bool rows = folds_rows(C);
  constexpr std::size_t kept = rows ? 0 : 1;  // the axis the result keeps
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.source());
  image im;
  if (!src || !s.fresh_result(o, im)) return false;
  const dtype d = src->desc.dt;
  if (im.desc.dt != d || im.desc.shape[kept] != src->desc.shape[kept])
    return s.fail(o, rows ? "result must be [rows, 1] of the source type" : "result must be [1, columns] of the source type");
  if (!is_float(d))
    return s.fail(o, std::string(rows ? "row" : "column") + " reductions are not defined on " + std::string(name(d)));
  const bool empty = src->valid_rows == 0 || src->valid_cols == 0;
  const ew_semantics& step = *combine_step_of(C).combine;
  const std::int64_t lines = rows ? im.valid_rows : im.valid_cols, across = rows ? src->valid_cols : src->valid_rows;
  const std::int64_t width = rows ? im.valid_cols : im.valid_rows;  // the result's other (1-long) axis
  for (std::int64_t k = 0; k < lines && k < src->desc.shape[kept]; ++k) {
    cell_meta m;
    element acc{};
    if (empty) {
      m.state = cell_state::poison;
      m.producer = o.index;
    } else {
      acc = fold_row(
          step, d, across,
          [&](std::int64_t t, cell_meta& x) { return rows ? image_value(*src, k, t, x) : image_value(*src, t, k, x); }, m);
    }
    for (std::int64_t t = 0; t < width; ++t) {
      if (rows) im.write(k, t, acc, computed(m, o.index, false));
      else im.write(t, k, acc, computed(m, o.index, false));
    }
  }
  return s.set_result(o, std::move(im));
}

/// cast: each valid element converted to the result's dtype.
inline bool cast(state& s, view<opcode::tile_cast> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.source());
  image im;
  if (!src || !s.fresh_result(o, im)) return false;
  const int mode = cast_mode(s.fn().kwarg_of(o, keyword::mode));
  for (std::int64_t i = 0; i < im.valid_rows; ++i)
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      cell_meta m;
      const element e = image_value(*src, i, j, m);
      im.write(i, j, cast_element(src->desc.dt, im.desc.dt, e, mode), computed(m, o.index, false));
    }
  return s.set_result(o, std::move(im));
}

/// row_expand: the [R, 1] column broadcast over the result's valid extents. Why bits, not values:
/// a broadcast moves data, so every pattern arrives unchanged (an FP16/BF16 signalling NaN read as
/// a float and written back came out quiet), as in the Buffer model.
inline bool row_expand(state& s, view<opcode::tile_row_expand> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.source());
  image im;
  if (!src || !s.fresh_result(o, im)) return false;
  if (src->desc.dt != im.desc.dt || src->desc.shape[1] != 1)
    return s.fail(o, "source must be an [R, 1] column of the result type");
  for (std::int64_t i = 0; i < im.valid_rows; ++i) {
    cell_meta m;
    const element_bits e = image_bits(*src, i, 0, m);
    for (std::int64_t j = 0; j < im.valid_cols; ++j) im.write_bits(i, j, e, moved(m, o.index));
  }
  return s.set_result(o, std::move(im));
}

/// row_expand_sub/div/mul: each valid element with its row's value of `vector`; the scratch block
/// is the native instruction's and a Tile run does not need it.
inline bool row_expand_arith(state& s, op_id o, const operand& source, const operand& vector) {
  const image* x = s.tile_arg(o, source);
  const image* col = s.tile_arg(o, vector);
  image im;
  if (!x || !col || !s.fresh_result(o, im)) return false;
  const dtype d = im.desc.dt;
  if (x->desc.dt != d || col->desc.dt != d || !is_float(d))
    return s.fail(o, "source, vector and result must share one float type");
  const combine_step step = combine_step_of(s.fn().op(o).code());
  for (std::int64_t i = 0; i < im.valid_rows; ++i) {
    cell_meta mv;
    const element y = image_value(*col, i, 0, mv);
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      cell_meta m;
      const element e = image_value(*x, i, j, m);
      im.write(i, j, apply_step(step, d, e, y), computed(merge(m, mv), o.index, step.inexact));
    }
  }
  return s.set_result(o, std::move(im));
}
template <opcode C>
bool row_expand_member(state& s, view<C> v) {
  return row_expand_arith(s, v.id(), v.source(), v.vector());
}

/// col_expand: the [1, C] row broadcast over the result's valid extents (bits, as row_expand).
inline bool col_expand(state& s, view<opcode::tile_col_expand> v) {
  const op_id o = v.id();
  const image* src = s.tile_arg(o, v.source());
  image im;
  if (!src || !s.fresh_result(o, im)) return false;
  if (src->desc.dt != im.desc.dt || src->desc.shape[0] != 1) return s.fail(o, "source must be a [1, C] row of the result type");
  for (std::int64_t i = 0; i < im.valid_rows; ++i)
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      cell_meta m;
      const element_bits e = image_bits(*src, 0, j, m);
      im.write_bits(i, j, e, moved(m, o.index));
    }
  return s.set_result(o, std::move(im));
}

/// col_expand_<op>: each valid element with its column's value of the [1, C] row `vector`.
template <opcode C>
bool col_expand_arith(state& s, view<C> v) {
  const op_id o = v.id();
  const image* x = s.tile_arg(o, v.source());
  const image* row = s.tile_arg(o, v.vector());
  image im;
  if (!x || !row || !s.fresh_result(o, im)) return false;
  const dtype d = im.desc.dt;
  if (x->desc.dt != d || row->desc.dt != d || !is_float(d))
    return s.fail(o, "source, vector and result must share one float type");
  const combine_step step = combine_step_of(C);
  for (std::int64_t i = 0; i < im.valid_rows; ++i)
    for (std::int64_t j = 0; j < im.valid_cols; ++j) {
      cell_meta m, mw;
      const element e = image_value(*x, i, j, m);
      const element w = image_value(*row, 0, j, mw);
      im.write(i, j, apply_step(step, d, e, w), computed(merge(m, mw), o.index, step.inexact));
    }
  return s.set_result(o, std::move(im));
}

// The families' models, one row per member (sim/model_table.hpp `family_rows`).
template <opcode C>
struct reduce_row {
  static constexpr auto row = typed_model<&reduce<C>>;
};
template <opcode C>
struct row_expand_row {
  static constexpr auto row = typed_model<&row_expand_member<C>>;
};
template <opcode C>
struct col_expand_row {
  static constexpr auto row = typed_model<&col_expand_arith<C>>;
};

/// Any op without a Tile model: another stage's op.
inline bool not_tile(state& s, op_id o) { return s.fail(o, "not a Tile-stage op; the Tile interpreter cannot run it"); }

/// The rows of the models above but the families' (see `tile_models`).
inline constexpr std::array<model_row<state>, 17> singles{{
    typed_model<&alloc>,
    typed_model<&create>,
    typed_model<&load>,
    typed_model<&store>,
    typed_model<&move>,
    typed_model<&relabel<opcode::tile_reshape>>,
    typed_model<&relabel<opcode::tile_reinterpret_view>>,
    typed_model<&transpose>,
    typed_model<&slice>,
    typed_model<&assemble>,
    typed_model<&set_validshape>,
    typed_model<&extract>,
    typed_model<&matmul>,
    typed_model<&matmul_acc>,
    typed_model<&cast>,
    typed_model<&row_expand>,
    typed_model<&col_expand>,
}};
inline constexpr auto ops =
    concat_rows(concat_rows(concat_rows(singles, family_rows<state, op_family::row_reduction, dialect::tile, reduce_row>),
                            family_rows<state, op_family::col_reduction, dialect::tile, reduce_row>),
                concat_rows(family_rows<state, op_family::row_broadcast_arith, dialect::tile, row_expand_row>,
                            family_rows<state, op_family::col_broadcast_arith, dialect::tile, col_expand_row>));
}  // namespace tile_model
}  // namespace detail

/// The Tile simulator's model set (sim/model_table.hpp): every Tile op, the scalar and
/// control-flow ops.
struct tile_models {
  using state = detail::tile_interpreter;
  static constexpr bool needs(opcode c) { return is_tile_op(c) || detail::common_op(c); }
  static constexpr auto rows = concat_rows(concat_rows(detail::common_rows<state>, detail::tile_model::ops),
                                           detail::ew_rows<state, &detail::tile_model::elementwise, &is_tile_op>);
  static constexpr model<state> otherwise = &detail::tile_model::not_tile;
};

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
