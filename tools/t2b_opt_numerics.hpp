// SPDX-License-Identifier: Apache-2.0
/// @file tools/t2b_opt_numerics.hpp
/// t2b-opt --check-numerics: each lowered kernel, and each orchestration that submits one, run
/// as Tile IR and as Buffer IR in the reference simulator on the same seeded inputs, one verdict
/// per function.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/sim/compare.hpp"
#include "t2b_opt_options.hpp"
#include "t2b_opt_run.hpp"
#include "tool_error.hpp"

namespace t2b_opt {

using namespace tile2buffer;

/// Whether `f` of `lowered` was lowered from a Tile kernel of `tile_program`; for an
/// orchestration, whether one of its submits launches such a kernel.
inline bool was_lowered(const program& tile_program, const program& lowered, const function& f) {
  const auto one = [&](const function& k) {
    const function* before = tile_program.find(k.name_of());
    return k.stage == ir_stage::buffer && before != nullptr && before->stage == ir_stage::tile;
  };
  if (f.is_device()) return one(f);
  const auto kernels = sim::kernels_of(lowered, f);
  return tile_program.find(f.name_of()) != nullptr &&
         std::any_of(kernels.begin(), kernels.end(), [&](const function* k) { return one(*k); });
}

/// Runs every kernel that was lowered, and every orchestration that submits one, in both
/// simulators and prints one verdict per function.
inline int check_numerics(const cli_options& opts, const std::string& display, const program& tile_program,
                          const program& lowered) {
  bool all_ok = true;
  int compared = 0;
  for (const auto& f : lowered.functions) {
    if (!was_lowered(tile_program, lowered, f)) continue;
    const function* before = tile_program.find(f.name_of());
    std::vector<sim::scalar_binding> bound;
    if (std::string e; !t2b_opt_run::bind_scalars(opts.run.scalars, *before, bound, e)) {
      return t2b_tools::tool_error(e);
    }
    // Both arms of every branch: BOOL parameters not bound by --scalar run once all false and
    // once all true (integer loop bounds already default to two trips, see sim/options.hpp).
    std::vector<std::vector<sim::scalar_binding>> runs{bound};
    for (const auto& p : before->params) {
      const std::string_view pname = before->name_of(p.value);
      const type& t = before->type_of(p.value);
      const bool is_bound =
          std::any_of(bound.begin(), bound.end(), [&](const sim::scalar_binding& b) { return b.name == pname; });
      if (!t.is_scalar() || t.dt != dtype::bool_ || is_bound) continue;
      if (runs.size() == 1) runs.push_back(bound);
      runs[0].push_back(sim::scalar_binding{std::string(pname), 0.0});
      runs[1].push_back(sim::scalar_binding{std::string(pname), 1.0});
    }
    sim::compare_report r;
    for (const auto& run : runs) {
      sim::sim_options so;
      so.seed = *opts.check_numerics_seed;
      so.scalars = run;
      so.source = display;
      opts.run.launch(so);
      r = sim::check_numerics(tile_program, lowered, f.name_of(), so);
      if (!r.ok) {
        if (runs.size() > 1)
          r.text = std::string("with ") + (run.back().value != 0.0 ? "flags true: " : "flags false: ") + r.text;
        break;
      }
    }
    std::printf("@%.*s: %s", static_cast<int>(f.name_of().size()), f.name_of().data(), r.text.c_str());
    all_ok = all_ok && r.ok;
    ++compared;
  }
  std::fflush(stdout);
  if (compared == 0) {
    // A check that compared nothing must not look like a pass.
    t2b_tools::tool_error("--check-numerics compared nothing: no kernel was lowered to Buffer IR");
    return 2;
  }
  return all_ok ? 0 : 1;
}

}  // namespace t2b_opt
