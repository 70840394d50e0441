// SPDX-License-Identifier: Apache-2.0
/// @file simulator_model_missing.cpp
/// A Tile model set without a model for tile.exp (as when an op joins the catalogue and no model
/// joins the simulator): running it is one error whose first line names the op.
// EXPECT-FIRST-ERROR: missing_simulator_model<
// EXPECT-FIRST-ERROR: tile_exp
// EXPECT-ERROR: add a row for it
// EXPECT-ERROR-COUNT: 1
#include "tile2buffer/sim/run_tile.hpp"

namespace t2b = tile2buffer;
struct my_models : t2b::sim::tile_models {
  static constexpr auto rows = t2b::sim::rows_without<t2b::sim::tile_models, t2b::opcode::tile_exp>;
};
t2b::sim::run_result run(const t2b::program& p, const t2b::function& f, const t2b::sim::sim_inputs& in) {
  return t2b::sim::run_tile_with<my_models>(p, f, in);
}
