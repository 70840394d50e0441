// SPDX-License-Identifier: Apache-2.0
/// @file 02_custom_recipe.cpp
/// Extending the default recipe set from a host, without editing the library: a recipe that
/// lowers `tile.muls(x, 1.0)` to a plain `buffer.copy`, tried before the default `tile.muls`
/// recipe because its benefit is higher. Recipes receive their typed source op: `muls.source()`
/// and `muls.scalar()` name the operands the op catalogue gives `tile.muls`.
#include <cstdio>
#include <string>

#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace t2b = tile2buffer;

struct muls_by_one_is_copy {
  using source = t2b::op_t<t2b::opcode::tile_muls>;
  static constexpr std::string_view name = "host-muls-by-one";
  static constexpr int benefit = 2;  // the default tile.muls recipe has benefit 1
  static constexpr bool default_rollout = true;

  static constexpr t2b::match_result match(t2b::typed<source> muls, const t2b::match_context& ctx) {
    const t2b::operand s = muls.scalar();
    const bool one = (s.kind == t2b::operand_kind::float_lit || s.kind == t2b::operand_kind::int_lit) && s.num == 1 &&
                     s.exp10 == 0;
    if (!one) return t2b::match_result::no(t2b::text("the scalar is not the literal 1"));
    // Everything else the default recipe requires (descriptors, dtypes) must hold too.
    return t2b::lower_elementwise<t2b::opcode::tile_muls>::match(muls, ctx);
  }
  static constexpr void rewrite(t2b::typed<source> muls, t2b::lowering& l) {
    const auto src = l.handle(muls.source().value());
    const auto dst = l.handle(muls.result());
    if (src != dst) l.builder().create<t2b::buffer::copy>({.source = src, .dest = dst}, muls.loc());
  }
};
static_assert(t2b::recipe<muls_by_one_is_copy>);

// A named struct keeps the set's name short in diagnostics; the set is checked (coverage,
// ambiguity) when lower<> first uses it.
struct host_recipes : t2b::with_recipes<t2b::default_recipes, muls_by_one_is_copy> {};
static_assert(t2b::registry<host_recipes>::checked);

constexpr std::string_view kernel =
    R"(aiv @scale(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  x = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  y = tile.muls(x, 1.0) : Tile[[16, 32], FP32, Vec]
  z = tile.muls(y, 3.0) : Tile[[16, 32], FP32, Vec]
  r = tile.store(z, (0, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
)";

int main() {
  const auto parsed = t2b::parse(kernel, "scale.t2b");
  if (!parsed) return 1;
  const auto lowered = t2b::lower<host_recipes>(parsed.value, t2b::options{.planner = t2b::planner_kind::ptoas});
  if (!lowered) {
    std::fputs(std::string(t2b::format_all(lowered.errors, "scale.t2b").view()).c_str(), stderr);
    return 1;
  }
  const auto out = t2b::print(lowered.value);
  std::fputs(std::string(out.view()).c_str(), stdout);
  // The host recipe turned the first muls into a copy; the second stays a buffer.muls.
  const bool ok = out.view().find("buffer.copy(") != std::string_view::npos &&
                  out.view().find("buffer.muls(") != std::string_view::npos;
  return ok ? 0 : 1;
}
