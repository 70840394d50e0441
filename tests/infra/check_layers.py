#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the `#include "tile2buffer/..."` edges of a header tree against a declared layer order.

usage: check_layers.py ORDER_DOC INCLUDE_ROOT

ORDER_DOC is a Markdown file holding the one fenced block tagged `layers` (docs/design.md): one
layer per line, lowest first; a line lists the units of that layer, where a unit is a directory
under INCLUDE_ROOT/tile2buffer (`ir`) or a header directly in it (`lower.hpp`). `#` starts a
comment. A header may include a header of its own unit or of a unit in a lower layer; units of
one layer are peers and may not include each other. Every header must belong to a declared unit,
every declared unit must exist, every include must name an existing header, and there must be no
include cycle between files.

Two rules keep passes apart (docs/design.md, "What a pass file holds"). A *pass file* is the
header under passes/ that defines a pass listed in `struct default_passes : pass_list<...>`; no
pass file reaches another pass file through its includes (what passes share lives in analysis/,
checks/ or engine/; only the registry, which no pass includes, includes them all), and no header
of emit/ includes anything from passes/.

Each violation is printed as `FILE:LINE: ...`; the exit code is 1 if there is any.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]tile2buffer/([^">]+)[">]')
PASS_UNIT = "passes"
# Why emit/ alone: the emitter reads Buffer IR and the checks on it, never a pass, and a pass file
# it included would pull the pipeline into every emitting TU.
UNITS_WITHOUT_PASSES = ("emit",)
DEFAULT_PASSES = re.compile(r"\bstruct\s+default_passes\s*:\s*pass_list\s*<([^>]*)>")


def read_order(doc):
    """Returns ({unit: layer index}, [error]) from the `layers` block of `doc`."""
    with open(doc, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    blocks = [i for i, l in enumerate(lines) if re.match(r"^```\s*layers\s*$", l)]
    if len(blocks) != 1:
        return {}, [f"{doc}: expected exactly one ```layers block, found {len(blocks)}"]
    rank, errors = {}, []
    layer = 0
    for n in range(blocks[0] + 1, len(lines)):
        line = lines[n].split("#", 1)[0].strip()
        if lines[n].startswith("```"):
            break
        if not line:
            continue
        for unit in line.split():
            if unit in rank:
                errors.append(f"{doc}:{n + 1}: unit '{unit}' declared twice")
            rank[unit] = layer
        layer += 1
    else:
        errors.append(f"{doc}: ```layers block is not closed")
    return rank, errors


def unit_of(rel):
    return rel.split("/", 1)[0]


def list_headers(root):
    """The headers under `root` (INCLUDE_ROOT/tile2buffer), relative to it, sorted."""
    return sorted(
        os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
        for d, _, files in os.walk(root) for f in files if f.endswith(".hpp"))


def include_edges(root, headers):
    """{header: [(included header, line number)]}, every `#include "tile2buffer/..."` in order."""
    edges = {}
    for h in headers:
        with open(os.path.join(root, h), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if m:
                    edges.setdefault(h, []).append((m.group(1), n))
    return edges


def pass_files(root, headers):
    """Returns ({pass file: pass name}, [error]): the headers of passes/ that define a pass of
    `default_passes`. Why read the list rather than name the files here: a pass added to the list
    is covered without an edit of this checker."""
    mine = [h for h in headers if unit_of(h) == PASS_UNIT]
    if not mine:
        return {}, []
    texts = {}
    for h in mine:
        with open(os.path.join(root, h), encoding="utf-8") as fh:
            texts[h] = fh.read()
    names = []
    for h in mine:
        for m in DEFAULT_PASSES.finditer(texts[h]):
            names += [n.strip() for n in m.group(1).split(",") if n.strip()]
    if not names:
        return {}, [f"{os.path.join(root, PASS_UNIT)}: no `struct default_passes : pass_list<...>` under {PASS_UNIT}/, "
                    "so the pass-file rules cannot be checked"]
    files, errors = {}, []
    for name in names:
        defined = [h for h in mine if re.search(r"\bstruct\s+%s\s*\{" % re.escape(name), texts[h])]
        if len(defined) != 1:
            errors.append(f"{os.path.join(root, PASS_UNIT)}: pass '{name}' of default_passes is defined in "
                          f"{len(defined)} headers under {PASS_UNIT}/ (one expected)")
            continue
        files[defined[0]] = name
    return files, errors


def passes_reaching_passes(edges, passes):
    """[(pass file, line, other pass file, path)]: each other pass file a pass file reaches through
    its includes, with the first such path (the headers after the pass file, ending at the other)."""
    found = []
    for p in sorted(passes):
        seen, queue = {p}, [(p, [], None)]
        while queue:
            node, path, line = queue.pop(0)
            for target, n in edges.get(node, []):
                if target in seen:
                    continue
                seen.add(target)
                hop = path + [target]
                first = n if line is None else line
                if target in passes:
                    found.append((p, first, target, hop))
                    continue  # what lies behind it is reported for that pass file
                queue.append((target, hop, first))
    return found


def find_cycles(edges):
    """Every elementary cycle found by depth-first search, one per back edge, as a list of nodes."""
    cycles, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt, _ in edges.get(node, []):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return cycles


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    doc, include_root = argv[1], argv[2]
    root = os.path.join(include_root, "tile2buffer")
    rank, errors = read_order(doc)
    headers = list_headers(root)
    units = {unit_of(h) for h in headers}
    for unit in sorted(set(rank) - units):
        errors.append(f"{doc}: declared unit '{unit}' has no header under {root}")

    edges = include_edges(root, headers)
    for h in headers:
        path = os.path.join(root, h)
        if unit_of(h) not in rank:
            errors.append(f"{path}:1: unit '{unit_of(h)}' is not in the layer order of {doc}")
        for target, n in edges.get(h, []):
            if target not in headers:
                errors.append(f"{path}:{n}: includes tile2buffer/{target}, which does not exist")
                continue
            src, dst = unit_of(h), unit_of(target)
            if src in UNITS_WITHOUT_PASSES and dst == PASS_UNIT:
                errors.append(f"{path}:{n}: {h} -> {target}: nothing in {src}/ includes {PASS_UNIT}/ (move what it "
                              f"needs into analysis/ or checks/; see {doc})")
            if src == dst or src not in rank or dst not in rank or rank[dst] < rank[src]:
                continue
            how = "a peer in the same layer" if rank[dst] == rank[src] else "a higher layer"
            errors.append(f"{path}:{n}: layer violation: {h} -> {target} ('{src}' may not include "
                          f"'{dst}', {how}; see the layer order in {doc})")

    for cycle in find_cycles(edges):
        hops = []
        for a, b in zip(cycle, cycle[1:]):
            line = next(n for t, n in edges[a] if t == b)
            hops.append(f"{a}:{line} -> {b}")
        errors.append(f"{os.path.join(root, cycle[0])}: include cycle: " + ", ".join(hops))

    passes, pass_errors = pass_files(root, headers)
    errors += pass_errors
    for p, line, other, hop in passes_reaching_passes(edges, passes):
        through = f" through {' -> '.join(hop[:-1])}" if len(hop) > 1 else ""
        errors.append(f"{os.path.join(root, p)}:{line}: pass file {p} ({passes[p]}) includes pass file {other} "
                      f"({passes[other]}){through}: a pass file includes no other pass; share through analysis/, "
                      f"checks/ or engine/ (see {doc})")

    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} problem(s)")
        return 1
    n_edges = sum(len(v) for v in edges.values())
    print(f"check_layers: {len(headers)} headers, {n_edges} includes, {max(rank.values()) + 1} layers, "
          f"{len(passes)} pass files: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
