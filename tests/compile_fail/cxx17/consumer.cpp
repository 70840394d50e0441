// SPDX-License-Identifier: Apache-2.0
// A host TU compiled as C++17 (g++ 12's and clang 14's default) gets one error that names C++20,
// not hundreds from the headers behind it. Compiled with -std=c++17 by tests/infra/meson.build.
// EXPECT-FIRST-ERROR: tile2buffer needs C++20: compile with -std=c++20
// EXPECT-ERROR: tile2buffer needs C++20
// EXPECT-ERROR-COUNT: 1
#include <tile2buffer/lower.hpp>

int main() { return 0; }
