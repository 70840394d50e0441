// SPDX-License-Identifier: Apache-2.0
/// @file main.cpp
/// Links the two ODR translation units and checks that they agree with each other.
#include <cstdio>
#include <string>

#include "odr/odr.hpp"

namespace {
int failures = 0;
void expect(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}
}  // namespace

int main() {
  const tile2buffer::function k1 = odr::build_kernel_tu1(false);
  const tile2buffer::function k2 = odr::build_kernel_tu2(false);
  const tile2buffer::function k2_swapped = odr::build_kernel_tu2(true);
  expect(k1.ops.size() == k2.ops.size(), "both TUs build the same number of ops");
  expect(odr::equal_tu2(k1, k2) && odr::equal_tu1(k2, k1), "kernels built in either TU are structurally equal");
  expect(!odr::equal_tu1(k1, k2_swapped) && !odr::equal_tu2(k2_swapped, k1), "swapped operands are told apart");

  tile2buffer::program p;
  p.functions.push_back(k1);
  p.functions.push_back(k2_swapped);
  expect(odr::verify_errors_tu1(p) == odr::verify_errors_tu2(p), "the verifier answers the same in both TUs");

  tile2buffer::program single;
  single.functions.push_back(k1);
  const std::string printed = odr::print_tu1(single);
  expect(printed == odr::print_tu2(single), "both TUs print the same text");
  const auto reparsed = odr::parse_tu2(printed);
  expect(reparsed.ok() && odr::equal_tu1(reparsed.value.functions.at(0), k1), "text printed in one TU parses back in the other");
  expect(!odr::parse_tu1(printed + "garbage").ok() && !odr::parse_tu2(printed + "garbage").ok(), "both TUs reject bad text");

  const auto lowered1 = odr::lower_tu1(single);
  const auto lowered2 = odr::lower_tu2(single);
  expect(lowered1.ok() && lowered2.ok(), "the kernel lowers in both TUs");
  if (lowered1.ok() && lowered2.ok()) {
    expect(lowered1.value.functions.at(0).stage == tile2buffer::ir_stage::buffer, "the lowered kernel is Buffer IR");
    expect(odr::equal_tu2(lowered1.value.functions.at(0), lowered2.value.functions.at(0)),
           "both TUs lower to structurally equal Buffer IR");
    expect(odr::print_tu2(lowered1.value) == odr::print_tu1(lowered2.value), "both TUs print the same Buffer IR");
    expect(odr::verify_errors_tu1(lowered2.value) == 0 && odr::verify_errors_tu2(lowered1.value) == 0,
           "the lowered program verifies in both TUs");
  }

  expect(odr::op_table_address_tu1() == odr::op_table_address_tu2(), "inline variable detail::op_table has one address");
  expect(odr::equal_address_tu1() == odr::equal_address_tu2(), "inline function structurally_equal has one address");
  return failures == 0 ? 0 : 1;
}
