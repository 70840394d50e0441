// SPDX-License-Identifier: Apache-2.0
/// @file engine/rewriter.hpp
/// The only mutation API. A rewriter reads a source function and builds its replacement; ops are
/// cloned (with values remapped) unless a pass or recipe emits something else in their place.
/// The source is never modified, so every pass is all-or-nothing by construction.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/builder.hpp"

namespace tile2buffer {
inline namespace v0 {

class rewriter {
 public:
  /// `sizes`: the new function's arena sizes when the caller knows them (otherwise about the
  /// source's, see `function_builder::reserve_like`).
  constexpr explicit rewriter(const function& src, const std::optional<function_builder::arena_sizes>& sizes = std::nullopt)
      : src_(src), b_(src.kind, src.name_of(), src.loc), map_(src.values.size()) {
    if (sizes) b_.reserve(*sizes);
    else b_.reserve_like(src);
    auto& f = b_.fn();
    f.stage = src.stage;
    f.buffer_ir_selected = src.buffer_ir_selected;
    f.target = src.target;
    f.results = src.results;
    for (const auto& p : src.params)
      bind(p.value, operand::of(b_.param(src.name_of(p.value), src.type_of(p.value), p.dir, p.loc)));
  }

  [[nodiscard]] constexpr const function& source() const noexcept { return src_; }
  [[nodiscard]] constexpr function_builder& builder() noexcept { return b_; }
  [[nodiscard]] constexpr function& target() noexcept { return b_.fn(); }

  //===--- value mapping ---===//
  constexpr void bind(value_id old, const operand& now) { map_[old.index] = now; }
  [[nodiscard]] constexpr bool bound(value_id old) const { return map_[old.index].kind != operand_kind::none; }
  [[nodiscard]] constexpr operand lookup(value_id old) const { return map_[old.index]; }
  /// The new value for `old` (which must be bound to a value).
  [[nodiscard]] constexpr value_id value(value_id old) const { return map_[old.index].value(); }
  /// Places a cloned Tile value in storage of the target function (`mem` is a target value).
  constexpr void set_storage(value_id old, value_id mem, std::int64_t offset) {
    place(old, placement{value_storage{mem, offset}, placement::target});
  }
  /// Places a cloned Tile value where source storage `at` is, mapped when the value is cloned
  /// (legalization's retargeted producers write their branch result's window).
  constexpr void override_storage(value_id old, value_storage at) { place(old, placement{at, placement::source}); }

  /// Remaps an operand of the source function into the target function.
  constexpr operand map(const operand& o) {
    switch (o.kind) {
      case operand_kind::value: return map_[o.ref];
      case operand_kind::tuple: {
        const auto src = src_.elements(o);
        // Why an inline buffer: offsets and extents are short tuples on nearly every op.
        std::array<operand, 8> small{};
        if (src.size() <= small.size()) {
          for (std::size_t i = 0; i < src.size(); ++i) small[i] = map(src[i]);
          return b_.tuple(std::span<const operand>(small.data(), src.size()));
        }
        std::vector<operand> elems;
        for (const auto& e : src) elems.push_back(map(e));
        return b_.tuple(elems);
      }
      case operand_kind::symbol: return b_.symbol(src_.symbol(o));
      default: return o;
    }
  }
  constexpr std::vector<operand> map(std::span<const operand> os) {
    std::vector<operand> out;
    out.reserve(os.size());
    for (const auto& o : os) out.push_back(map(o));
    return out;
  }
  /// Remaps the value references inside a type (runtime valid extents).
  constexpr type map(type t) const {
    for (auto& e : t.valid)
      if (e.is_value()) {
        const operand& m = map_[e.ref];
        e = m.kind == operand_kind::int_lit ? extent::of(m.num) : extent::of(m.value());
      }
    return t;
  }
  /// Remaps source storage into the target function (its allocation must be bound).
  constexpr value_storage map(value_storage s) const {
    if (s.valid()) s.mem = map_[s.mem.index].value();
    return s;
  }
  /// The target-side type of source value `old`.
  [[nodiscard]] constexpr type mapped_type(value_id old) const { return map(src_.type_of(old)); }
  /// The target-side storage of source value `old`: its placement if set, else its own, mapped.
  [[nodiscard]] constexpr value_storage mapped_storage(value_id old) const {
    if (old.index < storage_.size() && storage_[old.index].how != placement::none) {
      const placement& p = storage_[old.index];
      return p.how == placement::target ? p.at : map(p.at);
    }
    return map(src_.storage_of(old));
  }
  /// Source value `old`'s type and storage in source terms, a source placement applied (what
  /// moves between windows compare before anything is mapped).
  [[nodiscard]] constexpr placed_type source_placed(value_id old) const {
    if (old.index < storage_.size() && storage_[old.index].how == placement::source)
      return {src_.type_of(old), storage_[old.index].at};
    return {src_.type_of(old), src_.storage_of(old)};
  }
  /// Both: what a clone of `old` (or a value standing for it) is created with.
  [[nodiscard]] constexpr placed_type mapped(value_id old) const { return {mapped_type(old), mapped_storage(old)}; }

  //===--- cloning ---===//
  /// Clones op `o` (and its regions, recursively) into the current region; binds its results.
  constexpr op_id clone(op_id o);
  /// As `clone`, but ops in nested regions are first offered to `custom(op_id) -> bool`, which
  /// returns true when it emitted their replacement itself.
  template <class Custom>
  constexpr op_id clone(op_id o, Custom&& custom) {
    const span32 regions = clone_regions(o, custom);
    // Why a member buffer: one operand list per cloned op was a heap allocation per op. Regions
    // are cloned above, so nothing else fills the buffer before emit_like has copied it.
    const auto src = src_.args(o);
    args_.clear();
    for (const auto& a : src) args_.push_back(map(a));
    return emit_like(o, args_, regions);
  }
  /// As `clone`, with the op's operands given (target-side, mapped before its regions are cloned:
  /// a pass that replaces a region op's operands, such as a loop's initializers).
  template <class Custom>
  constexpr op_id clone_with(op_id o, std::span<const operand> args, Custom&& custom) {
    const span32 regions = clone_regions(o, custom);
    return emit_like(o, args, regions);
  }
  /// Clones every op of source region `r`, in order, into the current region.
  constexpr void clone_ops(region_id r);
  template <class Custom>
  constexpr void clone_ops(region_id r, Custom&& custom) {
    for (op_id o : src_.ops_of(r))
      if (!custom(o)) clone(o, custom);
  }
  /// Emits op `o`'s opcode with new operands (its kwargs and results carried over and bound).
  constexpr op_id emit_like(op_id o, std::span<const operand> args, span32 regions = {}) {
    return emit_as(src_.op(o).code(), o, args, regions);
  }
  /// Like `emit_like`, with another opcode (a recipe's target op with the same operands and results).
  /// `extra_kwargs` replace source kwargs with the same key.
  constexpr op_id emit_as(opcode code, op_id o, std::span<const operand> args, span32 regions = {},
                          std::span<const kwarg> extra_kwargs = {}) {
    const op_node& n = src_.op(o);
    // Why member buffers: three heap lists per emitted op dominated cloning. emit_as is not
    // re-entered (mapping a kwarg emits no op), so one set of buffers serves every call.
    std::vector<kwarg>& kws = kws_;
    kws.clear();
    for (const auto& k : src_.kwargs_of(o)) {
      bool replaced = false;
      for (const auto& e : extra_kwargs) replaced = replaced || e.key == k.key;
      if (!replaced) kws.push_back(kwarg{k.key, map(k.value)});
    }
    kws.insert(kws.end(), extra_kwargs.begin(), extra_kwargs.end());
    std::vector<type>& types = types_;
    std::vector<std::string_view>& names = names_;
    types.clear();
    names.clear();
    for (std::uint32_t i = 0; i < n.results.count; ++i) {
      const value_id v{n.results.begin + i};
      types.push_back(mapped_type(v));
      names.push_back(src_.name_of(v));
    }
    const op_id id = b_.emit(code, args, kws, types, names, src_.loc_of(o), regions);
    for (std::uint32_t i = 0; i < n.results.count; ++i) {
      const value_id now = b_.fn().result(id, i);
      if (const value_storage at = mapped_storage(value_id{n.results.begin + i}); at.valid()) b_.set_storage(now, at);
      bind(value_id{n.results.begin + i}, operand::of(now));
    }
    return id;
  }

  constexpr function finish() { return b_.finish(); }

 private:
  template <class Custom>
  constexpr span32 clone_regions(op_id o, Custom& custom) {
    const op_node& n = src_.op(o);
    if (n.region_count == 0) return {};
    const region_id first = b_.reserve_regions(n.region_count);
    for (std::uint32_t r = 0; r < n.region_count; ++r)
      clone_region(region_id{n.regions_begin + r}, region_id{first.index + r}, custom);
    return span32{first.index, n.region_count};
  }
  template <class Custom>
  constexpr void clone_region(region_id from, region_id to, Custom& custom) {
    const region_info& r = src_.region(from);
    // Why members: one pair of vectors for every region, not an allocation per region op;
    // open_region has copied them before a nested region reuses them.
    arg_types_.clear();
    arg_names_.clear();
    for (std::uint32_t i = 0; i < r.args.count; ++i) {
      const value_id v{r.args.begin + i};
      arg_types_.push_back(mapped_type(v));
      arg_names_.push_back(src_.name_of(v));
    }
    b_.open_region(to, arg_types_, arg_names_);
    for (std::uint32_t i = 0; i < r.args.count; ++i) {
      const value_id now = b_.fn().arg(to, i);
      if (const value_storage at = mapped_storage(value_id{r.args.begin + i}); at.valid()) b_.set_storage(now, at);
      bind(value_id{r.args.begin + i}, operand::of(now));
    }
    clone_ops(from, custom);
    b_.close_region();
  }

  const function& src_;
  function_builder b_;
  std::vector<type> arg_types_;              ///< clone_region's scratch
  std::vector<std::string_view> arg_names_;  ///< clone_region's scratch
  std::vector<operand> map_;
  struct placement {
    value_storage at;
    enum : std::uint8_t { none, target, source } how = none;  ///< `at` names a target or a source allocation
  };
  constexpr void place(value_id old, placement p) {
    storage_.resize(src_.values.size());
    storage_[old.index] = p;
  }
  std::vector<placement> storage_;
  std::vector<operand> args_;  // scratch of clone
  std::vector<kwarg> kws_;     // scratch of emit_as
  std::vector<type> types_;
  std::vector<std::string_view> names_;
};

namespace detail {
struct clone_everything {
  constexpr bool operator()(op_id) const noexcept { return false; }
};
}  // namespace detail

// Why out of class: clang 14 cannot constant-evaluate a member template instantiated from a
// member defined before the template's body inside the class.
constexpr op_id rewriter::clone(op_id o) { return clone(o, detail::clone_everything{}); }
constexpr void rewriter::clone_ops(region_id r) { clone_ops(r, detail::clone_everything{}); }

}  // namespace v0
}  // namespace tile2buffer
