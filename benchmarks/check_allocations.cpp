// SPDX-License-Identifier: Apache-2.0
/// @file check_allocations.cpp
/// Test: what `t2b-opt --planner=pypto` does to a kernel (parse its text, lower the parsed
/// program, handed over, and print the result) allocates from the heap a number of times that
/// does not grow with the kernel's ops (issue 34: no allocation per op on a hot path). For each
/// benchmark shape it counts `operator new` calls at 2,000 and at 4,000 compute ops; the 2,000
/// extra ops may add at most `log_allowance` allocations (arenas that double), except that each
/// extra region op of the loop shape may add `per_loop` (legalization's per-loop move table;
/// docs/performance.md, "Heap allocations per op"). Exit status 1 when a shape exceeds that.
/// It also checks that `lower` writes each shape's Buffer function into the arenas it reserved
/// (`buffer_arena_sizes`): an arena that outgrew them doubled, which the peak heap shows.
/// `--mutate` allocates once per op inside the counted work and halves the reserved sizes the
/// arenas are compared with (nothing grows then: it shows the comparison is live), so that both
/// checks fail.
// Why: at -O3 g++-12 inlines the generator's builder into this file and warns of an overflow in
// vector<char>::insert that cannot happen (a false positive of its -Wstringop-overflow).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "alloc_counter.hpp"
#include "gen_kernel.hpp"
#include "tile2buffer/lower.hpp"
#include "tile2buffer/passes/lower.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace {
using namespace tile2buffer;

/// Allocations made by parse + lower + print of the `n`-op kernel of shape `s`.
long count(bench::shape s, std::int64_t n, bool mutate) {
  const std::string source(print(bench::make_program(s, n)).view());
  bench::heap_counting(true);
  const std::int64_t before = bench::heap_allocations();
  result<program> parsed = parse(source, "k.t2b");
  if (!parsed) std::abort();
  result<program> lowered = lower(static_cast<program&&>(parsed.value), options{.planner = planner_kind::pypto});
  if (!lowered) std::abort();
  const text out = print(lowered.value);
  if (mutate)
    for (std::int64_t i = 0; i < n; ++i) {
      void* volatile p = ::operator new(sizeof(int));  // volatile: the pair must not be optimized away
      ::operator delete(p);
    }
  const std::int64_t made = bench::heap_allocations() - before;
  bench::heap_counting(false);
  return static_cast<long>(made) + static_cast<long>(out.size() == 0);
}
/// Whether `lower` wrote the `n`-op kernel of shape `s` without outgrowing any arena it reserved
/// for the Buffer function (libstdc++ gives `reserve(k)` a capacity of exactly `k`).
bool within_reserve(bench::shape s, std::int64_t n, bool mutate, const char* name) {
  const options opts{.planner = planner_kind::pypto};
  result<program> planned = run_pipeline(bench::make_program(s, n), opts, pass_id::plan);
  if (!planned) std::abort();
  bool ok = true;
  for (const function& f : planned.value.functions) {
    if (!f.is_device()) continue;
    const kernel_analyses analyses(f);
    function_builder::arena_sizes want = buffer_arena_sizes(f, analyses);
    if (mutate)
      want = {want.values / 2,   want.ops / 2,    want.region_ops / 2, want.regions / 2,
              want.operands / 2, want.kwargs / 2, want.names / 2,      want.types};
    const result<function> lowered = lower_function(f, opts, analyses);
    if (!lowered) std::abort();
    const function& g = lowered.value;
    const struct {
      const char* arena;
      std::size_t capacity, reserved;
    } arenas[] = {{"values", g.values.capacity(), want.values},    {"ops", g.ops.capacity(), want.ops},
                  {"op_locs", g.op_locs.capacity(), want.ops},     {"region_ops", g.region_ops.capacity(), want.region_ops},
                  {"regions", g.regions.capacity(), want.regions}, {"operands", g.operands.capacity(), want.operands},
                  {"names", g.names.capacity(), want.names}};
    for (const auto& a : arenas)
      if (a.capacity != a.reserved) {
        std::printf("%-7s lower's %s arena grew: capacity %zu, reserved %zu\n", name, a.arena, a.capacity, a.reserved);
        ok = false;
      }
  }
  return ok;
}
}  // namespace

int main(int argc, char** argv) {
  const bool mutate = argc > 1 && std::string_view(argv[1]) == "--mutate";
  constexpr long log_allowance = 40;
  constexpr long per_loop = 4;
  constexpr std::int64_t small = 2000, large = 4000, body = 8;
  const struct {
    bench::shape s;
    const char* name;
  } shapes[] = {{bench::shape::line, "line"},     {bench::shape::shared, "shared"}, {bench::shape::loops, "loops"},
                {bench::shape::window, "window"}, {bench::shape::valid, "valid"},   {bench::shape::cube, "cube"}};
  int failures = 0;
  for (const auto& sh : shapes) {
    const long a = count(sh.s, small, mutate), b = count(sh.s, large, mutate);
    const long allowed = log_allowance + (sh.s == bench::shape::loops ? per_loop * (large - small) / body : 0);
    const bool ok = b - a <= allowed;
    std::printf("%-7s %ld allocations at %lld ops, %ld at %lld: +%ld (allowed +%ld) %s\n", sh.name, a,
                static_cast<long long>(small), b, static_cast<long long>(large), b - a, allowed, ok ? "ok" : "TOO MANY");
    failures += ok ? 0 : 1;
    failures += within_reserve(sh.s, large, mutate, sh.name) ? 0 : 1;
  }
  return failures == 0 ? 0 : 1;
}
