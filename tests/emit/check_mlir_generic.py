#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""External syntax check of the PTO emitter: every Buffer-stage kernel of every example (lowered
with each planner) and of every positive emit golden input is printed in MLIR's generic op form
(`t2b-opt --emit=pto-generic`) and parsed and verified by a real `mlir-opt
--allow-unregistered-dialect` (SSA dominance, region and block structure, the `scf`, `arith` and
`func` op verifiers, the generic syntax of properties); hand-written Buffer inputs also for a5. A deliberately broken program must be rejected, so the check can fail.

Usage: T2B_OPT EXAMPLES_DIR GOLDEN_EMIT_DIR. Exits 77 (skipped, with a message) when no mlir-opt is
installed (PATH, then /usr/lib/llvm-*/bin; the MLIR_OPT environment variable overrides both)."""
import glob
import os
import re
import shutil
import subprocess
import sys

PLANNERS = ["pypto", "dsa_rp", "ptoas"]
KERNEL = re.compile(r"^(?:aiv|aic|incore) @([A-Za-z_][A-Za-z0-9_.]*)\(.*attributes \{[^}]*stage = buffer")


def find_mlir_opt():
    # MLIR_OPT=/path/to/mlir-opt picks one; MLIR_OPT=none forces the skip (to test the skip path).
    forced = os.environ.get("MLIR_OPT")
    if forced:
        return forced if forced != "none" and os.access(forced, os.X_OK) else None
    found = shutil.which("mlir-opt")
    if found:
        return found
    candidates = glob.glob("/usr/lib/llvm-*/bin/mlir-opt")
    candidates.sort(key=lambda p: int(re.search(r"llvm-(\d+)", p).group(1)))
    return candidates[-1] if candidates else None


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True)


def mlir_accepts(mlir_opt, source):
    proc = run([mlir_opt, "--allow-unregistered-dialect"], stdin=source)
    return proc.returncode == 0, proc.stderr


def main() -> int:
    t2b_opt, examples_dir, golden_dir = sys.argv[1:4]
    mlir_opt = find_mlir_opt()
    if mlir_opt is None:
        print("SKIP: mlir-opt not found (install mlir-22-tools: apt-get install -y mlir-22-tools)")
        return 77
    print(f"using {mlir_opt}")

    # Harness sanity: a use before its definition must be rejected by the real verifier.
    broken = ('"func.func"() <{function_type = () -> (), sym_name = "k"}> ({\n'
              '  %x = "arith.addi"(%y, %y) : (index, index) -> index\n'
              '  %y = "arith.constant"() <{value = 1 : index}> : () -> index\n'
              '  "func.return"() : () -> ()\n}) : () -> ()\n')
    ok, _ = mlir_accepts(mlir_opt, broken)
    if ok:
        print("FAIL: mlir-opt accepted a use before definition; the check would prove nothing")
        return 1

    failures = 0
    checked = 0

    def check(label, args):
        nonlocal failures, checked
        proc = run([t2b_opt] + args)
        if proc.returncode != 0:
            print(f"FAIL {label}: t2b-opt failed\n{proc.stderr}")
            failures += 1
            return
        ok, err = mlir_accepts(mlir_opt, proc.stdout)
        checked += 1
        if not ok:
            print(f"FAIL {label}: mlir-opt rejected the generic form\n{err}")
            failures += 1
        else:
            print(f"ok   {label}")

    for path in sorted(glob.glob(os.path.join(examples_dir, "*.t2b"))):
        name = os.path.basename(path)
        for planner in PLANNERS:
            lowered = run([t2b_opt, path, f"--planner={planner}"])
            if lowered.returncode != 0:
                continue  # the pipeline rejects this input; there is nothing to emit
            for line in lowered.stdout.splitlines():
                m = KERNEL.match(line)
                if m:
                    check(f"{name} --planner={planner} @{m.group(1)}",
                          [path, f"--planner={planner}", "--emit=pto-generic", f"--pto-kernel={m.group(1)}"])

    for path in sorted(glob.glob(os.path.join(golden_dir, "*.t2b"))):
        if path.endswith("-invalid.t2b"):
            continue
        with open(path, encoding="utf-8") as fh:
            hand_written_buffer = "stage = buffer" in fh.read()
        if hand_written_buffer:
            # Already Buffer stage: emitted as written (the pipeline's own checks are not the point).
            check(os.path.basename(path), [path, "--emit=pto-generic"])
            check(os.path.basename(path) + " --target=a5", [path, "--target=a5", "--emit=pto-generic"])
            if "scalar_only" in os.path.basename(path):
                # No pto.* op: the custom form is plain MLIR, so the real parser checks it too.
                check(os.path.basename(path) + " (custom form)", [path, "--emit=pto"])
            continue
        for planner in PLANNERS:
            check(f"{os.path.basename(path)} --planner={planner}", [path, f"--planner={planner}", "--emit=pto-generic"])

    print(f"{checked} generic-form programs checked, {failures} failed")
    if checked == 0:
        print("FAIL: nothing was checked")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
