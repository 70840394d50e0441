#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile inputs to t2b-opt (issue 16 item 4): every one must end with exit 1 and exactly one
located error line (`FILE:LINE:COL: error: ...`), within the time limit, never a crash, hang or
stack overflow. The corpus is built here: 100,000-deep region nesting and parenthesized tuples, a
100 MB single line, NUL bytes, invalid UTF-8, integers that overflow every integer type in every
integer position, and corrupted binary IR. Usage: T2B_OPT KERNEL.t2b"""
import os
import re
import subprocess
import sys
import tempfile

HEADER = "aiv @k(X: Tensor[[16, 32], FP32], n: INT32) -> Tensor[[16, 32], FP32] {\n"
LOAD = "  x = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]\n"
TAIL = "  r = tile.store(x, (0, 0), X) : Tensor[[16, 32], FP32]\n  return r\n}\n"
LOCATED = re.compile(rb"^[^\n]*:\d+:\d+: error: ", re.M)

# Integers past int32, int64 and uint64, and a float past double.
BIG = ["2147483648", "9223372036854775808", "18446744073709551616", "1" + "0" * 40, "-" + "9" * 30]


def text_corpus(kernel: bytes) -> dict[str, bytes]:
    c: dict[str, bytes] = {}
    deep = 100_000
    c["regions-100k-deep"] = (HEADER + "  c = n > 0\n" + "  if c {\n" * deep + "  }\n" * deep + TAIL).encode()
    c["tuple-100k-deep"] = (HEADER + "  x = tile.load(X, " + "(" * deep + "0" + ")" * deep
                            + ", (16, 32)) : Tile[[16, 32], FP32, Vec]\n" + TAIL).encode()
    c["type-100k-deep"] = (HEADER + "  x = tile.load(X, (0, 0), (16, 32)) : " + "Tile[" * deep + "]" * deep
                           + "\n" + TAIL).encode()
    c["line-100MB-word"] = b"a" * (100 << 20)
    c["line-100MB-spaces"] = b" " * (100 << 20) + b"?"
    c["line-100MB-in-kernel"] = (HEADER + LOAD + "  y = tile.add(x, x) : Tile[[16, 32], FP32, Vec]" ).encode() \
        + b" " * (100 << 20) + b"junk\n" + TAIL.encode()
    for where in (0, 1, len(kernel) // 2, len(kernel) - 2):
        c[f"nul-at-{where}"] = kernel[:where] + b"\0" + kernel[where:]
    c["invalid-utf8-name"] = kernel.replace(b"@", b"@\xff\xfe", 1)
    c["invalid-utf8-value"] = (HEADER + "  x\xc3 = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]\n"
                               + TAIL).encode("latin-1")
    c["lone-continuation"] = (HEADER + LOAD).encode() + b"  \x80\x80 = 1\n" + TAIL.encode()
    for i, big in enumerate(BIG):
        c[f"shape-extent-{i}"] = (HEADER.replace("16, 32", big + ", 32", 1) + LOAD + TAIL).encode()
        c[f"offset-{i}"] = (HEADER + LOAD.replace("(0, 0)", f"({big}, 0)") + TAIL).encode()
        if i > 0:  # literals are 64-bit: 2^31 is a valid one there
            c[f"scalar-{i}"] = (HEADER + LOAD + f"  s = n + {big}\n" + TAIL).encode()
            c[f"loop-bound-{i}"] = (HEADER + LOAD + f"  for i in range(0, {big}, 1) {{\n  }}\n" + TAIL).encode()
        c[f"stride-{i}"] = (HEADER.replace("FP32]", f"FP32, stride=[{big}, 1]]", 1) + LOAD + TAIL).encode()
    c["float-exponent"] = (HEADER + LOAD + "  s = 1.0e999999999999999999\n" + TAIL).encode()
    return c


def binary_corpus(binary: bytes) -> dict[str, bytes]:
    c: dict[str, bytes] = {}
    for cut in (8, len(binary) // 3, len(binary) // 2, len(binary) - 1):
        c[f"binary-truncated-{cut}"] = binary[:cut]
    for at in range(12, len(binary), max(1, len(binary) // 24)):
        for value in (0x00, 0xff, 0xdc, 0x7f):
            b = bytearray(binary)
            b[at] = value
            c[f"binary-byte-{at}-{value:02x}"] = bytes(b)
    c["binary-garbage-tail"] = binary + bytes(range(256)) * 64
    # A header followed by an array that claims four billion elements.
    c["binary-huge-count"] = binary[:12] + b"\xdd\xff\xff\xff\xff"
    return c


def main() -> int:
    t2b_opt, kernel_path = sys.argv[1:3]
    kernel = open(kernel_path, "rb").read()
    # Why from the kernel's directory: the binary records the file name it was read from, so an
    # absolute path would move every byte offset below with the clone's location.
    binary = subprocess.run([os.path.abspath(t2b_opt), "--emit=binary", os.path.basename(kernel_path)], capture_output=True,
                            check=True, cwd=os.path.dirname(os.path.abspath(kernel_path))).stdout
    corpus = text_corpus(kernel) | binary_corpus(binary)
    # Valid, if odd: these must succeed (exit 0), not merely not crash.
    valid = {"empty": b"", "only-newlines": b"\n" * 1_000_000, "only-comments": b"# \xff\xfe\n" * 100_000}
    failures = []
    accepted = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in valid.items():
            path = os.path.join(tmp, name + ".t2b")
            with open(path, "wb") as f:
                f.write(data)
            p = subprocess.run([t2b_opt, "--lower", path], capture_output=True, timeout=120)
            if p.returncode != 0:
                failures.append(f"{name}: exit {p.returncode} on a valid input: {p.stderr[:300]!r}")
        for name, data in corpus.items():
            path = os.path.join(tmp, name + ".t2b")
            with open(path, "wb") as f:
                f.write(data)
            try:
                p = subprocess.run([t2b_opt, "--lower", path], capture_output=True, timeout=120)
            except subprocess.TimeoutExpired:
                failures.append(f"{name}: no answer within 120 s")
                continue
            errors = LOCATED.findall(p.stderr)
            if p.returncode == 0 and name.startswith("binary-byte-"):
                accepted += 1  # a flipped byte inside a name or a payload can leave a valid program
                continue
            # A flipped byte in a well-formed binary can break one value in several ways (an extent
            # past the tensor is also a window past it): at least one located error, each located.
            wanted = len(errors) >= 1 if name.startswith("binary-byte-") else len(errors) == 1
            if p.returncode != 1 or not wanted:
                failures.append(f"{name}: exit {p.returncode}, {len(errors)} located errors; stderr begins "
                                f"{p.stderr[:300]!r}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(corpus)} hostile inputs, {accepted} corrupted binaries still valid, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
