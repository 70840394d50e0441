#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""For every example kernel F: `t2b-opt F | t2b-opt -` must print exactly what `t2b-opt F` prints."""
import glob
import os
import subprocess
import sys


def main() -> int:
    t2b_opt, examples = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(examples, "*.t2b")))
    if not files:
        print(f"no .t2b files in {examples}", file=sys.stderr)
        return 1
    failed = 0
    for path in files:
        first = subprocess.run([t2b_opt, path], capture_output=True)
        if first.returncode != 0 or not first.stdout:
            print(f"FAIL {path}: t2b-opt exited {first.returncode}\n{first.stderr.decode()}", file=sys.stderr)
            failed += 1
            continue
        second = subprocess.run([t2b_opt, "-"], input=first.stdout, capture_output=True)
        if second.returncode != 0 or second.stdout != first.stdout:
            print(f"FAIL {path}: reprinting through stdin changed the text\n{second.stderr.decode()}",
                  file=sys.stderr)
            failed += 1
            continue
        print(f"ok   {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
