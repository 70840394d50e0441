// SPDX-License-Identifier: Apache-2.0
/// @file emit_test.cpp
/// PTO-AS emission through the API: a constant-evaluated emission compared with its exact text
/// (`emit_pto<>`, the template: this TU links the compiled library, whose `emit_pto` is run time only),
/// every example kernel that lowers (each planner, both forms), emission after a binary round
/// trip, and the fail-closed paths (Tile stage, orchestration, invalid Buffer IR, preflight).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/text/parse.hpp"

using namespace tile2buffer;

namespace {

/// load -> muls (literal) -> store on two addressed allocations.
constexpr program small_kernel(ir_stage stage) {
  function_builder b(function_kind::aiv, "k", location{1, 1});
  const value_id a = b.param("A", tensor_type(16, 32, dtype::fp32), direction::in);
  const value_id out = b.param("Out", tensor_type(16, 32, dtype::fp32), direction::out);
  const value_id x =
      b.emit1(opcode::buffer_alloc, {b.tuple({}), operand::integer(0)}, buffer_type(16, 32, dtype::fp32), "x", location{2, 3});
  const value_id y =
      b.emit1(opcode::buffer_alloc, {b.tuple({}), operand::integer(2048)}, buffer_type(16, 32, dtype::fp32), "y", location{3, 3});
  b.emit0(opcode::buffer_load, {operand::of(a), b.pair(0, 0), b.pair(16, 32), operand::of(x)}, location{4, 3});
  b.emit0(opcode::buffer_muls, {operand::of(x), operand::decimal(5, -1), operand::of(y)}, location{5, 3});
  b.emit0(opcode::buffer_store, {operand::of(y), b.pair(0, 0), b.pair(16, 32), operand::of(out)}, location{6, 3});
  b.emit0(opcode::cf_return, {operand::of(out)}, location{7, 3});
  b.result_type(tensor_type(16, 32, dtype::fp32));
  b.fn().stage = stage;
  program p;
  p.functions.push_back(b.finish());
  return p;
}

#define T2B_TB                                                                                  \
  "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, " \
  "slayout=none_box, fractal=512, pad=0>"
constexpr std::string_view small_kernel_pto =
    "// tile2buffer: check with --pto-level=level3 (every pto.alloc_tile has an addr)\n"
    "module attributes {pto.target_arch = \"a3\"} {\n"
    "  func.func @k(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>) attributes {pto.kernel_kind = "
    "#pto.kernel_kind<vector>} {\n"
    "    %c16 = arith.constant 16 : index\n"
    "    %c32 = arith.constant 32 : index\n"
    "    %c1 = arith.constant 1 : index\n"
    "    %c0_i64 = arith.constant 0 : i64\n"
    "    %c2048_i64 = arith.constant 2048 : i64\n"
    "    %c0 = arith.constant 0 : index\n"
    "    %cst = arith.constant 0.5 : f32\n"
    "    %tv0 = pto.make_tensor_view %arg0, shape = [%c16, %c32], strides = [%c32, %c1] : "
    "!pto.tensor_view<?x?xf32>\n"
    "    %tv1 = pto.make_tensor_view %arg1, shape = [%c16, %c32], strides = [%c32, %c1] : "
    "!pto.tensor_view<?x?xf32>\n"
    "    %x = pto.alloc_tile addr = %c0_i64 : " T2B_TB "\n"
    "    %y = pto.alloc_tile addr = %c2048_i64 : " T2B_TB "\n"
    "    %pv = pto.partition_view %tv0, offsets = [%c0, %c0], sizes = [%c16, %c32] : !pto.tensor_view<?x?xf32> -> "
    "!pto.partition_tensor_view<16x32xf32>\n"
    "    pto.tload ins(%pv : !pto.partition_tensor_view<16x32xf32>) outs(%x : " T2B_TB ")\n"
    "    pto.tmuls ins(%x, %cst : " T2B_TB ", f32) outs(%y : " T2B_TB ")\n"
    "    %pv_0 = pto.partition_view %tv1, offsets = [%c0, %c0], sizes = [%c16, %c32] : !pto.tensor_view<?x?xf32> -> "
    "!pto.partition_tensor_view<16x32xf32>\n"
    "    pto.tstore ins(%y : " T2B_TB ") outs(%pv_0 : !pto.partition_tensor_view<16x32xf32>)\n"
    "    return\n"
    "  }\n"
    "}\n";
#undef T2B_TB

constexpr bool emits_exactly() {
  const auto r = emit_pto<>(small_kernel(ir_stage::buffer));
  return r.ok() && r.value.view() == small_kernel_pto;
}
static_assert(emits_exactly(), "constant-evaluated PTO emission of the small kernel");

// The generic form prints what MLIR's printer prints for the real ops: tload's six operand
// segments, tstore's four and its materialised default properties (sorted by name), and no
// properties on tmuls, which has none; the module's target is a discardable attribute.
#define T2B_TB                                                                                  \
  "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, " \
  "slayout=none_box, fractal=512, pad=0>"
constexpr std::string_view small_kernel_generic_ops[] = {
    "    \"pto.tload\"(%pv, %x) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>}> : "
    "(!pto.partition_tensor_view<16x32xf32>, " T2B_TB ") -> ()\n",
    "    \"pto.tmuls\"(%x, %cst, %y) : (" T2B_TB ", f32, " T2B_TB ") -> ()\n",
    "    \"pto.tstore\"(%y, %pv_0) <{atomicType = #pto<atomic_type atomic_none>, operandSegmentSizes = array<i32: 1, 1, 0, "
    "0>, reluPreMode = #pto<relu_pre_mode no_relu>, stPhase = #pto<st_phase unspecified>}> : (" T2B_TB
    ", !pto.partition_tensor_view<16x32xf32>) -> ()\n",
    "}) {pto.target_arch = \"a5\"} : () -> ()\n",
};
#undef T2B_TB
constexpr bool emits_generic_exactly(const program& p, std::span<const std::string_view> ops) {
  const auto r = emit_pto<>(p, pto_options{.generic = true, .target = target_arch::a5});
  if (!r.ok()) return false;
  for (const std::string_view op : ops)
    if (r.value.view().find(op) == std::string_view::npos) return false;
  return true;
}
/// load -> store through one allocation: small enough for clang's constant-evaluation step limit
/// in the generic form (the small kernel's generic form is checked at run time below).
constexpr program copy_kernel() {
  function_builder b(function_kind::aiv, "k", location{1, 1});
  const value_id a = b.param("A", tensor_type(16, 32, dtype::fp32), direction::in);
  const value_id out = b.param("Out", tensor_type(16, 32, dtype::fp32), direction::out);
  const value_id y =
      b.emit1(opcode::buffer_alloc, {b.tuple({}), operand::integer(2048)}, buffer_type(16, 32, dtype::fp32), "y", location{2, 3});
  b.emit0(opcode::buffer_load, {operand::of(a), b.pair(0, 0), b.pair(16, 32), operand::of(y)}, location{3, 3});
  b.emit0(opcode::buffer_store, {operand::of(y), b.pair(0, 0), b.pair(16, 32), operand::of(out)}, location{4, 3});
  b.emit0(opcode::cf_return, {operand::of(out)}, location{5, 3});
  b.result_type(tensor_type(16, 32, dtype::fp32));
  b.fn().stage = ir_stage::buffer;
  program p;
  p.functions.push_back(b.finish());
  return p;
}
#define T2B_TB                                                                                  \
  "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, " \
  "slayout=none_box, fractal=512, pad=0>"
constexpr std::string_view copy_kernel_generic_ops[] = {
    "    \"pto.tload\"(%pv, %y) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>}> : "
    "(!pto.partition_tensor_view<16x32xf32>, " T2B_TB ") -> ()\n",
    "    \"pto.tstore\"(%y, %pv_0) <{atomicType = #pto<atomic_type atomic_none>, operandSegmentSizes = array<i32: 1, 1, 0, "
    "0>, reluPreMode = #pto<relu_pre_mode no_relu>, stPhase = #pto<st_phase unspecified>}> : (" T2B_TB
    ", !pto.partition_tensor_view<16x32xf32>) -> ()\n",
    "}) {pto.target_arch = \"a5\"} : () -> ()\n",
};
#undef T2B_TB
static_assert(emits_generic_exactly(copy_kernel(), copy_kernel_generic_ops),
              "constant-evaluated generic PTO emission of the copy kernel");

constexpr bool rejects_tile_stage() {
  const auto r = emit_pto<>(small_kernel(ir_stage::tile));
  return !r.ok() && r.errors[0].message.view().find("Tile-stage kernel") != std::string_view::npos;
}
static_assert(rejects_tile_stage());

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
std::string str(const text& t) { return std::string(t.view()); }
std::size_t count(std::string_view hay, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string_view::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the constant-evaluated emission also holds at run time") {
  const auto r = emit_pto(small_kernel(ir_stage::buffer));
  REQUIRE(r.ok());
  CHECK(str(r.value) == std::string(small_kernel_pto));
  CHECK(emits_generic_exactly(small_kernel(ir_stage::buffer), small_kernel_generic_ops));
  CHECK(emits_generic_exactly(copy_kernel(), copy_kernel_generic_ops));
}

TEST_CASE("one PTO module has one level: addresses on every allocation or on none") {
  const auto parsed = parse(
      R"(aiv @k(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], Out2: out Tensor[[16, 32], FP32]) -> (Tensor[[16, 32], FP32], Tensor[[16, 32], FP32]) attributes {stage = buffer} {
  a = buffer.alloc((), 0) : Buffer[[16, 32], FP32, Vec]
  b = buffer.alloc(()) : Buffer[[16, 32], FP32, Vec]
  buffer.load(X, (0, 0), (16, 32), a)
  buffer.store(a, (0, 0), (16, 32), Out)
  buffer.load(X, (0, 0), (16, 32), b)
  buffer.store(b, (0, 0), (16, 32), Out2)
  return Out, Out2
}
)",
      "k.t2b");
  REQUIRE(parsed.ok());
  const auto r = emit_pto(parsed.value);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].loc == location{3, 3});
  CHECK(str(r.errors[0].message).find("@k: buffer.alloc 'b' has no address but 'a' (@k) has one") == 0);
  REQUIRE(r.errors[0].notes.size() == 1);
  CHECK(r.errors[0].notes[0].loc == location{2, 3});
}

TEST_CASE("the module's target: the option, or the kernels' own, which must agree") {
  program p = small_kernel(ir_stage::buffer);
  const auto a5 = emit_pto(p, pto_options{.target = target_arch::a5});
  REQUIRE(a5.ok());
  CHECK(str(a5.value).find("\nmodule attributes {pto.target_arch = \"a5\"} {\n") != std::string::npos);
  p.functions[0].target = target_arch::a5;
  const auto own = emit_pto(p);
  REQUIRE(own.ok());
  CHECK(str(own.value).find("\nmodule attributes {pto.target_arch = \"a5\"} {\n") != std::string::npos);
  const auto parsed = parse(
      R"(aiv @k(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] attributes {stage = buffer} {
  return Out
}
aiv @k5(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] attributes {stage = buffer, target = a5} {
  return Out
}
)",
      "two.t2b");
  REQUIRE(parsed.ok());
  const auto mixed = emit_pto(parsed.value);
  REQUIRE_FALSE(mixed.ok());
  CHECK(mixed.errors[0].loc.line == 4);
  CHECK(str(mixed.errors[0].message).find("@k5 is for target a5 but @k for a2a3") == 0);
  CHECK(emit_pto(parsed.value, pto_options{.kernel = "k5"}).ok());
}

TEST_CASE("every example kernel that lowers emits, in both forms, for each planner") {
  int emitted = 0;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(T2B_EXAMPLES_DIR))
    if (e.path().extension() == ".t2b") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const auto parsed = parse(read_file(path), path.filename().string());
    REQUIRE(parsed.ok());
    for (const planner_kind planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas}) {
      const auto lowered = lower(parsed.value, options{.planner = planner});
      if (!lowered.ok()) continue;
      for (const function& f : lowered.value.functions) {
        if (!f.is_device() || f.stage != ir_stage::buffer) continue;
        INFO(path.filename().string() << " @" << f.name_of() << " " << name(planner));
        const auto custom = emit_pto(lowered.value, pto_options{.generic = false, .kernel = f.name_of()});
        REQUIRE_MESSAGE(custom.ok(), str(format_all(custom.errors, "")));
        const auto generic = emit_pto(lowered.value, pto_options{.generic = true, .kernel = f.name_of()});
        REQUIRE(generic.ok());
        CHECK(count(custom.value.view(), "func.func @") == 1);
        CHECK(count(generic.value.view(), "\"func.func\"()") == 1);
        // `addr` exactly when the planner gave one (inputs already at Buffer stage keep theirs).
        const function* input = parsed.value.find(f.name_of());
        REQUIRE(input != nullptr);
        if (input->stage == ir_stage::tile) {
          const bool addressed = planner != planner_kind::ptoas;
          CHECK((count(custom.value.view(), "pto.alloc_tile addr = ") > 0) == addressed);
        }
        // The same program after a binary round trip emits the same text.
        const auto bin = serialize(lowered.value);
        REQUIRE(bin.ok());
        const auto back = deserialize(bin.value);
        REQUIRE(back.ok());
        const auto again = emit_pto(back.value, pto_options{.generic = false, .kernel = f.name_of()});
        REQUIRE(again.ok());
        CHECK(str(again.value) == str(custom.value));
        ++emitted;
      }
    }
  }
  CHECK(emitted >= 9);  // 01, 02 (@add_mul) and 03 lower today, three planners each
}

TEST_CASE("invalid Buffer IR is a hard failure before any preflight") {
  program p = small_kernel(ir_stage::buffer);
  // Point the store at the in-parameter's dtype-mismatched twin: the verifier rejects it.
  function_builder b(function_kind::aiv, "bad", location{9, 1});
  const value_id a = b.param("A", tensor_type(16, 32, dtype::fp16), direction::in);
  const value_id x = b.emit1(opcode::buffer_alloc, {b.tuple({})}, buffer_type(16, 32, dtype::fp32), "x", location{10, 3});
  b.emit0(opcode::buffer_load, {operand::of(a), b.pair(0, 0), b.pair(16, 32), operand::of(x)}, location{11, 3});
  b.emit0(opcode::cf_return, {}, location{12, 3});
  b.fn().stage = ir_stage::buffer;
  p.functions.push_back(b.finish());
  const auto r = emit_pto(p);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.errors.size() >= 1);
  CHECK(r.errors[0].source == "emit-pto");
  CHECK(str(r.errors[0].message).find("Invalid Buffer IR (verify): ") == 0);
  CHECK(r.errors[0].loc.line == 11);
  CHECK(r.value.empty());
}

TEST_CASE("preflight diagnostics are located and name the kernel") {
  const auto parsed = parse(
      R"(aiv @k(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] attributes {stage = buffer} {
  b = buffer.alloc(()) : Buffer[[16, 32], FP32, Vec]
  buffer.load(Out, (0, 0), (16, 32), b)
  buffer.store(b, (0, 0), (16, 32), X)
  return Out
}
)",
      "k.t2b");
  REQUIRE(parsed.ok());
  const auto errors = check_pto(parsed.value, parsed.value.functions[0]);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].loc == location{3, 3});
  CHECK(str(errors[0].message) ==
        "@k: buffer.load cannot read 'Out', an out parameter (parameter direction out: the kernel only writes it)");
  CHECK(errors[1].loc == location{4, 3});
  CHECK(str(errors[1].message) ==
        "@k: buffer.store cannot write 'X', an in parameter (parameter direction in: the kernel only reads it)");
}
