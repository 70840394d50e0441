#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the facts README.md and docs/design.md state about the library's tables against the
built t2b-opt, so that a doc that drifts from the code fails a test:

  - every pass list in them is the default pass set (`default_passes`, passes/table.hpp), in
    order, as `t2b-opt --list-passes` prints it; so are the lists in `t2b-opt --help` (--lower,
    --stop-after, --pass-pipeline);
  - docs/design.md's count of ops with both an extended-tier recipe and a stays-Tile entry is
    the count in `t2b-opt --list-recipes` (the default recipe set, recipe/table.hpp).

What is a pass list: a run of pass names (`a`, `b`, `c`, or plain words) separated by ",", "and"
or "..", of at least three names (or two in a range or before an elision), that starts at the
pipeline's start: its first pass, or the `init_storage` the lists began with before
`materialize_native_scratch` came first. A list ending in ",..." (an elided example) must be a
prefix of the set; `a .. b` must name its first and last pass. A run that starts later ("select,
verify_tile_storage, plan and lower read the analyses") names some passes, not the pipeline, and
is not checked.

usage: docs_from_tables.py T2B_OPT SOURCE_ROOT
       docs_from_tables.py --self-test T2B_OPT   (the checker must reject the texts it exists for)
"""
import os
import re
import subprocess
import sys

DOCS = ["README.md", os.path.join("docs", "design.md")]
HELP_FLAGS = ["--lower", "--stop-after", "--pass-pipeline"]
# The sentence may wrap anywhere in the Markdown source.
COUNT = re.compile(r"(\d+)\s+" + r"\s+".join("ops have both an extended-tier recipe and a stays-Tile entry".split()))


def run(t2b_opt, *args):
    return subprocess.run([t2b_opt, *args], check=True, capture_output=True, text=True).stdout


def passes_of(t2b_opt):
    """The default pass set, in order: the first word of each `--list-passes` line."""
    names = [line.split(":", 1)[0].strip() for line in run(t2b_opt, "--list-passes").splitlines() if line.strip()]
    if len(names) < 2 or any(not re.fullmatch(r"[a-z_]+", n) for n in names):
        sys.exit(f"t2b-opt --list-passes printed no pass list: {names}")
    return names


def both_count(t2b_opt):
    """Ops of the default recipe set with a recipe and a stays-Tile entry (`--list-recipes`)."""
    recipes, stays = set(), set()
    for line in run(t2b_opt, "--list-recipes").splitlines():
        op, _, rest = line.partition(": ")
        (stays if rest.startswith("stays Tile:") else recipes).add(op)
    return len(recipes & stays)


def pass_lists(text, names):
    """(line, names in the list, elided, range) for each pass list of `text` (module comment)."""
    word = r"(?<![\w-])`?(%s)`?(?![\w-])" % "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    hits = list(re.finditer(word, text))
    separator = re.compile(r"\s*(,|\.\.|\band\b|,\s*and\b)\s*$")
    starts = {names[0], "init_storage"}
    lists, i = [], 0
    while i < len(hits):
        j, dots = i, False
        while j + 1 < len(hits):
            gap = text[hits[j].end():hits[j + 1].start()]
            m = separator.fullmatch(gap) if "\n\n" not in gap else None
            if not m:
                break
            dots = dots or m.group(1) == ".."
            j += 1
        run_names = [h.group(1) for h in hits[i:j + 1]]
        elided = re.match(r"`?,\s*(\.\.\.|…)", text[hits[j].end():hits[j].end() + 6]) is not None
        if run_names[0] in starts and (len(run_names) >= 3 or (len(run_names) == 2 and (dots or elided))):
            lists.append((text.count("\n", 0, hits[i].start()) + 1, run_names, elided, dots))
        i = j + 1
    return lists


def list_problem(found, elided, dots, names):
    if dots:
        ok = len(found) == 2 and found == [names[0], names[-1]]
        return None if ok else f"names the range {' .. '.join(found)}, not {names[0]} .. {names[-1]}"
    if elided:
        ok = found == names[:len(found)]
        return None if ok else f"begins {', '.join(found)}, ... but the passes begin {', '.join(names[:len(found)])}"
    return None if found == names else f"lists {', '.join(found)}; the default passes are {', '.join(names)}"


def check_text(label, text, names, count=None):
    problems = []
    for line, found, elided, dots in pass_lists(text, names):
        if (why := list_problem(found, elided, dots, names)) is not None:
            problems.append(f"{label}:{line}: a pass list {why}")
    if count is not None:
        stated = [int(m.group(1)) for m in COUNT.finditer(text)]
        if not stated:
            problems.append(f"{label}: no sentence '<N> ops have both an extended-tier recipe and a stays-Tile entry'")
        problems += [f"{label}: says {n} ops have both a recipe and a stays-Tile entry; t2b-opt --list-recipes has {count}"
                     for n in stated if n != count]
    return problems


def check_help(t2b_opt, names):
    problems = []
    lines = run(t2b_opt, "--help").splitlines()
    for flag in HELP_FLAGS:
        line = next((l for l in lines if l.split()[:1] == [flag]), None)
        if line is None:
            problems.append(f"t2b-opt --help: no line for {flag}")
            continue
        spelled = [", ".join(names), ",".join(names)]
        if not any(s in line for s in spelled):
            problems.append(f"t2b-opt --help: {flag} does not list the default passes ({', '.join(names)}): {line.strip()}")
    return problems


def self_test(t2b_opt):
    """The texts this test exists for must fail, and their corrected forms pass."""
    names = passes_of(t2b_opt)
    count = both_count(t2b_opt)
    old = {
        "README (before)": "the default pass pipeline (init_storage, select, legalize,\nverify_tile_storage, plan, lower, verify_buffer) behind",
        "design.md (before)": "- **passes** (`passes/`): `init_storage`, `select`, `legalize`, `verify_tile_storage`, `plan`,\n  `lower`, `verify_buffer`, each",
        "elided (before)": "mlir-opt habits: `--pass-pipeline=init_storage,select,...` runs the passes listed",
        "range (before)": "run the default pipeline (init_storage .. verify_buffer)",
        "count (before)": "every entry is a recipe or a stays-Tile entry, no two recipes of one op share a benefit, no op\n  has both",
        "count (wrong)": f"({count + 1} ops have both an extended-tier\n  recipe and a stays-Tile entry)",
    }
    failed = 0
    for label, text in old.items():
        if not check_text(label, text, names, count if "count" in label else None):
            print(f"FAIL: the checker accepts {label}: {text!r}")
            failed += 1
    good = ("(" + ", ".join(names) + ") and `--pass-pipeline=" + ",".join(names[:2]) + ",...` and "
            + f"{names[0]} .. {names[-1]}; select, verify_tile_storage, plan and lower read it")
    if problems := check_text("corrected", good, names):
        print("FAIL: the checker rejects a correct text:", *problems, sep="\n  ")
        failed += 1
    print(f"{len(old) + 1 - failed} of {len(old) + 1} self-test cases behaved")
    return 1 if failed else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(os.path.abspath(argv[2]))
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    t2b_opt, root = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    names = passes_of(t2b_opt)
    count = both_count(t2b_opt)
    problems, checked = [], 0
    for doc in DOCS:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            text = f.read()
        checked += len(pass_lists(text, names))
        problems += check_text(doc, text, names, count if doc.endswith("design.md") else None)
    problems += check_help(t2b_opt, names)
    for p in problems:
        print("FAIL:", p)
    print(f"{checked} pass lists in {len(DOCS)} docs and {len(HELP_FLAGS)} --help lines checked against "
          f"{len(names)} passes; {count} ops with both a recipe and a stays-Tile entry; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
