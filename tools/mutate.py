#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mutation testing of the test suite: does some test fail when the code is subtly wrong?

Each mutation below replaces one exact text in one file with a plausible bug. For each, in a
scratch copy of the tree (configured once, reused across mutations and runs):
  1. apply the mutation;
  2. build what its fast-path tests need and run them: a failure means KILLED (the whole suite is
     a superset, so it would fail too);
  3. otherwise build everything and run the whole suite (`meson test`): a failure means KILLED,
     a clean pass means SURVIVED (a hole in the test suite);
  4. restore the file.
Before any mutation the unmutated tree must pass every fast-path test, else the run is void.

  nice -n 5 tools/mutate.py                 # every mutation; exit 1 if any survived
  nice -n 5 tools/mutate.py --only NAME     # just these (repeatable)
  tools/mutate.py --list                    # the mutations, their reasons and fast-path tests
  tools/mutate.py --check-list BUILD_DIR    # each `old` occurs once, each test exists (no build)

Only the standard library is used, so any python3 runs it.
"""
import argparse
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclasses.dataclass(frozen=True)
class Mutation:
    name: str
    path: str  # relative to the repository root
    old: str  # must occur exactly once in `path`
    new: str
    reason: str
    tests: tuple  # Meson test names expected to kill it (the fast path)


M = Mutation
MUTATIONS = [
    M("ew-sub-swapped", "include/tile2buffer/recipe/elementwise.hpp",
      "      args[count++] = handle_of(op.lhs());\n      args[count++] = handle_of(op.rhs());\n",
      "      args[count++] = handle_of(C == opcode::tile_sub ? op.rhs() : op.lhs());\n"
      "      args[count++] = handle_of(C == opcode::tile_sub ? op.lhs() : op.rhs());\n",
      "tile.sub lowers to buffer.sub with lhs and rhs swapped (computes rhs - lhs)",
      ("lower/elementwise/sub_fp32.t2b",)),
    M("ew-div-swapped", "include/tile2buffer/recipe/elementwise.hpp",
      "      args[count++] = handle_of(op.lhs());\n      args[count++] = handle_of(op.rhs());\n",
      "      args[count++] = handle_of(C == opcode::tile_div ? op.rhs() : op.lhs());\n"
      "      args[count++] = handle_of(C == opcode::tile_div ? op.lhs() : op.rhs());\n",
      "tile.div lowers to buffer.div with lhs and rhs swapped (computes rhs / lhs)",
      ("lower/elementwise/div_fp32.t2b",)),
    M("planner-pypto-lifetime-short", "include/tile2buffer/plan/planners.hpp",
      "if (live[j].end >= start)",
      "if (live[j].end >= start + (planner == planner_kind::pypto ? 1u : 0u))",
      "pypto frees a range one op early: a buffer last read by an op can hold that op's result",
      ("lower/planners.t2b",)),
    M("sim-fp16-truncates", "include/tile2buffer/sim/numeric.hpp",
      "    const std::uint32_t rem = mant & 0x1FFFu;\n"
      "    // Why: a carry out of the mantissa correctly bumps the exponent (and reaches inf at the top).\n"
      "    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0)) ++h;\n",
      "",
      "FP32 -> FP16 truncates normal values instead of rounding to nearest even",
      ("sim_numeric",)),
    M("sim-fp16-ties-away", "include/tile2buffer/sim/numeric.hpp",
      "    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0)) ++h;\n",
      "    if (rem >= 0x1000u) ++h;\n",
      "FP32 -> FP16 rounds normal-range ties away from zero instead of to even",
      ("sim_numeric",)),
    M("spec-sub-fp16", "include/tile2buffer/recipe/spec_tables.hpp",
      "    {opcode::tile_sub, {dtype::fp32}, 1},\n",
      "    {opcode::tile_sub, {dtype::fp16, dtype::fp32}, 2},\n",
      "the spec's elementwise table lets tile.sub lower on FP16 (the spec allows FP32 only)",
      ("lower/elementwise/sub_fp16-invalid.t2b",)),
    M("spec-exp-fp16", "include/tile2buffer/recipe/spec_tables.hpp",
      "    {opcode::tile_exp, {dtype::fp32}, 1},\n",
      "    {opcode::tile_exp, {dtype::fp16, dtype::fp32}, 2},\n",
      "the spec's elementwise table lets tile.exp lower on FP16 (the spec allows FP32 only)",
      ("lower/elementwise/exp_fp16-invalid.t2b",)),
    M("verify-buffer-overlap-only-strict", "include/tile2buffer/checks/buffer.hpp",
      "    if (sum_exceeds(sb, b.span, sa) && sum_exceeds(sa, a.span, sb)) {\n",
      "    if (!exact_allowed && sum_exceeds(sb, b.span, sa) && sum_exceeds(sa, a.span, sb)) {\n",
      "verify_buffer checks partial source/destination overlap only for ops that never run in place",
      ("lower/overlapping_placement-invalid.t2b",)),
    M("print-mem-offset-in-elements", "include/tile2buffer/text/print.hpp",
      "    if (s.offset != 0) out_ << '[' << s.offset << ']';\n",
      "    if (s.offset != 0) out_ << '[' << s.offset / element_bytes(f_.type_of(v).dt) << ']';\n",
      "the printer writes a Tile's storage offset in elements instead of bytes",
      ("text-examples-reprint",)),
    M("pto-alloc-drops-addr", "include/tile2buffer/emit/pto_emitter.hpp",
      "    if (a.address().kind != operand_kind::none) groups[0].push_back(scalar(a.address(), dtype::int64));\n",
      "    if (a.address().kind == operand_kind::tuple) groups[0].push_back(scalar(a.address(), dtype::int64));\n",
      "the PTO emitter never prints a planned allocation's address",
      ("emit/elementwise_per_planner.t2b",)),
    # Wrong emitter mappings (issue 52 item 10): valid PTO that says something else, which the
    # checker dialect accepts; the PTO-AS round trip (emit/pto_roundtrip.hpp) reads it back wrong.
    M("pto-cast-ceil-trunc-swapped", "include/tile2buffer/emit/pto_emitter.hpp",
      "    const std::array<pto_set, 2> set{pto_set{\"rmode\", text(isa_name(cast_rounding(from, to, mode)))},\n",
      "    const std::string_view rounding = isa_name(cast_rounding(from, to, mode));\n"
      "    const std::array<pto_set, 2> set{pto_set{\"rmode\", text(rounding == \"CEIL\" ? \"TRUNC\" : rounding == \"TRUNC\" ? \"CEIL\" : rounding)},\n",
      "tile.cast mode 4 is emitted as round_mode TRUNC and mode 5 as CEIL",
      ("pto-roundtrip", "emit/verify_pto_roundtrip.t2b")),
    M("pto-alloc-valid-swapped", "include/tile2buffer/emit/pto_emitter.hpp",
      "groups[1 + d].push_back(index(valid[next++]));",
      "groups[2 - d].push_back(index(valid[next++]));",
      "pto.alloc_tile gets its valid_row operand as valid_col and the other way round",
      ("pto-roundtrip", "emit/buffer_cube_and_windows.t2b")),
    M("pto-precision-dropped", "include/tile2buffer/emit/pto_emitter.hpp",
      "if (high_precision_set(f_, o)) set.push_back(",
      "if (false && high_precision_set(f_, o)) set.push_back(",
      "a high_precision elementwise op is emitted with precisionType default",
      ("pto-roundtrip", "emit/buffer_control_flow.t2b")),
    M("sim-lrelu-positive-side", "include/tile2buffer/sim/kernels.hpp",
      "return x > 0.0f ? x : y * x; }",
      "return x > 0.0f ? y * x : x; }",
      "the simulator's shared lrelu kernel scales the positive side instead of the negative one",
      ("sim_ew_table",)),
    M("window-nested-offset-drops-parent", "include/tile2buffer/recipe/window.hpp",
      "return operand::integer(a.num + b.num);",
      "return operand::integer(b.num);",
      "a slice of a slice at static offsets forgets its parent's offset",
      ("lower/windows/nested_slices.t2b",)),
    M("valid-store-full-extent", "include/tile2buffer/recipe/transfer.hpp",
      ".valid = built(l.valid_tuple(src)),",
      ".valid = built(l.builder().pair(l.source().type_of(src).shape[0], l.source().type_of(src).shape[1])),",
      "a lowered GM store writes the tile's full physical extent instead of its valid rectangle",
      ("lower/load_partial_valid.t2b",)),
    M("cf-if-arms-swapped", "include/tile2buffer/passes/lower_regions.hpp",
      "      yield_context ctx{o, f.region_of(o, r), {}};\n",
      "      yield_context ctx{o, f.region_of(o, n.region_count - 1 - r), {}};\n",
      "a lowered if puts the else arm's body in the then region and vice versa",
      ("lower/regions/branch.t2b",)),
    M("cube-matmul-acc-init-ignored", "include/tile2buffer/recipe/cube.hpp",
      "op.rhs(), init && init->num != 0, op.loc());",
      "op.rhs(), false, op.loc());",
      "matmul_acc with a true literal init_cond accumulates into the old Acc contents",
      ("lower/cube/k_loop.t2b",)),
    M("cf-parallel-move-ready-reversed", "include/tile2buffer/analysis/parallel_move.hpp",
      "overlap(moves[m].destination, moves[p].source)) return false;",
      "overlap(moves[m].source, moves[p].destination)) return false;",
      "a parallel move (yields, loop entry copies) runs a copy whose destination another pending copy still reads",
      ("lower/regions/loops.t2b",)),
    M("plan-loop-cover-end", "include/tile2buffer/plan/lifetime.hpp",
      "l.end = std::max(l.end, loops[below_y].end);",
      "l.end = std::max(l.end, loops[below_y].start);",
      "a value defined before a loop and read inside it dies at the loop's first op, not its last",
      ("lower/regions/loop_liveness.t2b",)),
    M("plan-dsa-cooldown-short", "include/tile2buffer/plan/planners.hpp",
      "      if (start - live[j].end <= dsa_cooldown) s.cooling[kept++] = j;\n",
      "      if (start - live[j].end < dsa_cooldown) s.cooling[kept++] = j;\n",
      "dsa_rp lets a freed range rest one op less than dsa_cooldown before reusing it",
      ("lower/planner_cooldown.t2b",)),
    M("sim-bf16-ties-up", "include/tile2buffer/sim/numeric.hpp",
      "const std::uint32_t bias = 0x7FFFu + ((x >> 16) & 1u);",
      "const std::uint32_t bias = 0x8000u;",
      "FP32 -> BF16 rounds ties up in magnitude instead of to even",
      ("sim_numeric",)),
    M("sim-fp16-subnormal-ties-away", "include/tile2buffer/sim/numeric.hpp",
      "  if (rem > half || (rem == half && (h & 1u) != 0)) ++h;\n",
      "  if (rem >= half) ++h;\n",
      "FP32 -> FP16 rounds subnormal ties away from zero instead of to even",
      ("sim_numeric",)),
    M("verify-buffer-recip-in-place", "include/tile2buffer/checks/buffer.hpp",
      "const bool exact_allowed = has_trait(c, trait::may_alias_exactly);",
      "const bool exact_allowed = true;",
      "verify_buffer accepts buffer.recip writing its own source (the spec requires disjoint ranges)",
      ("lower/recip_in_place-invalid.t2b",)),
    M("cube-transpose-keeps-slayout", "include/tile2buffer/recipe/cube.hpp",
      "  t.slayout = flip(t.slayout);\n",
      "",
      "a transposed relabel flips the outer box order but keeps the inner one",
      ("lower/cube/forms.t2b",)),
    M("cube-matmul-acc-runtime-arms-swapped", "include/tile2buffer/recipe/cube.hpp",
      "op.rhs(), arm == 0, op.loc());",
      "op.rhs(), arm == 1, op.loc());",
      "matmul_acc with a runtime init_cond initializes when it is false and accumulates when it is true",
      ("lower/cube/k_loop.t2b",)),
    M("window-runtime-col-uses-row", "include/tile2buffer/recipe/window.hpp",
      "index_sum(l, outer[1], inner[1], op, \"_col\")",
      "index_sum(l, outer[1], inner[0], op, \"_col\")",
      "a nested slice's column offset adds the inner row offset",
      ("lower/windows/nested_slices.t2b",)),
    M("valid-load-full-extent", "include/tile2buffer/recipe/transfer.hpp",
      ".valid = built(l.valid_tuple(result)),",
      ".valid = built(l.builder().pair(l.source().type_of(result).shape[0], l.source().type_of(result).shape[1])),",
      "a lowered GM load reads the tile's full physical extent instead of its valid rectangle",
      ("lower/load_partial_valid.t2b",)),
    M("ew-int-literal-scaled", "include/tile2buffer/recipe/common.hpp",
      "return is_float(target) ? operand::decimal(src.num, 0) : src;",
      "return is_float(target) ? operand::decimal(src.num, 1) : src;",
      "an integer literal scalar operand becomes a float literal ten times too large",
      ("lower/int_literal_scalars.t2b",)),
    M("divisibility-sum-takes-max", "include/tile2buffer/analysis/divisibility.hpp",
      "          case scalar_fn::mod: k = both ? std::min(of(lhs), of(rhs)) : 0; break;\n",
      "          case scalar_fn::mod: k = both ? std::max(of(lhs), of(rhs)) : 0; break;\n",
      "the alignment proof gives a sum, difference, min, max or mod its better-aligned operand's trailing "
      "zero bits (p * 32 + 1 passes as 32-byte aligned)",
      ("lower/windows/alignment_terms.t2b",)),
    M("tile-storage-placed-overlap-ignored", "include/tile2buffer/analysis/storage_overlap.hpp",
      "    return storage_overlaps(a, b) || (placed && placed_ranges_overlap(facts, a, b));\n",
      "    return storage_overlaps(a, b);\n",
      "verify_tile_storage compares windows only within one allocation: loop carries or branch results in "
      "different allocations at overlapping placed addresses lower and compute wrong values",
      ("lower/regions/placed_overlap-invalid.t2b", "lower/explicit_lower_placed_overlap-invalid.t2b")),
    M("lower-output-unverified", "include/tile2buffer/passes/lower.hpp",
      "  if (r.ok()) r.errors = buffer_errors(r.value, written);\n",
      "",
      "explicit lowering returns Buffer IR that verify_buffer rejects (a runtime window read by an op whose "
      "hand-placed destination overlaps the window's source range)",
      ("lower/explicit_lower_runtime_window-invalid.t2b", "campaign-tool")),
    # Issue 52: both simulators share these, or only the campaign reached them.
    M("sim-expdif-exp-then-sub", "include/tile2buffer/sim/kernels.hpp",
      "  const element combined = ew_apply(*s.combine, d, x, w);\n"
      "  return s.then == nullptr ? combined : ew_apply(*s.then, d, combined, element{});\n",
      "  return s.then == nullptr ? ew_apply(*s.combine, d, x, w)\n"
      "                           : ew_apply(*s.combine, d, ew_apply(*s.then, d, x, element{}), w);\n",
      "the shared col_expand_expdif kernel computes exp(x) - w instead of exp(x - w) (Tile and Buffer runs agree)",
      ("sim-kernels-numpy",)),
    M("sim-cast-float-int-truncates", "include/tile2buffer/sim/numeric.hpp",
      "  else if (is_float(from)) out.i = float_to_int_by_mode(to, x.f, r, cast_saturates(from, to));\n",
      "  else if (is_float(from)) out.i = float_to_int_by_mode(to, x.f, round_mode::trunc, cast_saturates(from, to));\n",
      "float -> integer tile.cast truncates whatever its mode (issue 52 item 1, the c4e8f2a behaviour)",
      ("sim_ops", "sim-kernels-numpy")),
    M("sim-cast-round-never-overflows", "include/tile2buffer/sim/numeric.hpp",
      "    const bool to_infinity = mode == round_mode::rint || mode == round_mode::round ||",
      "    const bool to_infinity = mode == round_mode::rint ||",
      "a cast rounding to nearest, ties away (mode 2) stops at the largest finite value instead of "
      "overflowing to infinity (issue 52 item 2, the c4e8f2a behaviour)",
      ("sim_ops", "sim-kernels-numpy")),
    M("sim-buffer-col-fold-physical-rows", "include/tile2buffer/sim/models_buffer.hpp",
      "across = rows ? src->valid_cols : src->valid_rows;",
      "across = rows ? src->valid_cols : src->desc.shape[0];",
      "the Buffer simulator folds a column reduction over the source's physical rows, not its valid ones",
      ("lower/extended/partial_valid.t2b", "sim-kernels-numpy")),
    M("sim-buffer-row-expand-physical-rows", "include/tile2buffer/sim/models_buffer.hpp",
      "  if (src->valid_rows != dst->valid_rows)\n",
      "  if (src->valid_rows != dst->desc.shape[0])\n",
      "the Buffer simulator's row broadcast compares the column's valid rows with the destination's physical rows",
      ("lower/extended/partial_valid.t2b", "sim-kernels-numpy")),
    M("verify-buffer-col-sum-scratch-skipped", "include/tile2buffer/checks/buffer.hpp",
      "    if (!scratch.valid()) return;\n",
      "    if (!scratch.valid() || c == opcode::buffer_col_sum) return;\n",
      "verify_buffer skips the scratch-disjointness proof for buffer.col_sum: a tmp over the source or the "
      "destination passes and is emitted (issue 52 item 11; the cases derived from the op records kill it)",
      ("verify-overlap-from-records",)),
    M("select-skips-pto-abi", "include/tile2buffer/passes/select.hpp",
      "  for (const parameter_problem& p : kernel_abi_problems(fn)) keep(p.loc, text(p.reason));\n",
      "",
      "selection forgets the PTO kernel ABI: a kernel storing a column into a one-column GM tensor is selected, "
      "then lowering (or, without the check there, the emitter) refuses it (issue 52 item 5)",
      ("lower/pto_abi_stays_tile.t2b", "lower-extended-campaign")),
    M("extended-reduction-fp16", "include/tile2buffer/recipe/reduction.hpp",
      "    if (!extended_allows(src->dt))\n",
      "    if (!extended_allows(src->dt) && src->dt != dtype::fp16 && src->dt != dtype::bf16)\n",
      "the extended rollout's reductions lower FP16 and BF16 sources (it reduces FP32 only; the generator's "
      "FP16/BF16 reductions must stay Tile, issue 52)",
      ("lower-extended-campaign",)),
    M("fold-matmul-if-any-rhs", "include/tile2buffer/passes/fold_matmul_if.hpp",
      " || !(product.rhs() == acc.rhs())) return std::nullopt;",
      ") return std::nullopt;",
      "fold_matmul_if folds an if whose matmul and matmul_acc read different right operands (the fold "
      "keeps the matmul_acc's, so the first K step multiplies the wrong tile; quantized-path.md §2.7)",
      ("lower/extended/matmul_if_stays_tile.t2b",)),
    M("fold-matmul-if-no-negation", "include/tile2buffer/passes/fold_matmul_if.hpp",
      "      if (fold->negate) {\n",
      "      if (false && fold->negate) {\n",
      "fold_matmul_if folds an if whose then arm accumulates with init_cond = c instead of not c "
      "(initializes exactly when it should accumulate)",
      ("lower/extended/matmul_if.t2b",)),
]
del M

FAILING = {"FAIL", "UNEXPECTEDPASS", "TIMEOUT", "ERROR"}
# Why ignored in the whole suite: it checks this list against the tree, and a mutation changes
# the tree by design, so it would "kill" every mutant.
LIST_TEST = "mutate-list"
WHOLE_BUILD = "<build of the whole tree>"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def check_list(build_dir: Path) -> int:
    """Why: a refactor that moves the mutated text would silently make a mutation a no-op."""
    problems = []
    names = [m.name for m in MUTATIONS]
    for n in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"duplicate mutation name {n}")
    tests_file = build_dir / "meson-info" / "intro-tests.json"
    known = {t["name"] for t in json.loads(tests_file.read_text(encoding="utf-8"))}
    for m in MUTATIONS:
        path = REPO / m.path
        if not path.is_file():
            problems.append(f"{m.name}: no file {m.path}")
            continue
        count = path.read_text(encoding="utf-8").count(m.old)
        if count != 1:
            problems.append(f"{m.name}: the old text occurs {count} times in {m.path} (must be once)")
        if m.old == m.new:
            problems.append(f"{m.name}: old and new text are equal")
        if not m.tests:
            problems.append(f"{m.name}: no fast-path test")
        for t in m.tests:
            if t not in known:
                problems.append(f"{m.name}: no Meson test named {t!r}")
    for p in problems:
        print(p)
    print(f"{len(MUTATIONS)} mutations, {len(problems)} problems")
    return 1 if problems else 0


def tree_files():
    """Tracked and untracked-but-not-ignored files: what the developer would build."""
    out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-co", "--exclude-standard", "-z"],
                         check=True, capture_output=True).stdout.decode()
    return sorted(p for p in out.split("\0") if p and (REPO / p).is_file())


def sync_tree(src: Path) -> bool:
    """Copies the working tree into `src`, touching only files whose bytes differ, so the scratch
    build stays incremental. Returns whether the set of files changed (then Meson must reconfigure:
    the golden, header and compile-fail lists are globbed at configure time)."""
    files = tree_files()
    wanted = set(files)
    changed_set = False
    for rel in files:
        a, b = REPO / rel, src / rel
        data = a.read_bytes()
        if b.is_file() and b.read_bytes() == data:
            continue
        changed_set = changed_set or not b.exists()
        b.parent.mkdir(parents=True, exist_ok=True)
        b.write_bytes(data)
        shutil.copymode(a, b)
    for dirpath, _, names in os.walk(src):
        for n in names:
            rel = os.path.relpath(os.path.join(dirpath, n), src)
            if rel not in wanted:
                os.remove(os.path.join(dirpath, n))
                changed_set = True
    return changed_set


def run(cmd, **kw):
    """Runs `cmd`; its output goes to stderr unless captured, so stdout holds only the verdicts."""
    log("$ " + " ".join(str(c) for c in cmd))
    if "capture_output" not in kw:
        kw["stdout"] = sys.stderr
    return subprocess.run([str(c) for c in cmd], **kw)


class Scratch:
    def __init__(self, root: Path, jobs: int):
        self.src = root / "src"
        self.build = root / "build"
        self.jobs = jobs
        self.whole_baseline = None  # failing tests of the unmutated whole suite, once known
        self.fast_only = False

    def prepare(self):
        self.src.mkdir(parents=True, exist_ok=True)
        changed = sync_tree(self.src)
        if not (self.build / "meson-private" / "coredata.dat").exists():
            # Why -O0 without debug info: a mutant is compiled once to be tested, and on a shared
            # two-core machine compile time is the whole cost (about half of -O2 -g's).
            env = dict(os.environ, CXX="g++-12")
            r = run(["meson", "setup", self.build, self.src, "-Dbenchmarks=false", "-Doptimization=0", "-Ddebug=false"],
                    env=env)
        elif changed:
            r = run(["meson", "setup", "--reconfigure", self.build, self.src])
        else:
            return
        if r.returncode != 0:
            raise SystemExit("mutate.py: meson setup failed in the scratch tree")

    def intro(self, what):
        return json.loads((self.build / "meson-info" / f"intro-{what}.json").read_text(encoding="utf-8"))

    def outputs_for(self, tests):
        """Build outputs (relative to the build dir) of every target the named tests depend on."""
        by_name = {t["name"]: t for t in self.intro("tests")}
        by_id = {t["id"]: t for t in self.intro("targets")}
        outs = []
        for name in tests:
            for dep in by_name[name]["depends"]:
                for f in by_id[dep]["filename"]:
                    outs.append(os.path.relpath(f, self.build))
        return sorted(set(outs))

    def build_for(self, tests):
        """Builds only what `tests` need; returns the first compiler error line, or None."""
        # Why regenerate first: a build.ninja regeneration (a meson.build changed) refreshes the
        # introspection files the target list is read from.
        run(["ninja", "-C", self.build, "build.ninja"], capture_output=True)
        outs = self.outputs_for(tests)
        if not outs:
            return None
        r = run(["ninja", "-C", self.build, "-j", self.jobs] + outs, capture_output=True, text=True)
        if r.returncode == 0:
            return None
        err = [l for l in r.stdout.splitlines() if "error:" in l]
        return (err[0] if err else "build failed").strip()

    def test(self, tests, logbase, rebuild=False):
        """Runs `tests` (all when empty); returns (meson exit code, names of failing tests)."""
        logfile = self.build / "meson-logs" / f"{logbase}.json"
        if logfile.exists():
            logfile.unlink()
        # Why the multiplier: the tests' timeouts assume the project's -O2 build.
        cmd = ["meson", "test", "-C", self.build, "--num-processes", self.jobs, "--logbase", logbase,
               "--timeout-multiplier", "4"]
        if not rebuild:
            cmd.append("--no-rebuild")
        r = run(cmd + list(tests), capture_output=True, text=True)
        failed = []
        if logfile.exists():
            for line in logfile.read_text(encoding="utf-8").splitlines():
                rec = json.loads(line)
                if rec.get("result") in FAILING:
                    failed.append(rec["name"].split(" / ", 1)[-1])  # drop "project:suite / "
        return r.returncode, failed

    def whole_suite(self, logbase):
        """Rebuilds everything and runs every test; returns the failing tests, or [WHOLE_BUILD]."""
        code, failed = self.test([], logbase, rebuild=True)
        if code != 0 and not failed:
            return [WHOLE_BUILD]
        return [t for t in failed if t != LIST_TEST]


class Applied:
    """The mutation applied to the scratch copy for the duration of a `with` block; the original
    bytes come back even on an exception or Ctrl-C. Both writes leave a fresh mtime, so ninja
    rebuilds dependents after the restore as well."""

    def __init__(self, scratch: Scratch, m: Mutation):
        self.path = scratch.src / m.path
        self.m = m

    def __enter__(self):
        self.original = self.path.read_text(encoding="utf-8")
        count = self.original.count(self.m.old)
        if count != 1:
            raise SystemExit(f"mutate.py: {self.m.name}: the old text occurs {count} times in {self.m.path} (must be once)")
        self.path.write_text(self.original.replace(self.m.old, self.m.new), encoding="utf-8")
        return self

    def __exit__(self, *exc):
        self.path.write_text(self.original, encoding="utf-8")
        return False


def mutate_one(scratch: Scratch, m: Mutation):
    """Returns (killed, by)."""
    with Applied(scratch, m):
        err = scratch.build_for(m.tests)
        if err is not None:
            return True, f"build: {err}"
        _, failed = scratch.test(m.tests, "mutate-fast")
        if failed:
            return True, ", ".join(failed)
    if scratch.fast_only:
        return False, ""
    log(f"{m.name}: survived its fast path; running the whole suite")
    if scratch.whole_baseline is None:
        # Why lazily and on the restored tree: the whole suite is long and needed only once a
        # mutant survives its fast path; a test that already fails unmutated is no kill.
        scratch.whole_baseline = set(scratch.whole_suite("mutate-baseline"))
        if WHOLE_BUILD in scratch.whole_baseline:
            raise SystemExit("VOID: the unmutated tree does not build")
        if scratch.whole_baseline:
            log("the unmutated whole suite fails: " + ", ".join(sorted(scratch.whole_baseline)))
    with Applied(scratch, m):
        failed = [t for t in scratch.whole_suite("mutate-all") if t not in scratch.whole_baseline]
    if failed:
        return True, ", ".join(failed)
    return False, ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", metavar="NAME", help="run only this mutation (repeatable)")
    ap.add_argument("--list", action="store_true", help="print the mutations and exit")
    ap.add_argument("--check-list", metavar="BUILD_DIR",
                    help="check the list against the tree and BUILD_DIR's tests (no build) and exit")
    ap.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "tile2buffer-mutate"),
                    help="scratch directory (src/ and build/), reused across runs (default: %(default)s)")
    ap.add_argument("--fast-only", action="store_true",
                    help="skip the whole suite: a fast-path survivor is reported SURVIVED (for tuning the list)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compile and test jobs (default: %(default)s)")
    args = ap.parse_args()

    if args.check_list:
        return check_list(Path(args.check_list))
    if args.list:
        for m in MUTATIONS:
            print(f"{m.name}\n  {m.path}\n  {m.reason}\n  fast path: {', '.join(m.tests)}")
        return 0
    chosen = MUTATIONS
    if args.only:
        unknown = set(args.only) - {m.name for m in MUTATIONS}
        if unknown:
            print(f"mutate.py: unknown mutation(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        chosen = [m for m in MUTATIONS if m.name in args.only]

    # Why: a plain SIGTERM would end the process without restoring the mutated file.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    start = time.monotonic()
    scratch = Scratch(Path(args.scratch).resolve(), args.jobs)
    scratch.fast_only = args.fast_only
    scratch.prepare()
    for m in chosen:  # fail before any build, not halfway through the run
        count = (scratch.src / m.path).read_text(encoding="utf-8").count(m.old)
        if count != 1:
            print(f"mutate.py: {m.name}: the old text occurs {count} times in {m.path} (must be once)", file=sys.stderr)
            return 2

    fast = sorted({t for m in chosen for t in m.tests})
    log(f"baseline: the unmutated tree's fast-path tests ({len(fast)})")
    err = scratch.build_for(fast)
    failed = [f"build: {err}"] if err is not None else scratch.test(fast, "mutate-fast")[1]
    if failed:
        print(f"VOID: the unmutated tree fails fast-path tests: {', '.join(failed)}")
        return 2

    survived = 0
    for m in chosen:
        killed, by = mutate_one(scratch, m)
        if killed:
            print(f"KILLED {m.name} (by {by})", flush=True)
        else:
            survived += 1
            print(f"SURVIVED {m.name}", flush=True)
    print(f"{len(chosen)} mutations, {len(chosen) - survived} killed, {survived} survived")
    log(f"wall time: {time.monotonic() - start:.0f} s")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
