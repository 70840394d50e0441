// SPDX-License-Identifier: Apache-2.0
/// @file pass_without_run.cpp
/// A host pass whose `run` does not have the pass signature (it returns the program, not a
/// result<program> that can carry diagnostics) is named in the first error, with the fix.
// EXPECT-FIRST-ERROR: pass_without_run<
// EXPECT-FIRST-ERROR: count_ops_pass
// EXPECT-ERROR: a pass needs `template <recipe_set Recipes> static constexpr result<program> run(
// EXPECT-ERROR-COUNT: 1
#include <string_view>

#include "tile2buffer/passes/pipeline.hpp"

struct count_ops_pass {
  static constexpr std::string_view name = "count_ops";
  template <class Recipes>
  static constexpr tile2buffer::program run(const tile2buffer::program& p, const tile2buffer::options&,
                                            tile2buffer::analysis_cache&) {
    return p;
  }
};
struct my_passes : tile2buffer::pass_list<tile2buffer::init_storage_pass, count_ops_pass, tile2buffer::select_pass> {};
auto lowered(const tile2buffer::program& p) { return tile2buffer::run_pipeline<tile2buffer::default_recipes, my_passes>(p, {}); }
