// SPDX-License-Identifier: Apache-2.0
/// @file checks/tile_storage.hpp
/// The storage closure of one Tile-stage function (TileStorageLegalized/Allocated): the facts
/// lowering relies on. A check, not a pass, because two passes ask it: verify_tile_storage on the
/// selected kernels, and lower on every kernel it converts (explicit pipelines may skip the
/// first; verification may be off).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/analysis/storage_overlap.hpp"
#include "tile2buffer/detail/checked.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// The region rules (reference §4.2): branch result windows pairwise disjoint (identical
/// allowed), each arm's trailing yield naming exactly its result's window; each loop carry's
/// initializer, iteration values, yield and result one window, different carries disjoint.
template <class Fail>
constexpr void check_region_storage(const function& f, op_id o, const storage_view& storage, Fail&& fail) {
  const op_node& n = f.op(o);
  const auto tile = [&](const operand& x) { return x.is_value() && f.type_of(x.value()).is_tile() && f.has_storage(x.value()); };
  const bool loop = is_loop_op(n.code());
  for (std::uint32_t i = 0; i < n.results.count; ++i) {
    const value_id a = f.result(o, i);
    if (!tile(operand::of(a))) continue;
    for (std::uint32_t j = i + 1; j < n.results.count; ++j) {
      const value_id b = f.result(o, j);
      const stored_tile ta = f.stored(a);
      const stored_tile tb = f.stored(b);
      if (tile(operand::of(b)) && storage.overlaps(ta, tb) && (loop || !storage.same(ta, tb)))
        fail(f.loc_of(o), text(loop ? "loop carries '" : "branch results '")
                              << f.name_of(a) << "' and '" << f.name_of(b) << "': windows overlap" << storage.where(ta, tb));
    }
  }
  if (is_branch_op(n.code())) {
    for (std::uint32_t r = 0; r < n.region_count; ++r) {
      const op_id y = trailing_yield(f, f.region_of(o, r));
      for (std::uint32_t i = 0; y.valid() && i < n.results.count && i < f.args(y).size(); ++i) {
        const value_id res = f.result(o, i);
        const operand x = f.args(y)[i];
        if (tile(operand::of(res)) && tile(x) && !same_window(f.stored(x.value()), f.stored(res)))
          fail(f.loc_of(y), text("Every tile branch arm must yield exactly its result's window: the ")
                                << (r == 0 ? "then" : "else") << " arm yields '" << f.name_of(x.value()) << "' for '"
                                << f.name_of(res) << "'");
      }
    }
    return;
  }
  if (!loop) return;
  const auto inits = loop_inits(f, o);
  const op_id y = trailing_yield(f, loop_body(f, o));
  for (std::uint32_t i = 0; i < n.results.count && i < inits.size(); ++i) {
    const value_id res = f.result(o, i);
    if (!tile(operand::of(res))) continue;
    bool same = tile(inits[i]) && same_window(f.stored(inits[i].value()), f.stored(res));
    for (std::uint32_t r = 0; r < n.region_count; ++r) {
      const value_id it = iteration_value(f, o, f.region_of(o, r), i);
      same = same && same_window(f.stored(it), f.stored(res));
    }
    if (y.valid() && i < f.args(y).size())
      same = same && tile(f.args(y)[i]) && same_window(f.stored(f.args(y)[i].value()), f.stored(res));
    if (!same)
      fail(f.loc_of(o), text("loop carry '") << f.name_of(res)
                                             << "': initializer, iteration value, yield and result must share canonical storage");
  }
}

}  // namespace detail

/// Storage diagnostics of one Tile-stage function (empty when its storage is closed and legal).
/// `placed`: an addressed planner's storage, where windows in different allocations conflict by
/// placed address (the reference's allocated mode).
template <class = void>
constexpr std::vector<diagnostic> check_tile_storage(const function& f, const kernel_analyses& analyses, bool placed) {
  const storage_facts& facts = analyses.storage;
  const detail::storage_view storage{facts, placed};
  std::vector<diagnostic> out;
  const auto fail = [&](location loc, text msg) {
    out.push_back(diagnostic{loc, text("verify-tile-storage"), static_cast<text&&>(msg), {}});
  };
  for (const allocation& a : facts.allocations()) {
    if (a.capacity <= 0) fail(f.loc_of(a.def), text("planned tile.alloc capacity must be a static positive literal"));
    if (a.address && *a.address < 0) fail(f.loc_of(a.def), text("storage address must be non-negative"));
    if (a.address && *a.address % 32 != 0) fail(f.loc_of(a.def), text("storage address must be 32-byte aligned"));
  }
  const auto where = [&](value_id v) {
    const value_info& i = f.value(v);
    return i.def.valid() ? f.loc_of(i.def) : f.loc;
  };
  // Windows live in their storage tile's bytes; everything else needs its own storage clause.
  for (std::uint32_t i = 0; i < f.values.size(); ++i) {
    const type& t = f.type_of(value_id{i});
    const value_id v{i};
    if (!t.is_tile() || analyses.windows.is_window(v) || f.values[i].origin() == value_origin::param) continue;
    const value_storage& st = f.storage_of(v);
    if (!st.valid()) {
      fail(where(v),
           text("tile value '") << f.name_of(v) << "' must have a MemRef and memory space (planned storage; run init_storage)");
      continue;
    }
    const allocation* a = facts.find(st.mem);
    if (a == nullptr) {
      fail(where(v), text("storage of '") << f.name_of(v) << "' does not name a tile.alloc");
      continue;
    }
    if (a->space != t.space)
      fail(where(v), text("'") << f.name_of(v) << "' is in " << name(t.space) << " but its allocation is in " << name(a->space));
    if (st.offset < 0 || (a->capacity > 0 && detail::sum_exceeds(st.offset, t.bytes(), a->capacity)))
      fail(where(v), text("descriptor window exceeds the planned allocation capacity: '")
                         << f.name_of(v) << "' needs " << t.bytes() << " bytes at offset " << st.offset << " of " << a->capacity);
    if (st.offset % 32 != 0)
      fail(where(v), text("static byte views require offsets and windows aligned to 32 bytes: '")
                         << f.name_of(v) << "' is at offset " << st.offset);
  }
  // Ops whose native form needs a distinct (recip) or an identical-or-disjoint (move) destination.
  const auto source_and_result = [&](const operand& source, op_id o) -> std::pair<value_id, value_id> {
    const value_id src = source.is_value() ? source.value() : value_id{};
    const value_id dst = f.op(o).results.count == 1 ? f.result(o) : value_id{};
    if (!src.valid() || !dst.valid() || !f.has_storage(src) || !f.has_storage(dst)) return {value_id{}, value_id{}};
    return {src, dst};
  };
  walk(f, [&](op_id o) {
    const op_node& n = f.op(o);
    if (is_region_op(n.code())) detail::check_region_storage(f, o, storage, fail);
    if (!is_tile_op(n.code()) || !has_disjoint_operands(n.code())) return;
    const std::string_view m = mnemonic(n.code());
    for (const operand& source : disjoint_operands(f, o)) {  // a Tile op's result is what it writes
      if (source.kind == operand_kind::none) continue;
      const auto [sv, dv] = source_and_result(source, o);
      if (!sv.valid()) continue;
      const stored_tile src = f.stored(sv), dst = f.stored(dv);
      if (!storage.overlaps(src, dst)) continue;
      if (has_trait(n.code(), trait::may_alias_exactly)) {
        if (!storage.same(src, dst))
          fail(f.loc_of(o),
               text(m) << " source and destination windows overlap without being identical" << storage.where(src, dst));
      } else {
        fail(f.loc_of(o),
             (storage.same(src, dst) ? text(m) << " " << detail::disjoint_phrase << ": its result is its source's window"
                                     : text(m) << " " << detail::partial_phrase << ": it " << detail::disjoint_phrase)
                 << storage.where(src, dst));
      }
    }
    // A scratch (clobbered, or holding a broadcast block) must not overlap any other tile the op
    // reads or its result.
    const operand tmp = scratch_operand(f, o);
    if (!tmp.is_value() || !f.has_storage(tmp.value())) return;
    const stored_tile b = f.stored(tmp.value());
    const std::string_view what = info(n.code()).scratch;
    for (const operand& x : f.args(o)) {
      if (!x.is_value() || x.value() == tmp.value()) continue;
      const stored_tile a = f.stored(x.value());
      if (a.ty.is_tile() && a.at.valid() && storage.overlaps(a, b))
        fail(f.loc_of(o),
             text(m) << " scratch " << what << " must not overlap '" << f.name_of(x.value()) << "'" << storage.where(a, b));
    }
    if (n.results.count == 1 && f.has_storage(f.result(o)) && storage.overlaps(f.stored(f.result(o)), b))
      fail(f.loc_of(o),
           text(m) << " scratch " << what << " must not overlap the result" << storage.where(f.stored(f.result(o)), b));
  });
  return out;
}
template <class = void>
constexpr std::vector<diagnostic> check_tile_storage(const function& f, bool placed) {
  return check_tile_storage(f, kernel_analyses(f), placed);
}

}  // namespace v0
}  // namespace tile2buffer
