// SPDX-License-Identifier: Apache-2.0
/// @file claims_error_but_compiles.cpp
/// Harness self-test (registered with should_fail): it announces an error but compiles, so the
/// harness must report FAIL.
// EXPECT-ERROR: this_assertion_holds
static_assert(sizeof(char) == 1, "this_assertion_holds");
