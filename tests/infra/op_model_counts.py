#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The op model's counts (issue 32), checked on the header tree so they cannot creep back:

  positional operand reads   `args[N]` / `operands[N]` / `args()[N]` with a literal N, outside the
                             typed-view layer (ir/typed_op.hpp): 0
  opcodes named in passes/   `opcode::` in include/tile2buffer/passes: at most 5
  generic_ branches          `generic_` in emit/pto.hpp (the printer alone chooses the form): 0
  region counts              one definition: `.regions =` only in the records (ir/opcode.hpp) and
                             one `region_count(` function
  passes including passes    pass files (passes/ headers defining a pass of `default_passes`) that
                             reach another pass file through their includes (check_layers.py): 0

Comment lines are skipped. `--self-test` copies the tree, breaks each rule once and expects each
break to be reported, so the check itself can fail.

    op_model_counts.py INCLUDE_ROOT [--self-test]
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from list_sources import public_headers  # noqa: E402  (the one listing of the public headers)
import check_layers  # noqa: E402  (the one definition of a pass file and of what it reaches)

POSITIONAL = re.compile(r"\b(?:args|operands)(?:\(\))?\[\s*\d+\s*\]")
MAX_OPCODES_IN_PASSES = 5


def code_lines(path):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith("//"):
                continue
            yield n, line.split("//", 1)[0]


def check(root):
    problems = []
    opcodes_in_passes = []
    region_count_defs = []
    for header in public_headers(root):
        rel = header.removeprefix("tile2buffer/")
        for n, line in code_lines(os.path.join(root, header)):
            where = "%s:%d" % (rel, n)
            if rel != "ir/typed_op.hpp" and POSITIONAL.search(line):
                problems.append("%s: positional operand read outside the typed views: %s" % (where, line.strip()))
            if rel.startswith("passes/") and "opcode::" in line:
                opcodes_in_passes.append(where)
            if rel == "emit/pto.hpp" and "generic_" in line:
                problems.append("%s: a generic_ branch in the PTO emitter (the printer chooses the form)" % where)
            if rel != "ir/opcode.hpp" and re.search(r"\.regions\s*=\s*\d", line):
                problems.append("%s: a region count outside the op records" % where)
            if re.search(r"\bregion_count\s*\(\s*opcode\b", line):
                region_count_defs.append(where)
    if len(opcodes_in_passes) > MAX_OPCODES_IN_PASSES:
        problems.append("passes/ name %d opcodes (at most %d): %s" % (len(opcodes_in_passes), MAX_OPCODES_IN_PASSES,
                                                                    ", ".join(opcodes_in_passes)))
    if len(region_count_defs) != 1:
        problems.append("region_count(opcode) defined %d times (once expected): %s" % (len(region_count_defs),
                                                                                  ", ".join(region_count_defs)))
    tree = os.path.join(root, "tile2buffer")
    headers = check_layers.list_headers(tree)
    passes, errors = check_layers.pass_files(tree, headers)
    problems += ["pass files: " + e for e in errors]
    for p, line, other, _ in check_layers.passes_reaching_passes(check_layers.include_edges(tree, headers), passes):
        problems.append("%s:%d: a pass including a pass: %s reaches %s" % (p, line, p, other))
    return problems, len(opcodes_in_passes)


SELF_TEST_BREAKS = {
    "positional": ("tile2buffer/emit/pto.hpp", "inline int t2b_break_a(const int* args) { return args[1]; }\n"),
    "opcodes": ("tile2buffer/passes/plan.hpp",
                "".join("constexpr auto t2b_break_b%d = opcode::tile_add;\n" % i for i in range(6))),
    "generic": ("tile2buffer/emit/pto.hpp", "inline bool t2b_break_c(bool generic_) { return generic_; }\n"),
    "regions": ("tile2buffer/ir/verify/walk.hpp", "struct t2b_break_d { int regions = 0; }; inline t2b_break_d d{.regions = 2};\n"),
    "pass includes pass": ("tile2buffer/passes/plan.hpp", '#include "tile2buffer/passes/select.hpp"\n'),
}


def self_test(root):
    """Each break must be reported; returns the list of breaks that were not."""
    missed = []
    for name, (rel, code) in SELF_TEST_BREAKS.items():
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "include")
            shutil.copytree(root, copy)
            with open(os.path.join(copy, rel), "a", encoding="utf-8") as f:
                f.write(code)
            problems, _ = check(copy)
            if not problems:
                missed.append(name)
    return missed


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    problems, opcodes = check(root)
    for p in problems:
        print("op-model count: " + p)
    if problems:
        return 1
    print("op model counts: positional reads 0, opcodes in passes/ %d (<= %d), generic_ branches 0, one region count, "
          "passes including passes 0" % (opcodes, MAX_OPCODES_IN_PASSES))
    if "--self-test" in argv[2:]:
        missed = self_test(root)
        if missed:
            print("op-model count: the check did not catch: " + ", ".join(missed))
            return 1
        print("self-test: each of %d breaks reported" % len(SELF_TEST_BREAKS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
