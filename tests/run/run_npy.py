#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`t2b-opt --run` against NumPy: builds inputs in NumPy, runs each kernel in the reference simulator
as written (Tile IR) and lowered (--lower, --planner ptoas, --planner dsa_rp), and compares every
output with a NumPy computation written here, independently of the simulator. Then every error of
the .npy reader and of the --run driver: one clear `t2b-opt: ...` line and exit 1 (command-line
misuse: exit 2), and mutated/truncated .npy files never crash t2b-opt.

usage: run_npy.py T2B_OPT SOURCE_ROOT [--perturb]
  --perturb  nudge one element of every expected output past its tolerance (one ulp beyond it for
             floats, +1 for integers); then every comparison must report the difference, and the
             script fails if one does not (meson test run-npy-detects-a-difference).
Exits 77 (skipped) when no Python with NumPy is available (Debian: python3-numpy).

Cases: every row x dtype of the spec's elementwise table (the rows are read from
include/tile2buffer/recipe/spec_tables.hpp, so a new row fails this test until it has a NumPy
reference here), a scalar bound with --scalar, an inout tensor written in part, BF16 as <u2 bit
patterns, copies of signalling NaNs compared bit for bit (FP16, BF16, FP32), and the cube path
(FP16, BF16 and INT8 operands, a K loop), a row-tiled kernel launched with --grid/--subblocks,
and an orchestration whose second task reads what the first wrote.

Tolerances, per output:
  - integers: exact.
  - +, -, *, /, sqrt, max/min, abs, neg, relu, lrelu, full, the scalar forms and recip (1/x):
    exact. The simulator computes each in float and rounds once (reference-semantics 9.3); the
    references here compute in float64 and round once to the output type, which gives the same
    correctly rounded value (float64 carries more than 2p+2 bits of a p-bit float, so rounding
    twice cannot differ). For FP16 and BF16 this needs the float intermediate to be exact, which
    holds for the inputs used (magnitudes in [2^-4, 8]: a sum or product needs at most 22 bits).
  - exp, log: one float32 ulp of the expected value. std::exp/std::log on float are not required
    to be correctly rounded (the spec and sim/compare.hpp treat them as inexact).
  - matmul on dyadic inputs (k/4): exact; every partial sum is representable in FP32.
  - matmul on random FP16 inputs: |got - exact| <= 1.01 * K * 2^-24 * (|A| @ |B|)[i, j], the
    classical bound for summing K exact FP32 products in sequence.
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    # The Debian package (python3-numpy) installs for the system interpreter.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        probe = subprocess.run(["/usr/bin/python3", "-c", "import numpy"], capture_output=True)
        if probe.returncode == 0:
            sys.exit(subprocess.run(["/usr/bin/python3", __file__] + sys.argv[1:]).returncode)
    print("SKIP: no Python with the numpy module (apt-get install -y python3-numpy)")
    sys.exit(77)

T2B = os.path.abspath(sys.argv[1])
ROOT = sys.argv[2]
PERTURB = "--perturb" in sys.argv[3:]
rng = np.random.default_rng(20261201)
checks = 0
failures = []

LOWERINGS = [("lower", ["--lower"]), ("ptoas", ["--planner", "ptoas"]), ("dsa_rp", ["--planner", "dsa_rp"])]
NP_DTYPE = {"FP32": np.float32, "FP16": np.float16, "INT32": np.int32, "INT8": np.int8, "BF16": np.uint16}


def fail(what, detail):
    failures.append(what)
    print(f"FAIL {what}: {detail}")


#===--- independent references ---===#

def to_bf16_bits(x64):
    """float64 -> bfloat16 bit patterns, round to nearest even (via float32, exact for our inputs)."""
    bits = np.asarray(x64, np.float32).view(np.uint32).astype(np.uint64)
    bits = bits + 0x7FFF + ((bits >> 16) & 1)
    return (bits >> 16).astype(np.uint16)


def from_bf16_bits(b):
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def wrap32(v):
    v = np.asarray(v, np.int64)
    return (((v + 2**31) % 2**32) - 2**31).astype(np.int32)


F64 = np.float64
# op -> (kind, scalar literal or None, float reference on float64 arrays, int reference or None)
OPS = {
    "add": ("binary", None, lambda x, y, s: x + y, lambda x, y, s: wrap32(x + y)),
    "mul": ("binary", None, lambda x, y, s: x * y, lambda x, y, s: wrap32(x * y)),
    "sub": ("binary", None, lambda x, y, s: x - y, None),
    "div": ("binary", None, lambda x, y, s: x / y, None),
    "maximum": ("binary", None, lambda x, y, s: np.where(x > y, x, y), None),
    "minimum": ("binary", None, lambda x, y, s: np.where(x < y, x, y), None),
    "abs": ("unary", None, lambda x, y, s: np.abs(x), None),
    "exp": ("unary", None, lambda x, y, s: np.exp(x), None),
    "sqrt": ("unary", None, lambda x, y, s: np.sqrt(x), None),
    "neg": ("unary", None, lambda x, y, s: -x, None),
    "relu": ("unary", None, lambda x, y, s: np.where(x > 0, x, 0.0), None),
    "log": ("unary", None, lambda x, y, s: np.log(x), None),
    "recip": ("unary", None, lambda x, y, s: 1.0 / x, None),
    "adds": ("scalar", "1.25", lambda x, y, s: x + s, None),
    "subs": ("scalar", "0.1", lambda x, y, s: x - s, None),
    "muls": ("scalar", "-3.0", lambda x, y, s: x * s, None),
    "divs": ("scalar", "0.3", lambda x, y, s: x / s, None),
    "maximums": ("scalar", "0.5", lambda x, y, s: np.where(x > s, x, s), None),
    "minimums": ("scalar", "-0.5", lambda x, y, s: np.where(x < s, x, s), None),
    "lrelu": ("scalar", "0.2", lambda x, y, s: np.where(x > 0, x, s * x), None),
    "full": ("fill", "7.5", lambda x, y, s: np.full(x.shape, s), None),
}
ONE_ULP = {"exp", "log"}


def spec_rows():
    """{op: [DTYPE...]} from the library's spec table (recipe/spec_tables.hpp)."""
    path = os.path.join(ROOT, "include", "tile2buffer", "recipe", "spec_tables.hpp")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    rows = {}
    for op, dts in re.findall(r"\{opcode::tile_(\w+), \{([^}]*)\}, \d+\}", text):
        rows[op] = [d.strip().replace("dtype::", "").upper() for d in dts.split(",")]
    return rows


def inputs_for(op, dt, shape):
    """(x, y) NumPy arrays of `dt` suited to `op` (no zeros, positive where the op needs it)."""
    if dt == "INT32":
        draw = lambda: rng.integers(-2**31, 2**31, size=shape, dtype=np.int64).astype(np.int32)
        return draw(), draw()
    if dt in ("FP16", "BF16"):
        def draw():
            mag = np.exp2(rng.uniform(-4, 3, size=shape))
            return np.where(rng.random(shape) < 0.5, -mag, mag)
        x, y = draw(), draw()
        if dt == "FP16":
            return x.astype(np.float16), y.astype(np.float16)
        return to_bf16_bits(x), to_bf16_bits(y)
    x = rng.standard_normal(shape) * 4
    y = rng.standard_normal(shape) * 4
    if op in ("sqrt", "log"):
        x = np.abs(x) + 0.01
    if op == "exp":
        x = rng.uniform(-10, 10, size=shape)
    x = np.where(np.abs(x) < 0.05, 0.5, x)  # no zeros: lrelu/relu at 0 and 1/x stay out of it
    y = np.where(np.abs(y) < 0.05, -0.5, y)
    return x.astype(np.float32), y.astype(np.float32)


def expected_ew(op, dt, x, y):
    kind, lit, fref, iref = OPS[op]
    if dt == "INT32":
        return iref(x.astype(np.int64), y.astype(np.int64), None)
    if dt == "BF16":
        xs, ys = from_bf16_bits(x), from_bf16_bits(y)
    else:
        xs, ys = x.astype(F64), y.astype(F64)
    s = F64(np.float32(float(lit))) if lit is not None else None  # the literal, converted to FP32 first
    r = fref(xs, ys, s)
    if dt == "BF16":
        return to_bf16_bits(r)
    return r.astype(NP_DTYPE[dt])


#===--- running t2b-opt ---===#

def run(args, tmp):
    return subprocess.run([T2B] + args, capture_output=True, text=True, cwd=tmp)


def perturbed(a, tol):
    """`a` with its first element moved past the tolerance: one ulp (+1 for integers) beyond it."""
    a = a.copy()
    flat = a.reshape(-1)
    if a.dtype.kind == "f":
        if tol is not None:
            flat[0] = flat[0] + np.broadcast_to(tol, a.shape).reshape(-1)[0] * 2
        flat[0] = np.nextafter(flat[0], np.inf, dtype=a.dtype)
    else:
        flat[0] = flat[0] + 1 if flat[0] != np.iinfo(a.dtype).max else flat[0] - 1
    return a


def compare(what, got, want, tol=None):
    """tol: None (exact) or an array/scalar bound on |got - want| (floats). With --perturb the
    expected value is nudged and the comparison must detect it."""
    global checks
    checks += 1
    if PERTURB:
        want = perturbed(want, tol)
    if got.dtype != want.dtype or got.shape != want.shape:
        fail(what, f"got {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
        return
    if tol is None:
        bad = got != want
    else:
        bad = np.abs(got.astype(F64) - want.astype(F64)) > tol
    if PERTURB:
        if bad.any():
            print(f"ok   {what}: the perturbed expected value was detected")
        else:
            fail(what, "the perturbed expected value was NOT detected")
    elif bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        fail(what, f"{int(bad.sum())} of {bad.size} elements differ; first at {idx}: got {got[idx]!r}, want {want[idx]!r}")
    else:
        print(f"ok   {what}")


def run_case(name, source, kernel, inputs, expected, tol=None, scalars=(), lowered=True, bitwise=False, flags=()):
    """Runs `kernel` as written and with each lowering (plus `flags`, e.g. --grid); compares every
    output in `expected` (`bitwise`: as unsigned bit patterns, so NaNs must match in sign, quiet
    bit and payload)."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "k.t2b"), "w", encoding="utf-8") as fh:
            fh.write(source)
        args = []
        for pname, arr in inputs.items():
            np.save(os.path.join(tmp, pname + ".in.npy"), arr)
            args += ["--input", f"{pname}={pname}.in.npy"]
        for s in scalars:
            args += ["--scalar", s]
        args += list(flags)
        modes = [("tile", [])] + (LOWERINGS if lowered else [])
        for mode, flags in modes:
            out = f"out_{mode}"
            proc = run(flags + [f"--run={kernel}", "--output-dir", out] + args + ["k.t2b"], tmp)
            what = f"{name} [{mode}]"
            if proc.returncode != 0 or proc.stderr:
                fail(what, f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
                continue
            stage = "Tile IR" if mode == "tile" else "Buffer IR"
            # An orchestration names the stage of each kernel it submits.
            if f"@{kernel} ({stage})" not in proc.stdout and not (f"@{kernel} (orchestration of " in proc.stdout and stage in proc.stdout):
                fail(what, f"expected a run of {stage}, t2b-opt said: {proc.stdout.strip()}")
                continue
            for pname, want in expected.items():
                got = np.load(os.path.join(tmp, out, pname + ".npy"))
                if bitwise:
                    unsigned = np.dtype(f"<u{got.itemsize}")
                    got, want = got.view(unsigned), want.view(unsigned)
                compare(f"{what} {pname}", got, want, tol)


#===--- kernels ---===#

def ew_kernel(op, dt, rows, cols):
    kind = OPS[op][0]
    lit = OPS[op][1]
    tile = f"Tile[[{rows}, {cols}], {dt}, Vec]"
    tensor = f"Tensor[[{rows}, {cols}], {dt}]"
    load = lambda v, t: f"  {v} = tile.load({t}, (0, 0), ({rows}, {cols})) : {tile}"
    params, body = [], []
    if kind in ("binary", "unary", "scalar"):
        params.append(f"X: {tensor}")
        body.append(load("x", "X"))
    if kind == "binary":
        params.append(f"Y: {tensor}")
        body.append(load("y", "Y"))
        body.append(f"  z = tile.{op}(x, y) : {tile}")
    elif kind == "unary":
        body.append(f"  z = tile.{op}(x) : {tile}")
    elif kind == "scalar":
        body.append(f"  z = tile.{op}(x, {lit}) : {tile}")
    else:
        body.append(f"  z = tile.full({lit}) : {tile}")
    params.append(f"Out: out {tensor}")
    body += [f"  r = tile.store(z, (0, 0), Out) : {tensor}", "  return r"]
    return f"aiv @k({', '.join(params)}) -> {tensor} {{\n" + "\n".join(body) + "\n}\n"


def elementwise_cases():
    rows = spec_rows()
    if len(rows) < 21:
        fail("spec table", f"read only {len(rows)} rows from spec_tables.hpp")
    for op, dtypes in rows.items():
        if op not in OPS:
            fail(f"tile.{op}", "in the spec's elementwise table but has no NumPy reference in this test")
            continue
        for dt in dtypes:
            shape = (16, 32)
            x, y = inputs_for(op, dt, shape)
            kind = OPS[op][0]
            inputs = {"X": x, "Y": y} if kind == "binary" else {"X": x} if kind != "fill" else {}
            want = expected_ew(op, dt, x, y)
            tol = np.abs(want.astype(F64)) * 2.0**-23 if op in ONE_ULP else None
            run_case(f"tile.{op} {dt}", ew_kernel(op, dt, *shape), "k", inputs, {"Out": want}, tol)


def extra_cases():
    # A scalar parameter bound with --scalar, and an inout tensor of which the kernel writes rows 8..15.
    src = """aiv @k(X: Tensor[[8, 32], FP32], IO: inout Tensor[[16, 32], FP32], s: Scalar[FP32]) -> Tensor[[16, 32], FP32] {
  x = tile.load(X, (0, 0), (8, 32)) : Tile[[8, 32], FP32, Vec]
  y = tile.muls(x, s) : Tile[[8, 32], FP32, Vec]
  r = tile.store(y, (8, 0), IO) : Tensor[[16, 32], FP32]
  return r
}
"""
    x = (rng.standard_normal((8, 32)) * 3).astype(np.float32)
    io = (rng.standard_normal((16, 32)) * 3).astype(np.float32)
    want = io.copy()
    want[8:] = (x.astype(F64) * F64(np.float32(-0.7))).astype(np.float32)
    run_case("inout + --scalar", src, "k", {"X": x, "IO": io}, {"IO": want}, scalars=["s=-0.7"])

    # BF16 as <u2 bit patterns in and out (BF16 add stays Tile: it is not in the default rollout).
    x, y = inputs_for("add", "BF16", (16, 32))
    run_case("tile.add BF16 (bit patterns)", ew_kernel("add", "BF16", 16, 32), "k", {"X": x, "Y": y},
             {"Out": to_bf16_bits(from_bf16_bits(x) + from_bf16_bits(y))}, lowered=False)

    # Pure copies are bit-exact (reference 9.1/9.2): signalling NaNs of either sign with several
    # payloads, quiet NaNs and infinities go through load -> slice -> assemble -> store unchanged.
    # Arithmetic may quiet a NaN; a copy may not (FP16/BF16 once came back 0x7c01 -> 0x7e01).
    special = {"FP16": [0x7C01, 0xFC01, 0x7D55, 0x7DFF, 0x7E00, 0xFE01, 0x7C00, 0x0001],
               "BF16": [0x7F81, 0xFF81, 0x7FA5, 0x7FBF, 0x7FC0, 0xFFC1, 0x7F80, 0x0001],
               "FP32": [0x7F800001, 0xFF800001, 0x7FA00001, 0x7FBFFFFF, 0x7FC00000, 0xFFC00001, 0x7F800000, 0x00000001]}
    for dt, patterns in special.items():
        x, _ = inputs_for("add", dt, (16, 32))
        bits = x.view(np.uint32 if dt == "FP32" else np.uint16).copy()
        where = rng.choice(bits.size, size=64, replace=False)
        bits.reshape(-1)[where] = np.resize(np.array(patterns, bits.dtype), 64)
        x = bits.view(x.dtype)
        half = 16 if dt != "FP32" else 8  # a 32-byte aligned column offset
        src = f"""aiv @k(X: Tensor[[16, 32], {dt}], Out: out Tensor[[16, 32], {dt}]) -> Tensor[[16, 32], {dt}] {{
  x = tile.load(X, (0, 0), (16, 32)) : Tile[[16, 32], {dt}, Vec]
  s = tile.slice(x, (8, {half}), (8, {half})) : Tile[[8, {half}], {dt}, Vec]
  y = tile.assemble(x, s, (0, 0)) : Tile[[16, 32], {dt}, Vec]
  r = tile.store(y, (0, 0), Out) : Tensor[[16, 32], {dt}]
  return r
}}
"""
        want = x.copy()
        want[:8, :half] = x[8:, half:2 * half]
        run_case(f"copies of signalling NaNs {dt} (bit patterns)", src, "k", {"X": x}, {"Out": want}, bitwise=True)

    # Cube: Out = A@B + A@B (the spec's example), FP16 operands, FP32 accumulator.
    def cube(dt, m, k, n, twice):
        acc = "x" if not twice else "y"
        return f"""aic @mm(A: Tensor[[{m}, {k}], {dt}], B: Tensor[[{k}, {n}], {dt}], Out: out Tensor[[{m}, {n}], FP32]) -> Tensor[[{m}, {n}], FP32] {{
  a = tile.load(A, (0, 0), ({m}, {k})) : Tile[[{m}, {k}], {dt}, Mat]
  b = tile.load(B, (0, 0), ({k}, {n})) : Tile[[{k}, {n}], {dt}, Mat]
  a_l0 = tile.move(a) : Tile[[{m}, {k}], {dt}, Left]
  b_l0 = tile.move(b) : Tile[[{k}, {n}], {dt}, Right]
  x = tile.matmul(a_l0, b_l0) : Tile[[{m}, {n}], FP32, Acc]
""" + (f"  y = tile.matmul_acc(x, a_l0, b_l0) : Tile[[{m}, {n}], FP32, Acc]\n" if twice else "") + f"""  r = tile.store({acc}, (0, 0), Out) : Tensor[[{m}, {n}], FP32]
  return r
}}
"""
    dyadic = lambda shape: rng.integers(-8, 9, size=shape) / 4.0
    a, b = dyadic((64, 64)), dyadic((64, 64))
    run_case("matmul+matmul_acc FP16 dyadic", cube("FP16", 64, 64, 64, True), "mm",
             {"A": a.astype(np.float16), "B": b.astype(np.float16)}, {"Out": (2 * (a @ b)).astype(np.float32)})
    a16 = rng.standard_normal((32, 64)).astype(np.float16)
    b16 = rng.standard_normal((64, 48)).astype(np.float16)
    exact = a16.astype(F64) @ b16.astype(F64)
    bound = 1.01 * 64 * 2.0**-24 * (np.abs(a16.astype(F64)) @ np.abs(b16.astype(F64)))
    run_case("matmul FP16 random", cube("FP16", 32, 64, 48, False), "mm", {"A": a16, "B": b16},
             {"Out": exact.astype(np.float32)}, tol=bound)
    a, b = dyadic((32, 32)), dyadic((32, 32))
    run_case("matmul BF16 (bit patterns) dyadic", cube("BF16", 32, 32, 32, False), "mm",
             {"A": to_bf16_bits(a), "B": to_bf16_bits(b)}, {"Out": (a @ b).astype(np.float32)})

    # INT8 K loop: the accumulator is carried through four K steps (runtime init_cond).
    src = """aic @k_loop(A: Tensor[[32, 128], INT8], B: Tensor[[128, 32], INT8], Out: out Tensor[[32, 32], INT32]) -> Tensor[[32, 32], INT32] {
  zero = tile.create() : Tile[[32, 32], INT32, Acc]
  acc = for k in range(0, 4, 1) iter(c = zero) -> (Tile[[32, 32], INT32, Acc]) {
    off = k * 32
    first = k == 0
    a = tile.load(A, (0, off), (32, 32)) : Tile[[32, 32], INT8, Mat]
    b = tile.load(B, (off, 0), (32, 32)) : Tile[[32, 32], INT8, Mat]
    a_l0 = tile.move(a) : Tile[[32, 32], INT8, Left]
    b_l0 = tile.move(b) : Tile[[32, 32], INT8, Right]
    next = tile.matmul_acc(c, a_l0, b_l0, init_cond = first) : Tile[[32, 32], INT32, Acc]
    yield next
  }
  result = tile.store(acc, (0, 0), Out) : Tensor[[32, 32], INT32]
  return result
}
"""
    a8 = rng.integers(-128, 128, size=(32, 128)).astype(np.int8)
    b8 = rng.integers(-128, 128, size=(128, 32)).astype(np.int8)
    run_case("K loop INT8", src, "k_loop", {"A": a8, "B": b8},
             {"Out": wrap32(a8.astype(np.int64) @ b8.astype(np.int64))})

    # A row-tiled kernel: block b scales rows 2b, 2b+1 and subblock s adds s. --grid=8
    # --subblocks=2 runs all 16 instances in order on one GM, so every row is written.
    src = """aiv @rows(X: Tensor[[16, 64], FP32], Out: out Tensor[[16, 64], FP32]) -> Tensor[[16, 64], FP32] {
  block = tile.get_block_idx() : INDEX
  sub = tile.get_subblock_idx() : INDEX
  pair = block * 2
  row = pair + sub
  bias = cast(sub, FP32)
  x = tile.load(X, (row, 0), (1, 64)) : Tile[[1, 64], FP32, Vec]
  y = tile.muls(x, 3.0) : Tile[[1, 64], FP32, Vec]
  z = tile.adds(y, bias) : Tile[[1, 64], FP32, Vec]
  r = tile.store(z, (row, 0), Out) : Tensor[[16, 64], FP32]
  return r
}
"""
    x = (rng.standard_normal((16, 64)) * 3).astype(np.float32)
    want = (x * np.float32(3.0)) + np.array([[0.0], [1.0]] * 8, np.float32)
    run_case("row-tiled kernel, --grid=8 --subblocks=2", src, "rows", {"X": x}, {"Out": want}, flags=["--grid=8", "--subblocks=2"])

    # An orchestration: @scale2 reads what @add2 wrote (deps), each launched as a grid of 4 blocks
    # of 4 rows; the scalar argument reaches @scale2 as FP32.
    src = """aiv @add2(X: Tensor[[16, 32], FP32], Y: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  block = tile.get_block_idx() : INDEX
  row = block * 4
  x = tile.load(X, (row, 0), (4, 32)) : Tile[[4, 32], FP32, Vec]
  y = tile.load(Y, (row, 0), (4, 32)) : Tile[[4, 32], FP32, Vec]
  z = tile.add(x, y) : Tile[[4, 32], FP32, Vec]
  r = tile.store(z, (row, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
aiv @scale2(X: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], s: Scalar[FP32]) -> Tensor[[16, 32], FP32] {
  block = tile.get_block_idx() : INDEX
  row = block * 4
  x = tile.load(X, (row, 0), (4, 32)) : Tile[[4, 32], FP32, Vec]
  y = tile.muls(x, s) : Tile[[4, 32], FP32, Vec]
  r = tile.store(y, (row, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
orchestration @main(A: Tensor[[16, 32], FP32], B: Tensor[[16, 32], FP32], Mid: out Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], k: Scalar[FP32]) {
  t0 = submit @add2(A, B, Mid)
  t1 = submit @scale2(Mid, Out, k) deps(t0)
  return
}
"""
    a = rng.standard_normal((16, 32)).astype(np.float32)
    b = rng.standard_normal((16, 32)).astype(np.float32)
    mid = a + b
    run_case("orchestration, --grid=4", src, "main", {"A": a, "B": b}, {"Mid": mid, "Out": mid * np.float32(-1.5)},
             scalars=["k=-1.5"], flags=["--grid=4"])

    # An out tensor the kernel writes in part: a warning on stderr, exit 0, the rest holds -555.
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "k.t2b"), "w", encoding="utf-8") as fh:
            fh.write("""aiv @part(X: Tensor[[8, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  x = tile.load(X, (0, 0), (8, 32)) : Tile[[8, 32], FP32, Vec]
  r = tile.store(x, (8, 0), Out) : Tensor[[16, 32], FP32]
  return r
}
""")
        x = rng.standard_normal((8, 32)).astype(np.float32)
        np.save(os.path.join(tmp, "x.npy"), x)
        for mode, flags in [("tile", [])] + LOWERINGS:
            proc = run(flags + ["--run=part", "--input", "X=x.npy", "--output-dir", "o", "k.t2b"], tmp)
            warning = "t2b-opt: warning: --run @part: 256 of 512 elements of Out were never written; they hold -555\n"
            if proc.returncode != 0 or proc.stderr != warning:
                fail(f"partly written out [{mode}]", f"want exit 0 and the warning; got exit {proc.returncode}:\n{proc.stderr}")
                continue
            want = np.full((16, 32), -555.0, np.float32)
            want[8:] = x
            compare(f"partly written out [{mode}] Out", np.load(os.path.join(tmp, "o", "Out.npy")), want)

    # A file that already holds Buffer IR runs as written, in the Buffer interpreter.
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "k.t2b"), "w", encoding="utf-8") as fh:
            fh.write(ew_kernel("sub", "FP32", 16, 32))
        x, y = inputs_for("sub", "FP32", (16, 32))
        np.save(os.path.join(tmp, "x.npy"), x)
        np.save(os.path.join(tmp, "y.npy"), y)
        low = run(["--planner", "ptoas", "-o", "k.buffer.t2b", "k.t2b"], tmp)
        proc = run(["--run=@k", "--input", "X=x.npy", "--input", "Y=y.npy", "--output-dir", "o", "k.buffer.t2b"], tmp)
        if low.returncode != 0 or proc.returncode != 0 or "@k (Buffer IR)" not in proc.stdout:
            fail("Buffer IR file as written", f"{low.stderr}{proc.stdout}{proc.stderr}")
        else:
            compare("Buffer IR file as written Out", np.load(os.path.join(tmp, "o", "Out.npy")),
                    (x.astype(F64) - y.astype(F64)).astype(np.float32))


#===--- errors ---===#

def npy_bytes(arr, version=(1, 0)):
    import io
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, version=version)
    return buf.getvalue()


def error_cases():
    global checks
    x = rng.standard_normal((16, 32)).astype(np.float32)
    good = npy_bytes(x)
    header_end = good.index(b"\n") + 1
    v1_header = good[10:header_end]
    files = {
        "good.npy": good,
        "v2.npy": npy_bytes(x, (2, 0)),
        "small.npy": npy_bytes(x[:8]),
        "f64.npy": npy_bytes(x.astype(np.float64)),
        "i16.npy": npy_bytes(x.astype(np.int16)),
        "bad_magic.npy": b"\x93NUMPX" + good[6:],
        "text.npy": b"this is not a numpy file\n",
        "empty.npy": b"",
        "bad_header.npy": good[:10] + v1_header.replace(b"'shape'", b"'shap\x01'"),
        "bad_header2.npy": good[:10] + v1_header.replace(b"(16, 32)", b"[16, 32]") + good[header_end:],
        "header_len.npy": good[:8] + b"\xff\x7f" + good[10:],
        "truncated.npy": good[:-4],
        "trailing.npy": good + b"\0\0\0\0",
        "v3.npy": good[:6] + b"\x03\x00" + good[8:],
        "v1_1.npy": good[:6] + b"\x01\x01" + good[8:],
        "fortran.npy": npy_bytes(np.asfortranarray(x)),
        "big_endian.npy": npy_bytes(x.astype(">f4")),
        "structured.npy": npy_bytes(np.zeros((16, 32), dtype=[("a", "<f4")])),
    }
    src = ew_kernel("add", "FP32", 16, 32)
    i16_src = src.replace("FP32", "INT16")
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in files.items():
            with open(os.path.join(tmp, name), "wb") as fh:
                fh.write(data)
        for name, text in (("k.t2b", src), ("i16.t2b", i16_src)):
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        # (what, input args, expected exit, a fragment of the one error line)
        ok_y = ["--input", "Y=good.npy"]
        cases = [
            ("missing --input (no zeros)", ["--input", "X=good.npy"], 1, "no --input for tensor parameter Y (in)"),
            ("unknown --input name", ["--input", "X=good.npy", "--input", "Z=good.npy"] + ok_y, 1, "@k has no parameter 'Z'"),
            ("--input names an out parameter", ["--input", "X=good.npy", "--input", "Out=good.npy"] + ok_y, 1, "is an out parameter"),
            ("duplicate --input", ["--input", "X=good.npy", "--input", "X=good.npy"] + ok_y, 2, "--input X given twice"),
            ("shape mismatch", ["--input", "X=small.npy"] + ok_y, 1, "shape mismatch: 'small.npy' holds (8, 32), parameter X is (16, 32)"),
            ("dtype mismatch", ["--input", "X=f64.npy"] + ok_y, 1, "dtype mismatch: 'f64.npy' holds '<f8', parameter X is FP32 ('<f4')"),
            ("missing file", ["--input", "X=nothere.npy"] + ok_y, 1, "cannot read 'nothere.npy'"),
            ("bad magic", ["--input", "X=bad_magic.npy"] + ok_y, 1, "not a .npy file (bad magic string)"),
            ("not an npy file", ["--input", "X=text.npy"] + ok_y, 1, "not a .npy file (bad magic string)"),
            ("empty file", ["--input", "X=empty.npy"] + ok_y, 1, "not a .npy file (bad magic string)"),
            ("bad header (control byte)", ["--input", "X=bad_header.npy"] + ok_y, 1, "malformed .npy header"),
            ("bad header (list shape)", ["--input", "X=bad_header2.npy"] + ok_y, 1, "malformed .npy header (shape is not a tuple"),
            ("header length past the end", ["--input", "X=header_len.npy"] + ok_y, 1, "truncated .npy header"),
            ("truncated data", ["--input", "X=truncated.npy"] + ok_y, 1, "truncated .npy data"),
            ("bytes after the data", ["--input", "X=trailing.npy"] + ok_y, 1, "4 bytes after the data"),
            ("unsupported version 3.0", ["--input", "X=v3.npy"] + ok_y, 1, "unsupported .npy format version 3.0"),
            ("unsupported version 1.1", ["--input", "X=v1_1.npy"] + ok_y, 1, "unsupported .npy format version 1.1"),
            ("fortran_order True", ["--input", "X=fortran.npy"] + ok_y, 1, "fortran_order is True"),
            ("non-little-endian", ["--input", "X=big_endian.npy"] + ok_y, 1, "non-little-endian data (dtype '>f4')"),
            ("structured dtype", ["--input", "X=structured.npy"] + ok_y, 1, "structured arrays are not read"),
            ("unknown --scalar", ["--input", "X=good.npy", "--scalar", "s=1"] + ok_y, 1, "@k has no scalar parameter 's'"),
            ("unknown --scalar BOOL word", ["--input", "X=good.npy", "--scalar", "s=true"] + ok_y, 1,
             "@k has no scalar parameter 's'"),
        ]
        for what, args, code, fragment in cases:
            checks += 1
            proc = run([f"--run=k", "--output-dir", "o"] + args + ["k.t2b"], tmp)
            lines = proc.stderr.splitlines()
            one_line = code == 2 or len(lines) == 1
            if proc.returncode != code or not lines or not lines[0].startswith("t2b-opt: ") or fragment not in lines[0] or not one_line:
                fail(f"error: {what}", f"want exit {code} and one line with '{fragment}'; got exit {proc.returncode}:\n{proc.stderr}")
            else:
                print(f"ok   error: {what}: {lines[0]}")
        misuse = [
            ("unsupported tensor dtype", ["--run=k", "--output-dir", "o", "--input", "X=i16.npy", "--input", "Y=i16.npy", "i16.t2b"], 1,
             "tensor parameter X has dtype INT16, which has no .npy mapping"),
            ("no such kernel", ["--run=nope", "--output-dir", "o", "--input", "X=good.npy", "k.t2b"], 1,
             "no function @nope in k.t2b; its functions: @k"),
            ("--input without --run", ["--input", "X=good.npy", "k.t2b"], 2, "--input and --output-dir need --run=FUNCTION"),
            ("--run with -o", ["--run=k", "-o", "x.t2b", "--output-dir", "o", "k.t2b"], 2, "cannot be combined with -o"),
            ("--run with --emit", ["--run=k", "--emit=pto", "--output-dir", "o", "k.t2b"], 2, "cannot be combined with --emit"),
            ("--grid without --run", ["--grid=2", "k.t2b"], 2, "--grid needs --run or --check-numerics"),
            ("--grid=0", ["--run=k", "--grid=0", "--output-dir", "o", "k.t2b"], 2, "--grid: expected a number from 1 to 65535"),
            ("--scalar that is no number", ["--run=k", "--scalar", "s=1.5x", "--output-dir", "o", "k.t2b"], 2,
             "VALUE must be a finite number, true or false"),
            ("--run without --output-dir", ["--run=k", "--input", "X=good.npy", "k.t2b"], 2, "--run needs --output-dir DIR"),
            ("--input without NAME=", ["--run=k", "--output-dir", "o", "--input", "good.npy", "k.t2b"], 2, "--input needs NAME=FILE"),
            ("--run with --check-numerics", ["--run=k", "--check-numerics", "--output-dir", "o", "k.t2b"], 2, "cannot be combined"),
        ]
        for what, args, code, fragment in misuse:
            checks += 1
            proc = run(args, tmp)
            lines = proc.stderr.splitlines()
            if proc.returncode != code or not lines or lines[0] != "t2b-opt: " + lines[0][9:] or fragment not in lines[0] or \
                    (code == 1 and len(lines) != 1):
                fail(f"error: {what}", f"want exit {code} with '{fragment}'; got exit {proc.returncode}:\n{proc.stderr}")
            else:
                print(f"ok   error: {what}: {lines[0]}")

        # Format 2.0 is read.
        proc = run(["--run=k", "--output-dir", "o2", "--input", "X=v2.npy", "--input", "Y=good.npy", "k.t2b"], tmp)
        if proc.returncode != 0:
            fail("format 2.0 input", proc.stderr)
        else:
            compare("format 2.0 input Out", np.load(os.path.join(tmp, "o2", "Out.npy")), (x.astype(F64) * 2).astype(np.float32))

        # Garbage never crashes: every truncation of the header and random byte flips give exit 0 or
        # one error line with exit 1.
        mutants = [good[:n] for n in range(0, header_end + 2)]
        for _ in range(60):
            b = bytearray(good)
            for _ in range(int(rng.integers(1, 4))):
                b[int(rng.integers(0, header_end + 8))] = int(rng.integers(0, 256))
            mutants.append(bytes(b))
        bad = 0
        for i, m in enumerate(mutants):
            with open(os.path.join(tmp, "m.npy"), "wb") as fh:
                fh.write(m)
            proc = run(["--run=k", "--output-dir", "o3", "--input", "X=m.npy", "--input", "Y=good.npy", "k.t2b"], tmp)
            if proc.returncode not in (0, 1) or (proc.returncode == 1 and len(proc.stderr.splitlines()) != 1):
                bad += 1
                print(f"mutant {i} ({m[:80]!r}...): exit {proc.returncode}\n{proc.stderr}")
        checks += 1
        if bad:
            fail("mutated .npy files", f"{bad} of {len(mutants)} crashed or printed more than one error")
        else:
            print(f"ok   {len(mutants)} truncated or mutated .npy files: exit 0 or one error line with exit 1")


def main():
    elementwise_cases()
    extra_cases()
    error_cases()
    print(f"{checks} checks, {len(failures)} failed")
    if PERTURB:
        print("(--perturb: every value comparison had to detect its perturbed expected value)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
