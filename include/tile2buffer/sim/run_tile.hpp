// SPDX-License-Identifier: Apache-2.0
/// @file sim/run_tile.hpp
/// The Tile interpreter: executes a Tile-stage function with value semantics for tiles and memory
/// semantics for GM.
///
/// Every Tile value is its own image (bytes in its descriptor's physical layout plus a valid
/// rectangle); an op never changes its inputs. Elements outside a value's valid rectangle are
/// poison: fresh values are entirely unset, and reading outside a valid rectangle yields poison.
/// GM is memory, as on the device and as the spec's numerical tests observe it (§9.2: a store leaves
/// GM outside its window untouched, and the host reads the parameters after the run): every tensor
/// value is an alias of the parameter it derives from, `tile.store` writes that parameter's memory
/// in execution order and its result names the same memory, and a load reads the memory as it is
/// when the load runs. So a store takes effect whether or not its result is returned or yielded,
/// and two stores that both name the parameter both land. The final state of a tensor parameter is
/// its memory at the end of the run. Planning is ignored (`tile.alloc` and storage clauses have no
/// effect).
///
/// Per-op semantics (reference §9.2–9.4): load/store copy the valid rectangle between GM and the
/// tile (store converts FP32 accumulators to FP16/BF16 with round-to-nearest-even; every other
/// copy below moves the stored bytes, so it is bit-exact for every pattern); move copies
/// the valid rectangle across memory spaces (re-laying it out); reshape and reinterpret_view keep
/// the physical bytes under the new descriptor; transpose_view is the logical transpose; slice
/// copies the window at its offsets; assemble copies the target and writes the source's valid
/// rectangle at the offsets; set_validshape changes only the valid rectangle; extract copies the
/// window at (row, col); matmul/matmul_acc accumulate in FP32 (INT32 for INT8), and matmul_acc
/// poisons the parts of partially covered Acc boxes outside the product; row_sum/row_max fold each
/// valid row in increasing column order.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/interpreter.hpp"
#include "tile2buffer/sim/kernels.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {
namespace detail {

class tile_interpreter : public interpreter<tile_interpreter> {
  friend class interpreter<tile_interpreter>;

 public:
  tile_interpreter(const function& f, const sim_inputs& in, const sim_options& opt)
      : interpreter(f, opt, "sim.tile"), gm_(f.params.size()) {
    for (std::size_t p = 0; p < f.params.size(); ++p) {
      const value_id v = f.params[p].value;
      if (p < in.tensors.size() && in.tensors[p]) {
        gm_[p] = *in.tensors[p];
        slot s;
        s.k = slot::kind::tensor;
        s.ref = static_cast<std::uint32_t>(p);
        bind(v, std::move(s));
      } else if (p < in.scalars.size() && in.scalars[p]) {
        bind(v, slot::of(*in.scalars[p]));
      }
    }
  }

  /// The memory of every tensor parameter; after a failed run, as the failing op left it.
  run_result finish() {
    run_result r;
    r.fn = &f_;
    r.errors = std::move(errors_);
    r.tensors.resize(f_.params.size());
    for (std::size_t p = 0; p < gm_.size(); ++p)
      if (gm_[p]) r.tensors[p] = std::move(*gm_[p]);
    return r;
  }

 private:
  //===--- helpers ---===//
  const image* tile_arg(op_id o, const operand& a) {
    const slot s = operand_slot(a);
    if (s.k != slot::kind::tile || !s.tile) {
      fail(o, "expected a tile operand");
      return nullptr;
    }
    // Why: the slot copy keeps the image alive only until return; the env keeps it alive longer.
    return a.kind == operand_kind::value ? env_[a.ref].tile.get() : nullptr;
  }
  const slot* tensor_arg(op_id o, const operand& a) {
    if (a.kind != operand_kind::value || env_[a.ref].k != slot::kind::tensor) {
      fail(o, "expected a GM tensor operand");
      return nullptr;
    }
    return &env_[a.ref];
  }
  /// A fresh result image of the op's result type, valid from that type.
  bool fresh_result(op_id o, image& out) {
    const type& rt = result_type(o);
    std::array<std::int64_t, 2> v{};
    if (!tile_valid(o, rt, v)) return false;
    if (rt.slayout != box_layout::none_box && !whole_boxes(rt)) return fail(o, "boxed tile needs whole-box extents");
    out = image::fresh(rt, v[0], v[1]);
    return true;
  }
  bool set_result(op_id o, image&& im) {
    im.value = f_.result(o).index;
    slot s;
    s.k = slot::kind::tile;
    s.tile = std::make_shared<const image>(std::move(im));
    bind(f_.result(o), std::move(s));
    return true;
  }
  /// The stored bytes of (r, c) of `im`; outside its valid rectangle the element is undefined.
  static element_bits read_bits(const image& im, std::int64_t r, std::int64_t c, cell_meta& m) {
    element_bits e;
    if (r < im.valid_rows && c < im.valid_cols) e = im.read_bits(r, c, m);
    else m = cell_meta{};  // also past the physical shape of a smaller elementwise operand
    if (m.state == cell_state::unset) m.origin = im.value;
    return e;
  }
  /// The value of (r, c) of `im`, for arithmetic (see read_bits).
  static element read(const image& im, std::int64_t r, std::int64_t c, cell_meta& m) {
    return decode(im.desc.dt, read_bits(im, r, c, m));
  }
  static bool inside(const type& t, std::int64_t r, std::int64_t c) {
    return r >= 0 && c >= 0 && r <= t.shape[0] && c <= t.shape[1];
  }
  static std::string rect(std::int64_t a, std::int64_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

  //===--- dispatch ---===//
  bool exec_dialect(op_id o, opcode c) {
    if (const auto ew = ew_op_of(c); ew && is_tile_op(c)) return elementwise(o, c, *ew);
    switch (c) {
      case opcode::tile_alloc: return true;
      case opcode::tile_create: {
        image im;
        return fresh_result(o, im) && set_result(o, std::move(im));
      }
      case opcode::tile_load: return load(o);
      case opcode::tile_store: return store(o);
      case opcode::tile_move: return move(o);
      case opcode::tile_reshape:
      case opcode::tile_reinterpret_view: return relabel(o);
      case opcode::tile_transpose_view: return transpose(o);
      case opcode::tile_slice: return slice(o);
      case opcode::tile_assemble: return assemble(o);
      case opcode::tile_set_validshape: return set_validshape(o);
      case opcode::tile_extract: return extract(o);
      case opcode::tile_matmul: return matmul(o, false);
      case opcode::tile_matmul_acc: return matmul(o, true);
      case opcode::tile_row_sum:
      case opcode::tile_row_max: return row_reduce(o, c == opcode::tile_row_max);
      default: return fail(o, "not a Tile-stage op; the Tile interpreter cannot run it");
    }
  }

  //===--- transfers ---===//
  bool load(op_id o) {
    const auto args = f_.args(o);
    const slot* t = tensor_arg(o, args[0]);
    if (!t) return false;
    const gm_tensor& g = *gm_[t->ref];
    std::array<std::int64_t, 2> off{}, shape{};
    if (!pair(o, args[1], off) || !pair(o, args[2], shape)) return false;
    image im;
    if (!fresh_result(o, im)) return false;
    if (g.dt != im.desc.dt) return fail(o, "tile and tensor element types differ");
    if (shape[0] != im.desc.shape[0] || shape[1] != im.desc.shape[1]) return fail(o, "shape operand differs from the tile shape");
    if (off[0] < 0 || off[1] < 0 || off[0] + im.valid_rows > g.rows || off[1] + im.valid_cols > g.cols)
      return fail(o, "window at " + rect(off[0], off[1]) + " of " + rect(im.valid_rows, im.valid_cols) +
                         " exceeds tensor `" + g.name + "` " + rect(g.rows, g.cols));
    for (std::int64_t i = 0; i < im.valid_rows; ++i)
      for (std::int64_t j = 0; j < im.valid_cols; ++j) {
        const std::int64_t fl = g.flat(off[0] + i, off[1] + j);
        cell_meta m = g.meta_at(fl);
        if (m.state == cell_state::unset) m.origin = f_.params[t->ref].value.index;
        im.write_bits(i, j, g.get_bits(fl), moved(m, o.index));
      }
    return set_result(o, std::move(im));
  }

  bool store(op_id o) {
    const auto args = f_.args(o);
    const image* src = tile_arg(o, args[0]);
    const slot* t = tensor_arg(o, args[2]);
    std::array<std::int64_t, 2> off{};
    if (!src || !t || !pair(o, args[1], off)) return false;
    // Why refuse: running such a store as a plain one would write values the device does not.
    for (const keyword k : {keyword::pre_quant, keyword::pre_relu, keyword::atomic, keyword::st_phase})
      if (const auto kw = f_.kwarg_of(o, k); kw && !(kw->is_literal() && kw->num == 0))
        return fail(o, std::string("a store with '") + std::string(keyword_names[static_cast<std::size_t>(k)]) +
                           "' is not simulated (its fix-pipe conversion and ordering are not modelled)");
    gm_tensor* g = &*gm_[t->ref];
    const dtype from = src->desc.dt;
    const bool narrowing = from == dtype::fp32 && (g->dt == dtype::fp16 || g->dt == dtype::bf16);
    if (from != g->dt && !narrowing) return fail(o, "tile and tensor element types differ");
    if (off[0] < 0 || off[1] < 0 || off[0] + src->valid_rows > g->rows || off[1] + src->valid_cols > g->cols)
      return fail(o, "window at " + rect(off[0], off[1]) + " of " + rect(src->valid_rows, src->valid_cols) +
                         " exceeds tensor `" + g->name + "` " + rect(g->rows, g->cols));
    for (std::int64_t i = 0; i < src->valid_rows; ++i)
      for (std::int64_t j = 0; j < src->valid_cols; ++j) {
        cell_meta m;
        const element_bits e = read_bits(*src, i, j, m);
        cell_meta gm = moved(m, o.index);
        gm.via = m.writer;
        g->put_bits(g->flat(off[0] + i, off[1] + j), narrowing ? encode(g->dt, convert(from, g->dt, decode(from, e))) : e, gm);
      }
    slot s;
    s.k = slot::kind::tensor;
    s.ref = t->ref;
    bind(f_.result(o), std::move(s));
    return true;
  }

  bool move(op_id o) {
    const image* src = tile_arg(o, f_.args(o)[0]);
    image im;
    if (!src || !fresh_result(o, im)) return false;
    if (src->desc.dt != im.desc.dt) return fail(o, "element types differ");
    if (im.valid_rows > src->desc.shape[0] || im.valid_cols > src->desc.shape[1])
      return fail(o, "result valid region exceeds the source shape");
    for (std::int64_t i = 0; i < im.valid_rows; ++i)
      for (std::int64_t j = 0; j < im.valid_cols; ++j) {
        cell_meta m;
        const element_bits e = read_bits(*src, i, j, m);
        im.write_bits(i, j, e, moved(m, o.index));
      }
    return set_result(o, std::move(im));
  }

  //===--- views ---===//
  bool relabel(op_id o) {
    const image* src = tile_arg(o, f_.args(o)[0]);
    if (!src) return false;
    const type& rt = result_type(o);
    std::array<std::int64_t, 2> v{};
    if (!tile_valid(o, rt, v)) return false;
    if (rt.bytes() != src->desc.bytes())
      return fail(o, "result has " + std::to_string(rt.bytes()) + " bytes, source " + std::to_string(src->desc.bytes()));
    if (rt.slayout != box_layout::none_box && !whole_boxes(rt)) return fail(o, "boxed tile needs whole-box extents");
    image im = *src;
    im.desc = rt;
    im.valid_rows = v[0];
    im.valid_cols = v[1];
    return set_result(o, std::move(im));
  }

  bool transpose(op_id o) {
    const image* src = tile_arg(o, f_.args(o)[0]);
    image im;
    if (!src || !fresh_result(o, im)) return false;
    if (im.desc.shape[0] != src->desc.shape[1] || im.desc.shape[1] != src->desc.shape[0] || im.desc.dt != src->desc.dt)
      return fail(o, "result must be the transposed shape of the source");
    for (std::int64_t i = 0; i < im.valid_rows; ++i)
      for (std::int64_t j = 0; j < im.valid_cols; ++j) {
        cell_meta m;
        const element_bits e = read_bits(*src, j, i, m);
        im.write_bits(i, j, e, moved(m, o.index));
      }
    return set_result(o, std::move(im));
  }

  bool slice(op_id o) {
    const auto args = f_.args(o);
    const image* src = tile_arg(o, args[0]);
    std::array<std::int64_t, 2> shape{}, off{};
    image im;
    if (!src || !pair(o, args[1], shape) || !pair(o, args[2], off) || !fresh_result(o, im)) return false;
    if (shape[0] != im.desc.shape[0] || shape[1] != im.desc.shape[1]) return fail(o, "shape operand differs from the result shape");
    if (im.desc.dt != src->desc.dt) return fail(o, "element types differ");
    if (off[0] < 0 || off[1] < 0 || !inside(src->desc, off[0] + shape[0], off[1] + shape[1]))
      return fail(o, "window " + rect(shape[0], shape[1]) + " at " + rect(off[0], off[1]) + " exceeds the source " +
                         rect(src->desc.shape[0], src->desc.shape[1]));
    for (std::int64_t i = 0; i < im.valid_rows; ++i)
      for (std::int64_t j = 0; j < im.valid_cols; ++j) {
        cell_meta m;
        const element_bits e = read_bits(*src, off[0] + i, off[1] + j, m);
        im.write_bits(i, j, e, moved(m, o.index));
      }
    return set_result(o, std::move(im));
  }

  bool assemble(op_id o) {
    const auto args = f_.args(o);
    const image* target = tile_arg(o, args[0]);
    const image* source = tile_arg(o, args[1]);
    std::array<std::int64_t, 2> off{};
    if (!target || !source || !pair(o, args[2], off)) return false;
    const type& rt = result_type(o);
    std::array<std::int64_t, 2> v{};
    if (!tile_valid(o, rt, v)) return false;
    if (rt.shape != target->desc.shape || rt.dt != target->desc.dt || source->desc.dt != rt.dt)
      return fail(o, "result, target and source must share the element type and the target's shape");
    if (off[0] < 0 || off[1] < 0 || !inside(rt, off[0] + source->valid_rows, off[1] + source->valid_cols))
      return fail(o, "source valid region at " + rect(off[0], off[1]) + " exceeds the target");
    image im = image::fresh(rt, v[0], v[1]);
    for (std::int64_t i = 0; i < rt.shape[0]; ++i)
      for (std::int64_t j = 0; j < rt.shape[1]; ++j) {
        cell_meta m;
        const element_bits e = read_bits(*target, i, j, m);
        if (m.state != cell_state::unset) im.write_bits(i, j, e, m);
      }
    for (std::int64_t i = 0; i < source->valid_rows; ++i)
      for (std::int64_t j = 0; j < source->valid_cols; ++j) {
        cell_meta m;
        const element_bits e = read_bits(*source, i, j, m);
        im.write_bits(off[0] + i, off[1] + j, e, moved(m, o.index));
      }
    return set_result(o, std::move(im));
  }

  bool set_validshape(op_id o) {
    const auto args = f_.args(o);
    const image* src = tile_arg(o, args[0]);
    std::int64_t r = 0, c = 0;
    if (!src || !integer(o, args[1], r) || !integer(o, args[2], c)) return false;
    if (r < 0 || c < 0 || r > src->desc.shape[0] || c > src->desc.shape[1])
      return fail(o, "valid " + rect(r, c) + " outside the shape " + rect(src->desc.shape[0], src->desc.shape[1]));
    // Why a copy of every byte: set_validshape is metadata only (§9.2), the result names the
    // source's storage. Growing the valid region initializes nothing; it exposes what the storage
    // holds: data where something wrote it (a load before a narrowing), poison where nothing did.
    image im = *src;
    im.valid_rows = r;
    im.valid_cols = c;
    return set_result(o, std::move(im));
  }

  bool extract(op_id o) {
    const auto args = f_.args(o);
    const image* src = tile_arg(o, args[0]);
    std::int64_t row = 0, col = 0;
    image im;
    if (!src || !integer(o, args[1], row) || !integer(o, args[2], col) || !fresh_result(o, im)) return false;
    if (im.desc.dt != src->desc.dt) return fail(o, "element types differ");
    if (row < 0 || col < 0 || !inside(src->desc, row + im.desc.shape[0], col + im.desc.shape[1]))
      return fail(o, "window at " + rect(row, col) + " exceeds the source");
    for (std::int64_t i = 0; i < im.valid_rows; ++i)
      for (std::int64_t j = 0; j < im.valid_cols; ++j) {
        cell_meta m;
        const element_bits e = read_bits(*src, row + i, col + j, m);
        im.write_bits(i, j, e, moved(m, o.index));
      }
    return set_result(o, std::move(im));
  }

  //===--- cube ---===//
  bool matmul(op_id o, bool acc_form) {
    const auto args = f_.args(o);
    const std::size_t first = acc_form ? 1 : 0;
    const image* lhs = tile_arg(o, args[first]);
    const image* rhs = tile_arg(o, args[first + 1]);
    if (!lhs || !rhs) return false;
    const image* acc = nullptr;
    bool init = !acc_form;
    if (acc_form) {
      acc = tile_arg(o, args[0]);
      if (!acc) return false;
      if (const auto kw = f_.kwarg_of(o, keyword::init_cond)) {
        scalar_value v;
        if (!scalar(o, *kw, v)) return false;
        init = v.truth();
      }
    }
    image im;
    if (!fresh_result(o, im)) return false;
    const auto acc_type = accumulator_of(lhs->desc.dt);
    if (lhs->desc.dt != rhs->desc.dt || !acc_type || im.desc.dt != *acc_type)
      return fail(o, "operand/accumulator element types are not a supported cube pair");
    const std::int64_t m = lhs->valid_rows, k = lhs->valid_cols, n = rhs->valid_cols;
    if (rhs->valid_rows < k) return fail(o, "rhs valid rows are fewer than lhs valid columns");
    if (m > im.desc.shape[0] || n > im.desc.shape[1]) return fail(o, "product exceeds the accumulator shape");
    if (acc) {
      if (acc->desc.shape != im.desc.shape || acc->desc.dt != im.desc.dt) return fail(o, "accumulator type differs from the result");
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
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        cell_meta in;
        in.state = cell_state::value;
        const auto a = [&](std::int64_t kk) {
          cell_meta x;
          const element e = read(*lhs, i, kk, x);
          in = merge(in, x);
          return e;
        };
        const auto b = [&](std::int64_t kk) {
          cell_meta x;
          const element e = read(*rhs, kk, j, x);
          in = merge(in, x);
          return e;
        };
        element prior;
        if (!init) {
          cell_meta x;
          prior = read(*acc, i, j, x);
          in = merge(in, x);
        }
        const element r = dot(*acc_type, k, a, b, init ? nullptr : &prior);
        im.write(i, j, r, computed(in, o.index, false));
      }
    return set_result(o, std::move(im));
  }

  //===--- vector math ---===//
  bool elementwise(op_id o, opcode c, const ew_semantics& op) {
    const auto args = f_.args(o);
    image im;
    if (!fresh_result(o, im)) return false;
    const dtype d = im.desc.dt;
    if (!ew_defined(op, d)) return fail(o, std::string("not defined on ") + std::string(name(d)));
    const ew_kind kind = info(c).ew;
    const image* a = nullptr;
    const image* b = nullptr;
    element s{};
    if (kind == ew_kind::fill || kind == ew_kind::scalar_form) {
      scalar_value v;
      if (!scalar(o, args[kind == ew_kind::fill ? 0 : 1], v)) return false;
      s = scalar_element(v, d);
    }
    if (kind != ew_kind::fill && !(a = tile_arg(o, args[0]))) return false;
    if (kind == ew_kind::binary && !(b = tile_arg(o, args[1]))) return false;
    // Operands may differ from the result in physical shape and valid extents (such kernels stay
    // Tile): an element outside an operand's valid rectangle is undefined.
    for (const image* in : {a, b})
      if (in && in->desc.dt != d) return fail(o, "operands and result must share the element type");
    const bool inexact = ew_inexact(op) && is_float(d);
    for (std::int64_t i = 0; i < im.valid_rows; ++i)
      for (std::int64_t j = 0; j < im.valid_cols; ++j) {
        cell_meta m;
        m.state = cell_state::value;
        element x{}, y = s;
        if (a) x = read(*a, i, j, m);
        if (b) {
          cell_meta mb;
          y = read(*b, i, j, mb);
          m = merge(m, mb);
        }
        im.write(i, j, ew_apply(op, d, x, y), computed(m, o.index, inexact));
      }
    return set_result(o, std::move(im));
  }

  bool row_reduce(op_id o, bool max) {
    const image* src = tile_arg(o, f_.args(o)[0]);
    image im;
    if (!src || !fresh_result(o, im)) return false;
    const dtype d = src->desc.dt;
    if (im.desc.dt != d || im.desc.shape[0] != src->desc.shape[0]) return fail(o, "result must be [rows, 1] of the source type");
    if (src->valid_cols == 0) return fail(o, "reduces an empty row");
    const ew_semantics& step = *ew_op_of(max ? opcode::tile_maximum : opcode::tile_add);
    for (std::int64_t i = 0; i < im.valid_rows && i < src->desc.shape[0]; ++i) {
      cell_meta m;
      element acc = read(*src, i, 0, m);
      for (std::int64_t j = 1; j < src->valid_cols; ++j) {
        cell_meta x;
        const element e = read(*src, i, j, x);
        m = merge(m, x);
        acc = ew_apply(step, d, acc, e);
      }
      for (std::int64_t j = 0; j < im.valid_cols; ++j) im.write(i, j, acc, computed(m, o.index, false));
    }
    return set_result(o, std::move(im));
  }

  std::vector<std::optional<gm_tensor>> gm_;  ///< per parameter: its GM memory (tensor parameters only)
};

}  // namespace detail

/// Runs Tile-stage function `f` of `p` on `inputs` (from `make_inputs`). The result holds the final
/// GM state of every tensor parameter and the diagnostic that stopped the run, if any.
inline run_result run_tile(const program& p, const function& f, const sim_inputs& inputs, const sim_options& opt = {}) {
  static_cast<void>(p);  // reserved for calls between functions
  detail::tile_interpreter it(f, inputs, opt);
  it.run_body();
  return it.finish();
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
