# SPDX-License-Identifier: Apache-2.0
"""`tile2buffer.run` against NumPy: every example kernel, as written (Tile IR, or the Buffer IR of
the `.buffer.t2b` twins) and lowered under each planner, runs on random arrays and must give what
the NumPy formula written here gives; and every argument mistake is a ValueError naming the
parameter. The formulas are written from the kernels' text, not from the simulator."""
import glob
import os
import warnings

import pytest

import tile2buffer as t2b

# What a stays-Tile reason adds where the extended rollout lowers the kernel (passes/pipeline_api.hpp).
HINT = 'the extended rollout lowers it (t2b-opt --rollout=extended; Python: rollout="extended")'

np = pytest.importorskip("numpy")  # Debian's python3-numpy; the rest of the package does not need it

EXAMPLES = os.environ["T2B_EXAMPLES_DIR"]
UNWRITTEN = np.float32(-555)  # what the simulator leaves in an out tensor's never-written elements


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def rng(seed=7):
    return np.random.default_rng(seed)


def f32(shape, seed):
    return rng(seed).standard_normal(shape).astype(np.float32)


def unwritten(shape, dtype=np.float32):
    return np.full(shape, -555, dtype=dtype)


# Each case: (file, function, inputs, scalars, grid, expected outputs, exact). `exact` False only
# where the kernel sums in an order NumPy's BLAS does not (FP32 matmul accumulation).
def cases():
    a, b = f32((16, 32), 1), f32((16, 32), 2)
    out = []
    out.append(("01_representation.t2b", "add", {"A": a, "B": b}, {}, 1, {"Out": a + b}, True))
    out.append(("01_representation.buffer.t2b", "add", {"A": a, "B": b}, {}, 1, {"Out": a + b}, True))
    out.append(("02_unplanned_add_mul.t2b", "add_mul", {"A": a, "B": b}, {}, 1, {"Out": (a + b) * b}, True))
    out.append(("02_unplanned_add_mul.t2b", "row_max", {"A": a}, {}, 1, {"Out": a.max(axis=1, keepdims=True)}, True))
    out.append(("02_unplanned_add_mul.t2b", "main", {"A": a, "B": b}, {}, 1,
                {"Out": (a + b) * b, "Peak": ((a + b) * b).max(axis=1, keepdims=True)}, True))
    big, half = f32((32, 32), 3), f32((16, 32), 4)
    for f in ("03_storage_views.t2b", "03_storage_views.buffer.t2b"):
        out.append((f, "views", {"A": big, "B": half}, {}, 1, {"Out": big, "Out2": half + half}, True))
    x, c = f32((64, 64), 5), f32((32, 32), 6)
    placed = c.copy()
    placed[16:32, :] = x[20:36, 32:64] + x[20:36, 32:64]
    out.append(("04_windows.t2b", "windows", {"X": x, "C": c}, {"row": 20}, 1, {"Out": placed}, True))
    wide = f32((16, 64), 7)
    partial = unwritten((16, 64))
    partial[:, :40] = wide[:, :40] + wide[:, :40]
    out.append(("05_runtime_valid.t2b", "runtime_valid", {"X": wide}, {"cols": 40}, 1, {"Out": partial}, True))
    h_a = rng(8).standard_normal((64, 64)).astype(np.float16)
    h_b = rng(9).standard_normal((64, 64)).astype(np.float16)
    product = h_a.astype(np.float32) @ h_b.astype(np.float32)
    out.append(("06_cube.t2b", "matmul_twice", {"A": h_a, "B": h_b}, {}, 1, {"Out": product + product}, False))
    for flag in (True, False):
        dest = unwritten((32, 64))
        if flag:
            dest[16:32, 0:32] = a * b
        else:
            dest[0:16, 0:32] = a
        out.append(("07_branch.t2b", "branch", {"A": a, "B": b}, {"flag": flag}, 1, {"Out": dest}, True))
    for count in (0, 3, 4):
        dest = unwritten((64, 64))
        dest[count:count + 16, 2 * count:2 * count + 32] = a if count % 2 == 0 else b
        out.append(("08_loop_swap.t2b", "swap_loop", {"A": a, "B": b}, {"count": count}, 1, {"Out": dest}, True))
    counted = a
    for _ in range(5):  # one rounding per iteration, as the loop adds
        counted = counted + np.float32(1)
    out.append(("08_loop_swap.t2b", "count_up", {"A": a}, {"limit": 5}, 1, {"Out": counted}, True))
    blocks = f32((16, 256), 10)
    out.append(("09_spmd_alignment.t2b", "per_block", {"X": blocks}, {}, 32, {"Out": blocks * np.float32(2)}, True))
    i_a = rng(11).integers(-128, 128, (32, 128), dtype=np.int8)
    i_b = rng(12).integers(-128, 128, (128, 32), dtype=np.int8)
    out.append(("10_k_loop.t2b", "k_loop", {"A": i_a, "B": i_b}, {}, 1,
                {"Out": i_a.astype(np.int32) @ i_b.astype(np.int32)}, True))
    return out


CASES = cases()
STAGES = ["as-written"] + ["lowered-" + p for p in t2b.PLANNERS]


def test_every_example_has_a_case():
    files = {os.path.basename(p) for p in glob.glob(os.path.join(EXAMPLES, "*.t2b"))}
    assert files == {case[0] for case in CASES}


def case_id(case):
    return "%s@%s%s" % (case[0].replace(".t2b", ""), case[1], "".join("-%s=%s" % kv for kv in case[3].items()))


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_run_matches_numpy(case, stage):
    path, kernel, inputs, scalars, grid, expected, exact = case
    program = t2b.parse(read(os.path.join(EXAMPLES, path)), path)
    if stage != "as-written":
        program = t2b.lower(program, planner=stage[len("lowered-"):])
    before = {k: v.copy() for k, v in inputs.items()}
    partial = any((want == UNWRITTEN).any() for want in expected.values() if want.dtype == np.float32)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", t2b.SimulationWarning)
        outputs = t2b.run(program, kernel, inputs, scalars, grid=grid)
    # A kernel that writes part of an out tensor says so (the -555 above); nothing else warns.
    notes = [str(w.message) for w in seen if issubclass(w.category, t2b.SimulationWarning)]
    assert all("were never written; they hold -555" in n for n in notes), notes
    assert bool(notes) == partial, notes
    assert set(outputs) == set(expected)
    for name, want in expected.items():
        got = outputs[name]
        assert got.dtype == want.dtype and got.shape == want.shape, name
        if exact:
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=name)
    for k, v in inputs.items():
        np.testing.assert_array_equal(v, before[k], err_msg="run changed input " + k)


def test_bf16_travels_as_uint16_bit_patterns():
    text = ("aiv @copy(A: Tensor[[16, 16], BF16], Out: out Tensor[[16, 16], BF16]) -> Tensor[[16, 16], BF16] {\n"
            "  x = tile.load(A, (0, 0), (16, 16)) : Tile[[16, 16], BF16, Vec]\n"
            "  r = tile.store(x, (0, 0), Out) : Tensor[[16, 16], BF16]\n"
            "  return r\n}\n")
    bits = (f32((16, 16), 13).view(np.uint32) >> 16).astype(np.uint16)
    for program in (t2b.parse(text), t2b.lower(t2b.parse(text))):
        out = t2b.run(program, "copy", {"A": bits})["Out"]
        assert out.dtype == np.uint16
        np.testing.assert_array_equal(out, bits)
    with pytest.raises(ValueError, match=r"inputs\['A'\]: dtype mismatch: the array holds '<f4', parameter A is BF16 \('<u2', BF16 bit patterns\)"):
        t2b.run(t2b.parse(text), "copy", {"A": bits.astype(np.float32)})


@pytest.fixture(name="windows")
def windows_program():
    return t2b.parse(read(os.path.join(EXAMPLES, "04_windows.t2b")), "04_windows.t2b")


def test_wrong_arguments_name_the_parameter(windows):
    x, c = f32((64, 64), 1), f32((32, 32), 2)
    bad = [
        (dict(inputs={"X": x}, scalars={"row": 0}), r"run\(@windows\): no array in inputs for tensor parameter C \(in\)"),
        (dict(inputs={"X": x, "C": c}), r"no value in scalars for scalar parameter row \(INDEX\)"),
        (dict(inputs={"X": x, "C": c, "D": c}, scalars={"row": 0}), r"inputs\['D'\]: @windows has no parameter 'D'"),
        (dict(inputs={"X": x, "C": c, "Out": c}, scalars={"row": 0}), r"inputs\['Out'\]: 'Out' is an out parameter"),
        (dict(inputs={"X": x, "C": c, "row": c}, scalars={"row": 0}), r"inputs\['row'\]: 'row' is a scalar parameter of @windows; pass it in scalars"),
        (dict(inputs={"X": x, "C": c}, scalars={"row": 0, "col": 1}), r"scalars\['col'\]: @windows has no scalar parameter 'col'"),
        (dict(inputs={"X": x, "C": c}, scalars={"row": 2.5}), r"scalars\['row'\] = 2.5: row is an INDEX parameter of @windows and takes an integer"),
        (dict(inputs={"X": x.T[:32], "C": c}, scalars={"row": 0}), r"inputs\['X'\]: shape mismatch: the array holds \(32, 64\), parameter X is \(64, 64\)"),
        (dict(inputs={"X": x.astype(np.float16), "C": c}, scalars={"row": 0}), r"inputs\['X'\]: dtype mismatch: the array holds '<f2', parameter X is FP32 \('<f4'\)"),
        (dict(inputs={"X": x.reshape(-1), "C": c}, scalars={"row": 0}), r"inputs\['X'\]: shape mismatch: the array holds \(4096,\)"),
    ]
    for kwargs, message in bad:
        with pytest.raises(ValueError, match=message):
            t2b.run(windows, "windows", **kwargs)
    with pytest.raises(ValueError, match=r"run: no function @nope in the program; its functions: @windows"):
        t2b.run(windows, "nope", {})
    with pytest.raises(ValueError, match="grid must be an int from 1 to 65535"):
        t2b.run(windows, "windows", {"X": x, "C": c}, {"row": 0}, grid=0)
    with pytest.raises(TypeError, match=r"inputs\['X'\] must be a numpy.ndarray"):
        t2b.run(windows, "windows", {"X": x.tolist(), "C": c}, {"row": 0})


def test_a_transposed_view_runs_as_its_values(windows):
    # A non-contiguous array is passed by value (row-major), not by its memory layout.
    x, c = f32((64, 64), 1), f32((32, 32), 2)
    got = t2b.run(windows, "windows", {"X": np.ascontiguousarray(x.T).T, "C": c}, {"row": 0})["Out"]
    want = t2b.run(windows, "windows", {"X": x, "C": c}, {"row": 0})["Out"]
    np.testing.assert_array_equal(got, want)


def test_a_simulation_that_stops_is_a_run_error(windows):
    # row = 60 puts the 16-row window past the 64 rows of X: the simulator stops at the slice.
    x, c = f32((64, 64), 1), f32((32, 32), 2)
    with pytest.raises(t2b.RunError) as info:
        t2b.run(windows, "windows", {"X": x, "C": c}, {"row": 60})
    d = info.value.diagnostics[0]
    assert d.line > 0 and d.file == "04_windows.t2b"


def test_partial_writes_warn():
    program = t2b.parse(read(os.path.join(EXAMPLES, "09_spmd_alignment.t2b")))
    with pytest.warns(t2b.SimulationWarning, match=r"were never written; they hold -555 \(only block 0 ran: grid=N"):
        out = t2b.run(program, "per_block", {"X": f32((16, 256), 3)})
    assert (out["Out"][:, 8:] == UNWRITTEN).all()


def test_two_threads_run_at_once_with_the_same_output():
    # run releases the GIL while it simulates (as lower does); both threads must still see only
    # their own arrays.
    import threading
    program = t2b.lower(t2b.parse(read(os.path.join(EXAMPLES, "06_cube.t2b")), "06_cube.t2b"), planner="dsa_rp")
    inputs = [{"A": rng(20 + i).standard_normal((64, 64)).astype(np.float16),
               "B": rng(30 + i).standard_normal((64, 64)).astype(np.float16)} for i in range(2)]
    expected = [t2b.run(program, "matmul_twice", x)["Out"] for x in inputs]
    results = [[], []]

    def work(slot):
        for _ in range(3):
            results[slot].append(t2b.run(program, "matmul_twice", inputs[slot])["Out"])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for slot in range(2):
        assert len(results[slot]) == 3
        for got in results[slot]:
            np.testing.assert_array_equal(got, expected[slot])
    assert not np.array_equal(expected[0], expected[1])


def test_inout_tensors_keep_their_input_where_the_kernel_does_not_write():
    b = t2b.Builder()
    k = b.kernel("bump")
    X = k.param("X", t2b.Tensor((32, 32), "FP32"), direction="inout")
    top = k.load(X, (0, 0), (16, 32))
    k.ret(k.store(k.adds(top, scalar=1.0), (0, 0), X))
    program = b.build()
    x = f32((32, 32), 40)
    want = x.copy()
    want[:16] += np.float32(1)
    for p in (program, t2b.lower(program, planner="pypto")):
        out = t2b.run(p, "bump", {"X": x})
        assert list(out) == ["X"]
        np.testing.assert_array_equal(out["X"], want)


def test_never_written_storage_read_is_a_poison_warning():
    b = t2b.Builder()
    k = b.kernel("garbage")
    Out = k.param("Out", t2b.Tensor((16, 32), "FP32"), direction="out")
    junk = k.create(type=t2b.Tile((16, 32), "FP32"))
    k.ret(k.store(k.adds(junk, scalar=1.0), (0, 0), Out))
    with pytest.warns(t2b.SimulationWarning, match=r"512 elements of Out derive from never-written storage \(poison\)"):
        t2b.run(b.build(), "garbage", {})


def test_an_invalid_program_is_a_verify_error_before_any_run():
    text = ("aiv @k(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {\n"
            "  x = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]\n"
            "  y = tile.add(x, x) : Tile[[16, 32], INT32, Vec]\n"
            "  r = tile.store(y, (0, 0), Out) : Tensor[[16, 32], FP32]\n"
            "  return r\n}\n")
    with pytest.raises(t2b.VerifyError, match="tile.add operands must have matching dtypes"):
        t2b.run(t2b.parse(text), "k", {"A": f32((16, 32), 1)})


def test_scalars_are_typed_against_their_parameter(windows):
    x, c = f32((64, 64), 1), f32((32, 32), 2)
    want = t2b.run(windows, "windows", {"X": x, "C": c}, {"row": 8})["Out"]
    np.testing.assert_array_equal(t2b.run(windows, "windows", {"X": x, "C": c}, {"row": np.int64(8)})["Out"], want)
    for bad in (np.array(8.5), 8.0, True):
        with pytest.raises((ValueError, TypeError)):
            t2b.run(windows, "windows", {"X": x, "C": c}, {"row": bad})


def test_row_reductions_from_the_builder_lower_when_extended_and_run_as_numpy():
    b = t2b.Builder()
    k = b.kernel("rows")
    A = k.param("A", t2b.Tensor((16, 32), "FP32"))
    # One column: a column vector is stored into a contiguous GM column (a one-column tensor,
    # written as a DN view), never into a column of a wider tensor.
    outs = [k.param(n, t2b.Tensor((16, 1), "FP32"), direction="out") for n in ("Max", "Min")]
    x = k.load(A, (0, 0), (16, 32))
    k.ret(k.store(k.row_max(x), (0, 0), outs[0]), k.store(k.row_min(x), (0, 0), outs[1]))
    program = b.build()
    assert t2b.explain_selection(program)["rows"].endswith("reductions remain Tile in the normal pipeline; " + HINT)
    assert t2b.explain_selection(program, rollout="extended")["rows"] == "selected"
    a = f32((16, 32), 50)
    for rollout in ("default", "extended"):
        got = t2b.run(t2b.lower(program, rollout=rollout), "rows", {"A": a})
        np.testing.assert_array_equal(got["Max"][:, :1], a.max(axis=1, keepdims=True))
        np.testing.assert_array_equal(got["Min"][:, :1], a.min(axis=1, keepdims=True))


def test_extended_ops_from_the_builder_infer_their_types_and_run_as_numpy():
    # Softmax over the rows, the column sums and an FP16 cast of the result, built op by op: the
    # fused broadcasts keep their source's type, col_sum gives a [1, C] row, cast changes the dtype.
    b = t2b.Builder()
    k = b.kernel("ext")
    X = k.param("X", t2b.Tensor((16, 64), "FP32"))
    Y = k.param("Y", t2b.Tensor((16, 64), "FP16"), direction="out")
    C = k.param("C", t2b.Tensor((1, 64), "FP32"), direction="out")
    x = k.load(X, (0, 0), (16, 64))
    e = k.exp(k.row_expand_sub(x, k.row_max(x)))
    y = k.row_expand_div(e, k.row_sum(e))
    c = k.col_sum(y)
    h = k.cast(y, "FP16", mode=1)
    assert (c.type.shape, h.type.dtype) == ((1, 64), "FP16")
    k.ret(k.store(h, (0, 0), Y), k.store(c, (0, 0), C))
    program = b.build()
    assert t2b.explain_selection(program)["ext"].endswith("reductions remain Tile in the normal pipeline; " + HINT)
    assert t2b.explain_selection(program, rollout="extended")["ext"] == "selected"
    a = f32((16, 64), 51)
    v = a.astype(np.float64)
    ez = np.exp(v - v.max(1, keepdims=True))
    want = ez / ez.sum(1, keepdims=True)
    for rollout in ("default", "extended"):
        got = t2b.run(t2b.lower(program, rollout=rollout), "ext", {"X": a})
        np.testing.assert_allclose(got["Y"].astype(np.float64), want, rtol=2.0 ** -10, atol=1e-5)
        np.testing.assert_allclose(got["C"], want.sum(0, keepdims=True), rtol=1e-4, atol=1e-5)
