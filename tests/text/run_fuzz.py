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
        cmd = [fuzzer, f"-max_total_time={seconds}", "-timeout=10", "-rss_limit_mb=2048",
               f"-dict={dictionary}", f"-artifact_prefix={artifacts}/", corpus, seeds]
        print(" ".join(cmd), flush=True)
        return subprocess.run(cmd).returncode


if __name__ == "__main__":
    sys.exit(main())
