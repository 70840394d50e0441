#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The dialect check of the PTO emitter (issue 33 item 2). Every Buffer-stage kernel of every
example and positive golden input, and of a generated sample (tools/gen_tile.py), lowered
under each planner for both targets, and a kernel of random float literals of every float type,
is emitted in both forms and read by `pto-check-opt`, an
MLIR driver with our checker `pto` dialect (tests/pto-dialect/PTO.td: the real dialect's operand
groups, properties, attribute kinds, assembly formats and verifier rules):

1. the native form (`--emit=pto`) parses and verifies, at the PTOAS level its addresses imply
   (`--pto-level=level3` when every alloc_tile has `addr`, level2 when none has), the level its
   first line names;
2. the generic form (`--emit=pto-generic`) parses and verifies too, and MLIR's generic printer
   writes both back identically (`--mlir-print-op-generic`);
3. our generic text *is* what MLIR's generic printer writes, byte for byte once SSA value names
   are renamed in order of first appearance (MLIR numbers results `%0, %1...`, we keep names);
4. (the corpus) the PTO-AS reads back as the Buffer IR it came from (`t2b-opt --verify-pto-roundtrip`,
   emit/pto_roundtrip.hpp; the campaign and the fuzzer check that in process for every program).

Failing twins show each check can fail: a wrong segment count, a missing required property, a
property on an op without properties, a misaligned address, an address at the wrong level, a
tcvt without its saturation in either form, a level3 a2/a3 trowsum without its tmp (check 1's
verifier), a tadd whose generic form swaps its sources (parses, caught by check 2), and a
default-valued property left out of the generic text (parses, caught by check 3). The level3
a2/a3 ops the implicit-tmp rule (pto-dialect.md §5) inspects are counted: each family we emit
must have been checked at least once.

Usage:
  corpus T2B_OPT PTO_CHECK_OPT GEN_TILE EXAMPLES_DIR GOLDEN_DIR [--campaign T2B_CAMPAIGN]
      the corpus above, plus the PTO-AS t2b-campaign emits for its generated kernels (--pto-out);
  fuzz FUZZER SEEDS PTO_CHECK_OPT [--seconds N]
      the pipeline fuzzer's lowered programs (every 8th, T2B_FUZZ_PTO_DIR), checked the same way;
  --skip
      exit 77 (skipped): the checker could not be built (no LLVM/MLIR 22: bash tools/install-deps.sh)."""
import argparse
import concurrent.futures
import glob
import os
import random
import re
import subprocess
import sys
import tempfile
import time

PLANNERS = ["pypto", "dsa_rp", "ptoas"]
TARGETS = ["a2a3", "a5"]
KERNEL = re.compile(r"^(?:aiv|aic|incore) @([A-Za-z_][A-Za-z0-9_.]*)\(.*attributes \{[^}]*stage = buffer")
SPLIT = "// -----"
ALL_TILE = "is a Tile-stage kernel; the PTO emitter writes Buffer-stage kernels only"
PREFLIGHT = re.compile(r":[0-9]+:[0-9]+: error: emit-pto: ")
ROUNDTRIP = "error: pto-roundtrip: "
SSA = re.compile(r"%[A-Za-z0-9_$.\-]+(?:#[0-9]+)?")
GROUP = re.compile(r"^( *)(%[A-Za-z0-9_$.\-]+):([0-9]+) = ", re.M)
# The generated sample: each gen_tile.py shape, lowered like the examples.
# The ops under the level3 implicit-tmp rule that we emit (tcvt: only float pairs, outside the rule).
IMPLICIT_TMP_OPS = ["trowsum", "trowmax", "trowmin", "tcolsum", "tcvt"]
SAMPLE = [("line", 12), ("shared", 12), ("loops", 8), ("window", 8), ("cube", 4)]


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True)


class Check:
    def __init__(self, t2b_opt, checker):
        self.t2b_opt, self.checker = t2b_opt, checker
        self.failures = 0

    def fail(self, message):
        print("FAIL " + message)
        self.failures += 1

    def checker_run(self, texts, level):
        """Parse, verify and generic-print `texts` in one pto-check-opt run; a list of
        (re-printed text or None, error text) per input."""
        source = ("\n" + SPLIT + "\n").join(texts)
        proc = run([self.checker, "--split-input-file", f"--pto-level={level}", "--mlir-print-op-generic", "-"], stdin=source)
        if proc.returncode == 0:
            outputs = proc.stdout.split(SPLIT + "\n")
            if len(outputs) == len(texts):
                return [(o.strip("\n"), "") for o in outputs]
        # Some input failed: run each alone, so every verdict and message belongs to one program.
        results = []
        for t in texts:
            single = run([self.checker, f"--pto-level={level}", "--mlir-print-op-generic", "-"], stdin=t)
            results.append((single.stdout.strip("\n"), "") if single.returncode == 0 else (None, single.stderr))
        return results


def normalized(text):
    """The text with SSA value names renamed in order of first appearance. MLIR names an op's
    results as one group (`%5:2 = ...`, used as `%5#0`), we name each (`%lo, %hi = ...`): the
    group is spelled out first; names are renamed per function, and comments dropped. arith.trunci's `overflowFlags`, which LLVM 19 does not declare,
    is dropped from MLIR 22's text (see emit/pto.hpp)."""
    text = GROUP.sub(lambda m: m.group(1) + ", ".join(f"{m.group(2)}#{i}" for i in range(int(m.group(3)))) + " = ", text)
    text = "\n".join(line.replace(" <{overflowFlags = #arith.overflow<none>}>", "") if '"arith.trunci"(' in line else line
                     for line in text.splitlines())
    # Names are scoped by function (MLIR numbers each from %0 and %arg0); comments are not IR.
    out, names = [], {}
    for line in text.strip("\n").splitlines():
        if line.lstrip().startswith("//"):
            continue
        if '"func.func"' in line:
            names = {}
        out.append(SSA.sub(lambda m: names.setdefault(m.group(0), f"%v{len(names)}"), line))
    return "\n".join(out)


def collect_cases(sample_dir, examples_dir, golden_dir):
    """(label, t2b-opt arguments, expected level or None) per module to emit. A Tile input is
    lowered under every planner and target and emitted whole (kernels that stay Tile are left
    out, with a comment); the Buffer kernels of a hand-written Buffer input are emitted as
    written, one module each, for both targets."""
    cases = []

    def lowered(path, label, pre_planned, extended=False):
        # A file that exercises the extended rollout (its RUN lines ask for it, or a zoo kernel) is
        # emitted under both rollouts: the default one must stay as the spec says.
        with open(path, encoding="utf-8") as fh:
            extended = extended or "--rollout=extended" in fh.read()
        rollouts = [[], ["--rollout=extended"]] if extended else [[]]
        for planner in PLANNERS:
            for target in TARGETS:
                for extra in rollouts:
                    cases.append((" ".join([label, f"--planner={planner}", f"--target={target}"] + extra),
                                  [path, f"--planner={planner}", f"--target={target}"] + extra,
                                  None if pre_planned else "level2" if planner == "ptoas" else "level3"))

    def buffer_kernels(path):
        with open(path, encoding="utf-8") as fh:
            return [m.group(1) for m in map(KERNEL.match, fh) if m]

    for path in sorted(glob.glob(os.path.join(examples_dir, "*.t2b"))):
        lowered(path, os.path.basename(path), bool(buffer_kernels(path)))
    for path in sorted(glob.glob(os.path.join(examples_dir, "zoo", "*.t2b"))):
        lowered(path, "zoo/" + os.path.basename(path), False, extended=True)
    for path in sorted(glob.glob(os.path.join(golden_dir, "**", "*.t2b"), recursive=True)):
        if path.endswith("-invalid.t2b"):
            continue
        label = os.path.relpath(path, golden_dir)
        kernels = buffer_kernels(path)
        if not kernels:
            lowered(path, label, False)
        for kernel in kernels:
            for target in TARGETS:
                cases.append((f"{label} --target={target} @{kernel}", [path, f"--target={target}", f"--pto-kernel={kernel}"], None))
    for path in sorted(glob.glob(os.path.join(sample_dir, "*.t2b"))):
        lowered(path, "generated " + os.path.basename(path), False)
    return cases


def float_literals_kernel(count=120, seed=33):
    """A Buffer kernel multiplying by `count` random float literals, spread over FP32, FP16 and
    BF16: their constants' spelling in the generic form is compared with MLIR's by check 3."""
    rng = random.Random(seed)
    lines = ["incore @float_literals(a: Scalar[FP32], h: Scalar[FP16], g: Scalar[BF16]) attributes {stage = buffer} {"]
    for i in range(count):
        digits = rng.randint(1, 10 ** rng.randint(1, 12))
        literal = f"{digits}.0e{rng.randint(-45, 38)}" if i % 3 else f"{digits / 10 ** rng.randint(0, 6)!r}"
        param, limit = [("a", 38), ("h", 4), ("g", 38)][i % 3]
        if "e" in literal and int(literal.split("e")[1]) + len(str(digits)) > limit:
            literal = f"{digits}.0e-{rng.randint(1, 8)}"
        lines.append(f"  x{i} = {param} * {literal}")
    lines += ["  return", "}", ""]
    return "\n".join(lines)


def add_program(check, programs, label, expected, native, generic):
    """Files a module under the level its addresses say, checking the planner's expectation."""
    if "func.func" not in native:
        return  # every kernel stayed Tile (on a5, all do)
    level = "level3" if "pto.alloc_tile addr =" in native else "level2"
    # The level the module's first line names is the one a user passes ptoas: it must be the one
    # its addresses say.
    said = re.match(r"// tile2buffer: check with --pto-level=(level[23]) ", native)
    if "pto.alloc_tile" in native and (said is None or said.group(1) != level):
        check.fail(f"{label}: the first line names {said.group(1) if said else 'no level'}, the addresses say {level}")
        return
    if expected is not None and "pto.alloc_tile" in native and expected != level:
        check.fail(f"{label}: expected {expected} (addresses {'on none' if expected == 'level2' else 'on every alloc_tile'})")
        return
    programs[level].append((label, native, generic))


def read_dumped(check, programs, directory):
    """The modules t2b-campaign --pto-out or the fuzzer wrote: NAME-PLANNER-TARGET.pto and its
    .generic.pto twin."""
    count = 0
    for path in sorted(glob.glob(os.path.join(directory, "*.pto"))):
        if path.endswith(".generic.pto"):
            continue
        label = os.path.basename(path)[:-len(".pto")]
        with open(path, encoding="utf-8") as fh:
            native = fh.read()
        with open(path[:-len(".pto")] + ".generic.pto", encoding="utf-8") as fh:
            generic = fh.read()
        planner = label.split("-")[-2]
        add_program(check, programs, label, None if planner not in PLANNERS else "level2" if planner == "ptoas" else "level3",
                    native, generic)
        count += 1
    return count


def check_programs(check, programs, minimum, start, minimum_rule_ops=True):
    """Checks 1-3 on every filed module; fails when fewer than `minimum` were checked."""
    checked = 0
    for level, items in programs.items():
        if not items:
            continue
        natives = check.checker_run([n for _, n, _ in items], level)
        generics = check.checker_run([g for _, _, g in items], level)
        for (label, _, generic), (rn, rn_err), (rg, rg_err) in zip(items, natives, generics):
            checked += 1
            if rn is None:
                check.fail(f"{label}: pto-check-opt --pto-level={level} rejects the native form\n{rn_err}")
            elif rg is None:
                check.fail(f"{label}: pto-check-opt --pto-level={level} rejects the generic form\n{rg_err}")
            elif rn != rg:
                check.fail(f"{label}: the native and generic forms print differently in MLIR's generic form")
            elif normalized(generic) != normalized(rg):
                check.fail(f"{label}: our generic form is not what MLIR's generic printer writes\n"
                           + first_difference(normalized(generic), normalized(rg)))
    print(f"{checked} modules checked in both forms ({len(programs['level3'])} at level3, "
          f"{len(programs['level2'])} at level2) in {time.monotonic() - start:.1f} s, {check.failures} failed")
    # The level3 implicit-tmp rule (pto-dialect.md §5) is the checker's: every op it governs that
    # we emit at level3 on a2/a3 was checked above; count them, so that the claim cannot go empty.
    counts = {op: 0 for op in IMPLICIT_TMP_OPS}
    for _, native, _ in programs["level3"]:
        if 'pto.target_arch = "a5"' not in native:
            for op in IMPLICIT_TMP_OPS:
                counts[op] += len(re.findall(rf"pto\.{op} ins\(", native))
    print("level3 a2/a3 ops the implicit-tmp rule inspected (each passed): " + ", ".join(f"{op} {n}" for op, n in counts.items()))
    if minimum_rule_ops and any(counts[op] == 0 for op in IMPLICIT_TMP_OPS):
        check.fail("no level3 a2/a3 module holds " + ", ".join(op for op in IMPLICIT_TMP_OPS if counts[op] == 0)
                   + ": the implicit-tmp rule is not exercised on our output")
    if checked < minimum:
        check.fail(f"only {checked} modules were checked (at least {minimum} expected); the corpus lost its kernels")


def corpus(args):
    check = Check(args.t2b_opt, args.checker)
    start = time.monotonic()
    programs = {"level2": [], "level3": []}
    with tempfile.TemporaryDirectory() as sample_dir:
        for shape, n in SAMPLE:
            subprocess.run([sys.executable, args.gen_tile, "--n", str(n), "--shape", shape, "-o",
                            os.path.join(sample_dir, f"{shape}_{n}.t2b")], check=True)
        with open(os.path.join(sample_dir, "float_literals.t2b"), "w", encoding="utf-8") as fh:
            fh.write(float_literals_kernel())
        cases = collect_cases(sample_dir, args.examples, args.golden)

        def emit(case):
            label, cmd, expected = case
            # --verify-pto-roundtrip: the PTO-AS must also read back as the Buffer IR it came from (check 4).
            native = run([args.t2b_opt] + cmd + ["--emit=pto", "--verify-pto-roundtrip"])
            generic = run([args.t2b_opt] + cmd + ["--emit=pto-generic"]) if native.returncode == 0 else None
            # Nothing to emit: the pipeline rejects the input, or every kernel stayed Tile (on a5,
            # all do); and the preflight's located refusals (`error: emit-pto: ...`) are the
            # emitter failing closed, tested by the preflight goldens. Any other failure is one.
            rejected = None
            if native.returncode != 0:
                rejected = ("all Tile" if ALL_TILE in native.stderr else "preflight" if PREFLIGHT.search(native.stderr)
                            else "pipeline" if run([args.t2b_opt] + cmd).returncode != 0 else None)
            return label, expected, native, generic, rejected

        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            emitted = list(pool.map(emit, cases))
        print(f"{len(cases)} modules emitted in {time.monotonic() - start:.1f} s")
        skipped = roundtrips = 0
        for label, expected, native, generic, rejected in emitted:
            # A positive emit golden exists to be emitted: a refusal there is a failure.
            if rejected in ("preflight", "pipeline") and label.startswith("emit/") and not label.startswith("emit/preflight/"):
                check.fail(f"{label}: the emitter refused a positive emit golden\n{native.stderr}")
                continue
            if rejected:
                skipped += 1
                continue
            if ROUNDTRIP in native.stderr:
                check.fail(f"{label}: the PTO-AS does not read back as the Buffer IR it came from\n{native.stderr}")
                continue
            if native.returncode != 0 or generic.returncode != 0:
                check.fail(f"{label}: t2b-opt could not emit it\n{native.stderr}{generic.stderr if generic else ''}")
                continue
            roundtrips += 1
            add_program(check, programs, label, expected, native.stdout, generic.stdout)
        print(f"{skipped} modules with nothing to emit (every kernel stayed Tile, the pipeline or the preflight refused)")
        print(f"{roundtrips} modules read back as the Buffer IR they came from (t2b-opt --verify-pto-roundtrip)")

        if args.campaign:
            # The campaign's generated kernels (every shape), lowered under every planner and
            # emitted by the campaign itself.
            dumped = os.path.join(sample_dir, "campaign")
            proc = run([args.campaign, "--kernels", str(args.campaign_kernels), "--jobs", str(os.cpu_count() or 2),
                        "--out", os.path.join(sample_dir, "reproducers"), "--pto-out", dumped])
            print(f"t2b-campaign: {proc.stdout.strip()}")
            if proc.returncode != 0:
                check.fail(f"t2b-campaign failed\n{proc.stdout}{proc.stderr}")
            print(f"{read_dumped(check, programs, dumped)} campaign modules read")

    check_programs(check, programs, 80, start)
    twins(check, programs)
    return 1 if check.failures else 0


def fuzz(args):
    """The pipeline fuzzer for a bounded time, dumping every 8th lowered program's PTO-AS
    (T2B_FUZZ_PTO_DIR), then checks 1-3 on what it dumped."""
    check = Check(None, args.checker)
    start = time.monotonic()
    programs = {"level2": [], "level3": []}
    with tempfile.TemporaryDirectory() as work:
        dumped, corpus_dir = os.path.join(work, "pto"), os.path.join(work, "corpus")
        os.makedirs(dumped)
        os.makedirs(corpus_dir)
        # A crashing input is kept beside the fuzzer, as tests/text/run_fuzz.py keeps it.
        artifacts = args.fuzzer + "-artifacts"
        os.makedirs(artifacts, exist_ok=True)
        cmd = [args.fuzzer, f"-max_total_time={args.seconds}", "-timeout=10", "-rss_limit_mb=2048", "-error_exitcode=1",
               f"-artifact_prefix={artifacts}/", corpus_dir, args.seeds]
        proc = subprocess.run(cmd, env=dict(os.environ, T2B_FUZZ_PTO_DIR=dumped), capture_output=True, text=True, errors="replace")
        if proc.returncode != 0:
            check.fail(f"the fuzzer failed\n{proc.stderr[-3000:]}")
        print(f"{read_dumped(check, programs, dumped)} fuzzer modules read")
    check_programs(check, programs, 10, start, minimum_rule_ops=False)
    return 1 if check.failures else 0


def main(argv):
    if argv[:1] == ["--skip"]:
        print("SKIP: pto-check-opt was not built (needs libmlir-22-dev, llvm-22-dev, mlir-22-tools: "
              "bash tools/install-deps.sh; never built in a sanitized build)")
        return 77
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    c = modes.add_parser("corpus")
    for name in ("t2b_opt", "checker", "gen_tile", "examples", "golden"):
        c.add_argument(name)
    c.add_argument("--campaign", help="t2b-campaign: also check its generated kernels")
    c.add_argument("--campaign-kernels", type=int, default=60)
    f = modes.add_parser("fuzz")
    for name in ("fuzzer", "seeds", "checker"):
        f.add_argument(name)
    f.add_argument("--seconds", type=int, default=30)
    args = parser.parse_args(argv)
    return corpus(args) if args.mode == "corpus" else fuzz(args)


def first_difference(ours, mlirs):
    for a, b in zip(ours.splitlines(), mlirs.splitlines()):
        if a != b:
            return f"  ours: {a}\n  MLIR: {b}"
    return "  (one text is a prefix of the other)"


def twins(check, programs):
    """Each deliberately wrong program must be rejected with its reason (or, for the last, must
    fail the exactness comparison), so every check above can fail."""
    def first(level, form, needle):
        for label, native, generic in programs[level]:
            text = native if form == "native" else generic
            if re.search(needle, text):
                return text
        check.fail(f"twin: no {form} {level} program contains {needle!r}; the twin cannot be built")
        return None

    def expect_rejected(name, level, text, fragment):
        if text is None:
            return
        [(out, err)] = check.checker_run([text], level)
        if out is not None:
            check.fail(f"twin {name}: pto-check-opt accepted it")
        elif fragment not in err:
            check.fail(f"twin {name}: rejected, but without {fragment!r}:\n{err}")
        else:
            print(f"ok   twin {name}: rejected ({fragment})")

    g = first("level3", "generic", r'"pto\.tload"')
    if g:
        expect_rejected("tload segment count", "level3",
                        g.replace("operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>", "operandSegmentSizes = array<i32: 1, 1>", 1),
                        "size mismatch in attribute conversion")
    g = first("level3", "generic", r'"pto\.subview"')
    if g:
        expect_rejected("subview without sizes", "level3", re.sub(r"(\"pto\.subview\".*?), sizes = \[[0-9, ]+\]", r"\1", g, count=1),
                        "requires attribute 'sizes'")
    g = first("level3", "generic", r'"pto\.tadd"')
    if g:
        expect_rejected("properties on tadd", "level3",
                        re.sub(r'("pto\.tadd"\([^)]*\)) :', r'\1 <{operandSegmentSizes = array<i32: 1, 1, 1>}> :', g, count=1),
                        "does not support properties")
    n = first("level3", "native", r"pto\.alloc_tile addr = %[A-Za-z0-9_]+ : !pto\.tile_buf<loc=vec")
    if n:
        m = re.search(r"^( *)(%\S+ = pto\.alloc_tile addr = )(%[A-Za-z0-9_]+)( : !pto\.tile_buf<loc=vec)", n, re.M)
        bad = n[:m.start()] + f"{m.group(1)}%t2b_bad_addr = arith.constant 100 : i64\n" + m.group(1) + m.group(2) + \
            "%t2b_bad_addr" + m.group(4) + n[m.end():]
        expect_rejected("misaligned address", "level3", bad, "must be non-negative and aligned to 32 bytes")
        expect_rejected("address at level2", "level2", n, "takes no addr at --pto-level=level2")
    g = first("level3", "generic", r'"pto\.tadd"\(%[\w.]+, %[\w.]+, ')
    if g:
        # Operands swapped in the generic form only: both forms still parse and verify, and only
        # check 2 (the two re-printed forms agree) can see the difference.
        label, native = next((l, n) for l, n, x in programs["level3"] if x == g)
        swapped = re.sub(r'"pto\.tadd"\((%[\w.]+), (%[\w.]+), ', r'"pto.tadd"(\2, \1, ', g, count=1)
        [(rn, _)] = check.checker_run([native], "level3")
        [(rg, err)] = check.checker_run([swapped], "level3")
        if rg is None:
            check.fail(f"twin swapped operands: pto-check-opt rejected it\n{err}")
        elif rn == rg:
            check.fail("twin swapped operands: the native and generic re-prints agree; check 2 cannot fail")
        else:
            print(f"ok   twin swapped operands ({label}): parsed, and check 2 reports the forms differ")
    # tcvt's saturation, left out of either form (issue 52 item 4).
    n = first("level3", "native", r"pto\.tcvt ins\(")
    if n:
        expect_rejected("tcvt without satmode", "level3", re.sub(r", satmode = #pto<saturation_mode \w+>", "", n, count=1),
                        "needs `satmode = #pto<saturation_mode ON|OFF>` inside ins(...)")
    g = first("level3", "generic", r'"pto\.tcvt"')
    if g:
        expect_rejected("tcvt without sat_mode", "level3", re.sub(r", sat_mode = #pto<saturation_mode \w+>", "", g, count=1),
                        "needs sat_mode (custom form: `satmode`)")
    # The level3 implicit-tmp rule (pto-dialect.md §5): our row reduction without its tmp.
    n = first("level3", "native", r'pto\.target_arch = "a3"[\s\S]*pto\.trowsum ins\(%[\w.]+, ')
    if n:
        expect_rejected("trowsum without tmp at level3", "level3",
                        re.sub(r"pto\.trowsum ins\((%[\w.]+), %[\w.]+ : (!pto\.tile_buf<[^>]*>), !pto\.tile_buf<[^>]*>\)",
                               r"pto.trowsum ins(\1 : \2)", n, count=1),
                        "a row reduction needs tmp at --pto-level=level3 on a2/a3")
    g = first("level3", "generic", r"reluPreMode = #pto<relu_pre_mode no_relu>")
    if g:
        dropped = re.sub(r", reluPreMode = #pto<relu_pre_mode no_relu>", "", g, count=1)
        [(out, err)] = check.checker_run([dropped], "level3")
        if out is None:
            check.fail(f"twin default left out: pto-check-opt rejected it, but a default-valued property may be omitted\n{err}")
        elif normalized(dropped) == normalized(out):
            check.fail("twin default left out: the exactness comparison did not see the missing property")
        else:
            print("ok   twin default left out: parsed, and the exactness comparison reports it")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
