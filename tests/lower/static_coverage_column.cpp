// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_column.cpp
/// Compiling is passing: column-vector transfers (quantized-path.md §2.4) through the public
/// pipeline in constant evaluation. A column copy, an [R, 1] column vector loaded from a
/// one-column GM tensor and stored into another, lowers under the extended rollout with every
/// planner to one buffer.load and one buffer.store and no Tile op, for each GM transfer dtype
/// (FP16, BF16, FP32, INT32; R * esize = 32) and with runtime valid rows (a set_validshape first);
/// the default rollout keeps it Tile (the dense-descriptor reason); so do a column of a wider
/// tensor and an unaligned column under the extended rollout, each with its reason.
#include <string_view>

#include "static_coverage_text.hpp"

namespace t2b_coverage {
namespace {

constexpr std::string_view copy_fp16 =
    R"(aiv @col(S: Tensor[[64, 1], FP16], Out: out Tensor[[32, 1], FP16]) -> Tensor[[32, 1], FP16] {
  c = tile.load(S, (16, 0), (16, 1)) : Tile[[16, 1], FP16, Vec]
  r = tile.store(c, (16, 0), Out) : Tensor[[32, 1], FP16]
  return r
}
)";
constexpr std::string_view copy_bf16 =
    R"(aiv @col(S: Tensor[[64, 1], BF16], Out: out Tensor[[32, 1], BF16]) -> Tensor[[32, 1], BF16] {
  c = tile.load(S, (16, 0), (16, 1)) : Tile[[16, 1], BF16, Vec]
  r = tile.store(c, (16, 0), Out) : Tensor[[32, 1], BF16]
  return r
}
)";
constexpr std::string_view copy_fp32 =
    R"(aiv @col(S: Tensor[[64, 1], FP32], Out: out Tensor[[32, 1], FP32]) -> Tensor[[32, 1], FP32] {
  c = tile.load(S, (16, 0), (8, 1)) : Tile[[8, 1], FP32, Vec]
  r = tile.store(c, (16, 0), Out) : Tensor[[32, 1], FP32]
  return r
}
)";
constexpr std::string_view copy_int32 =
    R"(aiv @col(S: Tensor[[64, 1], INT32], Out: out Tensor[[32, 1], INT32]) -> Tensor[[32, 1], INT32] {
  c = tile.load(S, (16, 0), (8, 1)) : Tile[[8, 1], INT32, Vec]
  r = tile.store(c, (16, 0), Out) : Tensor[[32, 1], INT32]
  return r
}
)";
constexpr std::string_view copy_runtime =
    R"(aiv @col(S: Tensor[[64, 1], FP32], Out: out Tensor[[32, 1], FP32], n: Scalar[INDEX]) -> Tensor[[32, 1], FP32] {
  c = tile.load(S, (16, 0), (16, 1), (n, 1)) : Tile[[16, 1], FP32, Vec, valid=[n, 1]]
  r = tile.store(c, (16, 0), Out) : Tensor[[32, 1], FP32]
  return r
}
)";
constexpr std::string_view wider =
    R"(aiv @col(X: Tensor[[64, 16], FP32], Out: out Tensor[[32, 1], FP32]) -> Tensor[[32, 1], FP32] {
  c = tile.load(X, (16, 3), (8, 1)) : Tile[[8, 1], FP32, Vec]
  r = tile.store(c, (16, 0), Out) : Tensor[[32, 1], FP32]
  return r
}
)";
constexpr std::string_view unaligned =
    R"(aiv @col(S: Tensor[[64, 1], FP32], Out: out Tensor[[32, 1], FP32]) -> Tensor[[32, 1], FP32] {
  c = tile.load(S, (16, 0), (4, 1)) : Tile[[4, 1], FP32, Vec]
  r = tile.store(c, (16, 0), Out) : Tensor[[32, 1], FP32]
  return r
}
)";

constexpr options extended(planner_kind p) { return options{.planner = p, .rollout = rollout_kind::extended}; }

/// The column copy lowers under `opts` to one load and one store (and a set_validshape when its
/// valid rows are runtime), with no Tile op left.
constexpr bool copies_column(std::string_view text, const options& opts, int set_validshapes) {
  const auto parsed = parse(text, "coverage");
  if (!parsed.ok()) return false;
  const auto r = lower(parsed.value, opts);
  if (!r.ok() || r.value.functions.size() != 1 || r.value.functions[0].stage != ir_stage::buffer) return false;
  const function& f = r.value.functions[0];
  for (const auto& node : f.ops)
    if (is_tile_op(node.code())) return false;
  return count(f, opcode::buffer_load) == 1 && count(f, opcode::buffer_store) == 1 &&
         count(f, opcode::buffer_set_validshape) == set_validshapes;
}
constexpr bool copies_everywhere(std::string_view text, int set_validshapes = 0) {
  return copies_column(text, extended(planner_kind::pypto), set_validshapes) &&
         copies_column(text, extended(planner_kind::dsa_rp), set_validshapes) &&
         copies_column(text, extended(planner_kind::ptoas), set_validshapes);
}
static_assert(copies_everywhere(copy_fp16));
static_assert(copies_everywhere(copy_bf16));
static_assert(copies_everywhere(copy_fp32));
static_assert(copies_everywhere(copy_int32));
static_assert(copies_everywhere(copy_runtime, 1));

constexpr bool stays_tile(std::string_view text, const options& opts, std::string_view reason) {
  const auto parsed = parse(text, "coverage");
  if (!parsed.ok()) return false;
  const auto r = lower(parsed.value, opts);
  if (!r.ok() || r.value.functions[0].stage != ir_stage::tile) return false;
  const auto why = explain_selection(r.value, opts);
  return why.size() == 1 && !why[0].selected && why[0].reason.view().starts_with("tile.load: ") &&
         contains(why[0].reason.view(), reason);
}
static_assert(stays_tile(copy_fp32, options{}, "Vec descriptor must be dense row-major"));
static_assert(stays_tile(copy_runtime, options{}, "Vec descriptor must be dense row-major"));
static_assert(stays_tile(wider, extended(planner_kind::pypto), "a column-vector load needs a contiguous GM column"));
static_assert(stays_tile(unaligned, extended(planner_kind::pypto), "R * element bytes aligned to 32 (4 x FP32 is 16 bytes)"));

}  // namespace
}  // namespace t2b_coverage
