// SPDX-License-Identifier: Apache-2.0
/// @file config.hpp
/// The only header with macros: library version and opt-out switches.
#pragma once

#define TILE2BUFFER_VERSION_MAJOR 0
#define TILE2BUFFER_VERSION_MINOR 1
#define TILE2BUFFER_VERSION_PATCH 0

namespace tile2buffer {
inline namespace v0 {
/// Version of the Buffer IR semantics; part of every cache key (spec: JIT keys).
inline constexpr int buffer_semantics_version = 1;
}  // namespace v0
}  // namespace tile2buffer
