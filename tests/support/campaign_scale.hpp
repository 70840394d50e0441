// SPDX-License-Identifier: Apache-2.0
/// @file campaign_scale.hpp
/// The campaign tests' kernel counts are divided by T2B_CAMPAIGN_DIVISOR. Meson defines it as 4
/// in a sanitized build (tests/meson.build): the unsanitized build runs every campaign in full,
/// and the sanitized one still drives every generator shape through every pass and planner, at a
/// quarter of the kernels, so that the sanitizers' 5-10x slowdown fits CI's time budget.
#pragma once

#include <cstdint>

#ifndef T2B_CAMPAIGN_DIVISOR
#define T2B_CAMPAIGN_DIVISOR 1
#endif

namespace tile2buffer::testing {
/// `full` kernels in an ordinary build, a quarter of them in a sanitized one.
constexpr std::uint64_t campaign_kernels(std::uint64_t full) { return full / T2B_CAMPAIGN_DIVISOR; }
}  // namespace tile2buffer::testing
