#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compile-fail harness: `expect_compile_error.py COMPILER FILE [EXTRA_FLAG...]`.

COMPILER may hold several words (e.g. "ccache g++-12"). FILE is compiled with
`-std=c++20 -fsyntax-only -I <repo>/include` plus the extra flags (e.g. `-isystem DIR` for
Boost when it is not on the default search path; `$BOOST_INCLUDEDIR`, when set, is added so).

* A file named `*_ok.cpp` must compile cleanly (also under -Wall -Wextra -Wpedantic -Werror),
  and must not carry an EXPECT-ERROR header: it is the twin that proves the failing file fails
  for its stated reason and not for an unrelated typo.
* Any other file must FAIL to compile, and its diagnostics must contain the substring of every
  `// EXPECT-ERROR: <substring>` line it carries (at least one is required).
* `// EXPECT-FIRST-ERROR: <substring>`: the substring appears in the first diagnostic's header,
  i.e. in the output up to and including the first line that says `error`. This is where a
  user looks, so the mistake must be named there, not in a note fifty lines later.
* `// EXPECT-ERROR-COUNT: N`: exactly N lines say `error:` (one mistake, one error, no cascade).
"""
import os
import re
import shlex
import subprocess
import sys

EXPECT = re.compile(r"^\s*//\s*EXPECT-ERROR:\s*(.*?)\s*$")
EXPECT_FIRST = re.compile(r"^\s*//\s*EXPECT-FIRST-ERROR:\s*(.*?)\s*$")
EXPECT_COUNT = re.compile(r"^\s*//\s*EXPECT-ERROR-COUNT:\s*(\d+)\s*$")
REPO_INCLUDE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "include")
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    compiler, path, extra = shlex.split(argv[1]), argv[2], argv[3:]
    with open(path, encoding="utf-8") as fh:
        lines = fh.readlines()
    expected = [m.group(1) for m in map(EXPECT.match, lines) if m]
    expected_first = [m.group(1) for m in map(EXPECT_FIRST.match, lines) if m]
    expected_count = [int(m.group(1)) for m in map(EXPECT_COUNT.match, lines) if m]
    must_compile = os.path.basename(path).endswith("_ok.cpp")
    if must_compile and expected:
        print(f"{path}: an _ok twin must not carry EXPECT-ERROR lines", file=sys.stderr)
        return 2
    if not must_compile and not expected:
        print(f"{path}: no `// EXPECT-ERROR: <substring>` line (name it *_ok.cpp if it must compile)",
              file=sys.stderr)
        return 2
    if any(not e for e in expected):
        print(f"{path}: empty EXPECT-ERROR substring", file=sys.stderr)
        return 2

    boost = ["-isystem", os.environ["BOOST_INCLUDEDIR"]] if os.environ.get("BOOST_INCLUDEDIR") else []
    cmd = compiler + ["-std=c++20", "-fsyntax-only", "-I", REPO_INCLUDE, *boost, *WARNINGS, *extra, path]
    print("$ " + shlex.join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    diagnostics = proc.stdout + proc.stderr

    if must_compile:
        if proc.returncode != 0:
            print(diagnostics)
            print(f"FAIL: {path} must compile but the compiler exited with {proc.returncode}")
            return 1
        print(f"PASS: {path} compiles")
        return 0

    if proc.returncode == 0:
        print(diagnostics)
        print(f"FAIL: {path} compiled, but it must be rejected")
        return 1
    if proc.returncode < 0:
        print(diagnostics)
        print(f"FAIL: the compiler died with signal {-proc.returncode} (a crash is not a rejection)")
        return 1
    missing = [e for e in expected if e not in diagnostics]
    if missing:
        print(diagnostics)
        for e in missing:
            print(f"FAIL: {path} was rejected, but the diagnostics lack the expected text: {e!r}")
        return 1
    out_lines = diagnostics.splitlines()
    first_error = next((i for i, line in enumerate(out_lines) if "error" in line), len(out_lines) - 1)
    header = "\n".join(out_lines[: first_error + 1])
    bad = False
    for e in expected_first:
        if e not in header:
            print(f"FAIL: {path}: the first diagnostic does not name {e!r}; it reads:\n{header}")
            bad = True
    errors = sum(1 for line in out_lines if "error:" in line)
    for n in expected_count:
        if errors != n:
            print(diagnostics)
            print(f"FAIL: {path}: expected {n} error line(s), the compiler printed {errors}")
            bad = True
    if bad:
        return 1
    for e in expected + expected_first:
        print(f"PASS: {path} rejected with {e!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
