// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_binary.cpp
/// Compiling is passing: the spec table's two-Tile-operand rows (add, mul, sub, div, maximum,
/// minimum) against the public pipeline, for every probed dtype (see static_coverage.hpp).
#include "static_coverage.hpp"

static_assert(t2b_coverage::forms_checked<t2b_coverage::form::binary, t2b_coverage::form::binary>());
