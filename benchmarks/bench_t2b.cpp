// SPDX-License-Identifier: Apache-2.0
/// @file bench_t2b.cpp
/// Google Benchmark suite of tile2buffer on generated kernels (gen_kernel.hpp) of 1k..1M compute
/// ops in six shapes (line, shared, loops: elementwise chains, the last in `for` loops; window:
/// elementwise ops reading static windows of larger tiles; cube: an `aic` matmul_acc chain; valid:
/// an elementwise chain on runtime-valid tiles). Every
/// benchmark reports, besides Google Benchmark's
/// own time per iteration:
///   ns/op  CPU time of the measuring thread per compute op (read around the measured call in
///          every iteration; the benchmark's reported time is the same CPU time)
///   wall_ns/op  wall time per compute op, the same way
///   faults/kop  minor page faults per 1000 compute ops during the call
///   B/op   peak heap bytes per compute op while the call runs, result included (measured once,
///          outside the timed iterations, by the counting allocator of alloc_counter.cpp)
/// Benchmarks (name: what/planner/shape/ops):
///   parse         text::parse of the kernel's canonical text
///   print         text::print of the parsed Tile kernel
///   select        the select pass on storage-initialized IR
///   plan/P        the plan pass with planner P on storage-verified IR
///   lower/P       the lower pass alone on IR planned by P (in memory)
///   pipeline/P    lower(program, {.planner = P}): materialize_native_scratch .. verify_buffer, input and output verified
///   print_buffer  text::print of the lowered Buffer program (pypto)
///   workers/W     lower(program, {pypto}, parallelism{W}) on the same compute ops split over 64
///                 kernels, W = 1 and 2; its ns/op is wall time (the work is on several threads),
///                 so the ratio of the two rows is the speedup on this machine
/// Every shape lowers to Buffer IR, loop chains included (their `for` loops carry a tile), so all
/// six shapes get the same benchmarks.
///
/// Heap: by default the binary makes glibc serve every block from its heap and never trim it
/// (mallopt M_MMAP_MAX = 0, M_TRIM_THRESHOLD huge), the state of a long-running host compiler whose
/// heap is warm. Why: with glibc's defaults every block over 32 MiB is a fresh mmap, so at 1M ops
/// each pass pays the kernel for mapping and zeroing hundreds of MB of new pages, which hides the
/// passes' own (linear) cost; `--cold-heap` measures exactly that, and faults/kop shows it.
///
/// Each result is checked before it is timed (selection must pick Buffer IR, lowering must succeed
/// and produce Buffer stage with every planner), so a benchmark can never time an error path.
///
/// Extra flags (before Google Benchmark's own):
///   --cold-heap             keep glibc's malloc defaults (see Heap above)
///   --sizes=1000,10000      compute-op counts (default 1000,10000,100000,1000000)
///   --shapes=line,shared    shapes: line, shared, loops, window, cube, valid (default line,shared,loops)
///   --time FILE [--planner P] [--repeat R]
///                           instead of benchmarks, parse FILE and time each pipeline pass on it
///                           (best of R, default 3), like `mlir-opt -mlir-timing`; used by
///                           compare_mlir.py. Prints `key value` lines in microseconds (and
///                           `compute_ops`: elementwise and matmul ops).
///   --zoo DIR               instead of the generated kernels, the zoo (DIR/*.t2b, lowered with
///                           `rollout = extended`): `zoo/<kernel>/<planner>` times the whole pipeline
///                           on the parsed program (ns/op per Tile op of the input; each kernel
///                           must reach Buffer IR with every planner)
///   --print-kernel SHAPE:N[:BODY]
///                           print the in-memory kernel (check_generator.py compares it with
///                           tools/gen_tile.py) after checking that the pipeline lowers it to
///                           Buffer stage with every planner
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "alloc_counter.hpp"
#include "gen_kernel.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace t2b = tile2buffer;
namespace bench = tile2buffer::bench;
using clock_type = std::chrono::steady_clock;

namespace {

[[noreturn]] void die(const std::string& what) {
  std::cerr << "bench_t2b: " << what << '\n';
  std::exit(2);
}
void check(const t2b::result<t2b::program>& r, std::string_view what) {
  if (!r.ok()) die(std::string(what) + " failed:\n" + std::string(t2b::format_all(r.errors, "bench").view()));
}
t2b::options with_planner(t2b::planner_kind p) {
  t2b::options o;
  o.planner = p;
  return o;
}
constexpr t2b::planner_kind all_planners[] = {t2b::planner_kind::pypto, t2b::planner_kind::dsa_rp, t2b::planner_kind::ptoas};

/// The programs one (shape, size) needs, built on first use. Benchmarks of one kernel are
/// registered next to each other, so only one kernel's inputs are held at a time.
class inputs {
 public:
  static inputs& of(bench::shape s, std::int64_t n) {
    static std::unique_ptr<inputs> current;
    if (!current || current->shape_ != s || current->n_ != n) {
      current.reset();  // free the previous kernel's programs before building the next
      current = std::make_unique<inputs>(s, n);
    }
    return *current;
  }
  inputs(bench::shape s, std::int64_t n) : shape_(s), n_(n), tile_(bench::make_program(s, n)) {}

  const t2b::program& tile() const { return tile_; }
  /// The same number of compute ops as 64 kernels (`@f0` .. `@f63`), for the worker benchmarks.
  const t2b::program& kernels64() {
    if (!kernels64_) {
      t2b::program one = bench::make_program(shape_, std::max<std::int64_t>(n_ / 64, 8));
      std::string text;
      for (int k = 0; k < 64; ++k) {
        std::string t(t2b::print(one).view());
        t.replace(t.find("@f("), 3, "@f" + std::to_string(k) + "(");
        text += t;
      }
      auto parsed = t2b::parse(text, "kernels64");
      check(parsed, "parse of 64 kernels");
      kernels64_ = std::make_unique<t2b::program>(std::move(parsed.value));
    }
    return *kernels64_;
  }
  const t2b::text& source() {
    if (!source_) source_ = t2b::print(tile_);
    return *source_;
  }
  /// The program after the pipeline's passes up to and including `last`, with planner `p`.
  const t2b::program& after(t2b::pass_id last, t2b::planner_kind p) {
    auto& slot = stages_[static_cast<std::size_t>(p)][static_cast<std::size_t>(last)];
    if (!slot) {
      auto r = t2b::run_pipeline(tile_, with_planner(p), last);
      check(r, std::string("pipeline up to ") + std::string(t2b::name(last)));
      slot = std::make_unique<t2b::program>(std::move(r.value));
    }
    return *slot;
  }

 private:
  bench::shape shape_;
  std::int64_t n_;
  t2b::program tile_;
  std::optional<t2b::text> source_;
  std::unique_ptr<t2b::program> stages_[3][7];
  std::unique_ptr<t2b::program> kernels64_;
};

/// CPU time of the calling thread. Why CPU time and not wall time: the benchmark machines are
/// shared (2 cores, other builds running), and on a busy machine wall time measures the
/// scheduler; for this single-threaded code the two agree on an idle machine.
double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

/// Minor page faults of the calling thread so far: fresh pages the kernel had to map and zero
/// (at 1M ops most arenas exceed glibc's mmap threshold, so every pass maps new memory).
long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

/// Runs `fn` (returning something to destroy outside the clock) once per iteration and reports
/// ns/op and B/op. `validate(result)` runs once on an untimed result.
template <class Fn, class Validate>
void measure(benchmark::State& state, std::int64_t ops, Fn fn, Validate validate) {
  validate(fn());
  const std::int64_t peak = bench::peak_heap_bytes(fn);
  double ns_sum = 0, wall_sum = 0, faults = 0;
  for (auto _ : state) {
    const long f0 = minor_faults();
    const double c0 = thread_cpu_ns();
    const auto t0 = clock_type::now();
    auto r = fn();
    const auto t1 = clock_type::now();
    const double c1 = thread_cpu_ns();
    faults += static_cast<double>(minor_faults() - f0);
    benchmark::DoNotOptimize(r);
    state.SetIterationTime((c1 - c0) * 1e-9);
    ns_sum += (c1 - c0) / static_cast<double>(ops);
    wall_sum += std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(ops);
  }
  state.counters["ns/op"] = benchmark::Counter(ns_sum, benchmark::Counter::kAvgIterations);
  state.counters["wall_ns/op"] = benchmark::Counter(wall_sum, benchmark::Counter::kAvgIterations);
  state.counters["faults/kop"] =
      benchmark::Counter(faults * 1000.0 / static_cast<double>(ops), benchmark::Counter::kAvgIterations);
  state.counters["B/op"] = benchmark::Counter(static_cast<double>(peak) / static_cast<double>(ops));
  state.counters["ops"] = benchmark::Counter(static_cast<double>(ops));
}
constexpr auto no_check = [](const auto&) {};

/// As `measure`, but the reported time and ns/op are wall time: for work spread over threads,
/// where the measuring thread's CPU time would leave the other workers out.
template <class Fn>
void measure_wall(benchmark::State& state, std::int64_t ops, Fn fn) {
  double wall_sum = 0;
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    auto r = fn();
    const auto t1 = clock_type::now();
    benchmark::DoNotOptimize(r);
    const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
    state.SetIterationTime(ns * 1e-9);
    wall_sum += ns / static_cast<double>(ops);
  }
  state.counters["ns/op"] = benchmark::Counter(wall_sum, benchmark::Counter::kAvgIterations);
  state.counters["wall_ns/op"] = benchmark::Counter(wall_sum, benchmark::Counter::kAvgIterations);
  state.counters["ops"] = benchmark::Counter(static_cast<double>(ops));
}

void expect_stage(const t2b::result<t2b::program>& r, t2b::ir_stage stage, std::string_view what) {
  check(r, what);
  if (r.value.functions.size() != 1 || r.value.functions[0].stage != stage)
    die(std::string(what) + ": unexpected function stage");
}

void register_kernel(bench::shape s, std::int64_t n) {
  const std::string tail = std::string("/") + std::string(bench::shape_name(s)) + "/" + std::to_string(n);
  const auto add = [&](const std::string& name, std::function<void(benchmark::State&)> body) {
    benchmark::RegisterBenchmark((name + tail).c_str(), [body](benchmark::State& st) { body(st); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  };
  const auto in = [s, n]() -> inputs& { return inputs::of(s, n); };

  add("parse", [=](benchmark::State& st) {
    const t2b::text& src = in().source();
    measure(
        st, n, [&] { return t2b::parse(src.view()); }, [](const auto& r) { check(r, "parse"); });
  });
  add("print", [=](benchmark::State& st) {
    const t2b::program& p = in().tile();
    measure(
        st, n, [&] { return t2b::print(p); },
        [&](const t2b::text& t) {
          if (t.view() != in().source().view()) die("print differs from the generated text");
        });
  });
  add("select", [=](benchmark::State& st) {
    const t2b::program& p = in().after(t2b::pass_id::init_storage, t2b::planner_kind::pypto);
    measure(
        st, n, [&] { return t2b::select(p, t2b::options{}); },
        [&](const t2b::result<t2b::program>& r) {
          check(r, "select");
          if (r.value.functions[0].buffer_ir_selected != std::optional<bool>(true)) die("unexpected selection");
        });
  });
  for (const auto planner : all_planners) {
    const std::string pn(t2b::name(planner));
    add("plan/" + pn, [=](benchmark::State& st) {
      const t2b::program& p = in().after(t2b::pass_id::verify_tile_storage, planner);
      measure(
          st, n, [&] { return t2b::plan(p, with_planner(planner)); }, [](const auto& r) { check(r, "plan"); });
    });
  }
  for (const auto planner : all_planners) {
    const std::string pn(t2b::name(planner));
    add("lower/" + pn, [=](benchmark::State& st) {
      const t2b::program& p = in().after(t2b::pass_id::plan, planner);
      measure(
          st, n, [&] { return t2b::lower_tile_to_buffer(p, with_planner(planner)); },
          [](const auto& r) { expect_stage(r, t2b::ir_stage::buffer, "lower"); });
    });
  }
  for (const auto planner : all_planners) {
    const std::string pn(t2b::name(planner));
    add("pipeline/" + pn, [=](benchmark::State& st) {
      const t2b::program& p = in().tile();
      measure(
          st, n, [&] { return t2b::lower(p, with_planner(planner)); },
          [](const auto& r) { expect_stage(r, t2b::ir_stage::buffer, "pipeline"); });
    });
  }
  for (const unsigned workers : {1u, 2u}) {
    add("workers/" + std::to_string(workers), [=](benchmark::State& st) {
      const t2b::program& p = in().kernels64();
      const auto r = t2b::lower(p, with_planner(t2b::planner_kind::pypto), t2b::parallelism{workers});
      check(r, "64-kernel pipeline");
      for (const auto& f : r.value.functions)
        if (f.stage != t2b::ir_stage::buffer) die("64-kernel pipeline: a kernel stayed Tile");
      const std::int64_t ops = static_cast<std::int64_t>(p.functions.size()) * std::max<std::int64_t>(n / 64, 8);
      measure_wall(st, ops, [&] { return t2b::lower(p, with_planner(t2b::planner_kind::pypto), t2b::parallelism{workers}); });
    });
  }
  add("print_buffer", [=](benchmark::State& st) {
    const t2b::program& p = in().after(t2b::pass_id::verify_buffer, t2b::planner_kind::pypto);
    measure(
        st, n, [&] { return t2b::print(p); }, no_check);
  });
}

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    if (comma > start) out.emplace_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

/// `--time FILE`: per-step wall and CPU time on a parsed kernel (best of `repeat`), in
/// microseconds: `<step>_us` (wall, as -mlir-timing reports) and `<step>_cpu_us` (thread CPU).
/// Steps: parse, `verify` (one structural verification, as the pipeline runs on its input and
/// on its output), each pass alone, print of the result, the whole pipeline (`pipeline`: the
/// default, verifying input and output), the pipeline with `verify_each` (`pipeline_verify_each`:
/// also after every pass) and with `verify = false` (`pipeline_noverify`: the checking passes
/// still run).
int time_file(const std::string& path, t2b::planner_kind planner, int repeat) {
  std::ifstream in(path, std::ios::binary);
  if (!in) die("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string src = ss.str();
  std::vector<std::string> steps{"parse", "verify"};
  for (const auto n : t2b::pass_names) steps.emplace_back(n);
  steps.emplace_back("print");
  steps.emplace_back("pipeline");
  steps.emplace_back("pipeline_verify_each");
  steps.emplace_back("pipeline_noverify");
  std::vector<double> wall(steps.size(), 1e300), cpu(steps.size(), 1e300);
  // Runs fn, keeps the best times of step i, and returns fn's result.
  const auto timed = [&](std::size_t i, auto&& fn) {
    const double c0 = thread_cpu_ns();
    const auto t0 = clock_type::now();
    auto r = fn();
    const auto t1 = clock_type::now();
    const double c1 = thread_cpu_ns();
    wall[i] = std::min(wall[i], std::chrono::duration<double, std::micro>(t1 - t0).count());
    cpu[i] = std::min(cpu[i], (c1 - c0) / 1e3);
    return r;
  };
  std::int64_t compute_ops = 0;
  const t2b::options opts = with_planner(planner);
  for (int rep = 0; rep < repeat; ++rep) {
    auto parsed = timed(0, [&] { return t2b::parse(src, path); });
    check(parsed, "parse");
    if (!timed(1, [&] { return t2b::verify(parsed.value); }).empty()) die("the input does not verify");
    t2b::program cur = parsed.value;
    for (std::size_t i = 0; i < t2b::pass_names.size(); ++i) {
      auto next = timed(2 + i, [&] { return t2b::run_pass(static_cast<t2b::pass_id>(i), cur, opts); });
      check(next, t2b::name(static_cast<t2b::pass_id>(i)));
      cur = std::move(next.value);
    }
    timed(steps.size() - 4, [&] { return t2b::print(cur); });
    check(timed(steps.size() - 3, [&] { return t2b::lower(parsed.value, opts); }), "pipeline");
    t2b::options each = opts;
    each.verify_each = true;
    check(timed(steps.size() - 2, [&] { return t2b::lower(parsed.value, each); }), "pipeline with verify_each");
    t2b::options quiet = opts;
    quiet.verify = false;
    check(timed(steps.size() - 1, [&] { return t2b::lower(parsed.value, quiet); }), "pipeline without verification");
    compute_ops = 0;
    for (const auto& f : parsed.value.functions)
      for (const auto& o : f.ops) {
        const auto c = o.code();
        compute_ops += (t2b::is_tile_op(c) && t2b::info(c).ew != t2b::ew_kind::none) || c == t2b::opcode::tile_matmul ||
                       c == t2b::opcode::tile_matmul_acc;
      }
  }
  std::printf("compute_ops %lld\n", static_cast<long long>(compute_ops));
  for (std::size_t i = 0; i < steps.size(); ++i)
    std::printf("%s_us %.3f\n%s_cpu_us %.3f\n", steps[i].c_str(), wall[i], steps[i].c_str(), cpu[i]);
  return 0;
}

/// `--zoo DIR`: one pipeline benchmark per kernel file and planner, under the extended rollout.
void register_zoo(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".t2b") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) die("no .t2b kernels in " + dir);
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    auto parsed = t2b::parse(ss.str(), path.string());
    check(parsed, "parse " + path.string());
    auto program = std::make_shared<const t2b::program>(std::move(parsed.value));
    std::int64_t ops = 0;
    for (const auto& f : program->functions) ops += static_cast<std::int64_t>(f.ops.size());
    for (const auto planner : all_planners) {
      t2b::options o = with_planner(planner);
      o.rollout = t2b::rollout_kind::extended;
      const std::string name = "zoo/" + path.stem().string() + "/" + std::string(t2b::name(planner));
      benchmark::RegisterBenchmark(name.c_str(),
                                   [program, o, ops, name](benchmark::State& st) {
                                     measure(
                                         st, ops, [&] { return t2b::lower(*program, o); },
                                         [&](const auto& r) {
                                           check(r, name);
                                           bool lowered = false;
                                           for (const auto& f : r.value.functions)
                                             lowered = lowered || f.stage == t2b::ir_stage::buffer;
                                           if (!lowered) die(name + ": no kernel reached Buffer IR");
                                         });
                                   })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

/// `--print-kernel SHAPE:N[:BODY]`.
int print_kernel(const std::string& spec) {
  std::vector<std::string> f;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t colon = std::min(spec.find(':', start), spec.size());
    f.push_back(spec.substr(start, colon - start));
    start = colon + 1;
  }
  if (f.size() < 2 || f.size() > 3) die("--print-kernel wants SHAPE:N[:BODY]");
  const auto s = bench::parse_shape(f[0]);
  if (!s) die("unknown shape " + f[0]);
  const t2b::program p = bench::make_program(*s, std::stoll(f[1]), f.size() == 3 ? std::stoi(f[2]) : 8);
  for (const auto planner : all_planners)
    expect_stage(t2b::lower(p, with_planner(planner)), t2b::ir_stage::buffer,
                 std::string("pipeline (") + std::string(t2b::name(planner)) + ")");
  const t2b::text t = t2b::print(p);
  std::fwrite(t.view().data(), 1, t.view().size(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::int64_t> sizes{1000, 10000, 100000, 1000000};
  std::vector<bench::shape> shapes{bench::shape::line, bench::shape::shared, bench::shape::loops};
  std::vector<char*> rest{argv[0]};
  std::string time_path, zoo;
  t2b::planner_kind planner = t2b::planner_kind::pypto;
  int repeat = 3;
  bool warm_heap = true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--cold-heap") {
      warm_heap = false;
      continue;
    }
    const auto value = [&](std::string_view flag) -> std::optional<std::string> {
      if (a.substr(0, flag.size() + 1) == std::string(flag) + "=") return std::string(a.substr(flag.size() + 1));
      if (a == flag) {
        if (i + 1 >= argc) die(std::string(flag) + " needs a value");
        return std::string(argv[++i]);
      }
      return std::nullopt;
    };
    if (auto v = value("--sizes")) {
      sizes.clear();
      for (const auto& x : split(*v)) sizes.push_back(std::stoll(x));
    } else if (auto v2 = value("--shapes")) {
      shapes.clear();
      for (const auto& x : split(*v2)) {
        const auto s = bench::parse_shape(x);
        if (!s) die("unknown shape " + x + " (line, shared, loops, window, cube, valid)");
        shapes.push_back(*s);
      }
    } else if (auto v3 = value("--time")) {
      time_path = *v3;
    } else if (auto v4 = value("--planner")) {
      if (*v4 == "pypto") planner = t2b::planner_kind::pypto;
      else if (*v4 == "dsa_rp") planner = t2b::planner_kind::dsa_rp;
      else if (*v4 == "ptoas") planner = t2b::planner_kind::ptoas;
      else die("unknown planner " + *v4);
    } else if (auto v6 = value("--print-kernel")) {
      return print_kernel(*v6);
    } else if (auto v7 = value("--zoo")) {
      zoo = *v7;
    } else if (auto v5 = value("--repeat")) {
      repeat = std::max(1, std::stoi(*v5));
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (warm_heap) {
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  }
  if (!time_path.empty()) return time_file(time_path, planner, repeat);
  if (!zoo.empty()) register_zoo(zoo);
  else
    for (const auto s : shapes)
      for (const auto n : sizes) register_kernel(s, n);
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
