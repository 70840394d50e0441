// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/type_rules.hpp
/// Rules on a value's own type, checked where the value is defined: well-formed enums and shapes,
/// valid extents (static, `?` for Buffers, visible integer scalars for Tiles), Tile storage
/// inside a `tile.alloc` of the same space, and the stage that may hold it.
#pragma once

#include <cstdint>

#include "tile2buffer/detail/checked.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/verify/state.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

template <class = void>
constexpr void check_valid(verify_state& s, const type& t, value_id v, location loc) {
  for (std::size_t i = 0; i < 2; ++i) {
    const extent e = t.valid[i];
    if (e.is_static()) {
      if (e.number < 0 || e.number > t.shape[i]) {
        s.fail(loc, "valid extents of '", s.label(v), "' must lie within its shape");
        return;
      }
    } else if (e.is_runtime()) {
      if (t.is_tile()) {
        s.fail(loc, "Tile '", s.label(v), "' valid extents must be static or scalar values ('?' is Buffer-only)");
        return;
      }
    } else if (t.is_buffer()) {
      s.fail(loc, "Buffer '", s.label(v), "' valid extents must be static or '?'");
      return;
    } else if (s.use(e.value(), loc)) {
      const type& et = s.f.type_of(value_id{e.ref});
      if (!et.is_scalar() || !is_integer(et.dt)) s.fail(loc, "valid extent of '", s.label(v), "' must be an integer scalar");
    }
  }
}

/// Tile storage: a tile.alloc result of the same space, with the window inside its capacity.
template <class = void>
constexpr void check_storage(verify_state& s, const type& t, value_id v, location loc) {
  const value_storage st = s.f.storage_of(v);
  if (!s.use(st.mem, loc)) return;
  const value_info& m = s.f.values[st.mem.index];
  const bool from_alloc = m.origin() == value_origin::result && m.def.index < s.f.ops.size() &&
                          s.f.ops[m.def.index].code() == opcode::tile_alloc;
  if (!from_alloc) {
    s.fail(loc, "storage of '", s.label(v), "' must name a tile.alloc result");
    return;
  }
  if (st.offset < 0)
    s.fail(loc, t.space == memory_space::vec ? "dense " : "", "storage window must begin within its allocation: the offset of '",
           s.label(v), "' is ", st.offset);
  const span32 a = s.f.ops[m.def.index].args;
  if (!in_bounds(a, s.f.operands.size()) || a.count < signature_of(opcode::tile_alloc).min)
    return;  // the alloc itself is reported
  const view<opcode::tile_alloc> alloc(s.f, m.def);
  const operand space = alloc.space();
  const operand capacity = alloc.capacity();
  if (space.kind == operand_kind::space && space.num != static_cast<std::int64_t>(t.space))
    s.fail(loc, "storage of '", s.label(v), "' must be in its memory space ", space_text(t.space), ", but '", s.label(st.mem),
           "' is a ", space_text(static_cast<memory_space>(space.num)), " allocation");
  if (capacity.kind == operand_kind::int_lit && st.offset >= 0 && sum_exceeds(st.offset, t.bytes(), capacity.num))
    s.fail(loc, "descriptor window exceeds the planned allocation capacity: storage of '", s.label(v), "' (", t.bytes(),
           " bytes at offset ", st.offset, ") exceeds the capacity ", capacity.num, " of '", s.label(st.mem), "'");
}

/// A value with storage: only a Tile has it, in a tile.alloc of its space.
template <class = void>
constexpr void check_value_storage(verify_state& s, const type& t, value_id v, location loc) {
  if (!t.is_tile()) s.fail(loc, "only Tile values carry storage ('", s.label(v), "')");
  else check_storage(s, t, v, loc);
}

template <class = void>
constexpr void check_value_stage(verify_state& s, const type& t, value_id v, location loc) {
  const bool tile_like = t.is_tile() || t.kind == type_kind::mem;
  if (s.is_orchestration() && (tile_like || t.is_buffer()))
    s.fail(loc, t.is_buffer() ? "Buffer" : "Tile", " value '", s.label(v), "' is not allowed in an orchestration function");
  else if (s.buffer_stage() && tile_like) s.fail(loc, "Tile value '", s.label(v), "' is not allowed in a Buffer-stage function");
  else if (s.tile_stage() && t.is_buffer())
    s.fail(loc, "Buffer value '", s.label(v), "' is not allowed in a Tile-stage function");
}

/// What the checks of a value's own type found: an invalid type (nothing more is checked), or
/// checked, or proven: passed without reading a value (static or `?` extents), so the verdict
/// holds for every value of that type.
enum class own_type : std::uint8_t { invalid, checked, proven };

/// A type with an enum out of range ("has an invalid type"; nothing else is checked of it).
constexpr bool malformed_type(const type& t) {
  if (!enum_ok(t.kind, type_kind::task) || t.kind == type_kind::none || !enum_ok(t.dt, dtype::index)) return true;
  return t.is_shaped() && (!enum_ok(t.space, memory_space::acc) || !enum_ok(t.tlayout, tensor_layout::nz) ||
                           !enum_ok(t.blayout, box_layout::col_major) || !enum_ok(t.slayout, box_layout::col_major) ||
                           !enum_ok(t.pad, pad_value::min) || !enum_ok(t.compact, compact_mode::normal));
}

template <class = void>
constexpr own_type check_own_type(verify_state& s, const type& t, value_id v, location loc) {
  if (malformed_type(t)) {
    s.fail(loc, "value '", s.label(v), "' has an invalid type");
    return own_type::invalid;
  }
  const std::size_t errors = s.out.size();
  if (t.is_shaped() && (t.shape[0] <= 0 || t.shape[1] <= 0)) s.fail(loc, "value '", s.label(v), "' must have a positive shape");
  if (t.is_tile() || t.is_buffer()) check_valid(s, t, v, loc);
  return s.out.size() == errors && !t.valid[0].is_value() && !t.valid[1].is_value() ? own_type::proven : own_type::checked;
}

template <class = void>
constexpr void check_value_type(verify_state& s, value_id v, location loc, bool check_stage) {
  const type_id id = s.f.values[v.index].ty;
  const type& t = s.f.types[id.index];
  // Why a memo: a planned kernel's values share a handful of interned types, and every value's
  // type was checked anew (about a tenth of verifying it).
  if (s.type_proven[id.index] == 0) {
    const own_type own = check_own_type(s, t, v, loc);
    if (own == own_type::invalid) return;
    if (own == own_type::proven) s.type_proven[id.index] = 1;
  }
  if (s.f.storage_of(v).valid()) check_value_storage(s, t, v, loc);
  if (check_stage) check_value_stage(s, t, v, loc);
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
