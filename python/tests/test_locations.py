# SPDX-License-Identifier: Apache-2.0
"""Diagnostics about a program the builder made point at the Python line that wrote the op (the
first caller outside the package), not at the generated text (`<builder>:3:3`): parse, verify,
lowering, emission and run errors, `explain_selection` and `lower(strict=True)`, with the user's
line as the excerpt of `formatted`."""
import os
import sys

import numpy as np
import pytest

import tile2buffer as t2b
from tile2buffer import Scalar, Tensor, Tile

# What a stays-Tile reason adds where the extended rollout lowers the kernel (passes/pipeline_api.hpp).
HINT = 'the extended rollout lowers it (t2b-opt --rollout=extended; Python: rollout="extended")'

HERE = __file__


def line():
    """The line of the caller."""
    return sys._getframe(1).f_lineno


def located_here(d, at, text):
    assert (d.file, d.line) == (HERE, at), d
    assert d.column > 0
    assert d.formatted.startswith("%s:%d:%d: error: " % (HERE, at, d.column)), d.formatted
    assert text in d.formatted.splitlines()[1]  # the Python line is the excerpt
    assert "<builder>" not in d.formatted


def test_a_verify_error_points_at_the_python_line():
    b = t2b.Builder()
    k = b.kernel("k")
    A = k.param("A", Tensor((16, 32), "FP32"))
    Out = k.param("Out", Tensor((16, 32), "FP32"), direction="out")
    x = k.load(A, offsets=(0, 0), shape=(16, 32))
    y = k.add(x, x, type=Tile((16, 32), "INT32")); at = line()  # noqa: E702
    k.ret(k.store(y, offsets=(0, 0), tensor=Out))
    with pytest.raises(t2b.VerifyError) as e:
        b.build()
    d = e.value.diagnostics[0]
    assert "tile.add operands must have matching dtypes" in d.message
    located_here(d, at, "y = k.add(x, x, type=")
    assert str(e.value).startswith("%s:%d:" % (HERE, at))


def test_a_parse_error_points_at_the_python_line():
    b = t2b.Builder()
    o = b.orchestration("main")
    o.submit("not a name"); at = line()  # noqa: E702
    o.ret()
    with pytest.raises(t2b.ParseError) as e:
        b.build()
    located_here(e.value.diagnostics[0], at, 'o.submit("not a name")')


def row_max_kernel():
    b = t2b.Builder()
    k = b.kernel("peak"); header = line()  # noqa: E702
    A = k.param("A", Tensor((16, 32), "FP32"))
    Out = k.param("Out", Tensor((16, 1), "FP32"), direction="out")
    row = k.param("row", Scalar("INDEX"))
    x = k.load(A, offsets=(row, 0), shape=(16, 32)); load = line()  # noqa: E702
    m = k.row_max(x); reduce = line()  # noqa: E702
    k.ret(k.store(m, offsets=(0, 0), tensor=Out))
    return b.build(), header, load, reduce


def test_lowering_emission_selection_and_run_point_at_the_python_line():
    program, header, load, reduce = row_max_kernel()
    assert t2b.explain_selection(program) == {
        "peak": "%s:%d:9: tile.row_max: reductions remain Tile in the normal pipeline; %s" % (HERE, reduce, HINT)}
    with pytest.raises(t2b.LoweringError) as e:
        t2b.lower(program, strict=True)
    located_here(e.value.diagnostics[0], reduce, "m = k.row_max(x)")
    lowered = t2b.lower(program)  # the lowered program keeps the Python lines
    with pytest.raises(t2b.EmitError) as e:
        t2b.emit_pto(lowered, kernel="peak")
    located_here(e.value.diagnostics[0], header, 'k = b.kernel("peak")')
    a = np.zeros((16, 32), np.float32)
    with pytest.raises(t2b.RunError) as e:
        t2b.run(lowered, "peak", {"A": a}, {"row": 8})
    located_here(e.value.diagnostics[0], load, "x = k.load(A, offsets=(row, 0)")


def test_an_overflow_points_at_each_python_line_and_in_loops():
    b = t2b.Builder()
    k = b.kernel("big")
    A = k.param("A", Tensor((256, 256), "FP32"))
    Out = k.param("Out", Tensor((256, 256), "FP32"), direction="out")
    x = k.load(A, offsets=(0, 0), shape=(256, 256)); load = line()  # noqa: E702
    with k.for_(0, 4, 1, acc=x) as loop:
        acc, = loop.args
        loop.yield_(k.adds(acc, scalar=1.0)); adds = line()  # noqa: E702
    k.ret(k.store(loop.results[0], offsets=(0, 0), tensor=Out))
    with pytest.raises(t2b.LoweringError) as e:
        t2b.lower(b.build(), planner="pypto")
    # One error per overflowing space (issue 56 item 4): the later allocation is a note on it.
    assert [d.line for d in e.value.diagnostics] == [load]
    assert all(d.file == HERE for d in e.value.diagnostics)
    assert "%s:%d:" % (HERE, adds) in e.value.diagnostics[0].formatted


def test_every_text_line_has_the_python_line_that_wrote_it():
    b = t2b.Builder()
    k = b.kernel("k"); head = line()  # noqa: E702
    n = k.param("n", Scalar("INDEX"))
    with k.if_(n < 4) as br: cond = line()  # noqa: E701,E702
    with br.else_(): other = line()  # noqa: E701,E702
    k.ret(); end = line()  # noqa: E702
    sites = b.sites()
    assert len(sites) == len(b.text().splitlines())
    assert [s.line for s in sites] == [head, cond, cond, other, other, end, head]
    assert {s.file for s in sites} == {HERE}


def test_notes_move_to_the_python_lines_too():
    # A program whose text line n was written by line n of this file: the emitter's error and
    # its note ("'a' is addressed here") both name this file.
    path = os.path.join(os.environ["T2B_GOLDEN_DIR"], "emit", "preflight", "mixed_levels-invalid.t2b")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    program = t2b._parse_built(text, "<builder>", [t2b.Site(HERE, n) for n in range(1, text.count("\n") + 1)])
    with pytest.raises(t2b.EmitError) as e:
        t2b.emit_pto(program)
    d = e.value.diagnostics[0]
    b_alloc = text[:text.index("  b = buffer.alloc")].count("\n") + 1
    assert (d.file, d.line) == (HERE, b_alloc)
    assert "<builder>" not in d.formatted
    assert "\n%s:%d:0: note: 'a' (@mixed) is addressed here\n" % (HERE, b_alloc - 1) in d.formatted
