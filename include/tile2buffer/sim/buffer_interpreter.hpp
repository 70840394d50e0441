// SPDX-License-Identifier: Apache-2.0
/// @file sim/buffer_interpreter.hpp
/// The state of a Buffer run: handles onto byte arenas, one per memory space (see run_buffer.hpp
/// for the storage model), GM tensors, and the helpers the Buffer models (models_buffer.hpp)
/// read handles and write bytes with.
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
#include "tile2buffer/sim/memory.hpp"
#include "tile2buffer/sim/model_table.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// A Buffer handle during a run.
struct handle {
  type desc;               ///< the Buffer descriptor (static or `?` valid dims)
  std::uint64_t base = 0;  ///< byte address in the arena of desc.space
  std::int64_t pitch = 0;  ///< bytes between rows (dense row-major) or columns (dense column-major)
  std::int64_t valid_rows = 0;
  std::int64_t valid_cols = 0;
  bool view = false;  ///< defined by subview/reshape: metadata cannot change
  value_id value;     ///< the SSA value of this handle
  value_id root;      ///< the allocation whose storage it names (itself for alloc)

  [[nodiscard]] bool dense() const noexcept { return desc.slayout == box_layout::none_box; }
  [[nodiscard]] std::uint64_t address(std::int64_t r, std::int64_t c) const {
    const std::int64_t es = element_bytes(desc.dt);
    std::int64_t off;
    if (!dense()) off = layout_index(desc, r, c) * es;
    else off = desc.blayout == box_layout::col_major ? c * pitch + r * es : r * pitch + c * es;
    return base + static_cast<std::uint64_t>(off);
  }
};

/// First byte of addressless storage; planners' addresses stay far below it.
inline constexpr std::uint64_t fresh_storage_base = std::uint64_t{1} << 40;
/// Vector base addresses must be multiples of this (lower-tile-to-buffer: windows).
inline constexpr std::uint64_t vec_window_alignment = 32;

namespace detail {

/// A Buffer run in progress: the shared interpreter state, handles, arenas, GM, and the helpers
/// of the Buffer models.
class buffer_interpreter : public interpreter<buffer_interpreter> {
 public:
  buffer_interpreter(const function& f, const sim_inputs& in, const sim_options& opt, const model<buffer_interpreter>* models)
      : interpreter(f, opt, "sim.buffer", models), gm_(bind_params(in)) {
    fresh_.fill(fresh_storage_base);
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

  /// A gathered rectangle, as stored bytes: copies keep them, computed values are encoded once.
  using cells = std::vector<std::pair<element_bits, cell_meta>>;

  //===--- helpers of the models ---===//
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

  /// The native load/store/arithmetic/copy cannot execute on an empty rectangle (spec: they run
  /// only when both valid extents are positive), so reaching one means a missing guard.
  bool empty_rectangle(op_id o) {
    return fail(o, "executes on an empty valid rectangle; Buffer IR must guard it to run only when both extents are positive");
  }

  std::vector<std::optional<gm_tensor>> gm_;
  std::vector<handle> handles_;
  arenas mem_;
  std::array<std::uint64_t, 5> fresh_{};
  std::map<std::uint32_t, std::uint64_t> placed_;  ///< addressless alloc op -> its storage
  std::vector<alias_read> alias_reads_;
};

}  // namespace detail
}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
