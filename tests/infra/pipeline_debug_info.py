#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The installed pipeline library carries no debug info unless asked (test `infra/pipeline-debug-info`).

    pipeline_debug_info.py --meson MESON --source ROOT [--value true|debug]

Configures ROOT in a temporary directory with the default buildtype (debugoptimized, which turns
debug info on for everything else) and `-Dpipeline_library=VALUE` (default `true`), nothing else
built, and reads `meson introspect --targets`: the library must be installed and compiled without
`-g`. With `--value debug` (test `infra/pipeline-debug-info-detects-debug-info`, run through
tools/not.py) the library is compiled with `-g`, so the same check must fail."""
import argparse
import json
import subprocess
import sys
import tempfile


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--meson", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--value", default="true", choices=["true", "debug"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="t2b-pipeline-debug-") as build:
        setup = subprocess.run([a.meson, "setup", build, a.source, f"-Dpipeline_library={a.value}", "-Dtests=false",
                                "-Dexamples=false", "-Dbenchmarks=false", "-Dtools=false"], capture_output=True, text=True)
        if setup.returncode != 0:
            print(setup.stdout + setup.stderr)
            print("FAIL: meson setup failed")
            return 1
        targets = json.loads(subprocess.run([a.meson, "introspect", build, "--targets"], capture_output=True,
                                            text=True, check=True).stdout)
    library = [t for t in targets if t["name"] == "tile2buffer-pipeline"]
    if len(library) != 1:
        print(f"FAIL: {len(library)} targets named tile2buffer-pipeline")
        return 1
    lib = library[0]
    flags = [p for source in lib["target_sources"] for p in source.get("parameters", [])]
    if not flags:
        print("FAIL: no compile flags for the library (the check reads the introspection data wrongly)")
        return 1
    if not lib["installed"]:
        print(f"FAIL: -Dpipeline_library={a.value} does not install the library")
        return 1
    debug = [f for f in flags if f == "-g" or f.startswith("-g") and f[2:3].isdigit() or f.startswith("-ggdb")]
    if debug:
        print(f"FAIL: -Dpipeline_library={a.value} compiles the installed library with {' '.join(debug)}")
        return 1
    print(f"ok: -Dpipeline_library={a.value} installs the library without debug info ({len(flags)} compile flags read)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
