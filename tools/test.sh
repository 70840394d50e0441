#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# THE test command (README and .ci/run both run exactly this): builds everything with g++-12 in
# build-ci-gcc and with clang++-14 in build-ci-clang, runs `meson test` in each, and ends with
# one line `N passed, N failed, N skipped` summed over both. Benchmarks are built but never run here.
# The clang build's suite also compares its t2b-opt's output with the g++ build's, byte for byte.
# Extra arguments go to `meson test` (e.g. `--suite compile_fail`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/install-deps.sh

failed_builds=0
dirs=()
# The clang build also installs the pipeline library, so infra/install-consumers checks its CMake
# target and pkg-config file; the g++ build checks the header-only package alone.
for pair in "build-ci-gcc g++-12 false" "build-ci-clang clang++-14 true"; do
  read -r dir cxx pipeline_library <<<"$pair"
  echo "=== $dir ($cxx)"
  # Why always reconfigure: the header, golden and compile-fail lists are globbed at configure time.
  if [[ -f "$dir/meson-private/coredata.dat" ]]; then
    setup=(meson setup --reconfigure "$dir")
  else
    setup=(env CXX="$cxx" meson setup "$dir")
  fi
  rm -f "$dir/meson-logs/testlog.json"
  # The clang build compares its t2b-opt with the g++ build's (determinism across compilers).
  reference=""
  if [[ "$dir" == build-ci-clang && " ${dirs[*]-} " == *" build-ci-gcc "* ]]; then reference="$PWD/build-ci-gcc/tools/t2b-opt"; fi
  if ! "${setup[@]}" -Dtests=true -Dexamples=true -Dbenchmarks=true -Dpipeline_library="$pipeline_library" \
      -Dreference_t2b_opt="$reference"; then
    echo "=== $dir: meson setup FAILED"
    failed_builds=$((failed_builds + 1))
    continue
  fi
  if ! meson compile -C "$dir"; then
    echo "=== $dir: build FAILED"
    failed_builds=$((failed_builds + 1))
    continue
  fi
  # `meson test` exits non-zero on a failing test; the summary below decides the exit status.
  dirs+=("$dir")
  meson test -C "$dir" --no-rebuild --print-errorlogs "$@" || true
done

# Why only tested dirs: a failed build is counted once, by --failed-builds, not again as a missing log.
exec python3 tools/test_summary.py --failed-builds "$failed_builds" "${dirs[@]}"
