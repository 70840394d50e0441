#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compile-time cost of tile2buffer: wall time and peak memory (max RSS of the compiler) of

  include_lower  a TU that only includes <tile2buffer/lower.hpp>
  call_lower     a host TU that includes it and calls `tile2buffer::lower(p, options{})`,
                 header-only (it instantiates the whole pipeline)
  call_extern    the same TU with -DTILE2BUFFER_EXTERN_PIPELINE (the separately compiled mode:
                 it only declares the pipeline)
  instance       the one TU that defines it: #include <tile2buffer/pipeline_instance.hpp>
  host           examples/04_host_compiler.cpp, a realistic host TU (parse, verify, explain the
                 selection, lower, compare, print), header-only
  host_extern    the same with -DTILE2BUFFER_EXTERN_PIPELINE: every call it makes is in the
                 library (issue 35: <= 3 s)
  static64       include_lower plus a `static_assert` that a 64-compute-op kernel (built with
                 function_builder in a constexpr function) lowers: the issue-14 budget is <= 1 s
                 beyond include_lower
  static_lower   tests/lower/static_lower.cpp (the static_assert lowering test: constant-evaluates
                 the whole pipeline for three planners and every spec-table row)

compiled with `CXX -std=c++20 -O2 -Wall -Wextra -Wpedantic -c` (CXX defaults to g++-12). Each TU is
compiled --repeat times (default 3); the table shows the best wall and CPU (user + sys) times and
the largest peak RSS. On a shared machine wall time includes waiting for a core; CPU time does not.
Targets (goals, not pass/fail): include_lower <= 3 s and <= 600 MB; call_extern <= 3 s (issue 14);
host_extern <= 3 s (issue 35).

    python3 benchmarks/compile_time.py [--cxx g++-12] [--repeat 3] [--root .]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time


# 64 compute ops (alternating add/mul over the two previous values), lowered in constant evaluation.
STATIC64 = """#include <tile2buffer/lower.hpp>
namespace {
using namespace tile2buffer;
constexpr program kernel64() {
  function_builder b(function_kind::aiv, "k64", {1, 1});
  const auto t = tensor_type(16, 32, dtype::fp32);
  const value_id x = b.param("X", t);
  const value_id y = b.param("Y", t);
  const value_id out = b.param("Out", t, direction::out);
  b.result_type(t);
  const auto tt = tile_type(16, 32, dtype::fp32);
  value_id prev = b.emit1(opcode::tile_load, {operand::of(x), b.pair(0, 0), b.pair(16, 32)}, tt, "a", {2, 3});
  value_id cur = b.emit1(opcode::tile_load, {operand::of(y), b.pair(0, 0), b.pair(16, 32)}, tt, "b", {3, 3});
  for (int i = 0; i < 64; ++i) {
    const value_id next = b.emit1(i % 2 == 0 ? opcode::tile_add : opcode::tile_mul, {operand::of(cur), operand::of(prev)}, tt, {},
                                  {static_cast<std::uint32_t>(4 + i), 3});
    prev = cur;
    cur = next;
  }
  const value_id r = b.emit1(opcode::tile_store, {operand::of(cur), b.pair(0, 0), operand::of(out)}, t, "r", {70, 3});
  b.emit0(opcode::cf_return, {operand::of(r)}, {71, 3});
  program p;
  p.functions.push_back(b.finish());
  return p;
}
constexpr bool lowers() {
  const auto r = lower(kernel64(), options{});
  return r.ok() && r.value.functions[0].stage == ir_stage::buffer;
}
static_assert(lowers());
}  // namespace
"""


def measure_once(cmd):
    """Runs `cmd` in a fresh child (so RUSAGE_CHILDREN covers only this compile): (wall s, CPU s, KiB)."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "r = subprocess.run(sys.argv[1:])\n"
        "t = time.perf_counter() - t\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(r.returncode, t, u.ru_utime + u.ru_stime, u.ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe] + cmd, stdout=subprocess.PIPE, text=True, check=True).stdout
    rc, secs, cpu, kib = out.split()
    if int(rc) != 0:
        raise SystemExit("compile_time: compile failed: " + " ".join(cmd))
    return float(secs), float(cpu), int(kib)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cxx", default=os.environ.get("T2B_BENCH_CXX", "g++-12"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--only", choices=["include_lower", "call_lower", "call_extern", "instance", "host", "host_extern",
                                       "static64", "static_lower"],
                    action="append")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    flags = ["-std=c++20", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-I", os.path.join(root, "include")]
    with tempfile.TemporaryDirectory() as tmp:
        tu = os.path.join(tmp, "include_lower.cpp")
        with open(tu, "w") as f:
            f.write("#include <tile2buffer/lower.hpp>\n")
        host = os.path.join(tmp, "host.cpp")
        with open(host, "w") as f:
            f.write("#include <tile2buffer/lower.hpp>\n"
                    "tile2buffer::result<tile2buffer::program> host_lower(const tile2buffer::program& p) {\n"
                    "  return tile2buffer::lower(p, tile2buffer::options{});\n}\n")
        instance = os.path.join(tmp, "instance.cpp")
        with open(instance, "w") as f:
            f.write("#include <tile2buffer/pipeline_instance.hpp>\n")
        static64 = os.path.join(tmp, "static64.cpp")
        with open(static64, "w") as f:
            f.write(STATIC64)
        host_compiler = os.path.join(root, "examples", "04_host_compiler.cpp")
        cases = {
            # clang's default budget of constant-evaluation steps (2^20) runs out on 64 ops.
            "static64": [a.cxx] + flags + (["-fconstexpr-steps=4194304"] if "clang" in a.cxx else [])
                        + ["-c", static64, "-o", os.path.join(tmp, "f.o")],
            "include_lower": [a.cxx] + flags + ["-c", tu, "-o", os.path.join(tmp, "a.o")],
            "call_lower": [a.cxx] + flags + ["-c", host, "-o", os.path.join(tmp, "c.o")],
            "call_extern": [a.cxx] + flags + ["-DTILE2BUFFER_EXTERN_PIPELINE=1", "-c", host, "-o", os.path.join(tmp, "d.o")],
            "instance": [a.cxx] + flags + ["-c", instance, "-o", os.path.join(tmp, "e.o")],
            "host": [a.cxx] + flags + ["-c", host_compiler, "-o", os.path.join(tmp, "g.o")],
            "host_extern": [a.cxx] + flags + ["-DTILE2BUFFER_EXTERN_PIPELINE=1", "-c", host_compiler,
                                              "-o", os.path.join(tmp, "h.o")],
            "static_lower": [a.cxx] + flags + ["-I", os.path.join(root, "tests"), "-c",
                                               os.path.join(root, "tests", "lower", "static_lower.cpp"),
                                               "-o", os.path.join(tmp, "b.o")],
        }
        ver = subprocess.run([a.cxx, "--version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
        print("compiler: %s (%s), flags: %s" % (a.cxx, ver, " ".join(flags[:5])))
        print("%-14s %9s %9s %10s  %s" % ("TU", "wall s", "CPU s", "peak MB", "target (on CPU time)"))
        for name in a.only or list(cases):
            runs = [measure_once(cases[name]) for _ in range(max(1, a.repeat))]
            best = min(s for s, _, _ in runs)
            best_cpu = min(c for _, c, _ in runs)
            peak_mb = max(k for _, _, k in runs) / 1024.0
            target = ""
            if name == "include_lower":
                target = "<= 3 s, <= 600 MB: %s" % ("met" if best_cpu <= 3 and peak_mb <= 600 else "MISSED")
            if name in ("call_extern", "host_extern"):
                target = "<= 3 s: %s" % ("met" if best_cpu <= 3 else "MISSED")
            print("%-14s %9.2f %9.2f %10.1f  %s" % (name, best, best_cpu, peak_mb, target))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
