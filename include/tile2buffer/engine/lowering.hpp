// SPDX-License-Identifier: Apache-2.0
/// @file engine/lowering.hpp
/// The state one function's conversion runs with: the rewriter building the Buffer-stage
/// function, the storage index (allocation -> distinct descriptor windows) computed before any
/// rewrite, the Tile value -> Buffer handle map, and the diagnostics. Recipes use only this.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/options.hpp"
#include "tile2buffer/engine/rewriter.hpp"

namespace tile2buffer {
inline namespace v0 {

class lowering {
 public:
  constexpr lowering(const function& src, const options& opts)
      : rw_(src), facts_(src), opts_(opts), value_key_(src.values.size(), key_ref{}), keys_(facts_.allocations().size()),
        key_handles_(facts_.allocations().size()) {
    rw_.target().stage = ir_stage::buffer;
    index_storage();
  }

  [[nodiscard]] constexpr const function& source() const noexcept { return rw_.source(); }
  [[nodiscard]] constexpr rewriter& rw() noexcept { return rw_; }
  [[nodiscard]] constexpr function_builder& builder() noexcept { return rw_.builder(); }
  [[nodiscard]] constexpr const options& opts() const noexcept { return opts_; }
  [[nodiscard]] constexpr const storage_facts& facts() const noexcept { return facts_; }
  [[nodiscard]] constexpr const std::vector<diagnostic>& errors() const noexcept { return errors_; }

  constexpr void fail(location loc, std::string_view source, text message) {
    errors_.push_back(diagnostic{loc, text(source), static_cast<text&&>(message), {}});
  }
  constexpr void fail(op_id o, std::string_view source, text message) { fail(rw_.source().op(o).loc, source, static_cast<text&&>(message)); }

  /// The Buffer handle standing for Tile value `v` (defined where its allocation was).
  [[nodiscard]] constexpr value_id handle(value_id v) const {
    const key_ref k = value_key_[v.index];
    if (k.alloc == no_id) return value_id{};
    return key_handles_[k.alloc][k.key];
  }
  /// `Valid(tile)`: the tile's own valid extents as a tuple, runtime extents remapped.
  constexpr operand valid_tuple(value_id tile) {
    const type& t = rw_.source().type_of(tile);
    operand e[2];
    for (int i = 0; i < 2; ++i) {
      const extent x = t.valid[i];
      e[i] = x.is_value() ? rw_.lookup(x.value()) : operand::integer(x.number);
    }
    return builder().tuple({e[0], e[1]});
  }

  /// Converts an element scalar operand to `target` explicitly (reference §5.6 step 12): literals
  /// are converted exactly, values through `cast` (INDEX goes through INT64 first).
  constexpr operand element_scalar(const operand& src, dtype target, location loc, std::string_view recipe) {
    if (src.kind == operand_kind::int_lit) return is_float(target) ? operand::decimal(src.num, 0) : src;
    if (src.kind == operand_kind::float_lit) {
      if (is_float(target)) return src;
      if (src.exp10 >= 0 && src.exp10 <= 18) {
        std::int64_t n = src.num;
        for (int i = 0; i < src.exp10; ++i) n *= 10;
        return operand::integer(n);
      }
      fail(loc, recipe, text("element scalar conversion requires an integral literal for ") << name(target));
      return operand::integer(0);
    }
    if (src.kind != operand_kind::value) {
      fail(loc, recipe, text("element scalar conversion requires a numeric scalar operand"));
      return operand::integer(0);
    }
    operand v = rw_.lookup(src.value());
    if (v.kind != operand_kind::value) return element_scalar(v, target, loc, recipe);
    dtype d = rw_.source().type_of(src.value()).dt;
    if (d == target) return v;
    if (d == dtype::index) {
      v = cast(v, dtype::int64, loc);
      d = dtype::int64;
      if (d == target) return v;
    }
    return cast(v, target, loc);
  }
  constexpr operand cast(const operand& v, dtype to, location loc) {
    return operand::of(builder().emit1(opcode::scalar_cast, {v, operand::of(to)}, scalar_type(to), {}, loc));
  }

  /// Emits the Buffer definitions of allocation `alloc_op` (a typed root, or a byte root with
  /// explicit subview/reshape aliases) at its original position.
  constexpr void emit_allocation(op_id alloc_op);

 private:
  struct key_ref {
    std::uint32_t alloc = no_id;
    std::uint32_t key = 0;
  };
  struct member {
    std::int64_t offset = 0;
    type desc;
    value_id first;  // first Tile value naming this window (its name and location)
  };

  constexpr void index_storage() {
    const function& f = rw_.source();
    for (std::uint32_t i = 0; i < f.values.size(); ++i) {
      const type& t = f.values[i].ty;
      if (!t.is_tile() || !t.has_storage()) continue;
      const std::uint32_t a = facts_.index_of(t.mem);
      if (a == no_id) continue;  // verify_tile_storage reports it
      const type desc = buffer_descriptor(t);
      auto& ks = keys_[a];
      std::uint32_t k = 0;
      while (k < ks.size() && !(ks[k].offset == t.mem_offset && ks[k].desc == desc)) ++k;
      if (k == ks.size()) ks.push_back(member{t.mem_offset, desc, value_id{i}});
      value_key_[i] = key_ref{a, k};
    }
    for (std::size_t a = 0; a < keys_.size(); ++a) key_handles_[a].assign(keys_[a].size(), value_id{});
  }

  rewriter rw_;
  storage_facts facts_;
  options opts_;
  std::vector<key_ref> value_key_;
  std::vector<std::vector<member>> keys_;
  std::vector<std::vector<value_id>> key_handles_;
  std::vector<diagnostic> errors_;
};

constexpr void lowering::emit_allocation(op_id alloc_op) {
  const function& f = rw_.source();
  const std::uint32_t a = facts_.index_of(f.result(alloc_op));
  const allocation& alloc = facts_.allocations()[a];
  const auto& ks = keys_[a];
  if (ks.empty()) return;  // no Tile value lives here: nothing to declare
  const location loc = f.op(alloc_op).loc;
  constexpr std::string_view src = "lower-alloc";
  if (alloc.capacity <= 0) return fail(loc, src, text("planned tile.alloc capacity must be a static positive literal"));
  if (alloc.space != memory_space::vec)
    return fail(loc, src, text("an allocation in ") << name(alloc.space) << " needs the cube storage recipes, which this rollout lacks");
  const bool with_address = addressed(opts_.planner);
  if (with_address && !alloc.address)
    return fail(loc, src, text("storage address not a static non-negative constant: run an addressed planner first"));

  for (const member& m : ks) {
    if (m.offset < 0) return fail(loc, src, text("dense storage window must begin within its allocation"));
    if (m.desc.bytes() > alloc.capacity - m.offset)
      return fail(loc, src,
                  text("descriptor window exceeds the planned allocation capacity: ") << m.desc.bytes() << " bytes at offset "
                                                                                      << m.offset << " in " << alloc.capacity);
  }
  auto& handles = key_handles_[a];
  const auto address_args = [&](std::initializer_list<operand> extra_valid) {
    std::vector<operand> args{builder().tuple(extra_valid)};
    if (with_address) args.push_back(operand::integer(*alloc.address));
    return args;
  };
  const std::string_view root_name = f.name_of(alloc.mem);
  const bool direct = ks.size() == 1 && ks[0].offset == 0 && ks[0].desc.bytes() == alloc.capacity;
  if (direct) {
    // Why no `address_args` here: this is the path of almost every allocation, and it needs no
    // heap-allocated operand list.
    const type& d = ks[0].desc;
    const operand valid = d.valid[0].is_runtime() ? builder().pair(d.shape[0], d.shape[1]) : builder().tuple({});
    const operand args[] = {valid, with_address ? operand::integer(*alloc.address) : operand{}};
    const std::string_view names[] = {f.name_of(ks[0].first)};
    handles[0] = builder().fn().result(builder().emit(opcode::buffer_alloc, std::span<const operand>(args, with_address ? 2 : 1), {},
                                                      std::span<const type>(&d, 1), names, loc));
    return;
  }
  if (alloc.capacity % 32 != 0) return fail(loc, src, text("a shared storage root needs its capacity aligned to 32 bytes"));
  // Keys in canonical order: offset, dtype name, shape, valid.
  std::vector<std::uint32_t> order(ks.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const member& p = ks[x];
    const member& q = ks[y];
    if (p.offset != q.offset) return p.offset < q.offset;
    if (name(p.desc.dt) != name(q.desc.dt)) return name(p.desc.dt) < name(q.desc.dt);
    if (p.desc.shape != q.desc.shape) return p.desc.shape < q.desc.shape;
    return p.desc.valid[0].number < q.desc.valid[0].number ||
           (p.desc.valid[0].number == q.desc.valid[0].number && p.desc.valid[1].number < q.desc.valid[1].number);
  });

  const type root_t = buffer_type(alloc.capacity / 32, 32, dtype::uint8);
  const std::string_view root_names[] = {root_name};
  const auto root_args = address_args({});
  const value_id root =
      builder().fn().result(builder().emit(opcode::buffer_alloc, root_args, {}, std::span<const type>(&root_t, 1), root_names, loc));
  std::vector<std::pair<std::int64_t, std::int64_t>> window_keys;  // (offset, bytes) -> windows[i]
  std::vector<value_id> windows;
  for (std::uint32_t k : order) {
    const member& m = ks[k];
    if (!m.desc.static_valid())
      return fail(loc, src, text("a runtime-valid tile needs its own allocation; it cannot share a byte-view storage root"));
    if (m.offset % 32 != 0 || m.desc.bytes() % 32 != 0)
      return fail(loc, src, text("static byte views require offsets and windows aligned to 32 bytes (offset ")
                                << m.offset << ", " << m.desc.bytes() << " bytes)");
    value_id base = root;
    if (m.offset != 0 || m.desc.bytes() != alloc.capacity) {
      const std::pair<std::int64_t, std::int64_t> wk{m.offset, m.desc.bytes()};
      std::size_t w = 0;
      while (w < window_keys.size() && window_keys[w] != wk) ++w;
      if (w == window_keys.size()) {
        const type wt = buffer_type(m.desc.bytes() / 32, 32, dtype::uint8);
        const operand args[] = {operand::of(root), builder().pair(m.offset / 32, 0)};
        const std::string_view wn[] = {root_name};
        window_keys.push_back(wk);
        windows.push_back(builder().fn().result(builder().emit(opcode::buffer_subview, args, {}, std::span<const type>(&wt, 1), wn, loc)));
      }
      base = windows[w];
    }
    const operand rargs[] = {operand::of(base)};
    const std::string_view vn[] = {f.name_of(m.first)};
    handles[k] = builder().fn().result(builder().emit(opcode::buffer_reshape, rargs, {}, std::span<const type>(&m.desc, 1), vn, loc));
  }
}

}  // namespace v0
}  // namespace tile2buffer
