#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The full benchmark table of docs/performance.md (never run by CI; takes several minutes):
#   bash benchmarks/run_all.sh [BUILD_DIR]        default build-bench (configure it --buildtype=release)
# Writes BUILD_DIR/bench.json and BUILD_DIR/bench.md (the tables and the target check), then the
# compile-time table. Extra bench_t2b flags can be given in T2B_BENCH_ARGS, e.g.
#   T2B_BENCH_ARGS='--shapes=shared --sizes=100000,1000000' bash benchmarks/run_all.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${1:-build-bench}"
if [[ ! -d "$build" ]]; then
  meson setup "$build" --buildtype=release
fi
meson compile -C "$build" benchmarks/bench_t2b tools/t2b-opt
# shellcheck disable=SC2086
"$build/benchmarks/bench_t2b" ${T2B_BENCH_ARGS:-} --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$build/bench.json" --benchmark_out_format=json
python3 benchmarks/report.py "$build/bench.json" | tee "$build/bench.md"
python3 benchmarks/compile_time.py --repeat 3
