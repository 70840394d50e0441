// SPDX-License-Identifier: Apache-2.0
/// @file t2b-opt.cpp
/// Placeholder driver until the text format lands (owned by the text area).
#include <cstdio>
int main() {
  std::fputs("t2b-opt: not built yet\n", stderr);
  return 1;
}
