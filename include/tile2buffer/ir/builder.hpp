// SPDX-License-Identifier: Apache-2.0
/// @file ir/builder.hpp
/// The builder API: how hosts, the parser and every pass create IR. A pass builds a new function,
/// or continues one its run owns (init_storage, through `function_builder(function&&)`), so a
/// failed pass leaves the caller's input untouched.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/detail/huge_pages.hpp"
#include "tile2buffer/ir/caller_location.hpp"
#include "tile2buffer/ir/build_observer.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/type_hash.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The operand and keyword structs of opcode C and the typed builders: defined in ir/create.hpp,
/// which a caller of `function_builder::create` includes.
template <opcode C>
struct create_traits;

namespace detail {
template <class T>
constexpr std::span<const T> span_of(std::initializer_list<T> l) {
  return std::span<const T>(l.begin(), l.size());
}
}  // namespace detail

class function_builder {
 public:
  /// Without a location, the function, each parameter and each op built by the methods below
  /// (but `emit`) take the caller's line (ir/caller_location.hpp); pass `{}` for none.
  constexpr function_builder(function_kind kind, std::string_view name, op_location loc = op_location::caller()) {
    f_.kind = kind;
    f_.name = intern(name);
    f_.loc = at(loc);
    f_.body = reserve_regions(1);
    open_region(f_.body, {}, {});
  }

  /// Continues a finished function (init_storage adds its allocations in place): no region is
  /// open until `reopen_front`, and `finish` hands the function back.
  constexpr explicit function_builder(function&& f) : f_(static_cast<function&&>(f)) {}

  //===--- function header ---===//
  constexpr value_id param(std::string_view name, const type& t, direction dir = direction::in,
                           op_location loc = op_location::caller()) {
    const value_id v = new_value(t, name, value_origin::param, op_id{}, static_cast<std::uint32_t>(f_.params.size()));
    f_.params.push_back(param_info{v, dir, at(loc)});
    return v;
  }
  constexpr void result_type(const type& t) { f_.results.push_back(t); }
  /// Direct access for attributes (stage, selection, target).
  [[nodiscard]] constexpr function& fn() noexcept { return f_; }
  [[nodiscard]] constexpr const function& fn() const noexcept { return f_; }

  /// Sizes the arenas for a function whose sizes the caller knows (init_storage: its source plus
  /// one allocation per storage family), so none grows: growing doubled what it held.
  struct arena_sizes {
    std::size_t values = 0, ops = 0, region_ops = 0, regions = 0, operands = 0, kwargs = 0, names = 0, types = 0;
  };
  constexpr void reserve(const arena_sizes& n) {
    detail::reserve_pool(f_.values, n.values);
    detail::reserve_pool(f_.value_names, n.values);
    detail::reserve_pool(f_.storage, n.values);
    detail::reserve_pool(f_.types, n.types);
    detail::reserve_pool(f_.ops, n.ops);
    detail::reserve_pool(f_.op_locs, n.ops);
    detail::reserve_pool(f_.region_ops, n.region_ops);
    detail::reserve_pool(f_.regions, n.regions);
    detail::reserve_pool(f_.operands, n.operands);
    detail::reserve_pool(f_.kwargs, n.kwargs);
    detail::reserve_pool(f_.names, n.names);
  }
  /// Sizes the arenas for a function about as large as `like` (a rewriter's source: its
  /// replacement has about as many ops, values, operands and names), so they grow at most once.
  constexpr void reserve_like(const function& like) {
    detail::reserve_pool(f_.values, like.values.size() + like.values.size() / 4);
    detail::reserve_pool(f_.value_names, like.values.size() + like.values.size() / 4);
    detail::reserve_pool(f_.storage, like.values.size() + like.values.size() / 4);
    detail::reserve_pool(f_.types, like.types.size());
    detail::reserve_pool(f_.ops, like.ops.size() + like.ops.size() / 4);
    detail::reserve_pool(f_.op_locs, like.ops.size() + like.ops.size() / 4);
    detail::reserve_pool(f_.region_ops, like.region_ops.size() + like.region_ops.size() / 4);
    detail::reserve_pool(f_.regions, like.regions.size());
    detail::reserve_pool(f_.operands, like.operands.size() + like.operands.size() / 4);
    detail::reserve_pool(f_.kwargs, like.kwargs.size());
    detail::reserve_pool(f_.names, like.names.size() + like.names.size() / 4);
  }

  //===--- pools ---===//
  constexpr span32 intern(std::string_view s) {
    const span32 r{static_cast<std::uint32_t>(f_.names.size()), static_cast<std::uint32_t>(s.size())};
    f_.names.insert(f_.names.end(), s.begin(), s.end());
    return r;
  }
  constexpr operand tuple(std::span<const operand> elems) {
    const auto begin = static_cast<std::uint32_t>(f_.operands.size());
    f_.operands.insert(f_.operands.end(), elems.begin(), elems.end());
    return operand{operand_kind::tuple, 0, begin, static_cast<std::int64_t>(elems.size())};
  }
  constexpr operand tuple(std::initializer_list<operand> elems) {
    return tuple(std::span<const operand>(elems.begin(), elems.size()));
  }
  constexpr operand pair(std::int64_t a, std::int64_t b) { return tuple({operand::integer(a), operand::integer(b)}); }
  constexpr operand symbol(std::string_view s) {
    const span32 n = intern(s);
    return operand{operand_kind::symbol, 0, n.begin, n.count};
  }

  //===--- ops ---===//
  /// Appends an op to the innermost open region. `regions` must have been reserved and closed
  /// (a region op's one or two: the node counts them in a byte).
  constexpr op_id emit(opcode c, std::span<const operand> args, std::span<const kwarg> kws, std::span<const type> result_types,
                       std::span<const std::string_view> result_names, location loc, span32 regions = {}) {
    const auto id = op_id{static_cast<std::uint32_t>(f_.ops.size())};
    const auto a = store_operands(args);
    const span32 k{static_cast<std::uint32_t>(f_.kwargs.size()), static_cast<std::uint32_t>(kws.size())};
    f_.kwargs.insert(f_.kwargs.end(), kws.begin(), kws.end());
    const span32 results{static_cast<std::uint32_t>(f_.values.size()), static_cast<std::uint32_t>(result_types.size())};
    for (std::uint32_t i = 0; i < result_types.size(); ++i)
      new_value(result_types[i], i < result_names.size() ? result_names[i] : std::string_view{}, value_origin::result, id, i);
    f_.ops.push_back(op_node{c, static_cast<std::uint8_t>(regions.count), a, k, results, regions.begin});
    f_.op_locs.push_back(loc);
    for (std::uint32_t r = 0; r < regions.count; ++r) {
      auto& reg = f_.regions[regions.begin + r];
      reg.parent = id;
      for (std::uint32_t a = 0; a < reg.args.count; ++a) f_.values[reg.args.begin + a].def = id;
    }
    open_ops_.push_back(id);
    if (observer_ != nullptr) observer_->op_emitted(id);
    return id;
  }
  /// One-result convenience form.
  constexpr value_id emit1(opcode c, std::initializer_list<operand> args, const placed_type& result, std::string_view name,
                           op_location loc = op_location::caller(), std::initializer_list<kwarg> kws = {}) {
    const std::string_view names[] = {name};
    const op_id o = emit(c, detail::span_of(args), detail::span_of(kws), std::span<const type>(&result.ty, 1), names, at(loc));
    const value_id v{f_.ops[o.index].results.begin};
    set_storage(v, result.at);
    return v;
  }
  /// No-result convenience form (destination-passing Buffer ops, yield, return).
  constexpr op_id emit0(opcode c, std::initializer_list<operand> args, op_location loc = op_location::caller(),
                        std::initializer_list<kwarg> kws = {}) {
    return emit(c, detail::span_of(args), detail::span_of(kws), {}, {}, at(loc));
  }

  //===--- typed builders (include <tile2buffer/ir/create.hpp>) ---===//
  /// `b.create<tile::load>({.tensor = a, .offsets = {0, 0}, .shape = {16, 32}}, tt, "lhs")`: the
  /// operands by the catalogue's names, checked at compile time; lays them out as `emit1` does.
  /// One result: returns it.
  template <ir_op Op>
    requires(info(Op::code).results == arity::one)
  constexpr value_id create(const typename create_traits<Op::code>::operands& ops, const placed_type& result,
                            std::string_view name, op_location loc = op_location::caller(),
                            const typename create_traits<Op::code>::keywords& kws = {}) {
    return create_traits<Op::code>::create_one(*this, ops, result, name, at(loc), kws);
  }
  /// No result (destination-passing Buffer ops, yield, return): returns the op.
  template <ir_op Op>
    requires(info(Op::code).results == arity::none)
  constexpr op_id create(const typename create_traits<Op::code>::operands& ops, op_location loc = op_location::caller(),
                         const typename create_traits<Op::code>::keywords& kws = {}) {
    return create_traits<Op::code>::create_none(*this, ops, at(loc), kws);
  }
  /// Region ops (if, for, while): their `region_count` regions, reserved from `first_region` and
  /// closed, and their results; returns the op (`fn().result(op, i)`).
  template <ir_op Op>
    requires(info(Op::code).results == arity::variadic)
  constexpr op_id create(const typename create_traits<Op::code>::operands& ops, region_id first_region,
                         std::span<const type> results, std::span<const std::string_view> names,
                         op_location loc = op_location::caller()) {
    return create_traits<Op::code>::create_region(*this, ops, first_region, results, names, at(loc));
  }

  //===--- regions ---===//
  /// Reserves `n` consecutive region ids for one region op (then/else, cond/body).
  constexpr region_id reserve_regions(std::uint32_t n) {
    const auto first = region_id{static_cast<std::uint32_t>(f_.regions.size())};
    for (std::uint32_t i = 0; i < n; ++i) f_.regions.push_back(region_info{});
    return first;
  }
  /// Opens a reserved region, creating its arguments; ops emitted next go into it.
  constexpr void open_region(region_id r, std::span<const type> arg_types, std::span<const std::string_view> arg_names) {
    const span32 args{static_cast<std::uint32_t>(f_.values.size()), static_cast<std::uint32_t>(arg_types.size())};
    for (std::uint32_t i = 0; i < arg_types.size(); ++i) {
      const value_id v =
          new_value(arg_types[i], i < arg_names.size() ? arg_names[i] : std::string_view{}, value_origin::region_arg, op_id{}, i);
      f_.values[v.index].region = r;
    }
    f_.regions[r.index].args = args;
    open_starts_.push_back(static_cast<std::uint32_t>(open_ops_.size()));
    open_ids_.push_back(r);
    if (observer_ != nullptr) observer_->region_opened(r);
  }
  /// Reopens region `r`, which already holds ops: those emitted until `close_region` go in front
  /// of them (a kernel's allocations, defined before every use).
  constexpr void reopen_front(region_id r) {
    open_starts_.push_back(static_cast<std::uint32_t>(open_ops_.size()));
    open_ids_.push_back(r);
    reopened_.push_back(r);
  }
  constexpr void close_region() {
    const std::uint32_t start = open_starts_.back();
    const region_id r = open_ids_.back();
    const auto added = static_cast<std::uint32_t>(open_ops_.size() - start);
    const bool reopened = !reopened_.empty() && reopened_.back() == r;
    if (reopened) reopened_.pop_back();
    if (const span32 old = f_.regions[r.index].ops; reopened && old.count != 0) {
      // Spliced in front of r's ops; the lists stored after them move up (an empty list's
      // position is immaterial).
      f_.region_ops.insert(f_.region_ops.begin() + old.begin, open_ops_.begin() + start, open_ops_.end());
      for (region_info& other : f_.regions)
        if (other.ops.begin >= old.begin + old.count) other.ops.begin += added;
      f_.regions[r.index].ops = {old.begin, old.count + added};
    } else {
      f_.regions[r.index].ops = {static_cast<std::uint32_t>(f_.region_ops.size()), added};
      f_.region_ops.insert(f_.region_ops.end(), open_ops_.begin() + start, open_ops_.end());
    }
    open_ops_.resize(start);
    open_starts_.pop_back();
    open_ids_.pop_back();
    if (observer_ != nullptr) observer_->region_closed(r);
  }
  [[nodiscard]] constexpr std::size_t depth() const noexcept { return open_starts_.size(); }
  /// Ops emitted so far into the innermost open region.
  [[nodiscard]] constexpr std::span<const op_id> current_ops() const {
    return std::span<const op_id>(open_ops_).subspan(open_starts_.back());
  }

  /// Closes the body and returns the function. The builder is spent afterwards.
  constexpr function finish() {
    while (!open_starts_.empty()) close_region();
    return std::move(f_);
  }
  /// `finish`, appending the function to `p`; a program without a file name takes the file the
  /// builder's callers are in, so that diagnostics name the host's source file with their lines.
  constexpr void finish_into(program& p) {
    if (p.file.empty() && !caller_file_.empty()) p.file = text(caller_file_);
    p.functions.push_back(finish());
  }
  /// The source file of the first call that took its caller's line (empty when none did).
  [[nodiscard]] constexpr std::string_view caller_file() const noexcept { return caller_file_; }

  /// Places value `v` (parser: a region result's storage clause is read after its op).
  constexpr void set_storage(value_id v, value_storage s) {
    f_.storage[v.index] = s;
    if (observer_ != nullptr) observer_->storage_placed(v);
  }

  /// Reports what is written from now on to `o` (null: to no one). Attach it once the header
  /// (parameters, results, stage) is written and before any `reopen_front`: those are not
  /// reported. The observer reads what was written before from `fn()`.
  constexpr void observe(build_observer* o) noexcept { observer_ = o; }

  /// The id of `t` among the function's types, added on first sight (equal types share one).
  constexpr type_id intern_type(const type& t) { return types_.intern(f_.types, t); }

 private:
  constexpr span32 store_operands(std::span<const operand> args) {
    const span32 s{static_cast<std::uint32_t>(f_.operands.size()), static_cast<std::uint32_t>(args.size())};
    f_.operands.insert(f_.operands.end(), args.begin(), args.end());
    return s;
  }
  /// `origin` is implied by `def` and the region set afterwards; kept to document each call.
  constexpr value_id new_value(const type& t, std::string_view name, value_origin, op_id def, std::uint32_t index) {
    const auto id = value_id{static_cast<std::uint32_t>(f_.values.size())};
    f_.values.push_back(value_info{intern_type(t), def, index, region_id{}});
    f_.value_names.push_back(intern(name));
    f_.storage.emplace_back();
    return id;
  }

  /// The location to record for `loc`, keeping the caller's file when it is the caller's line.
  constexpr location at(const op_location& loc) {
    if (caller_file_.empty()) caller_file_ = loc.file;
    return loc.loc;
  }

  function f_;
  type_interner types_;
  std::string_view caller_file_;  ///< a string literal of the compiler's (__FILE__), never freed
  // Why one stack for every open region's ops (each region's from its start): a vector per
  // region cost a heap allocation per region op (an `if` per op on runtime-valid kernels).
  std::vector<op_id> open_ops_;
  std::vector<std::uint32_t> open_starts_;  ///< per open region, innermost last: where its ops begin in open_ops_
  std::vector<region_id> open_ids_;
  std::vector<region_id> reopened_;  ///< regions opened by `reopen_front`, innermost last
  build_observer* observer_ = nullptr;
};

}  // namespace v0
}  // namespace tile2buffer
