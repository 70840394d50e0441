#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# THE test command (README and .ci/run both run exactly this): builds everything twice and runs
# `meson test` in each build, then ends with one line `N passed, N failed, N skipped` summed over
# both. Benchmarks are built (g++ only) but never run here.
#   build-ci-gcc    g++-12, the pipeline library installed (infra/install-consumers checks its
#                   CMake target and pkg-config file);
#   build-ci-clang  clang++-14 with AddressSanitizer and UndefinedBehaviorSanitizer
#                   (-fno-sanitize-recover=all: any report fails its test); every test runs in
#                   it, the campaigns at a quarter of their kernels (tests/support/campaign_scale.hpp),
#                   and its t2b-opt is compared byte for byte with the g++ build's.
# Why the sanitized build is the clang build rather than a third one: a third full build does not
# fit CI's 30-minute budget on 2 cores, and the clang build's other duties (warnings, constant
# evaluation, determinism across compilers, the libFuzzer targets) hold under the sanitizers.
# Why -O1 without debug info: CI only needs the verdicts; it halves g++'s compile time, and -O1
# is what the sanitizers recommend (-gline-tables-only keeps their reports' source lines).
# Extra arguments go to `meson test` (e.g. `--suite compile_fail`).
#
# `bash tools/test.sh --quick`: the inner loop. One build (build-quick, g++-12, no sanitizer, no
# benchmarks), incremental after the first run, and every test but the suites `slow` (campaigns,
# fuzzers, installed-package consumers, the dialect and determinism checks: the tests given
# long_test_priority) and `compile_fail` (a compiler run each). Same last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/install-deps.sh

if [[ "${1:-}" == "--quick" ]]; then
  shift
  dir=build-quick
  if [[ -f "$dir/meson-private/coredata.dat" ]]; then
    meson setup --reconfigure "$dir" >/dev/null
  else
    CXX=g++-12 meson setup "$dir" -Dtests=true -Dexamples=true -Dbenchmarks=false -Doptimization=1 -Ddebug=false >/dev/null
  fi
  rm -f "$dir/meson-logs/testlog.json"
  if ! meson compile -C "$dir"; then
    echo "=== $dir: build FAILED"
    exec python3 tools/test_summary.py --failed-builds 1
  fi
  meson test -C "$dir" --no-rebuild --print-errorlogs --no-suite slow --no-suite compile_fail "$@" || true
  exec python3 tools/test_summary.py --failed-builds 0 "$dir"
fi

failed_builds=0
dirs=()
common=(-Dtests=true -Dexamples=true -Doptimization=1 -Ddebug=false)
gcc_args=(-Dbenchmarks=true -Dpipeline_library=true)
# Why pipeline_library=false here: a sanitized static library cannot be linked by the
# unsanitized CMake and pkg-config consumers that infra/install-consumers builds.
clang_args=(-Dbenchmarks=false -Dpipeline_library=false -Db_sanitize=address,undefined -Db_lundef=false
            "-Dcpp_args=['-gline-tables-only','-fno-sanitize-recover=all']" "-Dcpp_link_args=['-fno-sanitize-recover=all']")
for pair in "build-ci-gcc g++-12" "build-ci-clang clang++-14"; do
  read -r dir cxx <<<"$pair"
  if [[ "$dir" == build-ci-gcc ]]; then args=("${gcc_args[@]}"); else args=("${clang_args[@]}"); fi
  echo "=== $dir ($cxx)"
  # Why always reconfigure: the header, golden and compile-fail lists are globbed at configure time.
  if [[ -f "$dir/meson-private/coredata.dat" ]]; then
    setup=(meson setup --reconfigure "$dir")
  else
    setup=(env CXX="$cxx" meson setup "$dir")
  fi
  rm -f "$dir/meson-logs/testlog.json"
  # The clang build compares its t2b-opt with the g++ build's (determinism across compilers).
  # It also checks its fuzzer's PTO-AS with the g++ build's checker dialect (tests/pto-dialect).
  reference=""
  checker=""
  if [[ "$dir" == build-ci-clang && " ${dirs[*]-} " == *" build-ci-gcc "* ]]; then
    reference="$PWD/build-ci-gcc/tools/t2b-opt"
    if [[ -x build-ci-gcc/tests/pto-dialect/pto-check-opt ]]; then checker="$PWD/build-ci-gcc/tests/pto-dialect/pto-check-opt"; fi
  fi
  if ! "${setup[@]}" "${common[@]}" "${args[@]}" -Dreference_t2b_opt="$reference" -Dpto_check_opt="$checker"; then
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
  # Why a timeout multiplier for the sanitized build: every instrumented process runs 3-5x slower.
  multiplier=1
  if [[ "$dir" == build-ci-clang ]]; then multiplier=4; fi
  meson test -C "$dir" --no-rebuild --print-errorlogs --timeout-multiplier "$multiplier" "$@" || true
done

# Why only tested dirs: a failed build is counted once, by --failed-builds, not again as a missing log.
exec python3 tools/test_summary.py --failed-builds "$failed_builds" "${dirs[@]}"
