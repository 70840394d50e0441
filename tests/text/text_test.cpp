// SPDX-License-Identifier: Apache-2.0
/// @file text_test.cpp
/// The .t2b parser and printer: round trips of the example kernels, the IR each construct maps
/// to, canonical printing of builder-made IR, and fail-closed behaviour on malformed input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(T2B_EXAMPLES_DIR))
    if (e.path().extension() == ".t2b") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string str(const text& t) { return std::string(t.view()); }

// The length-by-first-letter filter keeps every reserved word and rejects its near misses.
constexpr bool reserved_words_and_only_they_are_reserved() {
  for (const auto w : detail::reserved_words) {
    if (!detail::is_reserved(w)) return false;
    const std::string_view shorter = w.substr(0, w.size() - 1);
    if (!shorter.empty() && detail::is_reserved(shorter)) return false;
  }
  return !detail::is_reserved("") && !detail::is_reserved("v12") && !detail::is_reserved("inn") && !detail::is_reserved("ret") &&
         !detail::is_reserved("returns") && !detail::is_reserved("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") &&
         !detail::is_reserved("If");
}
static_assert(reserved_words_and_only_they_are_reserved());

/// The round-trip contract on one program: print, re-parse, compare structure and bytes.
void check_round_trip(const program& p, const std::string& what) {
  INFO(what);
  const text once = print(p);
  const auto again = parse(once.view(), "printed.t2b");
  REQUIRE_MESSAGE(again.ok(), str(format_all(again.errors, "printed.t2b")) << "\n" << str(once));
  CHECK(structurally_equal(p, again.value));
  CHECK(str(print(again.value)) == str(once));
}

/// Parse must fail with exactly one located diagnostic; returns it.
diagnostic one_error(std::string_view src) {
  const auto r = parse(src, "bad.t2b");
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].source == "parse");
  CHECK(r.errors[0].loc.known());
  return r.errors[0];
}

/// Every statement below runs inside this header: A is a GM tensor, n a scalar.
constexpr std::string_view head =
    "aiv @f(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], n: Scalar[INDEX], flag: Scalar[BOOL]) {\n";
std::string kernel(std::string_view body) { return std::string(head) + std::string(body) + "  return\n}\n"; }

const function& only_function(const result<program>& r) {
  REQUIRE_MESSAGE(r.ok(), str(format_all(r.errors, "")));
  REQUIRE(r.value.functions.size() == 1);
  return r.value.functions[0];
}
/// The ops of the function body, in order.
std::vector<op_id> body_ops(const function& f) {
  const auto ops = f.ops_of(f.body);
  return {ops.begin(), ops.end()};
}

}  // namespace

TEST_CASE("every example kernel parses and round-trips") {
  const auto files = example_files();
  REQUIRE(files.size() >= 11);
  for (const auto& path : files) {
    const std::string src = read_file(path);
    const auto r = parse(src, path.string());
    REQUIRE_MESSAGE(r.ok(), str(format_all(r.errors, path.string())));
    CHECK(r.value.file == path.string());
    CHECK_FALSE(r.value.functions.empty());
    check_round_trip(r.value, path.string());
  }
}

TEST_CASE("operands follow the catalogue signature") {
  const auto r = parse(kernel("  m = tile.alloc(Vec, 4096, addr = 8192)\n"
                              "  t = tile.load(A, (0, n), (16, 32)) : Tile[[16, 32], FP32, Vec] in m[64]\n"
                              "  s = tile.muls(t, 2.50) : Tile[[16, 32], FP32, Vec]\n"
                              "  c = cast(n, FP32)\n"
                              "  q = tile.div(t, s, high_precision = true) : Tile[[16, 32], FP32, Vec]\n"));
  const function& f = only_function(r);
  const auto ops = body_ops(f);
  REQUIRE(ops.size() == 6);

  const auto alloc = f.args(ops[0]);
  REQUIRE(alloc.size() == 2);
  CHECK(alloc[0] == operand::of(memory_space::vec));
  CHECK(alloc[1] == operand::integer(4096));
  REQUIRE(f.kwarg_of(ops[0], keyword::addr).has_value());
  CHECK(*f.kwarg_of(ops[0], keyword::addr) == operand::integer(8192));
  const value_id m = f.result(ops[0]);
  CHECK(f.type_of(m).kind == type_kind::mem);
  CHECK(f.name_of(m) == "m");

  const auto load = f.args(ops[1]);
  REQUIRE(load.size() == 3);
  CHECK(load[0] == operand::of(f.params[0].value));
  REQUIRE(load[1].kind == operand_kind::tuple);
  REQUIRE(f.elements(load[1]).size() == 2);
  CHECK(f.elements(load[1])[0] == operand::integer(0));
  CHECK(f.elements(load[1])[1] == operand::of(f.params[2].value));
  const type& tt = f.type_of(f.result(ops[1]));
  CHECK(tt.is_tile());
  CHECK(f.storage_of(f.result(ops[1])).mem == m);
  CHECK(f.storage_of(f.result(ops[1])).offset == 64);
  CHECK(tt == tile_type(16, 32, dtype::fp32));

  const operand scale = f.args(ops[2])[1];
  CHECK(scale.kind == operand_kind::float_lit);
  CHECK(scale.num == 25);
  CHECK(scale.exp10 == -1);
  CHECK(!f.has_storage(f.result(ops[2])));

  CHECK(f.op(ops[3]).code() == opcode::scalar_cast);
  CHECK(f.args(ops[3])[1] == operand::of(dtype::fp32));
  CHECK(f.type_of(f.result(ops[3])) == scalar_type(dtype::fp32));

  REQUIRE(f.kwarg_of(ops[4], keyword::high_precision).has_value());
  CHECK(*f.kwarg_of(ops[4], keyword::high_precision) == operand::boolean(true));
  CHECK(f.op(ops[5]).code() == opcode::cf_return);
  check_round_trip(r.value, "signatures");
}

TEST_CASE("scalar statements map to scalar ops with inferred types") {
  const auto r = parse(kernel("  a = 1 + n\n"
                              "  b = a < 3\n"
                              "  c = 16 : INDEX\n"
                              "  d = n + 1 : INT32\n"
                              "  e = not flag\n"
                              "  g = min(a, c)\n"
                              "  h = a // 2\n"
                              "  i = a % c\n"
                              "  j = flag and e\n"
                              "  k = -9223372036854775808 : INT64\n"
                              "  l = n\n"));
  const function& f = only_function(r);
  const auto ops = body_ops(f);
  REQUIRE(ops.size() == 12);
  const auto code = [&](int i) { return f.op(ops[static_cast<std::size_t>(i)]).code(); };
  const auto ty = [&](int i) { return f.type_of(f.result(ops[static_cast<std::size_t>(i)])); };
  CHECK(code(0) == opcode::scalar_add);
  CHECK(f.args(ops[0])[0] == operand::integer(1));
  CHECK(ty(0) == scalar_type(dtype::index));
  CHECK(code(1) == opcode::scalar_lt);
  CHECK(ty(1) == scalar_type(dtype::bool_));
  CHECK(code(2) == opcode::scalar_const);
  CHECK(ty(2) == scalar_type(dtype::index));
  CHECK(ty(3) == scalar_type(dtype::int32));
  CHECK(code(4) == opcode::scalar_not);
  CHECK(ty(4) == scalar_type(dtype::bool_));
  CHECK(code(5) == opcode::scalar_min);
  CHECK(code(6) == opcode::scalar_floordiv);
  CHECK(code(7) == opcode::scalar_mod);
  CHECK(code(8) == opcode::scalar_and);
  CHECK(f.args(ops[9])[0] == operand::integer(INT64_MIN));
  CHECK(code(10) == opcode::scalar_const);
  CHECK(ty(10) == scalar_type(dtype::index));

  const std::string printed = str(print(r.value));
  CHECK(printed.find("  a = 1 + n\n") != std::string::npos);
  CHECK(printed.find("  c = 16 : INDEX\n") != std::string::npos);
  CHECK(printed.find("  d = n + 1 : INT32\n") != std::string::npos);
  CHECK(printed.find("  g = min(a, c)\n") != std::string::npos);
  CHECK(printed.find("  k = -9223372036854775808 : INT64\n") != std::string::npos);
  CHECK(printed.find("  l = n\n") != std::string::npos);
  check_round_trip(r.value, "scalars");
}

TEST_CASE("region ops: if, for and while build regions with arguments") {
  const auto r = parse(kernel("  x, y = if flag -> (INDEX, INDEX) {\n"
                              "    yield 1, n\n"
                              "  } else {\n"
                              "    yield n, 2\n"
                              "  }\n"
                              "  s = for i in range(0, n, 1) iter(acc = x) -> (INDEX) {\n"
                              "    t = acc + i\n"
                              "    yield t\n"
                              "  }\n"
                              "  w = while iter(k = s) -> (INDEX) cond(k < n) {\n"
                              "    k1 = k + 1\n"
                              "    yield k1\n"
                              "  }\n"
                              "  if flag {\n"
                              "    z = w + 1\n"
                              "  }\n"));
  const function& f = only_function(r);
  const auto ops = body_ops(f);
  REQUIRE(ops.size() == 5);

  const op_node& if_op = f.op(ops[0]);
  CHECK(if_op.code() == opcode::cf_if);
  CHECK(if_op.region_count == 2);
  CHECK(if_op.results.count == 2);
  CHECK(f.ops_of(f.region_of(ops[0], 1)).size() == 1);

  const op_node& for_op = f.op(ops[1]);
  CHECK(for_op.code() == opcode::cf_for);
  REQUIRE(f.args(ops[1]).size() == 4);
  CHECK(f.args(ops[1])[3] == operand::of(f.result(ops[0], 0)));
  const region_id body = f.region_of(ops[1], 0);
  REQUIRE(f.region(body).args.count == 2);
  CHECK(f.name_of(f.arg(body, 0)) == "i");
  CHECK(f.type_of(f.arg(body, 0)) == scalar_type(dtype::index));
  CHECK(f.name_of(f.arg(body, 1)) == "acc");

  const op_node& while_op = f.op(ops[2]);
  CHECK(while_op.code() == opcode::cf_while);
  REQUIRE(while_op.region_count == 2);
  const region_id cond = f.region_of(ops[2], 0);
  REQUIRE(f.region(cond).args.count == 1);
  CHECK(f.name_of(f.arg(cond, 0)) == "k");
  const auto cond_ops = f.ops_of(cond);
  REQUIRE(cond_ops.size() == 2);
  CHECK(f.op(cond_ops[0]).code() == opcode::scalar_lt);
  CHECK(f.args(cond_ops[0])[0] == operand::of(f.arg(cond, 0)));
  CHECK(f.op(cond_ops[1]).code() == opcode::cf_yield);
  CHECK(f.args(cond_ops[1])[0] == operand::of(f.result(cond_ops[0])));
  CHECK(f.region(f.region_of(ops[2], 1)).args.count == 1);

  const op_node& bare_if = f.op(ops[3]);
  CHECK(bare_if.results.count == 0);
  CHECK(f.ops_of(f.region_of(ops[3], 0)).size() == 1);  // no yield was written
  CHECK(f.ops_of(f.region_of(ops[3], 1)).empty());
  check_round_trip(r.value, "regions");
}

TEST_CASE("while condition forms: a bare value and a condition block") {
  const auto r = parse(kernel("  w = while iter(k = flag) -> (BOOL) cond(k) {\n"
                              "    yield false\n"
                              "  }\n"
                              "  v = while iter(j = 0) -> (INDEX) cond {\n"
                              "    lim = n - 1\n"
                              "    go = j < lim\n"
                              "    yield go\n"
                              "  } do {\n"
                              "    j1 = j + 1\n"
                              "    yield j1\n"
                              "  }\n"));
  const function& f = only_function(r);
  const auto ops = body_ops(f);
  const auto cond0 = f.ops_of(f.region_of(ops[0], 0));
  REQUIRE(cond0.size() == 1);
  CHECK(f.args(cond0[0])[0] == operand::of(f.arg(f.region_of(ops[0], 0), 0)));
  CHECK(f.ops_of(f.region_of(ops[1], 0)).size() == 3);
  const std::string printed = str(print(r.value));
  CHECK(printed.find("w = while iter(k = flag) -> (BOOL) cond(k) {") != std::string::npos);
  CHECK(printed.find("v = while iter(j = 0) -> (INDEX) cond {\n    lim = n - 1\n    go = j < lim\n    yield go\n  } do {") !=
        std::string::npos);
  check_round_trip(r.value, "while forms");
}

TEST_CASE("orchestration: submit carries the callee, argument and dependency tuples") {
  const auto r = parse("aiv @k(A: Tensor[[16, 32], FP32]) {\n  return\n}\n\n"
                       "orchestration @main(A: Tensor[[16, 32], FP32]) {\n"
                       "  t0 = submit @k(A)\n"
                       "  t1 = submit @k(A) deps(t0)\n"
                       "  return\n}\n");
  REQUIRE(r.ok());
  const function& f = r.value.functions[1];
  const auto ops = body_ops(f);
  const auto a = f.args(ops[1]);
  REQUIRE(a.size() == 3);
  CHECK(a[0].kind == operand_kind::symbol);
  CHECK(f.symbol(a[0]) == "k");
  CHECK(f.elements(a[1]).size() == 1);
  REQUIRE(f.elements(a[2]).size() == 1);
  CHECK(f.elements(a[2])[0] == operand::of(f.result(ops[0])));
  CHECK(f.type_of(f.result(ops[1])).kind == type_kind::task);
  CHECK(f.elements(f.args(ops[0])[2]).empty());
  check_round_trip(r.value, "submit");
}

TEST_CASE("types: fields, defaults and shorthands print canonically") {
  const auto r =
      parse(kernel("  a = tile.create() : Tile[[16, 32], FP32, Vec, valid=[16, n], NZ, pad=zero, compact=normal]\n"
                   "  b = tile.create() : Tile[[16, 32], FP16, Mat, blayout=col_major, slayout=row_major, fractal=512]\n"
                   "  c = tile.create() : Tile[[16, 32], FP16, Mat, blayout=row_major]\n"
                   "  d = tile.create() : Tile[[16, 1], FP32, Vec, ND]\n"
                   "  e = tile.create() : Tile[[16, 1], FP32, Vec, fractal=1024]\n"
                   "  g = buffer.alloc((n, n)) : Buffer[[16, 32], FP32, Vec, valid=[?, ?]]\n"
                   "  h = tile.create() : Tile[[16, 32], FP32, Right, valid=[16, 32]]\n"
                   "  i = tile.create() : Tensor[[64, 64], FP32, DN, stride=[1, 64]]\n"));
  const function& f = only_function(r);
  const auto ops = body_ops(f);
  const type& a = f.type_of(f.result(ops[0]));
  CHECK(a.valid[1] == extent::of(f.params[2].value));
  CHECK(a.blayout == box_layout::col_major);
  CHECK(a.slayout == box_layout::row_major);
  const type& g = f.type_of(f.result(ops[5]));
  CHECK(g.valid[0].is_runtime());
  const std::string printed = str(print(r.value));
  CHECK(printed.find("a = tile.create() : Tile[[16, 32], FP32, Vec, valid=[16, n], NZ, pad=zero, compact=normal]\n") !=
        std::string::npos);
  CHECK(printed.find("b = tile.create() : Tile[[16, 32], FP16, Mat]\n") != std::string::npos);
  CHECK(printed.find("c = tile.create() : Tile[[16, 32], FP16, Mat, blayout=row_major, slayout=row_major]\n") !=
        std::string::npos);
  CHECK(printed.find("d = tile.create() : Tile[[16, 1], FP32, Vec, ND]\n") != std::string::npos);
  CHECK(printed.find("e = tile.create() : Tile[[16, 1], FP32, Vec, fractal=1024]\n") != std::string::npos);
  CHECK(printed.find("g = buffer.alloc((n, n)) : Buffer[[16, 32], FP32, Vec, valid=[?, ?]]\n") != std::string::npos);
  CHECK(printed.find("h = tile.create() : Tile[[16, 32], FP32, Right]\n") != std::string::npos);
  CHECK(printed.find("i = tile.create() : Tensor[[64, 64], FP32, DN, stride=[1, 64]]\n") != std::string::npos);
  check_round_trip(r.value, "types");
}

TEST_CASE("a repeated type is read once: same types, storage clauses, locations after it") {
  // Lines 2 and 4 name a value in their type, so they are read in full every time; lines 3, 5
  // and 6 repeat line 3's text, which the parser reads once.
  const std::string src = kernel("  m = tile.alloc(Vec, 8192)\n"
                                 "  a = tile.create() : Tile[[16, 32], FP32, Vec, valid=[16, n]]\n"
                                 "  b = tile.create() : Tile[[16, 32], FP32, Vec]\n"
                                 "  c = tile.create() : Tile[[16, 32], FP32, Vec, valid=[16, n]]\n"
                                 "  d = tile.create() : Tile[[16, 32], FP32, Vec] in m[2048]\n"
                                 "  e = tile.create() : Tile[[16, 32], FP32, Vec, ND]\n");
  const auto r = parse(src);
  const function& f = only_function(r);
  const auto ops = body_ops(f);
  const type& a = f.type_of(f.result(ops[1]));
  const type& b = f.type_of(f.result(ops[2]));
  const type& c = f.type_of(f.result(ops[3]));
  const type& d = f.type_of(f.result(ops[4]));
  const type& e = f.type_of(f.result(ops[5]));
  CHECK(a == c);
  CHECK(a.valid[1].is_value());
  CHECK(b.full_valid());
  CHECK(!f.has_storage(f.result(ops[2])));
  CHECK(f.storage_of(f.result(ops[4])).mem == f.result(ops[0]));
  CHECK(f.storage_of(f.result(ops[4])).offset == 2048);
  CHECK(d == b);    // storage is the value's, not its type's
  CHECK(&d == &b);  // one interned type
  CHECK(e == b);    // ND is the Vec default
  check_round_trip(r.value, "repeated types");
  // A type that names a value is read again each time: here `n` is another value in @g.
  const auto two =
      parse(std::string(head) + "  a = tile.create() : Tile[[16, 32], FP32, Vec, valid=[16, n]]\n  return\n}\n" +
            "aiv @g(n: Scalar[INDEX]) {\n  a = tile.create() : Tile[[16, 32], FP32, Vec, valid=[16, n]]\n  return\n}\n");
  REQUIRE_MESSAGE(two.ok(), str(format_all(two.errors, "")));
  const function& g = two.value.functions[1];
  CHECK(g.type_of(g.result(body_ops(g)[0])).valid[1] == extent::of(g.params[0].value));
  // An error right after a repeated type is located where it is (line 3 of the file, `junk`).
  const auto bad = parse(kernel("  b = tile.create() : Tile[[16, 32], FP32, Vec]\n"
                                "  c = tile.create() : Tile[[16, 32], FP32, Vec] junk\n"));
  REQUIRE(!bad.ok());
  CHECK(bad.errors[0].loc.line == 3);
  CHECK(bad.errors[0].loc.col == 49);
}

TEST_CASE("function headers: directions and attributes in canonical order") {
  const auto r = parse("incore @g(x: in Scalar[INDEX], T: inout Tensor[[8, 8], INT8]) -> (Scalar[INDEX], Tensor[[8, 8], INT8]) "
                       "attributes {target = a5, buffer_ir_selected = false, stage = buffer} {\n  return x, T\n}\n");
  REQUIRE(r.ok());
  const function& f = r.value.functions[0];
  CHECK(f.stage == ir_stage::buffer);
  CHECK(f.buffer_ir_selected == std::optional<bool>(false));
  CHECK(f.target == std::optional<target_arch>(target_arch::a5));
  CHECK(str(print(r.value)) ==
        "incore @g(x: Scalar[INDEX], T: inout Tensor[[8, 8], INT8]) -> (Scalar[INDEX], Tensor[[8, 8], INT8]) "
        "attributes {stage = buffer, buffer_ir_selected = false, target = a5} {\n  return x, T\n}\n");
  check_round_trip(r.value, "header");
}

TEST_CASE("float literals are exact decimals and print canonically") {
  struct row {
    std::int64_t mantissa;
    int exp10;
    std::string_view printed;
  };
  const row rows[] = {
      {2, 0, "2.0"},
      {1, -3, "0.001"},
      {15, -21, "1.5e-20"},
      {1, 20, "1.0e20"},
      {12345, -2, "123.45"},
      {-5, -1, "-0.5"},
      {0, 0, "0.0"},
      {1, -5, "0.00001"},
      {1, -6, "1.0e-6"},
      {1234567890123456, 0, "1234567890123456.0"},
      {1, 16, "1.0e16"},
      {100, 0, "100.0"},
      {123456789012345678, -400, "1.23456789012345678e-383"},
  };
  for (const row& x : rows) {
    INFO(x.printed);
    text t;
    detail::append_decimal(t, x.mantissa, x.exp10);
    CHECK(t.view() == x.printed);
    // Parsing the printed spelling gives back the same exact value.
    const auto r = parse(kernel("  v = tile.full(" + std::string(x.printed) + ") : Tile[[16, 32], FP32, Vec]\n"));
    const function& f = only_function(r);
    CHECK(f.args(body_ops(f)[0])[0] == operand::decimal(x.mantissa, x.exp10));
  }
  // Other spellings of the same numbers.
  const auto r = parse(kernel("  v = tile.full(1e-3) : Tile[[16, 32], FP32, Vec]\n"
                              "  w = tile.full(0.0010E+0) : Tile[[16, 32], FP32, Vec]\n"
                              "  x = tile.full(-1500.000e-3) : Tile[[16, 32], FP32, Vec]\n"));
  const function& f = only_function(r);
  CHECK(f.args(body_ops(f)[0])[0] == operand::decimal(1, -3));
  CHECK(f.args(body_ops(f)[1])[0] == operand::decimal(1, -3));
  CHECK(f.args(body_ops(f)[2])[0] == operand::decimal(-15, -1));
  CHECK(f.args(body_ops(f)[2])[0].as_double() == -1.5);
}

TEST_CASE("the printer gives builder-made values unique, valid, stable names") {
  function_builder b(function_kind::aiv, "names");
  const value_id x = b.param("x", scalar_type(dtype::index));
  const value_id anon = b.param("", scalar_type(dtype::index));
  const auto idx = scalar_type(dtype::index);
  const value_id dup = b.emit1(opcode::scalar_add, {operand::of(x), operand::of(anon)}, idx, "x");
  const value_id dup2 = b.emit1(opcode::scalar_add, {operand::of(dup), operand::integer(1)}, idx, "x");
  const value_id reserved = b.emit1(opcode::scalar_mul, {operand::of(dup2), operand::integer(2)}, idx, "if");
  const value_id weird = b.emit1(opcode::scalar_sub, {operand::of(reserved), operand::integer(3)}, idx, "a-b");
  const value_id digit = b.emit1(opcode::scalar_sub, {operand::of(weird), operand::integer(3)}, idx, "9lives");
  const value_id anon2 = b.emit1(opcode::scalar_add, {operand::of(digit), operand::of(x)}, idx, "");
  const value_id v0 = b.emit1(opcode::scalar_add, {operand::of(anon2), operand::of(x)}, idx, "v0");
  // A pass-made INT32 result of INDEX operands keeps its annotation.
  const value_id typed = b.emit1(opcode::scalar_add, {operand::of(v0), operand::of(x)}, scalar_type(dtype::int32), "t");
  b.emit0(opcode::cf_return, {operand::of(typed)});
  b.result_type(scalar_type(dtype::int32));
  program p;
  p.functions.push_back(b.finish());
  const std::string printed = str(print(p));
  CHECK(printed == "aiv @names(x: Scalar[INDEX], v0: Scalar[INDEX]) -> Scalar[INT32] {\n"
                   "  x_1 = x + v0\n"
                   "  x_2 = x_1 + 1\n"
                   "  if_1 = x_2 * 2\n"
                   "  a_b = if_1 - 3\n"
                   "  v9lives = a_b - 3\n"
                   "  v1 = v9lives + x\n"
                   "  v0_1 = v1 + x\n"
                   "  t = v0_1 + x : INT32\n"
                   "  return t\n"
                   "}\n");
  check_round_trip(p, "builder names");
}

TEST_CASE("a while's condition arguments print with its body's names") {
  function_builder b(function_kind::aiv, "w");
  const value_id n = b.param("n", scalar_type(dtype::index));
  const auto idx = scalar_type(dtype::index);
  const region_id first = b.reserve_regions(2);
  const type ts[] = {idx};
  const std::string_view cond_names[] = {"c_arg"};
  b.open_region(first, ts, cond_names);
  const value_id lt =
      b.emit1(opcode::scalar_lt, {operand::of(b.fn().arg(first, 0)), operand::of(n)}, scalar_type(dtype::bool_), "");
  b.emit0(opcode::cf_yield, {operand::of(lt)});
  b.close_region();
  const region_id body{first.index + 1};
  const std::string_view body_names[] = {"k"};
  b.open_region(body, ts, body_names);
  const value_id k1 = b.emit1(opcode::scalar_add, {operand::of(b.fn().arg(body, 0)), operand::integer(1)}, idx, "k");
  b.emit0(opcode::cf_yield, {operand::of(k1)});
  b.close_region();
  const operand init = operand::integer(0);
  const std::string_view out_names[] = {""};
  b.emit(opcode::cf_while, std::span<const operand>(&init, 1), {}, ts, out_names, {}, span32{first.index, 2});
  b.emit0(opcode::cf_return, {});
  program p;
  p.functions.push_back(b.finish());
  CHECK(str(print(p)) == "aiv @w(n: Scalar[INDEX]) {\n"
                         "  v0 = while iter(k = 0) -> (INDEX) cond(k < n) {\n"
                         "    k_1 = k + 1\n"
                         "    yield k_1\n"
                         "  }\n"
                         "  return\n"
                         "}\n");
  check_round_trip(p, "while names");
}

namespace limits_case {
constexpr std::string_view nested = "aiv @d(c: Scalar[BOOL]) {\n  if c {\n    if c {\n    }\n  }\n  return\n}\n";
constexpr parse_limits with(int nesting, std::size_t ops, std::size_t name, std::size_t file) {
  parse_limits l;
  l.max_nesting = nesting;
  l.max_ops = ops;
  l.max_name_length = name;
  l.max_file_size = file;
  return l;
}
constexpr bool fails_at(const parse_limits& l, std::uint32_t line, std::uint32_t col, std::string_view what) {
  const auto r = parse(nested, "k.t2b", l);
  return !r.ok() && r.errors.size() == 1 && r.errors[0].loc.line == line && r.errors[0].loc.col == col &&
         r.errors[0].message.view().find(what) != std::string_view::npos;
}
// At each limit the program parses; one below, the limit's own error at the offending token.
static_assert(parse(nested, "k.t2b", with(2, 3, 6, nested.size())).ok());
static_assert(fails_at(with(1, 4, 6, nested.size()), 3, 10, "regions nested deeper than 1 levels (max_nesting)"));
static_assert(fails_at(with(2, 2, 6, nested.size()), 6, 3, "more than 2 statements in the program (max_ops)"));
static_assert(fails_at(with(2, 3, 5, nested.size()), 1, 11, "longer than 5 bytes (max_name_length): 'Scalar'"));
static_assert(fails_at(with(2, 3, 6, nested.size() - 1), 1, 1, "bytes (max_file_size)"));
// A nesting limit above the cap is the cap: the parser's recursion stays bounded.
static_assert(parse(nested, "k.t2b", with(1 << 30, 3, 6, nested.size())).ok());
}  // namespace limits_case

TEST_CASE("parse_limits: each limit is one located error, and the cap bounds nesting") {
  std::string deep = "aiv @d(c: Scalar[BOOL]) {\n";
  for (int i = 0; i < 2000; ++i) deep += "if c {\n";
  for (int i = 0; i < 2000; ++i) deep += "}\n";
  deep += "return\n}\n";
  parse_limits l;
  l.max_nesting = 1 << 30;
  const auto r = parse(deep, "deep.t2b", l);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].loc.line == 2 + text_limits::max_depth_cap);
  CHECK(r.errors[0].message.view() == "regions nested deeper than 1024 levels (max_nesting)");
  l.max_nesting = 100;
  CHECK(parse(deep, "deep.t2b", l).errors[0].loc.line == 102);
  CHECK(!parse(std::string(2000, 'a'), "long.t2b").ok());
  l = {};
  l.max_name_length = 4000;
  CHECK(parse(std::string(2000, 'a'), "long.t2b", l).errors[0].message.view().find("max_name_length") == std::string_view::npos);
}

TEST_CASE("malformed input fails closed with one located diagnostic") {
  struct row {
    std::string src;
    std::uint32_t line, col;
    std::string_view message;  ///< a substring of the diagnostic
  };
  const std::string deep_ok = [] {
    std::string s = "aiv @d(c: Scalar[BOOL]) {\n";
    for (int i = 0; i < text_limits::max_depth; ++i) s += "if c {\n";
    for (int i = 0; i < text_limits::max_depth; ++i) s += "}\n";
    return s + "return\n}\n";
  }();
  CHECK(parse(deep_ok).ok());
  const std::string too_deep = [] {
    std::string s = "aiv @d(c: Scalar[BOOL]) {\n";
    for (int i = 0; i < 100000; ++i) s += "if c {\n";
    return s;
  }();
  const std::string t16 = " : Tile[[16, 32], FP32, Vec]\n";
  const std::vector<row> rows = {
      // truncated, unbalanced and garbage input
      {"aiv", 1, 4, "expected a function name '@name', found end of file"},
      {"aiv @f(", 1, 8, "expected a value name, found end of file"},
      {"aiv @f() {\n", 2, 1, "expected '}' to close the region opened at 1:10, found end of file"},
      {"aiv @f() {\n  return\n}\n}\n", 4, 1, "expected a function kind (incore, aic, aiv, orchestration), found '}'"},
      {kernel("  x = tile.load(A, (0, 0 x"), 2, 26, "expected ')' after tuple, found 'x'"},
      {std::string("aiv @f() {\n  \0\n}\n", 16), 2, 3, "unexpected character: '\\x00'"},
      {"\xff\xfe garbage", 1, 1, "unexpected character: '\\xff'"},
      {kernel("  x = n / n\n"), 2, 9, "unexpected character '/' (floor division is '//')"},
      {"aiv @ f", 1, 5, "expected a function name after '@'"},
      {too_deep, 66, 6, "regions nested deeper than 64 levels (max_nesting)"},
      {"aiv @f() {\n  return\n} aiv", 3, 3, "expected end of line after the function, found 'aiv'"},
      // ops and operands
      {kernel("  x = tile.bogus(A)" + t16), 2, 7, "unknown op 'tile.bogus'"},
      {kernel("  x = scalar.add(n, n)\n"), 2, 7, "unknown op 'scalar.add'"},
      {kernel("  x = tile.add(A)" + t16), 2, 7, "tile.add expects 2 operands, found 1"},
      {kernel("  x = tile.add(A, A, A, A)" + t16), 2, 7, "tile.add expects 2 operands, found 4"},
      {kernel("  x = tile.load(A, (0, 0))" + t16), 2, 7, "tile.load expects 3 to 4 operands, found 2"},
      {kernel("  x = tile.add(A, A, addr = 1)" + t16), 2, 22, "Unknown kwarg 'addr' for tile.add"},
      {kernel("  x = tile.div(A, A, high_precision = true, high_precision = true)" + t16), 2, 45,
       "duplicate keyword 'high_precision' for tile.div"},
      {kernel("  x = tile.div(A, high_precision = true, A)" + t16), 2, 42,
       "positional operand after keyword arguments of tile.div"},
      {kernel("  x = tile.add(a, b)" + t16), 2, 16, "use of undefined value 'a'"},
      {kernel("  x = tile.add(3, A)" + t16), 2, 16, "expected a value name for operand 1 of tile.add, found '3'"},
      {kernel("  x = tile.load(A, 0, (16, 32))" + t16), 2, 20, "expected a tuple '(a, b)' for operand 2 of tile.load"},
      {kernel("  x = tile.load(A, (0, 0, 0), (16, 32))" + t16), 2, 20,
       "operand 2 of tile.load must be a pair '(a, b)', found a tuple of 3 elements"},
      {kernel("  m = tile.alloc(Vex, 64)\n"), 2, 18, "expected a memory space (Vec, Mat, Left, Right, Acc) for operand 1"},
      {kernel("  c = cast(n, FP64)\n"), 2, 15, "expected a dtype for operand 2 of cast, found 'FP64'"},
      {kernel("  x = tile.add(A, A) extra\n"), 2, 22, "expected ':' and the result type of tile.add, found 'extra'"},
      {kernel("  x = tile.add(A, A)\n"), 2, 21, "expected ':' and the result type of tile.add, found end of line"},
      {kernel("  x = tile.add(A, A)" + std::string(" : Tile[[16, 32], FP32, Vec] junk\n")), 2, 50,
       "expected end of line after the statement, found 'junk'"},
      {kernel("  m = tile.alloc(Vec, 64) : INDEX\n"), 2, 27, "tile.alloc takes no ': TYPE'"},
      {kernel("  buffer.copy(A, A)\n  x = buffer.copy(A, A)\n"), 3, 3, "'buffer.copy' has no result"},
      {kernel("  tile.add(A, A)\n"), 2, 3, "'tile.add' defines a result; bind it: 'x = tile.add(...)'"},
      {kernel("  x, y = tile.add(A, A)" + t16), 2, 3, "'tile.add' defines 1 result, found 2 names"},
      {kernel("  x = tile.add(A, A,)" + t16), 2, 21, "expected an operand after ','"},
      // literals
      {kernel("  x = 99999999999999999999 : INDEX\n"), 2, 7, "integer literal out of range: '99999999999999999999'"},
      {kernel("  x = 9223372036854775808 : INDEX\n"), 2, 7, "integer literal out of range"},
      {kernel("  x = -9223372036854775809 : INDEX\n"), 2, 8, "integer literal out of range"},
      {kernel("  x = 1.2345678901234567891 : FP32\n"), 2, 7, "float literal has more than 18 significant digits"},
      {kernel("  x = 1e999 : FP32\n"), 2, 7, "float literal out of range: '1e999'"},
      {kernel("  x = 0." + std::string(500, '0') + "1 : FP32\n"), 2, 7, "float literal out of range"},
      {kernel("  x = 1e99999999999999999999999 : FP32\n"), 2, 7, "float literal out of range"},
      {kernel("  x = 16x : INDEX\n"), 2, 7, "malformed number: '16x'"},
      {kernel("  x = - : INDEX\n"), 2, 9, "expected a number after '-', found ':'"},
      // scalars
      {kernel("  c = 16\n"), 2, 3, "constant 'c' needs a type, e.g. 'c = 16 : INDEX'"},
      {kernel("  c = 1 + 2\n"), 2, 3, "cannot infer the type of 'c' from literal operands; add ': TYPE'"},
      {kernel("  c = A + 1\n"), 2, 7, "operand 'A' of '+' must be a scalar value"},
      {kernel("  c = n + 1 : Tile[[16, 32], FP32, Vec]\n"), 2, 15, "the result of '+' must be a scalar type"},
      {kernel("  min(n, n)\n"), 2, 3, "'min' defines a result"},
      {kernel("  c = n +\n"), 2, 10, "expected an operand after '+', found end of line"},
      // names and scopes
      {kernel("  n = 16 : INDEX\n"), 2, 3, "redefinition of 'n'"},
      {"aiv @f(a: Scalar[INDEX], a: Scalar[INDEX]) {\n  return\n}\n", 1, 26, "redefinition of 'a'"},
      {kernel("  if flag {\n    t = n + 1\n  }\n  u = t + 1\n"), 5, 7, "'t' is defined inside a region and is not visible here"},
      {kernel("  if flag {\n    t = n + 1\n  }\n  t = n + 2\n"), 5, 3, "redefinition of 't'"},
      {kernel("  x, in = if flag -> (INDEX, INDEX) {\n"), 2, 6, "'in' is a reserved word and cannot name a value"},
      {kernel("  for i in range(0, n, 1) {\n  }\n  for i in range(0, n, 1) {\n  }\n"), 4, 7, "redefinition of 'i'"},
      // types
      {kernel("  x = tile.add(A, A) : Tile[[16, 32], FP33, Vec]\n"), 2, 39, "expected a dtype (BOOL, INT8"},
      {kernel("  x = tile.create() : Tile[[0, 32], FP32, Vec]\n"), 2, 29, "shape extent must be between 1 and 16777216, found 0"},
      {kernel("  x = tile.create() : Tile[[16, 99999999], FP32, Vec]\n"), 2, 33, "shape extent must be between 1 and 16777216"},
      {kernel("  x = tile.create() : Tile[[16, 32, 8], FP32, Vec]\n"), 2, 35, "expected ']' after the shape (shapes are rank 2)"},
      {kernel("  x = tile.create() : Tile[[16, 32], FP32, Vec, valid=[17, 32]]\n"), 2, 56,
       "valid extent must be between 0 and 16, found 17"},
      {kernel("  x = tile.create() : Tile[[16, 32], FP32, Vec, valid=[?, 32]]\n"), 2, 56,
       "'?' (a runtime extent) is only allowed in Buffer types"},
      {kernel("  x = tile.create() : Tile[[16, 32], FP32, Vec, valid=[A, 32]]\n"), 2, 56,
       "valid extent 'A' must be a scalar value"},
      {kernel("  x = tile.create() : Tile[[16, 32], FP32, Vec, pad=zero, pad=max]\n"), 2, 59, "duplicate field 'pad' in type"},
      {kernel("  x = tile.create() : Tile[[16, 32], FP32, Vec, NZ, blayout=row_major]\n"), 2, 53, "duplicate field 'blayout'"},
      {kernel("  x = tile.create() : Tile[[16, 32], FP32, Vec, color=red]\n"), 2, 49, "expected a type field (valid, blayout"},
      {kernel("  x = tile.create() : Tile[[16, 32], FP32, Vec] in n\n"), 2, 52, "storage 'n' must name a tile.alloc result"},
      {kernel("  x = tile.create() : Tensor[[16, 32], FP32] in n\n"), 2, 46, "only Tile types have a storage clause"},
      {"aiv @f(n: Tile[[16, 32], FP32, Vec] in m) {\n  return\n}\n", 1, 37, "a storage clause is not allowed here"},
      {"aiv @f(n: out Scalar[INDEX]) {\n  return\n}\n", 1, 11, "only Tensor parameters have a direction"},
      {"aiv @f(n: Scalar[INDEX]) attributes {colour = red} {\n  return\n}\n", 1, 38, "unknown function attribute 'colour'"},
      {"aiv @f(n: Scalar[INDEX]) attributes {target = a5, target = a5} {\n  return\n}\n", 1, 51, "duplicate attribute 'target'"},
      // regions and terminators
      {kernel("  x = if flag -> (INDEX) {\n    yield 1\n  }\n"), 4, 4,
       "expected 'else' (an 'if' with results needs both branches)"},
      {kernel("  x, y = if flag -> (INDEX, INDEX) {\n    yield 1\n  } else {\n"), 3, 5, "'yield' has 1 values, 'if' needs 2"},
      {kernel("  x = for i in range(0, n, 1) iter(a = 0) -> (INDEX) {\n  }\n"), 3, 3,
       "region of 'for' with results must end with 'yield'"},
      {kernel("  x = for i in range(0, n, 1) iter(a = 0, b = 1) -> (INDEX) {\n"), 2, 3,
       "'for' has 2 iteration values but 1 result types"},
      {kernel("  x = if flag {\n"), 2, 15, "expected '->' and the result types, found '{'"},
      {kernel("  if flag -> (INDEX) {\n"), 2, 3, "'if' has results but no names bind them"},
      {kernel("  x = while iter(k = 0) -> (INDEX) cond k < n {\n"), 2, 41, "expected '(' or '{' after 'cond', found 'k'"},
      {kernel("  for i in range(0, A, 1) {\n"), 2, 21, "loop bounds must be scalars"},
      {kernel("  if flag {\n  }\n  else {\n  }\n"), 4, 3, "'else' must follow the '}' of its 'if' on the same line"},
      {kernel("  yield\n"), 2, 3, "'yield' can only end the region of an 'if', 'for' or 'while'"},
      {kernel("  if flag {\n    return\n  }\n"), 3, 5, "'return' can only end the function body"},
      {"aiv @f() {\n  return\n  x = 1 : INDEX\n}\n", 2, 3, "'return' must be the last statement of its region"},
      {"aiv @f() -> Scalar[INDEX] {\n  return\n}\n", 2, 3, "'return' has 0 values, the function declares 1 results"},
      {kernel("  x = while iter(k = 0) -> (INDEX) cond(1 < 2.0 and) {\n"), 2, 49, "expected ')' after the condition"},
      // functions and orchestration
      {"aiv @f() {\n  return\n}\naiv @f() {\n  return\n}\n", 4, 5, "redefinition of function '@f'"},
      {"orchestration @m() {\n  t = submit @nowhere()\n  return\n}\n", 2, 14, "call to undefined function '@nowhere'"},
      {"orchestration @m() {\n  t, u = submit @m()\n  return\n}\n", 2, 3, "'submit' defines one task"},
      {"orchestration @m() {\n  t = submit @m() deps(3)\n  return\n}\n", 2, 24, "expected a task name in 'deps', found '3'"},
      {"aiv f() {\n}\n", 1, 5, "expected a function name '@name', found 'f'"},
      {"kernel @f() {\n}\n", 1, 1, "expected a function kind"},
  };
  for (const row& x : rows) {
    INFO(x.src.substr(0, 200));
    const diagnostic d = one_error(x.src);
    CHECK(d.loc.line == x.line);
    CHECK(d.loc.col == x.col);
    CHECK_MESSAGE(d.message.view().find(x.message) != std::string_view::npos, str(d.message));
  }
  // The formatted diagnostic names the file.
  const auto r = parse("aiv @f() {\n  x = tile.add(a b)\n}\n", "kernel.t2b");
  CHECK(str(format_all(r.errors, r.value.file.view())) == "kernel.t2b:2:16: error: parse: use of undefined value 'a'\n");
}

namespace {
/// Deterministic pseudo-random numbers (no global state).
struct lcg {
  std::uint64_t s;
  std::uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(s >> 33);
  }
};
/// Parsing never crashes; success implies the round-trip contract, failure one located error.
void check_any(std::string_view src) {
  const auto r = parse(src, "fuzz.t2b");
  if (!r.ok()) {
    REQUIRE(r.errors.size() == 1);
    REQUIRE(r.errors[0].loc.known());
    return;
  }
  const text once = print(r.value);
  const auto again = parse(once.view());
  REQUIRE(again.ok());
  REQUIRE(structurally_equal(r.value, again.value));
  REQUIRE(print(again.value) == once);
}
}  // namespace

TEST_CASE("every truncation of every example fails closed or round-trips") {
  for (const auto& path : example_files()) {
    const std::string src = read_file(path);
    INFO(path.string());
    for (std::size_t n = 0; n <= src.size(); ++n) check_any(std::string_view(src).substr(0, n));
  }
}

TEST_CASE("mutated examples fail closed or round-trip") {
  const auto files = example_files();
  const std::string_view pieces[] = {"(",
                                     ")",
                                     "{",
                                     "}",
                                     "[",
                                     "]",
                                     ",",
                                     "=",
                                     "-",
                                     "\n",
                                     std::string_view("\0", 1),
                                     "@",
                                     "?",
                                     "in ",
                                     "->",
                                     "yield ",
                                     "if ",
                                     "else",
                                     "1e9999",
                                     "99999999999999999999",
                                     "x",
                                     "Vec",
                                     "INDEX",
                                     "cond(",
                                     "iter(",
                                     " : ",
                                     "tile.add(",
                                     "\xff"};
  lcg rng{12345};
  for (int iter = 0; iter < 4000; ++iter) {
    std::string src = read_file(files[rng.next() % files.size()]);
    const int edits = 1 + static_cast<int>(rng.next() % 3);
    for (int e = 0; e < edits && !src.empty(); ++e) {
      const std::size_t at = rng.next() % src.size();
      switch (rng.next() % 4) {
        case 0: src[at] = static_cast<char>(rng.next() & 0xff); break;
        case 1: src.erase(at, 1 + rng.next() % 16); break;
        case 2: {
          const auto& p = pieces[rng.next() % std::size(pieces)];
          src.insert(at, p.data(), p.size());
          break;
        }
        default: {
          const std::size_t len = std::min<std::size_t>(1 + rng.next() % 64, src.size() - at);
          src.insert(at, src.substr(at, len));
        }
      }
    }
    INFO(src);
    check_any(src);
  }
}

TEST_CASE("the name table keeps every entry through growth and reports repeats") {
  using detail::name_table;
  // Names t0..t999 in one buffer: about fifteen times the initial room (64 slots, half full), so
  // the table rehashes several times unless reserved.
  std::string base;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> at;
  for (int i = 0; i < 1000; ++i) {
    const std::string n = "t" + std::to_string(i);
    at.emplace_back(static_cast<std::uint32_t>(base.size()), static_cast<std::uint32_t>(n.size()));
    base += n;
  }
  for (const bool reserved : {false, true}) {
    name_table t;
    if (reserved) t.reserve(at.size());
    for (std::uint32_t i = 0; i < at.size(); ++i) {
      const auto [e, fresh] = t.emplace(base, at[i].first, at[i].second, i, name_table::state::visible);
      REQUIRE(fresh);
      CHECK(e->value == i);
    }
    for (std::uint32_t i = 0; i < at.size(); ++i) {
      const std::string_view key = std::string_view(base).substr(at[i].first, at[i].second);
      const auto* e = t.find(base, key);
      REQUIRE(e != nullptr);
      CHECK(e->value == i);
      // A repeat is not inserted again: the existing entry comes back, unchanged.
      const auto [again, fresh] = t.emplace(base, at[i].first, at[i].second, 7, name_table::state::hidden);
      CHECK_FALSE(fresh);
      CHECK(again->value == i);
      CHECK(again->st == name_table::state::visible);
    }
    // Prefixes and names that were never inserted are absent; a key outside `base` is looked up by text.
    CHECK(t.find(base, "t") == nullptr);
    CHECK(t.find(base, "t1000") == nullptr);
    CHECK(t.find(base, std::string("t999")) != nullptr);
    t.clear();
    CHECK(t.find(base, "t5") == nullptr);
  }
}

TEST_CASE("printing a large body reserves for what follows, not for a nested region's text") {
  // A loop of 20,000 ops, then 9,000 ops at the top: the body's first 1,024 ops hold the whole
  // loop, and a rate taken from them would reserve about twenty times the text.
  std::string src =
      "aiv @k(n: Scalar[INDEX]) -> Scalar[INDEX] {\n  r = for i in range(0, n, 1) iter(j = 0) -> (INDEX) {\n    a0 = j + 1\n";
  for (int i = 1; i < 20000; ++i) src += "    a" + std::to_string(i) + " = a" + std::to_string(i - 1) + " + 1\n";
  src += "    yield a19999\n  }\n  b0 = r + 1\n";
  for (int i = 1; i < 9000; ++i) src += "  b" + std::to_string(i) + " = b" + std::to_string(i - 1) + " + 1\n";
  src += "  return b8999\n}\n";
  const auto parsed = parse(src);
  REQUIRE_MESSAGE(parsed.ok(), format_all(parsed.errors, "k.t2b").view());
  const text out = print(parsed.value);
  CHECK(out.capacity() <= 2 * out.size());
  // A flat body of 9,000 ops takes the reserving path: its text is the same on a round trip.
  std::string flat = "aiv @f(n: Scalar[INDEX]) -> Scalar[INDEX] {\n  b0 = n + 1\n";
  for (int i = 1; i < 9000; ++i) flat += "  b" + std::to_string(i) + " = b" + std::to_string(i - 1) + " * 3\n";
  flat += "  return b8999\n}\n";
  const auto f = parse(flat);
  REQUIRE(f.ok());
  const text once = print(f.value);
  CHECK(once.view() == std::string_view(flat));
  CHECK(once.capacity() <= 2 * once.size());
}

TEST_CASE("parsing a large kernel sizes its arenas from the text once instead of doubling them") {
  // 1,000 elementwise lines between the header and the closing '}': one op per line, and the
  // estimate reserves one slot per line, so the op and region-op arenas end exactly filled
  // where doubling growth would have left them at 1,024 or more.
  std::string src = "aiv @k(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {\n"
                    "  v0 = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]\n";
  for (int i = 1; i <= 1000; ++i)
    src += "  v" + std::to_string(i) + " = tile.add(v" + std::to_string(i - 1) + ", v0) : Tile[[16, 32], FP32, Vec]\n";
  src += "  s = tile.store(v1000, (0, 0), Out) : Tensor[[16, 32], FP32]\n  return s\n}\n";
  const auto r = parse(src, "big.t2b");
  REQUIRE(r.ok());
  const function& f = r.value.functions.front();
  CHECK(f.ops.size() == 1003);
  CHECK(f.ops.capacity() == 1004);  // the lines from the header's end to the closing '}'
  CHECK(f.region_ops.capacity() == 1004);
  CHECK(f.values.capacity() >= f.values.size());
  CHECK(f.values.capacity() <= f.values.size() + 8);
}
