#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: installs what is missing, builds t2b-opt (only the targets it runs) in
# build-demo, and runs the main job on an example kernel (default: the spec's default-selection
# example): its Tile IR, the Buffer IR it lowers to, and the reference simulator's verdict. Where
# LLVM/MLIR 22 is installed, it also builds pto-check-opt (the checker dialect, tests/pto-dialect;
# docs/pto-as.md) and checks the kernel's PTO-AS with it.
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
echo
# Meson decides whether the checker can be built (tests/pto-dialect/meson.build); its target exists
# then, and is built only when named. Why asked only now: the compile above has reconfigured the
# build if it had to, so Meson's introspection file is current.
checker="$dir/tests/pto-dialect/pto-check-opt"
if grep -q '"name": "pto-check-opt"' "$dir/meson-info/intro-targets.json"; then
  echo "demo: building pto-check-opt in $dir ..." >&2
  meson compile -C "$dir" tests/pto-dialect/pto-check-opt >"$log" 2>&1 || { cat "$log"; exit 1; }
  pto="$(mktemp)"
  trap 'rm -f "$log" "$pto"' EXIT
  "$opt" --emit=pto --planner="$planner" "$kernel" >"$pto"
  # The emitted module names the level it needs in its first line (docs/pto-as.md, "Level").
  level=$(sed -n '1s|^// tile2buffer: check with --pto-level=\(level[0-9]\).*|\1|p' "$pto")
  level=${level:-level2}
  echo "==== PTO-AS: $opt --emit=pto --planner=$planner $kernel | $checker --pto-level=$level -"
  "$checker" --pto-level="$level" "$pto" >/dev/null
  echo "the checker dialect parses and verifies the PTO-AS of $(grep -c '^  func.func ' "$pto") kernel(s) at --pto-level=$level"
else
  echo "==== PTO-AS: pto-check-opt skipped: not configured in $dir (it needs LLVM/MLIR 22: mlir-22-tools, libmlir-22-dev, llvm-22-dev; bash tools/install-deps.sh)"
fi
