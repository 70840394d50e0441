#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""For every example kernel file, planner and binding of the examples' runtime scalars (flags,
trip counts; the simulator's defaults first), `t2b-opt --check-numerics --planner=P F` must exit 0
and every lowered kernel must report `numerics: ok`; at least MIN kernels must be compared in all.
A file that is Buffer IR already (`*.buffer.t2b`) has nothing to compare: the tool must say so
and exit 2."""
import glob
import os
import subprocess
import sys

t2b_opt, examples, minimum = sys.argv[1], sys.argv[2], int(sys.argv[3])
BINDINGS = [[], ["--scalar", "flag=1", "--scalar", "count=3", "--scalar", "limit=2"],
            ["--scalar", "flag=0", "--scalar", "count=1", "--scalar", "limit=4"]]
compared = 0
failed = False
for path in sorted(glob.glob(os.path.join(examples, "*.t2b"))):
    for planner, binding in [(p, b) for p in ("pypto", "dsa_rp", "ptoas") for b in BINDINGS]:
        proc = subprocess.run([t2b_opt, "--check-numerics=7", f"--planner={planner}", path] + binding,
                              capture_output=True, text=True)
        verdicts = [l for l in proc.stdout.splitlines() if l.startswith("@")]
        bad = [l for l in verdicts if not l.endswith("numerics: ok")]
        compared += len(verdicts) - len(bad)
        if path.endswith(".buffer.t2b"):
            if proc.returncode != 2 or verdicts or "compared nothing" not in proc.stderr:
                failed = True
                print(f"FAIL {planner} {path}: expected exit 2 and 'compared nothing' (exit {proc.returncode})\n{proc.stderr}")
            continue
        if proc.returncode != 0 or bad:
            failed = True
            print(f"FAIL {planner} {path} (exit {proc.returncode})\n{proc.stdout}{proc.stderr}")
        else:
            for l in verdicts:
                print(f"{planner} {os.path.basename(path)} {l}")
print(f"{compared} kernel lowerings compared")
sys.exit(1 if failed or compared < minimum else 0)
