#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: installs what is missing, builds t2b-opt (only that target) in
# build-demo, and runs the main job on an example kernel (default: the spec's representation
# example). Today the job is parse, verify and print; lowering and simulation join it later.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/install-deps.sh

kernel="${1:-examples/kernels/01_representation.t2b}"
dir=build-demo
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if [[ ! -f "$dir/meson-private/coredata.dat" ]]; then
  CXX=g++-12 meson setup "$dir" -Dtests=false -Dexamples=false -Dbenchmarks=false >"$log" 2>&1 || { cat "$log"; exit 1; }
fi
echo "demo: building t2b-opt in $dir ..." >&2
meson compile -C "$dir" tools/t2b-opt >"$log" 2>&1 || { cat "$log"; exit 1; }
echo "demo: $dir/tools/t2b-opt $kernel" >&2
"$dir/tools/t2b-opt" "$kernel"
