#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""As a consumer's Meson subproject, tile2buffer builds only what the consumer links
(test `infra/subproject-consumer`).

    subproject_consumer.py --meson MESON --source ROOT [--extra OPTION ...]

Writes a consumer project in a temporary directory (one `main.cpp` that includes the IR headers,
linked against the subproject's `tile2buffer_dep`), links ROOT as its `subprojects/tile2buffer`,
configures it and asks ninja what a build would do (`ninja -n`): every compile step must be the
consumer's own `main.cpp`. `--extra -Dtile2buffer:tests=true` (test
`infra/subproject-consumer-detects-extra-targets`, run through tools/not.py) shows that the check
fails when the subproject does build its tests. Exits 77 (Meson's skip) without ninja."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

CONSUMER_MESON = """project('consumer', 'cpp', default_options : ['cpp_std=c++20'])
t2b = subproject('tile2buffer').get_variable('tile2buffer_dep')
executable('consumer', 'main.cpp', dependencies : t2b)
"""
CONSUMER_MAIN = """#include <tile2buffer/ir/builder.hpp>
int main() { return tile2buffer::opcode_count > 0 ? 0 : 1; }
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--meson", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--extra", action="append", default=[])
    a = ap.parse_args()
    ninja = shutil.which("ninja") or shutil.which("ninja-build")
    if ninja is None:
        print("ninja not found: skipped")
        return 77
    with tempfile.TemporaryDirectory(prefix="t2b-subproject-") as tmp:
        consumer = os.path.join(tmp, "consumer")
        os.makedirs(os.path.join(consumer, "subprojects"))
        with open(os.path.join(consumer, "meson.build"), "w") as f:
            f.write(CONSUMER_MESON)
        with open(os.path.join(consumer, "main.cpp"), "w") as f:
            f.write(CONSUMER_MAIN)
        os.symlink(os.path.abspath(a.source), os.path.join(consumer, "subprojects", "tile2buffer"))
        build = os.path.join(tmp, "build")
        setup = subprocess.run([a.meson, "setup", build, consumer] + a.extra, capture_output=True, text=True)
        if setup.returncode != 0:
            print(setup.stdout + setup.stderr)
            print("FAIL: the consumer with tile2buffer as a subproject does not configure")
            return 1
        dry = subprocess.run([ninja, "-C", build, "-n"], capture_output=True, text=True)
        if dry.returncode != 0:
            print(dry.stdout + dry.stderr)
            print("FAIL: ninja -n failed")
            return 1
        compiles = re.findall(r"Compiling \S+ object (\S+)", dry.stdout)
        foreign = [c for c in compiles if c != "consumer.p/main.cpp.o"]
        print(f"{len(compiles)} compile step(s): {', '.join(compiles[:8])}{' ...' if len(compiles) > 8 else ''}")
        if "consumer.p/main.cpp.o" not in compiles:
            print("FAIL: the consumer's own main.cpp is not among the compile steps (the check reads ninja -n wrongly)")
            return 1
        if foreign:
            print(f"FAIL: the subproject adds {len(foreign)} compile step(s) the consumer does not link, e.g. {foreign[0]}")
            return 1
    print("ok: the subproject builds nothing but what the consumer links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
