#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`test_summary.py [--failed-builds N] BUILDDIR...`: totals Meson's test logs.

Reads BUILDDIR/meson-logs/testlog.json (one JSON object per line, field `result`). OK and
EXPECTEDFAIL count as passed; FAIL, TIMEOUT, ERROR and UNEXPECTEDPASS as failed; SKIP as neither.
A missing log (tests never ran) and each failed build (--failed-builds) count as one failure.
Prints per-directory counts, then ONE final line `N passed, N failed, N skipped` (the CI reads
`N passed, N failed` and an optional `, N skipped`); exits 1 if N failed > 0 or nothing passed at all.
"""
import json
import os
import sys

PASSED = {"OK", "EXPECTEDFAIL"}
FAILED = {"FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"}


def main(argv: list[str]) -> int:
    args = argv[1:]
    failed_builds = 0
    if args[:1] == ["--failed-builds"]:
        failed_builds, args = int(args[1]), args[2:]
    passed, failed, skipped = 0, failed_builds, 0
    for builddir in args:
        log = os.path.join(builddir, "meson-logs", "testlog.json")
        if not os.path.isfile(log):
            print(f"{builddir}: no test log (tests did not run): counted as 1 failure")
            failed += 1
            continue
        p = f = s = 0
        with open(log, encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                entry = json.loads(line)
                result = entry.get("result", "")
                if result in PASSED:
                    p += 1
                elif result in FAILED:
                    f += 1
                    print(f"{builddir}: {result}: {entry.get('name', '?')}")
                elif result == "SKIP":
                    s += 1
                else:
                    print(f"{builddir}: unknown result {result!r} for {entry.get('name', '?')}: counted as failed")
                    f += 1
        print(f"{builddir}: {p} passed, {f} failed, {s} skipped")
        passed, failed, skipped = passed + p, failed + f, skipped + s
    if failed_builds:
        print(f"{failed_builds} build(s) failed: each counted as 1 failure")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
