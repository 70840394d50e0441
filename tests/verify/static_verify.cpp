// SPDX-License-Identifier: Apache-2.0
/// @file tests/verify/static_verify.cpp
/// Compiling is passing: the verifier runs in constant evaluation (g++-12 and clang++-14) on
/// constexpr-built kernels, accepting the valid ones and rejecting the broken ones.
#include "kernels.hpp"

namespace verify_test {

static_assert(error_count(single(add_kernel())) == 0, "the representation example verifies clean");
static_assert(error_count(single(branch_kernel())) == 0, "an if with Tile and INDEX results verifies clean");
static_assert(error_count(single(loop_kernel())) == 0, "for and while carries verify clean");
static_assert(error_count(single(buffer_kernel())) == 0, "a Buffer-stage kernel verifies clean");
static_assert(error_count(orchestrated()) == 0, "an orchestration submitting two kernels verifies clean");

static_assert(error_count(single(add_kernel(flaw::add_dtype))) != 0, "an elementwise dtype mismatch is rejected");
static_assert(error_count(single(add_kernel(flaw::add_shape))) == 0,
              "elementwise valid extents may differ from the result's (such kernels stay Tile)");
static_assert(error_count(single(add_kernel(flaw::use_before_def))) != 0, "use before definition is rejected");
static_assert(error_count(single(branch_kernel(flaw::use_other_region))) != 0, "a value of another region is rejected");
static_assert(error_count(single(buffer_kernel(flaw::tile_op_in_buffer))) != 0,
              "a tile op in a Buffer-stage function is rejected");
static_assert(error_count(orchestrated(orch_flaw::arg_count)) != 0, "a submit with the wrong arity is rejected");

constexpr bool reports_dtype_rule() {
  return reports(verify(single(add_kernel(flaw::add_dtype))), "tile.add operands must have matching dtypes", at(7));
}
static_assert(reports_dtype_rule(), "the diagnostic names the op and the rule at the op's location");

}  // namespace verify_test
