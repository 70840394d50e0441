// SPDX-License-Identifier: Apache-2.0
/// @file main.cpp
/// The single doctest runner TU.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
