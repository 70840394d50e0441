// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "tile2buffer/detail/inline_vector.hpp"
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/text/parse.hpp"

using namespace tile2buffer;

namespace {
constexpr function make_add(bool swap) {
  function_builder b(function_kind::aiv, "add");
  const auto t = tensor_type(16, 32, dtype::fp32);
  const value_id A = b.param("A", t);
  const value_id B = b.param("B", t);
  const value_id Out = b.param("Out", t, direction::out);
  b.result_type(t);
  const auto tt = tile_type(16, 32, dtype::fp32);
  const value_id lhs = b.emit1(opcode::tile_load, {operand::of(A), b.pair(0, 0), b.pair(16, 32)}, tt, "lhs");
  const value_id rhs = b.emit1(opcode::tile_load, {operand::of(B), b.pair(0, 0), b.pair(16, 32)}, tt, "rhs");
  const value_id sum = b.emit1(opcode::tile_add, {operand::of(swap ? rhs : lhs), operand::of(swap ? lhs : rhs)}, tt, "sum");
  const value_id r = b.emit1(opcode::tile_store, {operand::of(sum), b.pair(0, 0), operand::of(Out)}, t, "r");
  b.emit0(opcode::cf_return, {operand::of(r)});
  return b.finish();
}
constexpr bool equal_to_itself() { return structurally_equal(make_add(false), make_add(false)); }
constexpr bool differs_when_swapped() { return !structurally_equal(make_add(false), make_add(true)); }
static_assert(equal_to_itself());
static_assert(differs_when_swapped());
// In constant evaluation too, an op built without a location has the line of its builder call.
constexpr bool records_caller_line() {
  function_builder b(function_kind::aiv, "k");
  b.emit0(opcode::cf_return, {});
  const auto line = static_cast<std::uint32_t>(__LINE__ - 1);
  return b.finish().loc_of(op_id{0}).line == line;
}
static_assert(records_caller_line());

/// Every Tile opcode comes back from `as_variant<tile::op>` as its own alternative: the variant's
/// index is the opcode's position among the Tile opcodes, `std::visit` sees that opcode, and the
/// operand and keyword ranges arrive unswapped. Also: every alternative is reached by exactly one opcode.
constexpr bool every_tile_op_round_trips() {
  std::size_t tile_ops = 0;
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const auto c = static_cast<opcode>(i);
    if (!is_tile_op(c)) continue;
    ++tile_ops;
    const op_header h = make_op(c, span32{3, 2}, span32{7, 1});
    const tile::op v = as_variant<tile::op>(h);
    if (v.index() != tile_ops - 1) return false;
    const bool same = std::visit([&](const auto& o) { return o.code == c && o.args == h.args && o.kwargs == h.kwargs; }, v);
    if (!same) return false;
  }
  return tile_ops == std::variant_size_v<tile::op>;
}
static_assert(every_tile_op_round_trips());
}  // namespace

TEST_CASE("builder and structural equality") {
  CHECK(equal_to_itself());
  CHECK(differs_when_swapped());
  const function f = make_add(false);
  CHECK(f.ops.size() == 5);
  CHECK(f.name_of(f.result(op_id{2})) == "sum");
}

TEST_CASE("a stored op converts back to its typed dialect alternative") {
  CHECK(every_tile_op_round_trips());
  const function f = make_add(false);
  const tile::op v = as_variant<tile::op>(f.op(op_id{2}).header());
  CHECK(std::holds_alternative<tile::add>(v));
  // The typed op's operand range reads the sum's operands out of the function's pool: lhs, rhs.
  const auto operands = f.pool(as<tile::add>(f.op(op_id{2}).header()).args);
  REQUIRE(operands.size() == 2);
  CHECK(f.name_of(operands[0].value()) == "lhs");
  CHECK(f.name_of(operands[1].value()) == "rhs");
}

namespace {
/// `typed<Op>` reads operands by the names the catalogue gives them, in any position.
constexpr bool typed_views_name_operands() {
  function_builder b(function_kind::aiv, "k");
  const auto tt = tile_type(16, 64, dtype::fp32);
  const value_id A = b.param("A", tensor_type(16, 64, dtype::fp32));
  const value_id Out = b.param("Out", tensor_type(16, 64, dtype::fp32), direction::out);
  const value_id x = b.emit1(opcode::tile_load, {operand::of(A), b.pair(1, 2), b.pair(16, 64)}, tt, "x");
  const value_id r =
      b.emit1(opcode::tile_store, {operand::of(x), b.pair(3, 4), operand::of(Out)}, tensor_type(16, 64, dtype::fp32), "r");
  const function f = b.finish();
  const op_id ld = f.value(x).def;
  const op_id st = f.value(r).def;
  const typed<tile::load> load(f, ld);
  const typed<tile::store> store(f, st);
  const auto offsets = load.elements(load.offsets());
  return load.tensor() == operand::of(A) && offsets.size() == 2 && offsets[0].num == 1 && offsets[1].num == 2 &&
         load.valid().kind == operand_kind::none &&  // the optional operand is absent
         load.elements(load.shape())[1].num == 64 && store.tile() == operand::of(x) && store.tensor() == operand::of(Out) &&
         store.elements(store.offsets())[0].num == 3 && load.result_type() == tt && load.op().code == opcode::tile_load;
}
static_assert(typed_views_name_operands());

template <class V>
concept has_tensor = requires(const V& v) {
  v.tensor();
};
template <class V>
concept has_init_cond = requires(const V& v) {
  v.init_cond();
};
// An accessor exists exactly on the ops whose catalogue entry names that operand.
static_assert(has_tensor<typed<tile::load>> && has_tensor<typed<tile::store>> && !has_tensor<typed<tile::add>>);
static_assert(has_init_cond<view<opcode::tile_matmul_acc>> && !has_init_cond<view<opcode::tile_matmul>>);
// The names agree with the buffer op the elementwise recipes emit (inputs first, then dest).
static_assert(operand_names(opcode::buffer_adds) == "source scalar dest" && operand_names(opcode::tile_adds) == "source scalar");
}  // namespace

namespace {
/// `type_interner`: equal types share one entry, different ones get their own, and every id
/// stays right across the table's growth (64 slots, then 128, ...).
constexpr bool interner_shares_equal_types(int distinct) {
  std::vector<type> types;
  type_interner in;
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < distinct; ++i) {
      const type_id id = in.intern(types, tile_type(16, 8 + 8 * i, dtype::fp32));
      const std::size_t expected_size = round == 0 ? static_cast<std::size_t>(i + 1) : static_cast<std::size_t>(distinct);
      if (id.index != static_cast<std::uint32_t>(i) || types.size() != expected_size) return false;
    }
  // A type the caller appended itself is found once the table grows past it.
  types.push_back(tile_type(1, 1, dtype::fp16));
  for (int i = 0; i < 2 * distinct + 64; ++i) static_cast<void>(in.intern(types, tile_type(2, 8 + 8 * i, dtype::fp16)));
  return in.intern(types, tile_type(1, 1, dtype::fp16)).index == static_cast<std::uint32_t>(distinct);
}
static_assert(interner_shares_equal_types(3));
static_assert(interner_shares_equal_types(40));
}  // namespace

TEST_CASE("the type interner gives equal types one id, also across growth") {
  CHECK(interner_shares_equal_types(1));
  CHECK(interner_shares_equal_types(200));
  std::vector<type> types;
  type_interner in;
  const type a = tile_type(16, 32, dtype::fp32);
  const type b = tile_type(16, 32, dtype::fp16);
  CHECK(in.intern(types, a).index == 0);
  CHECK(in.intern(types, b).index == 1);
  CHECK(in.intern(types, a).index == 0);
  CHECK(types.size() == 2);
}

TEST_CASE("walk visits ops in program order at any nesting depth, past its inline frame stack") {
  // 40 nested loops, deeper than walk's 16 inline frames, each holding `x = x + 1` before its
  // inner loop: the walk must give each loop, then its body's ops in order, then the next op
  // after the loop; a recursive walk is the reference.
  std::string src = "aiv @k(n: Scalar[INDEX]) {\n";
  constexpr int depth = 40;
  for (int d = 0; d < depth; ++d)
    src += std::string(2 * d + 2, ' ') + "for i" + std::to_string(d) + " in range(0, n, 1) {\n" + std::string(2 * d + 4, ' ') +
           "x" + std::to_string(d) + " = n + 1\n";
  for (int d = depth - 1; d >= 0; --d) src += std::string(2 * d + 4, ' ') + "yield\n" + std::string(2 * d + 2, ' ') + "}\n";
  src += "  return\n}\n";
  const auto parsed = parse(src, "deep.t2b");
  REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? std::string() : std::string(parsed.errors.front().message.view())));
  const function& f = parsed.value.functions.front();
  std::vector<std::uint32_t> walked, expected;
  walk(f, [&](op_id o) { walked.push_back(o.index); });
  const auto recurse = [&](region_id r, auto& self) -> void {
    for (const op_id o : f.ops_of(r)) {
      expected.push_back(o.index);
      for (std::uint32_t i = 0; i < f.op(o).region_count; ++i) self(f.region_of(o, i), self);
    }
  };
  recurse(f.body, recurse);
  CHECK(walked.size() == f.ops.size());
  CHECK(walked.size() == 3 * depth + 1);  // per level: the loop, the add, the yield; then return
  CHECK(walked == expected);
}

TEST_CASE("reopen_front puts new ops before a region's own and moves the op lists stored after it") {
  // Two sibling loops: the first one's body is stored before the second's and the function
  // body's, so splicing into it moves both of theirs.
  const auto parsed = parse("aiv @k(n: Scalar[INDEX]) {\n  for i in range(0, n, 1) {\n    x = n + 1\n    yield\n  }\n"
                            "  for j in range(0, n, 1) {\n    y = n + 2\n    yield\n  }\n  return\n}\n",
                            "two.t2b");
  REQUIRE(parsed.ok());
  const function before = parsed.value.functions.front();
  const region_id first_body = before.region_of(before.ops_of(before.body)[0], 0);
  function_builder b{function(before)};
  b.reopen_front(first_body);
  const value_id z =
      b.emit1(opcode::scalar_add, {operand::of(before.params[0].value), operand::integer(3)}, scalar_type(dtype::index), "z", {});
  b.close_region();
  const function after = b.finish();
  const op_id added{static_cast<std::uint32_t>(before.ops.size())};
  CHECK(after.value(z).def == added);
  const auto spliced = after.ops_of(first_body), old = before.ops_of(first_body);
  REQUIRE(spliced.size() == old.size() + 1);
  CHECK(spliced[0] == added);
  CHECK(std::vector<op_id>(spliced.begin() + 1, spliced.end()) == std::vector<op_id>(old.begin(), old.end()));
  for (std::uint32_t r = 0; r < before.regions.size(); ++r) {
    if (r == first_body.index) continue;
    const auto now = after.ops_of(region_id{r}), was = before.ops_of(region_id{r});
    CHECK(std::vector<op_id>(now.begin(), now.end()) == std::vector<op_id>(was.begin(), was.end()));
  }
  program p;
  p.functions.push_back(after);
  CHECK(verify<>(p).empty());
}

namespace {
// inline_vector keeps N elements in place and all of them on the heap past N; both read alike.
constexpr bool inline_vector_holds_its_elements() {
  detail::inline_vector<int, 2> v;
  int sum = 0;
  for (int i = 1; i <= 5; ++i) {
    v.push_back(i);
    sum = 0;
    for (const int x : v) sum += x;
    if (static_cast<int>(v.size()) != i || sum != i * (i + 1) / 2 || v[static_cast<std::size_t>(i - 1)] != i) return false;
  }
  const std::size_t five = std::span<const int>(v).size();
  v.assign(3, 7);
  const std::span<const int> t = v;
  const bool assigned = t.size() == 3 && t[0] == 7 && t[2] == 7;
  v.clear();
  return five == 5 && assigned && v.empty();
}
static_assert(inline_vector_holds_its_elements());
}  // namespace

TEST_CASE("inline_vector moves to the heap past its inline capacity and back after clear") {
  CHECK(inline_vector_holds_its_elements());
  detail::inline_vector<std::string_view, 1> names;
  names.push_back("a");
  const std::string_view* inline_data = names.data();
  names.push_back("b");  // past the one inline slot: every element moves to the heap
  CHECK(names.data() != inline_data);
  CHECK(std::span<const std::string_view>(names).size() == 2);
  CHECK(names[0] == "a");
  CHECK(names[1] == "b");
  names.clear();
  names.push_back("c");
  CHECK(names.data() == inline_data);  // in place again
  CHECK(names[0] == "c");
}

namespace {
// text grows past its capacity, appends copies of its own bytes and survives copies and moves;
// the same code runs in constant evaluation, where each character is constructed in place.
constexpr bool text_appends_repeats_copies_and_moves() {
  text t("ab");
  t << ", " << std::int64_t{-9223372036854775807 - 1} << ' ' << 42;
  t.repeat(0, 2);
  for (int i = 0; i < 40; ++i) t.repeat(0, 1);  // grows at 48 while the byte it repeats is in it
  const text copy = t;
  text moved = static_cast<text&&>(t);
  text assigned;
  assigned = copy;
  assigned = static_cast<const text&>(assigned);  // self-assignment keeps the text
  text roomy("0123456789012345678901234567890123456789012345678901234567890123456789012345678");
  roomy = copy;  // into a larger buffer: copied in place
  const std::string_view forty_a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  const bool ok = copy.view().substr(0, 29) == "ab, -9223372036854775808 42ab" && copy.view().substr(29) == forty_a &&
                  copy.size() == 69 && copy == moved && assigned == copy && roomy == copy && t.empty();
  moved = static_cast<text&&>(moved);  // self-move keeps the text
  const bool kept = moved == copy;
  moved.clear();
  text twice("abc");
  for (int i = 0; i < 4; ++i) twice << twice;  // its own bytes, across growths
  return ok && kept && moved.empty() && moved.capacity() >= 69 && twice.size() == 48 && twice.view().substr(45) == "abc";
}
static_assert(text_appends_repeats_copies_and_moves());
}  // namespace

TEST_CASE("text appends, repeats its own bytes, copies and moves, also in constant evaluation") {
  CHECK(text_appends_repeats_copies_and_moves());
  text big;
  for (int i = 0; i < 1000; ++i) big << "0123456789abcdefghij";  // past the short-copy loop
  CHECK(big.size() == 20000);
  CHECK(big.view().substr(19980) == "0123456789abcdefghij");
  big.repeat(5, 17);
  CHECK(big.view().substr(20000) == "56789abcdefghij01");
  text full;
  full.reserve(40);
  full << "0123456789abcdefghij0123456789abcdefghij";  // exactly full
  full.repeat(3, 30);                                  // grows, past the short-copy loop, while its source is in the old buffer
  CHECK(full.size() == 70);
  CHECK(full.view().substr(40) == "3456789abcdefghij0123456789abc");
}

TEST_CASE("IR built without locations reports the host's file and lines; {} still means none") {
  program p;
  function_builder b(function_kind::aiv, "k");
  const auto header = static_cast<std::uint32_t>(__LINE__ - 1);
  const value_id a = b.param("A", tensor_type(16, 32, dtype::fp32));
  const auto tt = tile_type(16, 32, dtype::fp32);
  const value_id x = b.emit1(opcode::tile_load, {operand::of(a), b.pair(0, 0), b.pair(16, 32)}, tt, "x");
  const auto load = static_cast<std::uint32_t>(__LINE__ - 1);
  b.emit0(opcode::cf_return, {operand::of(x)});  // returns a value from a function without results
  const auto ret = static_cast<std::uint32_t>(__LINE__ - 1);
  b.emit0(opcode::cf_return, {}, {});
  b.finish_into(p);
  const function& f = p.functions.front();
  CHECK(f.loc.line == header);
  CHECK(f.params.front().loc.line == header + 2);
  CHECK(f.loc_of(op_id{0}).line == load);
  CHECK(f.loc_of(op_id{2}) == location{});
  CHECK(std::string(p.file.view()).ends_with("ir_test.cpp"));
  const std::vector<diagnostic> errors = verify(p);
  REQUIRE_FALSE(errors.empty());
  CHECK(errors.front().loc.line == ret);
  CHECK(std::string(format_all(errors, p.file.view()).view()).find("ir_test.cpp:" + std::to_string(ret) + ":") !=
        std::string::npos);
  program named;
  named.file = text("kernel.cc");
  function_builder c(function_kind::aiv, "k");
  c.finish_into(named);
  CHECK(named.file.view() == "kernel.cc");  // a program's own file name wins
}

namespace {
// A pool of 4 MB or more asks for huge pages outside constant evaluation only: the reserve
// still works at compile time (names: 4 MB of chars, so the advice would be asked for).
constexpr bool large_reserve_in_constant_evaluation() {
  function_builder b(function_kind::aiv, "k");
  b.reserve({.names = std::size_t{4} << 20});
  return b.fn().names.capacity() >= (std::size_t{4} << 20);
}
static_assert(large_reserve_in_constant_evaluation());

/// The VmFlags of the mapping holding `p` in /proc/self/smaps ("" when not found).
std::string vm_flags_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') inside = lo <= at && at < hi;
    else if (inside && line.starts_with("VmFlags:")) return line;
  }
  return {};
}
}  // namespace

TEST_CASE("a large arena reserve asks for huge pages where the kernel has them") {
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  if (!std::getline(thp, modes) || modes.find("[never]") != std::string::npos) {
    MESSAGE("no transparent huge pages here: nothing to check");
    return;
  }
  function_builder b(function_kind::aiv, "k");
  const std::size_t ops = (std::size_t{16} << 20) / sizeof(op_node);
  b.reserve({.ops = ops, .operands = 16});
  const char* data = reinterpret_cast<const char*>(b.fn().ops.data());
  // The middle of a 16 MB pool lies in a whole aligned 2 MB page; a small pool is left alone.
  CHECK(vm_flags_at(data + (std::size_t{8} << 20)).find(" hg") != std::string::npos);
  CHECK(vm_flags_at(b.fn().operands.data()).find(" hg") == std::string::npos);
}
