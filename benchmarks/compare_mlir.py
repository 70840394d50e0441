#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Side by side with MLIR's One-Shot Bufferize, on programs of the same shape and size.

For each shape and size it generates the MLIR program (../shared/bench/mlir/gen_mlir.py, linalg
named ops on tensor<16x32xf32>) and the `.t2b` kernel (tools/gen_tile.py), then in the same run:

  MLIR  mlir-opt --one-shot-bufferize=bufferize-function-boundaries -mlir-timing: the pass's own
        wall time (its `OneShotBufferizePass` row) and its parse + output rows; the process end to end
  ours  `bench_t2b --time`: the whole pipeline (materialize_native_scratch .. verify_buffer, input and output verified, the default; and
        again with verify = false) and the lower pass alone on the parsed kernel, parse and print (best of --repeat runs, with
        glibc's default heap like mlir-opt's: `--cold-heap`); and
        `t2b-opt --lower` end to end

and prints per compute op figures and the ratios MLIR / ours. Every shape, the loop chain
included, lowers to Buffer IR in our pipeline, so every row compares bufferization with a whole
lowering. Loop chains default to 1k, 3k and 10k compute ops: One-Shot Bufferize is cubic on them,
and at 10k ops its one run takes minutes (about 150 s on an idle machine).

Not part of CI. Needs mlir-opt (Debian: `apt-get install mlir-22-tools`); without it the script
says so and exits 0.

    python3 benchmarks/compare_mlir.py --build build-bench
    python3 benchmarks/compare_mlir.py --build build-bench --shapes shared --sizes 1000,10000,100000
    python3 benchmarks/compare_mlir.py --build build-bench --shapes loops     # 1k, 3k, 10k
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_SIZES = {"line": [1000, 10000, 100000], "shared": [1000, 10000, 100000], "loops": [1000, 3000, 10000]}
MLIR_ARGS = {"line": ["--reuse-every", "0"], "shared": ["--reuse-every", "16"], "loops": ["--cf", "scf", "--body", "8"]}


def run_timed(cmd, **kw):
    """Runs cmd: (completed process, wall seconds, CPU seconds, peak resident MB of the process).
    wait4 on that one process: RUSAGE_CHILDREN's peak would be the maximum over every child so far."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, **kw)
        _, status, usage = os.wait4(p.pid, 0)
        t = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        r = subprocess.CompletedProcess(cmd, p.returncode, out.read().decode(), err.read().decode())
    if r.returncode != 0:
        sys.exit("compare_mlir: failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr[-2000:]))
    return r, t, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def mlir_rows(report):
    """Seconds per row name of an -mlir-timing-display=list report."""
    rows = {}
    for line in report.splitlines():
        m = re.match(r"\s*([0-9.]+)\s+\(\s*[0-9.]+%\)\s+(\S.*)$", line)
        if m:
            rows[m.group(2).strip()] = float(m.group(1))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"), help="meson build dir with bench_t2b and t2b-opt")
    ap.add_argument("--t2b-opt", default=None, help="t2b-opt to time end to end (default BUILD/tools/t2b-opt)")
    ap.add_argument("--mlir-opt", default=os.environ.get("MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt"))
    ap.add_argument("--gen-mlir", default=os.environ.get("GEN_MLIR", os.path.join(ROOT, "..", "shared", "bench", "mlir", "gen_mlir.py")))
    ap.add_argument("--shapes", default="line,shared,loops")
    ap.add_argument("--sizes", default=None, help="comma-separated sizes for every shape (default per shape)")
    ap.add_argument("--planner", default="pypto")
    ap.add_argument("--repeat", type=int, default=3, help="our runs per kernel (best is kept)")
    a = ap.parse_args()
    # Why refuse rather than skip: the window, cube and valid shapes have no MLIR counterpart in
    # gen_mlir.py, so a row for them would compare different programs.
    no_twin = [s for s in a.shapes.split(",") if s not in MLIR_ARGS]
    if no_twin:
        ap.error("shape(s) %s have no MLIR twin in gen_mlir.py; comparable shapes: %s"
                 % (", ".join(no_twin), ", ".join(MLIR_ARGS)))

    if not os.access(a.mlir_opt, os.X_OK):
        print("compare_mlir: %s not found: install mlir-22-tools (apt-get install -y mlir-22-tools) to compare; "
              "nothing measured" % a.mlir_opt)
        return 0
    if not os.path.isfile(a.gen_mlir):
        print("compare_mlir: MLIR generator %s not found (set GEN_MLIR); nothing measured" % a.gen_mlir)
        return 0
    bench = os.path.join(a.build, "benchmarks", "bench_t2b")
    t2b_opt = a.t2b_opt or os.path.join(a.build, "tools", "t2b-opt")
    for exe in (bench, t2b_opt):
        if not os.access(exe, os.X_OK):
            sys.exit("compare_mlir: %s not built (meson compile -C %s)" % (exe, a.build))
    version = subprocess.run([a.mlir_opt, "--version"], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"LLVM version (\S+)", version)
    print("MLIR: %s (LLVM %s); ours: %s, planner %s" % (a.mlir_opt, m.group(1) if m else "?", a.build, a.planner))
    print("µs per compute op. wall: as measured; cpu: our thread CPU time, and for MLIR its -mlir-timing wall")
    print("rows scaled by the mlir-opt process's CPU/wall (this machine is shared, so wall time includes waiting).")
    print("ratio = MLIR / ours (higher is better for us); load: 1-minute load average after the row's runs")
    print("load average at start: %.2f, %.2f, %.2f\n" % os.getloadavg())
    hdr = ("%-6s %7s | %8s %8s | %8s %8s %8s %8s | %8s %8s | %7s %7s %7s %8s | %7s %7s | %5s"
           % ("shape", "ops", "OSB wall", "OSB cpu", "pipe cpu", "nover cpu", "lowr cpu", "p+p cpu", "pipe wal", "M p+o cpu",
              "OSB/pip", "OSB/nov", "OSB/low", "pp ratio", "e2e wal", "e2e cpu", "load"))
    print(hdr)
    print("-" * len(hdr))
    with tempfile.TemporaryDirectory() as tmp:
        headline = []
        for shape in a.shapes.split(","):
            sizes = [int(x) for x in a.sizes.split(",")] if a.sizes else DEFAULT_SIZES[shape]
            for n in sizes:
                mlir_in = os.path.join(tmp, "k.mlir")
                t2b_in = os.path.join(tmp, "k.t2b")
                with open(mlir_in, "w") as f:
                    subprocess.run([sys.executable, a.gen_mlir, "--n", str(n), "--kind", "named"] + MLIR_ARGS[shape],
                                   stdout=f, check=True)
                subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_tile.py"), "--n", str(n), "--shape", shape,
                                "-o", t2b_in], check=True)
                r, mlir_wall, mlir_cpu, mlir_mb = run_timed([a.mlir_opt, mlir_in, "--one-shot-bufferize=bufferize-function-boundaries",
                                                    "-o", "/dev/null", "-mlir-timing", "-mlir-timing-display=list",
                                                    "--verify-each=false"])
                rows = mlir_rows(r.stderr)
                osb = rows.get("OneShotBufferizePass")
                if osb is None:
                    sys.exit("compare_mlir: no OneShotBufferizePass row in:\n" + r.stderr)
                scale = min(1.0, mlir_cpu / mlir_wall) if mlir_wall > 0 else 1.0
                r, _, _, _ = run_timed([bench, "--cold-heap", "--time", t2b_in, "--planner", a.planner, "--repeat", str(a.repeat)])
                ours = {k: float(v) for k, v in (line.split() for line in r.stdout.splitlines())}
                if int(ours["compute_ops"]) != n:
                    sys.exit("compare_mlir: the .t2b kernel has %d compute ops, expected %d" % (ours["compute_ops"], n))
                _, t2b_wall, t2b_cpu, t2b_mb = run_timed([t2b_opt, "--lower", "--planner", a.planner, t2b_in, "-o", os.devnull])
                us = lambda secs: secs * 1e6 / n  # noqa: E731
                per = lambda micro: micro / n  # noqa: E731
                osb_cpu = us(osb) * scale
                mlir_pp_cpu = us(rows.get("Parser", 0) + rows.get("Output", 0)) * scale
                pipe, low = per(ours["pipeline_cpu_us"]), per(ours["lower_cpu_us"])
                nover = per(ours["pipeline_noverify_cpu_us"])
                pp = per(ours["parse_cpu_us"] + ours["print_cpu_us"])
                print("%-6s %7d | %8.2f %8.2f | %8.3f %9.3f %8.3f %8.3f | %8.3f %8.2f | %6.0fx %6.0fx %6.0fx %7.0fx | %6.1fx %6.1fx | %5.2f"
                      % (shape, n, us(osb), osb_cpu, pipe, nover, low, pp, per(ours["pipeline_us"]), mlir_pp_cpu, osb_cpu / pipe,
                         osb_cpu / nover, osb_cpu / low, mlir_pp_cpu / pp, mlir_wall / t2b_wall, mlir_cpu / t2b_cpu,
                         os.getloadavg()[0]))
                headline.append("%-6s %7d | mlir-opt %7.2f s CPU %7.0f MB | t2b-opt %6.3f s CPU %6.1f MB | %6.1fx CPU, %5.1fx memory"
                                % (shape, n, mlir_cpu, mlir_mb, t2b_cpu, t2b_mb, mlir_cpu / t2b_cpu, mlir_mb / t2b_mb))
                sys.stdout.flush()
    print("\nWhole processes (what a user sees first: issue 34's headline), CPU time and peak resident set:")
    for line in headline:
        print(line)
    print("\nOSB: One-Shot Bufferize's own -mlir-timing row. pipe: our materialize_native_scratch .. verify_buffer as configured by")
    print("default (structural verification of input and output, like mlir-opt --verify-each=false);")
    print("nover: the same pipeline with verify = false (the checking passes still run);")
    print("lowr: our lower pass alone (both on the parsed kernel); p+p: our parse + print; M p+o: MLIR's Parser +")
    print("Output rows. pp ratio: MLIR parse+output / ours. e2e: whole processes, mlir-opt vs t2b-opt --lower.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
