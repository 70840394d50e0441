// SPDX-License-Identifier: Apache-2.0
/// @file check_error.cpp
/// Harness sanity check: a plain static_assert that must fail, proving the harness sees failure.
// EXPECT-ERROR: harness_sanity_check_must_fail
static_assert(sizeof(char) == 2, "harness_sanity_check_must_fail");
