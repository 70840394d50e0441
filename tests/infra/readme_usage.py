#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs every command of README.md's "30-second usage" block with the built t2b-opt; each must
exit 0. Paths under examples/ point into the source tree, outputs land in a scratch directory,
and each `--input NAME=FILE.npy` gets a .npy file shaped as the kernel's parameter NAME.

usage: readme_usage.py T2B_OPT SOURCE_ROOT
"""
import os
import re
import shlex
import struct
import subprocess
import sys
import tempfile

NPY_DTYPES = {"FP32": ("<f4", "f"), "INT32": ("<i4", "i"), "INT16": ("<i2", "h"), "INT8": ("|i1", "b"),
              "UINT8": ("|u1", "B"), "FP16": ("<f2", "e")}


def usage_commands(readme: str) -> list:
    """The t2b-opt lines of the first sh block after the '## 30-second usage' heading."""
    section = readme.split("## 30-second usage", 1)
    if len(section) != 2:
        sys.exit("README.md has no '## 30-second usage' section")
    block = re.search(r"```sh\n(.*?)```", section[1], re.S)
    if not block:
        sys.exit("the usage section has no sh block")
    commands = []
    for line in block.group(1).splitlines():
        line = re.split(r"\s{2,}#", line, maxsplit=1)[0].strip()
        if line:
            commands.append(shlex.split(line))
    return commands


def write_npy(path: str, rows: int, cols: int, dtype: str) -> None:
    descr, code = NPY_DTYPES[dtype]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, rows, cols)
    header += " " * ((-(len(header) + 11)) % 16) + "\n"
    values = [((i * 7) % 13) - 6 for i in range(rows * cols)]
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), code), *values))


def main() -> int:
    t2b_opt, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        commands = usage_commands(f.read())
    failed = 0
    for argv in commands:
        if argv[0] != "t2b-opt":
            print(f"FAIL: not a t2b-opt command: {' '.join(argv)}")
            failed += 1
            continue
        args = [os.path.join(root, a) if a.startswith("examples/") else a for a in argv[1:]]
        kernel = next((a for a in args if a.endswith(".t2b")), None)
        with tempfile.TemporaryDirectory() as scratch:
            setup_ok = True
            for i, a in enumerate(args):
                if i > 0 and args[i - 1] == "--input" and "=" in a:
                    name, file = a.split("=", 1)
                    text = open(kernel, encoding="utf-8").read()
                    m = re.search(r"\b%s: (?:out |inout )?Tensor\[\[(\d+), (\d+)\], (\w+)\]" % re.escape(name), text)
                    if not m or m.group(3) not in NPY_DTYPES:
                        print(f"FAIL: cannot make {file} for parameter {name} of {kernel}")
                        setup_ok = False
                        continue
                    write_npy(os.path.join(scratch, file), int(m.group(1)), int(m.group(2)), m.group(3))
            if not setup_ok:
                failed += 1
                continue
            proc = subprocess.run([t2b_opt] + args, cwd=scratch, capture_output=True, text=True)
        shown = "t2b-opt " + " ".join(argv[1:])
        if proc.returncode != 0:
            print(f"FAIL (exit {proc.returncode}): {shown}\n{proc.stderr[-2000:]}")
            failed += 1
        else:
            print(f"ok: {shown}")
    if len(commands) < 5:
        print(f"FAIL: only {len(commands)} commands found in the usage block")
        failed += 1
    print(f"{max(len(commands) - failed, 0)} of {len(commands)} README commands ran")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
