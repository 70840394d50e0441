#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Seeds the binary reader's fuzzer with the binary form of every example kernel, as written and
lowered with each planner (`t2b-opt --emit=binary`), then runs tests/text/run_fuzz.py over them.
Usage: RUN_FUZZ FUZZER T2B_OPT EXAMPLES_DIR DICT SECONDS"""
import glob
import os
import subprocess
import sys
import tempfile


def main() -> int:
    run_fuzz, fuzzer, t2b_opt, examples, dictionary, seconds = sys.argv[1:7]
    with tempfile.TemporaryDirectory() as seeds:
        n = 0
        for path in sorted(glob.glob(os.path.join(examples, "*.t2b"))):
            for extra in ([], ["--planner=pypto"], ["--planner=dsa_rp"], ["--planner=ptoas"]):
                out = os.path.join(seeds, f"seed{n}.bin")
                if subprocess.run([t2b_opt, path, "--emit=binary", "-o", out] + extra,
                                  capture_output=True).returncode == 0:
                    n += 1
        if n == 0:
            print("no seed could be written", file=sys.stderr)
            return 1
        print(f"{n} binary seeds", flush=True)
        rc = subprocess.run([sys.executable, run_fuzz, fuzzer, seeds, dictionary, seconds]).returncode
        # Why: libFuzzer reports a crash with exit code 77, which meson would count as a skip.
        return 1 if rc == 77 else rc


if __name__ == "__main__":
    sys.exit(main())
