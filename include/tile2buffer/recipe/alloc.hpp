// SPDX-License-Identifier: Apache-2.0
/// @file recipe/alloc.hpp
/// tile.alloc (reference §5.3 root finalization): the allocation's Buffer definitions replace
/// it — one typed root when a single window covers it, else a 32-byte-aligned UINT8 byte root
/// with a shared `buffer.subview` per byte window and a typed `buffer.reshape` per descriptor.
/// Window parents (tiles that are sliced or assembled into) are never byte-root relabels, since
/// PTOAS cannot subview one: a full-capacity parent is the typed root itself (the byte root is
/// then a relabel of it), a smaller one gets an alias allocation at its placed address
/// (addressed planners only). A static partial valid rectangle of a fully valid member is a
/// zero-offset subview of it (so addressless storage can hold a partially valid assemble target).
///
/// Matrix allocations (Mat/Left/Right/Acc, reference §5.4) have no byte view: a fractal window
/// has no row-major bytes. Addressed planners get one typed `buffer.alloc` per distinct window at
/// its placed address (two descriptors at one address alias exactly as placed); a PTOAS
/// allocation is addressless, so it holds one window, and a same-size relabel of it (a transposed
/// view, a product view) is a `buffer.reshape` of it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/recipe/common.hpp"

namespace tile2buffer {
inline namespace v0 {

struct lower_alloc {
  using source = tile::alloc;
  static constexpr std::string_view name = "lower-alloc";
  static constexpr int benefit = 1;
  static constexpr bool default_rollout = true;
  static constexpr match_result match(typed<tile::alloc>, const match_context&) { return match_result::yes(); }
  static constexpr void rewrite(typed<tile::alloc> op, lowering& l);

 private:
  using window = lowering::window;
  /// Byte windows and typed views of a shared root, in canonical key order; `typed_root` is the
  /// key the root itself stands for (no_id when the root is the UINT8 byte root).
  static constexpr void emit_views(typed<tile::alloc> op, lowering& l, std::uint32_t a, value_id root, std::uint32_t typed_root);
  static constexpr void emit_matrix_root(typed<tile::alloc> op, lowering& l, std::uint32_t a);
};

namespace detail {
/// Where Tile value `v` comes from in the source: its defining op's location (a region
/// argument's: its region op's), else the function's.
constexpr location source_location(const function& f, value_id v) {
  if (v.index < f.values.size())
    if (const op_id d = f.value(v).def; d.valid() && d.index < f.ops.size() && f.loc_of(d).known()) return f.loc_of(d);
  return f.loc;
}
/// The location of the Buffer definitions of an allocation's window `member`: the tile.alloc's,
/// or, when it has none, its Tile handle's. Why (spec, conversion contract): "Synthetic
/// allocations inherit the source location of their indexed Tile handle when the original
/// allocation has no location", so native allocation diagnostics point at the user's source.
constexpr location definition_location(const function& f, location alloc, value_id member) {
  return alloc.known() ? alloc : source_location(f, member);
}
/// The first op referencing a Tile value in allocation `mem` when every such reference sits
/// directly in one region other than the one holding `alloc` (its tile.alloc); invalid otherwise.
constexpr op_id sole_nested_first_reference(const function& f, value_id mem, op_id alloc) {
  const std::vector<region_id> region_of = enclosing_regions(f);
  const auto member = [&](const operand& x) {
    return x.is_value() && f.type_of(x.value()).is_tile() && f.storage_of(x.value()).mem == mem;
  };
  op_id first;
  region_id where;
  bool shared = false;
  walk(f, [&](op_id o) {
    const op_node& n = f.op(o);
    bool refers = false;
    for (const operand& x : f.args(o)) refers = refers || member(x);
    for (std::uint32_t i = 0; i < n.results.count; ++i) refers = refers || member(operand::of(f.result(o, i)));
    for (std::uint32_t r = 0; r < n.region_count; ++r) {
      const region_info& reg = f.region(f.region_of(o, r));
      for (std::uint32_t i = 0; i < reg.args.count; ++i) refers = refers || member(operand::of(value_id{reg.args.begin + i}));
    }
    if (!refers) return;
    if (!first.valid()) {
      first = o;
      where = region_of[o.index];
    } else if (region_of[o.index] != where) {
      shared = true;
    }
  });
  return shared || !first.valid() || where == region_of[alloc.index] ? op_id{} : first;
}
}  // namespace detail

constexpr void lower_alloc::rewrite(typed<tile::alloc> op, lowering& l) {
  const function& f = l.source();
  const std::uint32_t a = l.facts().index_of(op.result());
  const allocation& alloc = l.facts().allocations()[a];
  const auto ks = l.windows(a);
  if (ks.empty()) return;  // no Tile value lives here: nothing to declare
  const location loc = detail::definition_location(f, op.loc(), ks[0].first);
  if (alloc.capacity <= 0) return l.fail(loc, name, text("planned tile.alloc capacity must be a static positive literal"));
  // The IR says whether storage is placed: lower_function has checked it agrees with the planner.
  const bool with_address = alloc.address.has_value();
  if (alloc.space == memory_space::acc && !with_address && !l.declaring()) {
    // An accumulator used only inside one loop body (or arm) is declared there (see lowering).
    if (const op_id first = detail::sole_nested_first_reference(f, alloc.mem, op.id()); first.valid())
      return l.defer_declaration(first, op.id());
  }
  if (is_matrix_space(alloc.space)) return emit_matrix_root(op, l, a);

  for (const window& m : ks) {
    if (m.offset < 0) return l.fail(loc, name, text("dense storage window must begin within its allocation"));
    if (m.desc->bytes() > alloc.capacity - m.offset)
      return l.fail(loc, name,
                    text("descriptor window exceeds the planned allocation capacity: ")
                        << m.desc->bytes() << " bytes at offset " << m.offset << " in " << alloc.capacity);
  }
  auto& b = l.builder();
  const bool direct = ks.size() == 1 && ks[0].offset == 0 && ks[0].desc->bytes() == alloc.capacity;
  if (direct) {
    // Why a fixed operand array: this is the path of almost every allocation, and it needs no
    // heap-allocated operand list.
    const type& d = *ks[0].desc;
    const operand valid = d.valid[0].is_runtime() ? b.pair(d.shape[0], d.shape[1]) : b.tuple({});
    const operand args[] = {valid, with_address ? operand::integer(*alloc.address) : operand{}};
    const std::string_view names[] = {f.name_of(ks[0].first)};
    l.define_handle(a, 0,
                    b.fn().result(b.emit(opcode::buffer_alloc, std::span<const operand>(args, with_address ? 2 : 1), {},
                                         std::span<const type>(&d, 1), names, loc)));
    return;
  }
  if (alloc.capacity % 32 != 0) return l.fail(loc, name, text("a shared storage root needs its capacity aligned to 32 bytes"));
  std::uint32_t typed_root = no_id;
  for (std::uint32_t k = 0; k < ks.size() && typed_root == no_id; ++k)
    if (ks[k].parent && ks[k].offset == 0 && ks[k].desc->bytes() == alloc.capacity && ks[k].desc->static_valid()) typed_root = k;
  const type root_t = typed_root != no_id ? *ks[typed_root].desc : buffer_type(alloc.capacity / 32, 32, dtype::uint8);
  const std::string_view root_names[] = {typed_root != no_id ? f.name_of(ks[typed_root].first) : f.name_of(alloc.mem)};
  const operand root_args[] = {b.tuple({}), with_address ? operand::integer(*alloc.address) : operand{}};
  const value_id root = b.fn().result(b.emit(opcode::buffer_alloc, std::span<const operand>(root_args, with_address ? 2 : 1), {},
                                             std::span<const type>(&root_t, 1), root_names, loc));
  if (typed_root != no_id) l.define_handle(a, typed_root, root);
  emit_views(op, l, a, root, typed_root);
}

constexpr void lower_alloc::emit_matrix_root(typed<tile::alloc> op, lowering& l, std::uint32_t a) {
  const function& f = l.source();
  const allocation& alloc = l.facts().allocations()[a];
  const auto ks = l.windows(a);
  const location loc = ks.empty() ? op.loc() : detail::definition_location(f, op.loc(), ks[0].first);
  const bool with_address = alloc.address.has_value();
  auto& b = l.builder();
  value_id root;
  std::int64_t root_offset = 0, root_bytes = 0;
  for (std::uint32_t k = 0; k < ks.size(); ++k) {
    const window& m = ks[k];
    if (m.offset < 0 || m.desc->bytes() > alloc.capacity - m.offset)
      return l.fail(loc, name,
                    text("descriptor window exceeds the planned allocation capacity: ")
                        << m.desc->bytes() << " bytes at offset " << m.offset << " in " << alloc.capacity);
    // Why no ?: here: g++-12 mis-evaluates a conditional of class type in constant evaluation.
    text nm(f.name_of(m.first));
    if (m.product.valid()) nm << "_product";
    const std::string_view names[] = {nm.view()};
    if (with_address || !root.valid()) {
      const operand args[] = {b.tuple({}), with_address ? operand::integer(*alloc.address + m.offset) : operand{}};
      const value_id h =
          b.fn().result(b.emit(opcode::buffer_alloc, std::span<const operand>(args, with_address ? 2 : 1), {},
                               std::span<const type>(m.desc, 1), names, detail::definition_location(f, op.loc(), m.first)));
      if (!root.valid()) {
        root = h;
        root_offset = m.offset;
        root_bytes = m.desc->bytes();
      }
      l.define_handle(a, k, h);
      continue;
    }
    if (m.offset != root_offset || m.desc->bytes() != root_bytes)
      return l.fail(
          loc, name,
          text("an addressless ") << tile2buffer::name(alloc.space)
                                  << " allocation can hold only one window; distinct windows require separate allocations ('"
                                  << f.name_of(m.first) << "' at offset " << m.offset << ", " << m.desc->bytes()
                                  << " bytes; the allocation's window is at offset " << root_offset << ", " << root_bytes
                                  << " bytes)");
    const operand rargs[] = {operand::of(root)};
    l.define_handle(a, k, b.fn().result(b.emit(opcode::buffer_reshape, rargs, {}, std::span<const type>(m.desc, 1), names, loc)));
  }
}

constexpr void lower_alloc::emit_views(typed<tile::alloc> op, lowering& l, std::uint32_t a, value_id root,
                                       std::uint32_t typed_root) {
  const function& f = l.source();
  const allocation& alloc = l.facts().allocations()[a];
  const auto ks = l.windows(a);
  const location loc = ks.empty() ? op.loc() : detail::definition_location(f, op.loc(), ks[0].first);
  auto& b = l.builder();
  // Keys in canonical order: offset, dtype name, shape, valid.
  std::vector<std::uint32_t> order(ks.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const window& p = ks[x];
    const window& q = ks[y];
    if (p.offset != q.offset) return p.offset < q.offset;
    if (tile2buffer::name(p.desc->dt) != tile2buffer::name(q.desc->dt))
      return tile2buffer::name(p.desc->dt) < tile2buffer::name(q.desc->dt);
    if (p.desc->shape != q.desc->shape) return p.desc->shape < q.desc->shape;
    return p.desc->valid[0].number < q.desc->valid[0].number ||
           (p.desc->valid[0].number == q.desc->valid[0].number && p.desc->valid[1].number < q.desc->valid[1].number);
  });
  const std::string_view root_name = f.name_of(alloc.mem);
  std::vector<std::pair<std::int64_t, std::int64_t>> byte_keys;  // (offset, bytes) -> byte_windows[i]
  std::vector<value_id> byte_windows;
  value_id byte_root = typed_root == no_id ? root : value_id{};  // a typed root is relabelled to bytes on first need
  // A static partial valid rectangle of a fully valid member (same offset, dtype and shape) is a
  // zero-offset subview of that member's handle, defined once the member's handle exists.
  const auto full_sibling = [&](const window& m) -> std::uint32_t {
    if (!m.desc->static_valid() || (m.desc->valid[0].number == m.desc->shape[0] && m.desc->valid[1].number == m.desc->shape[1]))
      return no_id;
    for (std::uint32_t s = 0; s < ks.size(); ++s) {
      const type& d = *ks[s].desc;
      if (ks[s].offset == m.offset && d.dt == m.desc->dt && d.shape == m.desc->shape && d.static_valid() &&
          d.valid[0].number == d.shape[0] && d.valid[1].number == d.shape[1])
        return s;
    }
    return no_id;
  };
  for (std::uint32_t k : order) {
    if (k == typed_root || full_sibling(ks[k]) != no_id) continue;
    const window& m = ks[k];
    if (!m.desc->static_valid())
      return l.fail(loc, name, text("a runtime-valid tile needs its own allocation; it cannot share a byte-view storage root"));
    if (m.offset % 32 != 0 || m.desc->bytes() % 32 != 0)
      return l.fail(loc, name,
                    text("static byte views require offsets and windows aligned to 32 bytes (offset ")
                        << m.offset << ", " << m.desc->bytes() << " bytes)");
    const bool whole = m.offset == 0 && m.desc->bytes() == alloc.capacity;
    if (m.parent && !whole) {
      // A window parent inside a shared allocation: its own typed allocation over the same bytes.
      if (!alloc.address)
        return l.fail(loc, name,
                      text("a tile that is sliced or assembled into cannot share an addressless storage root ('")
                          << f.name_of(m.first) << "' at offset " << m.offset << ")");
      const operand args[] = {b.tuple({}), operand::integer(*alloc.address + m.offset)};
      const std::string_view vn[] = {f.name_of(m.first)};
      l.define_handle(a, k,
                      b.fn().result(b.emit(opcode::buffer_alloc, args, {}, std::span<const type>(m.desc, 1), vn,
                                           detail::definition_location(f, op.loc(), m.first))));
      continue;
    }
    value_id base = whole ? root : value_id{};
    if (!whole) {
      if (!byte_root.valid()) {
        const type bt = buffer_type(alloc.capacity / 32, 32, dtype::uint8);
        const operand rargs[] = {operand::of(root)};
        const std::string_view bn[] = {root_name};
        byte_root = b.fn().result(b.emit(opcode::buffer_reshape, rargs, {}, std::span<const type>(&bt, 1), bn, loc));
      }
      const std::pair<std::int64_t, std::int64_t> wk{m.offset, m.desc->bytes()};
      std::size_t w = 0;
      while (w < byte_keys.size() && byte_keys[w] != wk) ++w;
      if (w == byte_keys.size()) {
        const type wt = buffer_type(m.desc->bytes() / 32, 32, dtype::uint8);
        const operand args[] = {operand::of(byte_root), b.pair(m.offset / 32, 0)};
        const std::string_view wn[] = {root_name};
        byte_keys.push_back(wk);
        byte_windows.push_back(b.fn().result(b.emit(opcode::buffer_subview, args, {}, std::span<const type>(&wt, 1), wn, loc)));
      }
      base = byte_windows[w];
    }
    const operand rargs[] = {operand::of(base)};
    const std::string_view vn[] = {f.name_of(m.first)};
    l.define_handle(a, k, b.fn().result(b.emit(opcode::buffer_reshape, rargs, {}, std::span<const type>(m.desc, 1), vn, loc)));
  }
  for (std::uint32_t k : order) {
    const std::uint32_t s = full_sibling(ks[k]);
    if (k == typed_root || s == no_id) continue;
    const window& m = ks[k];
    const operand args[] = {operand::of(l.key_handle(a, s)), b.pair(0, 0),
                            b.pair(m.desc->valid[0].number, m.desc->valid[1].number)};
    const std::string_view vn[] = {f.name_of(m.first)};
    l.define_handle(a, k, b.fn().result(b.emit(opcode::buffer_subview, args, {}, std::span<const type>(m.desc, 1), vn, loc)));
  }
}

}  // namespace v0
}  // namespace tile2buffer
