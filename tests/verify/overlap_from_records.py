#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Negative storage cases derived from the op records (issue 52 item 11).

usage: overlap_from_records.py T2B_OPT [--keep DIR]

For every Buffer op whose record (`t2b-opt --list-ops`, printed from ir/opcode.hpp) names a
scratch operand or operands its written storage must be disjoint from, this builds Buffer IR in
which that storage overlaps each other operand, and requires the located rejection (the op's
line, its mnemonic, the operand named) by `t2b-opt --pass=verify_buffer` and by `--emit=pto`
(`--verify-diagnostics`: each expected error at its line, no other). Nothing here names an op:
a new op with a scratch or a disjointness fact is covered by its record alone.

How an instance is found: the op's operands get addressed Vec allocations 8 KiB apart, typed
from a small palette (dense, column vector, row, broadcast block, FP16, INT32); the first
assignment (and scalar literal) that passes both commands is the op's positive twin. An op
with no passing assignment fails the test (extend PALETTE), as does an operand kind the cases
cannot build. From the twin:
  scratch S (record `scratch`), for each other buffer operand O: S placed at O's address
    (exact), 32 bytes past it (partial), and, where the types agree, O's own handle named as S:
    "<op> scratch S must not overlap 'O'";
  written W (record `writes`), for each operand D of `disjoint_from` other than S and W: W 32
    bytes past D: "<op> rejects partially overlapping placed source and destination ranges";
    where the types agree, W at D's address and D's handle named as W: rejected ("<op> requires
    disjoint placed ...", "<op> requires a destination distinct from its source") unless the
    record allows exact aliasing (`may_alias_exactly`), where both must pass.
Each case is its own kernel in one program per command, so four runs of t2b-opt check them all.
"""
import itertools
import os
import subprocess
import sys
import tempfile

PALETTE = [
    "Buffer[[16, 64], FP32, Vec]",
    "Buffer[[16, 1], FP32, Vec]",
    "Buffer[[1, 64], FP32, Vec]",
    "Buffer[[16, 8], FP32, Vec]",
    "Buffer[[16, 64], FP16, Vec]",
    "Buffer[[16, 64], INT32, Vec]",
]
SCALARS = ["0", "2.0"]
SPACING = 8192  # bytes between the operands' allocations: more than any palette type holds
PARTIAL = "rejects partially overlapping placed source and destination ranges"
DISJOINT = "requires disjoint placed source and destination ranges"
DISTINCT = "requires a destination distinct from its source"


def optional_as_given(operand):
    """An optional operand (`tmp:v?`, rsqrt's scratch) is built like a required one: its facts
    hold when it is given."""
    return [operand[0], operand[1].rstrip("?")]


def records(t2b_opt):
    """The Buffer ops with a scratch or a disjointness fact, as dicts."""
    out = subprocess.run([t2b_opt, "--list-ops"], capture_output=True, text=True, check=True).stdout
    ops = []
    for line in out.splitlines():
        f = line.split("\t")
        get = lambda i: "" if f[i] == "-" else f[i]
        rec = {"mnemonic": f[0], "dialect": f[1], "operands": [optional_as_given(w.split(":")) for w in get(2).split()], "traits": get(6).split(),
               "writes": get(8), "disjoint": get(9).split(), "scratch": get(11)}
        if rec["dialect"] == "buffer" and (rec["scratch"] or rec["disjoint"]):
            ops.append(rec)
    return ops


def kernel(name, rec, types, scalar, addrs, alias=None, expect=None):
    """One Buffer-stage kernel applying `rec` to allocations x_<operand> of `types` at `addrs`;
    `alias` = (a, b): operand a is passed b's handle; `expect`: the error text on the op's line."""
    lines = [f"aiv @{name}(Out: out Tensor[[16, 64], FP32]) -> Tensor[[16, 64], FP32] attributes {{stage = buffer}} {{"]
    args = []
    for (op_name, kind), t, a in zip(rec["operands"], types, addrs):
        if kind == "v":
            if alias and alias[0] == op_name:
                args.append(f"x_{alias[1]}")
                continue
            lines.append(f"  x_{op_name} = buffer.alloc((), {a}) : {t}")
            args.append(f"x_{op_name}")
        else:
            args.append(scalar)
    if expect:
        lines.append(f"  # expected-error@+1 {{{{{expect}}}}}")
    lines.append(f"  {rec['mnemonic']}({', '.join(args)})")
    lines += ["  return Out", "}", ""]
    return lines


def run(t2b_opt, args, path):
    return subprocess.run([t2b_opt, *args, path], capture_output=True, text=True)


def error_lines(proc):
    """The line of every error a --diagnostics=json run reports."""
    import json
    text = proc.stderr.strip()
    if not text:
        return set()
    return {d["line"] for d in json.loads(text) if d.get("severity") == "error"}


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    t2b_opt = argv[1]
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    ops = records(t2b_opt)
    problems = []
    if not ops:
        return "no Buffer op with a scratch or a disjointness fact in --list-ops"
    for rec in ops:
        for name, kind in rec["operands"]:
            if kind not in ("v", "s"):
                problems.append(f"{rec['mnemonic']}: operand '{name}:{kind}' has a kind these cases cannot build")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory() as tmp:
        work = keep or tmp
        os.makedirs(work, exist_ok=True)
        # 1. Candidates: every palette assignment of every op, each a kernel; the first that passes
        #    verify_buffer and the emitter is the op's positive twin.
        lines, spans = [], []  # spans: (first line, last line, op index, types, scalar)
        for i, rec in enumerate(ops):
            values = [n for n, k in rec["operands"] if k == "v"]
            scalars = SCALARS if any(k == "s" for _, k in rec["operands"]) else [None]
            for combo in itertools.product(PALETTE, repeat=len(values)):
                for scalar in scalars:
                    it = iter(combo)
                    types = [next(it) if k == "v" else None for _, k in rec["operands"]]
                    addrs = [j * SPACING for j in range(len(types))]
                    first = len(lines) + 1
                    lines += kernel(f"c{len(spans)}", rec, types, scalar, addrs)
                    spans.append((first, len(lines), i, types, scalar))
        cand = os.path.join(work, "candidates.t2b")
        with open(cand, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
        bad = set()
        for args in (["--pass=verify_buffer"], ["--emit=pto"]):
            proc = run(t2b_opt, [*args, "--diagnostics", "json", "-o", os.devnull], cand)
            bad |= error_lines(proc)
        twin = {}
        for first, last, i, types, scalar in spans:
            if i not in twin and not any(first <= n <= last for n in bad):
                twin[i] = (types, scalar)
        for i, rec in enumerate(ops):
            if i not in twin:
                problems.append(f"{rec['mnemonic']}: no palette assignment passes verify_buffer and --emit=pto; extend PALETTE")

        # 2. Cases: each positive twin unchanged, then the overlaps.
        lines, counts = [], {}
        for i, (types, scalar) in sorted(twin.items()):
            rec = ops[i]
            mn = rec["mnemonic"]
            names = [n for n, _ in rec["operands"]]
            kinds = dict(rec["operands"])
            addrs = [j * SPACING for j in range(len(names))]
            at = {n: a for n, a in zip(names, addrs)}
            ty = {n: t for n, t in zip(names, types)}
            cases = [(addrs, None, None)]  # the twin: no error

            def moved(who, to):
                return [to if n == who else at[n] for n in names]

            s = rec["scratch"]
            if s:
                for o in names:
                    if o == s or kinds[o] != "v":
                        continue
                    why = f"{mn} scratch {s} must not overlap 'x_{o}'"
                    cases.append((moved(s, at[o]), None, why))
                    cases.append((moved(s, at[o] + 32), None, why))
                    if ty[s] == ty[o]:
                        cases.append((addrs, (s, o), why))
            w = rec["writes"]
            exact_ok = "may_alias_exactly" in rec["traits"]
            for d in rec["disjoint"]:
                if d in (s, w) or kinds.get(d) != "v" or not w:
                    continue
                cases.append((moved(w, at[d] + 32), None, f"{mn} {PARTIAL}"))
                if ty[w] == ty[d]:
                    cases.append((moved(w, at[d]), None, None if exact_ok else f"{mn} {DISJOINT}"))
                    cases.append((addrs, (w, d), None if exact_ok else f"{mn} {DISTINCT}"))
            counts[mn] = len(cases) - 1
            for n, (a, alias, why) in enumerate(cases):
                lines += kernel(f"k{len(lines)}", rec, types, scalar, a, alias, why)
        path = os.path.join(work, "cases.t2b")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
        for args in (["--pass=verify_buffer"], ["--emit=pto"]):
            proc = run(t2b_opt, [*args, "--verify-diagnostics", "-o", os.devnull], path)
            if proc.returncode != 0:
                problems.append(f"t2b-opt {' '.join(args)} --verify-diagnostics {path} (exit {proc.returncode}):\n"
                                + proc.stdout[-4000:] + proc.stderr[-4000:])
    for mn, n in counts.items():
        print(f"{mn}: {n} overlapping cases")
    print(f"{len(ops)} ops with a scratch or a disjointness fact, {sum(counts.values())} overlapping cases and "
          f"{len(counts)} positive twins checked by --pass=verify_buffer and --emit=pto")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
