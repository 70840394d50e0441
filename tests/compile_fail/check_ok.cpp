// SPDX-License-Identifier: Apache-2.0
/// @file check_ok.cpp
/// Twin of check_error.cpp: the same assertion with a true condition must compile.
static_assert(sizeof(char) == 1, "harness_sanity_check_must_fail");
