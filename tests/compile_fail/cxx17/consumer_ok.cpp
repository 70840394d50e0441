// SPDX-License-Identifier: Apache-2.0
// The twin of consumer.cpp, compiled as C++20: the same include compiles cleanly.
#include <tile2buffer/lower.hpp>

int main() { return tile2buffer::buffer_semantics_version > 0 ? 0 : 1; }
