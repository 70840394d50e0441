#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_campaign.py T2B_CAMPAIGN clean|broken|unroundtripped|unselected ARGS...: runs t2b-campaign ARGS --out
<temp dir> and checks its one summary line. clean: exit 0, lowered > 0, no mismatches or
failures. broken (ARGS include --break-addresses): exit 1, mismatches > 0 and at least one
reproducer. unroundtripped (ARGS include --break-pto, an emitter writing every address as 0): exit 1,
failures > 0, each with a reproducer saying the PTO-AS does not read back. unselected (ARGS include --break-selection and only the line shape, whose kernels
must all be selected): exit 1, nothing lowered, every lowering a failure with a reproducer that
says why."""
import pathlib
import re
import subprocess
import sys
import tempfile
import time

SUMMARY = re.compile(r"kernels (\d+), lowerings (\d+), lowered (\d+), stayed Tile (\d+), mismatches (\d+), failures (\d+)")


def main():
    tool, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as out:
        start = time.monotonic()
        proc = subprocess.run([tool, *args, "--out", out], capture_output=True, text=True)
        print(proc.stdout + proc.stderr, end="")
        print(f"t2b-campaign took {time.monotonic() - start:.1f} s")
        lines = proc.stdout.splitlines()
        # Why the last line must match exactly: the summary is the tool's whole interface.
        match = SUMMARY.fullmatch(lines[-1]) if lines else None
        if match is None:
            return f"no summary line (exit {proc.returncode})"
        kernels, lowerings, lowered, stayed, mismatches, failures = map(int, match.groups())
        reproducers = list(pathlib.Path(out).glob("seed-*.t2b"))
        # Why <=: a lowering that returned errors is neither lowered nor stayed Tile (it is a failure).
        if lowered + stayed > lowerings or kernels == 0:
            return "expected lowered + stayed Tile <= lowerings"
        if mode == "unselected":
            said = [p for p in reproducers if "a straight-line kernel was not selected" in p.read_text()]
            if proc.returncode != 1 or lowered != 0 or failures != lowerings or len(said) != lowerings:
                return (f"expected every lowering reported as kept Tile: exit {proc.returncode}, {failures} failures of "
                        f"{lowerings}, {len(said)} reproducers saying so")
            return 0
        if lowered == 0:
            return "expected lowered > 0"
        if mode == "unroundtripped":
            said = [p for p in reproducers if "the PTO-AS does not read back as its Buffer IR" in p.read_text()]
            if proc.returncode != 1 or failures == 0 or len(said) != failures or mismatches != 0:
                return (f"expected PTO-AS read-back failures: exit {proc.returncode}, {failures} failures, "
                        f"{len(said)} reproducers saying so, {mismatches} mismatches")
            return 0
        if mode == "clean":
            if proc.returncode != 0 or mismatches + failures != 0 or reproducers:
                return f"expected a clean run: exit {proc.returncode}, {len(reproducers)} reproducers"
        elif proc.returncode != 1 or mismatches == 0 or not reproducers:
            return f"expected reported mismatches: exit {proc.returncode}, {len(reproducers)} reproducers"
    return 0


if __name__ == "__main__":
    sys.exit(main())
