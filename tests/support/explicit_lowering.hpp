// SPDX-License-Identifier: Apache-2.0
/// @file explicit_lowering.hpp
/// The explicit-lowering property (issue 31 item 1), shared by the pipeline fuzzer and
/// t2b-campaign: a host that runs `lower` on its own planned IR gets Buffer IR that passes
/// `verify_buffer`, or diagnostics and nothing else. Checked on the default pipeline's planned
/// program (where explicit lowering must also agree with the pipeline) and on the same program
/// with its allocations moved by -64..+64 bytes, a hand placement that often overlaps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/print.hpp"

namespace tile2buffer::testing {

/// `p` with every placed `tile.alloc` moved by a multiple of 32 bytes in [-64, 64] (not below 0),
/// chosen per allocation from `seed`.
inline program shifted_tile_addresses(const program& p, std::uint64_t seed) {
  program q = p;
  for (function& f : q.functions) {
    std::uint64_t k = seed;
    for (const op_node& n : f.ops) {
      if (n.code() != opcode::tile_alloc) continue;
      k = k * 6364136223846793005ull + 1442695040888963407ull;
      const span32 kws = n.kwargs;
      for (std::uint32_t i = 0; i < kws.count; ++i) {
        kwarg& kw = f.kwargs[kws.begin + i];
        if (kw.key != keyword::addr || kw.value.kind != operand_kind::int_lit) continue;
        const std::int64_t shift = 32 * static_cast<std::int64_t>((k >> 33) % 5) - 64;
        kw.value = operand::integer(std::max<std::int64_t>(0, kw.value.num + shift));
      }
    }
  }
  return q;
}

/// Empty when the property holds for `tile` under `o`; otherwise what broke it.
inline std::string explicit_lowering_problem(const program& tile, const options& o, std::uint64_t seed) {
  if (!o.enable_buffer_ir) return {};
  const result<program> planned = run_pipeline(tile, o, pass_id::plan);
  if (!planned) return {};  // the pipeline's own failures are checked by its callers
  const result<program> pipeline = lower(tile, o);
  const program shifted = shifted_tile_addresses(planned.value, seed);
  for (const program* p : {&planned.value, &shifted}) {
    const program before = *p;
    const result<program> out = run_pass(pass_id::lower, *p, o);
    if (!structurally_equal(*p, before)) return "explicit lowering modified its input";
    if (!out) {
      if (out.errors.empty()) return "explicit lowering failed without a diagnostic";
      if (p == &planned.value && pipeline)
        return "explicit lowering of the pipeline's planned program failed: " + std::string(format_all(out.errors, "gen").view());
      continue;
    }
    if (const result<program> checked = run_pass(pass_id::verify_buffer, out.value, o); !checked)
      return "explicit lowering returned Buffer IR that verify_buffer rejects: " +
             std::string(format_all(checked.errors, "gen").view());
    if (p == &planned.value && (!pipeline || print(out.value).view() != print(pipeline.value).view()))
      return "explicit lowering of the pipeline's planned program differs from the pipeline's output";
  }
  return {};
}

}  // namespace tile2buffer::testing
