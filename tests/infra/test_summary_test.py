#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`test_summary_test.py TEST_SUMMARY`: runs tools/test_summary.py on hand-made Meson test logs and
checks its final line (the one the CI parses) and exit status. Exits 1 on the first mismatch."""
import json
import os
import subprocess
import sys
import tempfile


def write_log(root: str, name: str, results: list[str]) -> str:
    builddir = os.path.join(root, name)
    os.makedirs(os.path.join(builddir, "meson-logs"))
    with open(os.path.join(builddir, "meson-logs", "testlog.json"), "w", encoding="utf-8") as fh:
        for i, r in enumerate(results):
            fh.write(json.dumps({"name": f"t{i}", "result": r}) + "\n")
    return builddir


def check(summary: str, args: list[str], last_line: str, status: int) -> bool:
    run = subprocess.run([sys.executable, summary] + args, capture_output=True, text=True, check=False)
    lines = run.stdout.strip().splitlines()
    got = lines[-1] if lines else ""
    if got != last_line or run.returncode != status:
        print(f"test_summary.py {' '.join(args)}: got {got!r} (exit {run.returncode}), "
              f"want {last_line!r} (exit {status})\n{run.stdout}{run.stderr}")
        return False
    return True


def main(argv: list[str]) -> int:
    summary = argv[1]
    with tempfile.TemporaryDirectory() as root:
        gcc = write_log(root, "gcc", ["OK", "OK", "SKIP", "EXPECTEDFAIL"])
        clang = write_log(root, "clang", ["OK", "SKIP", "FAIL"])
        missing = os.path.join(root, "never-ran")
        ok = all([
            check(summary, [gcc], "3 passed, 0 failed, 1 skipped", 0),
            check(summary, [gcc, clang], "4 passed, 1 failed, 2 skipped", 1),
            # A failed build and a missing log each count as one failure, never as skipped.
            check(summary, ["--failed-builds", "2", gcc, missing], "3 passed, 3 failed, 1 skipped", 1),
        ])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
