// SPDX-License-Identifier: Apache-2.0
/// @file static_serialize.cpp
/// Compiling is passing: the binary writer and the strict reader run in constant evaluation,
/// and a round trip of a builder-made Buffer kernel is structurally equal to the original.
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/serialize/binary.hpp"

namespace {
using namespace tile2buffer;

constexpr program kernel() {
  function_builder b(function_kind::aiv, "k", location{1, 1});
  const value_id a = b.param("A", tensor_type(16, 32, dtype::fp32), direction::in, location{1, 10});
  const value_id out = b.param("Out", tensor_type(16, 32, dtype::fp32), direction::out, location{1, 20});
  const value_id buf = b.emit1(opcode::buffer_alloc, {b.tuple({}), operand::integer(2048)}, buffer_type(16, 32, dtype::fp32),
                               "buf", location{2, 3});
  b.emit0(opcode::buffer_load, {operand::of(a), b.pair(0, 0), b.pair(16, 32), operand::of(buf)}, location{3, 3});
  b.emit0(opcode::buffer_muls, {operand::of(buf), operand::decimal(25, -1), operand::of(buf)}, location{4, 3});
  b.emit0(opcode::buffer_store, {operand::of(buf), b.pair(0, 0), b.pair(16, 32), operand::of(out)}, location{5, 3});
  b.emit0(opcode::cf_return, {operand::of(out)}, location{6, 3});
  b.result_type(tensor_type(16, 32, dtype::fp32));
  b.fn().stage = ir_stage::buffer;
  program p;
  p.file = text("k.t2b");
  p.functions.push_back(b.finish());
  return p;
}

constexpr bool round_trips() {
  const program p = kernel();
  const auto bin = serialize(p);
  if (!bin.ok() || !is_binary(bin.value)) return false;
  const auto back = deserialize(bin.value);
  if (!back.ok() || !structurally_equal(p, back.value) || !(back.value.file == p.file)) return false;
  const function& f = back.value.functions[0];
  return f.name_of(f.params[1].value) == "Out" && f.loc_of(f.ops_of(f.body)[2]) == location{4, 3};
}
static_assert(round_trips());

constexpr bool rejects_a_wrong_version() {
  auto bin = serialize(kernel()).value;
  bin[2 + binary_magic.size()] = 0x02;  // the version fixint after the magic
  const auto back = deserialize(bin);
  return !back.ok() && back.errors[0].message.view().find("unsupported binary IR version 2") != std::string_view::npos;
}
static_assert(rejects_a_wrong_version());

constexpr bool rejects_truncations() {
  const auto bin = serialize(kernel()).value;
  for (const std::size_t n : {std::size_t{0}, std::size_t{5}, bin.size() / 2, bin.size() - 1}) {
    const std::vector<std::uint8_t> cut(bin.begin(), bin.begin() + static_cast<std::ptrdiff_t>(n));
    if (deserialize(cut).ok()) return false;
  }
  return true;
}
static_assert(rejects_truncations());
}  // namespace
