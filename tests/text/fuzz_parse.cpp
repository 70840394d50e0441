// SPDX-License-Identifier: Apache-2.0
/// @file fuzz_parse.cpp
/// libFuzzer target: any input either fails with exactly one located parse diagnostic, or
/// parses into a program whose canonical text re-parses to a structurally equal program and
/// prints to the same bytes. Sanitizers catch the rest (crash, UB, leak, hang via -timeout).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view src(reinterpret_cast<const char*>(data), size);
  const result<program> first = parse(src, "fuzz.t2b");
  if (!first) {
    const diagnostic& d = first.errors.front();
    if (first.errors.size() != 1 || d.source.view() != "parse" || !d.loc.known() || d.message.empty()) std::abort();
    return 0;
  }
  const text printed = print(first.value);
  const result<program> second = parse(printed.view(), "printed.t2b");
  if (!second) std::abort();
  if (!(print(second.value) == printed)) std::abort();
  if (!structurally_equal(first.value, second.value)) std::abort();
  return 0;
}
