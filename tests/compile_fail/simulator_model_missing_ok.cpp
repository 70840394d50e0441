// SPDX-License-Identifier: Apache-2.0
/// @file simulator_model_missing_ok.cpp
/// Twin: the same set with a host's own model for tile.exp (one that refuses to run it) compiles,
/// and the table hands tile.exp to it.
#include "tile2buffer/sim/run_tile.hpp"

namespace t2b = tile2buffer;
namespace sim = t2b::sim;
inline bool no_exp(sim::tile_models::state& s, t2b::view<t2b::opcode::tile_exp> v) {
  return s.fail(v.id(), "this host does not simulate exp");
}
struct my_models : sim::tile_models {
  static constexpr auto rows =
      sim::concat_rows(sim::rows_without<sim::tile_models, t2b::opcode::tile_exp>, std::array{sim::typed_model<&no_exp>});
};
static_assert(sim::model_table<my_models>[static_cast<std::size_t>(t2b::opcode::tile_exp)] == sim::typed_model<&no_exp>.run);
t2b::sim::run_result run(const t2b::program& p, const t2b::function& f, const t2b::sim::sim_inputs& in) {
  return sim::run_tile_with<my_models>(p, f, in);
}
