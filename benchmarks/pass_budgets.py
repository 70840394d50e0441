#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-pass instruction budgets: where `t2b-opt` spends its instructions, per compute op.

For each generator shape (tools/gen_tile.py: line, shared, loops, window, valid, cube) it runs
`t2b-opt --planner=P KERNEL -o /dev/null` once under callgrind and reads the inclusive instruction
counts (Ir) of: the parser, each pipeline pass (`detail::step<PASS, ...>`, the pass as the pipeline
runs it, its analyses included), the pipeline's own work outside the passes, the printer, the structural
verifier (every call, wherever it is made), and the whole process; each divided by the shape's compute-op count.
Callgrind counts instructions, not time, so the figures do not depend on the machine's load:
they are what issue 34's per-pass budgets are read against (docs/performance.md).

    python3 benchmarks/pass_budgets.py --t2b-opt build-rel/tools/t2b-opt [--n 4000] [--shapes line,cube]
    python3 benchmarks/pass_budgets.py ... --json budgets.json      # the table as data, too

Needs valgrind (callgrind, callgrind_annotate). The figures depend on the build's optimization:
state the build with them (the table's header line does).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES = ["line", "shared", "loops", "window", "valid", "cube"]
PASSES = ["init_storage", "select", "legalize", "verify_tile_storage", "plan", "lower", "verify_buffer"]
# One row of `callgrind_annotate --inclusive=yes`: "1,234 (5.6%)  file:function [object]".
ROW = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$")


def inclusive_costs(out_file):
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out_file],
                          check=True, capture_output=True, text=True).stdout
    rows = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            rows.append((int(m.group(1).replace(",", "")), m.group(2)))
    total = re.search(r"^\s*([\d,]+)\s+\(100\.0%\)\s+PROGRAM TOTALS", text, re.M)
    return rows, int(total.group(1).replace(",", "")) if total else max(c for c, _ in rows)


def first(rows, needle):
    """The largest inclusive cost among functions whose name contains `needle` (0 when none)."""
    return max((c for c, name in rows if needle in name), default=0)


def measure(t2b_opt, shape, n, planner, work):
    kernel = os.path.join(work, "%s.t2b" % shape)
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_tile.py"), "--n", str(n), "--shape", shape, "-o", kernel],
                   check=True)
    out = os.path.join(work, "callgrind.%s" % shape)
    # Why without MALLOC_PERTURB_ (which `meson test` sets): glibc then fills every block it
    # allocates and frees, 15% more instructions at 1k ops that no user's process runs.
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, t2b_opt, "--planner=" + planner, kernel,
                    "-o", os.devnull], check=True, capture_output=True, env=env)
    rows, total = inclusive_costs(out)
    row = {"parse": first(rows, "::parse(std::basic_string_view"),
           "pipeline": first(rows, "run_pipeline(")}
    steps = 0
    for p in PASSES:
        row[p] = first(rows, "detail::step<tile2buffer::v0::%s_pass," % p)
        steps += row[p]
    row["pipeline, outside passes"] = row["pipeline"] - steps
    row["print"] = first(rows, "::print(tile2buffer::v0::program const&")
    # Why a row of its own: verification runs once per program by default, where the tool or the
    # pipeline asks for it (verify_buffer's step defers to it), not inside one pass.
    row["verify (every call)"] = first(rows, "verify<void>(tile2buffer::v0::program const&")
    row["whole process"] = total
    return {k: v / n for k, v in row.items()}


def table(figures, shapes, corner=""):
    """The figures as a Markdown table, a row per step and a column per shape (docs/performance.md's
    form; benchmarks/check_budgets.py reads its budget table back in this form)."""
    keys = list(next(iter(figures.values())))
    lines = [("| %s |" % corner if corner else "| |") + " " + " | ".join(shapes) + " |", "|---|" + "---:|" * len(shapes)]
    for k in keys:
        if all(round(figures[s][k]) == 0 for s in shapes):
            continue  # a step the pipeline defers (verify_buffer's, a few instructions): nothing to budget
        lines.append("| %s | " % k + " | ".join("{:,.0f}".format(figures[s][k]) for s in shapes) + " |")
    return lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--t2b-opt", required=True)
    ap.add_argument("--n", type=int, default=4000, help="compute ops per kernel (default 4000)")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--planner", default="pypto")
    ap.add_argument("--json", help="also write the figures here")
    a = ap.parse_args(argv)
    shapes = [s for s in a.shapes.split(",") if s]
    for s in shapes:
        if s not in SHAPES:
            ap.error("unknown shape %r (one of %s)" % (s, ", ".join(SHAPES)))
    with tempfile.TemporaryDirectory() as work:
        figures = {s: measure(a.t2b_opt, s, a.n, a.planner, work) for s in shapes}
    print("Instructions per compute op (callgrind Ir, inclusive), `t2b-opt --planner=%s`, %d ops, %s:" % (
        a.planner, a.n, a.t2b_opt))
    print()
    print("\n".join(table(figures, shapes)))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"planner": a.planner, "n": a.n, "t2b_opt": a.t2b_opt, "figures": figures}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
