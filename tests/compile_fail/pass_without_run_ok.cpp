// SPDX-License-Identifier: Apache-2.0
/// @file pass_without_run_ok.cpp
/// Twin: the same host pass returning result<program> is accepted and runs in its place.
#include <string_view>

#include "tile2buffer/passes/pipeline.hpp"

struct count_ops_pass {
  static constexpr std::string_view name = "count_ops";
  template <class Recipes>
  static constexpr tile2buffer::result<tile2buffer::program> run(const tile2buffer::program& p, const tile2buffer::options&,
                                                                 tile2buffer::analysis_cache&) {
    return {p, {}};
  }
};
struct my_passes : tile2buffer::pass_list<tile2buffer::init_storage_pass, count_ops_pass, tile2buffer::select_pass> {};
auto lowered(const tile2buffer::program& p) { return tile2buffer::run_pipeline<tile2buffer::default_recipes, my_passes>(p, {}); }
static_assert(tile2buffer::pass_table<my_passes, tile2buffer::default_recipes>::find("count_ops") == 1);
