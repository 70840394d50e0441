#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a libFuzzer target for a bounded time over a seed corpus, writing new inputs to a
temporary directory so the seed directory stays untouched. A crashing input is kept in
`<fuzzer>-artifacts/` beside the fuzzer binary. Usage: FUZZER SEED_DIR DICT SECONDS"""
import os
import subprocess
import sys
import tempfile


def main() -> int:
    fuzzer, seeds, dictionary, seconds = sys.argv[1:5]
    artifacts = fuzzer + "-artifacts"
    os.makedirs(artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory() as corpus:
        # Why -error_exitcode=1: libFuzzer's default crash exit code is 77, which meson counts as a skip.
        cmd = [fuzzer, f"-max_total_time={seconds}", "-timeout=10", "-rss_limit_mb=2048", "-error_exitcode=1",
               f"-dict={dictionary}", f"-artifact_prefix={artifacts}/", corpus, seeds]
        print(" ".join(cmd), flush=True)
        code = subprocess.run(cmd).returncode
        return 1 if code == 77 else code


if __name__ == "__main__":
    sys.exit(main())
