#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`pip install .` puts a working package into a venv (test `python-pip-install`, issue 56 item 3).

    pip_install_check.py SOURCE_ROOT CXX

In a temporary directory: copies the source tree (without its build directories), runs the
README's commands with the interpreter running this script (Debian's /usr/bin/python3)

    python3 -m venv --system-site-packages v && v/bin/pip install --no-build-isolation .

then imports `tile2buffer` from the venv's python (not the build tree's copy), parses and lowers
examples/kernels/02_unplanned_add_mul.t2b, runs `add_mul` and compares it with NumPy, and checks
that the wheel held the Python package alone (no headers, pkg-config or CMake files in the venv).

Why a copy of the tree: meson-python 0.12 writes its native file and its working directory into
the source directory, where a concurrent `pip install .` in the same tree would overwrite them. Why the extra pip flags: --no-index and
--no-cache-dir keep CI off the network and out of ~/.cache; `setup-args=-Doptimization=0` halves
the compile (the pipeline and the extension are the whole cost: 28 s of CPU instead of 59 s at
meson-python's -O2, measured here) and changes nothing the test checks. CXX is the build's compiler, so the package is built
with the compiler the build was configured with. Exit 77 (skipped) without python3-mesonpy or the
venv module."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

PROBE = r"""
import os, sys
import numpy as np
import tile2buffer as t2b
venv, example = sys.argv[1], sys.argv[2]
where = os.path.realpath(t2b.__file__)
assert where.startswith(os.path.realpath(venv) + os.sep), "imported from " + where
with open(example, encoding="utf-8") as fh:
    program = t2b.parse(fh.read(), filename=example)
lowered = t2b.lower(program, planner="pypto")
assert lowered.function("add_mul").stage == "buffer", lowered.function("add_mul")
rng = np.random.default_rng(56)
a, b = rng.random((16, 32), dtype=np.float32), rng.random((16, 32), dtype=np.float32)
out = t2b.run(lowered, "add_mul", {"A": a, "B": b})["Out"]
assert (out == (a + b) * b).all(), "add_mul disagrees with NumPy"
print("imported", where, "; add_mul lowered under pypto and equal to NumPy")
"""


def build_dirs_and_git(root):
    """copytree's ignore: the top level's Meson build directories and .git."""
    def ignore(directory, names):
        if os.path.realpath(directory) != os.path.realpath(root):
            return {n for n in names if n == "__pycache__"}
        return {n for n in names if n == ".git" or n == ".mesonpy-native-file.ini"
                or os.path.isdir(os.path.join(directory, n, "meson-private"))}
    return ignore


def step(label, cmd, **kwargs):
    start = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    print("%s: %.1f s" % (label, time.monotonic() - start))
    if r.returncode != 0:
        print("FAILED: " + " ".join(cmd) + "\n" + r.stdout + r.stderr)
    return r.returncode == 0, r


def main(argv):
    source_root, cxx = argv
    for module in ("mesonpy", "venv", "ensurepip"):
        if subprocess.run([sys.executable, "-c", "import " + module], capture_output=True).returncode != 0:
            print("SKIP: %s has no %s (Debian: python3-mesonpy, python3-venv; bash tools/install-deps.sh)"
                  % (sys.executable, module))
            return 77
    start = time.monotonic()
    env = dict(os.environ, CXX=cxx)
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory(prefix="t2b-pip-install-") as scratch:
        src = os.path.join(scratch, "src")
        shutil.copytree(source_root, src, ignore=build_dirs_and_git(source_root), symlinks=True)
        print("copy of the source tree: %.1f s" % (time.monotonic() - start))
        venv = os.path.join(scratch, "v")
        ok, _ = step("venv", [sys.executable, "-m", "venv", "--system-site-packages", venv], cwd=scratch, env=env)
        if not ok:
            return 1
        pip = [os.path.join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-index", "--no-cache-dir",
               "--disable-pip-version-check", "--config-settings=setup-args=-Doptimization=0", "."]
        ok, _ = step("pip install", pip, cwd=src, env=env)
        if not ok:
            return 1
        stray = [p for p in ("include/tile2buffer", "include/site", "lib/pkgconfig", "lib/cmake", "bin/t2b-opt")
                 if os.path.exists(os.path.join(venv, p))]
        site = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"],
                              capture_output=True, text=True, env=env, check=True).stdout.strip()
        stray += [n for n in os.listdir(site) if n.startswith(".tile2buffer")]
        if stray:
            print("the wheel installed more than the Python package: " + ", ".join(stray))
            return 1
        example = os.path.join(src, "examples", "kernels", "02_unplanned_add_mul.t2b")
        ok, r = step("import, lower and run", [os.path.join(venv, "bin", "python"), "-c", PROBE, venv, example],
                     cwd=scratch, env=env)
        print(r.stdout + r.stderr)
        if not ok:
            return 1
        cleanup = time.monotonic()
    print("removing the scratch directory: %.1f s" % (time.monotonic() - cleanup))
    print("python-pip-install: pip installed the package into a venv, which lowered and ran a kernel (%.1f s in all)"
          % (time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
