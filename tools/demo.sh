#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: installs what is missing, builds t2b-opt (only that target) in
# build-demo, and runs the main job on an example kernel (default: the spec's default-selection
# example): its Tile IR, the Buffer IR it lowers to, and the reference simulator's verdict.
#   bash tools/demo.sh [KERNEL.t2b] [pypto|dsa_rp|ptoas]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/install-deps.sh

kernel="${1:-examples/kernels/02_unplanned_add_mul.t2b}"
planner="${2:-pypto}"
dir=build-demo
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if [[ ! -f "$dir/meson-private/coredata.dat" ]]; then
  CXX=g++-12 meson setup "$dir" -Dtests=false -Dexamples=false -Dbenchmarks=false >"$log" 2>&1 || { cat "$log"; exit 1; }
fi
echo "demo: building t2b-opt in $dir ..." >&2
meson compile -C "$dir" tools/t2b-opt >"$log" 2>&1 || { cat "$log"; exit 1; }
opt="$dir/tools/t2b-opt"
echo "==== Tile IR: $opt $kernel"
"$opt" "$kernel"
echo
echo "==== Buffer IR: $opt --planner=$planner $kernel"
"$opt" --explain-selection --planner="$planner" "$kernel" | sed 's/^/# /'
"$opt" --planner="$planner" "$kernel"
echo
echo "==== Simulator: $opt --check-numerics --planner=$planner $kernel"
"$opt" --check-numerics --planner="$planner" "$kernel"
