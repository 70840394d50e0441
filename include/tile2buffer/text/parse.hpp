// SPDX-License-Identifier: Apache-2.0
/// @file text/parse.hpp
/// The `.t2b` parser: text to `program`, through `function_builder`. Fails closed: any
/// malformed input yields exactly one located diagnostic (source "parse"), never UB.
/// The parser is written over four headers by concern (text/parse_tokens.hpp,
/// text/parse_types.hpp, text/parse_ops.hpp, text/parse_regions.hpp); this one is the entry point.
#pragma once

#include <string_view>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/text/parse_regions.hpp"
#include "tile2buffer/text/syntax.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Parses a `.t2b` program. On error the result holds exactly one located diagnostic whose
/// source is "parse"; `value.file` is `file_name` either way. Linear in the input size.
template <class = void>
constexpr result<program> parse(std::string_view source, std::string_view file_name = {}, const parse_limits& limits = {}) {
  return detail::parser(source, file_name, limits).run();
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
result<program> parse(std::string_view source, std::string_view file_name = {},
                      const parse_limits& limits = {});  // TILE2BUFFER_EXTERN_PIPELINE: run time only
}
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::parse;
#endif

}  // namespace v0
}  // namespace tile2buffer
