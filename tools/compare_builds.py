#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Determinism across compilers: two t2b-opt binaries (the g++-12 and the clang++-14 build) must
print byte-identical output and exit with the same status for every input and mode.

    compare_builds.py REFERENCE CANDIDATE GEN_TILE DIR...

Inputs: every .t2b under each DIR (examples and golden files, invalid ones included: their
diagnostics must agree too) and a generated sample (tools/gen_tile.py, three shapes). Modes: the
canonical print, the pipeline with each planner, `--explain-selection`, PTO-AS and the binary IR
(ptoas). `--mutate` alters the candidate's output of the first input, so the check can be seen to
fail. Prints one line per difference (up to 10) and a summary; exits 1 on any difference."""
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile

MODES = [[], ["--planner=pypto"], ["--planner=dsa_rp"], ["--planner=ptoas"], ["--explain-selection"],
         ["--planner=ptoas", "--emit=pto"], ["--planner=pypto", "--emit=binary"]]


def run(binary, args, path):
    proc = subprocess.run([binary] + args + [path], capture_output=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def main(argv):
    mutate = "--mutate" in argv
    argv = [a for a in argv if a != "--mutate"]
    reference, candidate, gen_tile, dirs = argv[0], argv[1], argv[2], argv[3:]
    inputs = sorted(p for d in dirs for p in glob.glob(os.path.join(d, "**", "*.t2b"), recursive=True))
    with tempfile.TemporaryDirectory() as tmp:
        for shape in ("line", "shared", "loops"):
            out = os.path.join(tmp, f"generated_{shape}.t2b")
            subprocess.run([sys.executable, gen_tile, "--n", "300", "--shape", shape, "-o", out], check=True)
            inputs.append(out)
        # Why a thread pool: each comparison is two independent processes, and under the
        # sanitizers one t2b-opt start costs ~0.2 s, so a serial run of ~2,000 pairs dominated the suite.
        jobs = [(i, path, mode) for i, path in enumerate(inputs) for mode in MODES]

        def compare(job):
            i, path, mode = job
            a = run(reference, mode, path)
            b = run(candidate, mode, path)
            if mutate and i == 0 and not mode:
                b = (b[0], b[1] + b"#", b[2])
            if a == b:
                return None
            what = "exit status" if a[0] != b[0] else "stdout" if a[1] != b[1] else "stderr"
            return f"{' '.join(mode) or '(print)'} {path}: {what} differs"

        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            outcomes = list(pool.map(compare, jobs))  # in job order, so the report is deterministic
        differences = [d for d in outcomes if d is not None]
        runs = len(outcomes)
    for d in differences[:10]:
        print(d)
    print(f"{len(inputs)} inputs x {len(MODES)} modes: {runs} runs compared, {len(differences)} differ")
    return 1 if differences or runs < 100 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
