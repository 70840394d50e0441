// SPDX-License-Identifier: Apache-2.0
/// @file config.hpp
/// The only header with macros: library version and opt-out switches.
#pragma once

// Why here: every entry header includes this first, so a pre-C++20 compiler stops with this one
// error instead of hundreds from the headers after it (which the entry headers then skip).
#if __cplusplus < 202002L
#error "tile2buffer needs C++20: compile with -std=c++20 (g++ 12 and clang 14 default to C++17)"
#define TILE2BUFFER_CXX20 0
#else
#define TILE2BUFFER_CXX20 1
#endif

#define TILE2BUFFER_VERSION_MAJOR 0
#define TILE2BUFFER_VERSION_MINOR 1
#define TILE2BUFFER_VERSION_PATCH 0

namespace tile2buffer {
inline namespace v0 {
/// Version of the Buffer IR semantics; part of every cache key (spec: JIT keys).
inline constexpr int buffer_semantics_version = 1;
}  // namespace v0
}  // namespace tile2buffer
