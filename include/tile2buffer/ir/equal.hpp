// SPDX-License-Identifier: Apache-2.0
/// @file ir/equal.hpp
/// Structural equality with automatic value mapping (alpha-equivalence): names and locations
/// are ignored; values correspond one-to-one by position of definition and use.
#pragma once

#include <cstdint>
#include <vector>

#include "tile2buffer/ir/function.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

class equivalence {
 public:
  constexpr equivalence(const function& a, const function& b)
      : a_(a), b_(b), a_to_b_(a.values.size(), no_id), b_to_a_(b.values.size(), no_id) {}

  constexpr bool functions() {
    if (a_.kind != b_.kind || a_.name_of() != b_.name_of() || a_.stage != b_.stage ||
        a_.buffer_ir_selected != b_.buffer_ir_selected || a_.target != b_.target || a_.params.size() != b_.params.size() ||
        a_.results.size() != b_.results.size())
      return false;
    for (std::size_t i = 0; i < a_.params.size(); ++i)
      if (a_.params[i].dir != b_.params[i].dir || !bind(a_.params[i].value, b_.params[i].value)) return false;
    for (std::size_t i = 0; i < a_.results.size(); ++i)
      if (!types(a_.results[i], b_.results[i])) return false;
    return regions(a_.body, b_.body);
  }

 private:
  constexpr bool bind(value_id x, value_id y) {
    if (a_to_b_[x.index] != no_id || b_to_a_[y.index] != no_id) return a_to_b_[x.index] == y.index && b_to_a_[y.index] == x.index;
    if (!types(a_.type_of(x), b_.type_of(y)) || !storages(a_.storage_of(x), b_.storage_of(y))) return false;
    a_to_b_[x.index] = y.index;
    b_to_a_[y.index] = x.index;
    return true;
  }
  constexpr bool same_use(value_id x, value_id y) const { return x.valid() && y.valid() && a_to_b_[x.index] == y.index; }
  constexpr bool extents(extent x, extent y) const {
    if (x.is_value() != y.is_value()) return false;
    return x.is_value() ? same_use(x.value(), y.value()) : x == y;
  }
  constexpr bool types(const type& x, const type& y) const {
    type xs = x, ys = y;
    for (int i = 0; i < 2; ++i) {
      if (!extents(x.valid[i], y.valid[i])) return false;
      xs.valid[i] = ys.valid[i] = extent{};
    }
    return xs == ys;
  }
  constexpr bool storages(const value_storage& x, const value_storage& y) const {
    return x.valid() == y.valid() && (!x.valid() || same_use(x.mem, y.mem)) && x.offset == y.offset;
  }
  constexpr bool operands(const operand& x, const operand& y) const {
    if (x.kind != y.kind) return false;
    switch (x.kind) {
      case operand_kind::value: return same_use(x.value(), y.value());
      case operand_kind::tuple: {
        const auto xe = a_.elements(x), ye = b_.elements(y);
        if (xe.size() != ye.size()) return false;
        for (std::size_t i = 0; i < xe.size(); ++i)
          if (!operands(xe[i], ye[i])) return false;
        return true;
      }
      case operand_kind::symbol: return a_.symbol(x) == b_.symbol(y);
      default: return x.num == y.num && x.exp10 == y.exp10;
    }
  }
  constexpr bool ops(op_id x, op_id y) {
    const op_node& nx = a_.op(x);
    const op_node& ny = b_.op(y);
    if (nx.code() != ny.code()) return false;
    const auto ax = a_.args(x), ay = b_.args(y);
    if (ax.size() != ay.size()) return false;
    const auto kx = a_.kwargs_of(x), ky = b_.kwargs_of(y);
    if (kx.size() != ky.size() || nx.results.count != ny.results.count || nx.region_count != ny.region_count) return false;
    for (std::size_t i = 0; i < ax.size(); ++i)
      if (!operands(ax[i], ay[i])) return false;
    for (std::size_t i = 0; i < kx.size(); ++i)
      if (kx[i].key != ky[i].key || !operands(kx[i].value, ky[i].value)) return false;
    for (std::uint32_t r = 0; r < nx.region_count; ++r)
      if (!regions(region_id{nx.regions_begin + r}, region_id{ny.regions_begin + r})) return false;
    for (std::uint32_t i = 0; i < nx.results.count; ++i)
      if (!bind(value_id{nx.results.begin + i}, value_id{ny.results.begin + i})) return false;
    return true;
  }
  constexpr bool regions(region_id x, region_id y) {
    const region_info& rx = a_.region(x);
    const region_info& ry = b_.region(y);
    if (rx.args.count != ry.args.count || rx.ops.count != ry.ops.count) return false;
    for (std::uint32_t i = 0; i < rx.args.count; ++i)
      if (!bind(value_id{rx.args.begin + i}, value_id{ry.args.begin + i})) return false;
    const auto ox = a_.ops_of(x), oy = b_.ops_of(y);
    for (std::size_t i = 0; i < ox.size(); ++i)
      if (!ops(ox[i], oy[i])) return false;
    return true;
  }

  const function& a_;
  const function& b_;
  std::vector<std::uint32_t> a_to_b_;
  std::vector<std::uint32_t> b_to_a_;
};

}  // namespace detail

/// True when `a` and `b` differ at most in value names and locations.
template <class = void>
constexpr bool structurally_equal(const function& a, const function& b) {
  return detail::equivalence(a, b).functions();
}

template <class = void>
constexpr bool structurally_equal(const program& a, const program& b) {
  if (a.functions.size() != b.functions.size()) return false;
  for (std::size_t i = 0; i < a.functions.size(); ++i)
    if (!structurally_equal<>(a.functions[i], b.functions[i])) return false;
  return true;
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
bool structurally_equal(const function& a, const function& b);  // TILE2BUFFER_EXTERN_PIPELINE: run time only
bool structurally_equal(const program& a, const program& b);    // TILE2BUFFER_EXTERN_PIPELINE: run time only
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::structurally_equal;
#endif

}  // namespace v0
}  // namespace tile2buffer
