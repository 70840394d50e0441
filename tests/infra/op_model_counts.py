#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The op model's counts (issue 32), checked on the header tree so they cannot creep back:

  positional operand reads   `args[N]` / `operands[N]` / `args()[N]` with a literal N, outside the
                             typed-view layer (ir/typed_op.hpp): 0
  opcodes named in passes/   `opcode::` in include/tile2buffer/passes: at most 5
  generic_ branches          `generic_` in the PTO emitter (emit/pto.hpp, pto_emitter.hpp, pto_values.hpp;
                             the printer alone chooses the form): 0
  region counts              one definition: `.regions =` only in the records (ir/opcode.hpp) and
                             one `region_count(` function
  family switches            `case opcode::X:` where X is a member of a family (the records of
                             ir/opcode.hpp say which), outside the records, in include/, tools/ and
                             tests/support/ (the program generator): 0
  coverage checks            "every op of kind K has exactly one entry" is implemented once
                             (ir/coverage.hpp) and each per-op table asks it
  passes including passes    pass files (passes/ headers defining a pass of `default_passes`) that
                             reach another pass file through their includes (check_layers.py): 0

Comment lines are skipped. `--self-test` copies the tree (and tools/ and tests/support/ beside it),
breaks each rule once and expects each break to be reported, so the check itself can fail.

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

# The tables that must ask the one coverage utility (ir/coverage.hpp), and its two entry points.
# The PTO-AS emitter's files (the printer alone chooses the generic or custom form).
PTO_EMITTER = ("emit/pto.hpp", "emit/pto_emitter.hpp", "emit/pto_values.hpp")
COVERAGE_USERS = ["ir/opcode.hpp", "ir/verify/rule_table.hpp", "sim/model_table.hpp", "emit/pto_emitter.hpp", "emit/pto_read.hpp",
                  "engine/registry.hpp", "ir/elementwise.hpp"]
COVERAGE_CALL = re.compile(r"\bfirst_(?:coverage|count)_gap\b")
FAMILY_HELPER = re.compile(r"\b(?:ew_member|row_arith|col_arith|tile_row_reduction|buffer_row_reduction|tile_col_reduction|"
                           r"buffer_col_reduction|scalar_binary|spmd)\(o::(\w+)(?:, o::(\w+))?")
CASE = re.compile(r"\bcase\s+opcode::(\w+)\s*:")
POSITIONAL = re.compile(r"\b(?:args|operands)(?:\(\))?\[\s*\d+\s*\]")
MAX_OPCODES_IN_PASSES = 5


def code_lines(path):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith("//"):
                continue
            yield n, line.split("//", 1)[0]


def family_members(root):
    """The opcodes the records of ir/opcode.hpp put in a family with parameters (not `single`, `control`)."""
    with open(os.path.join(root, "tile2buffer/ir/opcode.hpp"), encoding="utf-8") as f:
        text = f.read()
    members = set()
    for m in FAMILY_HELPER.finditer(text):
        members.update(g for g in m.groups() if g)
    # Records written out: `{.code = o::X, ... .family = fam::F ...}` up to the next record.
    for rec in re.split(r"\{\.code = ", text)[1:]:
        code = re.match(r"o::(\w+)", rec)
        fam = re.search(r"\.family = fam::(\w+)", rec.split("{.code", 1)[0])
        # Control ops share a family tag but no parameters: each has its own regions and rule.
        if code and fam and fam.group(1) not in ("single", "control"):
            members.add(code.group(1))
    return members


# The directories beside the include root whose sources are held to the family rule too: the
# campaign and t2b-opt, and the program generator the tests and the campaign share.
OTHER_SOURCE_DIRS = ["tools", os.path.join("tests", "support")]


def present_source_dirs(root):
    """The OTHER_SOURCE_DIRS that are beside this include root (an installed tree has none)."""
    top = os.path.dirname(os.path.abspath(root))
    return [rel for rel in OTHER_SOURCE_DIRS if os.path.isdir(os.path.join(top, rel))]


def other_sources(root):
    """*.cpp and *.hpp of the OTHER_SOURCE_DIRS beside the include root."""
    top = os.path.dirname(os.path.abspath(root))
    out = []
    for rel in present_source_dirs(root):
        d = os.path.join(top, rel)
        out.extend(sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith((".cpp", ".hpp"))))
    return out


def check(root):
    problems = []
    members = family_members(root)
    if len(members) < 10:
        problems.append("ir/opcode.hpp: found %d family members; the records' family helpers were not recognised" % len(members))
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
            if rel in PTO_EMITTER and "generic_" in line:
                problems.append("%s: a generic_ branch in the PTO emitter (the printer chooses the form)" % where)
            if rel != "ir/opcode.hpp" and re.search(r"\.regions\s*=\s*\d", line):
                problems.append("%s: a region count outside the op records" % where)
            if re.search(r"\bregion_count\s*\(\s*opcode\b", line):
                region_count_defs.append(where)
            if rel != "ir/opcode.hpp":
                for m in CASE.finditer(line):
                    if m.group(1) in members:
                        problems.append("%s: a switch case on family member %s (ask its record's family parameters)"
                                        % (where, m.group(1)))
    for path in other_sources(root):
        for n, line in code_lines(path):
            for m in CASE.finditer(line):
                if m.group(1) in members:
                    problems.append("%s:%d: a switch case on family member %s (ask its record's family parameters)"
                                    % (os.path.relpath(path, os.path.dirname(os.path.abspath(root))), n, m.group(1)))
    for rel in COVERAGE_USERS:
        path = os.path.join(root, "tile2buffer", rel)
        if os.path.exists(path) and not any(COVERAGE_CALL.search(line) for _, line in code_lines(path)):
            problems.append("%s: checks its table's coverage without ir/coverage.hpp (first_coverage_gap/first_count_gap)" % rel)
    defs = [h for h in public_headers(root) for _, line in code_lines(os.path.join(root, h))
            if re.search(r"constexpr coverage_gap first_(?:coverage|count)_gap\(", line)]
    if sorted(set(defs)) != ["tile2buffer/ir/coverage.hpp"]:
        problems.append("the coverage utility is defined in %s (once, in ir/coverage.hpp, expected)" % sorted(set(defs)))
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




def self_test(root):
    """Each break must be reported; returns the breaks that were not and how many were tried."""
    family_switch = ("inline int t2b_break_f(opcode c) { switch (c) { case opcode::tile_col_expand_max: return 1; "
                     "default: return 0; } }\n")
    # Paths are relative to the include root; the last two reach its siblings.
    breaks = {
        "positional": ("tile2buffer/emit/pto.hpp", "inline int t2b_break_a(const int* args) { return args[1]; }\n"),
        "opcodes": ("tile2buffer/passes/plan.hpp",
                    "".join("constexpr auto t2b_break_b%d = opcode::tile_add;\n" % i for i in range(6))),
        "generic": ("tile2buffer/emit/pto_emitter.hpp", "inline bool t2b_break_c(bool generic_) { return generic_; }\n"),
        "regions": ("tile2buffer/ir/verify/walk.hpp", "struct t2b_break_d { int regions = 0; }; inline t2b_break_d d{.regions = 2};\n"),
        "family switch": ("tile2buffer/sim/kernels.hpp",
                          "inline int t2b_break_e(opcode c) { switch (c) { case opcode::tile_row_expand_div: return 1; "
                          "default: return 0; } }\n"),
        "coverage twice": ("tile2buffer/sim/kernels.hpp",
                           "constexpr coverage_gap first_coverage_gap(int) { return {}; }\n"),
        "family switch in tools/": (os.path.join("..", "tools", "campaign.cpp"), family_switch),
        "family switch in tests/support/": (os.path.join("..", "tests", "support", "gen_program.cpp"), family_switch),
        "pass includes pass": ("tile2buffer/passes/plan.hpp", '#include "tile2buffer/passes/select.hpp"\n'),
    }
    top = os.path.dirname(os.path.abspath(root))
    missed = []
    tried = 0
    for name, (rel, code) in breaks.items():
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "include")
            shutil.copytree(root, copy)
            for sibling in present_source_dirs(root):
                shutil.copytree(os.path.join(top, sibling), os.path.join(tmp, sibling))
            target = os.path.join(copy, rel)
            if not os.path.exists(target):
                continue  # a sibling this tree does not have (an installed include tree)
            tried += 1
            with open(target, "a", encoding="utf-8") as f:
                f.write(code)
            problems, _ = check(copy)
            if not problems:
                missed.append(name)
    return missed, tried


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
          "family switches 0 (%s), coverage checks in one utility, passes including passes 0"
          % (opcodes, MAX_OPCODES_IN_PASSES, ", ".join(d + "/" for d in ["include"] + present_source_dirs(root))))
    if "--self-test" in argv[2:]:
        missed, tried = self_test(root)
        if missed:
            print("op-model count: the check did not catch: " + ", ".join(missed))
            return 1
        print("self-test: each of %d breaks reported" % tried)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
