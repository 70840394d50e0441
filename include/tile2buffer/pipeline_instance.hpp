// SPDX-License-Identifier: Apache-2.0
/// @file pipeline_instance.hpp
/// The separately compiled default pipeline (see lower.hpp): include this in exactly one `.cpp`
/// of a host built with `TILE2BUFFER_EXTERN_PIPELINE`. It defines, not inline, the functions
/// that the entry headers declare in that mode (lower.hpp's pipeline; parse, print, verify,
/// structurally_equal, emit_pto, read_pto, compare_pto_reading, check_pto_roundtrip, serialize, deserialize,
/// check_binary_roundtrip, format, format_all and format_json), each by instantiating its
/// header-only template once (the pipeline with the default recipe set).
#pragma once

#ifndef TILE2BUFFER_EXTERN_PIPELINE
#define TILE2BUFFER_EXTERN_PIPELINE 1
#endif

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/emit/pto_roundtrip.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/pipeline.hpp"
#include "tile2buffer/recipe/table.hpp"
#include "tile2buffer/self_check.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/serialize/roundtrip.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace tile2buffer {
inline namespace v0 {

// Why `v0::`: inside the namespace its own non-template functions hide the templates they call.
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
result<program> run_pipeline(const program& input, const options& opts, std::optional<pass_id> stop_after, parallelism par,
                             const pass_observer* observer) {
  return v0::run_pipeline<default_recipes>(input, opts, stop_after, par, observer);
}
result<program> run_pipeline(program&& input, const options& opts, std::optional<pass_id> stop_after, parallelism par,
                             const pass_observer* observer) {
  return v0::run_pipeline<default_recipes>(static_cast<program&&>(input), opts, stop_after, par, observer);
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
result<program> lower(program&& p, const options& opts, parallelism par) {
  return v0::run_pipeline<default_recipes>(static_cast<program&&>(p), opts, std::nullopt, par);
}
result<program> lower(const program& p) { return v0::run_pipeline<default_recipes>(p, context::current()); }

text format(const diagnostic& d, std::string_view file, std::string_view source) { return v0::format<>(d, file, source); }
text format_all(const std::vector<diagnostic>& ds, std::string_view file, std::string_view source) {
  return v0::format_all<>(ds, file, source);
}
text format_json(const std::vector<diagnostic>& ds, std::string_view file) { return v0::format_json<>(ds, file); }
result<program> parse(std::string_view source, std::string_view file_name, const parse_limits& limits) {
  return v0::parse<>(source, file_name, limits);
}
text print(const function& f) { return v0::print<>(f); }
text print(const program& p) { return v0::print<>(p); }
text print(const function& f, const print_options& opts) { return v0::print<>(f, opts); }
text print(const program& p, const print_options& opts) { return v0::print<>(p, opts); }
std::vector<diagnostic> verify(const program& p, const function& f) { return v0::verify<>(p, f); }
std::vector<diagnostic> verify(const program& p) { return v0::verify<>(p); }
bool structurally_equal(const function& a, const function& b) { return v0::structurally_equal<>(a, b); }
bool structurally_equal(const program& a, const program& b) { return v0::structurally_equal<>(a, b); }
result<text> emit_pto(const program& p, const pto_options& o) { return v0::emit_pto<>(p, o); }
result<pto_reading> read_pto(std::string_view generic_text) { return v0::read_pto<>(generic_text); }
std::vector<diagnostic> compare_pto_reading(const program& p, const pto_reading& reading, std::string_view pto_text,
                                            const pto_options& o) {
  return v0::compare_pto_reading<>(p, reading, pto_text, o);
}
std::vector<diagnostic> check_pto_roundtrip(const program& p, const pto_options& o) { return v0::check_pto_roundtrip<>(p, o); }
result<std::vector<std::uint8_t>> serialize(const program& p) { return v0::serialize<>(p); }
result<program> deserialize(std::span<const std::uint8_t> bytes) { return v0::deserialize<>(bytes); }
result<program> deserialize(std::string_view bytes) { return v0::deserialize<>(bytes); }
std::vector<diagnostic> check_binary_roundtrip(const program& p, std::string_view after, binary_reader_fn read) {
  return v0::check_binary_roundtrip<>(p, after, read);
}
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE

}  // namespace v0
}  // namespace tile2buffer
