// SPDX-License-Identifier: Apache-2.0
/// @file serialize_test.cpp
/// The binary IR format: exact round trips (structure, names, locations, attributes, bytes) of
/// every example kernel and golden input before and after lowering with each planner, lowering
/// a restored program again, and strict reading: every mutation of a valid file that breaks the
/// schema gives one diagnostic naming the field, and no input crashes the reader.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/serialize/roundtrip.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;
using bytes = std::vector<std::uint8_t>;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
std::string str(const text& t) { return std::string(t.view()); }

/// Every `.t2b` file under `dir` (recursively), sorted.
std::vector<std::filesystem::path> t2b_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().extension() == ".t2b") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bytes to_binary(const program& p) {
  auto r = serialize(p);
  REQUIRE_MESSAGE(r.ok(), str(format_all(r.errors, "")));
  return r.value;
}

/// Names and locations are outside structural equality; compare them op by op, value by value.
void check_names_and_locations(const function& a, const function& b) {
  CHECK(a.name_of() == b.name_of());
  CHECK(a.loc == b.loc);
  REQUIRE(a.params.size() == b.params.size());
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    CHECK(a.params[i].loc == b.params[i].loc);
    CHECK(a.name_of(a.params[i].value) == b.name_of(b.params[i].value));
  }
  std::vector<op_id> oa, ob;
  walk(a, [&](op_id o) { oa.push_back(o); });
  walk(b, [&](op_id o) { ob.push_back(o); });
  REQUIRE(oa.size() == ob.size());
  for (std::size_t i = 0; i < oa.size(); ++i) {
    const op_node& na = a.op(oa[i]);
    const op_node& nb = b.op(ob[i]);
    CHECK(a.loc_of(oa[i]) == b.loc_of(ob[i]));
    REQUIRE(na.results.count == nb.results.count);
    for (std::uint32_t r = 0; r < na.results.count; ++r) CHECK(a.name_of(a.result(oa[i], r)) == b.name_of(b.result(ob[i], r)));
    for (std::uint32_t g = 0; g < na.region_count; ++g) {
      const region_info& ra = a.region(a.region_of(oa[i], g));
      const region_info& rb = b.region(b.region_of(ob[i], g));
      REQUIRE(ra.args.count == rb.args.count);
      for (std::uint32_t k = 0; k < ra.args.count; ++k)
        CHECK(a.name_of(value_id{ra.args.begin + k}) == b.name_of(value_id{rb.args.begin + k}));
    }
  }
}

/// The round-trip contract on one program; returns the restored program.
program check_round_trip(const program& p, const std::string& what) {
  INFO(what);
  const bytes once = to_binary(p);
  REQUIRE(is_binary(once));
  const result<program> back = deserialize(once);
  REQUIRE_MESSAGE(back.ok(), str(format_all(back.errors, what)));
  CHECK(structurally_equal(p, back.value));
  CHECK(back.value.file == p.file);
  REQUIRE(back.value.functions.size() == p.functions.size());
  for (std::size_t i = 0; i < p.functions.size(); ++i) check_names_and_locations(p.functions[i], back.value.functions[i]);
  CHECK(str(print(back.value)) == str(print(p)));
  CHECK(to_binary(back.value) == once);  // the writer is canonical: same program, same bytes
  CHECK(verify(back.value).size() == verify(p).size());
  // The round-trip check finds nothing lost either (it compares what the checks above do, and
  // more: every name, location, keyword and type field).
  const std::vector<diagnostic> lost = check_binary_roundtrip(p);
  CHECK_MESSAGE(lost.empty(), str(format_all(lost, what)));
  return back.value;
}

constexpr planner_kind planners[] = {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas};

//===--- a tiny MessagePack DOM, to mutate valid files field by field ---===//

struct node {
  enum kind_t { nil, boolean, integer, str, array, map } kind = nil;
  std::int64_t num = 0;
  std::string s;
  std::vector<node> items;        // array elements, or map values
  std::vector<std::string> keys;  // map keys, in order (parallel to items)

  node* find(std::string_view key) {
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == key) return &items[i];
    return nullptr;
  }
  void add(std::string key, node value) {
    keys.push_back(std::move(key));
    items.push_back(std::move(value));
  }
  void erase(std::string_view key) {
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == key) {
        keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(i));
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
    FAIL("no key " << key);
  }
  node& operator[](std::string_view key) {
    node* n = find(key);
    REQUIRE_MESSAGE(n != nullptr, std::string(key));
    return *n;
  }
};

node decode(msgpack::reader& r) {
  node n;
  switch (r.peek()) {
    case msgpack::family::nil: r.nil(); break;
    case msgpack::family::boolean: n.kind = node::boolean, n.num = r.boolean() ? 1 : 0; break;
    case msgpack::family::integer: n.kind = node::integer, n.num = r.integer(); break;
    case msgpack::family::str: n.kind = node::str, n.s = std::string(r.str()); break;
    case msgpack::family::array: {
      n.kind = node::array;
      const std::size_t c = r.array();
      for (std::size_t i = 0; i < c; ++i) n.items.push_back(decode(r));
      break;
    }
    case msgpack::family::map: {
      n.kind = node::map;
      const std::size_t c = r.map();
      for (std::size_t i = 0; i < c; ++i) {
        std::string key(r.str());
        n.add(key, decode(r));
      }
      break;
    }
    default: FAIL("unexpected MessagePack family in a written file");
  }
  return n;
}
/// Another writer's choices: every integer as int64 (0xd3), every map's keys in reverse order
/// except keyword arguments, whose order is part of the IR.
node reordered(node n, bool is_kwargs = false) {
  for (std::size_t i = 0; i < n.items.size(); ++i)
    n.items[i] = reordered(n.items[i], n.kind == node::map && n.keys[i] == "kwargs");
  if (n.kind == node::map && !is_kwargs) {
    std::reverse(n.keys.begin(), n.keys.end());
    std::reverse(n.items.begin(), n.items.end());
  }
  return n;
}
void encode(const node& n, msgpack::writer& w, bool wide_ints);
void encode(const node& n, msgpack::writer& w) { encode(n, w, false); }
bytes int64_bytes(std::int64_t v) {
  bytes b{0xd3};
  for (int i = 7; i >= 0; --i) b.push_back(static_cast<std::uint8_t>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff));
  return b;
}
void encode(const node& n, msgpack::writer& w, bool wide_ints) {
  switch (n.kind) {
    case node::nil: w.nil(); return;
    case node::boolean: w.boolean(n.num != 0); return;
    case node::integer:
      if (!wide_ints) w.integer(n.num);
      else w.raw(int64_bytes(n.num));
      return;
    case node::str: w.str(n.s); return;
    case node::array:
      w.array(n.items.size());
      for (const auto& i : n.items) encode(i, w, wide_ints);
      return;
    case node::map:
      w.map(n.keys.size());
      for (std::size_t i = 0; i < n.keys.size(); ++i) {
        w.str(n.keys[i]);
        encode(n.items[i], w, wide_ints);
      }
      return;
  }
}
node dom(const bytes& b) {
  msgpack::reader r(b);
  node n = decode(r);
  REQUIRE(r.ok());
  REQUIRE(r.pos() == b.size());
  return n;
}
bytes encode(const node& n) {
  msgpack::writer w;
  encode(n, w);
  return w.take();
}
node int_node(std::int64_t v) {
  node n;
  n.kind = node::integer;
  n.num = v;
  return n;
}
node str_node(std::string v) {
  node n;
  n.kind = node::str;
  n.s = std::move(v);
  return n;
}

/// The message of the single diagnostic reading `b` must give, checked to contain each part.
std::string read_error(const bytes& b) {
  const auto r = deserialize(b);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].source == "binary");
  CHECK(r.value.functions.empty());
  return str(r.errors[0].message);
}
void check_error(const node& doc, std::initializer_list<std::string_view> parts) {
  const std::string m = read_error(encode(doc));
  for (const auto part : parts) CHECK_MESSAGE(m.find(part) != std::string::npos, "'" << part << "' not in: " << m);
}

/// A small program with every operand kind, a runtime valid extent, a value extent, storage,
/// kwargs, regions with arguments, attributes and locations.
const char* const sample =
    R"(aiv @k(A: Tensor[[16, 32], FP32, stride=[32, 1]], Out: out Tensor[[16, 32], FP32], n: Scalar[INDEX]) -> Tensor[[16, 32], FP32] attributes {stage = buffer, buffer_ir_selected = true, target = a2a3} {
  c = 16 : INDEX
  b = buffer.alloc((c, 32), 2048) : Buffer[[16, 32], FP32, Vec, valid=[?, ?]]
  buffer.load(A, (0, 0), (16, 32), b)
  buffer.muls(b, 2.5, b)
  buffer.div(b, b, b, high_precision = true)
  r = for i in range(0, n, 1) iter(x = 0) -> (INDEX) {
    y = x + 1
    yield y
  }
  buffer.store(b, (r, 0), (16, 32), Out)
  return Out
}

aiv @t(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], v: Scalar[INDEX]) -> Tensor[[16, 32], FP32] {
  m = tile.alloc(Vec, 2048, addr = 64)
  x = tile.load(A, (0, 0), (16, 32), (v, 32)) : Tile[[16, 32], FP32, Vec, valid=[v, 32]] in m[0]
  s = tile.store(x, (0, 0), Out) : Tensor[[16, 32], FP32]
  return s
}

orchestration @main(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) {
  t0 = submit @k(A, Out, 4)
  t1 = submit @t(A, Out, 16) deps(t0)
  return
}
)";

/// Every map's keys, joined in the order written; a kwargs map's keys are IR, not schema.
void key_orders(const node& n, std::set<std::string>& out, bool is_kwargs = false) {
  if (n.kind == node::map && !is_kwargs) {
    std::string joined;
    for (const auto& k : n.keys) joined += (joined.empty() ? "" : ",") + k;
    out.insert(joined);
  }
  for (std::size_t i = 0; i < n.items.size(); ++i) key_orders(n.items[i], out, n.kind == node::map && n.keys[i] == "kwargs");
}

program sample_program() {
  auto r = parse(sample, "sample.t2b");
  REQUIRE_MESSAGE(r.ok(), str(format_all(r.errors, "sample.t2b")));
  REQUIRE_MESSAGE(verify(r.value).empty(), str(format_all(verify(r.value), "sample.t2b")));
  return r.value;
}

}  // namespace

TEST_CASE("round trip: the sample program keeps every field") {
  const program p = sample_program();
  const program back = check_round_trip(p, "sample");
  // Spot checks on what structural equality already covers, so a regression names the field.
  const function& k = back.functions[0];
  CHECK(k.stage == ir_stage::buffer);
  CHECK(k.buffer_ir_selected == std::optional<bool>(true));
  CHECK(k.target == std::optional<target_arch>(target_arch::a2a3));
  CHECK(k.params[1].dir == direction::out);
  CHECK(k.type_of(k.params[0].value).has_stride);
  CHECK(back.functions[1].buffer_ir_selected == std::nullopt);
  CHECK(back.functions[2].kind == function_kind::orchestration);
}

TEST_CASE("the writer lists every record's keys in the documented order") {
  // docs/binary-format.md, one line per record (and per kind where the kind selects the keys).
  // clang-format off
  const std::set<std::string> documented{
      "file,functions",
      "kind,name,loc,stage,buffer_ir_selected,target,value_count,params,results,body",
      "id,name,type,direction,loc",
      "id,name,type",
      "args,ops",
      "op,loc,args,kwargs,regions,results",
      "kind,id",
      "kind,value",
      "kind,mantissa,exp10",
      "kind,elements",
      "kind",
      "kind,dtype",
      "kind,shape,dtype,layout,stride",
      "kind,shape,dtype,space,valid,blayout,slayout,fractal,pad,compact",
      "kind,shape,dtype,space,valid,blayout,slayout,fractal,pad,compact,storage",
      "mem,offset",
      "value"};
  // clang-format on
  std::set<std::string> written;
  key_orders(dom(to_binary(sample_program())), written);
  CHECK(written == documented);
}

TEST_CASE("round trip: every example kernel, before and after lowering with each planner") {
  int lowered_kernels = 0;
  for (const auto& path : t2b_files(T2B_EXAMPLES_DIR)) {
    const std::string name = path.filename().string();
    INFO(name);
    const auto parsed = parse(read_file(path), name);
    REQUIRE_MESSAGE(parsed.ok(), str(format_all(parsed.errors, name)));
    check_round_trip(parsed.value, name);
    for (const planner_kind planner : planners) {
      const auto lowered = lower(parsed.value, options{.planner = planner});
      if (!lowered.ok()) continue;  // inputs the pipeline rejects have nothing more to persist
      const program restored = check_round_trip(lowered.value, name + " lowered with " + std::string(tile2buffer::name(planner)));
      for (const auto& f : restored.functions) lowered_kernels += f.stage == ir_stage::buffer ? 1 : 0;
      // Lowering the restored program again gives the same program (idempotence survives persistence).
      const auto again = lower(restored, options{.planner = planner});
      REQUIRE_MESSAGE(again.ok(), str(format_all(again.errors, name)));
      CHECK(structurally_equal(again.value, lowered.value));
      // And lowering the restored Tile input gives what lowering the original gave.
      const auto from_restored_input = lower(deserialize(to_binary(parsed.value)).value, options{.planner = planner});
      REQUIRE(from_restored_input.ok());
      CHECK(structurally_equal(from_restored_input.value, lowered.value));
    }
  }
  CHECK(lowered_kernels >= 9);  // 01, 02 (one kernel) and 03 lower today, with three planners each
}

TEST_CASE("round trip: every golden input that parses") {
  int checked = 0;
  for (const auto& path : t2b_files(T2B_GOLDEN_DIR)) {
    const auto parsed = parse(read_file(path), path.filename().string());
    if (!parsed.ok()) continue;  // -invalid inputs that fail to parse test the parser, not us
    check_round_trip(parsed.value, path.string());
    ++checked;
  }
  CHECK(checked >= 40);
}

TEST_CASE("round trip: float literals, negative and wide integers, empty names") {
  function_builder b(function_kind::incore, "lits", location{3, 9});
  const value_id s = b.param("", scalar_type(dtype::fp32), direction::in, location{3, 20});
  const operand big[] = {operand::integer(-9223372036854775807LL - 1),
                         operand::integer(9223372036854775807LL),
                         operand::integer(-33),
                         operand::integer(-129),
                         operand::integer(65536),
                         operand::decimal(-15, -40),
                         operand::decimal(1, 300),
                         operand::boolean(false)};
  const operand t = b.tuple(big);
  const operand nested = b.tuple({t, operand::of(s), operand::of(dtype::bf16), operand::of(memory_space::acc)});
  const type results[] = {scalar_type(dtype::fp32)};
  const std::string_view names[] = {""};
  b.emit(opcode::scalar_add, std::initializer_list<operand>{operand::of(s), operand::decimal(25, -1)}, std::span<const kwarg>{},
         results, names, location{4, 1});
  b.emit(opcode::cf_return, std::initializer_list<operand>{nested}, std::span<const kwarg>{}, {}, {}, location{5, 1});
  program p;
  p.functions.push_back(b.finish());
  check_round_trip(p, "literals");
}

TEST_CASE("a file from another writer (any key order, wider integers) reads the same") {
  const program p = sample_program();
  const bytes canonical = to_binary(p);
  const node doc = dom(canonical);
  const node envelope_first = doc;  // the envelope is an array: its order is fixed
  node d = envelope_first;
  d.items[2] = reordered(doc.items[2]);
  msgpack::writer w;
  encode(d, w, true);
  const bytes other = w.take();
  REQUIRE(other != canonical);
  const auto back = deserialize(other);
  REQUIRE_MESSAGE(back.ok(), str(format_all(back.errors, "other")));
  CHECK(structurally_equal(p, back.value));
  CHECK(to_binary(back.value) == canonical);
  // Keyword order is part of the IR: reversing a kwargs map changes the program.
  function_builder b(function_kind::aiv, "kw");
  const type ty = tile_type(16, 32, dtype::fp32);
  const kwarg kws[] = {kwarg{keyword::atomic, operand::integer(0)}, kwarg{keyword::st_phase, operand::integer(0)}};
  const std::string_view names[] = {"r"};
  b.emit(opcode::tile_store, std::initializer_list<operand>{}, kws, std::span<const type>(&ty, 1), names, location{});
  program q;
  q.functions.push_back(b.finish());
  node kd = dom(to_binary(q));
  auto& kw = kd.items[2]["functions"].items[0]["body"]["ops"].items[0]["kwargs"];
  std::reverse(kw.keys.begin(), kw.keys.end());
  std::reverse(kw.items.begin(), kw.items.end());
  const auto swapped = deserialize(encode(kd));
  REQUIRE(swapped.ok());
  CHECK_FALSE(structurally_equal(q, swapped.value));
}

TEST_CASE("strict: every truncation fails with one diagnostic") {
  const bytes b = to_binary(sample_program());
  for (std::size_t n = 0; n < b.size(); ++n) {
    const bytes cut(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
    const auto r = deserialize(cut);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.errors.size() == 1);
  }
  CHECK(read_error(bytes(b.begin(), b.end() - 1)).find("truncated") != std::string::npos);
  bytes extra = b;
  extra.push_back(0xc0);
  CHECK(read_error(extra).find("trailing bytes") != std::string::npos);
}

TEST_CASE("strict: byte corruption never crashes; what still reads is verifiable and printable") {
  const bytes b = to_binary(sample_program());
  int failures = 0;
  for (std::size_t i = 0; i < b.size(); ++i)
    for (const std::uint8_t v : {std::uint8_t{0x00}, std::uint8_t{0xff}, std::uint8_t{0xc1}, std::uint8_t(b[i] ^ 0x01),
                                 std::uint8_t{0xdf}, std::uint8_t{0x7f}}) {
      bytes c = b;
      c[i] = v;
      const auto r = deserialize(c);
      if (!r.ok()) {
        ++failures;
        CHECK(r.errors.size() == 1);
        continue;
      }
      (void)verify(r.value);
      (void)print(r.value);
    }
  CHECK(failures > 0);
}

TEST_CASE("strict: envelope, version and magic") {
  const node doc = dom(to_binary(sample_program()));
  node d = doc;
  d.items[1] = int_node(2);
  check_error(d, {"unsupported binary IR version 2", "version 1"});
  d = doc;
  d.items[0] = str_node("tile2buffer-IR");
  check_error(d, {"not a tile2buffer binary IR file"});
  d = doc;
  d.items.pop_back();
  check_error(d, {"[magic, version, program]"});
  CHECK(read_error(bytes{}).find("truncated") != std::string::npos);
  CHECK_FALSE(is_binary(std::string_view("aiv @k() {\n}\n")));
  d = doc;
  d.items[1] = str_node("1");
  check_error(d, {"expected an integer, got a string"});
}

TEST_CASE("strict: missing, unexpected and duplicate fields name the field and its path") {
  const node doc = dom(to_binary(sample_program()));
  node d = doc;
  d.items[2]["functions"].items[0].erase("stage");
  check_error(d, {"missing required field 'stage'", "functions[0]"});

  d = doc;
  d.items[2]["functions"].items[0].add("memref", int_node(0));
  check_error(d, {"unexpected field 'memref' in a function", "unexpected fields", "functions[0]"});

  d = doc;
  {
    auto& fn = d.items[2]["functions"].items[0];
    fn.add("name", str_node("again"));
  }
  check_error(d, {"duplicate field 'name'", "functions[0]"});

  // A Buffer descriptor names no storage: a legacy storage-carrying field is rejected in the
  // reference's words ("unexpected field '<k>'"), and §7's ("unexpected fields"), at its path.
  for (const std::string_view key : {"memref", "base", "addr", "storage"}) {
    CAPTURE(key);
    d = doc;
    {
      auto& op = d.items[2]["functions"].items[0]["body"]["ops"].items[1];  // b = buffer.alloc(...)
      auto& ty = op["results"].items[0]["type"];
      REQUIRE(ty["kind"].s == "buffer");
      ty.add(std::string(key), int_node(2048));
    }
    const std::string phrase = "unexpected field '" + std::string(key) + "' in a buffer type";
    check_error(d, {phrase.c_str(), "unexpected fields", "functions[0].body.ops[1].results[0].type"});
  }
  d = doc;
  {
    auto& ty = d.items[2]["functions"].items[0]["body"]["ops"].items[1]["results"].items[0]["type"];
    ty.erase("fractal");
  }
  check_error(d, {"missing required field 'fractal'", "results[0].type"});
}

TEST_CASE("strict: wrong field types, unknown names and out-of-range values") {
  const node doc = dom(to_binary(sample_program()));
  const auto alloc_type = [](node& d) -> node& {
    return d.items[2]["functions"].items[0]["body"]["ops"].items[1]["results"].items[0]["type"];
  };
  node d = doc;
  alloc_type(d)["shape"].items[1] = str_node("32");
  check_error(d, {"shape must be an integer array", "must be an integer", "type.shape[1]"});
  d = doc;
  alloc_type(d)["shape"].items.pop_back();
  check_error(d, {"shape must be an array of 2 elements"});
  d = doc;
  alloc_type(d)["dtype"] = str_node("FP64");
  check_error(d, {"unknown dtype 'FP64'", "type.dtype"});
  d = doc;
  alloc_type(d)["valid"].items[0] = str_node("*");
  check_error(d, {"must be \"?\"", "type.valid[0]"});
  d = doc;
  alloc_type(d)["fractal"] = int_node(-1);
  check_error(d, {"fractal must be an integer in", "type.fractal"});
  d = doc;
  alloc_type(d)["pad"] = int_node(0);
  check_error(d, {"expected a string, got an integer", "type.pad"});

  d = doc;
  d.items[2]["functions"].items[0]["body"]["ops"].items[2]["op"] = str_node("buffer.lod");
  check_error(d, {"unknown op 'buffer.lod'", "ops[2].op"});
  d = doc;
  d.items[2]["functions"].items[0]["body"]["ops"].items[4]["kwargs"].keys[0] = "precision";
  check_error(d, {"Unknown kwarg 'precision'"});
  d = doc;
  d.items[2]["functions"].items[0]["params"].items[1]["direction"] = str_node("sideways");
  check_error(d, {"unknown direction 'sideways'", "params[1].direction"});
  d = doc;
  d.items[2]["functions"].items[0]["loc"].items[0] = int_node(-1);
  check_error(d, {"a line must be an integer", "functions[0].loc[0]"});
  d = doc;
  d.items[2]["functions"].items[0]["buffer_ir_selected"] = int_node(1);
  check_error(d, {"expected a boolean, got an integer", "buffer_ir_selected"});
}

TEST_CASE("strict: value ids, counts and region shapes") {
  const node doc = dom(to_binary(sample_program()));
  const auto ops = [](node& d) -> node& { return d.items[2]["functions"].items[0]["body"]["ops"]; };
  node d = doc;
  ops(d).items[2]["args"].items[3]["id"] = int_node(99);  // buffer.load(..., b): b's id
  check_error(d, {"value id 99 is out of range", "value_count"});
  d = doc;
  ops(d).items[0]["results"].items[0]["id"] = int_node(7);
  check_error(d, {"value id 7 is out of order: expected 3"});
  d = doc;
  d.items[2]["functions"].items[0]["value_count"] = int_node(20);
  check_error(d, {"value_count is 20 but the function defines"});
  d = doc;
  ops(d).items[5]["regions"].items.pop_back();  // the for loop
  check_error(d, {"op 'for' has 1 regions, got 0"});
  d = doc;
  ops(d).items[2]["results"] = ops(d).items[1]["results"];  // buffer.load defines no result
  check_error(d, {"op 'buffer.load' defines no result"});
  d = doc;
  ops(d).items[3]["args"].items[1]["exp10"] = int_node(40000);
  check_error(d, {"exp10 must be an integer in"});
  d = doc;
  ops(d).items[3]["args"].items[1]["kind"] = str_node("double");
  check_error(d, {"unknown operand kind 'double'", "ops[3].args[1].kind"});
  d = doc;
  d.items[2]["functions"].items[0]["body"]["args"] = ops(d).items[0]["results"];
  check_error(d, {"the function body takes no arguments"});
}

TEST_CASE("strict: non-map objects and non-string keys") {
  const node doc = dom(to_binary(sample_program()));
  node d = doc;
  d.items[2]["functions"].items[0] = int_node(5);
  check_error(d, {"expected a function (a map), got an integer", "functions[0]"});
  // A map with an integer key, written by hand.
  msgpack::writer w;
  w.array(3);
  w.str(binary_magic);
  w.integer(binary_version);
  w.map(1);
  w.integer(1);
  w.integer(2);
  const std::string m = read_error(w.take());
  CHECK(m.find("field names must be strings") != std::string::npos);
}

TEST_CASE("msgpack: the reader accepts every integer width another writer may choose") {
  // 5 as uint8, uint16, uint32, uint64, int8, int16, int32, int64; -5 as int16.
  const bytes encodings[] = {{0xcc, 5}, {0xcd, 0, 5}, {0xce, 0, 0, 0, 5}, {0xcf, 0, 0, 0, 0, 0, 0, 0, 5},
                             {0xd0, 5}, {0xd1, 0, 5}, {0xd2, 0, 0, 0, 5}, {0xd3, 0, 0, 0, 0, 0, 0, 0, 5}};
  for (const auto& e : encodings) {
    msgpack::reader r(e);
    CHECK(r.integer() == 5);
    CHECK(r.ok());
  }
  const bytes minus{0xd1, 0xff, 0xfb};
  msgpack::reader r(minus);
  CHECK(r.integer() == -5);
  const bytes too_big{0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0};
  msgpack::reader big(too_big);
  (void)big.integer();
  CHECK_FALSE(big.ok());
  // A huge declared array in a short input is rejected before any allocation.
  const bytes huge{0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0};
  msgpack::reader h(huge);
  CHECK(h.array() == 0);
  CHECK(str(h.error()).find("cannot fit") != std::string::npos);
}

//===--- the round-trip instrument (issue 52 item 8): a lossy reader is caught ---===//

namespace {

/// Readers that read correctly and then lose one thing, as a buggy reader or writer would.
result<program> read_dropping_stage(std::span<const std::uint8_t> b) {
  result<program> r = deserialize(b);
  for (function& f : r.value.functions) f.stage = ir_stage::tile;
  return r;
}
/// Drops the second operand of the first op that has two value operands.
result<program> read_dropping_operand(std::span<const std::uint8_t> b) {
  result<program> r = deserialize(b);
  for (function& f : r.value.functions)
    for (std::uint32_t o = 0; o < f.ops.size(); ++o) {
      const span32 args = f.ops[o].args;
      if (args.count >= 2 && f.operands[args.begin].is_value() && f.operands[args.begin + 1].is_value()) {
        f.operands[args.begin + 1] = operand{};
        return r;
      }
    }
  return r;
}
/// Turns the first FP32 Buffer type into FP16.
result<program> read_dropping_dtype(std::span<const std::uint8_t> b) {
  result<program> r = deserialize(b);
  for (function& f : r.value.functions)
    for (std::uint32_t v = 0; v < f.values.size(); ++v)
      if (type t = f.type_of(value_id{v}); t.is_buffer() && t.dt == dtype::fp32) {
        t.dt = dtype::fp16;
        f.retype(value_id{v}, t);
        return r;
      }
  return r;
}
/// Forgets every op's location.
result<program> read_dropping_locations(std::span<const std::uint8_t> b) {
  result<program> r = deserialize(b);
  for (function& f : r.value.functions)
    for (location& l : f.op_locs) l = location{};
  return r;
}
/// Corrupts the bytes, not the program: the first "FP32" written becomes "FP16".
result<program> read_corrupted_dtype(std::span<const std::uint8_t> b) {
  bytes c(b.begin(), b.end());
  const std::string_view from = "\xa4"
                                "FP32",
                         to = "\xa4"
                              "FP16";
  const auto at = std::search(c.begin(), c.end(), from.begin(), from.end(),
                              [](std::uint8_t x, char y) { return x == static_cast<std::uint8_t>(y); });
  if (at != c.end()) std::copy(to.begin(), to.end(), at);
  return deserialize(c);
}

const char* const two_kernels =
    R"(aiv @k(A: Tensor[[16, 32], FP32], B: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  a = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  b = tile.load(B, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  c = tile.add(a, b) : Tile[[16, 32], FP32, Vec]
  r = tile.store(c, (0, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
)";

program lowered_sample() {
  const auto p = parse(two_kernels, "rt.t2b");
  REQUIRE(p.ok());
  const auto l = lower(p.value, options{});
  REQUIRE_MESSAGE(l.ok(), str(format_all(l.errors, "rt.t2b")));
  return l.value;
}
std::string lost_by(const program& p, binary_reader_fn read, location* where = nullptr) {
  const std::vector<diagnostic> d = check_binary_roundtrip(p, "lower", read);
  REQUIRE(d.size() == 1);
  CHECK(d[0].source == "roundtrip");
  if (where != nullptr) *where = d[0].loc;
  return str(d[0].message);
}

}  // namespace

TEST_CASE("roundtrip: the binary form of a lowered program keeps everything") {
  const program p = lowered_sample();
  CHECK(check_binary_roundtrip(p).empty());
  CHECK(check_binary_roundtrip(p, "lower", &deserialize<>).empty());  // the reader passed explicitly
}

TEST_CASE("roundtrip: a reader that loses the stage, an operand, a type or a location fails the check, naming it") {
  const program p = lowered_sample();
  location at;
  CHECK(lost_by(p, &read_dropping_stage, &at) ==
        "Binary roundtrip failed after pass 'lower': @k: the function's stage was buffer, reads back tile");
  CHECK(at == location{1, 1});
  CHECK(lost_by(p, &read_dropping_operand, &at) ==
        "Binary roundtrip failed after pass 'lower': @k: buffer.add: operand 1 was `b`, reads back nothing");
  CHECK(at == location{4, 3});
  const std::string dtype_lost = lost_by(p, &read_dropping_dtype, &at);
  CHECK(dtype_lost ==
        "Binary roundtrip failed after pass 'lower': @k: buffer.alloc result `a`: its type's dtype was FP32, reads back FP16");
  CHECK(at == location{2, 3});
  CHECK(lost_by(p, &read_dropping_locations, &at) ==
        "Binary roundtrip failed after pass 'lower': @k: buffer.alloc `a`: its location was 2:3, reads back no location");
  CHECK(lost_by(p, &read_corrupted_dtype) ==
        "Binary roundtrip failed after pass 'lower': @k: parameter `A`: its type's dtype was FP32, reads back FP16");
}

TEST_CASE("roundtrip: the instrument fails a pipeline run after the first pass whose output does not survive") {
  const auto parsed = parse(two_kernels, "rt.t2b");
  REQUIRE(parsed.ok());
  // The real reader: every pass of the default pipeline is checked, and the run succeeds.
  binary_roundtrip_instrument ok;
  const pass_observer watching = ok.observer();
  const result<program> good = run_pipeline(parsed.value, options{}, std::nullopt, {}, &watching);
  REQUIRE_MESSAGE(good.ok(), str(format_all(good.errors, "rt.t2b")));
  CHECK(ok.checked == std::vector<std::string_view>{"init_storage", "select", "legalize", "verify_tile_storage", "plan", "lower",
                                                    "verify_buffer"});
  // A reader that loses the stage: only Buffer-stage programs lose something, so `lower` fails.
  binary_roundtrip_instrument lossy{.read = &read_dropping_stage};
  const pass_observer lossy_watch = lossy.observer();
  const result<program> bad = run_pipeline(parsed.value, options{}, std::nullopt, {}, &lossy_watch);
  REQUIRE_FALSE(bad.ok());
  REQUIRE(bad.errors.size() == 1);
  CHECK(str(bad.errors[0].message) ==
        "Binary roundtrip failed after pass 'lower': @k: the function's stage was buffer, reads back tile");
  CHECK(lossy.checked.back() == "lower");
  // A reader that loses locations fails at the first pass.
  binary_roundtrip_instrument no_locations{.read = &read_dropping_locations};
  const pass_observer no_locations_watch = no_locations.observer();
  const result<program> early = run_pipeline(parsed.value, options{}, std::nullopt, {}, &no_locations_watch);
  REQUIRE_FALSE(early.ok());
  CHECK(str(early.errors[0].message).rfind("Binary roundtrip failed after pass 'init_storage': @k: ", 0) == 0);
}
