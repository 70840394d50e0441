// SPDX-License-Identifier: Apache-2.0
/// @file sim/run_buffer.hpp
/// The Buffer interpreter: executes a Buffer-stage function on byte arenas, one per memory space.
///
/// Storage model (reference §9.1–9.2):
///  - `buffer.alloc((valid...), addr)` places a handle at byte `addr` of its space's arena; handles
///    at overlapping addresses share bytes. Without an address the handle gets fresh storage far
///    above every address a planner can produce (from 2^40 up), so it never overlaps anything;
///    one addressless alloc op keeps its storage when it runs again (in a loop), like PTOAS.
///    Allocation neither initializes nor clears bytes: storage nobody wrote reads as poison.
///  - A handle is (descriptor, byte base, row pitch, runtime valid rectangle). Dense Vec element
///    (r, c) lives at base + r * pitch + c * esize (column-major: base + c * pitch + r * esize);
///    boxed layouts (NZ, ZN, Acc) at base + layout_index(desc, r, c) * esize.
///  - `?` valid dims start from the alloc's valid tuple (one extent per `?` dim, in axis order) and
///    change with `buffer.set_validshape`; views (subview, reshape) have fixed metadata.
///  - `buffer.subview(src, (r, c)[, valid])` aliases src's bytes at element offset (r, c) with src's
///    row pitch (a UINT8[N, 32] byte root therefore moves 32 bytes per row); `buffer.reshape`
///    reinterprets the same bytes under another descriptor.
///  - Copies (load, store, copy, extract, the Mat -> Left/Right relayout) move stored bytes, bit for
///    bit; only arithmetic and the Acc -> FP16/BF16 narrowing store convert values.
///  - Every op reads its inputs completely before writing its destination, and touches only the
///    valid rectangle (matmul also clobbers partially covered Acc boxes, which become poison).
///  - GM tensors are updated in place; a window past the last column continues in the next row
///    (packed strides), and writes into the sentinel band are recorded for compare.
/// Precondition violations the hardware would not diagnose but that make the program meaningless
/// (transfer extents that differ from the valid metadata, mismatched elementwise operands, views
/// outside their source, Vec views whose base address is not 32-byte aligned, wild GM accesses
/// beyond the sentinel band) stop the run with a diagnostic.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/interpreter.hpp"
#include "tile2buffer/sim/kernels.hpp"
#include "tile2buffer/sim/memory.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// A Buffer handle during a run.
struct handle {
  type desc;                  ///< the Buffer descriptor (static or `?` valid dims)
  std::uint64_t base = 0;     ///< byte address in the arena of desc.space
  std::int64_t pitch = 0;     ///< bytes between rows (dense row-major) or columns (dense column-major)
  std::int64_t valid_rows = 0;
  std::int64_t valid_cols = 0;
  bool view = false;          ///< defined by subview/reshape: metadata cannot change
  value_id value;             ///< the SSA value of this handle
  value_id root;              ///< the allocation whose storage it names (itself for alloc)

  [[nodiscard]] bool dense() const noexcept { return desc.slayout == box_layout::none_box; }
  [[nodiscard]] std::uint64_t address(std::int64_t r, std::int64_t c) const {
    const std::int64_t es = element_bytes(desc.dt);
    std::int64_t off;
    if (!dense())
      off = layout_index(desc, r, c) * es;
    else
      off = desc.blayout == box_layout::col_major ? c * pitch + r * es : r * pitch + c * es;
    return base + static_cast<std::uint64_t>(off);
  }
};

/// First byte of addressless storage; planners' addresses stay far below it.
inline constexpr std::uint64_t fresh_storage_base = std::uint64_t{1} << 40;
/// Vector base addresses must be multiples of this (lower-tile-to-buffer: windows).
inline constexpr std::uint64_t vec_window_alignment = 32;

namespace detail {

class buffer_interpreter : public interpreter<buffer_interpreter> {
  friend class interpreter<buffer_interpreter>;

 public:
  buffer_interpreter(const function& f, const sim_inputs& in, const sim_options& opt)
      : interpreter(f, opt, "sim.buffer"), gm_(f.params.size()) {
    fresh_.fill(fresh_storage_base);
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

  run_result finish() {
    run_result r;
    r.fn = &f_;
    r.errors = std::move(errors_);
    r.tensors = std::move(gm_);
    r.alias_reads = std::move(alias_reads_);
    for (const auto& a : mem_.spaces) r.arena_pages += a.pages();
    return r;
  }
  [[nodiscard]] const arenas& memory() const noexcept { return mem_; }

 private:
  /// A gathered rectangle, as stored bytes: copies keep them, computed values are encoded once.
  using cells = std::vector<std::pair<element_bits, cell_meta>>;

  //===--- helpers ---===//
  const handle* handle_arg(op_id o, const operand& a) {
    if (a.kind != operand_kind::value || env_[a.ref].k != slot::kind::handle) {
      fail(o, "expected a buffer handle operand");
      return nullptr;
    }
    return &handles_[env_[a.ref].ref];
  }
  gm_tensor* tensor_arg(op_id o, const operand& a) {
    if (a.kind != operand_kind::value || env_[a.ref].k != slot::kind::tensor || !gm_[env_[a.ref].ref]) {
      fail(o, "expected a GM tensor operand");
      return nullptr;
    }
    return &*gm_[env_[a.ref].ref];
  }
  bool define(op_id o, handle h) {
    h.value = f_.result(o);
    if (!h.root.valid()) h.root = h.value;
    slot s;
    s.k = slot::kind::handle;
    s.ref = static_cast<std::uint32_t>(handles_.size());
    handles_.push_back(h);
    bind(f_.result(o), std::move(s));
    return true;
  }
  /// Reads the bytes of (r, c) through `h`; names `h` as the origin of never-written data and
  /// records reads of bytes written through another allocation.
  element_bits rd_bits(const handle& h, std::int64_t r, std::int64_t c, cell_meta& m) {
    const element_bits e = mem_[h.desc.space].read_bits(h.address(r, c), h.desc.dt, m);
    if (m.state == cell_state::unset) {
      m.origin = h.value.index;
    } else if (m.root != no_id && m.root != h.root.index && alias_reads_.size() < 64) {
      const alias_read a{current_, h.value.index, m.root, m.writer};
      bool seen = false;
      for (const auto& x : alias_reads_) seen = seen || (x.op == a.op && x.read == a.read && x.written == a.written);
      if (!seen) alias_reads_.push_back(a);
    }
    return e;
  }
  /// The value of (r, c) through `h`, for arithmetic (see rd_bits).
  element rd(const handle& h, std::int64_t r, std::int64_t c, cell_meta& m) { return decode(h.desc.dt, rd_bits(h, r, c, m)); }
  void wr(const handle& h, std::int64_t r, std::int64_t c, const element_bits& e, cell_meta m) {
    m.root = h.root.index;
    mem_[h.desc.space].write_bits(h.address(r, c), h.desc.dt, e, m);
  }
  /// Writes a gathered rectangle (row-major order) into `h`.
  void scatter(const handle& h, std::int64_t rows, std::int64_t cols, const cells& v) {
    std::size_t k = 0;
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j, ++k) wr(h, i, j, v[k].first, v[k].second);
  }
  std::string name_of(const handle& h) const {
    const auto n = f_.name_of(h.value);
    return n.empty() ? std::string("%") + std::to_string(h.value.index) : std::string(n);
  }
  static std::string rect(std::int64_t a, std::int64_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }
  bool same_valid(op_id o, const handle& a, const handle& b) {
    if (a.valid_rows == b.valid_rows && a.valid_cols == b.valid_cols) return true;
    return fail(o, "valid " + rect(a.valid_rows, a.valid_cols) + " of `" + name_of(a) + "` differs from valid " +
                       rect(b.valid_rows, b.valid_cols) + " of `" + name_of(b) + "`");
  }
  /// Valid extents of a descriptor: static numbers, `?` dims from `runtime` in axis order.
  bool descriptor_valid(op_id o, const type& t, std::span<const std::int64_t> runtime, std::array<std::int64_t, 2>& v) {
    std::size_t next = 0;
    for (int axis = 0; axis < 2; ++axis) {
      if (t.valid[axis].is_static()) {
        v[axis] = t.valid[axis].number;
      } else if (next < runtime.size()) {
        v[axis] = runtime[next++];
      } else {
        v[axis] = t.shape[axis];
      }
      if (v[axis] < 0 || v[axis] > t.shape[axis])
        return fail(o, "valid extent " + std::to_string(v[axis]) + " outside [0, " + std::to_string(t.shape[axis]) + "]");
    }
    return true;
  }

  //===--- dispatch ---===//
  bool exec_dialect(op_id o, opcode c) {
    current_ = o.index;
    if (const auto ew = ew_op_of(c); ew && is_buffer_op(c)) return elementwise(o, c, *ew);
    switch (c) {
      case opcode::buffer_alloc: return alloc(o);
      case opcode::buffer_set_validshape: return set_validshape(o);
      case opcode::buffer_load: return load(o);
      case opcode::buffer_store: return store(o);
      case opcode::buffer_copy: return copy(o);
      case opcode::buffer_subview: return subview(o);
      case opcode::buffer_reshape: return reshape(o);
      case opcode::buffer_extract: return extract(o);
      case opcode::buffer_matmul: return matmul(o, false);
      case opcode::buffer_matmul_acc: return matmul(o, true);
      default: return fail(o, "not a Buffer-stage op; the Buffer interpreter cannot run it");
    }
  }

  //===--- storage ---===//
  bool alloc(op_id o) {
    const auto args = f_.args(o);
    const type& rt = result_type(o);
    if (!rt.is_buffer()) return fail(o, "result is not a Buffer");
    if (rt.slayout != box_layout::none_box && !whole_boxes(rt)) return fail(o, "boxed descriptor needs whole-box extents");
    std::vector<std::int64_t> runtime;
    if (!args.empty() && args[0].kind == operand_kind::tuple)
      for (const auto& e : f_.elements(args[0])) {
        std::int64_t v = 0;
        if (!integer(o, e, v)) return false;
        runtime.push_back(v);
      }
    const std::size_t dynamic = (rt.valid[0].is_static() ? 0u : 1u) + (rt.valid[1].is_static() ? 0u : 1u);
    if (runtime.size() != dynamic) return fail(o, "the valid tuple needs one extent per runtime (`?`) dim");
    handle h;
    h.desc = rt;
    std::array<std::int64_t, 2> v{};
    if (!descriptor_valid(o, rt, runtime, v)) return false;
    h.valid_rows = v[0];
    h.valid_cols = v[1];
    const std::int64_t es = element_bytes(rt.dt);
    h.pitch = rt.blayout == box_layout::col_major ? rt.shape[0] * es : rt.shape[1] * es;
    if (args.size() > 1) {
      std::int64_t addr = 0;
      if (!integer(o, args[1], addr)) return false;
      if (addr < 0) return fail(o, "negative address " + std::to_string(addr));
      h.base = static_cast<std::uint64_t>(addr);
    } else if (const auto it = placed_.find(o.index); it != placed_.end()) {
      h.base = it->second;  // re-executed (in a loop): the same allocation identity
    } else {
      auto& next = fresh_[static_cast<std::size_t>(rt.space)];
      h.base = next;
      placed_[o.index] = next;
      // Why: a gap after each fresh allocation keeps off-by-one views from silently aliasing.
      next += static_cast<std::uint64_t>((rt.bytes() + 511) / 512 * 512 + 512);
    }
    return define(o, h);
  }

  bool set_validshape(op_id o) {
    const auto args = f_.args(o);
    if (args.empty() || args[0].kind != operand_kind::value || env_[args[0].ref].k != slot::kind::handle)
      return fail(o, "expected a buffer handle operand");
    handle& h = handles_[env_[args[0].ref].ref];
    std::array<std::int64_t, 2> v{};
    if (!pair(o, args[1], v)) return false;
    if (h.view) return fail(o, "cannot mutate static view metadata of `" + name_of(h) + "`");
    for (int axis = 0; axis < 2; ++axis) {
      if (h.desc.valid[axis].is_static() && h.desc.valid[axis].number != v[axis])
        return fail(o, "static valid dim " + std::to_string(axis) + " of `" + name_of(h) + "` cannot change");
      if (v[axis] < 0 || v[axis] > h.desc.shape[axis])
        return fail(o, "valid " + rect(v[0], v[1]) + " outside the shape of `" + name_of(h) + "`");
    }
    h.valid_rows = v[0];
    h.valid_cols = v[1];
    return true;
  }

  bool subview(op_id o) {
    const auto args = f_.args(o);
    const handle* src = handle_arg(o, args[0]);
    std::array<std::int64_t, 2> off{};
    if (!src || !pair(o, args[1], off)) return false;
    const type& rt = result_type(o);
    if (!src->dense() || src->desc.blayout != box_layout::row_major || src->desc.space != memory_space::vec ||
        rt.slayout != box_layout::none_box || rt.blayout != box_layout::row_major || rt.dt != src->desc.dt)
      return fail(o, "subview needs dense row-major Vec source and result of one element type");
    if (off[0] < 0 || off[1] < 0 || off[0] + rt.shape[0] > src->desc.shape[0] || off[1] + rt.shape[1] > src->desc.shape[1])
      return fail(o, "window " + rect(rt.shape[0], rt.shape[1]) + " at " + rect(off[0], off[1]) + " exceeds `" +
                         name_of(*src) + "` " + rect(src->desc.shape[0], src->desc.shape[1]));
    std::vector<std::int64_t> runtime;
    std::array<std::int64_t, 2> given{rt.shape[0], rt.shape[1]};
    if (args.size() > 2) {
      if (!pair(o, args[2], given)) return false;
      for (int axis = 0; axis < 2; ++axis) {
        if (rt.valid[axis].is_static() && rt.valid[axis].number != given[axis])
          return fail(o, "valid operand differs from the static descriptor");
        if (!rt.valid[axis].is_static()) runtime.push_back(given[axis]);
      }
    } else if (!rt.static_valid()) {
      return fail(o, "a runtime valid descriptor needs the valid operand");
    }
    handle h;
    h.desc = rt;
    h.view = true;
    h.root = src->root;
    h.pitch = src->pitch;
    h.base = src->address(off[0], off[1]);
    if (!aligned_window(o, h, "at " + rect(off[0], off[1]) + " of `" + name_of(*src) + "`")) return false;
    std::array<std::int64_t, 2> v{};
    if (!descriptor_valid(o, rt, runtime, v)) return false;
    if (v[0] == 0 || v[1] == 0) return fail(o, "builds an empty native subview: dynamic-valid views belong inside their consumers' guards");
    h.valid_rows = v[0];
    h.valid_cols = v[1];
    return define(o, h);
  }

  /// Why at run time: selection keeps a window Buffer only when scalar arithmetic proves its base
  /// 32-byte aligned, and nothing else checks that proof; runtime offsets are known only here, so
  /// a wrong proof shows up as this error for the bindings that break it.
  bool aligned_window(op_id o, const handle& h, const std::string& where) {
    if (h.base % vec_window_alignment == 0) return true;
    std::string into;
    if (const slot& r = env_[h.root.index]; r.k == slot::kind::handle && handles_[r.ref].base <= h.base)
      into = " (byte " + std::to_string(h.base - handles_[r.ref].base) + " of `" + name_of(handles_[r.ref]) + "`)";
    handle named = h;
    named.value = f_.result(o);  // not yet defined
    return fail(o, "Vec window `" + name_of(named) + "` " + where + " starts at address " + std::to_string(h.base) + into +
                       ", which is not 32-byte aligned; a vector base address must be a multiple of 32 bytes");
  }

  bool reshape(op_id o) {
    const handle* src = handle_arg(o, f_.args(o)[0]);
    if (!src) return false;
    const type& rt = result_type(o);
    if (!rt.static_valid()) return fail(o, "a reshape needs static valid extents");
    if (rt.space != src->desc.space) return fail(o, "a reshape cannot change the memory space");
    if (rt.bytes() != src->desc.bytes())
      return fail(o, "result has " + std::to_string(rt.bytes()) + " bytes, source `" + name_of(*src) + "` " +
                         std::to_string(src->desc.bytes()));
    handle h;
    h.desc = rt;
    h.view = true;
    h.root = src->root;
    h.base = src->base;
    h.valid_rows = rt.valid[0].number;
    h.valid_cols = rt.valid[1].number;
    if (rt.space == memory_space::vec) {
      if (!src->dense() || src->desc.blayout != box_layout::row_major || src->pitch != src->desc.row_bytes() ||
          rt.slayout != box_layout::none_box || rt.blayout != box_layout::row_major)
        return fail(o, "a Vec reshape needs a dense row-major source with dense row pitch");
      h.pitch = rt.row_bytes();
      if (!aligned_window(o, h, "of `" + name_of(*src) + "`")) return false;
    } else {
      if (rt.slayout != box_layout::none_box && !whole_boxes(rt)) return fail(o, "boxed descriptor needs whole-box extents");
      h.pitch = src->pitch;
    }
    return define(o, h);
  }

  //===--- transfers ---===//
  bool load(op_id o) {
    const auto args = f_.args(o);
    gm_tensor* g = tensor_arg(o, args[0]);
    const handle* dst = handle_arg(o, args[3]);
    std::array<std::int64_t, 2> off{}, ext{};
    if (!g || !dst || !pair(o, args[1], off) || !pair(o, args[2], ext)) return false;
    if (ext[0] != dst->valid_rows || ext[1] != dst->valid_cols)
      return fail(o, "extents " + rect(ext[0], ext[1]) + " differ from the valid " +
                         rect(dst->valid_rows, dst->valid_cols) + " of `" + name_of(*dst) + "`");
    if (ext[0] == 0 || ext[1] == 0) return empty_rectangle(o);
    if (g->dt != dst->desc.dt) return fail(o, "tensor and buffer element types differ");
    if (dst->desc.space != memory_space::vec && dst->desc.space != memory_space::mat)
      return fail(o, "loads target Vec or Mat");
    cells v;
    for (std::int64_t i = 0; i < ext[0]; ++i)
      for (std::int64_t j = 0; j < ext[1]; ++j) {
        const std::int64_t fl = g->flat(off[0] + i, off[1] + j);
        if (!g->in_allocation(fl))
          return fail(o, "reads element " + rect(off[0] + i, off[1] + j) + " outside the allocation of `" + g->name + "`");
        cell_meta m = g->meta_at(fl);
        if (m.state == cell_state::unset) m.origin = f_.params[env_[args[0].ref].ref].value.index;
        v.emplace_back(g->get_bits(fl), moved(m, o.index));
      }
    scatter(*dst, ext[0], ext[1], v);
    return true;
  }

  bool store(op_id o) {
    const auto args = f_.args(o);
    const handle* src = handle_arg(o, args[0]);
    gm_tensor* g = tensor_arg(o, args[3]);
    std::array<std::int64_t, 2> off{}, ext{};
    if (!g || !src || !pair(o, args[1], off) || !pair(o, args[2], ext)) return false;
    if (ext[0] != src->valid_rows || ext[1] != src->valid_cols)
      return fail(o, "extents " + rect(ext[0], ext[1]) + " differ from the valid " +
                         rect(src->valid_rows, src->valid_cols) + " of `" + name_of(*src) + "`");
    if (ext[0] == 0 || ext[1] == 0) return empty_rectangle(o);
    const dtype from = src->desc.dt;
    const bool narrowing = src->desc.space == memory_space::acc && from == dtype::fp32 &&
                           (g->dt == dtype::fp16 || g->dt == dtype::bf16);
    if (from != g->dt && !narrowing) return fail(o, "buffer and tensor element types differ");
    cells v;
    for (std::int64_t i = 0; i < ext[0]; ++i)
      for (std::int64_t j = 0; j < ext[1]; ++j) {
        cell_meta m;
        const element_bits e = rd_bits(*src, i, j, m);
        cell_meta gm = moved(m, o.index);
        gm.via = m.writer;
        v.emplace_back(narrowing ? encode(g->dt, convert(from, g->dt, decode(from, e))) : e, gm);
      }
    std::size_t k = 0;
    for (std::int64_t i = 0; i < ext[0]; ++i)
      for (std::int64_t j = 0; j < ext[1]; ++j, ++k) {
        const std::int64_t fl = g->flat(off[0] + i, off[1] + j);
        if (!g->in_allocation(fl))
          return fail(o, "writes element " + rect(off[0] + i, off[1] + j) + " outside the allocation of `" + g->name + "`");
        g->put_bits(fl, v[k].first, v[k].second);
      }
    return true;
  }

  /// The native load/store/arithmetic/copy cannot execute on an empty rectangle (spec: they run
  /// only when both valid extents are positive), so reaching one means a missing guard.
  bool empty_rectangle(op_id o) {
    return fail(o, "executes on an empty valid rectangle; Buffer IR must guard it to run only when both extents are positive");
  }

  bool copy(op_id o) {
    const auto args = f_.args(o);
    const handle* src = handle_arg(o, args[0]);
    const handle* dst = handle_arg(o, args[1]);
    if (!src || !dst) return false;
    const type& s = src->desc;
    const type& d = dst->desc;
    const bool vec = s.space == memory_space::vec && d.space == memory_space::vec && s.shape == d.shape && s.dt == d.dt &&
                     s.blayout == d.blayout && s.slayout == d.slayout && s.fractal == d.fractal;
    const bool mte1 = s.space == memory_space::mat && (d.space == memory_space::left || d.space == memory_space::right) &&
                      s.shape == d.shape && s.dt == d.dt;
    if (!vec && !mte1) return fail(o, "copies Vec to Vec with equal descriptors or Mat to Left/Right");
    if (!same_valid(o, *src, *dst)) return false;
    if (dst->valid_rows == 0 || dst->valid_cols == 0) return empty_rectangle(o);
    cells v;
    for (std::int64_t i = 0; i < dst->valid_rows; ++i)
      for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
        cell_meta m;
        const element_bits e = rd_bits(*src, i, j, m);
        v.emplace_back(e, moved(m, o.index));
      }
    scatter(*dst, dst->valid_rows, dst->valid_cols, v);
    return true;
  }

  bool extract(op_id o) {
    const auto args = f_.args(o);
    const handle* src = handle_arg(o, args[0]);
    const handle* dst = handle_arg(o, args[3]);
    std::int64_t row = 0, col = 0;
    if (!src || !dst || !integer(o, args[1], row) || !integer(o, args[2], col)) return false;
    if (src->desc.dt != dst->desc.dt) return fail(o, "element types differ");
    if (row < 0 || col < 0 || row + dst->desc.shape[0] > src->desc.shape[0] || col + dst->desc.shape[1] > src->desc.shape[1])
      return fail(o, "window at " + rect(row, col) + " exceeds `" + name_of(*src) + "`");
    cells v;
    for (std::int64_t i = 0; i < dst->valid_rows; ++i)
      for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
        cell_meta m;
        const element_bits e = rd_bits(*src, row + i, col + j, m);
        v.emplace_back(e, moved(m, o.index));
      }
    scatter(*dst, dst->valid_rows, dst->valid_cols, v);
    return true;
  }

  //===--- cube ---===//
  bool matmul(op_id o, bool accumulate) {
    const auto args = f_.args(o);
    const handle* lhs = handle_arg(o, args[0]);
    const handle* rhs = handle_arg(o, args[1]);
    const handle* dst = handle_arg(o, args[2]);
    if (!lhs || !rhs || !dst) return false;
    if (lhs->desc.space != memory_space::left || rhs->desc.space != memory_space::right || dst->desc.space != memory_space::acc)
      return fail(o, "operands must be Left x Right -> Acc");
    const auto acc_type = accumulator_of(lhs->desc.dt);
    if (lhs->desc.dt != rhs->desc.dt || !acc_type || dst->desc.dt != *acc_type)
      return fail(o, "operand/accumulator element types are not a supported cube pair");
    const std::int64_t m = lhs->valid_rows, k = lhs->valid_cols, n = rhs->valid_cols;
    if (rhs->valid_rows < k) return fail(o, "rhs valid rows are fewer than lhs valid columns");
    if (dst->valid_rows != m || dst->valid_cols != n)
      return fail(o, "destination valid " + rect(dst->valid_rows, dst->valid_cols) + " differs from the product " + rect(m, n));
    cells v;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        cell_meta in;
        in.state = cell_state::value;
        const auto a = [&](std::int64_t kk) {
          cell_meta x;
          const element e = rd(*lhs, i, kk, x);
          in = merge(in, x);
          return e;
        };
        const auto b = [&](std::int64_t kk) {
          cell_meta x;
          const element e = rd(*rhs, kk, j, x);
          in = merge(in, x);
          return e;
        };
        element prior;
        if (accumulate) {
          cell_meta x;
          prior = rd(*dst, i, j, x);
          in = merge(in, x);
        }
        const element r = dot(*acc_type, k, a, b, accumulate ? &prior : nullptr);
        v.emplace_back(encode(dst->desc.dt, r), computed(in, o.index, false));
      }
    clobber_partial_boxes(dst->desc, m, n, [&](std::int64_t r, std::int64_t c) {
      cell_meta p;
      p.state = cell_state::poison;
      p.producer = p.writer = o.index;
      wr(*dst, r, c, element_bits{}, p);
    });
    scatter(*dst, m, n, v);
    return true;
  }

  //===--- vector math ---===//
  bool elementwise(op_id o, opcode c, const ew_semantics& op) {
    const auto args = f_.args(o);
    if (args.empty()) return fail(o, "needs a destination");
    const handle* dst = handle_arg(o, args.back());
    if (!dst) return false;
    if (dst->valid_rows == 0 || dst->valid_cols == 0) return empty_rectangle(o);
    const dtype d = dst->desc.dt;
    if (!ew_defined(op, d)) return fail(o, std::string("not defined on ") + std::string(name(d)));
    const ew_kind kind = info(c).ew;
    const handle* a = nullptr;
    const handle* b = nullptr;
    element s{};
    if (kind == ew_kind::fill || kind == ew_kind::scalar_form) {
      scalar_value sv;
      if (!scalar(o, args[kind == ew_kind::fill ? 0 : 1], sv)) return false;
      s = scalar_element(sv, d);
    }
    if (kind != ew_kind::fill && !(a = handle_arg(o, args[0]))) return false;
    if (kind == ew_kind::binary && !(b = handle_arg(o, args[1]))) return false;
    for (const handle* in : {a, b}) {
      if (!in) continue;
      if (in->desc.shape != dst->desc.shape || in->desc.dt != d || in->desc.space != dst->desc.space)
        return fail(o, "operand `" + name_of(*in) + "` and destination `" + name_of(*dst) + "` differ in shape, type or space");
      if (!same_valid(o, *in, *dst)) return false;
    }
    const bool inexact = ew_inexact(op) && is_float(d);
    cells v;
    for (std::int64_t i = 0; i < dst->valid_rows; ++i)
      for (std::int64_t j = 0; j < dst->valid_cols; ++j) {
        cell_meta m;
        m.state = cell_state::value;
        element x{}, y = s;
        if (a) x = rd(*a, i, j, m);
        if (b) {
          cell_meta mb;
          y = rd(*b, i, j, mb);
          m = merge(m, mb);
        }
        v.emplace_back(encode(d, ew_apply(op, d, x, y)), computed(m, o.index, inexact));
      }
    scatter(*dst, dst->valid_rows, dst->valid_cols, v);
    return true;
  }

  std::vector<std::optional<gm_tensor>> gm_;
  std::vector<handle> handles_;
  arenas mem_;
  std::array<std::uint64_t, 5> fresh_{};
  std::map<std::uint32_t, std::uint64_t> placed_;  ///< addressless alloc op -> its storage
  std::uint32_t current_ = no_id;
  std::vector<alias_read> alias_reads_;
};

}  // namespace detail

/// Runs Buffer-stage function `f` of `p` on `inputs` (from `make_inputs` of the matching Tile
/// function). The result holds the final GM state of every tensor parameter and the diagnostic
/// that stopped the run, if any.
inline run_result run_buffer(const program& p, const function& f, const sim_inputs& inputs, const sim_options& opt = {}) {
  static_cast<void>(p);  // reserved for calls between functions
  detail::buffer_interpreter it(f, inputs, opt);
  it.run_body();
  return it.finish();
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
