// SPDX-License-Identifier: Apache-2.0
/// @file fuzz_pipeline.cpp
/// libFuzzer property target over the whole pipeline (issue 16 item 2). The bytes choose a
/// generator shape (straight line, windows, valid extents, regions, cube; the first four also
/// with the extended rollout's ops, lowered under `rollout = extended`), a seed, a length, the
/// generator's probabilities and the options (planner, target, `enable_buffer_ir`); the generated
/// Tile program is lowered and these properties are checked, each violation an abort with a
/// one-line reason:
///   - a kernel that `select` marks selected lowers without error and reaches the Buffer stage;
///   - the input is unchanged after lowering (structural equality with a copy), failed or not;
///   - explicit `lower` on the planned program, as planned and with its allocations moved (a hand
///     placement), returns Buffer IR that passes `verify_buffer` or fails with diagnostics, and on
///     the pipeline's own plan prints what the pipeline prints (support/explicit_lowering.hpp);
///   - lowering is deterministic (two runs print the same) and idempotent (lowering the output
///     again prints the same);
///   - the output verifies, passes the PTO preflight (`emit_pto`), its PTO-AS reads back as the
///     Buffer IR it came from (`check_pto_roundtrip`, emit/pto_roundtrip.hpp), and it survives a
///     binary and a text round trip structurally equal;
///   - lowered under the other rollout too, every kernel selection lowers passes the PTO preflight
///     (so under both rollouts, for every input; the generator also draws kernels the PTO kernel
///     ABI forbids and FP16/BF16 reductions, which selection must keep Tile);
///   - every lowered kernel computes what its Tile program computes in the reference simulator,
///     under every generated binding of its runtime scalars.
/// Byte layout: [shape] [length] [options] [seed x8] [12 probability bytes, 0: the default]; shorter inputs pad
/// with zeros, so every input means something.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "support/explicit_lowering.hpp"
#include "support/gen_program.hpp"
#include "support/numerics.hpp"
#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/emit/pto_roundtrip.hpp"
#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

using namespace tile2buffer;

namespace {

[[noreturn]] void violated(const char* what, const program& tile, const options& o) {
  std::fprintf(stderr, "fuzz_pipeline: property violated: %s (planner %s, target %s, rollout %s, enable_buffer_ir %d)\n%s\n",
               what, std::string(name(o.planner)).c_str(), std::string(name(o.target)).c_str(),
               std::string(name(o.rollout)).c_str(), o.enable_buffer_ir ? 1 : 0, std::string(print(tile).view()).c_str());
  std::abort();
}

struct input {
  std::span<const std::uint8_t> bytes;
  std::size_t at = 0;
  std::uint8_t next() { return at < bytes.size() ? bytes[at++] : std::uint8_t{0}; }
  /// A probability in [0.02, 0.98]: the ends are left out because the generator's shapes
  /// assume some of each kind of step.
  double probability() { return 0.02 + 0.96 * next() / 255.0; }
};

testing::gen_options shape_options(std::uint8_t shape, input& in) {
  testing::gen_options o;
  // Why these rows: the campaign tests' settings for each shape (tools/campaign.cpp).
  switch ((shape & 0x7f) % 5) {  // the top bit is the extended rollout (below)
    case 0: break;
    case 1: o.windows = true, o.rows = 8; break;
    case 2: o.valid_extents = true, o.windows = (shape & 8) != 0, o.rows = 8; break;
    case 3: o.regions = true, o.windows = (shape & 8) != 0, o.rows = 8; break;
    default: o.cube = true; break;
  }
  o.fp16 = (shape & 16) == 0;
  o.int32 = (shape & 32) == 0;
  o.bf16 = (shape & 64) == 0;
  // Kernels that must stay Tile (gen_options): the fuzzer's defaults, a byte overrides them.
  o.half_reduction_probability = 0.1;
  o.abi_probability = 0.1;
  double* const knobs[] = {&o.load_probability,           &o.store_probability,          &o.window_probability,
                           &o.runtime_offset_probability, &o.partial_valid_probability,  &o.region_probability,
                           &o.cube_loop_probability,      &o.cube_acc_probability,       &o.cube_transpose_probability,
                           &o.cube_extract_probability,   &o.half_reduction_probability, &o.abi_probability};
  for (double* k : knobs)
    if (const std::uint8_t b = in.next(); b != 0) *k = 0.02 + 0.96 * (b - 1) / 254.0;
  return o;
}

std::string printed(const program& p) { return std::string(print(p).view()); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  input in{std::span<const std::uint8_t>(data, size)};
  const std::uint8_t shape = in.next();
  const int length = 2 + in.next() % 30;
  const std::uint8_t bits = in.next();
  options o;
  o.planner = static_cast<planner_kind>(bits % 3);
  o.target = (bits & 4) != 0 ? target_arch::a5 : target_arch::a2a3;
  o.enable_buffer_ir = (bits & 0x38) != 0;  // off for one input in eight
  std::uint64_t seed = 0;
  for (int i = 0; i < 8; ++i) seed = seed << 8 | in.next();
  testing::gen_options g = shape_options(shape, in);
  // The extended rollout for one input in two of the elementwise shapes (the generator draws its
  // reductions, broadcasts, casts and rsqrt, and lowering consults its recipes).
  if ((shape & 128) != 0 && !g.cube) {
    g.extended = true;
    o.rollout = rollout_kind::extended;
  }

  const testing::gen_plan plan = testing::generate_plan(seed, length, g);
  const program tile = testing::emit(plan);
  const program before = tile;
  if (!verify(tile).empty()) violated("the generator produced a program that does not verify", tile, o);

  const result<program> selected = run_pipeline(tile, o, pass_id::select);
  const result<program> lowered = lower(tile, o);
  if (!structurally_equal(tile, before)) violated("lowering modified its input", tile, o);
  if (const std::string why = testing::explicit_lowering_problem(tile, o, seed); !why.empty()) violated(why.c_str(), tile, o);
  if (!lowered) {
    if (selected)
      for (const function& f : selected.value.functions)
        if (f.buffer_ir_selected.value_or(false)) violated("a selected kernel failed to lower", tile, o);
    return 0;
  }
  const program& out = lowered.value;
  if (selected)
    for (std::size_t i = 0; i < out.functions.size(); ++i)
      if (selected.value.functions[i].buffer_ir_selected.value_or(false) && out.functions[i].stage != ir_stage::buffer)
        violated("a selected kernel stayed Tile", tile, o);
  if (!o.enable_buffer_ir)
    for (const function& f : out.functions)
      if (f.stage == ir_stage::buffer) violated("enable_buffer_ir = false, yet a kernel reached Buffer IR", tile, o);

  const std::string text = printed(out);
  const result<program> again = lower(tile, o);
  if (!again || printed(again.value) != text) violated("two lowerings of one program differ", tile, o);
  const result<program> twice = lower(out, o);
  if (!twice || printed(twice.value) != text) violated("lowering is not idempotent", tile, o);

  if (!verify(out).empty()) violated("the lowered program does not verify", tile, o);
  bool any_buffer = false;
  for (const function& f : out.functions) any_buffer = any_buffer || f.stage == ir_stage::buffer;
  if (any_buffer && !emit_pto(out)) violated("a lowered kernel fails the PTO preflight", tile, o);
  if (any_buffer)
    if (const auto differ = check_pto_roundtrip(out, pto_options{.target = o.target, .skip_tile_kernels = true});
        !differ.empty()) {
      std::fprintf(stderr, "%s%s\n", std::string(format_all(differ, "lowered").view()).c_str(), printed(out).c_str());
      violated("the PTO-AS does not read back as its Buffer IR", tile, o);
    }
  // The same under the other rollout: whatever selection lowers has a PTO form. (A failed
  // lowering is judged when an input picks that rollout, as above.)
  options other = o;
  other.rollout = o.rollout == rollout_kind::standard ? rollout_kind::extended : rollout_kind::standard;
  const auto buffer_stage = [](const function& f) { return f.stage == ir_stage::buffer; };
  if (const result<program> again = lower(tile, other);
      again && std::any_of(again.value.functions.begin(), again.value.functions.end(), buffer_stage) && !emit_pto(again.value))
    violated("a kernel lowered under the other rollout fails the PTO preflight", tile, other);
  // T2B_FUZZ_PTO_DIR (test lower-fuzz-pipeline, where a dialect checker exists): every 8th lowered program's PTO-AS in both forms,
  // which tests/pto-dialect/check_pto_dialect.py then reads with the checker dialect.
  static const char* const pto_dir = std::getenv("T2B_FUZZ_PTO_DIR");
  static unsigned pto_count = 0;
  if (any_buffer && pto_dir != nullptr && pto_count++ % 8 == 0) {
    const std::string stem = std::string(pto_dir) + "/fuzz-" + std::to_string(pto_count) + "-" + std::string(name(o.planner)) +
                             "-" + std::string(name(o.target));
    for (const bool generic : {false, true}) {
      const auto emitted = emit_pto(out, pto_options{.generic = generic, .target = o.target, .skip_tile_kernels = true});
      if (!emitted) violated("a lowered kernel fails the PTO preflight", tile, o);
      if (std::FILE* f = std::fopen((stem + (generic ? ".generic.pto" : ".pto")).c_str(), "w")) {
        std::fwrite(emitted.value.view().data(), 1, emitted.value.view().size(), f);
        std::fclose(f);
      }
    }
  }
  const auto bytes = serialize(out);
  if (!bytes) violated("the lowered program does not serialize", tile, o);
  const result<program> read = deserialize(bytes.value);
  if (!read || !structurally_equal(read.value, out)) violated("binary round trip changed the program", tile, o);
  const result<program> reparsed = parse(text, "fuzz.t2b");
  if (!reparsed || !structurally_equal(reparsed.value, out)) violated("text round trip changed the program", tile, o);

  // T2B_FUZZ_BREAK_ADDRESSES (test lower-fuzz-pipeline-detects-a-bug): simulate a planner that
  // puts every buffer at address 0, to prove the numerics property can fail.
  static const bool broken = std::getenv("T2B_FUZZ_BREAK_ADDRESSES") != nullptr;
  const program simulated = broken ? testing::collapse_addresses(out) : program{};
  for (const function& f : out.functions) {
    if (f.stage != ir_stage::buffer) continue;
    for (const testing::gen_binding& b : testing::bindings(plan)) {
      const auto report =
          testing::check_numerics(tile, broken ? simulated : out, f.name_of(), testing::sim_options_for(plan, b, seed));
      if (!report.ok) {
        std::fprintf(stderr, "binding %s\n%s\n", testing::describe(b).c_str(), std::string(report.text).c_str());
        violated("the simulator disagrees with the Tile program", tile, o);
      }
    }
  }
  return 0;
}
