// SPDX-License-Identifier: Apache-2.0
/// @file campaign.cpp
/// `t2b-campaign`: the generated differential campaign as a tool (issue 16 item 3). N generated
/// kernels (seeds S..S+N-1, cycling through the chosen shapes) are lowered with each chosen
/// planner; every lowered kernel is run against its Tile program in the reference simulator under
/// every binding of its runtime scalars; explicit lowering of its planned form must verify
/// (support/explicit_lowering.hpp). Prints one summary line; each failing (seed, planner)
/// is written to DIR as a `.t2b` reproducer, as is a kernel whose selection contradicts the
/// generator (one it built to stay Tile, or any on a5, was lowered, or stayed Tile for another
/// reason than the one it was built with; or a straight-line kernel stayed Tile on a2a3). Every
/// kernel is also lowered under the other rollout, and every lowering of either rollout that
/// selection lowered must pass the PTO preflight (`check_pto`: the emitter's own checks, on every
/// kernel; a refusal is a failure). With `--pto-out DIR`, every `--pto-every`-th kernel's lowered
/// program is also emitted as PTO-AS in both forms (DIR/seed-S-PLANNER-TARGET.pto and
/// .generic.pto) for the external dialect check (tests/pto-dialect), a sample. The line and
/// extended shapes also draw kernels that must stay Tile (a construct the PTO kernel ABI forbids;
/// extended: an FP16/BF16 reduction; gen_options). The
/// `extended` shape lowers with `rollout = extended`; each of its kernels that uses an extended op
/// must also stay Tile under the default rollout. Before the summary, one line per shape (kernels,
/// lowered, stayed Tile) and, with the extended shape, how many ops of each extended family the
/// lowered kernels held. Every lowered program's PTO-AS must also read back as the Buffer IR it
/// came from (emit/pto_roundtrip.hpp; a kernel the emitter refuses is the preflight check's failure).
/// Exit codes: 0 clean, 1 mismatches or failures, 2 bad command line.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "decimal_arg.hpp"
#include "support/explicit_lowering.hpp"
#include "support/gen_program.hpp"
#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/emit/pto_roundtrip.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/select.hpp"
#include "tile2buffer/sim/compare.hpp"
#include "tile2buffer/text/print.hpp"

namespace {

using namespace tile2buffer;

/// The generator shapes, with the options and kernel lengths of their campaign tests
/// (tests/lower/campaign_test.cpp, window_campaign_test.cpp, valid_campaign_test.cpp,
/// region_campaign_test.cpp, cube_campaign_test.cpp).
/// `extended`: the extended rollout's ops (reductions, broadcasts, cast, rsqrt) drawn in
/// straight-line kernels, kernels with valid extents and kernels with regions, and cube kernels
/// whose Mat operands may reach L0 through Mat windows (by seed modulo 4), lowered with
/// `rollout = extended`.
enum class shape : std::uint8_t { line, windows, valid, regions, cube, extended };
constexpr std::string_view shape_names[] = {"line", "windows", "valid", "regions", "cube", "extended"};
constexpr std::size_t shape_count = std::size(shape_names);

/// The extended shape's kind of kernel: 0 straight-line, 1 valid extents, 2 regions, 3 cube. Why
/// not `seed % 4`: with all six shapes the extended seeds are every sixth one, all of one residue.
constexpr int extended_variant(std::uint64_t seed) { return static_cast<int>((seed + seed / 6) % 4); }

/// `tile_only`: the line and extended shapes also draw kernels that must stay Tile (off under
/// --break-selection, whose check wants every line kernel reported as kept Tile).
testing::gen_plan plan_for(shape s, std::uint64_t seed, bool tile_only) {
  testing::gen_options o;
  switch (s) {
    case shape::line:
      o.gm_parameter_probability = 1.0 / 3;
      o.abi_probability = tile_only ? 0.05 : 0;
      return testing::generate_plan(seed, 8 + static_cast<int>(seed % 40), o);
    case shape::windows:
      o.windows = true;
      o.rows = 8;
      return testing::generate_plan(seed, 8 + static_cast<int>(seed % 16), o);
    case shape::valid:
      o.valid_extents = true;
      o.windows = seed % 2 == 0;
      o.rows = 8;
      return testing::generate_plan(seed, 6 + static_cast<int>(seed % 12), o);
    case shape::regions:
      o.regions = true;
      o.windows = seed % 2 == 0;
      o.rows = 8;
      o.gm_parameter_probability = 0.25;
      o.region_valid_probability = 0.3;
      return testing::generate_plan(seed, 6 + static_cast<int>(seed % 12), o);
    case shape::cube:
      o.cube = true;
      o.cube_guard_probability = 0.5;
      return testing::generate_plan(seed, 6 + static_cast<int>(seed % 20), o);
    case shape::extended:
      o.extended = true;
      o.half_reduction_probability = tile_only ? 0.1 : 0;
      o.abi_probability = tile_only ? 0.05 : 0;
      o.column_transfer_probability = 0.3;
      if (extended_variant(seed) == 0) {
        o.gm_parameter_probability = 1.0 / 3;
        return testing::generate_plan(seed, 8 + static_cast<int>(seed % 32), o);
      }
      if (extended_variant(seed) == 3) {  // quantized-path.md §2.5: Mat windows (gen_program.cpp finish)
        o.cube = true;
        o.cube_guard_probability = 0.5;
        o.cube_extract_probability = 0.5;
        return testing::generate_plan(seed, 6 + static_cast<int>(seed % 20), o);
      }
      o.rows = 8;
      o.windows = seed / 7 % 2 == 0;
      (extended_variant(seed) == 1 ? o.valid_extents : o.regions) = true;
      if (extended_variant(seed) == 2) o.region_valid_probability = 0.3;  // quantized-path.md §2.6
      return testing::generate_plan(seed, 6 + static_cast<int>(seed % 14), o);
  }
  return {};
}

struct config {
  std::uint64_t kernels = 100;
  std::uint64_t seed = 1;
  std::vector<shape> shapes{shape::line, shape::windows, shape::valid, shape::regions, shape::cube, shape::extended};
  std::vector<planner_kind> planners{planner_kind::pypto, planner_kind::dsa_rp, planner_kind::ptoas};
  std::vector<target_arch> targets{target_arch::a2a3};
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string out = ".";
  std::string pto_out;           ///< where the PTO-AS of sampled lowered kernels goes ("" = nowhere)
  std::uint64_t pto_every = 1;   ///< sample rate: kernels whose index is a multiple of it
  bool break_addresses = false;  ///< hidden: proves the campaign reports a wrong lowering
  bool break_selection = false;  ///< hidden: lowers nothing, proves it reports kernels kept Tile
  bool break_pto = false;        ///< hidden: an emitter writing every address as 0, proves it reports a wrong read-back
};

/// The extended rollout's op families, counted in the Tile programs of lowered kernels: by each
/// op's record (a new member is counted with its family), and rsqrt, the extended rollout's one
/// elementwise op.
constexpr std::string_view tally_names[] = {"row reductions", "column reductions",
                                            "row broadcasts", "column broadcasts",
                                            "casts",          "rsqrt",
                                            "Mat windows",    "runtime valid state in region bodies",
                                            "Acc tails"};
constexpr int tally_of(opcode c) {
  if (c == opcode::tile_rsqrt) return 5;
  if (!is_tile_op(c)) return -1;
  switch (family_of(c)) {
    case op_family::row_reduction: return 0;
    case op_family::col_reduction: return 1;
    case op_family::row_broadcast:
    case op_family::row_broadcast_arith: return 2;
    case op_family::col_broadcast:
    case op_family::col_broadcast_arith: return 3;
    case op_family::cast: return 4;
    case op_family::single:
    case op_family::scalar_arith:
    case op_family::scalar_compare:
    case op_family::scalar_logic:
    case op_family::control:
    case op_family::elementwise:
    case op_family::spmd_query: return -1;
  }
  return -1;
}
/// The family of op `n` of `f`: tally_of, and a Mat window (quantized-path.md §2.5), a tile.slice
/// of a Mat tile, by its space.
constexpr int tally_of(const function& f, const op_node& n) {
  if (n.code() == opcode::tile_slice && f.type_of(value_id{n.results.begin}).space == memory_space::mat) return 6;
  // An Acc tail (§2.6): a tile.set_validshape of an accumulator.
  if (n.code() == opcode::tile_set_validshape && f.type_of(value_id{n.results.begin}).space == memory_space::acc) return 8;
  return tally_of(n.code());
}
constexpr std::size_t family_count = std::size(tally_names);

struct tally {
  std::uint64_t kernels = 0, lowerings = 0, lowered = 0, stayed_tile = 0, mismatches = 0, failures = 0, preflights = 0;
  std::uint64_t roundtrips = 0;  ///< lowered programs whose PTO-AS read back as their Buffer IR
  std::array<std::uint64_t, shape_count> shape_kernels{}, shape_lowered{}, shape_stayed{};
  std::array<std::uint64_t, family_count> families{};  ///< extended ops in lowered kernels (per lowering)
  void add(const tally& t) {
    kernels += t.kernels;
    lowerings += t.lowerings;
    lowered += t.lowered;
    stayed_tile += t.stayed_tile;
    mismatches += t.mismatches;
    failures += t.failures;
    preflights += t.preflights;
    roundtrips += t.roundtrips;
    for (std::size_t i = 0; i < shape_count; ++i) {
      shape_kernels[i] += t.shape_kernels[i];
      shape_lowered[i] += t.shape_lowered[i];
      shape_stayed[i] += t.shape_stayed[i];
    }
    for (std::size_t i = 0; i < family_count; ++i) families[i] += t.families[i];
  }
};


/// Writes DIR/seed-<seed>-<planner>.t2b: a `#` comment header, then the Tile program. Why the
/// Tile program: `t2b-opt --planner=P --check-numerics=SEED FILE` lowers and compares it again.
/// `selection`: the failure is the kernel's selection, which `--explain-selection` shows.
void write_reproducer(const config& cfg, std::uint64_t seed, shape s, const options& opts, const std::string& binding,
                      const std::string& report, const program& tile, bool selection = false) {
  const std::filesystem::path path =
      std::filesystem::path(cfg.out) /
      ("seed-" + std::to_string(seed) + "-" + std::string(name(opts.planner)) + "-" + std::string(name(opts.target)) + ".t2b");
  std::ofstream f(path);
  f << "# t2b-campaign seed " << seed << ", shape " << shape_names[static_cast<int>(s)] << ", planner " << name(opts.planner)
    << ", target " << name(opts.target) << "\n# binding: " << binding << "\n# reproduce: t2b-opt --planner=" << name(opts.planner)
    << " --target=" << name(opts.target) << (opts.rollout == rollout_kind::extended ? " --rollout=extended" : "")
    << (opts.enable_buffer_ir ? "" : " --no-buffer-ir")
    << (selection ? std::string(" --explain-selection") : " --check-numerics=" + std::to_string(seed)) << " "
    << path.filename().string() << "\n";
  // Why only a note: t2b-opt has no binding flags; it runs block 0 with the simulator's default
  // scalars (offsets 0, extents full), which may not be the binding that failed.
  if (binding != "block_idx=0" && binding != "-")
    f << "# (t2b-opt runs block 0 with default scalars, not necessarily this binding)\n";
  if (cfg.break_addresses) f << "# (--break-addresses: the failure was injected after lowering)\n";
  std::istringstream lines(report);
  std::string line;
  for (int i = 0; i < 8 && std::getline(lines, line); ++i) f << "# " << line << "\n";
  f << std::string_view(print(tile).view());
  if (!f) std::fprintf(stderr, "t2b-campaign: cannot write %s\n", path.string().c_str());
}

/// Writes the PTO-AS of `lowered` in both forms under cfg.pto_out; false when the emitter refuses.
bool write_pto(const config& cfg, std::uint64_t seed, const options& opts, const program& lowered) {
  const std::string stem =
      (std::filesystem::path(cfg.pto_out) /
       ("seed-" + std::to_string(seed) + "-" + std::string(name(opts.planner)) + "-" + std::string(name(opts.target))))
          .string();
  for (const bool generic : {false, true}) {
    const auto emitted = emit_pto(lowered, pto_options{.generic = generic, .target = opts.target, .skip_tile_kernels = true});
    if (!emitted) return false;
    std::ofstream f(stem + (generic ? ".generic.pto" : ".pto"));
    f << emitted.value.view();
    if (!f) std::fprintf(stderr, "t2b-campaign: cannot write %s\n", stem.c_str());
  }
  return true;
}

/// Why the PTO-AS of `lowered` does not read back as `lowered` (emit/pto_roundtrip.hpp), or empty.
/// A program the emitter refuses has nothing to read back: the preflight check above reports that.
std::string pto_roundtrip_problem(const config& cfg, const program& lowered, const options& opts) {
  const pto_options po{.target = opts.target, .skip_tile_kernels = true};
  std::vector<diagnostic> differ;
  if (cfg.break_pto) {
    pto_options generic = po;
    generic.generic = true;
    const auto emitted = emit_pto(testing::collapse_addresses(lowered), generic);
    if (!emitted) return {};
    const auto reading = read_pto(emitted.value.view());
    differ = reading ? compare_pto_reading(lowered, reading.value, emitted.value.view(), po) : reading.errors;
  } else {
    differ = check_pto_roundtrip(lowered, po);
  }
  if (differ.empty() || differ.front().source.view() == detail::pto_source) return {};
  return "the PTO-AS does not read back as its Buffer IR (t2b-opt --planner=" + std::string(name(opts.planner)) +
         " --target=" + std::string(name(opts.target)) + (opts.rollout == rollout_kind::extended ? " --rollout=extended" : "") +
         " --emit=pto --verify-pto-roundtrip shows it)\n" + std::string(format_all(differ, "lowered").view());
}

/// One lowering of a kernel, checked: it must succeed, select as the generator intends, and
/// agree with the Tile program in the simulator under every binding.
void lower_and_check(const config& cfg, std::uint64_t seed, shape s, const testing::gen_plan& plan, const program& tile,
                     const options& opts, tally& t) {
  ++t.lowerings;
  const auto lowered = lower(tile, opts);
  if (!lowered.ok()) {
    ++t.failures;
    write_reproducer(cfg, seed, s, opts, "-", std::string(format_all(lowered.errors, "gen").view()), tile);
    return;
  }
  // A host's own pipeline: explicit `lower` on the planned kernel, as planned and hand-moved.
  if (const std::string why = testing::explicit_lowering_problem(tile, opts, seed); !why.empty()) {
    ++t.failures;
    write_reproducer(cfg, seed, s, opts, "-", why, tile);
    return;
  }
  // The generator knows which kernels must stay Tile (as the campaign tests check), and a5
  // retains Tile IR altogether (passes/select.hpp); lowering one of those, or keeping a
  // straight-line kernel (or any extended-shape kernel the generator did not build to stay Tile)
  // Tile on a2a3, is a selection bug.
  const bool a5 = opts.target == target_arch::a5;
  const bool must_stay_tile = a5 || plan.unaligned || !plan.tile_reason.empty();
  const bool must_select = (s == shape::line || s == shape::extended) && !must_stay_tile;
  const bool selected = lowered.value.functions[0].stage == ir_stage::buffer;
  // Every kernel selection lowers has a PTO form, under either rollout: the preflight the
  // emitter runs (not a sample) accepts it. The other rollout's lowering is checked for that alone.
  const options other = [&] {
    options o = opts;
    o.rollout = opts.rollout == rollout_kind::standard ? rollout_kind::extended : rollout_kind::standard;
    return o;
  }();
  const auto again = lower(tile, other);
  if (!again.ok()) {
    ++t.failures;
    write_reproducer(cfg, seed, s, other, "-", std::string(format_all(again.errors, "gen").view()), tile);
    return;
  }
  for (const auto* run : {&lowered, &again}) {
    const function& f = run->value.functions[0];
    if (f.stage != ir_stage::buffer) continue;
    ++t.preflights;
    if (const auto errors = check_pto(run->value, f); !errors.empty()) {
      ++t.failures;
      write_reproducer(cfg, seed, s, run == &lowered ? opts : other, "-",
                       "the PTO preflight refused a lowered kernel:\n" + std::string(format_all(errors, "gen").view()), tile);
      return;
    }
  }
  if ((selected && must_stay_tile) || (!selected && must_select)) {
    ++t.failures;
    const std::string why = a5               ? std::string("target a5 retains Tile IR")
                            : plan.unaligned ? std::string("an unalignable slice")
                                             : plan.tile_reason;
    write_reproducer(cfg, seed, s, opts, "-",
                     selected           ? "selected although it must stay Tile (" + why + ")"
                     : s == shape::line ? std::string("a straight-line kernel was not selected")
                                        : std::string("an extended-rollout kernel with no Tile-only construct was not selected"),
                     tile, true);
    return;
  }
  const auto si = static_cast<std::size_t>(s);
  // A kernel built to stay Tile stays for the reason it was built with (on a5, for a5's).
  if (!selected && !a5 && !plan.tile_reason.empty()) {
    const auto why = explain_selection(lowered.value, opts);
    const std::string reason = why.size() == 1 ? std::string(why[0].reason.view()) : std::string();
    if (reason.find(plan.tile_reason) == std::string::npos) {
      ++t.failures;
      write_reproducer(cfg, seed, s, opts, "-", "stayed Tile for `" + reason + "`, not for `" + plan.tile_reason + "`", tile,
                       true);
      return;
    }
  }
  if (!selected) {
    ++t.stayed_tile;
    ++t.shape_stayed[si];
    return;
  }
  ++t.lowered;
  ++t.shape_lowered[si];
  const function& tf = tile.functions[0];
  for (const auto& n : tf.ops)
    if (const int fam = tally_of(tf, n); fam >= 0) ++t.families[static_cast<std::size_t>(fam)];
  {  // Tiles with runtime valid extents defined inside a region body (quantized-path.md §2.6).
    std::vector<char> top(tf.ops.size(), 0);
    for (const op_id o : tf.ops_of(tf.body)) top[o.index] = 1;
    for (std::uint32_t i = 0; i < tf.ops.size(); ++i)
      if (!top[i] && tf.ops[i].results.count == 1 && is_tile_op(tf.ops[i].code()))
        if (const type& r = tf.type_of(value_id{tf.ops[i].results.begin}); r.is_tile() && !r.static_valid()) ++t.families[7];
  }
  if (!cfg.pto_out.empty() && (seed - cfg.seed) % cfg.pto_every == 0 && !write_pto(cfg, seed, opts, lowered.value)) {
    ++t.failures;
    write_reproducer(cfg, seed, s, opts, "-", "the PTO emitter refused the lowered program", tile);
    return;
  }
  if (const std::string why = pto_roundtrip_problem(cfg, lowered.value, opts); !why.empty()) {
    ++t.failures;
    write_reproducer(cfg, seed, s, opts, "-", why, tile);
    return;
  }
  ++t.roundtrips;
  const program checked = cfg.break_addresses ? testing::collapse_addresses(lowered.value) : lowered.value;
  // Why stop at the first failing binding: one reproducer per (seed, planner, target) is enough.
  for (const testing::gen_binding& b : testing::bindings(plan)) {
    const auto report = sim::check_numerics(tile, checked, tile.functions[0].name_of(), testing::sim_options_for(plan, b, seed));
    if (report.ok) continue;
    // A run failure (trap, bad access) has no element mismatches; only its text says why.
    ++(report.mismatches.empty() ? t.failures : t.mismatches);
    write_reproducer(cfg, seed, s, opts, testing::describe(b), report.text, tile);
    return;
  }
}

/// One kernel with every planner and target. The result depends only on (seed, shape, planners, targets).
tally run_kernel(const config& cfg, std::uint64_t seed, shape s) {
  tally t;
  t.kernels = 1;
  ++t.shape_kernels[static_cast<std::size_t>(s)];
  const testing::gen_plan plan = plan_for(s, seed, !cfg.break_selection);
  const program tile = testing::emit(plan);
  // The default rollout is the spec exactly: a kernel using an extended op stays Tile there.
  if (s == shape::extended && !cfg.break_selection) {
    bool uses = false;
    for (const auto& n : tile.functions[0].ops) uses = uses || tally_of(tile.functions[0], n) >= 0;
    const auto standard = lower(tile, options{});
    if (!standard.ok() || (uses && standard.value.functions[0].stage == ir_stage::buffer)) {
      ++t.failures;
      write_reproducer(cfg, seed, s, options{}, "-",
                       standard.ok() ? "lowered under the default rollout although it uses an extended op"
                                     : std::string(format_all(standard.errors, "gen").view()),
                       tile, standard.ok());
    }
  }
  for (const planner_kind planner : cfg.planners)
    for (const target_arch target : cfg.targets)
      lower_and_check(cfg, seed, s, plan, tile,
                      options{.enable_buffer_ir = !cfg.break_selection,
                              .planner = planner,
                              .target = target,
                              .rollout = s == shape::extended ? rollout_kind::extended : rollout_kind::standard},
                      t);
  return t;
}

/// Splits `a,b,c` and maps each name through `names`; nullopt on an unknown or empty list.
template <class E, class Names>
std::optional<std::vector<E>> pick_list(std::string_view v, const Names& names) {
  std::vector<E> out;
  while (!v.empty()) {
    const std::size_t comma = v.find(',');
    const std::string_view item = v.substr(0, comma);
    const auto it = std::find(std::begin(names), std::end(names), item);
    if (it == std::end(names)) return std::nullopt;
    out.push_back(static_cast<E>(it - std::begin(names)));
    v = comma == std::string_view::npos ? std::string_view() : v.substr(comma + 1);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

constexpr const char* usage =
    "usage: t2b-campaign [--kernels N] [--seed S] [--shapes line,windows,valid,regions,cube,extended] [--planners pypto,dsa_rp,ptoas]\n"
    "                    [--targets a2a3,a5] [--jobs J] [--out DIR] [--pto-out DIR [--pto-every K]]\n";

/// Fills `cfg` from argv; returns an error message, or empty on success.
std::string parse_args(int argc, char** argv, config& cfg) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--break-addresses" || flag == "--break-selection" || flag == "--break-pto") {
      (flag == "--break-addresses"   ? cfg.break_addresses
       : flag == "--break-selection" ? cfg.break_selection
                                     : cfg.break_pto) = true;
      continue;
    }
    if (i + 1 >= argc) return "unknown flag or missing value: " + std::string(flag);
    const std::string_view v = argv[++i];
    if (flag == "--kernels" || flag == "--seed" || flag == "--jobs" || flag == "--pto-every") {
      const auto n = t2b_tools::decimal_in(v);
      if (!n || ((flag == "--jobs" || flag == "--pto-every") && (*n == 0 || *n > 1024)))
        return std::string(flag) + " needs a decimal number" + (flag == "--kernels" || flag == "--seed" ? "" : " in 1..1024");
      if (flag == "--pto-every") cfg.pto_every = *n;
      if (flag == "--kernels") cfg.kernels = *n;
      if (flag == "--seed") cfg.seed = *n;
      if (flag == "--jobs") cfg.jobs = static_cast<unsigned>(*n);
    } else if (flag == "--shapes") {
      const auto s = pick_list<shape>(v, shape_names);
      if (!s) return "--shapes takes a list of line, windows, valid, regions, cube, extended";
      cfg.shapes = *s;
    } else if (flag == "--planners") {
      const auto p = pick_list<planner_kind>(v, planner_names);
      if (!p) return "--planners takes a list of pypto, dsa_rp, ptoas";
      cfg.planners = *p;
    } else if (flag == "--targets") {
      const auto p = pick_list<target_arch>(v, detail::target_names);
      if (!p) return "--targets takes a list of a2a3, a5";
      cfg.targets = *p;
    } else if (flag == "--out") {
      cfg.out = v;
    } else if (flag == "--pto-out") {
      cfg.pto_out = v;
    } else {
      return "unknown flag: " + std::string(flag);
    }
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  config cfg;
  if (const std::string err = parse_args(argc, argv, cfg); !err.empty()) {
    std::fprintf(stderr, "t2b-campaign: %s\n%s", err.c_str(), usage);
    return 2;
  }
  for (const std::string& dir : {cfg.out, cfg.pto_out}) {
    if (dir.empty()) continue;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      std::fprintf(stderr, "t2b-campaign: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
      return 2;
    }
  }
  // Why interleaved seeds and per-worker tallies: kernel lengths grow with the seed, so striding
  // balances the work, and summing tallies keeps the result independent of the job count.
  const unsigned jobs = static_cast<unsigned>(std::min<std::uint64_t>(cfg.jobs, std::max<std::uint64_t>(1, cfg.kernels)));
  std::vector<tally> tallies(jobs);
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < jobs; ++w)
    workers.emplace_back([&cfg, &tallies, w, jobs] {
      for (std::uint64_t i = w; i < cfg.kernels; i += jobs)
        tallies[w].add(run_kernel(cfg, cfg.seed + i, cfg.shapes[i % cfg.shapes.size()]));
    });
  for (auto& t : workers) t.join();
  tally total;
  for (const tally& t : tallies) total.add(t);
  // Per shape, then the extended families; the summary line stays last (check_campaign.py reads it).
  for (std::size_t i = 0; i < shape_count; ++i)
    if (total.shape_kernels[i] > 0)
      std::printf("shape %s: kernels %llu, lowered %llu, stayed Tile %llu\n", std::string(shape_names[i]).c_str(),
                  static_cast<unsigned long long>(total.shape_kernels[i]),
                  static_cast<unsigned long long>(total.shape_lowered[i]),
                  static_cast<unsigned long long>(total.shape_stayed[i]));
  if (total.shape_kernels[static_cast<std::size_t>(shape::extended)] > 0) {
    std::printf("extended ops in lowered kernels:");
    for (std::size_t i = 0; i < family_count; ++i)
      std::printf("%s %s %llu", i == 0 ? "" : ",", std::string(tally_names[i]).c_str(),
                  static_cast<unsigned long long>(total.families[i]));
    std::printf("\n");
  }
  std::printf("PTO preflight (both rollouts, every lowered kernel): %llu checked\n",
              static_cast<unsigned long long>(total.preflights));
  std::printf("PTO-AS read back as its Buffer IR: %llu lowered programs\n", static_cast<unsigned long long>(total.roundtrips));
  std::printf("kernels %llu, lowerings %llu, lowered %llu, stayed Tile %llu, mismatches %llu, failures %llu\n",
              static_cast<unsigned long long>(total.kernels), static_cast<unsigned long long>(total.lowerings),
              static_cast<unsigned long long>(total.lowered), static_cast<unsigned long long>(total.stayed_tile),
              static_cast<unsigned long long>(total.mismatches), static_cast<unsigned long long>(total.failures));
  return total.mismatches + total.failures > 0 ? 1 : 0;
}
