// SPDX-License-Identifier: Apache-2.0
/// @file elementwise_table.cpp
/// Prints the elementwise family as the library defines it, one op per line:
/// `<name> <kind> <DTYPE>...` (name after `tile.`, kind from the op catalogue, element types from
/// the spec table). tools/gen_golden_elementwise.py reads this instead of keeping its own copy.
#include <cstddef>
#include <cstdio>
#include <string_view>

#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"

namespace {
using namespace tile2buffer;

constexpr std::string_view kind_name(ew_kind k) {
  switch (k) {
    case ew_kind::binary: return "binary";
    case ew_kind::unary: return "unary";
    case ew_kind::scalar_form: return "scalar";
    case ew_kind::fill: return "fill";
    case ew_kind::none: break;
  }
  return "none";
}

void put(std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); }
}  // namespace

int main() {
  constexpr std::string_view tile_prefix = "tile.";
  for (const auto& row : elementwise_table) {
    put(mnemonic(row.op).substr(tile_prefix.size()));
    put(" ");
    put(kind_name(info(row.op).ew));
    put(row.default_tier ? " default" : " extended");
    for (std::size_t i = 0; i < row.count; ++i) {
      put(" ");
      put(name(row.dtypes[i]));
    }
    put("\n");
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
