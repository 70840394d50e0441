#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`meson install` puts a working package where Debian's interpreter looks (test `python-install`).

    install_check.py MESON BUILD_ROOT INSTALL_DIR

Stages `meson install --no-rebuild --tags python-runtime` in a temporary DESTDIR, then imports the
staged package with the interpreter running this script (not the build tree's copy), lowers and
runs a kernel with it, and checks that INSTALL_DIR's parent (`<prefix>/lib/python3.X/dist-packages`)
is on that interpreter's default path when the prefix is /usr/local or /usr, so that an installed
package imports without PYTHONPATH."""
import os
import subprocess
import sys
import tempfile

PROBE = r"""
import os, sys
import numpy as np
import tile2buffer as t2b
assert os.path.realpath(t2b.__file__).startswith(os.path.realpath(sys.argv[1])), t2b.__file__
b = t2b.Builder()
k = b.kernel("add")
A, B = k.param("A", t2b.Tensor((16, 32), "FP32")), k.param("B", t2b.Tensor((16, 32), "FP32"))
Out = k.param("Out", t2b.Tensor((16, 32), "FP32"), direction="out")
k.ret(k.store(k.add(k.load(A, (0, 0), (16, 32)), k.load(B, (0, 0), (16, 32))), (0, 0), Out))
lowered = t2b.lower(b.build(), planner="ptoas")
a = np.arange(512, dtype=np.float32).reshape(16, 32)
assert (t2b.run(lowered, "add", {"A": a, "B": a})["Out"] == a + a).all()
print("imported", t2b.__file__)
"""


def main(argv):
    meson, build_root, install_dir = argv
    with tempfile.TemporaryDirectory(prefix="t2b-py-install-") as destdir:
        r = subprocess.run([meson, "install", "-C", build_root, "--no-rebuild", "--tags", "python-runtime", "--destdir", destdir],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("meson install failed:\n" + r.stdout + r.stderr)
            return 1
        staged = os.path.join(destdir, os.path.relpath(install_dir, os.sep))
        for name in ("__init__.py", "builder.py", "_core.pyi", "py.typed"):
            if not os.path.isfile(os.path.join(staged, name)):
                print("not installed: " + os.path.join(install_dir, name))
                return 1
        if not any(n.startswith("_core.") and n.endswith(".so") for n in os.listdir(staged)):
            print("the extension module was not installed in " + install_dir)
            return 1
        env = dict(os.environ, PYTHONPATH=os.path.dirname(staged))
        r = subprocess.run([sys.executable, "-c", PROBE, staged], capture_output=True, text=True, env=env, cwd=destdir)
        print(r.stdout + r.stderr)
        if r.returncode != 0:
            print("the staged package does not import and run")
            return 1
    site_dir = os.path.dirname(install_dir)
    if site_dir.startswith(("/usr/local/", "/usr/lib/")):
        paths = subprocess.run([sys.executable, "-S", "-c", "import site, sys; site.main(); print('\\n'.join(sys.path))"],
                               capture_output=True, text=True, check=True).stdout.split()
        if site_dir not in paths:
            print("%s is not on %s's default path: an installed package would not import" % (site_dir, sys.executable))
            return 1
    print("python-install: staged, imported, lowered and ran; %s is on the default path" % site_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
