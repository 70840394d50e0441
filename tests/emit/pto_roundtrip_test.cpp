// SPDX-License-Identifier: Apache-2.0
/// @file pto_roundtrip_test.cpp
/// The PTO-AS round trip (emit/pto_read.hpp, emit/pto_roundtrip.hpp; issue 52 item 10):
/// - every example kernel and hand-written Buffer golden, lowered under each planner, target and
///   rollout, reads back structurally equal (here in both builds, the sanitized one included,
///   where the dialect test does not run);
/// - a wrong keyword, operand, type or op in the emitted text (one mutation per class the emitter
///   translates: rounding mode, saturation, precision, valid operands, address, layout, isBinary,
///   op, operand order, predicate, target, kernel kind, float literal, a conversion to BOOL, the
///   floor-modulo expansion, a conversion's signedness, the narrowing subview of a matmul, a Left's
///   layout) reads back as a different
///   program, with a located message naming what differs;
/// - malformed text gets an error, never a crash.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/emit/pto_read.hpp"
#include "tile2buffer/emit/pto_roundtrip.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/parse.hpp"

using namespace tile2buffer;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string joined(const std::vector<diagnostic>& ds) { return std::string(format_all(ds, "k").view()); }

/// `source` parsed and, when it holds a Tile kernel, lowered with `o`.
program prepared(const std::string& source, const options& o) {
  auto parsed = parse(source, "k.t2b");
  REQUIRE_MESSAGE(parsed.ok(), joined(parsed.errors));
  bool tile = false;
  for (const function& f : parsed.value.functions) tile = tile || (f.is_device() && f.stage == ir_stage::tile);
  if (!tile) return parsed.value;
  auto lowered = lower(parsed.value, o);
  REQUIRE_MESSAGE(lowered.ok(), joined(lowered.errors));
  return lowered.value;
}

pto_options emit_options(const program& p, target_arch t) {
  return pto_options{.target = t, .skip_tile_kernels = any_buffer_kernel(p)};
}

/// Casts of every mode FP32 -> FP16, a high-precision recip, a reduction with runtime valid rows.
constexpr std::string_view casts_kernel =
    R"(aiv @casts(X: Tensor[[16, 64], FP32], A: out Tensor[[16, 64], FP16], B: out Tensor[[16, 64], FP16], C: out Tensor[[16, 64], FP32]) -> (Tensor[[16, 64], FP16], Tensor[[16, 64], FP16], Tensor[[16, 64], FP32]) {
  x = tile.load(X, (0, 0), (16, 64)) : Tile[[16, 64], FP32, Vec]
  up = tile.cast(x, FP16, mode = 4) : Tile[[16, 64], FP16, Vec]
  down = tile.cast(x, FP16, mode = 5) : Tile[[16, 64], FP16, Vec]
  r = tile.recip(x, high_precision = true) : Tile[[16, 64], FP32, Vec]
  r0 = tile.store(up, (0, 0), A) : Tensor[[16, 64], FP16]
  r1 = tile.store(down, (0, 0), B) : Tensor[[16, 64], FP16]
  r2 = tile.store(r, (0, 0), C) : Tensor[[16, 64], FP32]
  return r0, r1, r2
}
)";

/// Scalars the PTO form spells otherwise: a conversion to BOOL (`x != 0`), conversion chains, an
/// unsigned value, named constants, float literals of an FP16 op.
constexpr std::string_view scalars_kernel =
    R"(aiv @scalars(X: Tensor[[16, 32], FP16], Out: out Tensor[[16, 32], FP16], n: Scalar[INT32], u: Scalar[UINT8], f: Scalar[FP32]) -> Tensor[[16, 32], FP16] attributes {stage = buffer} {
  a = buffer.alloc(()) : Buffer[[16, 32], FP16, Vec]
  b = buffer.alloc(()) : Buffer[[16, 32], FP16, Vec]
  buffer.load(X, (0, 0), (16, 32), a)
  c = 7 : INDEX
  flag = cast(n, BOOL)
  nf = not flag
  w = cast(n, INT64)
  g = cast(w, FP32)
  h = cast(g, FP16)
  ui = cast(u, INDEX)
  m = min(ui, c)
  buffer.muls(a, h, b)
  buffer.adds(b, 0.1, a)
  buffer.maximums(a, f, b)
  if nf {
    buffer.full(2.5, a)
  }
  buffer.store(b, (m, 0), (16, 32), Out)
  return Out
}
)";

struct subject {
  std::string name;
  std::string source;
  options opts;
};

const subject& subject_named(std::string_view name) {
  static const std::vector<subject> subjects = [] {
    const std::filesystem::path examples(T2B_EXAMPLES_DIR), golden(T2B_GOLDEN_DIR);
    const options extended{.planner = planner_kind::pypto, .rollout = rollout_kind::extended};
    return std::vector<subject>{
        {"casts", std::string(casts_kernel), extended},
        {"scalars", std::string(scalars_kernel), options{}},
        {"softmax", read_file(examples / "zoo" / "softmax.t2b"), extended},
        {"col_reductions", read_file(golden / "lower" / "extended" / "col_reductions.t2b"), extended},
        {"control", read_file(golden / "emit" / "buffer_control_flow.t2b"), options{}},
        {"wider_right", read_file(golden / "emit" / "matmul_wider_right.t2b"), options{}},
        {"gemm", read_file(examples / "zoo" / "gemm_bias_relu.t2b"), options{}},
    };
  }();
  for (const subject& s : subjects)
    if (s.name == name) return s;
  FAIL("no subject " << name);
  return subjects.front();
}

/// One wrong translation: in the generic PTO-AS of `subject`, `from` (which must occur) becomes
/// `to` (`all`: every occurrence), and the round trip must report `expect`.
struct mutation {
  std::string_view what;
  std::string_view subject;
  std::string_view from;
  std::string_view to;
  std::string_view expect;
  bool all = false;
};

}  // namespace

TEST_CASE("every example kernel and Buffer golden reads back as the Buffer IR it came from") {
  std::vector<std::filesystem::path> files;
  for (const auto& dir : {std::filesystem::path(T2B_EXAMPLES_DIR), std::filesystem::path(T2B_EXAMPLES_DIR) / "zoo",
                          std::filesystem::path(T2B_GOLDEN_DIR) / "emit"})
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".t2b" && e.path().filename().string().find("-invalid") == std::string::npos)
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int checked = 0;
  for (const auto& path : files) {
    auto parsed = parse(read_file(path), path.filename().string());
    if (!parsed) continue;  // a golden of t2b-opt's own diagnostics
    for (const planner_kind planner : {planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas})
      for (const target_arch target : {target_arch::a2a3, target_arch::a5})
        for (const rollout_kind rollout : {rollout_kind::standard, rollout_kind::extended}) {
          const auto lowered = lower(parsed.value, options{.planner = planner, .target = target, .rollout = rollout});
          if (!lowered || !any_buffer_kernel(lowered.value)) continue;
          const pto_options po = emit_options(lowered.value, target);
          if (!emit_pto(lowered.value, po)) continue;  // the preflight's refusals: tests/golden/emit/preflight
          INFO(path.filename().string(), " ", name(planner), " ", name(target), " ", name(rollout));
          const auto differ = check_pto_roundtrip(lowered.value, po);
          CHECK_MESSAGE(differ.empty(), joined(differ));
          ++checked;
        }
  }
  // Why a floor: the corpus must not silently lose its kernels.
  MESSAGE(checked << " lowered programs read back");
  CHECK(checked >= 150);
}

TEST_CASE("a wrong translation in the PTO-AS reads back as a different Buffer program") {
  // clang-format off
  const mutation cases[] = {
      {"rounding mode 4 written as TRUNC", "casts", "round_mode CEIL", "round_mode TRUNC",
       "buffer.cast FP32 -> FP16 with mode = 4 rounds CEIL, but its PTO-AS reads back as rmode TRUNC (mode = 5)"},
      {"rounding mode 5 written as CEIL", "casts", "round_mode TRUNC", "round_mode CEIL",
       "with mode = 5 rounds TRUNC, but its PTO-AS reads back as rmode CEIL"},
      {"saturation ON for a float pair", "casts", "sat_mode = #pto<saturation_mode OFF>", "sat_mode = #pto<saturation_mode ON>",
       "pto.tcvt FP32 -> FP16 says sat_mode = ON, but buffer.cast does not saturate that pair"},
      {"saturation left out", "casts", ", sat_mode = #pto<saturation_mode OFF>", "", "pto.tcvt without sat_mode"},
      {"precision dropped", "casts", "#pto<recip_precision high_precision>", "#pto<recip_precision default>",
       "buffer.recip keyword high_precision = true reads back as absent"},
      {"precision where the Buffer op has none", "softmax", "#pto<div_precision default>", "#pto<div_precision high_precision>",
       "precisionType high_precision has no buffer.row_expand_div counterpart"},
      {"valid operands swapped", "softmax", "\"pto.alloc_tile\"(%c0_i64, %c16, %c64)", "\"pto.alloc_tile\"(%c0_i64, %c64, %c16)",
       "buffer.alloc operand init_valid: (16, 64) reads back as (64, 16)"},
      {"address changed", "softmax", "\"pto.alloc_tile\"(%c4096_i64)", "\"pto.alloc_tile\"(%c8192_i64)",
       "buffer.alloc operand address: 4096 reads back as 8192"},
      {"column vector printed row_major", "softmax", "rows=16, cols=1, v_row=16, v_col=1, blayout=col_major",
       "rows=16, cols=1, v_row=16, v_col=1, blayout=row_major", "reads back as Buffer[[16, 1], FP32, Vec, valid=[16, 1], blayout=row_major", true},
      {"sequential column sum written binary", "col_reductions", "isBinary = false", "isBinary = true",
       "pto.tcolsum isBinary = true sums pairwise; buffer.col_sum sums row by row"},
      {"another op", "softmax", "\"pto.trowmax\"", "\"pto.trowmin\"", "buffer.row_max reads back as buffer.row_min"},
      {"sources swapped", "control", "\"pto.tmul\"(%a, %b, %b)", "\"pto.tmul\"(%b, %a, %b)", "buffer.mul operand lhs: 'a' reads back as 'b'"},
      {"another predicate", "softmax", "<{predicate = 4 : i64}>", "<{predicate = 5 : i64}>", "scalar.gt reads back as scalar.ge"},
      {"another target", "softmax", "pto.target_arch = \"a3\"", "pto.target_arch = \"a5\"", "its target a2a3 reads back as another pto.target_arch"},
      {"another kernel kind", "softmax", "#pto.kernel_kind<vector>", "#pto.kernel_kind<cube>", "its kind aiv reads back as aic"},
      {"load offsets swapped", "softmax", "\"pto.partition_view\"(%tv0, %row, %c0,", "\"pto.partition_view\"(%tv0, %c0, %row,",
       "buffer.load operand offsets: ('row', 0) reads back as (0, 'row')"},
      {"floor modulo with another predicate", "control", "\"arith.cmpi\"(%rem, %c0) <{predicate = 2 : i64}>",
       "\"arith.cmpi\"(%rem, %c0) <{predicate = 3 : i64}>", "arith.remsi is not followed by the emitter's floor-modulo expansion"},
      {"an unsigned value sign-extended", "control", "\"arith.extui\"", "\"arith.extsi\"",
       "arith.extsi from %cast_0 sign-extends the bits of an unsigned value or a BOOL"},
      {"the Right narrowed to other rows", "wider_right", "(%b_l0, %c0, %c0, %c8, %c10)", "(%b_l0, %c0, %c0, %c10, %c10)",
       "buffer.matmul's Right reads back through a subview that is not the whole-tile narrowing to the Left's K"},
      {"another float literal", "scalars", "9.997550e-02 : f16", "1.999510e-01 : f16",
       "buffer.adds operand scalar: 0.1 reads back as 0.199951"},
      {"a conversion to BOOL compared otherwise", "scalars", "<{predicate = 1 : i64}>", "<{predicate = 0 : i64}>",
       "cast('n', BOOL) reads back as scalar.eq (expected a comparison != 0)"},
      {"a Left printed with the Buffer layout", "gemm", "loc=left, dtype=f16, rows=64, cols=64, v_row=64, v_col=64, blayout=row_major",
       "loc=left, dtype=f16, rows=64, cols=64, v_row=64, v_col=64, blayout=col_major", "reads back as Buffer[[64, 64], FP16, Left", true},
  };
  // clang-format on
  for (const mutation& m : cases) {
    INFO(m.what);
    const subject& s = subject_named(m.subject);
    const program p = prepared(s.source, s.opts);
    pto_options po = emit_options(p, s.opts.target);
    REQUIRE(check_pto_roundtrip(p, po).empty());
    po.generic = true;
    const auto emitted = emit_pto(p, po);
    REQUIRE(emitted.ok());
    std::string text(emitted.value.view());
    const std::size_t at = text.find(m.from);
    REQUIRE_MESSAGE(at != std::string::npos, "the emitted text has no '" << m.from << "':\n" << text);
    if (m.all) {
      for (std::size_t i = at; i != std::string::npos; i = text.find(m.from, i + m.to.size()))
        text.replace(i, m.from.size(), m.to);
    } else {
      text.replace(at, m.from.size(), m.to);
    }
    const auto reading = read_pto(text);
    const std::vector<diagnostic> differ = reading ? compare_pto_reading(p, reading.value, text, po) : reading.errors;
    REQUIRE_MESSAGE(!differ.empty(), "the mutated text read back as the same program");
    const std::string said = joined(differ);
    CHECK_MESSAGE(said.find(m.expect) != std::string::npos, said);
    // Located: a difference at its op (line > 0), a text that does not read at its PTO-AS line.
    CHECK(differ.front().loc.known());
  }
}

TEST_CASE("the round trip tells the cast modes apart that the PTO form must carry") {
  // Modes 0 and 1 both mean RINT for FP32 -> FP16 (ir/cast.hpp); 2..5 are four different roundings.
  const subject& s = subject_named("casts");
  const program p = prepared(s.source, s.opts);
  const auto emitted = emit_pto(p, pto_options{.generic = true, .skip_tile_kernels = true});
  REQUIRE(emitted.ok());
  const std::string text(emitted.value.view());
  CHECK(text.find("round_mode CEIL") != std::string::npos);
  CHECK(text.find("round_mode TRUNC") != std::string::npos);
  for (const std::string_view other : {"NONE", "RINT", "ROUND", "FLOOR", "ODD"}) {
    std::string wrong = text;
    wrong.replace(wrong.find("round_mode CEIL"), 15, "round_mode " + std::string(other));
    const auto reading = read_pto(wrong);
    REQUIRE(reading.ok());
    CHECK_MESSAGE(!compare_pto_reading(p, reading.value, wrong, pto_options{.skip_tile_kernels = true}).empty(), other);
  }
}

TEST_CASE("a float literal is compared by the value its constant's type holds, not by its spelling") {
  // 0.1 in an FP16 op is 0.0999755859375; MLIR prints it 9.997550e-02, and any spelling of that
  // value reads back as the same program.
  const subject& s = subject_named("scalars");
  const program p = prepared(s.source, s.opts);
  const auto emitted = emit_pto(p, pto_options{.generic = true});
  REQUIRE(emitted.ok());
  std::string text(emitted.value.view());
  const std::size_t at = text.find("9.997550e-02 : f16");
  REQUIRE(at != std::string::npos);
  text.replace(at, 12, "0.0999755859375");
  const auto reading = read_pto(text);
  REQUIRE(reading.ok());
  CHECK(compare_pto_reading(p, reading.value, text).empty());
}

TEST_CASE("malformed PTO-AS gets an error, never a crash") {
  const subject& s = subject_named("control");
  const program p = prepared(s.source, s.opts);
  const auto emitted = emit_pto(p, pto_options{.generic = true, .skip_tile_kernels = true});
  REQUIRE(emitted.ok());
  const std::string text(emitted.value.view());
  REQUIRE(read_pto(text).ok());
  // Every proper prefix is an unfinished module.
  for (std::size_t n = 0; n < text.size(); n += 7) {
    const auto r = read_pto(std::string_view(text).substr(0, n));
    CHECK_MESSAGE(!r.ok(), n);
    if (!r.ok()) CHECK(r.errors.front().source.view() == "pto-read");
  }
  // Bytes changed at random: read or rejected, whatever they hit.
  std::uint64_t state = 52;
  for (int i = 0; i < 400; ++i) {
    std::string bad = text;
    for (int k = 0; k < 3; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      bad[(state >> 33) % bad.size()] = "%\"(){}<>[],:=!^ -0x9aZ\n"[(state >> 17) % 24];
    }
    (void)read_pto(bad);
  }
  const struct {
    std::string_view input, expect;
  } named[] = {
      {"", "expected an op name in quotes (the generic form)"},
      {"module attributes {pto.target_arch = \"a3\"} {\n}\n", "expected an op name in quotes (the generic form)"},
      {"\"builtin.module\"() ({\n}) : () -> ()\n", "the module needs pto.target_arch"},
      {"\"builtin.module\"() ({\n}) {pto.target_arch = \"a3\"} : () -> () trailing", "expected the end of the input"},
      {"\"builtin.module\"() ({\n  \"func.func\"() <{function_type = () -> (), sym_name = \"f\"}> ({\n    \"func.return\"() : () -> ()\n  "
       "}) : () -> ()\n}) {pto.target_arch = \"a9\"} : () -> ()\n",
       "pto.target_arch = \"a2\", \"a3\" or \"a5\""},
      {"\"builtin.module\"() ({\n  \"func.func\"() <{function_type = () -> (), sym_name = \"f\"}> ({\n    \"pto.tfoo\"() : () -> ()\n    "
       "\"func.return\"() : () -> ()\n  }) : () -> ()\n}) {pto.target_arch = \"a3\"} : () -> ()\n",
       "\"pto.tfoo\" is not a PTO op the emitter writes"},
      {"\"builtin.module\"() ({\n  \"func.func\"() <{function_type = () -> (), sym_name = \"f\"}> ({\n    %y = \"arith.addi\"(%x, %x) "
       "<{overflowFlags = #arith.overflow<none>}> : (index, index) -> index\n    \"func.return\"() : () -> ()\n  }) : () -> ()\n}) "
       "{pto.target_arch = \"a3\"} : () -> ()\n",
       "operand %x is not defined before it"},
  };
  for (const auto& c : named) {
    INFO(c.input);
    const auto r = read_pto(c.input);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().loc.known());
    CHECK_MESSAGE(std::string(r.errors.front().message.view()).find(c.expect) != std::string::npos,
                  r.errors.front().message.view());
  }
  // Regions nested past the parser's limit: an error, not a stack overflow.
  std::string deep = "\"builtin.module\"() ({\n";
  for (int i = 0; i < 400; ++i) deep += "\"scf.if\"(%c) ({\n";
  const auto r = read_pto(deep);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.errors.front().message.view()).find("nest too deeply") != std::string::npos);
}

TEST_CASE("the reader reads integers to the int64 range and tile_bufs in their fixed key order") {
  using detail::pto_read_int;
  CHECK(pto_read_int("-9223372036854775808") == std::optional<std::int64_t>(INT64_MIN));
  CHECK(pto_read_int("9223372036854775807") == std::optional<std::int64_t>(INT64_MAX));
  CHECK_FALSE(pto_read_int("9223372036854775808"));
  CHECK_FALSE(pto_read_int("-"));
  CHECK_FALSE(pto_read_int("1x"));
  text why;
  const auto t = detail::pto_read_tile_buf(
      "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=32, v_row=?, v_col=8, blayout=col_major, slayout=row_major, fractal=1024, pad=2, "
      "compact=1>",
      why);
  REQUIRE(t);
  CHECK(t->space == memory_space::acc);
  CHECK(t->valid[0].is_runtime());
  CHECK(t->valid[1] == extent::of(8));
  CHECK(t->pad == pad_value::max);
  CHECK(t->compact == compact_mode::normal);
  CHECK_FALSE(
      detail::pto_read_tile_buf("!pto.tile_buf<dtype=f32, loc=vec, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, "
                                "slayout=none_box, fractal=512, pad=0>",
                                why));
  CHECK_FALSE(
      detail::pto_read_tile_buf("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=17, v_col=32, blayout=row_major, "
                                "slayout=none_box, fractal=512, pad=0>",
                                why));
}
