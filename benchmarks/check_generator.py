#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Test: benchmarks/gen_kernel.hpp (printed by `bench_t2b --print-kernel`) and tools/gen_tile.py
generate the same kernels, byte for byte, for every shape at several sizes and loop bodies, so
the in-memory benchmarks and the text-based comparison with MLIR measure the same programs.

    python3 benchmarks/check_generator.py BUILD/benchmarks/bench_t2b tools/gen_tile.py
"""
import subprocess
import sys

CASES = [("line", 1, 8), ("line", 37, 8), ("shared", 16, 8), ("shared", 100, 8),
         ("loops", 1, 8), ("loops", 8, 8), ("loops", 45, 8), ("loops", 21, 5),
         ("window", 1, 8), ("window", 9, 8), ("window", 37, 8), ("cube", 1, 8), ("cube", 2, 8), ("cube", 37, 8),
         ("valid", 1, 8), ("valid", 2, 8), ("valid", 37, 8)]


def main():
    bench, gen = sys.argv[1], sys.argv[2]
    failed = 0
    for shape, n, body in CASES:
        cpp = subprocess.run([bench, "--print-kernel", "%s:%d:%d" % (shape, n, body)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        py = subprocess.run([sys.executable, gen, "--shape", shape, "--n", str(n), "--body", str(body)],
                            stdout=subprocess.PIPE, text=True, check=True).stdout
        ok = cpp.returncode == 0 and cpp.stdout == py
        print("%s %s n=%d body=%d" % ("ok  " if ok else "FAIL", shape, n, body))
        if not ok:
            failed += 1
            if cpp.returncode != 0:
                print(cpp.stderr)
            else:
                for i, (a, b) in enumerate(zip(cpp.stdout.splitlines(), py.splitlines())):
                    if a != b:
                        print("  first difference at line %d:\n  C++: %s\n  py:  %s" % (i + 1, a, b))
                        break
                else:
                    print("  lengths differ: %d vs %d lines" % (len(cpp.stdout.splitlines()), len(py.splitlines())))
    print("%d passed, %d failed" % (len(CASES) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
