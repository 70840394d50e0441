// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <cstdint>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/ir/builder.hpp"

using namespace tile2buffer;

namespace {
/// Tiles in three allocations, runtime-valid and static, naming several windows (offset, dtype,
/// shape) in an order chosen by `seed`.
constexpr function shared_storage_kernel(std::uint32_t seed) {
  function_builder b(function_kind::aiv, "k");
  const value_id x = b.param("X", tensor_type(64, 64, dtype::fp32));
  const value_id rows = b.param("rows", scalar_type(dtype::index));
  value_id mem[3];
  for (auto& m : mem) m = b.emit1(opcode::tile_alloc, {operand::of(memory_space::vec), operand::integer(16384)}, mem_type(), "m");
  for (int i = 0; i < 24; ++i) {
    seed = seed * 1103515245u + 12345u;
    const std::uint32_t r = seed >> 8;
    type t = tile_type(r % 3 == 0 ? 8 : 16, 32, r % 5 == 0 ? dtype::fp16 : dtype::fp32);
    if (r % 2 == 0) t.valid[0] = extent::of(rows);
    b.emit1(opcode::tile_load, {operand::of(x), b.pair(0, 0), b.pair(16, 32)},
            in_storage(t, mem[r % 3], (r >> 4) % 4 == 0 ? 1024 : 0), {});
  }
  return b.finish();
}

/// The rule `storage_windows` answers, by scanning every value.
constexpr value_id first_differing(const function& f, value_id v) {
  const type& t = f.type_of(v);
  const value_storage& at = f.storage_of(v);
  for (std::uint32_t i = 0; i < f.values.size(); ++i) {
    const type& o = f.type_of(value_id{i});
    const value_storage& ot = f.storage_of(value_id{i});
    if (o.is_tile() && ot.mem == at.mem && (ot.offset != at.offset || o.dt != t.dt || o.shape != t.shape)) return value_id{i};
  }
  return {};
}

constexpr bool agrees_with_the_scan(std::uint32_t seed) {
  const function f = shared_storage_kernel(seed);
  const kernel_analyses k(f);
  for (std::uint32_t i = 0; i < f.values.size(); ++i) {
    if (!f.type_of(value_id{i}).is_tile() || !f.has_storage(value_id{i})) continue;
    if (k.shared_storage.differing(f, k.windows, f.stored(value_id{i})) != first_differing(f, value_id{i})) return false;
  }
  return true;
}
static_assert(agrees_with_the_scan(1));
}  // namespace

TEST_CASE("the tiles sharing a runtime-valid tile's storage are those a scan of every value finds") {
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    CAPTURE(seed);
    CHECK(agrees_with_the_scan(seed));
  }
  // Only static tiles: nothing is indexed, and nothing needs to be.
  function_builder b(function_kind::aiv, "k");
  const value_id m = b.emit1(opcode::tile_alloc, {operand::of(memory_space::vec), operand::integer(4096)}, mem_type(), "m");
  const value_id t = b.emit1(opcode::tile_load, {}, in_storage(tile_type(16, 32, dtype::fp32), m), "t");
  const function f = b.finish();
  const kernel_analyses k(f);
  CHECK_FALSE(k.shared_storage.differing(f, k.windows, f.stored(t)).valid());
}
