# SPDX-License-Identifier: Apache-2.0
"""The kernel builder writes the example kernels again, operand by operand, and must produce the
same program as their text (the same canonical print); its mistakes are TypeErrors that name the
op and operand. Operand names come from the op records, not from this package."""
import os

import pytest

import tile2buffer as t2b
from tile2buffer import Scalar, Tensor, Tile

EXAMPLES = os.environ["T2B_EXAMPLES_DIR"]
F32 = "FP32"


def example(name):
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        return str(t2b.parse(f.read(), name))


def t16x32():
    return Tensor((16, 32), F32)


def test_add_mul_row_max_and_their_orchestration():
    b = t2b.Builder()
    k = b.kernel("add_mul", "aiv")
    A, B = k.param("A", t16x32()), k.param("B", t16x32())
    Out = k.param("Out", t16x32(), direction="out")
    lhs = k.load(A, offsets=(0, 0), shape=(16, 32), name="lhs")
    rhs = k.load(B, (0, 0), (16, 32), name="rhs")
    total = k.add(lhs, rhs, name="total")
    product = k.mul(total, rhs, name="product")
    k.ret(k.store(product, offsets=(0, 0), tensor=Out, name="result"))

    r = b.kernel("row_max")
    A2 = r.param("A", t16x32())
    Out2 = r.param("Out", Tensor((16, 1), F32), direction="out")
    x = r.load(A2, offsets=(0, 0), shape=(16, 32), name="x")
    m = r.row_max(x, name="m")
    r.ret(r.store(m, offsets=(0, 0), tensor=Out2, name="result"))

    o = b.orchestration("main")
    oA, oB = o.param("A", t16x32()), o.param("B", t16x32())
    oOut = o.param("Out", t16x32(), direction="out")
    peak = o.param("Peak", Tensor((16, 1), F32), direction="out")
    t0 = o.submit("add_mul", oA, oB, oOut, name="t0")
    o.submit("row_max", oOut, peak, deps=[t0], name="t1")
    o.ret()
    assert str(b.build()) == example("02_unplanned_add_mul.t2b")


def test_storage_clauses_and_allocations():
    b = t2b.Builder()
    k = b.kernel("views")
    A = k.param("A", Tensor((32, 32), F32))
    B = k.param("B", t16x32())
    Out = k.param("Out", Tensor((32, 32), F32), direction="out")
    Out2 = k.param("Out2", t16x32(), direction="out")
    m = k.alloc("Vec", 4096, addr=8192, name="m")
    m_sum = k.alloc(space="Vec", capacity=2048, addr=0, name="m_sum")
    whole = k.load(A, (0, 0), (32, 32), storage=m, name="whole")
    r0 = k.store(whole, (0, 0), Out, name="r0")
    part = k.load(B, (0, 0), (16, 32), storage=m, offset=64, name="part")
    doubled = k.add(part, part, storage=m_sum, name="doubled")
    k.ret(r0, k.store(doubled, (0, 0), Out2, name="r1"))
    assert str(b.build()) == example("03_storage_views.t2b")


def test_windows_and_runtime_valid_extents():
    b = t2b.Builder()
    k = b.kernel("windows")
    X = k.param("X", Tensor((64, 64), F32))
    C = k.param("C", Tensor((32, 32), F32))
    Out = k.param("Out", Tensor((32, 32), F32), direction="out")
    row = k.param("row", Scalar("INDEX"))
    whole = k.load(X, (0, 0), (64, 64), name="whole")
    canvas = k.load(C, (0, 0), (32, 32), name="canvas")
    window = k.slice(whole, shape=(16, 32), offsets=(row, 32), name="window")
    doubled = k.add(window, window, name="doubled")
    placed = k.assemble(canvas, doubled, offsets=(16, 0), name="placed")
    k.ret(k.store(placed, (0, 0), Out, name="result"))

    v = b.kernel("runtime_valid")
    X2 = v.param("X", Tensor((16, 64), F32))
    Out2 = v.param("Out", Tensor((16, 64), F32), direction="out")
    cols = v.param("cols", Scalar("INDEX"))
    loaded = v.load(X2, (0, 0), (16, 64), valid=(16, cols), name="loaded")
    doubled2 = v.add(loaded, loaded, name="doubled")
    v.ret(v.store(doubled2, (0, 0), Out2, name="result"))
    first, second = str(b.build()).split("\n\n")
    assert first + "\n" == example("04_windows.t2b")
    assert second == example("05_runtime_valid.t2b")


def test_cube_with_keywords_and_a_k_loop():
    b = t2b.Builder()
    k = b.kernel("k_loop", "aic")
    A = k.param("A", Tensor((32, 128), "INT8"))
    B = k.param("B", Tensor((128, 32), "INT8"))
    Out = k.param("Out", Tensor((32, 32), "INT32"), direction="out")
    zero = k.create(type=Tile((32, 32), "INT32", "Acc"), name="zero")
    with k.for_(0, 4, 1, index="k", names=["acc"], c=zero) as loop:
        c, = loop.args
        off = k.named(loop.index * 32, "off")
        first = k.eq(loop.index, 0, name="first")
        a = k.load(A, (0, off), (32, 32), type=Tile((32, 32), "INT8", "Mat"), name="a")
        bb = k.load(B, (off, 0), (32, 32), type=Tile((32, 32), "INT8", "Mat"), name="b")
        a_l0 = k.move(a, type=Tile((32, 32), "INT8", "Left"), name="a_l0")
        b_l0 = k.move(bb, type=Tile((32, 32), "INT8", "Right"), name="b_l0")
        loop.yield_(k.matmul_acc(c, a_l0, b_l0, init_cond=first, name="next"))
    acc, = loop.results
    k.ret(k.store(acc, (0, 0), Out, name="result"))
    assert str(b.build()) == example("10_k_loop.t2b")


def test_if_for_and_while_regions():
    b = t2b.Builder()
    k = b.kernel("branch")
    A, B = k.param("A", t16x32()), k.param("B", t16x32())
    Out = k.param("Out", Tensor((32, 64), F32), direction="out")
    flag = k.param("flag", Scalar("BOOL"))
    a = k.load(A, (0, 0), (16, 32), name="a")
    bb = k.load(B, (0, 0), (16, 32), name="b")
    with k.if_(flag, names=["chosen", "offset"]) as br:
        br.yield_(k.mul(a, bb, name="product"), 16)
    with br.else_():
        br.yield_(a, 0)
    chosen, offset = br.results
    k.ret(k.store(chosen, (offset, 0), Out, name="result"))
    assert str(b.build()) == example("07_branch.t2b")

    b = t2b.Builder()
    s = b.kernel("swap_loop")
    A, B = s.param("A", t16x32()), s.param("B", t16x32())
    Out = s.param("Out", Tensor((64, 64), F32), direction="out")
    count = s.param("count", Scalar("INDEX"))
    a = s.load(A, (0, 0), (16, 32), name="a")
    bb = s.load(B, (0, 0), (16, 32), name="b")
    with s.for_(0, count, 1, names=["left_out", "row_out", "right_out", "column_out"],
                left=a, row=0, right=bb, column=0) as loop:
        left, row, right, column = loop.args
        row_next = s.named(row + 1, "row_next")
        column_next = s.named(column + 2, "column_next")
        loop.yield_(right, row_next, left, column_next)
    left_out, row_out, _, column_out = loop.results
    s.ret(s.store(left_out, (row_out, column_out), Out, name="result"))

    c = b.kernel("count_up")
    A2 = c.param("A", t16x32())
    Out2 = c.param("Out", t16x32(), direction="out")
    limit = c.param("limit", Scalar("INDEX"))
    a2 = c.load(A2, (0, 0), (16, 32), name="a")
    with c.while_(lambda acc, kk: kk < limit, names=["acc_out", "k_out"], acc=a2, k=0) as loop:
        acc, kk = loop.args
        loop.yield_(c.adds(acc, scalar=1.0, name="acc_next"), c.named(kk + 1, "k_next"))
    c.ret(c.store(loop.results[0], (0, 0), Out2, name="result"))
    assert str(b.build()) == example("08_loop_swap.t2b")


def test_spmd_queries_and_scalar_arithmetic():
    b = t2b.Builder()
    k = b.kernel("per_block")
    X = k.param("X", Tensor((16, 256), F32))
    Out = k.param("Out", Tensor((16, 256), F32), direction="out")
    block = k.get_block_idx(name="block")
    column = k.named(block * 8, "column")
    x = k.load(X, (0, 0), (16, 256), name="x")
    part = k.slice(x, (16, 8), (0, column), name="part")
    scaled = k.muls(part, 2.0, name="scaled")
    k.ret(k.store(scaled, (0, column), Out, name="result"))
    assert str(b.build()) == example("09_spmd_alignment.t2b")


def test_the_builders_text_runs_like_the_file():
    b = t2b.Builder()
    k = b.kernel("add")
    A, B = k.param("A", t16x32()), k.param("B", t16x32())
    Out = k.param("Out", t16x32(), direction="out")
    k.ret(k.store(k.add(k.load(A, (0, 0), (16, 32)), k.load(B, (0, 0), (16, 32))), (0, 0), Out))
    assert "v0 = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]" in b.text()
    assert t2b.explain_selection(b.build()) == {"add": "selected"}


def test_mistakes_name_the_op_and_operand():
    b = t2b.Builder()
    k = b.kernel("bad")
    A = k.param("A", t16x32())
    x = k.load(A, (0, 0), (16, 32))
    with pytest.raises(TypeError, match=r"tile.load needs operand 'shape'"):
        k.load(A, offsets=(0, 0))
    with pytest.raises(TypeError, match=r"tile.load has no operand or keyword 'shap'; did you mean 'shape'\? \(operands: tensor, offsets, shape, valid; keywords: cache\)"):
        k.load(A, offsets=(0, 0), shap=(16, 32))
    with pytest.raises(TypeError, match=r"tile.load: operand 'offsets' given twice"):
        k.load(A, (0, 0), offsets=(0, 0), shape=(16, 32))
    with pytest.raises(TypeError, match=r"tile.load operand 'offsets' takes a pair"):
        k.load(A, (0, 0, 0), (16, 32))
    with pytest.raises(TypeError, match=r"tile.add operand 'rhs' takes a value, not 1"):
        k.add(x, 1)
    with pytest.raises(TypeError, match=r"tile.move: give the result type"):
        k.move(x)
    with pytest.raises(AttributeError, match=r"no op 'frobnicate'"):
        k.frobnicate(x)
    with pytest.raises(TypeError, match=r"tile.add takes 2 operands \(lhs, rhs\), not 3"):
        k.add(x, x, x)
    with pytest.raises(TypeError, match="has no return yet"):
        b.text()


def test_scalar_ops_through_op_are_written_as_the_text_format_writes_them():
    b = t2b.Builder()
    k = b.kernel("flags")
    A = k.param("A", t16x32())
    Out = k.param("Out", t16x32(), direction="out")
    n = k.param("n", Scalar("INDEX"))
    p = k.param("p", Scalar("BOOL"))
    big = k.op("scalar.gt", n, 4, name="big")
    both = k.op("scalar.and", big, p, name="both")
    neither = k.op("not", both, name="neither")
    wide = k.op("max", n, 8, name="wide")
    sixteen = k.op("scalar.const", 16, type=Scalar("INDEX"), name="sixteen")
    x = k.load(A, (0, 0), (16, 32), name="x")
    with k.if_(neither) as br:   # an if without results and without else
        k.adds(x, scalar=1.0, name="unused")
    r = k.store(x, (0, 0), Out, name="r")
    k.ret(r)
    text = b.text()
    for line in ("big = n > 4", "both = big and p", "neither = not both", "wide = max(n, 8)",
                 "sixteen = 16 : INDEX", "if neither {"):
        assert line in text, line
    assert "else" not in text
    program = b.build()
    assert [f.name for f in program.functions] == ["flags"]
    assert both.type == Scalar("BOOL") and wide.type == Scalar("INDEX") and sixteen.type == Scalar("INDEX")
    assert br.results == []


def test_builder_refuses_what_would_build_the_wrong_kernel():
    b = t2b.Builder()
    k = b.kernel("oops")
    n = k.param("n", Scalar("INDEX"))
    with pytest.raises(TypeError, match="no truth value"):
        if n < 4:  # a Python branch on a kernel value
            pass
    with pytest.raises(TypeError, match=r"the literal 0.5 has no one type; give types="):
        k.for_(0, n, 1, acc=0.5)
    with pytest.raises(TypeError, match=r"scalar.const: give the constant's type"):
        k.op("scalar.const", 3)
    with pytest.raises(TypeError, match="iteration value 'x' given twice"):
        k.for_(0, n, 1, iter={"x": 0}, x=1)
    loop = k.for_(0, n, 1, iter={"step": 0, "types": 1})   # names the method's own keywords use
    assert [a.name for a in loop.args] == ["step", "types"]
    assert [t.dtype for t in loop.types] == ["INDEX", "INDEX"]


def test_misspelled_methods_and_keywords_get_a_suggestion():
    b = t2b.Builder()
    k = b.kernel("typos")
    A = k.param("A", t16x32())
    x = k.load(A, (0, 0), (16, 32))
    with pytest.raises(AttributeError, match=r"no op 'rowmax'; did you mean 'row_max'\?"):
        k.rowmax(x)
    with pytest.raises(AttributeError, match=r"no op 'tile.rowmax' in the catalogue; did you mean 'tile.row_max'\?"):
        k.op("tile.rowmax", x)
    # offset= places a result in storage=; without it, it is the misspelled offsets=.
    with pytest.raises(TypeError, match=r"tile.load: offset= is the byte offset in storage=, which is not given; "
                                        r"did you mean 'offsets'\?"):
        k.load(A, offset=(0, 0), shape=(16, 32))
    with pytest.raises(TypeError, match=r"tile.load has no operand or keyword 'shap'; did you mean 'shape'\?"):
        k.load(A, offsets=(0, 0), shap=(16, 32))
    with pytest.raises(AttributeError, match=r"no op 'frobnicate' \("):  # nothing close: no guess
        k.frobnicate(x)
    with pytest.raises(TypeError, match=r"iteration value 'nmes' takes a value or a literal, not list; "
                                        r"did you mean 'names'\?"):
        k.for_(0, 4, 1, nmes=["acc"], acc=x)


def test_an_unknown_dtype_or_space_is_refused_where_the_type_is_written():
    with pytest.raises(ValueError, match=r"unknown dtype 'F32'; did you mean 'FP32'\?"):
        t2b.Tensor((16, 32), "F32")
    with pytest.raises(ValueError, match=r"unknown memory space 'vec'; did you mean 'Vec'\?"):
        t2b.Tile((16, 32), "FP32", "vec")
    with pytest.raises(ValueError, match=r"unknown dtype 'index'; did you mean 'INDEX'\?"):
        t2b.Scalar("index")
    assert t2b.Tile((16, 32), "FP16", "Mat").space == "Mat"
