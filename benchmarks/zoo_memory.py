#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""zoo_memory.py T2B_OPT ZOO_DIR: each planner's on-chip peak against the liveness lower bound,
per zoo kernel, device function and memory space, as the Markdown table of docs/performance.md.

Reads what `t2b-opt --rollout=extended --planner=all --memory-map=FILE KERNEL` draws: each plot
carries `data-live-bound` (the largest sum of sizes of allocations live at one op position, which
no placement can go below) and, for the addressed planners, `data-peak` (the highest byte any
allocation reaches). PTOAS assigns addresses itself, after us, so its column is the bound only.
tests/emit/memory_map_test.py checks both figures against the rectangles of the same picture.
"""
import glob
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    t2b_opt, zoo = sys.argv[1], sys.argv[2]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "map.svg")
        for kernel in sorted(glob.glob(os.path.join(zoo, "*.t2b"))):
            subprocess.run([t2b_opt, "--rollout=extended", "--planner=all", f"--memory-map={svg}", kernel],
                           check=True, capture_output=True)
            cells = {}
            for g in ET.parse(svg).getroot().iter(SVG + "g"):
                if g.get("class") != "cell":
                    continue
                key = (os.path.basename(kernel)[:-4], g.get("data-kernel"), g.get("data-space"))
                cells.setdefault(key, {"bound": int(g.get("data-live-bound"))})[g.get("data-planner")] = g.get("data-peak")
            rows += sorted(cells.items())
    print("| kernel | function | space | live bound | pypto peak | dsa_rp peak | pypto / bound | dsa_rp / bound |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for (kernel, function, space), c in rows:
        bound = c["bound"]
        peaks = [int(c[p]) for p in ("pypto", "dsa_rp")]
        ratios = [f"{p / bound:.2f}" if bound else "-" for p in peaks]
        print(f"| {kernel} | @{function} | {space} | {bound:,} | {peaks[0]:,} | {peaks[1]:,} | {ratios[0]} | {ratios[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
