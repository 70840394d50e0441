// SPDX-License-Identifier: Apache-2.0
/// @file fuzz_binary.cpp
/// libFuzzer target for the binary IR reader: any input either fails with exactly one
/// "binary" diagnostic, or reads into a program that the verifier, the printer and the PTO
/// emitter handle without crashing, and that re-serializes canonically (writing it, reading
/// that back and writing again gives the same bytes, and a structurally equal program when the
/// program verifies).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const result<program> first = deserialize(std::span<const std::uint8_t>(data, size));
  if (!first) {
    const diagnostic& d = first.errors.front();
    if (first.errors.size() != 1 || d.source.view() != "binary" || d.message.empty()) std::abort();
    return 0;
  }
  const bool valid = verify(first.value).empty();
  (void)print(first.value);
  if (valid) (void)emit_pto(first.value);  // the emitter's contract starts at verified IR
  const auto once = serialize(first.value);
  if (!once) std::abort();
  const result<program> second = deserialize(once.value);
  if (!second) std::abort();
  const auto twice = serialize(second.value);
  if (!twice || twice.value != once.value) std::abort();
  // Alpha-equivalence binds a value at its definition, so it is only meaningful for SSA-valid IR
  // (a use before the definition compares unequal even to itself); the bytes above cover the rest.
  if (valid && !structurally_equal(first.value, second.value)) std::abort();
  return 0;
}
