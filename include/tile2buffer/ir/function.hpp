// SPDX-License-Identifier: Apache-2.0
/// @file ir/function.hpp
/// Functions and programs. A function owns flat arenas (values, ops, regions and the operand,
/// keyword and name pools); everything refers to everything else by strong index.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/enums.hpp"
#include "tile2buffer/ir/ids.hpp"
#include "tile2buffer/ir/op.hpp"
#include "tile2buffer/ir/operand.hpp"
#include "tile2buffer/ir/types.hpp"
#include "tile2buffer/location.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Where a value comes from: a function parameter, an op result, or a region argument
/// (a loop induction variable or iteration value).
enum class value_origin : std::uint8_t { param, result, region_arg };

/// One SSA value in 16 bytes: its type is interned in the function's `types` and its name
/// lives in `value_names`, so the record every pass walks carries only ids.
struct value_info {
  type_id ty;               ///< in the function's `types`
  op_id def;                ///< defining op (results) or owning region op (region args)
  std::uint32_t index = 0;  ///< param index, result index, or region-arg index
  region_id region;         ///< owning region for region args
  [[nodiscard]] constexpr value_origin origin() const noexcept {
    return region.valid() ? value_origin::region_arg : def.valid() ? value_origin::result : value_origin::param;
  }
};
static_assert(sizeof(value_info) == 16, "a value record stays 16 bytes: put new per-value data in a side array");
static_assert(sizeof(value_storage) <= 16, "a value's storage entry stays 16 bytes");

/// One op in 32 bytes: what every pass walks. Its location is in `function::op_locs` (read by
/// diagnostics and the printer), so a walk over ops does not pull source positions through the
/// cache. Why the results keep a full count: a loop carries as many values as it likes, and a
/// narrower count would refuse inputs that lower today; a region op has at most two regions.
struct op_node {
  opcode op_code{};
  std::uint8_t region_count = 0;
  span32 args;     ///< in the function's `operands`
  span32 kwargs;   ///< in the function's `kwargs`
  span32 results;  ///< value ids [begin, begin + count)
  std::uint32_t regions_begin = 0;
  [[nodiscard]] constexpr opcode code() const noexcept { return op_code; }
  /// Region ids [begin, begin + count).
  [[nodiscard]] constexpr span32 regions() const noexcept { return span32{regions_begin, region_count}; }
  /// The op as `as<Op>` and `as_variant` take it.
  [[nodiscard]] constexpr op_header header() const noexcept { return make_op(op_code, args, kwargs); }
};
static_assert(sizeof(op_node) <= 32, "an op record stays within 32 bytes: put new per-op data in a side array");

/// An ordered list of ops with its arguments. `ops` indexes the function's region-op pool;
/// `args` is a range of value ids.
struct region_info {
  span32 ops;
  span32 args;
  op_id parent;  ///< the region op that owns it; invalid for the function body
};

struct param_info {
  value_id value;
  direction dir = direction::in;
  location loc;
};

struct function {
  function_kind kind = function_kind::aiv;
  span32 name;
  ir_stage stage = ir_stage::tile;
  std::optional<bool> buffer_ir_selected;
  std::optional<target_arch> target;
  location loc;
  std::vector<param_info> params;
  std::vector<type> results;
  region_id body;

  std::vector<value_info> values;
  std::vector<span32> value_names;     ///< by value, in `names`
  std::vector<type> types;             ///< interned: equal types share one entry (see function_builder)
  std::vector<value_storage> storage;  ///< by value: a planned Tile's allocation and offset
  std::vector<op_node> ops;
  std::vector<location> op_locs;  ///< by op: where each op was written (diagnostics and the printer)
  std::vector<region_info> regions;
  std::vector<op_id> region_ops;
  std::vector<operand> operands;
  std::vector<kwarg> kwargs;
  std::vector<char> names;

  //===--- accessors ---===//
  [[nodiscard]] constexpr std::string_view str(span32 s) const noexcept {
    return s.count == 0 ? std::string_view{} : std::string_view(names.data() + s.begin, s.count);
  }
  [[nodiscard]] constexpr std::string_view name_of() const noexcept { return str(name); }
  [[nodiscard]] constexpr const value_info& value(value_id v) const { return values[v.index]; }
  [[nodiscard]] constexpr const type& type_of(value_id v) const { return types[values[v.index].ty.index]; }
  [[nodiscard]] constexpr std::string_view name_of(value_id v) const { return str(value_names[v.index]); }
  /// Where value `v` lives (invalid `mem` when it has no planned storage).
  [[nodiscard]] constexpr const value_storage& storage_of(value_id v) const { return storage[v.index]; }
  [[nodiscard]] constexpr bool has_storage(value_id v) const { return storage[v.index].valid(); }
  [[nodiscard]] constexpr stored_tile stored(value_id v) const { return {type_of(v), storage[v.index]}; }
  /// Gives one value a new type of its own (other values of its old type keep theirs). Not for
  /// hot paths: it never shares the entry; builders intern.
  constexpr void retype(value_id v, const type& t) {
    values[v.index].ty = type_id{static_cast<std::uint32_t>(types.size())};
    types.push_back(t);
  }
  [[nodiscard]] constexpr const op_node& op(op_id o) const { return ops[o.index]; }
  /// Where op `o` was written; unknown for an op without an entry (a function a host corrupted:
  /// the verifier reports it), so a diagnostic about such a function still has a location.
  [[nodiscard]] constexpr location loc_of(op_id o) const { return o.index < op_locs.size() ? op_locs[o.index] : location{}; }
  [[nodiscard]] constexpr const region_info& region(region_id r) const { return regions[r.index]; }
  [[nodiscard]] constexpr std::span<const operand> pool(span32 s) const {
    return std::span<const operand>(operands).subspan(s.begin, s.count);
  }
  [[nodiscard]] constexpr std::span<const operand> args(op_id o) const { return pool(ops[o.index].args); }
  [[nodiscard]] constexpr std::span<const operand> elements(const operand& tuple) const { return pool(tuple.tuple()); }
  [[nodiscard]] constexpr std::span<const kwarg> kwargs_of(op_id o) const {
    const span32 s = ops[o.index].kwargs;
    return std::span<const kwarg>(kwargs).subspan(s.begin, s.count);
  }
  [[nodiscard]] constexpr std::optional<operand> kwarg_of(op_id o, keyword k) const {
    for (const auto& kw : kwargs_of(o))
      if (kw.key == k) return kw.value;
    return std::nullopt;
  }
  [[nodiscard]] constexpr std::span<const op_id> ops_of(region_id r) const {
    const span32 s = regions[r.index].ops;
    return std::span<const op_id>(region_ops).subspan(s.begin, s.count);
  }
  [[nodiscard]] constexpr value_id result(op_id o, std::uint32_t i = 0) const { return value_id{ops[o.index].results.begin + i}; }
  [[nodiscard]] constexpr region_id region_of(op_id o, std::uint32_t i) const {
    return region_id{ops[o.index].regions_begin + i};
  }
  [[nodiscard]] constexpr value_id arg(region_id r, std::uint32_t i) const { return value_id{regions[r.index].args.begin + i}; }
  /// Symbol name of an operand of kind `symbol` (submit callees).
  [[nodiscard]] constexpr std::string_view symbol(const operand& o) const {
    return str(span32{o.ref, static_cast<std::uint32_t>(o.num)});
  }
  [[nodiscard]] constexpr bool is_device() const noexcept { return is_device_function(kind); }
};

struct program {
  text file;  ///< source file name for diagnostics; may be empty
  std::vector<function> functions;

  [[nodiscard]] constexpr const function* find(std::string_view name) const {
    for (const auto& f : functions)
      if (f.name_of() == name) return &f;
    return nullptr;
  }
};

}  // namespace v0
}  // namespace tile2buffer
