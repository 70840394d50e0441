#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks `t2b-opt --memory-map` against the plan it draws.

For every example kernel and planner: the planned allocations are read from the Tile IR the
plan pass prints (`--stop-after=plan`: `NAME = tile.alloc(SPACE, SIZE, addr = A)`), and the SVG
must hold exactly one rectangle per allocation, at its address (y measured against the byte
ticks, so one scale per plot), spanning op positions that agree with its data attributes (x
measured against the plot frame); two rectangles may share bytes only at disjoint op ranges;
the capacity line sits at the capacity. Under PTOAS (no addresses) rectangles never share bytes.
The IR output with --memory-map is byte-identical to the output without it. --planner=all draws
the three single-planner columns side by side. Bad usage gets a clear message and exit code.

Each plot states the plan's peak byte (addressed planners) and the liveness lower bound (the
largest sum of sizes live at one op position); both are recomputed from the rectangles, and the
peak may not fall below the bound.

The checker is then run on mutated copies of a correct SVG (a rectangle moved, one dropped, an
address changed, a wrong bound or peak) and must reject each, so a broken writer cannot pass
unnoticed.

Item 8 of issue 35 too: the x axis names source ops (value name or line, no label on a
tile.alloc), loops and branches are drawn as bands (one per header in the text), a rectangle too
small for its name is in the legend, an input that places allocations is said to, and with
--overflow=KERNEL --planner=all draws a kernel the addressed planners cannot place (their columns
give the planner's reason) while PTOAS's is drawn.

usage: memory_map_test.py T2B_OPT [--overflow=KERNEL.t2b] ([--rollout=R] KERNEL.t2b | DIR)...
(a DIR means its *.t2b, minus *.buffer.t2b; --rollout applies to the kernels after it)
"""
import copy
import glob
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
PLANNERS = ["pypto", "dsa_rp", "ptoas"]
CAPACITY = {"Vec": 192 * 1024, "Mat": 512 * 1024, "Left": 64 * 1024, "Right": 64 * 1024, "Acc": 128 * 1024}
TOL = 0.02  # the writer rounds coordinates to hundredths of a pixel


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def run(args, expect_rc=0):
    proc = subprocess.run(args, capture_output=True, text=True)
    if expect_rc is not None and proc.returncode != expect_rc:
        raise Failure(f"{' '.join(args)}: exit {proc.returncode}, expected {expect_rc}\n{proc.stderr}")
    return proc


FUNC_RE = re.compile(r"^(\w+) @([\w.$-]+)\(")
ALLOC_RE = re.compile(r"^\s*(\S+) = tile\.alloc\((\w+), (\d+)(.*)\)")


def planned_allocations(tile_ir):
    """{kernel: [(name, space, size, address or None)]} from printed, planned Tile IR."""
    out, kernel = {}, None
    for line in tile_ir.splitlines():
        m = FUNC_RE.match(line)
        if m:
            kernel = m.group(2)
            continue
        m = ALLOC_RE.match(line)
        if m and kernel is not None:
            addr = re.search(r"addr = (\d+)", m.group(4))
            out.setdefault(kernel, []).append((m.group(1), m.group(2), int(m.group(3)), int(addr.group(1)) if addr else None))
    return out


def straight_line_lifetimes(tile_ir):
    """{kernel: {allocation: (first op, last op)}} for the kernels without regions, worked out from
    the printed text alone: one op per body line in program order; an op touches an allocation
    when it defines a tile `in` it, or names a tile stored in it (a slice's tile reads its source's
    storage). An independent check of the lifetimes the writer takes from plan/lifetime.hpp."""
    out, kernel, body, regions = {}, None, [], False

    def finish():
        if kernel is None or regions:
            return
        storage, live = {}, {}
        for pos, line in enumerate(body):
            m = re.match(r"\s*(?:([\w.]+(?:, [\w.]+)*) = )?(.*)$", line)
            results, rest = (m.group(1) or "").split(", ") if m.group(1) else [], m.group(2)
            touched = {storage[i] for i in re.findall(r"[A-Za-z_][\w.]*", rest) if i in storage}
            for r in results:
                into = re.search(r"\bin ([\w.]+)(?:\[\d+\])?$", rest)  # `in m[64]`: at a byte offset of m
                args = re.match(r"tile\.\w+\(([\w.]+)", rest)
                if into:
                    storage[r] = into.group(1)
                elif "Tile[[" in rest and args and args.group(1) in storage:
                    storage[r] = storage[args.group(1)]
                if r in storage:
                    touched.add(storage[r])
            for mem in touched:
                first, last = live.get(mem, (pos, pos))
                live[mem] = (min(first, pos), max(last, pos))
        out[kernel] = live

    for line in tile_ir.splitlines():
        m = FUNC_RE.match(line)
        if m:
            finish()
            kernel, body, regions = m.group(2), [], False
        elif kernel is not None and line.strip() and line.strip() != "}":
            regions = regions or line.rstrip().endswith("{")
            body.append(line)
    finish()
    return out


def source_ops(tile_ir):
    """{kernel: (labels, region kinds)} from printed, planned Tile IR. labels (straight-line
    kernels only, else None): per op position, the value name the x axis must show (None for a
    tile.alloc, which gets no label; "" for an op without a result, labelled by its line).
    region kinds: the sorted kinds of its loops and branches, one per header line."""
    out, kernel, body = {}, None, []

    def finish():
        if kernel is None:
            return
        kinds = sorted(m.group(1) for m in (re.match(r"\s*(?:[\w.]+(?:, [\w.]+)* = )?(for|while|if)\b", l) for l in body) if m)
        labels = None
        if not kinds:
            labels = []
            for line in body:
                m = re.match(r"\s*(?:([\w.]+)(?:, [\w.]+)* = )?([\w.]*)", line)
                labels.append(None if m.group(2) == "tile.alloc" else (m.group(1) or ""))
        out[kernel] = (labels, kinds)

    for line in tile_ir.splitlines():
        m = FUNC_RE.match(line)
        if m:
            finish()
            kernel, body = m.group(2), []
        elif kernel is not None and line.strip() and line.strip() not in ("}", "} else {"):
            body.append(line)
    finish()
    return out


def near(a, b):
    return abs(a - b) <= TOL


def f(e, attr):
    return float(e.get(attr))


def check_cell(cell, planner, source=None):
    """Checks one plot; returns its rectangles as (name, space, size, address-or-None) and the
    number of byte-sharing pairs (reuse). `source`: (labels, region kinds) from source_ops."""
    where = f"@{cell.get('data-kernel')} {cell.get('data-space')} {planner}"
    ticks = [(int(t.get("data-bytes")), f(t, "y1")) for t in cell.iter(SVG + "line") if t.get("class") == "ytick"]
    check(len(ticks) >= 2, f"{where}: fewer than two byte ticks")
    (b0, y0), (bn, yn) = ticks[0], ticks[-1]
    check(b0 == 0 and bn > 0, f"{where}: byte ticks must run from 0 up")
    scale = (y0 - yn) / bn  # pixels per byte, y grows downwards
    for b, y in ticks:
        check(near(y, y0 - b * scale), f"{where}: byte tick {b} is off the axis' scale")
    frame = next(r for r in cell.iter(SVG + "rect") if r.get("class") == "frame")
    fx, fw = f(frame, "x"), f(frame, "width")
    positions = int(cell.get("data-positions"))

    def xpos(p):
        return fx + p * fw / positions

    rects = [r for r in cell.iter(SVG + "rect") if "alloc" in r.get("class", "").split()]
    boxes, drawn, lifetimes = [], [], {}
    for r in rects:
        name, size = r.get("data-name"), int(r.get("data-size"))
        address = None if r.get("data-address") == "none" else int(r.get("data-address"))
        check(r.get("data-space") == cell.get("data-space"), f"{where}: {name} drawn in another space's plot")
        offset = int(r.get("data-offset"))
        if address is not None:
            check(offset == address, f"{where}: {name} drawn at offset {offset}, not at its address {address}")
        else:
            check(planner == "ptoas", f"{where}: {name} has no address under an addressed planner")
        x, w, y, h = f(r, "x"), f(r, "width"), f(r, "y"), f(r, "height")
        # Bytes as the picture shows them, measured against the ticks.
        lo, hi = (y0 - (y + h)) / scale, (y0 - y) / scale
        check(abs(lo - offset) * scale <= TOL and abs(hi - (offset + size)) * scale <= TOL,
              f"{where}: {name} spans bytes [{lo:.1f}, {hi:.1f}), expected [{offset}, {offset + size})")
        first, last = int(r.get("data-first-op")), int(r.get("data-last-op"))
        check(0 <= first <= last < positions, f"{where}: {name} live range {first}..{last} outside 0..{positions - 1}")
        check(near(x, xpos(first)) and near(x + w, xpos(last + 1)),
              f"{where}: {name} spans x [{x}, {x + w}), expected ops {first}..{last}")
        title = r.find(SVG + "title")
        check(title is not None and name in title.text and str(size) in title.text
              and f"{first}..{last}" in title.text and (address is None or f"address {address}" in title.text),
              f"{where}: {name}'s hover text lacks its name, size, address or lifetime")
        boxes.append((name, lo, hi, x, x + w))
        drawn.append((name, r.get("data-space"), size, address))
        lifetimes[name] = (first, last)
    shared = 0
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            bytes_meet = a[1] < b[2] - TOL and b[1] < a[2] - TOL
            ops_meet = a[3] < b[4] - TOL and b[3] < a[4] - TOL
            check(not (bytes_meet and ops_meet), f"{where}: {a[0]} and {b[0]} share bytes while both live")
            if bytes_meet:
                check(planner != "ptoas", f"{where}: {a[0]} and {b[0]} share bytes, but PTOAS has no addresses to reuse")
                shared += 1
    # Source-op labels: at the middle of their position, never on a tile.alloc, each naming its op.
    xlabels = [t for t in cell.iter(SVG + "text") if t.get("class") == "xlabel"]
    check(xlabels, f"{where}: no source-op labels on the x axis")
    for t in xlabels:
        p = int(t.get("data-op"))
        title = t.find(SVG + "title")
        check(0 <= p < positions and near(f(t, "x"), (xpos(p) + xpos(p + 1)) / 2), f"{where}: op label {p} off its position")
        check(title is not None and title.text.startswith(f"op {p}: ") and "tile.alloc" not in title.text,
              f"{where}: op label {p} names no op, or labels an allocation")
        label = "".join(t.itertext())[len(title.text):]
        check(label and not label.isdigit(), f"{where}: op label {p} is a bare position")
        if source and source[0] is not None:
            want = source[0][p]
            check(want is not None, f"{where}: op {p} is a tile.alloc but has a label")
            check(label == want or label.startswith("line ") and want == "" or label.endswith("…") and want.startswith(label[:-1]),
                  f"{where}: op {p} labelled {label!r}, the text names it {want!r}")
    # Loops and branches: one band per header, spanning its ops.
    bands = [r for r in cell.iter(SVG + "rect") if r.get("class") == "region"]
    if source is not None:
        check(sorted(b.get("data-kind") for b in bands) == source[1],
              f"{where}: loop/branch bands {sorted(b.get('data-kind') for b in bands)}, the text has {source[1]}")
    for b in bands:
        first, last = int(b.get("data-first-op")), int(b.get("data-last-op"))
        check(0 <= first < last < positions and near(f(b, "x"), xpos(first)) and near(f(b, "x") + f(b, "width"), xpos(last + 1)),
              f"{where}: a {b.get('data-kind')} band does not span ops {first}..{last}")
    # Every rectangle is named: by a label inside it, or in the legend (never both).
    inside = {t.text for t in cell.iter(SVG + "text") if t.get("class") == "name"}
    legend = [r.get("data-name") for r in cell.iter(SVG + "rect") if r.get("class") == "swatch"]
    drawn_names = {r.get("data-name") for r in rects}
    check(not (inside & set(legend)), f"{where}: {sorted(inside & set(legend))} both labelled and in the legend")
    for more in (t for t in cell.iter(SVG + "text") if t.get("class") == "more"):  # the names past the legend's end
        legend += more.find(SVG + "title").text.split(", ")
    check(drawn_names <= inside | set(legend),
          f"{where}: rectangles {sorted(drawn_names - inside - set(legend))} are named neither inside nor in the legend")
    # The usage line: the liveness lower bound (the largest sum of sizes live at one op position,
    # recomputed from the rectangles) and, for an addressed planner, the peak byte, which no valid
    # placement can put below the bound.
    intervals = [(lifetimes[n][0], lifetimes[n][1], size) for n, _, size, _ in drawn]
    bound = max([sum(sz for a0, a1, sz in intervals if a0 <= start <= a1) for start, _, _ in intervals], default=0)
    check(int(cell.get("data-live-bound")) == bound, f"{where}: live bound {cell.get('data-live-bound')}, the rectangles give {bound}")
    placed = [address + size for _, _, size, address in drawn if address is not None]
    if planner == "ptoas":
        check(cell.get("data-peak") is None, f"{where}: a peak under PTOAS, which places nothing")
    else:
        check(int(cell.get("data-peak")) == max(placed), f"{where}: peak {cell.get('data-peak')}, the rectangles reach {max(placed)}")
        check(max(placed) >= bound, f"{where}: peak {max(placed)} below the live bound {bound}")
    usage = next(t for t in cell.iter(SVG + "text") if t.get("class") == "usage")
    check(usage.text.endswith(f"live bound {size_text(bound)}") and (planner == "ptoas" or usage.text.startswith(f"peak {size_text(max(placed))}")),
          f"{where}: the usage line {usage.text!r} does not state the peak and the bound")
    cap = next(l for l in cell.iter(SVG + "line") if l.get("class") == "capacity")
    check(int(cap.get("data-bytes")) == CAPACITY[cell.get("data-space")], f"{where}: wrong capacity")
    if cap.get("data-on-scale") == "true":
        check(near(f(cap, "y1"), y0 - CAPACITY[cell.get("data-space")] * scale), f"{where}: capacity line off its height")
    else:
        check(CAPACITY[cell.get("data-space")] > bn, f"{where}: capacity marked off scale but within the axis")
    return drawn, shared, lifetimes


def size_text(b):
    return f"{b // 1024} KiB" if b >= 1024 and b % 1024 == 0 else f"{b} B"


def check_svg(root, planners, expected, lifetimes=None, sources=None):
    """`expected`: {planner: {kernel: [(name, space, size, address)]}}; `lifetimes` (optional):
    {kernel: {allocation: (first, last)}} for the kernels whose op ranges are known independently;
    `sources` (optional): {kernel: (labels, region kinds)} from source_ops. Returns reuse counts."""
    check(root.tag == SVG + "svg", "not an SVG document")
    cells = [g for g in root.iter(SVG + "g") if g.get("class") == "cell"]
    seen = {p: {} for p in planners}
    reuse = {}
    for cell in cells:
        p = cell.get("data-planner")
        check(p in planners, f"a plot for planner {p}, which was not asked for")
        drawn, shared, live = check_cell(cell, p, (sources or {}).get(cell.get("data-kernel")))
        for name, span in live.items():
            want = (lifetimes or {}).get(cell.get("data-kernel"), {}).get(name)
            check(want is None or want == span, f"{p} @{cell.get('data-kernel')}: {name} drawn live over ops "
                  f"{span[0]}..{span[1]}, the text says {want[0]}..{want[1]}" if want else "")
        seen[p].setdefault(cell.get("data-kernel"), []).extend(drawn)
        reuse[(p, cell.get("data-kernel"), cell.get("data-space"))] = shared
    for p in planners:
        want = {k: sorted(v, key=str) for k, v in expected[p].items()}
        got = {k: sorted(v, key=str) for k, v in seen[p].items()}
        check(got == want, f"{p}: rectangles {got}\n  but the plan has {want}")
    if len(planners) > 1:
        rows = [{(c.get("data-kernel"), c.get("data-space")) for c in cells if c.get("data-planner") == p} for p in planners]
        check(all(r == rows[0] for r in rows), "--planner=all: the columns do not show the same kernels and spaces")
        xs = [min(f(c.find(SVG + "rect"), "x") for c in cells if c.get("data-planner") == p) for p in planners]
        check(xs == sorted(xs) and len(set(xs)) == len(xs), "--planner=all: the planners are not side by side in order")
    return reuse


def mutations(root):
    """Broken copies of a correct SVG, each with what was broken and the words its rejection has."""
    def rects(tree):
        return [r for r in tree.iter(SVG + "rect") if "alloc" in r.get("class", "").split()]

    out = []
    m = copy.deepcopy(root)
    r = rects(m)[0]
    r.set("y", f"{f(r, 'y') - 10:.2f}")
    out.append(("a rectangle moved off its address", m, "spans bytes"))
    m = copy.deepcopy(root)
    for g in m.iter(SVG + "g"):
        victims = [r for r in list(g) if r.tag == SVG + "rect" and "alloc" in r.get("class", "").split()]
        if victims:
            g.remove(victims[0])
            break
    out.append(("a rectangle dropped", m, "but the plan has"))
    m = copy.deepcopy(root)
    r = rects(m)[-1]
    r.set("data-address", str(int(r.get("data-offset")) + 32))
    out.append(("an address changed", m, "not at its address"))
    # Two allocations live at the same time drawn on the same bytes, everything else consistent:
    # only the overlap rule can catch it.
    m = copy.deepcopy(root)
    done = False
    for g in m.iter(SVG + "g"):
        rs = [r for r in list(g) if r.tag == SVG + "rect" and r.get("data-address", "none") != "none"]
        for a in rs:
            for b in rs:
                live_together = int(a.get("data-first-op")) <= int(b.get("data-last-op")) and \
                    int(b.get("data-first-op")) <= int(a.get("data-last-op"))
                if done or a is b or not live_together or a.get("data-address") == b.get("data-address"):
                    continue
                old_addr, new_addr = b.get("data-address"), a.get("data-address")
                b.set("data-address", new_addr)
                b.set("data-offset", new_addr)
                b.set("y", f"{f(a, 'y') + f(a, 'height') - f(b, 'height'):.2f}")
                t = b.find(SVG + "title")
                t.text = t.text.replace(f"address {old_addr}", f"address {new_addr}")
                done = True
    out.append(("two live allocations on the same bytes", m, "share bytes while both live"))
    # One lifetime one op longer, drawn consistently: only the lifetimes read from the text catch it.
    m = copy.deepcopy(root)
    for g in m.iter(SVG + "g"):
        rs = [r for r in g if r.tag == SVG + "rect" and "alloc" in r.get("class", "").split()]
        r = max(rs, key=lambda r: int(r.get("data-last-op")), default=None)  # the last to die: nothing to meet
        if r is not None:
            last = int(r.get("data-last-op"))
            frame = next(x for x in g if x.get("class") == "frame")
            r.set("data-last-op", str(last + 1))
            r.set("width", f"{f(r, 'width') + f(frame, 'width') / int(g.get('data-positions')):.2f}")
            t = r.find(SVG + "title")
            t.text = t.text.replace(f"..{last}", f"..{last + 1}")
            break
    out.append(("a lifetime one op too long", m, "the text says"))
    m = copy.deepcopy(root)
    t = next(t for t in m.iter(SVG + "text") if t.get("class") == "xlabel")
    t.find(SVG + "title").tail = t.get("data-op")
    out.append(("an op labelled by its position", m, "is a bare position"))
    m = copy.deepcopy(root)
    cell = next(g for g in m.iter(SVG + "g") if any(t.get("class") == "name" for t in g))
    cell.remove(next(t for t in cell if t.get("class") == "name"))
    out.append(("a rectangle's name label dropped", m, "named neither inside nor in the legend"))
    m = copy.deepcopy(root)
    cell = next(g for g in m.iter(SVG + "g") if g.get("class") == "cell")
    cell.set("data-live-bound", str(int(cell.get("data-live-bound")) + 32))
    out.append(("a live bound off by 32 bytes", m, "the rectangles give"))
    m = copy.deepcopy(root)
    cell = next(g for g in m.iter(SVG + "g") if g.get("class") == "cell" and g.get("data-peak"))
    cell.set("data-peak", str(int(cell.get("data-peak")) - 32))
    out.append(("a peak 32 bytes low", m, "the rectangles reach"))
    m = copy.deepcopy(root)
    t = next(t for t in m.iter(SVG + "text") if t.get("class") == "usage")
    t.text = t.text.replace("live bound", "bound")
    out.append(("a usage line without the bound", m, "does not state the peak and the bound"))
    return out


def legend_mutation(root):
    """A copy of a correct SVG whose first legend lost a swatch (None when it has no legend)."""
    m = copy.deepcopy(root)
    legend = next((g for g in m.iter(SVG + "g") if g.get("class") == "legend"), None)
    if legend is None:
        return None
    legend.remove(next(x for x in legend if x.get("class") == "swatch"))
    return m


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    t2b_opt = sys.argv[1]
    kernels, overflow, rollout = [], None, []
    for arg in sys.argv[2:]:
        if arg.startswith("--overflow="):
            overflow = arg.split("=", 1)[1]
        elif arg.startswith("--rollout="):  # for the kernels after it (the zoo: --rollout=extended)
            rollout = [arg]
        elif os.path.isdir(arg):
            kernels += [(k, rollout) for k in sorted(glob.glob(os.path.join(arg, "*.t2b"))) if not k.endswith(".buffer.t2b")]
        else:
            kernels.append((arg, rollout))
    check(kernels, f"no kernels in {sys.argv[2:]}")
    failures = 0
    total_reuse = {}
    sample = legend_sample = None
    with tempfile.TemporaryDirectory() as tmp:
        svg_path = os.path.join(tmp, "map.svg")
        for kernel, extra in kernels:
            try:
                expected, lifetimes = {}, {}
                with open(kernel, encoding="utf-8") as fh:
                    pre_planned = re.search(r"tile\.alloc\([^)]*addr =", fh.read()) is not None
                for p in PLANNERS:
                    planned = run([t2b_opt, *extra, f"--planner={p}", "--stop-after=plan", kernel]).stdout
                    expected[p] = planned_allocations(planned)
                    lifetimes = straight_line_lifetimes(planned)
                    sources = source_ops(planned)
                    plain = run([t2b_opt, *extra, f"--planner={p}", kernel]).stdout
                    with_map = run([t2b_opt, *extra, f"--planner={p}", f"--memory-map={svg_path}", kernel]).stdout
                    check(with_map == plain, f"{kernel} {p}: --memory-map changed the IR output")
                    root = ET.parse(svg_path).getroot()
                    for key, n in check_svg(root, [p], expected, lifetimes, sources).items():
                        total_reuse[(os.path.basename(kernel),) + key] = n
                    # Addresses that came with the input are said to have.
                    notes = [t.text for t in root.iter(SVG + "text") if t.get("class") == "note"]
                    said = any("addresses from the input" in (n or "") for n in notes)
                    # PTOAS drops the input's addresses (it assigns its own later): nothing to say then.
                    kept = pre_planned and any(a[3] is not None for v in expected[p].values() for a in v)
                    check(said == kept, f"{kernel} {p}: the plan {'keeps' if kept else 'has no'} addresses from the input, "
                          f"but the map {'does not say so' if not said else 'says it has'}")
                plain = run([t2b_opt, *extra, "--planner=pypto", kernel]).stdout
                with_map = run([t2b_opt, *extra, "--planner=all", f"--memory-map={svg_path}", kernel]).stdout
                check(with_map == plain, f"{kernel}: --planner=all changed the (default planner's) IR output")
                root = ET.parse(svg_path).getroot()
                check_svg(root, PLANNERS, expected, lifetimes, sources)
                if os.path.basename(kernel) == "memory_map_reuse.t2b":
                    sample = (root, expected, lifetimes, sources)
                if os.path.basename(kernel) == "02_unplanned_add_mul.t2b":
                    legend_sample = (root, expected, lifetimes, sources)
                print(f"ok: {os.path.basename(kernel)} "
                      + ", ".join(f"{p} {sum(len(v) for v in expected[p].values())} allocations" for p in PLANNERS)
                      + f"; lifetimes checked against the text in {sorted(lifetimes)}")
            except (Failure, ET.ParseError, StopIteration, TypeError, ValueError) as e:
                failures += 1
                print(f"FAIL: {kernel}: {e}", file=sys.stderr)

        # The kernels must exercise reuse, or the overlap rule above proved nothing.
        reused = [k for k, n in total_reuse.items() if n > 0]
        for want in [("memory_map_reuse.t2b", "pypto"), ("memory_map_reuse.t2b", "dsa_rp"),
                     ("02_unplanned_add_mul.t2b", "pypto")]:
            if not any(k[:2] == want for k in reused):
                failures += 1
                print(f"FAIL: no reuse drawn for {want[0]} under {want[1]}: the overlap check is vacuous there",
                      file=sys.stderr)
        print(f"ok: reuse drawn in {len(reused)} plot(s): "
              + ", ".join(f"{k[0]} {k[1]} @{k[2]} {k[3]} ({total_reuse[k]} pairs)" for k in reused))

        # Bad usage: clear message, usage exit code 2 for the command line, 1 for the file.
        sample_kernel = next(k for k, _ in kernels if os.path.basename(k).startswith("02_"))
        victim = os.path.join(tmp, "victim.t2b")  # a copy: a regression must not overwrite an example
        with open(sample_kernel, encoding="utf-8") as src, open(victim, "w", encoding="utf-8") as dst:
            dst.write(src.read())
        bad = [
            (["--planner=all", sample_kernel], 2, "--planner=all needs --memory-map"),
            (["--memory-map=-", sample_kernel], 2, "--memory-map needs a file name, not '-'"),
            (["--planner=best", "--memory-map", svg_path, sample_kernel], 2, "--planner must be pypto, dsa_rp, ptoas or"),
            ([f"--memory-map={os.path.join(tmp, 'no', 'such', 'dir.svg')}", sample_kernel], 1,
             "cannot write the memory map to"),
            # The kernel taken for the picture's path, or named twice: never overwritten.
            (["--memory-map", victim], 2, "which is not an SVG picture"),
            ([f"--memory-map={victim}", victim], 2, "refusing to overwrite it with the picture"),
        ]
        for args, rc, message in bad:
            proc = run([t2b_opt] + args, expect_rc=None)
            if proc.returncode != rc or message not in proc.stderr:
                failures += 1
                print(f"FAIL: t2b-opt {' '.join(args)}: exit {proc.returncode} (want {rc}), stderr {proc.stderr!r} "
                      f"(want {message!r})", file=sys.stderr)
            else:
                print(f"ok: t2b-opt {' '.join(args)} -> exit {rc}: {proc.stderr.splitlines()[0]}")

    # --planner=all when the addressed planners cannot place the program: their columns say why,
    # PTOAS's column is drawn; the IR output (pypto) fails as it does without the map.
    if overflow is not None:
        with tempfile.TemporaryDirectory() as tmp:
            svg_path = os.path.join(tmp, "map.svg")
            proc = run([t2b_opt, "--planner=all", f"--memory-map={svg_path}", overflow], expect_rc=None)
            try:
                reason = re.search(r"error: [\w-]+: (planner pypto cannot place.{20})", proc.stderr)
                check(proc.returncode == 1 and reason is not None,
                      f"--planner=all on {overflow}: exit {proc.returncode}, stderr {proc.stderr!r}")
                check(os.path.exists(svg_path), "--planner=all wrote no map when one planner failed")
                root = ET.parse(svg_path).getroot()
                cells = [g for g in root.iter(SVG + "g") if "cell" in g.get("class", "").split()]
                failed = {g.get("data-planner") for g in cells if g.get("data-failed") == "true"}
                check(failed == {"pypto", "dsa_rp"}, f"failed columns {sorted(failed)}, expected pypto and dsa_rp")
                for g in cells:
                    if g.get("data-failed") == "true":
                        words = " ".join(t.text or "" for t in g.iter(SVG + "text"))
                        check("could not plan" in words and reason.group(1).replace("pypto", g.get("data-planner"))[:30] in words,
                              f"the failed {g.get('data-planner')} column does not give the planner's reason: {words!r}")
                drawn = [g for g in cells if g.get("data-planner") == "ptoas"]
                check(drawn and all(g.get("data-failed") != "true" for g in drawn), "the ptoas column was not drawn")
                for g in drawn:
                    check_cell(g, "ptoas")
                print(f"ok: --planner=all on {os.path.basename(overflow)}: pypto and dsa_rp marked as failed, ptoas drawn")
            except (Failure, ET.ParseError, OSError) as e:
                failures += 1
                print(f"FAIL: {overflow}: {e}", file=sys.stderr)

    # The checker itself must fail on a wrong picture.
    if sample is None:
        print("FAIL: no correct SVG of memory_map_reuse.t2b to mutate", file=sys.stderr)
        return 1
    root, expected, lifetimes, sources = sample  # memory_map_reuse.t2b drawn with --planner=all
    for what, broken, words in mutations(root):
        try:
            check_svg(broken, PLANNERS, expected, lifetimes, sources)
        except Failure as e:
            if words in str(e):
                print(f"ok: the checker rejects {what}: {str(e).splitlines()[0]}")
                continue
            print(f"FAIL: the checker rejects {what}, but not for that reason: {e}", file=sys.stderr)
        else:
            print(f"FAIL: the checker accepted an SVG with {what}", file=sys.stderr)
        failures += 1

    # A small allocation named nowhere, on a kernel that has a legend.
    broken = legend_mutation(legend_sample[0]) if legend_sample else None
    if broken is None:
        failures += 1
        print("FAIL: 02_unplanned_add_mul.t2b drew no legend to mutate", file=sys.stderr)
    else:
        try:
            check_svg(broken, PLANNERS, *legend_sample[1:])
            failures += 1
            print("FAIL: the checker accepted an SVG with a small rectangle missing from the legend", file=sys.stderr)
        except Failure as e:
            ok = "named neither inside nor in the legend" in str(e)
            failures += 0 if ok else 1
            print(f"{'ok' if ok else 'FAIL'}: the checker rejects a small rectangle missing from the legend: {str(e).splitlines()[0]}")

    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
