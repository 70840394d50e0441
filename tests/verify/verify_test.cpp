// SPDX-License-Identifier: Apache-2.0
/// @file tests/verify/verify_test.cpp
/// Doctest cases for the IR verifier: the valid kernels verify clean, and each flaw (one broken
/// rule on an otherwise valid kernel) reports its rule at the op's location.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels.hpp"
#include "tile2buffer/checks/buffer.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/rewriter.hpp"

using namespace tile2buffer;
using namespace verify_test;

namespace {

using kernel_fn = function (*)(flaw);

struct rule_case {
  const char* rule;
  kernel_fn kernel;
  flaw broken;
  const char* message;
  location loc;
};

std::string dump(const std::vector<diagnostic>& ds) { return std::string(format_all(ds, "k.t2b").view()); }

// One row per rule: the kernel, the flaw that breaks the rule, the expected message and location.
const rule_case rule_cases[] = {
    // SSA
    {"use before def", add_kernel, flaw::use_before_def, "use of 'result' before its definition", at(7)},
    {"not visible", branch_kernel, flaw::use_other_region, "'product' is not visible here (defined in another region)", at(9)},
    {"unknown value", add_kernel, flaw::unknown_value, "use of unknown value %9999", at(7)},
    {"type ref before def", runtime_valid_kernel, flaw::valid_before_def, "use of 'cols' before its definition", at(2)},
    {"double definition", add_kernel, flaw::double_definition, "value 'total' is defined more than once", at(8)},
    // operand kinds and arity
    {"operand count", add_kernel, flaw::missing_operand, "tile.add expects 2 operand(s), got 1", at(7)},
    {"pair operand", add_kernel, flaw::pair_kind, "tile.load operand 1 must be a pair (a, b)", at(5)},
    {"void op result", buffer_kernel, flaw::buffer_add_result, "buffer.add must not have results", at(13)},
    {"keyword", add_kernel, flaw::bad_keyword, "tile.add does not accept keyword 'addr'", at(7)},
    // tile types
    {"elementwise dtypes", add_kernel, flaw::add_dtype, "tile.add operands must have matching dtypes", at(7)},
    {"scalar form", tile_ops_kernel, flaw::adds_scalar, "tile.muls operand 1 must be a scalar", at(4)},
    {"load dtype", add_kernel, flaw::load_dtype, "tile.load result dtype must equal the tensor dtype", at(6)},
    {"load extents", add_kernel, flaw::load_extents, "tile.load shape operand must equal the tile's physical shape", at(5)},
    {"load window", add_kernel, flaw::load_window, "tile.load window must lie within the tensor", at(6)},
    {"store result", add_kernel, flaw::store_result, "tile.store result type must equal the tensor operand's type", at(8)},
    {"move", tile_ops_kernel, flaw::move_shape, "tile.move result must have the source's shape and dtype", at(7)},
    {"slice shape", tile_ops_kernel, flaw::slice_shape, "tile.slice shape must be static and equal the result shape", at(3)},
    {"slice fit", tile_ops_kernel, flaw::slice_fit, "tile.slice window must lie within the source", at(3)},
    {"assemble", tile_ops_kernel, flaw::assemble_result, "tile.assemble result must have the target's shape and dtype", at(6)},
    {"matmul spaces", cube_kernel, flaw::matmul_spaces, "tile.matmul operands must be Left x Right -> Acc", at(11)},
    {"matmul shapes", cube_kernel, flaw::matmul_shapes, "tile.matmul shapes must be [M, K] x [K, N] -> [M, N]", at(11)},
    {"matmul_acc", cube_kernel, flaw::matmul_acc_type, "tile.matmul_acc accumulator must have the result's type", at(12)},
    {"reduction", tile_ops_kernel, flaw::row_sum_shape, "tile.row_sum result must be [R, 1]", at(8)},
    {"spmd query", tile_ops_kernel, flaw::spmd_result, "tile.get_block_idx result must be Scalar[INDEX]", at(9)},
    {"alloc capacity", add_kernel, flaw::alloc_capacity, "planned tile.alloc capacity must be a positive static byte count",
     at(3)},
    {"alloc addr", add_kernel, flaw::alloc_addr,
     "tile.alloc requires nonnegative placed addresses: addr must be a nonnegative integer literal", at(3)},
    {"storage alloc", add_kernel, flaw::storage_not_alloc, "storage of 'lhs' must name a tile.alloc result", at(5)},
    {"storage space", add_kernel, flaw::storage_space,
     "storage of 'total' must be in its memory space Vec, but 'mem_r' is a Mat allocation", at(7)},
    {"storage capacity", add_kernel, flaw::storage_capacity,
     "storage of 'total' (2048 bytes at offset 0) exceeds the capacity 1024 of 'mem_r'", at(7)},
    // scalar types
    {"scalar dtypes", branch_kernel, flaw::scalar_dtypes, "scalar.lt operands must have the same dtype", at(4)},
    {"compare result", branch_kernel, flaw::compare_result, "scalar.lt result must be BOOL", at(4)},
    {"cast result", runtime_valid_kernel, flaw::cast_result, "cast result dtype must equal its dtype operand", at(3)},
    // regions
    {"if condition", branch_kernel, flaw::if_cond, "if condition must be a BOOL scalar", at(5)},
    {"if arms", branch_kernel, flaw::if_one_arm, "if must own 2 region(s), has 1", at(5)},
    {"yield count", branch_kernel, flaw::yield_count, "yield must yield 2 value(s) to match the if results, got 1", at(7)},
    {"yield type", branch_kernel, flaw::yield_type, "yield operand 1 must have the type of if result 1", at(7)},
    {"for bounds", loop_kernel, flaw::for_bounds, "for bounds (start, stop, step) must be integer scalars", at(3)},
    {"for carries", loop_kernel, flaw::for_carry, "for iteration value 1 must have the same type as its init and result", at(3)},
    {"while condition", loop_kernel, flaw::while_cond, "yield in a while condition region must yield one BOOL", at(8, 30)},
    {"yield last", branch_kernel, flaw::yield_not_last, "yield must be the last op of its region", at(7)},
    {"return placement", branch_kernel, flaw::return_in_region, "return is only allowed in the function body", at(7)},
    {"return type", branch_kernel, flaw::return_type, "return operand 0 must have the function's result type", at(10)},
    {"missing return", add_kernel, flaw::missing_return, "", {}},  // no results declared: must stay valid
    // stage membership and function rules
    {"tile param", add_kernel, flaw::tile_param, "device function '@add' cannot take Tile parameter 'B'", at(1, 20)},
    {"direction", add_kernel, flaw::scalar_direction, "parameter 'n' has a direction but only tensor parameters take one",
     at(1, 40)},
    {"tile op in buffer stage", buffer_kernel, flaw::tile_op_in_buffer, "tile.create is not allowed in a Buffer-stage function",
     at(14)},
    {"buffer op in tile stage", add_kernel, flaw::buffer_op_in_tile,
     "buffer.get_block_idx is not allowed in a Tile-stage function", at(8, 40)},
    {"tile value in buffer stage", buffer_kernel, flaw::tile_value_in_buffer,
     "Tile value 'bad' is not allowed in a Buffer-stage function", at(9)},
    // buffer types
    {"buffer.alloc valid", buffer_kernel, flaw::buffer_alloc_valid,
     "buffer.alloc valid tuple must have one entry per runtime ('?') dim", at(4)},
    {"buffer elementwise", buffer_kernel, flaw::buffer_add_descriptor,
     "buffer.add operands must have descriptors identical to the destination", at(13)},
    {"buffer.load", buffer_kernel, flaw::buffer_load_dtype, "buffer.load buffer dtype must match the tensor dtype", at(11)},
    {"buffer.copy", buffer_kernel, flaw::buffer_copy_spaces, "buffer.copy supports Vec -> Vec and Mat -> Left/Right only",
     at(12)},
    {"buffer.subview", buffer_kernel, flaw::subview_fit, "buffer.subview offsets must keep the window within the source", at(6)},
    {"buffer.reshape", buffer_kernel, flaw::reshape_bytes, "buffer.reshape must preserve the total bytes", at(7)},
};

}  // namespace

TEST_CASE("valid kernels verify clean") {
  for (kernel_fn k :
       {add_kernel, tile_ops_kernel, cube_kernel, branch_kernel, loop_kernel, runtime_valid_kernel, buffer_kernel}) {
    const auto ds = verify(single(k(flaw::none)));
    CHECK_MESSAGE(ds.empty(), dump(ds));
  }
  const auto ds = verify(orchestrated());
  CHECK_MESSAGE(ds.empty(), dump(ds));
  // Elementwise operands and result may differ in valid extents (or physical shape): valid Tile
  // IR that does not qualify for lowering, so selection keeps it Tile rather than the verifier
  // rejecting the program.
  const auto mismatched = verify(single(add_kernel(flaw::add_shape)));
  CHECK_MESSAGE(mismatched.empty(), dump(mismatched));
}

TEST_CASE("each rule reports its message at the op's location") {
  for (const auto& c : rule_cases) {
    const auto ds = verify(single(c.kernel(c.broken)));
    INFO("rule: " << c.rule << "\n" << dump(ds));
    if (c.message[0] == '\0') CHECK(ds.empty());
    else CHECK(reports(ds, c.message, c.loc));
  }
}

namespace {
// Each diagnostic as `source line:column message`, sorted: a function checked as it is written
// reports a region's contents before its op, so only the order may differ.
std::vector<std::string> sorted_lines(std::vector<diagnostic> ds) {
  std::vector<std::string> lines;
  for (const diagnostic& d : ds)
    lines.push_back(std::string(d.source.view()) + " " + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + " " +
                    std::string(d.message.view()));
  std::sort(lines.begin(), lines.end());
  return lines;
}
}  // namespace

TEST_CASE("a function checked as a builder writes it gets the diagnostics of the finished function's walk") {
  // A rewriter writes a copy of each flawed kernel as lower writes its output: regions before
  // their op, storage after its value. The SSA flaws name values a copy cannot map; the walk's
  // own tests cover them, and a builder cannot write them.
  const std::string_view unmappable[] = {"use before def", "not visible", "unknown value", "type ref before def",
                                         "double definition"};
  std::size_t flagged = 0;
  for (const auto& c : rule_cases) {
    if (std::find(std::begin(unmappable), std::end(unmappable), std::string_view(c.rule)) != std::end(unmappable)) continue;
    const function f = c.kernel(c.broken);
    rewriter rw(f);
    detail::written_buffer_check check(rw.builder().fn());
    rw.builder().observe(&check);
    rw.clone_ops(f.body);
    program p;
    p.functions.push_back(rw.finish());
    written_check_result written = check.result(p.functions[0]);
    std::vector<diagnostic> streamed = written.structural;
    for (diagnostic& d : written.proofs) streamed.push_back(d);
    std::vector<diagnostic> walked = buffer_errors(p);
    for (diagnostic& d : walked) d.function = text();
    INFO("rule: " << std::string(c.rule) << "\nwritten:\n" << dump(streamed) << "walked:\n" << dump(walked));
    CHECK(sorted_lines(streamed) == sorted_lines(walked));
    flagged += streamed.empty() ? 0 : 1;
  }
  CHECK(flagged >= 40);  // the comparison saw the flaws, not only clean copies
}

namespace {
// `f` was written with `check` observing it: what it found equals what the walk finds, which
// includes `message` at `loc`.
void check_written_as_walked(function f, detail::written_buffer_check& check, std::string_view message, location loc) {
  program p;
  p.functions.push_back(std::move(f));
  const written_check_result written = check.result(p.functions[0]);
  std::vector<diagnostic> walked = verify(p);
  for (diagnostic& d : walked) d.function = text();
  INFO("written:\n" << dump(written.structural) << "walked:\n" << dump(walked));
  CHECK(reports(walked, message, loc));
  CHECK(sorted_lines(written.structural) == sorted_lines(walked));
}
}  // namespace

TEST_CASE("checked as written: a region arg's storage and an arm never opened are reported as the walk reports them") {
  // A loop's Tile carry placed in a parameter: the walk reports it at the loop's line.
  {
    function f = loop_kernel(flaw::none);
    const value_id left = f.arg(f.region_of(f.ops_of(f.body)[1], 0), 1);
    f.storage[left.index] = value_storage{f.params[0].value, 0};
    rewriter rw(f);
    detail::written_buffer_check check(rw.builder().fn());
    rw.builder().observe(&check);
    rw.clone_ops(f.body);
    check_written_as_walked(rw.finish(), check, "storage of 'left' must name a tile.alloc result", at(3));
  }
  // An if whose else arm was reserved but never opened: empty, so it yields nothing.
  {
    function_builder b(function_kind::aiv, "k", at(1, 1));
    const value_id n = b.param("n", index_t(), direction::in, at(1, 10));
    detail::written_buffer_check check(b.fn());
    b.observe(&check);
    const value_id c = b.emit1(opcode::scalar_lt, {operand::of(n), operand::integer(3)}, scalar_type(dtype::bool_), "c", at(2));
    const region_id arms = b.reserve_regions(2);
    b.open_region(arms, {}, {});
    b.emit0(opcode::cf_yield, {operand::of(n)}, at(4));
    b.close_region();
    const type results[] = {index_t()};
    const std::string_view names[] = {"x"};
    const operand cond[] = {operand::of(c)};
    b.emit(opcode::cf_if, cond, {}, results, names, at(3), span32{arms.index, 2});
    b.emit0(opcode::cf_return, {}, at(6));
    check_written_as_walked(b.finish(), check, "if region must end with a yield of 1 value(s)", at(3));
  }
}

TEST_CASE("operand counts are read from the decoded signature: optional and variadic forms") {
  // tile.load is "vppp?" (3 to 4 operands), for is "sss*" (3 or more).
  function_builder b(function_kind::aiv, "k", at(1));
  const value_id x = b.param("x", fp32_tensor());
  const operand p = b.pair(0, 0);
  b.emit1(opcode::tile_load, {operand::of(x), p, p, p, p}, fp32_tile(), "t", at(2));
  b.emit(opcode::cf_for, std::vector<operand>{operand::integer(0), operand::integer(4)}, {}, {}, {}, at(3));
  b.emit1(opcode::tile_load, {operand::of(x), p, b.pair(16, 32), p}, fp32_tile(), "u", at(4));
  const auto ds = verify(single(b.finish()));
  INFO(dump(ds));
  CHECK(reports(ds, "tile.load expects 3 to 4 operand(s), got 5", at(2)));
  CHECK(reports(ds, "for expects 3 or more operand(s), got 2", at(3)));
  // Four operands are within "vppp?": line 4 reports no operand count.
  for (const auto& d : ds)
    CHECK_FALSE((d.loc == at(4) && std::string_view(d.message.view()).find("expects") != std::string_view::npos));
}

TEST_CASE("a function with results must end with return") {
  function f = add_kernel(flaw::missing_return);
  f.results.push_back(fp32_tensor());
  const auto ds = verify(single(std::move(f)));
  CHECK(reports(ds, "function '@add' must end with a return of its 1 result(s)", at(1, 1)));
}

TEST_CASE("orchestration rules") {
  CHECK(reports(verify(orchestrated(orch_flaw::tile_op)), "tile.create is not allowed in an orchestration function", at(42)));
  CHECK(reports(verify(orchestrated(orch_flaw::submit_in_device)), "submit is only allowed in orchestration functions", at(33)));
  CHECK(reports(verify(orchestrated(orch_flaw::unknown_callee)), "submit callee '@nope' is not defined", at(41)));
  CHECK(reports(verify(orchestrated(orch_flaw::callee_not_device)), "submit callee '@main' is not a device function", at(41)));
  CHECK(reports(verify(orchestrated(orch_flaw::arg_count)), "submit @add expects 4 arguments, got 3", at(41)));
  CHECK(reports(verify(orchestrated(orch_flaw::arg_type)),
                "submit @add argument 1 must be a tensor of the parameter's shape and dtype", at(41)));
  CHECK(reports(verify(orchestrated(orch_flaw::dep_not_task)), "submit dependencies must be task values", at(43)));
  CHECK(reports(verify(orchestrated(orch_flaw::duplicate_name)), "duplicate function name '@add'", at(20, 1)));
}

TEST_CASE("every error is collected, not only the first") {
  // Both tile.add operands are broken and the store result type too: three distinct reports.
  function f = add_kernel(flaw::store_result);
  type lhs = f.type_of(f.result(op_id{3}));  // lhs = tile.load(A, ...)
  lhs.dt = dtype::fp16;
  f.retype(f.result(op_id{3}), lhs);
  const auto ds = verify(single(std::move(f)));
  CHECK(reports(ds, "tile.store result type must equal the tensor operand's type", at(8)));
  CHECK(reports(ds, "tile.add operands must have matching dtypes", at(7)));
  CHECK(reports(ds, "tile.load result dtype must equal the tensor dtype", at(5)));
}

TEST_CASE("values sharing a flawed type each get its diagnostic (a type is remembered only once it passed)") {
  function f = add_kernel(flaw::none);
  type flat = f.type_of(f.result(op_id{3}));
  flat.shape = {0, flat.shape[1]};
  flat.valid = {extent::of(0), flat.valid[1]};
  f.retype(f.result(op_id{3}), flat);
  f.values[f.result(op_id{4}).index].ty = f.values[f.result(op_id{3}).index].ty;  // one interned type
  const auto ds = verify(single(std::move(f)));
  CHECK(reports(ds, "value 'lhs' must have a positive shape", at(5)));
  CHECK(reports(ds, "value 'rhs' must have a positive shape", at(6)));
}

TEST_CASE("the single-function overload resolves callees through the program") {
  const program p = orchestrated(orch_flaw::arg_count);
  CHECK(verify(p, p.functions[0]).empty());
  CHECK(reports(verify(p, p.functions[2]), "submit @add expects 4 arguments, got 3", at(41)));
}

TEST_CASE("a while condition may end in its comparison") {
  function f = loop_kernel();
  // Drop the condition region's trailing yield: the comparison's BOOL result is the condition.
  for (auto& r : f.regions)
    if (r.args.count == 1 && r.ops.count == 2 && f.ops[f.region_ops[r.ops.begin].index].code() == opcode::scalar_lt) {
      r.ops.count = 1;
    }
  const auto ds = verify(single(std::move(f)));
  CHECK_MESSAGE(ds.empty(), dump(ds));
}

TEST_CASE("malformed IR gives diagnostics, never a crash") {
  SUBCASE("op id out of range") {
    function f = add_kernel();
    f.region_ops[0] = op_id{12345};
    CHECK(reports(verify(single(std::move(f))), "region lists unknown op #12345"));
  }
  SUBCASE("operand range out of bounds") {
    function f = add_kernel();
    f.ops[5].args = span32{100000, 2};
    CHECK(reports(verify(single(std::move(f))), "tile.add has malformed operand, keyword, result or region ranges", at(7)));
  }
  SUBCASE("region id out of range") {
    function f = branch_kernel();
    for (auto& n : f.ops)
      if (n.code() == opcode::cf_if) n.regions_begin = 999;
    CHECK_FALSE(verify(single(std::move(f))).empty());
  }
  SUBCASE("op listed twice") {
    function f = add_kernel();
    f.region_ops[1] = f.region_ops[0];
    CHECK(reports(verify(single(std::move(f))), "is listed in more than one region"));
  }
  SUBCASE("region owned twice (a cycle)") {
    function f = branch_kernel();
    // The then-arm's first op becomes an if owning the function body: must not loop forever.
    for (auto& n : f.ops)
      if (n.code() == opcode::cf_if) n.regions_begin = f.body.index;
    CHECK_FALSE(verify(single(std::move(f))).empty());
  }
  SUBCASE("tuple pointing outside the pool and wrong operand kinds") {
    function f = add_kernel();
    f.operands[f.operands.size() - 1] = operand{operand_kind::tuple, 0, 4000000000u, 7};
    f.operands[0] = operand{operand_kind::dtype, 0, no_id, 99};
    CHECK_FALSE(verify(single(std::move(f))).empty());
  }
  SUBCASE("value types with invalid enums") {
    function f = add_kernel();
    type a = f.type_of(value_id{0});
    a.dt = static_cast<dtype>(77);
    f.retype(value_id{0}, a);
    type b = f.type_of(value_id{1});
    b.kind = static_cast<type_kind>(42);
    f.retype(value_id{1}, b);
    CHECK(reports(verify(single(std::move(f))), "value 'A' has an invalid type", at(1, 10)));
  }
  SUBCASE("a value without a name or storage entry, or with an unknown type id") {
    function f = add_kernel();
    f.values[2].ty = type_id{static_cast<std::uint32_t>(f.types.size())};
    CHECK(
        reports(verify(single(std::move(f))), "has values without a name or storage entry or with an unknown type id", at(1, 1)));
    function g = add_kernel();
    g.value_names.pop_back();
    CHECK(
        reports(verify(single(std::move(g))), "has values without a name or storage entry or with an unknown type id", at(1, 1)));
    function h = add_kernel();
    h.storage.pop_back();
    CHECK(
        reports(verify(single(std::move(h))), "has values without a name or storage entry or with an unknown type id", at(1, 1)));
  }
  SUBCASE("an op without a location entry") {
    function f = add_kernel();
    f.op_locs.pop_back();
    CHECK(reports(verify(single(std::move(f))), "has ops without a location entry", at(1, 1)));
  }
  SUBCASE("no body") {
    function f;
    CHECK(reports(verify(single(std::move(f))), "reference to unknown region"));
  }
}

TEST_CASE("region scoping: a while body sees its own args but not the condition region's values") {
  function_builder b(function_kind::aiv, "scopes", at(1, 1));
  const value_id limit = b.param("limit", index_t(), direction::in, at(1, 10));
  const region_id wr = b.reserve_regions(2);
  const type wt[] = {index_t()};
  const std::string_view cond_names[] = {"k"};
  b.open_region(wr, wt, cond_names);
  const value_id c =
      b.emit1(opcode::scalar_lt, {operand::of(b.fn().arg(wr, 0)), operand::of(limit)}, scalar_type(dtype::bool_), "c", at(2));
  b.emit0(opcode::cf_yield, {operand::of(c)}, at(2, 20));
  b.close_region();
  const region_id body{wr.index + 1};
  const std::string_view body_names[] = {"k2"};
  b.open_region(body, wt, body_names);
  b.emit1(opcode::scalar_not, {operand::of(c)}, scalar_type(dtype::bool_), "stale", at(3));
  const value_id next =
      b.emit1(opcode::scalar_add, {operand::of(b.fn().arg(body, 0)), operand::integer(1)}, index_t(), "next", at(4));
  b.emit0(opcode::cf_yield, {operand::of(next)}, at(5));
  b.close_region();
  const operand inits[] = {operand::integer(0)};
  const std::string_view names[] = {"k_out"};
  b.emit(opcode::cf_while, inits, {}, wt, names, at(6), span32{wr.index, 2});
  b.emit0(opcode::cf_return, {}, at(7));
  const auto ds = verify(single(b.finish()));
  CHECK(reports(ds, "'c' is not visible here (defined in another region)", at(3)));
  CHECK(ds.size() == 1);
}

TEST_CASE("deep nesting is walked without recursion") {
  function_builder b(function_kind::aiv, "deep", at(1, 1));
  const value_id flag = b.param("flag", scalar_type(dtype::bool_), direction::in, at(1, 10));
  constexpr std::uint32_t depth = 5000;
  std::vector<region_id> arms;
  for (std::uint32_t i = 0; i < depth; ++i) {
    arms.push_back(b.reserve_regions(2));
    b.open_region(arms.back(), {}, {});
  }
  // The innermost region uses the parameter: visible through every enclosing region.
  b.emit1(opcode::scalar_not, {operand::of(flag)}, scalar_type(dtype::bool_), "inner", at(2));
  for (std::uint32_t i = depth; i-- > 0;) {
    b.close_region();
    b.open_region(region_id{arms[i].index + 1}, {}, {});  // the empty else arm
    b.close_region();
    const operand cond[] = {operand::of(flag)};
    b.emit(opcode::cf_if, cond, {}, {}, {}, at(3 + i), span32{arms[i].index, 2});
  }
  const auto ds = verify(single(b.finish()));
  CHECK_MESSAGE(ds.empty(), dump(ds));
}
