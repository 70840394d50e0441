// SPDX-License-Identifier: Apache-2.0
/// @file static_coverage_scalar.cpp
/// Compiling is passing: the spec table's rows with a scalar element operand (adds, subs, muls,
/// divs, maximums, minimums, lrelu, full) against the public pipeline, for every probed dtype
/// (see static_coverage.hpp).
#include "static_coverage.hpp"

static_assert(t2b_coverage::forms_checked<t2b_coverage::form::scalar, t2b_coverage::form::fill>());
