#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every diagnostic fragment the reference's tests match on is produced, verbatim, by a golden.

The reference's tests match diagnostics by quoted fragments, and reference-semantics.md quotes
them (issue 31, item 6). A host that matches on that text must find it in our messages, so each
fragment must appear in the expected output (a positive CHECK line) of at least one golden under
tests/golden, and in the text t2b-opt really prints for that golden's RUN line; or it carries a
status that says why not.

Extraction rule (`extract`), applied to the spec files when they are present:
  * Which text: reference-semantics.md sections 3 to 7 (acceptance contract, storage
    legalization and verification, the conversion algorithm incl. its diagnostics list §5.9,
    PTO-AS emission, binary serialization); these are the sections that say what fails and
    how. §0-§2 describe the IR and the op tables, §9 numerics: their quotes are names. Also all
    of lower-tile-to-buffer.md, whose only quotes are shell variables on its test command lines
    (no diagnostic text). Not pto-dialect.md (its quotes are ptoas/MLIR parser messages and
    attribute values, not the pass's) nor extended-rollout.md (stays-Tile wording of a rollout
    that is not the reference's).
  * Which quotes: every "double-quoted" span (it may wrap lines; whitespace is collapsed), except
    one-word quotes ("dense", "matrix", "direct", "symbolic", "unproven", "BufferType"): a single
    word labels a term or a value, and no reference message is one word.
  * Multi-word quotes that name a concept rather than quote a message are listed in the fragment
    file with status `term: <why>`; the spec check below keeps that list exact.
Placeholders `<op>`, `<name>`, `<Space>`, `<k>`, `<rule>`... and the ellipsis `…` match any text
on one line; everything else matches verbatim and case-sensitively (the reference matches text).

The fragment list lives in the repository (spec_fragments.txt), since a clean clone may not have
the spec beside it: `--spec DIR` checks that the list names exactly the fragments extracted from
the spec there (skipped with a note when DIR is absent). Statuses:
  golden            some golden's positive CHECK line of an active prefix holds the fragment, and
                    the text that RUN line hands FileCheck holds it too (the golden suite checks
                    the rest: exit codes, locations, order);
  excluded: <why>   cannot arise in this IR; it must then not be produced by any golden either;
  pending: <why>    awaits a change in a file this item does not own; once a golden produces
                    it the status must become `golden` (the test fails until it does);
  term: <why>       a quoted name, not a message.

    spec_fragments.py T2B_OPT NOT_TOOL GOLDEN_DIR FRAGMENT_LIST [--spec DIR] [--report]
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

SPEC_FILES = {"reference-semantics.md": {3, 4, 5, 6, 7}, "lower-tile-to-buffer.md": None}
STATUSES = ("golden", "excluded", "pending", "term")
DIRECTIVE = re.compile(r"#\s*([A-Za-z0-9_-]+?)(-NEXT|-SAME|-DAG|-LABEL|-NOT|-EMPTY|-COUNT-\d+)?:(.*)$")


def extract(spec_dir):
    """(section, fragment) for every quote the rule above keeps, first occurrence first."""
    out, seen = [], set()
    for name, sections in SPEC_FILES.items():
        with open(os.path.join(spec_dir, name), encoding="utf-8") as fh:
            text = fh.read()
        for chunk in re.split(r"(?m)^(?=## )", text):
            m = re.match(r"## (\d+)\.", chunk)
            if sections is not None and (not m or int(m.group(1)) not in sections):
                continue
            for q in re.finditer(r'"([^"]*)"', chunk):
                frag = " ".join(q.group(1).split())
                if len(frag.split()) < 2 or frag in seen:
                    continue
                seen.add(frag)
                heads = re.findall(r"(?m)^### (\d+(?:\.\d+)*)", chunk[: q.start()])
                out.append(("§" + (heads[-1] if heads else (m.group(1) if m else name)), frag))
    return out


def read_list(path):
    """[(section, fragment, status, why)] from the tab-separated list file."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 3:
                sys.exit("%s:%d: expected three tab-separated columns (section, fragment, status)" % (path, n))
            status, _, why = cols[2].partition(":")
            if status not in STATUSES or (status != "golden" and not why.strip()):
                sys.exit("%s:%d: status must be `golden` or one of excluded/pending/term with ': why'" % (path, n))
            rows.append((cols[0], cols[1], status, why.strip()))
    return rows


def pattern(fragment):
    """The fragment as a regex: placeholders and `…` match any text on one line."""
    parts = re.split(r"<[^<>]+>|…", fragment)
    return re.compile("[^\n]*?".join(re.escape(p) for p in parts))


def golden_files(golden_dir):
    return sorted(glob.glob(os.path.join(golden_dir, "**", "*.t2b"), recursive=True))


def prefixes_of(args):
    out = []
    for i, a in enumerate(args):
        for opt in ("--check-prefix", "--check-prefixes"):
            if a.startswith(opt + "="):
                out += a.split("=", 1)[1].split(",")
            elif a == opt and i + 1 < len(args):
                out += args[i + 1].split(",")
    return out or ["CHECK"]


def expectations(path):
    """(RUN lines, {prefix: [positive CHECK line text]}) of one golden."""
    runs, checks = [], {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            r = re.search(r"#\s*RUN:\s*(.*)$", line)
            if r:
                runs.append(r.group(1))
                continue
            d = DIRECTIVE.search(line)
            if d and d.group(2) != "-NOT":
                checks.setdefault(d.group(1), []).append(d.group(3))
    active = set()
    for cmd in runs:
        for seg in cmd.split("%FileCheck")[1:]:
            active.update(prefixes_of(shlex.split(seg.split("|")[0].split("&&")[0].split(";")[0].replace("<", " < "))))
    return runs, {p: lines for p, lines in checks.items() if p in active}


def fed_to_filecheck(t2b_opt, not_tool, path, runs):
    """{prefix: [text]}: what each RUN line's FileCheck reads, captured by running the golden's
    RUN lines with FileCheck replaced by this script's --capture mode."""
    with tempfile.TemporaryDirectory() as tmp:
        cap = os.path.join(tmp, "cap")
        os.mkdir(cap)
        shim = "%s %s --capture %s" % (shlex.quote(sys.executable), shlex.quote(os.path.abspath(__file__)), shlex.quote(cap))
        for cmd in runs:
            cmd = (cmd.replace("%t2b-opt", shlex.quote(t2b_opt)).replace("%FileCheck", shim)
                   .replace("%not", "%s %s" % (shlex.quote(sys.executable), shlex.quote(not_tool)))
                   .replace("%s", shlex.quote(path)).replace("%t", os.path.join(tmp, "out")))
            subprocess.run(["bash", "-c", cmd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        out = {}
        for name in sorted(os.listdir(cap)):
            with open(os.path.join(cap, name), encoding="utf-8", errors="replace") as fh:
                head, _, body = fh.read().partition("\n")
            for p in head.split(","):
                out.setdefault(p, []).append(body)
        return out


def capture(cap_dir, args):
    """FileCheck's stand-in: records its prefixes and its input."""
    data = sys.stdin.buffer.read().decode("utf-8", "replace")
    n = len(os.listdir(cap_dir))
    with open(os.path.join(cap_dir, "%04d" % n), "w", encoding="utf-8") as fh:
        fh.write(",".join(prefixes_of(args)) + "\n" + data)
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--capture":
        return capture(argv[2], argv[3:])
    report = "--report" in argv
    argv = [a for a in argv if a != "--report"]
    spec_dir = None
    if "--spec" in argv:
        i = argv.index("--spec")
        spec_dir = argv[i + 1]
        del argv[i : i + 2]
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    t2b_opt, not_tool, golden_dir, list_path = argv[1:]
    rows = read_list(list_path)
    failures = []

    listed = [r[1] for r in rows]
    if len(set(listed)) != len(listed):
        failures.append("the list names a fragment twice")
    if spec_dir and os.path.isdir(spec_dir):
        extracted = [f for _, f in extract(spec_dir)]
        for f in extracted:
            if f not in listed:
                failures.append("the spec quotes %r, which the list does not name" % f)
        for f in listed:
            if f not in extracted:
                failures.append("the list names %r, which the spec no longer quotes" % f)
    else:
        print("note: no spec at %s; checking the in-repo list only" % spec_dir)

    goldens = [(p,) + expectations(p) for p in golden_files(golden_dir)]
    fed_cache = {}
    for section, frag, status, why in rows:
        if status == "term":
            continue
        rx = pattern(frag)
        found = None
        for path, runs, checks in goldens:
            prefixes = [p for p, lines in checks.items() if any(rx.search(l) for l in lines)]
            if not prefixes:
                continue
            if path not in fed_cache:
                fed_cache[path] = fed_to_filecheck(t2b_opt, not_tool, path, runs)
            if any(rx.search(text) for p in prefixes for text in fed_cache[path].get(p, [])):
                found = os.path.relpath(path, golden_dir)
                break
        if report:
            print("%-7s %-8s %-60s %s" % (section, status, frag, found or why))
        if status == "golden" and not found:
            failures.append("%s %r: no golden's expected output holds it (with a RUN line that prints it)" % (section, frag))
        elif status != "golden" and found:
            failures.append("%s %r is %s but %s produces it: set its status to golden" % (section, frag, status, found))
    for f in failures:
        print("FAIL: " + f)
    counts = {s: sum(1 for r in rows if r[2] == s) for s in STATUSES}
    print("%d fragments: %s" % (len(rows), ", ".join("%d %s" % (counts[s], s) for s in STATUSES)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
