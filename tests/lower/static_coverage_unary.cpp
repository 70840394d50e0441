// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_unary.cpp
/// Compiling is passing: the spec table's one-Tile-operand rows (abs, exp, sqrt, neg, relu, log,
/// recip) against the public pipeline, for every probed dtype (see static_coverage.hpp).
#include "static_coverage.hpp"

static_assert(t2b_coverage::forms_checked<t2b_coverage::form::unary, t2b_coverage::form::unary>());
