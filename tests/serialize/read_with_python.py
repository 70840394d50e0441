#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Interoperability: the binary IR is ordinary MessagePack. Reads `t2b-opt --emit=binary` output
of every example kernel (lowered with PTOAS) with Python's msgpack library, checks the documented
schema (docs/binary-format.md) against the program's text form, then writes it back with Python
(its own key order) and checks that t2b-opt reads that file as the same program.
Usage: T2B_OPT EXAMPLES_DIR. Exits 77 (skipped) when no Python with msgpack is available."""
import glob
import os
import re
import subprocess
import sys

try:
    import msgpack
except ImportError:
    # The Debian package (python3-msgpack) installs for the system interpreter.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        probe = subprocess.run(["/usr/bin/python3", "-c", "import msgpack"], capture_output=True)
        if probe.returncode == 0:
            sys.exit(subprocess.run(["/usr/bin/python3", __file__] + sys.argv[1:]).returncode)
    print("SKIP: no Python with the msgpack module (apt-get install -y python3-msgpack)")
    sys.exit(77)

FUNC = ["kind", "name", "loc", "stage", "buffer_ir_selected", "target", "value_count", "params", "results", "body"]


def walk_region(region, seen):
    for arg in region["args"]:
        seen.append(arg["id"])
    for op in region["ops"]:
        assert set(op) == {"op", "loc", "args", "kwargs", "regions", "results"}, op.keys()
        for r in op["regions"]:
            walk_region(r, seen)
        for res in op["results"]:
            seen.append(res["id"])


def reordered(obj, is_kwargs=False):
    """Python's own choices as a writer: every map's keys reversed, except keyword arguments,
    whose order is part of the IR."""
    if isinstance(obj, list):
        return [reordered(x) for x in obj]
    if isinstance(obj, dict):
        items = [(k, reordered(v, k == "kwargs")) for k, v in obj.items()]
        return dict(items if is_kwargs else reversed(items))
    return obj


def main() -> int:
    t2b_opt, examples = sys.argv[1:3]
    checked = 0
    for path in sorted(glob.glob(os.path.join(examples, "*.t2b"))):
        bin_ = subprocess.run([t2b_opt, path, "--planner=ptoas", "--emit=binary"], capture_output=True)
        if bin_.returncode != 0:
            continue
        text = subprocess.run([t2b_opt, path, "--planner=ptoas"], capture_output=True, text=True).stdout
        magic, version, prog = msgpack.unpackb(bin_.stdout, raw=False, strict_map_key=True)
        assert magic == "tile2buffer-ir" and version == 1, (magic, version)
        assert set(prog) == {"file", "functions"}
        headers = re.findall(r"^(incore|aic|aiv|orchestration) @(\w+)\(", text, re.M)
        assert [(f["kind"], f["name"]) for f in prog["functions"]] == headers, (path, headers)
        for f in prog["functions"]:
            assert list(f) == FUNC, list(f)
            in_text = re.search(rf"^\w+ @{f['name']}\(.*stage = buffer", text, re.M) is not None
            assert (f["stage"] == "buffer") == in_text, (f["name"], f["stage"])
            seen = [p["id"] for p in f["params"]]
            walk_region(f["body"], seen)
            # Values are numbered densely in definition order.
            assert seen == list(range(f["value_count"])), (f["name"], seen)
        # The other direction: a file written by Python's msgpack reads back as the same program.
        repacked = msgpack.packb([magic, version, reordered(prog)], use_bin_type=True)
        assert repacked != bin_.stdout
        back = subprocess.run([t2b_opt, "-"], input=repacked, capture_output=True)
        assert back.returncode == 0, back.stderr.decode()
        assert back.stdout.decode() == text, path
        checked += 1
        print(f"ok   {os.path.basename(path)}: {len(prog['functions'])} functions, read and written by Python")
    if checked == 0:
        print("FAIL: nothing was checked")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
