// SPDX-License-Identifier: Apache-2.0
/// @file pipeline_instance.hpp
/// The separately compiled default pipeline (see lower.hpp): include this in exactly one `.cpp`
/// of a host built with `TILE2BUFFER_EXTERN_PIPELINE`. It defines, not inline, the functions
/// that `lower.hpp` declares in that mode, each by instantiating the header-only templates with
/// the default recipe set once.
#pragma once

#ifndef TILE2BUFFER_EXTERN_PIPELINE
#define TILE2BUFFER_EXTERN_PIPELINE 1
#endif

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/pipeline.hpp"
#include "tile2buffer/recipe/table.hpp"
#include "tile2buffer/self_check.hpp"

namespace tile2buffer {
inline namespace v0 {

// Why `v0::`: inside the namespace its own non-template functions hide the templates they call.
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
result<program> run_pipeline(const program& input, const options& opts, std::optional<pass_id> stop_after, parallelism par,
                             const pass_observer* observer) {
  return v0::run_pipeline<default_recipes>(input, opts, stop_after, par, observer);
}
result<program> run_pass_pipeline(const program& input, const options& opts, std::span<const std::string_view> passes,
                                  parallelism par, const pass_observer* observer) {
  return v0::run_pass_pipeline<default_recipes>(input, opts, passes, par, observer);
}
result<program> run_pass(pass_id id, const program& p, const options& opts) { return v0::run_pass<default_recipes>(id, p, opts); }
result<program> lower(const program& p, const options& opts, parallelism par) {
  return v0::run_pipeline<default_recipes>(p, opts, std::nullopt, par);
}
std::vector<selection_entry> explain_selection(const program& p, const options& opts) {
  return v0::explain_selection<default_recipes>(p, opts);
}
result<program> lower(const program& p) { return v0::run_pipeline<default_recipes>(p, context::current()); }
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE

}  // namespace v0
}  // namespace tile2buffer
