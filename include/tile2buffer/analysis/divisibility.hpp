// SPDX-License-Identifier: Apache-2.0
/// @file analysis/divisibility.hpp
/// Power-of-two divisibility of integer scalar SSA values: for each value, how many low bits are
/// known to be zero (its 2-adic valuation, capped). The alignment proof of slices and assembles
/// (a byte offset is a multiple of 32) reads it; constants, sums, products, differences, min/max,
/// mod and casts propagate facts, everything else (parameters, SPMD queries, region values) knows
/// nothing. Why powers of two only: every alignment the contract asks for is one.
#pragma once

#include <cstdint>
#include <vector>

#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {

class scalar_divisibility {
 public:
  /// Valuation of 0: divisible by every power of two the analysis tracks.
  static constexpr int top = 62;

  /// Trailing zero bits of a constant (`top` for 0).
  static constexpr int of_constant(std::int64_t n) {
    if (n == 0) return top;
    int k = 0;
    auto u = static_cast<std::uint64_t>(n);
    while ((u & 1u) == 0 && k < top) {
      u >>= 1;
      ++k;
    }
    return k;
  }

  constexpr explicit scalar_divisibility(const function& f) : bits_(f.values.size(), 0) {
    walk(f, [&](op_id o) {
      const op_node& n = f.op(o);
      if (n.results.count != 1) return;
      // Why integers only: a float product with a power-of-two literal says nothing once cast.
      const auto integral = [&](value_id v) { return f.type_of(v).is_scalar() && is_integer(f.type_of(v).dt); };
      if (!integral(f.result(o))) return;
      const operand value = named_operand<"value">(f, o);
      const operand lhs = named_operand<"lhs">(f, o), rhs = named_operand<"rhs">(f, o);
      const bool both = lhs.kind != operand_kind::none && rhs.kind != operand_kind::none;
      int k = 0;
      if (n.code() == opcode::scalar_const) {
        k = of(value);
      } else if (n.code() == opcode::scalar_cast) {
        k = value.is_value() && integral(value.value()) ? of(value) : 0;
      } else {
        switch (info(n.code()).fn) {
          case scalar_fn::add:
          case scalar_fn::sub:
          case scalar_fn::min:
          case scalar_fn::max:
          case scalar_fn::mod: k = both ? std::min(of(lhs), of(rhs)) : 0; break;
          case scalar_fn::mul: k = both ? std::min(top, of(lhs) + of(rhs)) : 0; break;
          case scalar_fn::none:
          case scalar_fn::floordiv:
          case scalar_fn::lt:
          case scalar_fn::le:
          case scalar_fn::eq:
          case scalar_fn::ne:
          case scalar_fn::gt:
          case scalar_fn::ge:
          case scalar_fn::logical_and:
          case scalar_fn::logical_or:
          case scalar_fn::logical_not: return;  // nothing known of the result's factors
        }
      }
      bits_[f.result(o).index] = static_cast<std::uint8_t>(k);
    });
  }

  /// Known trailing zero bits of an integer operand (a literal or a value; 0 when unknown).
  [[nodiscard]] constexpr int of(const operand& x) const {
    if (x.kind == operand_kind::int_lit) return of_constant(x.num);
    if (x.is_value() && x.ref < bits_.size()) return bits_[x.ref];
    return 0;
  }

 private:
  std::vector<std::uint8_t> bits_;
};

}  // namespace v0
}  // namespace tile2buffer
