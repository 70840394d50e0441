// SPDX-License-Identifier: Apache-2.0
/// @file broken_ok.cpp
/// Harness self-test (registered with should_fail): an _ok twin that does not compile, so the
/// harness must report FAIL.
static_assert(sizeof(char) == 2, "an_ok_twin_that_fails");
