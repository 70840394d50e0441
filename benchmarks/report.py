#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turns bench_t2b's JSON output into the Markdown tables of docs/performance.md and checks the
issue's targets on that one run (ratios and per-op figures, never absolute pass/fail tests).

    build-bench/benchmarks/bench_t2b --benchmark_out=bench.json --benchmark_out_format=json
    python3 benchmarks/report.py bench.json

With repetitions the median aggregate of each benchmark is used.
"""
import json
import sys
from collections import OrderedDict

KINDS = ["parse", "print", "select", "plan/pypto", "plan/dsa_rp", "plan/ptoas", "lower/pypto", "lower/dsa_rp",
         "lower/ptoas", "pipeline/pypto", "pipeline/dsa_rp", "pipeline/ptoas", "print_buffer"]


def load(path):
    with open(path) as f:
        data = json.load(f)
    results = OrderedDict()  # (kind, shape, n) -> counters
    have_median = any(b.get("aggregate_name") == "median" for b in data["benchmarks"])
    for b in data["benchmarks"]:
        if have_median and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"]).replace("/manual_time", "")
        parts = name.split("/")
        shape, n = parts[-2], int(parts[-1])
        kind = "/".join(parts[:-2])
        results[(kind, shape, n)] = b
    return data.get("context", {}), results


def fmt(x, digits=1):
    if x is None:
        return "—"
    if x >= 1000:
        return "{:,.0f}".format(x)
    return ("{:.%df}" % digits).format(x)


def main():
    ctx, res = load(sys.argv[1])
    shapes = list(OrderedDict.fromkeys(s for (_, s, _) in res))
    sizes = sorted({n for (_, _, n) in res})
    kinds = [k for k in KINDS if any(k == kk for (kk, _, _) in res)]
    out = []
    w = out.append
    la = ctx.get("load_avg")
    w("Run: %s, %s CPUs at %s MHz, load average %s." % (
        ctx.get("date", "?"), ctx.get("num_cpus", "?"), ctx.get("mhz_per_cpu", "?"),
        ", ".join("%.1f" % x for x in la) if la else "?"))
    w("")
    ratio = lambda a, b: None if a is None or b is None else a * 1e6 / (b * 1e5)  # noqa: E731
    for metric, title in (("ns/op", "ns per compute op"), ("B/op", "peak heap bytes per compute op")):
        for shape in shapes:
            w("**%s — %s**" % (shape, title))
            w("")
            cols = ["%s" % ("{:,}".format(n)) for n in sizes]
            extra = metric == "ns/op" and 100000 in sizes and 1000000 in sizes
            w("| | " + " | ".join(cols) + (" | time 1M / 100k |" if extra else " |"))
            w("|---|" + "---:|" * (len(cols) + (1 if extra else 0)))
            for k in kinds:
                vals = [res.get((k, shape, n), {}).get(metric) for n in sizes]
                if all(v is None for v in vals):
                    continue
                row = "| %s | " % k + " | ".join(fmt(v) for v in vals)
                if extra:
                    r = ratio(res.get((k, shape, 1000000), {}).get("ns/op"), res.get((k, shape, 100000), {}).get("ns/op"))
                    row += " | " + fmt(r, 2)
                w(row + " |")
            w("")

    # Targets, measured in this run.
    def get(kind, shape, n, metric="ns/op"):
        return res.get((kind, shape, n), {}).get(metric)

    w("**Targets (this run)**")
    w("")
    w("| target | figure | met |")
    w("|---|---|---|")

    def target(label, value, limit, unit):
        if value is None:
            w("| %s | not measured | — |" % label)
        else:
            w("| %s | %s %s | %s |" % (label, fmt(value, 2), unit, "yes" if value <= limit else "**no**"))

    # The targets were set for the elementwise chains; window, cube and valid rows are reported above but
    # judged by no target.
    for shape in [s for s in shapes if s in ("line", "shared")]:
        lows = [v for v in (get("lower/" + p, shape, 100000) for p in ("pypto", "dsa_rp", "ptoas")) if v is not None]
        target("`lower` alone ≤ 50 ns/op at 100k (%s, worst planner)" % shape, max(lows) if lows else None, 50, "ns/op")
        target("pipeline ≤ 300 ns/op at 100k (%s, pypto)" % shape, get("pipeline/pypto", shape, 100000), 300, "ns/op")
        pp = get("parse", shape, 100000), get("print", shape, 100000)
        target("parse + print ≤ 300 ns/op at 100k (%s)" % shape, None if None in pp else pp[0] + pp[1], 300, "ns/op")
        target("pipeline peak ≤ 256 B/op at 100k (%s, pypto)" % shape, get("pipeline/pypto", shape, 100000, "B/op"), 256, "B/op")
    # Issue 12: the loop chain lowers now; `lower` and the pipeline must stay linear on it.
    loop_rows = [(ratio(get(k, "loops", 1000000), get(k, "loops", 100000)), k)
                 for k in ["lower/" + p for p in ("pypto", "dsa_rp", "ptoas")] + ["pipeline/" + p for p in ("pypto", "dsa_rp", "ptoas")]]
    loop_rows = [x for x in loop_rows if x[0] is not None]
    if loop_rows:
        r, k = max(loop_rows)
        target("loop chain linear: lower and pipeline time at 1M / 100k ≤ 11, worst (%s)" % k, r, 11, "")
    worst = None
    for (k, shape, n) in res:
        if n != 1000000:
            continue
        r = ratio(get(k, shape, 1000000), get(k, shape, 100000))
        if r is not None and (worst is None or r > worst[0]):
            worst = (r, k, shape)
    if worst:
        target("linear: time at 1M / time at 100k ≤ 11, worst (%s, %s)" % (worst[1], worst[2]), worst[0], 11, "")
    print("\n".join(out))


if __name__ == "__main__":
    main()
