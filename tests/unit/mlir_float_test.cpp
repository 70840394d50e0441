// SPDX-License-Identifier: Apache-2.0
// detail/mlir_float.hpp against what MLIR 22's printer writes (`mlir-opt --mlir-print-op-generic`
// on `arith.constant <literal> : <type>`, pinned here): one case per branch of its rule, on each
// float type. The pto-dialect test compares whole emitted kernels with MLIR itself.
#include <string_view>

#include <doctest/doctest.h>

#include "tile2buffer/detail/mlir_float.hpp"

namespace {

using tile2buffer::detail::bfloat16;
using tile2buffer::detail::binary16;
using tile2buffer::detail::binary32;
using tile2buffer::detail::float_format;

constexpr tile2buffer::text spelled(std::string_view literal, const float_format& f) {
  tile2buffer::text out;
  tile2buffer::detail::append_mlir_float(out, literal, f);
  return out;
}

struct pinned {
  std::string_view literal;
  float_format type;
  std::string_view mlir;
};
constexpr pinned cases[] = {
    {"1.5", binary32, "1.500000e+00"},  // six significant digits, padded
    {"0.0", binary32, "0.000000e+00"},
    {"-0.0", binary16, "-0.000000e+00"},
    {"0.1", binary32, "1.000000e-01"},
    {"0.1", binary16, "9.997550e-02"},  // the f16 value, digits cut before rounding
    {"0.001", bfloat16, "9.994500e-04"},
    {"3.0e-5", binary16, "2.998110e-05"},
    {"0.123456789", binary32, "0.123456791"},  // six digits do not read back: nine
    {"1.0e38", binary32, "9.99999968E+37"},    // nine, scientific
    {"9.999999", binary32, "9.99999904"},
    {"1.0e-45", binary32, "1.401300e-45"},  // subnormal
    {"1.0e-40", bfloat16, "9.183550e-41"},
    {"7.0e-46", binary32, "0.000000e+00"},  // under half the smallest subnormal
    {"65504.0", binary16, "6.550400e+04"},
    {"65520.0", binary16, "0x7C00"},  // rounds to infinity: hex
    {"3.5e38", binary32, "0x7F800000"},
    {"123456789.0", binary32, "0x4CEB79A3"},  // nine digits without a point: hex
    {"16777217.0", binary32, "0x4B800000"},
    {"1.00000005960464478", binary32, "1.000000e+00"},  // read as a double first: rounds twice
    {"1.00048828125000001", binary16, "1.000000e+00"},
    {"1.0e350", binary32, "0x7F800000"},  // past the double range: infinity
};

constexpr bool all_pinned() {
  for (const pinned& c : cases)
    if (spelled(c.literal, c.type).view() != c.mlir) return false;
  return true;
}
static_assert(all_pinned(), "detail/mlir_float.hpp: a float constant is not spelled as MLIR prints it");

TEST_CASE("float constants are spelled as MLIR's printer spells them") {
  for (const pinned& c : cases) {
    CAPTURE(c.literal);
    CHECK(spelled(c.literal, c.type).view() == c.mlir);
  }
}

}  // namespace
