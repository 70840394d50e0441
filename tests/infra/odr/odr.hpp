// SPDX-License-Identifier: Apache-2.0
/// @file odr.hpp
/// The functions each ODR translation unit exposes. Both TUs include every public header
/// (the generated all_headers.hpp), so a non-inline namespace-scope definition in any header
/// breaks the link, and an inline entity that is not shared shows up as two addresses.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"

namespace odr {

/// The spec's load-add-store kernel; `swap` exchanges the add operands.
tile2buffer::function build_kernel_tu1(bool swap);
tile2buffer::function build_kernel_tu2(bool swap);
bool equal_tu1(const tile2buffer::function& a, const tile2buffer::function& b);
bool equal_tu2(const tile2buffer::function& a, const tile2buffer::function& b);
std::size_t verify_errors_tu1(const tile2buffer::program& p);
std::size_t verify_errors_tu2(const tile2buffer::program& p);
/// The text format and the default lowering (PTOAS planner), instantiated in both TUs.
std::string print_tu1(const tile2buffer::program& p);
std::string print_tu2(const tile2buffer::program& p);
tile2buffer::result<tile2buffer::program> parse_tu1(std::string_view source);
tile2buffer::result<tile2buffer::program> parse_tu2(std::string_view source);
tile2buffer::result<tile2buffer::program> lower_tu1(const tile2buffer::program& p);
tile2buffer::result<tile2buffer::program> lower_tu2(const tile2buffer::program& p);
/// Addresses of inline entities as seen from each TU: they must coincide.
const void* op_table_address_tu1();
const void* op_table_address_tu2();
const void* equal_address_tu1();
const void* equal_address_tu2();

}  // namespace odr
