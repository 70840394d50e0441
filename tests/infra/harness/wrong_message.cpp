// SPDX-License-Identifier: Apache-2.0
/// @file wrong_message.cpp
/// Harness self-test (registered with should_fail): it is rejected, but not with the announced
/// text, so the harness must report FAIL.
// EXPECT-ERROR: the_announced_reason
static_assert(sizeof(char) == 2, "a_different_reason");
