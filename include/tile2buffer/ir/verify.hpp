// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify.hpp
/// The IR verifier. (Stub: the verify area replaces the body with the real rules.)
#pragma once

#include <vector>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Checks SSA, types, regions and stage membership of every function; empty when valid.
constexpr std::vector<diagnostic> verify(const program&) { return {}; }

}  // namespace v0
}  // namespace tile2buffer
