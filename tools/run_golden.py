#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the `# RUN:` lines of one golden `.t2b` file, lit style.

Substitutions: %s (the file), %S (its directory), %t2b-opt, %FileCheck, %not (expects a non-zero
exit that is not a signal), %t (a temporary file path). Every RUN line runs under bash with pipefail; the test
passes when every line exits 0.
"""
import os
import re
import subprocess
import sys
import tempfile


def main() -> int:
    if len(sys.argv) != 5:
        print("usage: run_golden.py T2B_OPT FILECHECK NOT_TOOL FILE", file=sys.stderr)
        return 2
    t2b_opt, filecheck, not_tool, path = sys.argv[1:]
    with open(path, encoding="utf-8") as fh:
        lines = [m.group(1) for m in (re.search(r"#\s*RUN:\s*(.*)$", l) for l in fh) if m]
    if not lines:
        print(f"{path}: no RUN line", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        tmpfile = os.path.join(tmp, "out")
        for cmd in lines:
            cmd = (cmd.replace("%t2b-opt", t2b_opt).replace("%FileCheck", filecheck)
                   .replace("%not", not_tool).replace("%s", path).replace("%S", os.path.dirname(os.path.abspath(path)))
                   .replace("%t", tmpfile))
            print(f"RUN: {cmd}")
            proc = subprocess.run(["bash", "-o", "pipefail", "-c", cmd])
            if proc.returncode != 0:
                print(f"{path}: RUN line failed with exit code {proc.returncode}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
