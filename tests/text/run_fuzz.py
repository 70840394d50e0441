#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a libFuzzer target for a bounded time over a seed corpus, writing new inputs to a
temporary directory so the seed directory stays untouched. A crashing input is kept in
`<fuzzer>-artifacts/` beside the fuzzer binary.
Usage: FUZZER SEED_DIR DICT SECONDS [--expect-crash=TEXT]   (DICT '-': no dictionary)
With --expect-crash, the run passes only when the fuzzer finds a crash whose output contains
TEXT (a test that a deliberately broken build is caught)."""
import os
import subprocess
import sys
import tempfile


def main() -> int:
    fuzzer, seeds, dictionary, seconds = sys.argv[1:5]
    expect = next((a.split("=", 1)[1] for a in sys.argv[5:] if a.startswith("--expect-crash=")), None)
    artifacts = fuzzer + ("-expected-artifacts" if expect else "-artifacts")
    os.makedirs(artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory() as corpus:
        # Why -error_exitcode=1: libFuzzer's default crash exit code is 77, which meson counts as a skip.
        cmd = [fuzzer, f"-max_total_time={seconds}", "-timeout=10", "-rss_limit_mb=2048", "-error_exitcode=1",
               *([f"-dict={dictionary}"] if dictionary != "-" else []), f"-artifact_prefix={artifacts}/", corpus, seeds]
        print(" ".join(cmd), flush=True)
        if expect is None:
            code = subprocess.run(cmd).returncode
            return 1 if code == 77 else code
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        found = proc.returncode == 1 and expect in proc.stderr
        print(proc.stderr[-3000:])
        print(f"expected a crash mentioning {expect!r}: {'found' if found else 'NOT found'}")
        return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
