#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages that building and testing tile2buffer needs.
#   bash tools/install-deps.sh          install only when a package is missing (cheap no-op otherwise)
#   bash tools/install-deps.sh --force  always `apt-get update && apt-get install` (what .ci/run does)
# Runs apt-get as root, or through sudo when not root and sudo exists; never prompts.
set -euo pipefail

# mlir-22-tools, libmlir-22-dev, llvm-22-dev: the checker PTO dialect (tests/pto-dialect) is built
# against them and reads every emitted kernel; python3-msgpack: the binary
# format is read from Python in a test; python3-numpy: `t2b-opt --run` is checked against NumPy;
# cmake, pkg-config: the installed package's consumers (infra/install-consumers) are built with them
# (these tests skip without them); pybind11-dev, python3-dev, python3-pytest: the Python package
# (python/) and its tests; python3-mesonpy, python3-venv: `pip install .` into a venv
# (pyproject.toml's build backend; test python-pip-install, which skips without them);
# clang-format-14: the tree's format (.clang-format, tools/format.sh, test infra/format; it skips
# without it); valgrind: callgrind counts t2b-opt's instructions against docs/performance.md's
# budgets (test infra/instruction-budgets; it skips without it).
packages=(meson ninja-build g++-12 clang-14 doctest-dev libboost-dev llvm-14-tools libbenchmark-dev python3
  libclang-rt-14-dev mlir-22-tools libmlir-22-dev llvm-22-dev python3-msgpack python3-numpy cmake pkg-config
  pybind11-dev python3-dev python3-pytest python3-mesonpy python3-venv clang-format-14 valgrind)

missing() {
  local p out=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || out+=("$p")
  done
  echo "${out[@]:-}"
}

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: not a Debian system; install these yourself: ${packages[*]}" >&2
  exit 0
fi

force=0
[[ "${1:-}" == "--force" ]] && force=1
todo="$(missing)"
if [[ $force == 0 && -z "$todo" ]]; then
  exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "install-deps: not root and no sudo; install these as root: ${todo:-${packages[*]}}" >&2
    exit 1
  fi
fi

echo "install-deps: apt-get install ${packages[*]}" >&2
if ! { "${as_root[@]}" apt-get update -q && "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "${packages[@]}"; } >&2; then
  todo="$(missing)"
  if [[ -n "$todo" ]]; then
    echo "install-deps: apt-get failed and these are still missing: $todo" >&2
    exit 1
  fi
  # Why: a transient mirror failure should not fail a run whose packages are all present.
  echo "install-deps: apt-get failed, but every package is already installed; continuing" >&2
fi
