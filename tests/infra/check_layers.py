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
include cycle between files. Each violation is printed as `FILE:LINE: ...`; the exit code is 1 if
there is any.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]tile2buffer/([^">]+)[">]')


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
    headers = sorted(
        os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
        for d, _, files in os.walk(root) for f in files if f.endswith(".hpp"))
    units = {unit_of(h) for h in headers}
    for unit in sorted(set(rank) - units):
        errors.append(f"{doc}: declared unit '{unit}' has no header under {root}")

    edges = {}  # header -> [(included header, line number)]
    for h in headers:
        path = os.path.join(root, h)
        if unit_of(h) not in rank:
            errors.append(f"{path}:1: unit '{unit_of(h)}' is not in the layer order of {doc}")
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                edges.setdefault(h, []).append((target, n))
                if target not in headers:
                    errors.append(f"{path}:{n}: includes tile2buffer/{target}, which does not exist")
                    continue
                src, dst = unit_of(h), unit_of(target)
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

    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} problem(s)")
        return 1
    n_edges = sum(len(v) for v in edges.values())
    print(f"check_layers: {len(headers)} headers, {n_edges} includes, {max(rank.values()) + 1} layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
