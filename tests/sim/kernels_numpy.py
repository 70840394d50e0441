#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every simulator element kernel against a formula written here, independently of the C++.

The Tile-vs-Buffer comparison (`--check-numerics`, the campaigns) runs two interpreters that share
one element kernel (sim/kernels.hpp, sim/numeric.hpp), so a wrong formula there cannot show: both
runs agree on the wrong number (issue 52: float -> int tile.cast truncated whatever its mode,
mode 2 never overflowed, and a mutant col_expand_expdif computing exp(x) - w survived the suite).
This test writes small Tile IR kernels, runs them with `t2b-opt --run` on .npy inputs full of edge
values (ties, +-0, subnormals, overflow, infinities, NaN payloads, integer extremes), and checks
every output element against this file's oracle:

  - float rounding is done here with exact rationals (fractions.Fraction) for every rounding mode,
    and cross-checked against NumPy's own float16/float32 conversions where NumPy has them (RNE);
  - exact ops compare bit for bit (NaN results: any NaN, since the spec states no payload for
    arithmetic; tile.cast NaNs bit for bit, by the payload rule docs/ops.md states);
  - ops without a correctly rounded native implementation (exp, log, sqrt, rsqrt, div, divs,
    recip, expdif, row_expand_div, col_expand_div) within two units in the last place of the result
    type, on the float64 value of the rounded inputs;
  - where the spec leaves a choice open (NaN or +-0 in maximum/minimum/relu, lrelu at 0, rsqrt of
    x <= 0) any of the admissible answers passes, and the test says which;
  - an (op, dtype) the simulator does not define must be refused with a located error.

Every kernel runs in the Tile simulator as written; the ones the pipeline lowers (FP32 elementwise,
reductions and broadcasts, FP16/INT32 add and mul, the casts of the extended rollout, the cube,
data movement, SPMD queries, scalar ops) also run lowered with `--rollout=extended`, so the Buffer
simulator's models meet the same formulas. The coverage check asks `t2b-opt --list-ops` which ops
each simulator models (its last field, read from the model sets of sim/model_table.hpp) and fails
when one has no formula here or never ran in that simulator in a checked kernel.

usage: kernels_numpy.py T2B_OPT [PARTIAL_VALID_GOLDEN] [--perturb]
  PARTIAL_VALID_GOLDEN  tests/golden/lower/extended/partial_valid.t2b: its kernels are run here too
  --perturb  replace every expected element by one it cannot match (flip a bit, move a
             tolerance window past itself, a number where a NaN is due, success where a refusal is
             due), and drop one formula and one Buffer run from the coverage check; every element
             and both gaps must then be reported (meson test sim-kernels-numpy-detects-a-difference).
Exits 77 (skipped) without a Python that has NumPy (Debian: python3-numpy).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

try:
    import numpy as np
except ImportError:
    # The Debian package (python3-numpy) installs for the system interpreter.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        if subprocess.run(["/usr/bin/python3", "-c", "import numpy"], capture_output=True).returncode == 0:
            sys.exit(subprocess.run(["/usr/bin/python3", __file__] + sys.argv[1:]).returncode)
    print("SKIP: no Python with the numpy module (apt-get install -y python3-numpy)")
    sys.exit(77)

if len(sys.argv) < 2:
    sys.exit(__doc__)
T2B = os.path.abspath(sys.argv[1])
PERTURB = "--perturb" in sys.argv[2:]
GOLDEN = next((a for a in sys.argv[2:] if a.endswith(".t2b")), None)
WORK = tempfile.mkdtemp(prefix="t2b-kernels-numpy-")
STARTED = time.monotonic()
failures = []
checks = 0       # compared elements
runs = 0         # t2b-opt processes
covered = set()  # (mnemonic, "tile" | "buffer"): ran in that simulator in a kernel whose outputs were compared


def fail(what, detail):
    failures.append(what)
    print(f"FAIL {what}: {detail}")


#===--- number formats: the oracle's own rounding ---===#

# The ISA's rounding enumeration (tile.cast `mode`): 0 NONE, 1 RINT (nearest even), 2 ROUND
# (nearest, ties away), 3 FLOOR, 4 CEIL, 5 TRUNC, 6 ODD.
NONE, RINT, ROUND, FLOOR, CEIL, TRUNC, ODD = range(7)


class Fmt:
    """A binary float format: p significant bits (hidden one included), exponents of the smallest
    normal and the largest finite binade, width in bits."""

    def __init__(self, name, p, emin, emax, width):
        self.name, self.p, self.emin, self.emax, self.width = name, p, emin, emax, width
        self.fbits = p - 1
        self.sign = 1 << (width - 1)
        self.inf = ((1 << (width - 1 - self.fbits)) - 1) << self.fbits
        self.maxfin = self.inf - 1


FMT = {"FP16": Fmt("FP16", 11, -14, 15, 16), "BF16": Fmt("BF16", 8, -126, 127, 16), "FP32": Fmt("FP32", 24, -126, 127, 32)}
TWO = Fraction(2)


def decode(f, bits):
    """('nan', neg) | ('inf', neg) | ('num', neg, magnitude as a Fraction)."""
    neg = bool(bits & f.sign)
    e = (bits & f.inf) >> f.fbits
    m = bits & ((1 << f.fbits) - 1)
    if bits & f.inf == f.inf:
        return ("nan", neg) if m else ("inf", neg)
    if e == 0:
        return ("num", neg, m * TWO ** (f.emin - f.fbits))
    return ("num", neg, (m | (1 << f.fbits)) * TWO ** (e - 1 + f.emin - f.fbits))


def ilog2(q):
    """floor(log2 q) of a positive Fraction."""
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    return e


def round_int(q, neg, mode):
    """The non-negative Fraction q rounded to an integer by `mode`; `neg` is the sign the directed
    modes see (q is a magnitude)."""
    fl = q.numerator // q.denominator
    rem = q - fl
    if rem == 0:
        return fl
    half = Fraction(1, 2)
    if mode == ROUND:
        return fl + (rem >= half)
    if mode == FLOOR:
        return fl + neg
    if mode == CEIL:
        return fl + (not neg)
    if mode == TRUNC:
        return fl
    if mode == ODD:
        return fl | 1
    return fl + (rem > half or (rem == half and fl % 2 == 1))  # RINT


def encode(f, neg, mag, mode=RINT):
    """The bits of (-1)^neg * mag rounded once to format f by `mode`, with IEEE overflow: nearest
    modes give infinity, FLOOR/CEIL infinity only in their own direction, TRUNC and ODD the largest
    finite value (docs/ops.md, Extended rollout item 5)."""
    s = f.sign if neg else 0
    if mag == 0:
        return s
    e = max(ilog2(mag), f.emin)
    k = round_int(mag / TWO ** (e - f.fbits), neg, mode)
    if k >> f.p:  # rounding carried into the next binade
        k >>= 1
        e += 1
    if e > f.emax:
        up = mode in (RINT, ROUND) or (mode == CEIL and not neg) or (mode == FLOOR and neg)
        return s | (f.inf if up else f.maxfin)
    if k < (1 << f.fbits):
        return s | k  # subnormal or zero
    return s | ((e - f.emin + 1) << f.fbits) | (k - (1 << f.fbits))


def to_f64(f, bits):
    """The float64 value of a pattern of format f (exact: every FP16/BF16/FP32 value is a double)."""
    v = decode(f, bits)
    if v[0] == "nan":
        return float("nan")
    if v[0] == "inf":
        return float("-inf") if v[1] else float("inf")
    x = float(v[2])  # exact: at most 24 significant bits, exponent within double range
    return -x if v[1] else x


def ulp(f, x):
    """The spacing of format f at |x| (its smallest subnormal step below the normal range)."""
    ax = abs(Fraction(x))
    e = f.emin if ax == 0 else max(ilog2(ax), f.emin)
    return float(TWO ** (e - f.fbits))


def bits_of(dt, x):
    """The RNE pattern of the Python number x in float type dt (exact when x is representable)."""
    f = FMT[dt]
    if x != x:
        return f.inf | (1 << (f.fbits - 1))
    if x in (float("inf"), float("-inf")):
        return f.inf | (f.sign if x < 0 else 0)
    q = Fraction(x)
    neg = q < 0 or (q == 0 and str(x).startswith("-"))
    return encode(f, neg, abs(q))


def nan_cast_bits(src, dst, bits):
    """A NaN converted between float types, as docs/ops.md states it (a quiet NaN keeping the top of
    its payload): the source is read as FP32 (payload left-aligned, sign kept); FP16 takes
    sign|0x7C00|0x200|(payload >> 13), BF16 (bits >> 16)|0x40, FP32 the pattern with its quiet bit."""
    if src == "FP16":
        w = ((bits & 0x8000) << 16) | 0x7F800000 | ((bits & 0x3FF) << 13)
    elif src == "BF16":
        w = bits << 16
    else:
        w = bits
    if dst == "FP16":
        return ((w >> 16) & 0x8000) | 0x7C00 | 0x200 | ((w & 0x7FFFFF) >> 13)
    if dst == "BF16":
        return (w >> 16) | 0x40
    return w | 0x400000


def numpy_rounded(x, npt, mode):
    """x (a float64) rounded to NumPy type npt by `mode`, from NumPy's own round-to-nearest-even
    conversion and np.nextafter: the neighbours below and above x, picked by the mode's rule (a tie
    for ROUND: the one farther from zero; ODD: the one whose last bit is 1)."""
    with np.errstate(over="ignore"):
        r = np.array(x, np.float64).astype(npt)
        if float(r) == x:
            return r
        lo = r if float(r) < x else np.nextafter(r, npt(-np.inf))
        hi = r if float(r) > x else np.nextafter(r, npt(np.inf))
    bits = np.uint16 if npt == np.float16 else np.uint32
    if mode == FLOOR:
        return lo
    if mode == CEIL:
        return hi
    if mode == TRUNC:
        return lo if x > 0 else hi
    if mode == ROUND:
        return (hi if x > 0 else lo) if x - float(lo) == float(hi) - x else r
    if mode == ODD:
        return lo if int(lo.view(bits)) & 1 else hi
    return r


def check_oracle_against_numpy():
    """The oracle's rounding must agree with NumPy's float64 -> float16/float32 conversion (one
    rounding to nearest even) and, for the other modes, with the neighbours np.nextafter gives, on
    the values the cases below use and on random ones across both ranges: a wrong rounding routine
    here would otherwise pass or fail the simulator for the wrong reason."""
    global checks
    rng = np.random.default_rng(52)
    samples = [0.0, -0.0, 65520.0, 65519.99, -65520.0, 1e6, 2.0 ** -25, 3 * 2.0 ** -26, 2.0 ** -24 * 1.5,
               2049.0, 2051.0, 16777217.0, 16777219.0, 3.4028235677973366e38, 3.4028235e38 * 1.0000001,
               1.401298464324817e-45 / 2, 0.1, 1 / 3, 2.0 ** -149 * 0.75, -1e-30, 1e-8, -2.5, 2.5, 0.5]
    samples += [to_f64(FMT["FP32"], b) for b in cast_sources("FP32") if decode(FMT["FP32"], b)[0] == "num"]
    samples += [float(v) for v in rng.standard_normal(200) * 10.0 ** rng.integers(-45, 39, 200)]
    for x in samples:
        for dt, npt, bits in (("FP16", np.float16, np.uint16), ("FP32", np.float32, np.uint32)):
            for mode in (RINT, ROUND, FLOOR, CEIL, TRUNC, ODD):
                want = int(numpy_rounded(x, npt, mode).view(bits))
                got = encode(FMT[dt], x < 0 or str(x).startswith("-"), abs(Fraction(x)), mode)
                checks += 1
                if got != want:
                    fail("oracle self-check", f"{x!r} to {dt} by mode {mode}: oracle {got:#x}, NumPy {want:#x}")


#===--- element types ---===#

SIZE = {"BOOL": 1, "INT8": 1, "UINT8": 1, "INT16": 2, "FP16": 2, "BF16": 2, "INT32": 4, "UINT32": 4, "FP32": 4,
        "INT64": 8, "INDEX": 8}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
# The tensor dtypes `--input`/`--output-dir` read and write; the others travel as the bytes of an
# INT32 tensor and are seen through tile.reinterpret_view (a relabel that keeps the bytes).
HOST = {"FP16": np.float16, "BF16": np.uint16, "FP32": np.float32, "INT8": np.int8, "INT32": np.int32}
FLOATS = ["FP16", "BF16", "FP32"]
INTS = ["INT8", "UINT8", "INT16", "INT32", "UINT32", "INT64", "INDEX"]
# The dtypes the Tile verifier accepts for a tile (docs/text-format.md §3): every dtype.
ALL = FLOATS + INTS + ["BOOL"]


def int_range(dt):
    w = SIZE[dt] * 8
    return (0, (1 << w) - 1) if dt.startswith("UINT") else (-(1 << (w - 1)), (1 << (w - 1)) - 1)


def wrap(dt, v):
    """v modulo 2^width in dt's range (two's complement)."""
    w = SIZE[dt] * 8
    v &= (1 << w) - 1
    return v - (1 << w) if not dt.startswith("UINT") and v >> (w - 1) else v


def ibits(dt, v):
    return v & ((1 << (SIZE[dt] * 8)) - 1)


def ival(dt, bits):
    return wrap(dt, bits)


def is_nan(dt, bits):
    return dt in FMT and decode(FMT[dt], bits)[0] == "nan"


def grid(values, cols):
    """A [rows, cols] array of element patterns holding `values` row-major, the last row padded by
    repeating the first values (so every element is an edge value)."""
    vals = list(values)
    n = -(-len(vals) // cols) * cols
    vals += [vals[i % len(vals)] for i in range(n - len(vals))]
    return np.array(vals, dtype=np.uint64).reshape(-1, cols)


#===--- edge values, as element patterns ---===#

def f32(x):
    return int(np.array(x, np.float32).view(np.uint32))


def f16(x):
    return int(np.array(x, np.float16).view(np.uint16))


def bf(x):
    """The BF16 pattern of x (x must be a BF16 value: its FP32 pattern's low half is zero)."""
    b = f32(x)
    assert b & 0xFFFF == 0, x
    return b >> 16


# Binary-op operands: every pair of these is computed (ties of a sum such as 2^24 + 1 and 2^24 + 3,
# 2048 + 1, 256 + 1, 65504 + 16 = 65520; overflow max + max; subnormal products; inf - inf; NaNs with
# payloads, quiet and signalling, of both signs).
PAIRS = {
    "FP32": [f32(0.0), f32(-0.0), f32(1.0), f32(-1.0), f32(1.5), f32(-2.5), f32(3.0), f32(0.1), f32(2.0 ** 24),
             f32(7.0), 0x00000001, 0x80000001, 0x00800000, 0x007FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, f32(2.0 ** 127),
             0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC12345, 0x7F800001, 0xFFC00001, f32(1 / 3)],
    "FP16": [f16(0.0), f16(-0.0), f16(1.0), f16(-1.0), f16(1.5), f16(-2.5), f16(3.0), f16(0.1), f16(2048.0),
             f16(7.0), 0x0001, 0x8001, 0x0400, 0x03FF, 0x7BFF, 0xFBFF, f16(16.0), 0x7C00, 0xFC00, 0x7E00, 0x7E55,
             0x7C01, 0xFE01, f16(1 / 3)],
    "BF16": [bf(0.0), bf(-0.0), bf(1.0), bf(-1.0), bf(1.5), bf(-2.5), bf(3.0), 0x3DCD, bf(256.0), bf(7.0), 0x0001,
             0x8001, 0x0080, 0x007F, 0x7F7F, 0xFF7F, bf(2.0 ** 127), 0x7F80, 0xFF80, 0x7FC0, 0x7FC5, 0x7F81, 0xFFC1,
             0x3EAB],
}
# Unary operands: the pair values and the ranges exp/log/sqrt/recip meet (overflow, subnormal results).
UNARY_EXTRA = {
    "FP32": [0.5, 2.0, 4.0, 0.25, 10.0, 88.0, 89.0, -87.0, -104.0, -200.0, 100.0, 1e-30, 1e30, 2.0 ** -130, 2.0 ** 24],
    "FP16": [0.5, 2.0, 4.0, 0.25, 10.0, 11.0, 12.0, -17.0, -20.0, 100.0, 1e-7, 1000.0, 2.0 ** -20, 2050.0],
    "BF16": [0.5, 2.0, 4.0, 0.25, 10.0, 88.0, 89.0, -87.0, -100.0, -200.0, 100.0, 2.0 ** -130, 2.0 ** 100, 256.0],
}
# The scalars of the scalar forms and fills (finite: --scalar takes a finite number): ties with the
# operands (2^24 + 1, 2048 + 1), a zero (divs by zero), overflow.
SCALARS = {
    "FP32": [1.0, -2.5, 0.0, 3.4028234663852886e38],
    "FP16": [1.0, -2.5, 0.0, 65504.0],
    "BF16": [1.0, -2.5, 0.0, 3.3895313892515355e38],
}


def int_values(dt):
    lo, hi = int_range(dt)
    vals = [0, 1, 2, 3, 7, 100, hi, hi - 1, lo, lo + 1, hi // 2 + 1, (lo + hi) // 2]
    if lo < 0:
        vals += [-1, -2, -7, -100]
    else:
        vals += [hi - 100, 128, 255 if hi > 255 else 127, hi - 7]
    return [ibits(dt, wrap(dt, v)) for v in vals]


def int_scalars(dt):
    lo, hi = int_range(dt)
    return [1, -1 if lo < 0 else 3, hi, lo]


#===--- expectations and comparison ---===#
# One expectation per output element:
#   ("bits", b)               exactly this pattern
#   ("nan",)                  any NaN of the type
#   ("oneof", {b, ...}, nan)  one of these patterns, or any NaN when `nan` (an operand the spec lets through is NaN)
#   ("near", ref, tol[, inf]) |got - ref| <= tol (ref a float64; an infinite ref needs the same infinity, a NaN ref a
#                             NaN); with `inf` the infinity of ref's sign passes too (ref within tol of overflow)
#   ("any",)                  the spec leaves it open


def satisfied(dt, got, e):
    k = e[0]
    if k == "bits":
        return got == e[1]
    if k == "nan":
        return is_nan(dt, got)
    if k == "oneof":
        return got in e[1] or (e[2] and is_nan(dt, got))
    if k == "near":
        ref, tol = e[1], e[2]
        g = to_f64(FMT[dt], got)
        if ref != ref:
            return g != g
        if ref in (float("inf"), float("-inf")):
            return g == ref
        if len(e) > 3 and e[3] and g == (float("inf") if ref > 0 else float("-inf")):
            return True
        return g == g and abs(g - ref) <= tol
    return True


def perturbed(dt, e):
    """An expectation the element that satisfied `e` cannot satisfy (see --perturb)."""
    k = e[0]
    if k == "bits":
        return ("bits", e[1] ^ 1)
    if k == "nan":
        return ("bits", 0)
    if k == "oneof":  # a number none of the admissible patterns is (and no NaN)
        for c in [b ^ 1 for b in sorted(e[1])] + [3, 5]:
            if not is_nan(dt, c) and c not in e[1]:
                return ("bits", c)
    if k == "near":
        ref, tol = e[1], e[2]
        if ref != ref:
            return ("bits", 0)
        if ref in (float("inf"), float("-inf")):
            return ("bits", 0)
        return ("near", ref + 3 * tol, tol)
    return e


def fmt_bits(dt, b):
    if dt in FMT:
        return f"{to_f64(FMT[dt], b)!r} ({b:#0{SIZE[dt] * 2 + 2}x})"
    return str(ival(dt, b))


def compare(what, dt, got, want):
    """got: an array of patterns; want: a same-shaped list (of lists) of expectations."""
    global checks
    got = np.asarray(got).reshape(-1)
    flat = [e for row in want for e in row] if want and isinstance(want[0], list) else list(want)
    if len(flat) != got.size:
        fail(what, f"{got.size} elements, {len(flat)} expected")
        return
    bad, first = 0, None
    for i, (g, e) in enumerate(zip(got.tolist(), flat)):
        if e[0] == "any":
            continue
        checks += 1
        if PERTURB:
            if satisfied(dt, g, perturbed(dt, e)):
                bad += 1
                first = first if first is not None else (i, g, e)
        elif not satisfied(dt, g, e):
            bad += 1
            first = first if first is not None else (i, g, e)
    if bad:
        i, g, e = first
        if PERTURB:
            fail(what, f"{bad} perturbed elements went unnoticed, first #{i}: {fmt_bits(dt, g)} against {perturbed(dt, e)}")
        else:
            shown = e if e[0] != "bits" else ("bits", fmt_bits(dt, e[1]))
            fail(what, f"{bad} of {len(flat)} elements differ, first #{i}: got {fmt_bits(dt, g)}, want {shown}")


#===--- kernels and runs ---===#

def tile_ty(dt, r, c, space="Vec", valid=None, extra=""):
    v = f", valid=[{valid[0]}, {valid[1]}]" if valid is not None else ""
    return f"Tile[[{r}, {c}], {dt}, {space}{extra}{v}]"


class Kernel:
    """A device kernel written as text: parameters, op lines, out tensors, the inputs it is run on."""

    def __init__(self, name, kind="aiv"):
        self.name, self.kind = name, kind
        self.params, self.lines, self.rets = [], [], []
        self.inputs, self.scalars, self.outs, self.labels = {}, [], {}, {}
        self.n = 0

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def op(self, line):
        self.lines.append(line)

    def tile_in(self, dt, bits, valid=None, space="Vec", extra=""):
        """A tile loaded from a new tensor parameter holding the patterns `bits` ([R, C])."""
        bits = np.ascontiguousarray(np.asarray(bits, np.uint64).astype(UINT[SIZE[dt]]))
        r, c = bits.shape
        p, v = self.fresh("In"), self.fresh("x")
        if dt in HOST:
            self.params.append(f"{p}: Tensor[[{r}, {c}], {dt}]")
            self.inputs[p] = bits.view(HOST[dt])
            ext = f", ({valid[0]}, {valid[1]})" if valid is not None else ""
            self.op(f"{v} = tile.load({p}, (0, 0), ({r}, {c}){ext}) : {tile_ty(dt, r, c, space, valid, extra)}")
            return v
        assert valid is None and space == "Vec" and c * SIZE[dt] % 4 == 0
        cc = c * SIZE[dt] // 4
        carrier = self.fresh("c")
        self.params.append(f"{p}: Tensor[[{r}, {cc}], INT32]")
        self.inputs[p] = bits.view(np.int32)
        self.op(f"{carrier} = tile.load({p}, (0, 0), ({r}, {cc})) : {tile_ty('INT32', r, cc)}")
        self.op(f"{v} = tile.reinterpret_view({carrier}) : {tile_ty(dt, r, c)}")
        return v

    def scalar_in(self, dt, value):
        p = self.fresh("s")
        self.params.append(f"{p}: Scalar[{dt}]")
        self.scalars.append((p, value))
        return p

    def tile_out(self, dt, var, tile_shape, shape=None, sentinel=None, at=(0, 0), label=None):
        """Stores tile `var` ([r, c], full valid unless `sentinel`) at `at` of a new out tensor of
        `shape` (default the tile's); with `sentinel` ([R, C] patterns) the tensor is inout and
        starts with them, so elements the store must not write can be checked. Returns the key."""
        r, c = tile_shape
        R, C = shape or tile_shape
        p = self.fresh("Out")
        direction = "inout" if sentinel is not None else "out"
        if dt in HOST:
            tensor = f"Tensor[[{R}, {C}], {dt}]"
            src = var
            if sentinel is not None:
                self.inputs[p] = np.ascontiguousarray(np.asarray(sentinel, np.uint64).astype(UINT[SIZE[dt]])).view(HOST[dt])
        else:
            assert c * SIZE[dt] % 4 == 0 and C * SIZE[dt] % 4 == 0 and sentinel is None and at == (0, 0)
            tensor = f"Tensor[[{R}, {C * SIZE[dt] // 4}], INT32]"
            src = self.fresh("oc")
            self.op(f"{src} = tile.reinterpret_view({var}) : {tile_ty('INT32', r, c * SIZE[dt] // 4)}")
        self.params.append(f"{p}: {direction} {tensor}")
        res = self.fresh("r")
        self.op(f"{res} = tile.store({src}, ({at[0]}, {at[1]}), {p}) : {tensor}")
        self.rets.append((res, tensor))
        self.outs[p] = (dt, R, C)
        self.labels[p] = label or p
        return p

    def text(self):
        types = [t for _, t in self.rets]
        result = types[0] if len(types) == 1 else "(" + ", ".join(types) + ")"
        body = "\n".join("  " + l for l in self.lines)
        return (f"{self.kind} @{self.name}({', '.join(self.params)}) -> {result} {{\n{body}\n"
                f"  return {', '.join(r for r, _ in self.rets)}\n}}\n")


LOWER = ["--rollout=extended", "--planner=pypto", "--print-after", "verify_buffer"]
_ops_listing = None


def list_ops():
    """`t2b-opt --list-ops` as {mnemonic: fields}."""
    global _ops_listing
    if _ops_listing is None:
        p = subprocess.run([T2B, "--list-ops"], capture_output=True, text=True, check=True)
        _ops_listing = {f[0]: f for f in (l.split("\t") for l in p.stdout.splitlines())}
    return _ops_listing


def ops_in(text):
    """The mnemonics of the ops a program text holds: dotted ops by name, the scalar ops by the
    statement forms docs/text-format.md gives them (infix spellings from --list-ops)."""
    infix = {f[12]: mn for mn, f in list_ops().items() if f[12] != "-"}
    # --list-ops prints an empty field as '-', so scalar.sub's infix spelling '-' reads as none
    # (docs/text-format.md: `a - b` is scalar.sub).
    infix["-"] = "scalar.sub"
    found = set(re.findall(r"\b((?:tile|buffer)\.\w+)\(", text))
    for line in text.splitlines():
        m = re.match(r"\s*\w+ = (.*?)(?: : .*)?$", line)
        if not m:
            continue
        rhs = m.group(1).split()
        if len(rhs) == 3 and rhs[1] in infix:
            found.add(infix[rhs[1]])
        elif len(rhs) == 2 and rhs[0] == "not":
            found.add("not")
        elif rhs and re.match(r"(min|max|cast)\(", rhs[0]):
            found.add(rhs[0].split("(")[0])
        elif len(rhs) == 1 and re.match(r"-?[\w.]+$", rhs[0]):
            found.add("scalar.const")
    return found


def run(k, lowered=False, grid_n=1, subblocks=1, unwritten_ok=False):
    """Runs kernel k; returns ({out key: [R, C] patterns}, simulator, ops run) or raises RuntimeError.
    `unwritten_ok`: the kernel leaves parts of an out tensor alone (they hold -555)."""
    global runs
    runs += 1
    d = tempfile.mkdtemp(dir=WORK)
    path = os.path.join(d, k.name + ".t2b")
    text = k.text()
    with open(path, "w") as fh:
        fh.write(text)
    cmd = [T2B, path, "--run", k.name, "--output-dir", d, f"--grid={grid_n}", f"--subblocks={subblocks}"]
    cmd += LOWER if lowered else []
    for name, arr in k.inputs.items():
        np.save(os.path.join(d, f"in_{name}.npy"), arr)
        cmd += ["--input", f"{name}={os.path.join(d, f'in_{name}.npy')}"]
    for name, value in k.scalars:
        cmd += ["--scalar", f"{name}={value}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.strip()[-2000:]}\n--- kernel ---\n{text}")
    warnings = [l for l in p.stderr.splitlines() if "warning" in l and not (unwritten_ok and "were never written" in l)]
    if warnings:
        # Poison or never-written outputs: every output here is fully determined by its inputs.
        raise RuntimeError("unexpected warning: " + "\n".join(warnings) + f"\n{text}")
    sim = "buffer" if "(Buffer IR)" in p.stdout else "tile"
    if sim != ("buffer" if lowered else "tile"):
        raise RuntimeError(f"ran in the {sim} simulator, expected the {'buffer' if lowered else 'tile'} one\n{p.stderr}")
    outs = {}
    for name, (dt, r, c) in k.outs.items():
        a = np.load(os.path.join(d, name + ".npy"))
        outs[name] = np.ascontiguousarray(a).view(UINT[SIZE[dt]]).reshape(r, c).astype(np.uint64)
    ran = ops_in(p.stderr) if lowered else ops_in(text)
    return outs, sim, ran


class FileKernel:
    """A function of an existing .t2b file, run like a Kernel (outs: {tensor: (dtype, rows, cols)})."""

    def __init__(self, name, text, inputs, scalars, outs):
        self.name, self._text, self.inputs, self.scalars, self.outs = name, text, inputs, scalars, outs
        self.labels = {o: o for o in outs}

    def text(self):
        return self._text


def checked_run(what, k, expect, lowered=False, **kw):
    """Runs k and compares each out key's patterns with expect[key] = (dtype, expectations); marks
    the kernel's ops covered in the simulator it ran in (a wrong value is reported by compare)."""
    try:
        outs, sim, ran = run(k, lowered, **kw)
    except RuntimeError as e:
        fail(what + (" (lowered)" if lowered else ""), str(e))
        return
    for key, (dt, want) in expect.items():
        compare(f"{what}: {k.labels[key]}" + (" (lowered)" if lowered else ""), dt, outs[key], want)
    covered.update((op, sim) for op in ran)


def expect_refusal(what, k, needle):
    """The simulator must stop k with a located error containing `needle` (an op the simulator does
    not define on this dtype must not compute a number)."""
    global runs, checks
    runs += 1
    checks += 1
    d = tempfile.mkdtemp(dir=WORK)
    path = os.path.join(d, k.name + ".t2b")
    with open(path, "w") as fh:
        fh.write(k.text())
    cmd = [T2B, path, "--run", k.name, "--output-dir", d]
    for name, arr in k.inputs.items():
        np.save(os.path.join(d, f"in_{name}.npy"), arr)
        cmd += ["--input", f"{name}={os.path.join(d, f'in_{name}.npy')}"]
    for name, value in k.scalars:
        cmd += ["--scalar", f"{name}={value}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    refused = p.returncode == 1 and needle in p.stderr and re.search(r"\.t2b:\d+:\d+: error:", p.stderr) is not None
    # Under --perturb the expectation is "it runs": a refusal contradicts it, as it must.
    if not refused:
        fail(what, f"expected a located refusal containing {needle!r}, got exit {p.returncode}: {p.stderr.strip()[-500:]}")


#===--- formulas: IEEE arithmetic on decoded values ---===#
# A value is ("nan",), ("inf", neg) or ("num", neg, magnitude).

NAN = ("nan",)


def val(dt, b):
    v = decode(FMT[dt], b)
    return NAN if v[0] == "nan" else v


def signed(v):
    return -v[2] if v[1] else v[2]


def from_signed(q, neg_zero=False):
    return ("num", q < 0 or (q == 0 and neg_zero), abs(q))


def ieee_add(a, b):
    if a[0] == "nan" or b[0] == "nan":
        return NAN
    if a[0] == "inf" or b[0] == "inf":
        if a[0] == "inf" and b[0] == "inf" and a[1] != b[1]:
            return NAN
        return a if a[0] == "inf" else b
    s = signed(a) + signed(b)
    # An exact zero sum is -0 only when both addends are -0 (round to nearest, IEEE 754 §6.3).
    return from_signed(s, neg_zero=(a[1] and b[1] and a[2] == 0 and b[2] == 0))


def ieee_neg(a):
    return a if a[0] == "nan" else (a[0], not a[1]) + a[2:]


def ieee_mul(a, b):
    if a[0] == "nan" or b[0] == "nan":
        return NAN
    neg = a[1] != b[1]
    if a[0] == "inf" or b[0] == "inf":
        other = b if a[0] == "inf" else a
        return NAN if other[0] == "num" and other[2] == 0 else ("inf", neg)
    return ("num", neg, a[2] * b[2])


def rounded(dt, v, mode=RINT):
    """An exact value rounded once to float type dt: the expectation."""
    f = FMT[dt]
    if v[0] == "nan":
        return ("nan",)
    if v[0] == "inf":
        return ("bits", f.inf | (f.sign if v[1] else 0))
    return ("bits", encode(f, v[1], v[2], mode))


def is_zero(v):
    return v[0] == "num" and v[2] == 0


def gt(a, b):
    """a > b on non-NaN values."""
    def key(v):
        return (float("-inf") if v[1] else float("inf")) if v[0] == "inf" else signed(v)
    return key(a) > key(b)


def maxmin(dt, xb, yb, want_max):
    """maximum/minimum: exact where the spec fixes it; with a NaN operand either operand (the spec
    leaves propagation open, extended-rollout.md §2.7), with +-0 against +-0 either zero."""
    x, y = val(dt, xb), val(dt, yb)
    if x[0] == "nan" or y[0] == "nan":
        return ("oneof", {xb, yb}, True)
    if is_zero(x) and is_zero(y):
        return ("oneof", {xb, yb}, False)
    pick_x = gt(x, y) if want_max else gt(y, x)
    return ("bits", xb if pick_x else yb)


def inexact(dt, ref):
    """The expectation of an op without a correctly rounded native implementation: within two units
    in the last place of dt at the float64 reference; infinities, NaN and exact zeros exactly."""
    f = FMT[dt]
    if ref != ref:
        return ("nan",)
    if ref in (float("inf"), float("-inf")):
        return ("near", ref, 0.0)
    big = to_f64(f, f.maxfin)
    tol = 2 * ulp(f, ref)
    if abs(ref) > big + ulp(f, big) / 2 + tol:  # rounds to infinity even after an error of `tol`
        return ("near", float("inf") if ref > 0 else float("-inf"), 0.0)
    if ref == 0:
        return ("bits", f.sign if str(ref).startswith("-") else 0)
    # Within `tol` of the overflow threshold (max + half an ulp) both the largest finite value and
    # the infinity are a result `tol` away from the exact one.
    return ("near", ref, tol, abs(ref) + tol >= big + ulp(f, big) / 2)


def f64_op(name, x, y=None):
    """A float64 reference of an inexact op on exactly converted inputs."""
    with np.errstate(all="ignore"):
        x = np.float64(x)
        if name == "exp":
            return float(np.exp(x))
        if name == "log":
            return float(np.log(x))
        if name == "sqrt":
            return float(np.sqrt(x))
        if name == "recip":
            return float(np.float64(1.0) / x)
        if name == "rsqrt":
            return float(np.float64(1.0) / np.sqrt(x))
        if name == "div":
            return float(x / np.float64(y))
    raise KeyError(name)


#===--- elementwise ops (reference-semantics.md §9.3) ---===#

BINARY = ["add", "mul", "sub", "div", "maximum", "minimum"]
UNARY = ["abs", "exp", "sqrt", "neg", "relu", "log", "recip", "rsqrt"]
SCALAR_FORMS = ["adds", "subs", "muls", "divs", "maximums", "minimums", "lrelu"]
HIGH_PRECISION = ["div", "log", "recip", "rsqrt"]  # ops with the `high_precision` keyword: same value, tighter native
# The ops the simulator defines on integers (exact two's-complement results); the others must be refused.
INT_DEFINED = {"add", "mul", "sub", "maximum", "minimum", "abs", "neg", "relu", "adds", "subs", "muls", "maximums",
               "minimums", "full"}


def ew_float(op, dt, xb, yb):
    """The expectation of tile.<op> on float type dt for operand patterns xb (and yb: the second
    operand or the scalar, already of type dt)."""
    f = FMT[dt]
    x = val(dt, xb)
    base = op[:-1] if op in ("adds", "subs", "muls", "divs", "maximums", "minimums") else op
    if base == "add":
        return rounded(dt, ieee_add(x, val(dt, yb)))
    if base == "sub":
        return rounded(dt, ieee_add(x, ieee_neg(val(dt, yb))))
    if base == "mul":
        return rounded(dt, ieee_mul(x, val(dt, yb)))
    if base == "div":
        return inexact(dt, f64_op("div", to_f64(f, xb), to_f64(f, yb)))
    if base in ("maximum", "minimum"):
        return maxmin(dt, xb, yb, base == "maximum")
    if op == "full":
        return ("bits", yb)
    if x[0] == "nan":
        # relu = max(x, 0): NaN propagation is the spec's open choice; every other op gives NaN.
        return ("oneof", {0}, True) if op == "relu" else ("nan",)
    if op == "abs":
        return ("bits", xb & ~f.sign)
    if op == "neg":
        return ("bits", xb ^ f.sign)
    if op == "relu":
        if is_zero(x):
            return ("oneof", {0, f.sign}, False)  # max(+-0, 0): the signed-zero choice is open
        return ("bits", xb if not x[1] else 0)
    if op == "lrelu":
        if is_zero(x):
            return ("oneof", {0, f.sign}, False)  # x or a*x at x = 0: [U] in §9.3, both zeros
        return ("bits", xb) if not x[1] else rounded(dt, ieee_mul(val(dt, yb), x))
    if op == "rsqrt" and (x[1] or is_zero(x)):
        return ("any",)  # "results for x <= 0 are target-defined" (extended-rollout.md §3.6)
    return inexact(dt, f64_op(op, to_f64(f, xb)))


def ew_int(op, dt, xb, yb):
    x, y = ival(dt, xb), ival(dt, yb)
    base = op[:-1] if op in ("adds", "subs", "muls", "maximums", "minimums") else op
    r = {"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y, "maximum": lambda: max(x, y),
         "minimum": lambda: min(x, y), "abs": lambda: abs(x), "neg": lambda: -x, "relu": lambda: max(x, 0),
         "full": lambda: y}[base]()
    return ("bits", ibits(dt, wrap(dt, r)))


def ew_expect(op, dt, xb, yb=0):
    return ew_float(op, dt, xb, yb) if dt in FMT else ew_int(op, dt, xb, yb)


def scalar_text(dt, b):
    """The --scalar text of pattern b of type dt (exact: the value is one of dt's)."""
    return repr(to_f64(FMT[dt], b)) if dt in FMT else str(ival(dt, b))


def elementwise(dt):
    """Every elementwise op defined on dt in one kernel: binary ops on every pair of edge values,
    unary ops and the scalar forms on the unary edge values with each scalar, fills."""
    if dt in FMT:
        vals, extra = PAIRS[dt], [bits_of(dt, v) for v in UNARY_EXTRA[dt]]
        scal = [bits_of(dt, v) for v in SCALARS[dt]]
    else:
        vals, extra = int_values(dt), []
        scal = [ibits(dt, wrap(dt, v)) for v in int_scalars(dt)]
    ops_b = [o for o in BINARY if dt in FMT or o in INT_DEFINED]
    ops_u = [o for o in UNARY if dt in FMT or o in INT_DEFINED]
    ops_s = [o for o in SCALAR_FORMS if dt in FMT or o in INT_DEFINED]
    pairs = [(a, b) for a in vals for b in vals]
    X, Y = grid([a for a, _ in pairs], 8), grid([b for _, b in pairs], 8)
    U = grid(vals + extra, 8)
    k = Kernel("ew")
    x, y, u = k.tile_in(dt, X), k.tile_in(dt, Y), k.tile_in(dt, U)
    expect = {}

    def out(label, var, shape, want):
        expect[k.tile_out(dt, var, shape, label=label)] = (dt, want)

    for op in ops_b:
        for hp in ([False, True] if op in HIGH_PRECISION and dt in FMT else [False]):
            z = k.fresh("z")
            k.op(f"{z} = tile.{op}({x}, {y}{', high_precision = true' if hp else ''}) : {tile_ty(dt, *X.shape)}")
            out(f"tile.{op}{' high_precision' if hp else ''}", z, X.shape,
                [[ew_expect(op, dt, int(a), int(b)) for a, b in zip(ra, rb)] for ra, rb in zip(X, Y)])
    for op in ops_u:
        for hp in ([False, True] if op in HIGH_PRECISION and dt in FMT else [False]):
            z = k.fresh("z")
            k.op(f"{z} = tile.{op}({u}{', high_precision = true' if hp else ''}) : {tile_ty(dt, *U.shape)}")
            out(f"tile.{op}{' high_precision' if hp else ''}", z, U.shape, [[ew_expect(op, dt, int(a)) for a in row] for row in U])
    for sb in scal:
        s = k.scalar_in(dt, scalar_text(dt, sb))
        for op in ops_s:
            z = k.fresh("z")
            k.op(f"{z} = tile.{op}({u}, {s}) : {tile_ty(dt, *U.shape)}")
            out(f"tile.{op} scalar {scalar_text(dt, sb)}", z, U.shape, [[ew_expect(op, dt, int(a), sb) for a in row] for row in U])
        z = k.fresh("full")
        k.op(f"{z} = tile.full({s}) : {tile_ty(dt, 2, 8)}")
        out(f"tile.full {scalar_text(dt, sb)}", z, (2, 8), [[("bits", sb)] * 8] * 2)
    checked_run(f"elementwise {dt}", k, expect)
    if dt == "FP32":  # the default rollout lowers every FP32 elementwise op: the Buffer models too
        checked_run(f"elementwise {dt}", k, expect, lowered=True)


def lowered_add_mul(dt):
    """add and mul lower on FP16 and INT32 too (reference §2.4 MatchingVec)."""
    vals = PAIRS[dt] if dt in FMT else int_values(dt)
    pairs = [(a, b) for a in vals for b in vals]
    X, Y = grid([a for a, _ in pairs], 16), grid([b for _, b in pairs], 16)
    k = Kernel("add_mul")
    x, y = k.tile_in(dt, X), k.tile_in(dt, Y)
    expect = {}
    for op in ("add", "mul"):
        z = k.fresh("z")
        k.op(f"{z} = tile.{op}({x}, {y}) : {tile_ty(dt, *X.shape)}")
        expect[k.tile_out(dt, z, X.shape, label=f"tile.{op}")] = (dt, [[ew_expect(op, dt, int(a), int(b)) for a, b in zip(ra, rb)]
                                                                       for ra, rb in zip(X, Y)])
    checked_run(f"add/mul {dt}", k, expect, lowered=True)


def refusals():
    """Each (op, dtype) the simulator does not define stops the run with a located error naming the
    dtype instead of computing a number (ew_defined: integers only where the result is exact)."""
    for dt in INTS + ["BOOL"]:
        for op in BINARY + UNARY + SCALAR_FORMS + ["full"]:
            if dt != "BOOL" and op in INT_DEFINED:
                continue
            k = Kernel("undefined")
            x = k.tile_in(dt, grid([1, 2, 3, 4], 8))
            z = k.fresh("z")
            if op == "full":
                rhs = f"tile.full({k.scalar_in(dt, '1')})"
            elif op in SCALAR_FORMS:
                rhs = f"tile.{op}({x}, {k.scalar_in(dt, '1')})"
            else:
                rhs = f"tile.{op}({x}{', ' + x if op in BINARY else ''})"
            k.op(f"{z} = {rhs} : {tile_ty(dt, 1, 8)}")
            k.tile_out(dt, z, (1, 8))
            expect_refusal(f"tile.{op} on {dt}", k, f"not defined on {dt}")


#===--- reductions (extended-rollout.md §3.1, §3.2; docs/ops.md item 7) ---===#

REDUCTIONS = ["row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min"]
SENTINEL = {"FP32": 0x7F8F0BAD, "FP16": 0x7D0B, "BF16": 0x7F8B, "INT8": 0x5A, "INT32": 0x5EAF0BAD}  # NaN/odd patterns no op writes


def fold(dt, xs, op):
    """A reduction as the simulator states it (docs/ops.md item 7): sums fold in order (a row left
    to right, a column top to bottom), each add rounded to dt; max/min are exact (the spec allows
    no NaN in them here: its propagation is open, §2.7, and see the report), a +-0 tie either zero."""
    if op == "sum":
        acc = val(dt, xs[0])
        for b in xs[1:]:
            r = rounded(dt, ieee_add(acc, val(dt, b)))
            if r[0] == "nan":
                return r
            acc = val(dt, r[1])
        return rounded(dt, acc)
    vs = [val(dt, b) for b in xs]
    best = vs[0]
    for v in vs[1:]:
        if (gt(v, best) if op == "max" else gt(best, v)):
            best = v
    if is_zero(best) and any(is_zero(v) and v[1] != best[1] for v in vs):
        return ("oneof", {0, FMT[dt].sign}, False)
    return rounded(dt, best)


def reduction_inputs(dt, nan_ok):
    """A [16, 16] source: finite edge values drawn with a fixed seed, then planted rows and columns
    whose sequential fold differs from any other order (2^24 + 1 + 1 ... stays 2^24 in FP32),
    overflow to infinity, all -0, inf - inf and (sums only) a NaN."""
    f = FMT[dt]
    rng = np.random.default_rng({"FP32": 1, "FP16": 2, "BF16": 3}[dt])
    pool = [b for b in PAIRS[dt] if decode(f, b)[0] == "num"]
    X = np.array(rng.choice(pool, (16, 16)), dtype=np.uint64)
    tie = bits_of(dt, {"FP32": 2.0 ** 24, "FP16": 2048.0, "BF16": 256.0}[dt])
    one, big, nz = bits_of(dt, 1.0), f.maxfin, f.sign
    X[0, :] = one
    X[0, 0] = tie
    X[1:, 0] = one
    X[1, 1:] = big
    X[2:, 1] = big
    X[2, 2:] = nz
    X[3:, 2] = nz
    X[3, 3:5] = [f.inf, f.inf | f.sign]
    X[5:7, 3] = [f.inf, f.inf | f.sign]
    if nan_ok:
        X[4, 9] = 0x7FC12345 if dt == "FP32" else (0x7E55 if dt == "FP16" else 0x7FC5)
        X[9, 4] = X[4, 9]
    return X


def reductions(dt, valid, lowered=False):
    """Every reduction of dt over a source whose valid extents may be smaller than its physical
    ones (folding physical rows or columns would read never-written storage: a run warning)."""
    r, c = valid
    XS, XM = reduction_inputs(dt, True), reduction_inputs(dt, False)
    k = Kernel("reduce")
    xs = k.tile_in(dt, XS, valid=valid)
    xm = k.tile_in(dt, XM, valid=valid)
    expect = {}
    sent = SENTINEL[dt]
    for op in REDUCTIONS:
        rows = op.startswith("row")
        src, X = (xs, XS) if op.endswith("sum") else (xm, XM)
        z = k.fresh("z")
        scratch = ""
        if op in ("row_sum", "row_max", "row_min", "col_sum") and valid != (16, 16):
            # The optional scratch operand written by hand (materialize_native_scratch adds it otherwise).
            t = k.fresh("tmp")
            k.op(f"{t} = tile.create() : {tile_ty(dt, 16, 16)}")
            scratch = ", " + t
        res = tile_ty(dt, 16, 1, valid=(r, 1)) if rows else tile_ty(dt, 1, 16, valid=(1, c))
        k.op(f"{z} = tile.{op}({src}{scratch}) : {res}")
        # A column result goes to a one-column tensor: a2a3 stores a DN tile only contiguously.
        shape = (16, 1) if rows else (2, 16)
        want = [[("bits", sent)] * shape[1] for _ in range(shape[0])]
        kind = op.split("_")[1]
        for i in range(r if rows else c):
            line = [int(v) for v in (X[i, :c] if rows else X[:r, i])]
            want[i if rows else 0][0 if rows else i] = fold(dt, line, kind)
        expect[k.tile_out(dt, z, (16, 1) if rows else (1, 16), shape, sentinel=np.full(shape, sent), label=f"tile.{op}")] = (dt, want)
    checked_run(f"reductions {dt} valid {valid}", k, expect, lowered=lowered)


def reduction_refusals():
    """Reductions are defined on floats only (ew_table's fold steps round to a float type)."""
    for dt in INTS + ["BOOL"]:
        for op in REDUCTIONS:
            k = Kernel("undefined")
            x = k.tile_in(dt, grid(range(1, 17), 8))
            rows = op.startswith("row")
            k.op(f"{k.fresh('z')} = tile.{op}({x}) : {tile_ty(dt, 2, 1) if rows else tile_ty(dt, 1, 8)}")
            k.tile_out(dt, x, (2, 8))  # the run must stop before this store
            expect_refusal(f"tile.{op} on {dt}", k, f"reductions are not defined on {dt}")


#===--- broadcasts (extended-rollout.md §3.3-§3.5b) ---===#

ROW_ARITH = ["row_expand_sub", "row_expand_div", "row_expand_mul"]
COL_ARITH = ["col_expand_add", "col_expand_sub", "col_expand_mul", "col_expand_div", "col_expand_max",
             "col_expand_min", "col_expand_expdif"]


def arith(op, dt, xb, wb):
    """x[i, j] op w for the broadcast arithmetic: the elementwise formula of the same op; expdif is
    the unfused pair (extended-rollout.md §3.5b): the difference rounded to dt, then exp."""
    name = op.split("_")[-1]
    if name == "expdif":
        d = ew_float("sub", dt, xb, wb)
        if d[0] == "nan":
            return d
        return inexact(dt, f64_op("exp", to_f64(FMT[dt], d[1])))
    return ew_float({"max": "maximum", "min": "minimum"}.get(name, name), dt, xb, wb)


def broadcast_values(dt, n, seed):
    rng = np.random.default_rng(seed)
    if dt in FMT:
        return [int(v) for v in rng.choice(PAIRS[dt] + [bits_of(dt, x) for x in UNARY_EXTRA[dt]], n)]
    return [int(v) for v in rng.integers(0, 1 << (8 * SIZE[dt]), n, dtype=np.uint64)]


def broadcasts(dt, valid, lowered=False):
    """row_expand/col_expand on any dtype (they move bits), the broadcast arithmetic on floats; the
    vector's valid rows (columns) equal the result's, which may be fewer than its physical ones."""
    r, c = valid
    full = valid == (16, 16)
    V = np.array(broadcast_values(dt, 16, 11), dtype=np.uint64).reshape(1, 16)
    W = np.array(broadcast_values(dt, 16, 12), dtype=np.uint64).reshape(1, 16)
    X = np.array(broadcast_values(dt, 256, 13), dtype=np.uint64).reshape(16, 16)
    if dt in FMT:  # signalling and quiet NaNs with payloads in the broadcast vectors (they move bits)
        f = FMT[dt]
        V[0, :3] = W[0, 1:4] = [f.inf | 1, f.inf | f.sign | 3, f.inf | (1 << (f.fbits - 1)) | 5]
    k = Kernel("bcast")
    host = dt in HOST
    # The column vector comes in as a [1, 16] row and is relabelled (a column-vector load stays Tile, §2.5).
    vrow = k.tile_in(dt, V, valid=None if full or not host else (1, r))
    v = k.fresh("v")
    k.op(f"{v} = tile.reshape({vrow}, (16, 1)) : {tile_ty(dt, 16, 1, valid=(r, 1))}")
    w = k.tile_in(dt, W, valid=None if full or not host else (1, c))
    expect = {}
    sent = SENTINEL.get(dt)

    def out(var, want, label):
        sentinel = None if full else np.full((16, 16), sent)
        expect[k.tile_out(dt, var, (16, 16), sentinel=sentinel, label=label)] = (dt, want)

    def window(fn):
        return [[fn(i, j) if i < r and j < c else ("bits", sent) for j in range(16)] for i in range(16)]

    z = k.fresh("z")
    k.op(f"{z} = tile.row_expand({v}) : {tile_ty(dt, 16, 16, valid=valid)}")
    out(z, window(lambda i, j: ("bits", int(V[0, i]))), "tile.row_expand")
    z = k.fresh("z")
    k.op(f"{z} = tile.col_expand({w}) : {tile_ty(dt, 16, 16, valid=valid)}")
    out(z, window(lambda i, j: ("bits", int(W[0, j]))), "tile.col_expand")
    if dt in FMT:
        x = k.tile_in(dt, X, valid=None if full else valid)
        for op in ROW_ARITH:
            z = k.fresh("z")
            blk = ""
            if not full:  # the optional block scratch written by hand: [16, 32 / esize] with the vector's rows
                b = k.fresh("blk")
                k.op(f"{b} = tile.create() : {tile_ty(dt, 16, 32 // SIZE[dt], valid=(r, 32 // SIZE[dt]))}")
                blk = ", " + b
            k.op(f"{z} = tile.{op}({x}, {v}{blk}) : {tile_ty(dt, 16, 16, valid=valid)}")
            out(z, window(lambda i, j, op=op: arith(op, dt, int(X[i, j]), int(V[0, i]))), f"tile.{op}")
        for op in COL_ARITH:
            z = k.fresh("z")
            k.op(f"{z} = tile.{op}({x}, {w}) : {tile_ty(dt, 16, 16, valid=valid)}")
            out(z, window(lambda i, j, op=op: arith(op, dt, int(X[i, j]), int(W[0, j]))), f"tile.{op}")
    checked_run(f"broadcasts {dt} valid {valid}", k, expect, lowered=lowered)


def broadcast_refusals():
    """The broadcast arithmetic is defined on floats only (row_expand/col_expand move any dtype)."""
    for dt in INTS + ["BOOL"]:
        for op in ROW_ARITH + COL_ARITH:
            k = Kernel("undefined")
            x = k.tile_in(dt, grid(range(1, 65), 8))
            vec = k.fresh("v")
            k.op(f"{vec} = tile.create() : {tile_ty(dt, 8, 1) if op.startswith('row') else tile_ty(dt, 1, 8)}")
            k.op(f"{k.fresh('z')} = tile.{op}({x}, {vec}) : {tile_ty(dt, 8, 8)}")
            k.tile_out(dt, x, (8, 8))  # the run must stop before this store
            expect_refusal(f"tile.{op} on {dt}", k, "must share one float type")


#===--- tile.cast (docs/ops.md, Extended rollout item 5; ir/cast.hpp) ---===#

CAST_DTYPES = FLOATS + INTS  # BOOL: docs/ops.md states no cast to or from it (see the report)
MODES = [None, 0, 1, 2, 3, 4, 5, 6]  # None: no `mode` keyword (1, nearest even)


def cast_sources(dt):
    """Source patterns: halfway points of every narrower format and of integers, values just off
    them, overflow of each target (65520, 1e6, 3.3961775e38, 3e9 for INT32), subnormals of each
    format, +-0, infinities, NaNs with payloads (quiet, signalling, negative), integer extremes."""
    if dt == "FP32":
        xs = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 0.50000006, 0.6, -0.6, 1e-30, -1e-30, 127.5,
              -128.5, 128.0, 255.5, 256.0, -129.0, 32767.5, -32768.5, 65535.5, 65520.0, -65520.0, 65519.996,
              65504.0, 1e6, -1e6, 2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 3e9, -3e9, 4294967040.0,
              4294967296.0, 9.2233715e18, 9.223372e18, -9.223372e18, 1e20, -1e20, 3.3961775e38, -3.3961775e38,
              2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -26, -3 * 2.0 ** -26, 2.0 ** -14 * (1 + 2.0 ** -11), 1 + 2.0 ** -11,
              1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -11 + 2.0 ** -20, 2.0 ** -126,
              2.0 ** -133, 2.0 ** -134, 3 * 2.0 ** -135, 0.1, -0.1, 2049.0, 16777216.0, 1e-8]
        return [bits_of("FP32", x) for x in xs] + [0x00000001, 0x80000001, 0x7F7F7FFF, 0x7F7F8001, 0x7F7FFFFF,
                                                    0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC12345,
                                                    0x7F800001, 0xFFA00001, 0xFFC02000]
    if dt == "FP16":
        xs = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.5, -128.5, 255.5, 256.0, -129.0, 1000.5, -1000.5,
              300.0, -300.0, 4.5, 5.5, 65504.0, -65504.0, 2048.0, 2050.0, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8,
              1 + 2.0 ** -10, 0.1, -0.1, 32768.0, 0.25, 0.75]
        return [bits_of("FP16", x) for x in xs] + [0x0001, 0x8001, 0x0400, 0x03FF, 0x7BFF, 0x7C00, 0xFC00, 0x7E00,
                                                    0x7E55, 0x7C01, 0xFD55]
    if dt == "BF16":
        xs = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.5, -128.0, -129.0, 255.0, 256.0, 65280.0, 65536.0,
              69632.0, 3e9, -3e9, 2.0 ** 31, -2.0 ** 31, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 1e20, 2.0 ** -24,
              2.0 ** -25, 3 * 2.0 ** -26, 1 + 2.0 ** -7, 4.5, 5.5, 0.75]
        return [bits_of("BF16", float(np.float32(x))) if (f32(x) & 0xFFFF) == 0 else f32(x) >> 16 for x in xs] + [
            0x0001, 0x8001, 0x0080, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0x7FC5, 0x7F81, 0xFFC1, 0x3DCD, 0xBDCD]
    lo, hi = int_range(dt)
    xs = [0, 1, -1, 2, 3, 7, 100, -100, 127, -128, 128, -129, 255, 256, 257, 259, 300, -300, 2049, 2051, 32767,
          -32768, 65519, 65520, 65535, 65536, 70000, 16777217, 16777219, 2 ** 31 - 1, -2 ** 31, 2 ** 32 - 1,
          2 ** 53 + 1, 2 ** 60 + 2 ** 36 + 1, 2 ** 63 - 1, -2 ** 63, lo, hi, hi - 1, lo + 1]
    return sorted({ibits(dt, wrap(dt, x)) for x in xs})


def cast_expect(src, dst, b, mode):
    """One element of tile.cast(src -> dst, mode), as docs/ops.md states it."""
    m = RINT if mode is None else mode
    if src in FMT:
        v = decode(FMT[src], b)
        if dst in FMT:
            if v[0] == "nan":
                return ("bits", nan_cast_bits(src, dst, b))
            if v[0] == "inf":
                return ("bits", FMT[dst].inf | (FMT[dst].sign if v[1] else 0))
            return ("bits", encode(FMT[dst], v[1], v[2], RINT if m == NONE else m))
        lo, hi = int_range(dst)
        if v[0] == "nan":
            return ("bits", 0)  # saturation ON: NaN gives 0
        if v[0] == "inf":
            n = lo if v[1] else hi
        else:
            q = round_int(v[2], v[1], TRUNC if m in (NONE, ODD) else m)  # a2a3's default branch: `z`
            n = max(lo, min(hi, -q if v[1] else q))
        return ("bits", ibits(dst, n))
    n = ival(src, b)
    if dst in FMT:
        mm = RINT if m == NONE or dst == "FP16" else m  # integer -> FP16 is always RINT (vconv_deq)
        return ("bits", encode(FMT[dst], n < 0, Fraction(abs(n)), mm))
    return ("bits", ibits(dst, wrap(dst, n)))


def casts(src, lowered_pairs=None):
    """tile.cast from src to every dtype with every mode, in one kernel (or, lowered, the pairs the
    extended rollout lowers)."""
    pairs = lowered_pairs or [(d, m) for d in CAST_DTYPES for m in MODES]
    # Lowered tiles need 32-byte rows: 32 columns when a one-byte dtype takes part.
    byte_rows = lowered_pairs is not None and min(SIZE[d] for d in [src] + [d for d, _ in pairs]) == 1
    S = grid(cast_sources(src), 32 if byte_rows else 16)
    k = Kernel("cast")
    x = k.tile_in(src, S)
    expect = {}
    for dst, mode in pairs:
        z = k.fresh("z")
        kw = "" if mode is None else f", mode = {mode}"
        k.op(f"{z} = tile.cast({x}, {dst}{kw}) : {tile_ty(dst, *S.shape)}")
        expect[k.tile_out(dst, z, S.shape, label=f"to {dst} mode {'(none)' if mode is None else mode}")] = (
            dst, [[cast_expect(src, dst, int(b), mode) for b in row] for row in S])
    checked_run(f"cast from {src}", k, expect, lowered=lowered_pairs is not None)


#===--- the cube (reference-semantics.md §9.4) ---===#

CUBE = {"FP16": "FP32", "BF16": "FP32", "FP32": "FP32", "INT8": "INT32"}  # operand -> accumulator


def cube_values(dt, shape, rng):
    """Operands whose every product and partial sum is exact in the accumulator (§9.4: the tests
    keep values exact; FP32 x FP32 precision is [U]): multiples of 1/8 in [-2, 2], INT8 extremes."""
    if dt == "INT8":
        return rng.integers(-128, 128, shape).astype(np.int8).view(np.uint8).astype(np.uint64)
    q = rng.integers(-16, 17, shape) / 8.0
    return np.array([[bits_of(dt, float(v)) for v in row] for row in q], dtype=np.uint64)


def narrowing_values(dt):
    """[16, 32] values of operand type dt that an FP32 -> FP16/BF16 store must round (ties of both
    formats, their overflow, FP16 subnormals); the identity product carries them to the accumulator."""
    if dt == "FP32":
        xs = [65520.0, -65520.0, 65519.996, 2049.0, 2051.0, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 3.3961775e38,
              1e-8, 2.0 ** -25, 3 * 2.0 ** -26, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 0.1, 1e6, 3.4028235e38]
    elif dt == "FP16":
        xs = [65504.0, -65504.0, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 2049.0 - 1, 0.1, 2.0 ** -24, 1000.5, 1 + 2.0 ** -10,
              -3.0, 255.0, 257.0, 511.5, 0.333, 7.0, 32768.0]
    elif dt == "BF16":
        xs = [1e5, -1e5, 2.0 ** -25, 3 * 2.0 ** -26, 65536.0, 1 + 2.0 ** -7, 2.0 ** 100, 0.1, 255.0, -7.0, 1e-8, 3e38,
              2049.0, 2056.0, 0.5, 1.5]
    else:
        xs = list(range(-128, 128, 16))
    vals = [bits_of(dt, float(np.float32(x))) if dt in FMT and dt != "BF16" else
            (f32(x) >> 16 if dt == "BF16" else ibits(dt, int(x))) for x in xs]
    return np.array([[vals[(i * 5 + j) % len(vals)] for j in range(32)] for i in range(16)], dtype=np.uint64)


def exact(dt, bits):
    """Exact values (Fractions, or ints) of an array of patterns."""
    if dt in FMT:
        return [[signed(decode(FMT[dt], int(b))) for b in row] for row in bits]
    return [[ival(dt, int(b)) for b in row] for row in bits]


def product(a, b, kk=None):
    kk = len(b) if kk is None else kk
    return [[sum(a[i][t] * b[t][j] for t in range(kk)) for j in range(len(b[0]))] for i in range(len(a))]


def acc_expect(acc, store, q):
    """An accumulator element stored to a tensor of type `store`: FP32 rounded to nearest even
    (exact here), then the fix-pipe's narrowing to FP16/BF16, round to nearest even (§9.4 [U])."""
    if acc == "INT32":
        return ("bits", ibits("INT32", wrap("INT32", q)))
    if q == 0:
        return ("oneof", {0, FMT[store].sign}, False)  # a sum of signed zeros starting from either zero
    b = encode(FMT["FP32"], q < 0, abs(q))
    if store == "FP32":
        return ("bits", b)
    return rounded(store, decode(FMT["FP32"], b))


def cube(dt, lowered=False):
    """M = 16, K = 32, N = 32 (whole fractal boxes for every operand type: INT8's are [16, 32])."""
    acc = CUBE[dt]
    rng = np.random.default_rng({"FP16": 5, "BF16": 6, "FP32": 7, "INT8": 8}[dt])
    A, B, A2, B2 = (cube_values(dt, s, rng) for s in ((16, 32), (32, 32), (16, 32), (32, 32)))
    Bt, A3 = cube_values(dt, (32, 32), rng), cube_values(dt, (16, 64), rng)
    one = bits_of(dt, 1.0) if dt in FMT else 1
    Aid = np.zeros((16, 32), np.uint64)
    Aid[np.arange(16), np.arange(16)] = one
    Bv = np.zeros((32, 32), np.uint64)
    Bv[:16] = narrowing_values(dt)
    k = Kernel("cube", kind="aic")

    def mat(bits, valid=None):
        return k.tile_in(dt, bits, valid=valid, space="Mat")

    def move(x, shape, space, valid=None):
        v = k.fresh("m")
        k.op(f"{v} = tile.move({x}) : {tile_ty(dt, *shape, space, valid)}")
        return v

    def mm(lhs, rhs, acc_in=None, init=None):
        v = k.fresh("p")
        kw = "" if init is None else f", init_cond = {init}"
        src = f"tile.matmul_acc({acc_in}, {lhs}, {rhs}{kw})" if acc_in else f"tile.matmul({lhs}, {rhs})"
        k.op(f"{v} = {src} : {tile_ty(acc, 16, 32, 'Acc')}")
        return v

    expect = {}

    def out(var, exact_vals, store=acc, label=""):
        want = [[acc_expect(acc, store, q) for q in row] for row in exact_vals]
        expect[k.tile_out(store, var, (16, 32), label=label)] = (store, want)

    ea, eb, ea2, eb2 = exact(dt, A), exact(dt, B), exact(dt, A2), exact(dt, B2)
    al = move(mat(A), (16, 32), "Left")
    br = move(mat(B), (32, 32), "Right")
    al2 = move(mat(A2), (16, 32), "Left")
    br2 = move(mat(B2), (32, 32), "Right")
    c = mm(al, br)
    out(c, product(ea, eb), label="tile.matmul")
    d = mm(al2, br2, acc_in=c)
    out(d, [[x + y for x, y in zip(r1, r2)] for r1, r2 in zip(product(ea, eb), product(ea2, eb2))], label="tile.matmul_acc")
    e = mm(al, br2, acc_in=d, init="true")
    out(e, product(ea, eb2), label="tile.matmul_acc init_cond = true")
    # B given transposed: transpose_view relabels the NZ [N, K] tile as the ZN [K, N] one (§9.1).
    bt = k.tile_in(dt, Bt, space="Mat")
    b3 = k.fresh("bT")
    k.op(f"{b3} = tile.transpose_view({bt}) : {tile_ty(dt, 32, 32, 'Mat', extra=', ZN')}")
    f = mm(al, move(b3, (32, 32), "Right"))
    out(f, product(ea, [list(r) for r in zip(*exact(dt, Bt))]), label="tile.transpose_view + tile.matmul")
    # tile.extract: the Left window at column 32 of a [16, 64] Mat tile.
    a3 = k.tile_in(dt, A3, space="Mat")
    al3 = k.fresh("ext")
    k.op(f"{al3} = tile.extract({a3}, 0, 32) : {tile_ty(dt, 16, 32, 'Left')}")
    g = mm(al3, br)
    out(g, product([r[32:] for r in exact(dt, A3)], eb), label="tile.extract + tile.matmul")
    # Only the first 20 of K = 32 columns valid: the sum stops there (§9.4).
    alp = move(mat(A, valid=(16, 20)), (16, 32), "Left", valid=(16, 20))
    p = mm(alp, br)
    out(p, product(ea, eb, 20), label="tile.matmul, 20 valid K")
    h = mm(move(mat(Aid), (16, 32), "Left"), move(mat(Bv), (32, 32), "Right"))
    if acc == "FP32":
        for store in ("FP32", "FP16", "BF16"):
            out(h, product(exact(dt, Aid), exact(dt, Bv)), store=store, label=f"identity product stored as {store}")
    else:
        out(h, product(exact(dt, Aid), exact(dt, Bv)), label="identity product")
    checked_run(f"cube {dt}", k, expect, lowered=lowered)


def cube_refusals():
    """Operand types without a cube pair (§2.6: FP16, BF16, FP32, INT8) must not compute."""
    for dt in ["UINT8", "INT16", "INT32", "UINT32", "INT64", "INDEX", "BOOL"]:
        k = Kernel("undefined", kind="aic")
        a, b, c = k.fresh("a"), k.fresh("b"), k.fresh("c")
        k.op(f"{a} = tile.create() : {tile_ty(dt, 16, 32, 'Left')}")
        k.op(f"{b} = tile.create() : {tile_ty(dt, 32, 32, 'Right')}")
        k.op(f"{c} = tile.matmul({a}, {b}) : {tile_ty('INT32', 16, 32, 'Acc')}")
        k.tile_out("INT32", c, (16, 32))
        expect_refusal(f"tile.matmul on {dt}", k, "not a supported cube pair")


#===--- data movement: bits travel unchanged (reference-semantics.md §9.2; sim/numeric.hpp) ---===#

def column_transfers(dt, lowered=False):
    """Column vectors from and to GM (quantized-path.md §2.4), every pattern bit for bit: a column
    of a wider tensor (Tile IR only: it stays Tile, a2a3 loads a DN tile only from a contiguous
    column), and windows of a one-column tensor with full, partial static and runtime valid rows,
    stored into one-column tensors (rows past the valid ones keep their old patterns)."""
    rng = np.random.default_rng(SIZE[dt] * 37 + ALL.index(dt))
    R = 32 // SIZE[dt]  # R * esize = 32
    X = rng.integers(0, 1 << (8 * SIZE[dt]), (3 * R, 8), dtype=np.uint64)
    S = rng.integers(0, 1 << (8 * SIZE[dt]), (4 * R, 1), dtype=np.uint64)
    if dt in FMT:  # signalling NaNs of both signs (a conversion through float would quiet them)
        f = FMT[dt]
        X[R + 1, 5] = S[R + 1, 0] = f.inf | 1
        X[R + 2, 5] = S[R + 2, 0] = f.inf | f.sign | 1
    k = Kernel("columns")
    expect = {}
    col = tile_ty(dt, R, 1)

    def gm_in(bits):
        name = k.fresh("In")
        k.params.append(f"{name}: Tensor[[{bits.shape[0]}, {bits.shape[1]}], {dt}]")
        k.inputs[name] = np.ascontiguousarray(bits.astype(UINT[SIZE[dt]])).view(HOST[dt])
        return name

    def out(var, want, label, sentinel=None, at=(0, 0), rows=R):
        key = k.tile_out(dt, var, (R, 1), (rows, 1), sentinel=sentinel, at=at, label=label)
        expect[key] = (dt, [[("bits", int(b)) for b in r] for r in want])

    if not lowered:
        x = gm_in(X)
        c = k.fresh("c")
        k.op(f"{c} = tile.load({x}, ({R}, 5), ({R}, 1)) : {col}")
        out(c, X[R:2 * R, 5:6], "column 5 of a wider tensor")
    s_in = gm_in(S)
    c = k.fresh("c")
    k.op(f"{c} = tile.load({s_in}, ({R}, 0), ({R}, 1)) : {col}")
    out(c, S[R:2 * R], "window of a one-column tensor")
    sent = rng.integers(0, 1 << (8 * SIZE[dt]), (2 * R, 1), dtype=np.uint64)
    c = k.fresh("c")
    k.op(f"{c} = tile.load({s_in}, ({2 * R + 3}, 0), ({R}, 1), (2, 1)) : {tile_ty(dt, R, 1, valid=(2, 1))}")
    want = sent.copy()
    want[R + 1:R + 3] = S[2 * R + 3:2 * R + 5]
    out(c, want, "two valid rows stored at row R + 1", sentinel=sent, at=(R + 1, 0), rows=2 * R)
    n = k.scalar_in("INDEX", R - 3)
    c = k.fresh("c")
    k.op(f"{c} = tile.load({s_in}, (1, 0), ({R}, 1), ({n}, 1)) : {tile_ty(dt, R, 1, valid=(n, 1))}")
    want = sent[:R].copy()
    want[:R - 3] = S[1:R - 2]
    out(c, want, "runtime valid rows", sentinel=sent[:R])
    checked_run(f"column transfers {dt}", k, expect, lowered=lowered)


def moves(dt, lowered=False):
    """load, store, move, slice, reshape, assemble, set_validshape, reinterpret_view: every pattern
    (signalling NaNs included) arrives bit for bit where the op puts it. One-byte tiles are 64
    columns wide, so that their rows, windows and relabels keep 32-byte rows when lowered."""
    rng = np.random.default_rng(SIZE[dt] * 31 + ALL.index(dt))
    W = 64 if SIZE[dt] == 1 else 32
    H = W // 2
    X = rng.integers(0, 1 << (8 * SIZE[dt]), (8, W), dtype=np.uint64)
    if dt in FMT:  # signalling NaNs of both signs (a conversion through float would quiet them)
        f = FMT[dt]
        X[0, :4] = [f.inf | 1, f.inf | f.sign | 1, f.inf | (1 << (f.fbits - 2)), f.inf | 0x15]
    k = Kernel("moves")
    x = k.tile_in(dt, X)
    expect = {}

    def out(var, shape, want, label, sentinel=None, tensor=None):
        expect[k.tile_out(dt, var, shape, tensor, sentinel=sentinel, label=label)] = (dt, [[("bits", int(b)) for b in r] for r in want])

    m = k.fresh("mv")
    k.op(f"{m} = tile.move({x}) : {tile_ty(dt, 8, W)}")
    out(m, (8, W), X, "tile.move")
    s = k.fresh("sl")
    k.op(f"{s} = tile.slice({x}, (4, {H}), (2, {H})) : {tile_ty(dt, 4, H)}")
    out(s, (4, H), X[2:6, H:W], "tile.slice")
    rs = k.fresh("rs")
    k.op(f"{rs} = tile.reshape({x}, (16, {H})) : {tile_ty(dt, 16, H)}")
    out(rs, (16, H), X.reshape(16, H), "tile.reshape")
    t = k.fresh("tg")
    k.op(f"{t} = tile.move({x}) : {tile_ty(dt, 8, W)}")
    a = k.fresh("as")
    k.op(f"{a} = tile.assemble({t}, {s}, (4, 0)) : {tile_ty(dt, 8, W)}")
    want = X.copy()
    want[4:8, 0:H] = X[2:6, H:W]
    out(a, (8, W), want, "tile.assemble")
    if dt in HOST:  # partial stores need an inout tensor of the type (carriers move whole 4-byte words)
        sent = rng.integers(0, 1 << (8 * SIZE[dt]), (8, W), dtype=np.uint64)
        xp = k.tile_in(dt, X, valid=(3, 20))
        want = sent.copy()
        want[:3, :20] = X[:3, :20]
        out(xp, (8, W), want, "tile.load valid (3, 20)", sentinel=sent)
        v = k.fresh("vs")
        k.op(f"{v} = tile.set_validshape({m}, 5, 7) : {tile_ty(dt, 8, W, valid=(5, 7))}")
        want = sent.copy()
        want[:5, :7] = X[:5, :7]
        out(v, (8, W), want, "tile.set_validshape 5, 7", sentinel=sent)
        # Runtime valid extents (lowered: buffer.set_validshape before the load).
        rows, cols = k.scalar_in("INDEX", "6"), k.scalar_in("INDEX", "17")
        xr = k.tile_in(dt, X, valid=(rows, cols))
        want = sent.copy()
        want[:6, :17] = X[:6, :17]
        out(xr, (8, W), want, "tile.load valid (rows, cols) = (6, 17)", sentinel=sent)
    if dt in HOST and not lowered:  # `cache` is a hint: the loaded bits are the same
        c = k.fresh("ch")
        k.op(f"{c} = tile.load({next(iter(k.inputs))}, (0, 0), (8, {W}), cache = 1) : {tile_ty(dt, 8, W)}")
        out(c, (8, W), X, "tile.load cache = 1")
    checked_run(f"moves {dt}", k, expect, lowered=lowered)


def store_keywords():
    """A store with a fix-pipe or ordering keyword is not simulated: it must stop, not store plain
    values the device would not (sim/models_tile.hpp)."""
    for kw in ("atomic = 1", "st_phase = 1", "pre_quant = 1", "pre_relu = true"):
        k = Kernel("undefined")
        x = k.tile_in("FP32", grid([f32(1.0)], 8))
        k.tile_out("FP32", x, (1, 8))
        k.lines[-1] = k.lines[-1].replace(") : Tensor", f", {kw}) : Tensor")
        expect_refusal(f"tile.store {kw}", k, f"a store with '{kw.split()[0]}' is not simulated")


#===--- SPMD queries and scalar ops ---===#

def spmd(lowered=False):
    """get_block_idx/num and get_subblock_idx over --grid=3 --subblocks=2: each (block, subblock)
    writes its own row."""
    k = Kernel("spmd")
    b, n, s = k.fresh("b"), k.fresh("n"), k.fresh("s")
    k.op(f"{b} = tile.get_block_idx() : Scalar[INDEX]")
    k.op(f"{n} = tile.get_block_num() : Scalar[INDEX]")
    k.op(f"{s} = tile.get_subblock_idx() : Scalar[INDEX]")
    k.op(f"b2 = {b} * 2")
    k.op(f"row = b2 + {s}")
    expect = {}
    for q, fn, label in ((b, lambda r: r // 2, "get_block_idx"), (n, lambda r: 3, "get_block_num"), (s, lambda r: r % 2, "get_subblock_idx")):
        t = k.fresh("t")
        k.op(f"{t} = tile.full({q}) : {tile_ty('FP32', 1, 8)}")
        key = k.tile_out("FP32", t, (1, 8), (6, 8), at=("row", 0), label=f"tile.{label}")
        expect[key] = ("FP32", [[("bits", f32(float(fn(r))))] * 8 for r in range(6)])
    checked_run("spmd queries", k, expect, lowered=lowered, grid_n=3, subblocks=2)


def scalar_ops(dt, pairs, lowered=False):
    """The scalar ops on pairs of dt scalars (docs/ops.md "Scalar ops": floor division toward
    negative infinity, modulo with the sign of rhs, integers wrap to their width, FP32 rounds to
    nearest even), each result written by tile.full. BOOL results are cast to INDEX first (tile.full
    takes no BOOL when lowered); lowered kernels fill FP32 tiles (full lowers on FP32 only) and leave
    out floor division and modulo of floats (no PTO form: the kernel would stay Tile)."""
    k = Kernel("scalars")
    out_dt = "FP32" if lowered or dt == "FP32" else ("INT64" if SIZE[dt] == 8 else "INT32")
    ops = [("+", lambda a, b: a + b), ("-", lambda a, b: a - b), ("*", lambda a, b: a * b),
           ("//", lambda a, b: (a / b).__floor__() if isinstance(a, Fraction) else a // b),
           ("%", lambda a, b: a - (a / b).__floor__() * b if isinstance(a, Fraction) else a % b),
           ("min", min), ("max", max)]
    if lowered and dt == "FP32":
        ops = [o for o in ops if o[0] not in ("//", "%")]
    cmps = [("<", lambda a, b: a < b), ("<=", lambda a, b: a <= b), ("==", lambda a, b: a == b),
            ("!=", lambda a, b: a != b), (">", lambda a, b: a > b), (">=", lambda a, b: a >= b)]
    rows = []  # (label, scalar holding the result, its exact value, the dtype the value has)

    def flag(text, value, label):
        v, w = k.fresh("v"), k.fresh("w")
        k.op(f"{v} = {text}")
        k.op(f"{w} = cast({v}, INDEX)")  # BOOL -> INDEX: 1 or 0
        rows.append((label, w, int(value), "INDEX"))

    for a, b in pairs:
        pa = k.scalar_in(dt, repr(a) if dt == "FP32" else str(a))
        pb = k.scalar_in(dt, repr(b) if dt == "FP32" else str(b))
        ea, eb = (Fraction(a), Fraction(b)) if dt == "FP32" else (a, b)
        for sym, fn in ops:
            r = k.fresh("v")
            k.op(f"{r} = {sym}({pa}, {pb})" if sym in ("min", "max") else f"{r} = {pa} {sym} {pb}")
            rows.append((f"{a} {sym} {b}", r, fn(ea, eb), dt))
        for sym, fn in cmps:
            flag(f"{pa} {sym} {pb}", fn(ea, eb), f"{a} {sym} {b}")
    if dt == "INT32":
        c = k.fresh("v")
        k.op(f"{c} = 7 : INT32")  # scalar.const
        rows.append(("7 : INT32", c, 7, "INT32"))
        p, q = k.scalar_in("BOOL", "true"), k.scalar_in("BOOL", "false")
        for text, value in ((f"{p} and {q}", 0), (f"{p} or {q}", 1), (f"not {q}", 1), (f"{p} and {p}", 1), (f"not {p}", 0)):
            flag(text, value, text.replace(p, "true").replace(q, "false"))
        for src, to, value, want in (("FP32", "INT32", "-2.75", -2), ("FP32", "INT32", "2.75", 2),
                                     ("INT32", "FP32", "16777219", 16777220), ("INT32", "INT8", "300", 44)):
            # cast: float -> int toward zero (sim/numeric.hpp `convert`; docs/ops.md states only
            # "converted"), int -> float to nearest even, int -> int wraps.
            x = k.scalar_in(src, value)
            r = k.fresh("v")
            k.op(f"{r} = cast({x}, {to})")
            rows.append((f"cast({value} : {src}, {to})", r, want, to))
    expect = {}
    for label, r, v, vdt in rows:
        od = "FP32" if lowered or vdt == "FP32" else ("INT64" if SIZE[vdt] == 8 else "INT32")
        t = k.fresh("t")
        k.op(f"{t} = tile.full({r}) : {tile_ty(od, 1, 8)}")
        n = v if vdt == "FP32" else wrap(vdt, v)  # the scalar's value in its own dtype
        want = ("bits", encode(FMT[od], n < 0, abs(Fraction(n)))) if od in FMT else ("bits", ibits(od, n))
        expect[k.tile_out(od, t, (1, 8), label=label)] = (od, [[want] * 8])
    checked_run(f"scalar ops {dt}", k, expect, lowered=lowered)


def scalar_refusals():
    for sym in ("//", "%"):
        k = Kernel("undefined")
        a, b = k.scalar_in("INT32", "7"), k.scalar_in("INT32", "0")
        k.op(f"v = {a} {sym} {b}")
        k.op(f"t = tile.full(v) : {tile_ty('INT32', 1, 8)}")
        k.tile_out("INT32", "t", (1, 8))
        expect_refusal(f"scalar {sym} by zero", k, "integer division by zero")


#===--- the partial-valid golden's kernels against NumPy ---===#

UNWRITTEN = f32(-555.0)  # what `t2b-opt --run` leaves in out elements nothing wrote


def partial_valid_golden(path):
    """tests/golden/lower/extended/partial_valid.t2b compares the Tile and Buffer runs; here its
    kernels run (as written and lowered) on seeded inputs against NumPy, so the numbers both runs
    agree on are the right ones: column folds over the valid rows only, row broadcasts over the
    valid rows and columns, nothing written outside them."""
    with open(path) as fh:
        text = fh.read()
    rng = np.random.default_rng(20261205)
    # Dyadic values (sums exact in any order); the rows past the valid ones hold values that would
    # change every max, min and sum if read.
    X = (rng.integers(-64, 64, (16, 64)) / 8.0).astype(np.float32)
    X[6:] = 1000.0
    V = (rng.integers(1, 16, (1, 16)) / 4.0).astype(np.float32)
    Xb = X.view(np.uint32).astype(np.uint64)
    for fn, scalars, r, c in (("cols", [], 5, 40), ("cols_runtime", [("rows", "5")], 5, 64), ("rows", [], 6, 40)):
        shape = (64, 64) if fn == "rows" else (4, 64)
        want = [[("bits", UNWRITTEN)] * shape[1] for _ in range(shape[0])]
        if fn == "rows":
            for i in range(r):
                for j in range(c):
                    x, v = int(Xb[i, j]), f32(float(V[0, i]))
                    want[i][j] = ("bits", v)
                    want[16 + i][j] = ew_float("sub", "FP32", x, v)
                    want[32 + i][j] = ew_float("div", "FP32", x, v)
                    want[48 + i][j] = ew_float("mul", "FP32", x, v)
        else:
            for j in range(c):
                col = [int(b) for b in Xb[:r, j]]
                want[0][j], want[1][j], want[2][j] = fold("FP32", col, "sum"), fold("FP32", col, "max"), fold("FP32", col, "min")
        inputs = {"X": X} if fn != "rows" else {"X": X, "V": V}
        for lowered in (False, True):
            k = FileKernel(fn, text, inputs, scalars, {"Out": ("FP32",) + shape})
            checked_run(f"partial_valid.t2b @{fn}", k, {"Out": ("FP32", want)}, lowered=lowered, unwritten_ok=True)


#===--- coverage: every op a simulator models has a formula here and ran there ---===#

# Ops whose check is that bits arrive unchanged where the op puts them (moves(), and every kernel's
# loads and stores, whose inputs hold NaN payloads); tile.store's FP32 -> FP16/BF16 fix-pipe
# narrowing is a formula, checked in cube().
MOVES_BITS = {"tile.load", "tile.store", "tile.move", "tile.reshape", "tile.reinterpret_view", "tile.slice",
              "tile.assemble", "tile.set_validshape", "tile.extract", "tile.transpose_view", "tile.row_expand",
              "tile.col_expand"}
# Ops with no element values of their own: storage (contents undefined until written, §9.2) and
# structured control flow (each kernel here is straight-line; the values they carry are the values
# of other ops, and tests/sim's campaigns run them in both simulators).
NO_VALUES = {"tile.alloc", "tile.create", "buffer.alloc", "if", "for", "while", "yield", "return"}
# The formula of every other op is in this file: name -> the function that states it.
FORMULAS = dict(
    {f"tile.{op}": "ew_float/ew_int" for op in BINARY + UNARY + SCALAR_FORMS + ["full"]},
    **{f"tile.{op}": "fold" for op in REDUCTIONS},
    **{f"tile.{op}": "arith" for op in ROW_ARITH + COL_ARITH},
    **{"tile.cast": "cast_expect", "tile.matmul": "product", "tile.matmul_acc": "product",
       "tile.get_block_idx": "spmd", "tile.get_block_num": "spmd", "tile.get_subblock_idx": "spmd"},
    **{op: "scalar_ops" for op in ("scalar.const", "scalar.add", "scalar.sub", "scalar.mul", "scalar.floordiv",
                                   "scalar.mod", "min", "max", "scalar.lt", "scalar.le", "scalar.eq", "scalar.ne",
                                   "scalar.gt", "scalar.ge", "scalar.and", "scalar.or", "not", "cast")})
# A Buffer op has its Tile twin's formula (buffer.add computes what tile.add does); the Buffer-only
# data movement ops move bits.
BUFFER_MOVES = {"buffer.load", "buffer.store", "buffer.copy", "buffer.subview", "buffer.reshape", "buffer.extract",
                "buffer.set_validshape"}


def formula_of(op):
    if op in FORMULAS or op in MOVES_BITS:
        return op
    if op.startswith("buffer.") and ("tile." + op[7:] in FORMULAS or "tile." + op[7:] in MOVES_BITS):
        return "tile." + op[7:]
    if op in BUFFER_MOVES:
        return op
    return None


# (op, simulator) model rows no verified program can reach: every model set answers both stages'
# SPMD queries (sim/models_common.hpp), but the verifier allows a query only in its own stage's
# functions. spmd_cross_stage() confirms the refusal before coverage() accepts the pair.
UNREACHABLE = {(f"{st}.{q}", sim) for st, sim in (("tile", "buffer"), ("buffer", "tile"))
               for q in ("get_block_idx", "get_block_num", "get_subblock_idx")}
unreachable_confirmed = set()


def spmd_cross_stage():
    global runs
    for op, sim in sorted(UNREACHABLE):
        stage = "buffer" if sim == "buffer" else "tile"
        text = (f"aiv @k(O: out Tensor[[1, 8], FP32]) -> Tensor[[1, 8], FP32] attributes {{stage = {stage}}} {{\n"
                f"  n = {op}() : Scalar[INDEX]\n  return O\n}}\n")
        path = os.path.join(tempfile.mkdtemp(dir=WORK), "k.t2b")
        with open(path, "w") as fh:
            fh.write(text)
        runs += 1
        p = subprocess.run([T2B, path, "--verify-only"], capture_output=True, text=True)
        if p.returncode == 1 and f"{op} is not allowed in a {stage.capitalize()}-stage function" in p.stderr:
            unreachable_confirmed.add((op, sim))
        else:
            fail("coverage", f"{op} in a {stage}-stage function: expected the verifier's refusal, got exit {p.returncode}: {p.stderr.strip()}")


def coverage_gaps(formula, ran):
    """What the coverage check reports: each op `t2b-opt --list-ops` says a simulator models (its
    last field) that has no formula or moves-bits entry here (`formula(op)` is None), or that no
    checked kernel ran in that simulator (not in `ran`)."""
    listing = list_ops()
    if not listing or any(len(f) < 15 for f in listing.values()):
        return ["t2b-opt --list-ops does not print the simulators of each op (its 15th tab-separated field)"]
    gaps, modelled = [], 0
    for op, fields in listing.items():
        for sim in (fields[14].split() if fields[14] != "-" else []):
            modelled += 1
            if op in NO_VALUES or (op, sim) in unreachable_confirmed:
                continue
            if formula(op) is None:
                gaps.append(f"{op} has a {sim} simulator model but no formula in tests/sim/kernels_numpy.py")
            elif (op, sim) not in ran:
                gaps.append(f"{op} has a {sim} simulator model that no checked kernel here ran")
    if modelled < 100:
        gaps.append(f"--list-ops names only {modelled} (op, simulator) models")
    return gaps


def coverage():
    global checks
    checks += 1
    if not PERTURB:
        for gap in coverage_gaps(formula_of, covered):
            fail("coverage", gap)
        return
    # Perturbed: forget the formula of one op and the Buffer run of another; both must be reported.
    gaps = coverage_gaps(lambda op: None if op == "tile.col_expand_expdif" else formula_of(op),
                         covered - {("buffer.col_sum", "buffer")})
    for want in ("tile.col_expand_expdif has a tile simulator model but no formula",
                 "buffer.col_sum has a buffer simulator model that no checked kernel here ran"):
        if not any(g.startswith(want) for g in gaps):
            fail("coverage", f"perturbed: '{want}' went unnoticed")


#===--- main ---===#

def main():
    check_oracle_against_numpy()
    for dt in FLOATS + INTS:
        elementwise(dt)
    for dt in ("FP16", "INT32"):
        lowered_add_mul(dt)
    refusals()
    for dt in FLOATS:
        for valid in ((16, 16), (5, 11)):
            reductions(dt, valid)
            if dt == "FP32":
                reductions(dt, valid, lowered=True)
    reduction_refusals()
    for dt in ALL:
        for valid in ((16, 16), (5, 11)):
            if valid != (16, 16) and dt not in HOST:
                continue  # partial stores of a carrier dtype would split its 4-byte words
            broadcasts(dt, valid)
            if dt == "FP32":
                broadcasts(dt, valid, lowered=True)
    broadcast_refusals()
    for dt in CAST_DTYPES:
        casts(dt)
    # The pairs ir/cast.hpp's extended_cast_pairs lowers, each with the modes it takes there
    # (quantized-path.md §2.2 added INT32 -> FP32/FP16, FP32 -> INT32 and FP16 -> INT8).
    casts("FP32", [(d, m) for d in ("FP16", "BF16") for m in (None, 1, 2, 3, 4, 5)] + [("INT32", m) for m in MODES])
    casts("FP16", [("FP32", m) for m in (None, 1, 2, 3, 4, 5)] + [("INT8", m) for m in MODES])
    casts("BF16", [("FP32", m) for m in (None, 1, 2, 3, 4, 5)])
    casts("INT32", [("FP32", m) for m in (None, 0, 1, 2, 3, 4, 5)] + [("FP16", m) for m in MODES])
    for dt in CUBE:
        cube(dt)
        cube(dt, lowered=True)
    cube_refusals()
    for dt in ALL:
        moves(dt)
    for dt in ("FP32", "FP16", "BF16", "INT32", "INT8"):  # INT8: the extended rollout (quantized-path.md §2.1)
        moves(dt, lowered=True)
    for dt in ("FP32", "FP16", "BF16", "INT32"):
        column_transfers(dt)
        column_transfers(dt, lowered=True)
    store_keywords()
    spmd()
    spmd(lowered=True)
    scalar_ops("INT32", [(7, 2), (-7, 2), (7, -2), (-7, -2), (2 ** 31 - 1, 1), (-2 ** 31, -1), (123456, 1000)])
    scalar_ops("INT8", [(127, 1), (-128, -1), (-7, 2), (100, 3)])
    scalar_ops("INDEX", [(2 ** 62, 4), (-7, 2), (2 ** 63 - 1, 1), (-2 ** 63, -1)])
    scalar_ops("INT64", [(2 ** 62, 4), (-7, -2)])
    scalar_ops("FP32", [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (1e30, 1e30), (float(np.float32(0.1)), float(np.float32(0.2))),
                        (3.0, 0.5)])
    scalar_ops("INT32", [(7, 2), (-7, 2), (100, -3)], lowered=True)
    scalar_ops("FP32", [(7.5, 2.0), (-7.5, -2.0), (float(np.float32(0.1)), float(np.float32(0.2)))], lowered=True)
    scalar_refusals()
    if GOLDEN:
        partial_valid_golden(GOLDEN)
    spmd_cross_stage()
    coverage()
    took = time.monotonic() - STARTED
    print(f"{checks} element checks in {runs} t2b-opt runs, {took:.1f} s; {len(failures)} failed"
          + (" (perturbed: each must fail)" if PERTURB else ""))
    return 1 if failures or checks == 0 else 0


if __name__ == "__main__":
    try:
        code = main()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    sys.exit(code)
