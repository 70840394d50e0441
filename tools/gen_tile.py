#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate `.t2b` benchmark kernels: the Tile IR twin of ../shared/bench/mlir/gen_mlir.py.

`line`, `shared`, `loops`: one `aiv @f` with N elementwise compute ops on
Tile[[16, 32], FP32, Vec] values:

    v0 = tile.load(A, ...)          v1 = tile.load(B, ...)
    op i: v = tile.add|tile.mul(v[-1], v[-1-d])      d = 1 + i % 4, add on even i
          every K-th op (i % K == K - 1, --reuse-every K, 0 = never) reads v0 (input A) instead
    result = tile.store(last, (0, 0), Out); return result

Shapes (as gen_mlir.py): `--shape line` (reuse 0), `--shape shared` (reuse 16), `--shape loops`
(reuse 16, chained `for` loops of --body ops, 4 trips, carrying one tile: the body starts from
[carry, v0] and yields its last value). `--reuse-every` overrides the shape's default.

Three more shapes have no MLIR twin (gen_mlir.py has no windows, cube unit or valid extents), and
`--reuse-every` does not apply to them:

  `--shape window`: p0, p1 = Tile[[64, 32], FP32, Vec] loads of A, B (Tensor[[64, 32], FP32]);
      op i: w<i> = tile.slice(p[i % 2], (16, 32), (16 * (i / 2 % 4), 0))
            v<i> = tile.add|tile.mul(v<i-1>, w<i>)     add on even i; op 0 reads w0 twice
      the store writes v<N-1> to Out (Tensor[[16, 32], FP32]). Each op reads its own static,
      row-aligned window, so the window path (one buffer.subview per slice) runs once per op,
      while the parents stay live across the whole kernel.
  `--shape cube`: an `aic` kernel; a, b = Tile[[16, 16], FP16, Mat] loads of A, B, moved to
      la, lb (Left) and ra, rb (Right); v0 = tile.matmul(la, rb), then op i > 0:
      v<i> = tile.matmul_acc(v<i-1>, la, rb | lb, ra) (even | odd i) into
      Tile[[16, 16], FP32, Acc], stored to Out (Tensor[[16, 16], FP32]). The four operands live
      across the kernel and every accumulation is in place, so any N fits the memory spaces.
  `--shape valid`: a fourth parameter `rows: Scalar[INDEX]`; v0 = tile.load(A, ...),
      w0 = tile.set_validshape(v0, rows, 32); op i: w<i+1> = tile.add|tile.mul(w<i>, w<i>)
      (add on even i) on Tile[[16, 32], FP32, Vec, valid=[rows, 32]], stored to Out. Every value
      is runtime-valid, so each op lowers through the valid-extent path (dynamic handles).

The output is the printer's canonical text, byte for byte what benchmarks/gen_kernel.hpp's
`make_kernel` prints (the `bench_generator` test checks it), so the text and the in-memory
benchmarks measure the same program.

    python3 tools/gen_tile.py --n 100000 --shape shared > k.t2b
    build/tools/t2b-opt --lower k.t2b -o /dev/null
"""
import argparse
import sys

TILE = "Tile[[16, 32], FP32, Vec]"
TENSOR = "Tensor[[16, 32], FP32]"
DEFAULT_REUSE = {"line": 0, "shared": 16, "loops": 16}
SHAPES = sorted(list(DEFAULT_REUSE) + ["window", "cube", "valid"])
WIN_TILE = "Tile[[16, 32], FP32, Vec]"
WIN_PARENT = "Tile[[64, 32], FP32, Vec]"
WIN_TENSOR = "Tensor[[64, 32], FP32]"
CUBE_IN = "Tensor[[16, 16], FP16]"
CUBE_OUT = "Tensor[[16, 16], FP32]"


def generate_window(n):
    out = ["aiv @f(A: %s, B: %s, Out: out %s) -> %s {" % (WIN_TENSOR, WIN_TENSOR, TENSOR, TENSOR),
           "  p0 = tile.load(A, (0, 0), (64, 32)) : %s" % WIN_PARENT,
           "  p1 = tile.load(B, (0, 0), (64, 32)) : %s" % WIN_PARENT]
    w = out.append
    for i in range(n):
        w("  w%d = tile.slice(p%d, (16, 32), (%d, 0)) : %s" % (i, i % 2, 16 * (i // 2 % 4), WIN_TILE))
        lhs = "v%d" % (i - 1) if i > 0 else "w0"
        w("  v%d = tile.%s(%s, w%d) : %s" % (i, "add" if i % 2 == 0 else "mul", lhs, i, WIN_TILE))
    w("  result = tile.store(v%d, (0, 0), Out) : %s" % (n - 1, TENSOR))
    w("  return result")
    w("}")
    return "\n".join(out) + "\n"


def generate_cube(n):
    acc = "Tile[[16, 16], FP32, Acc]"
    out = ["aic @f(A: %s, B: %s, Out: out %s) -> %s {" % (CUBE_IN, CUBE_IN, CUBE_OUT, CUBE_OUT),
           "  a = tile.load(A, (0, 0), (16, 16)) : Tile[[16, 16], FP16, Mat]",
           "  b = tile.load(B, (0, 0), (16, 16)) : Tile[[16, 16], FP16, Mat]",
           "  la = tile.move(a) : Tile[[16, 16], FP16, Left]",
           "  ra = tile.move(a) : Tile[[16, 16], FP16, Right]",
           "  lb = tile.move(b) : Tile[[16, 16], FP16, Left]",
           "  rb = tile.move(b) : Tile[[16, 16], FP16, Right]",
           "  v0 = tile.matmul(la, rb) : %s" % acc]
    w = out.append
    for i in range(1, n):
        w("  v%d = tile.matmul_acc(v%d, %s) : %s" % (i, i - 1, "la, rb" if i % 2 == 0 else "lb, ra", acc))
    w("  result = tile.store(v%d, (0, 0), Out) : %s" % (n - 1, CUBE_OUT))
    w("  return result")
    w("}")
    return "\n".join(out) + "\n"


def generate_valid(n):
    vt = "Tile[[16, 32], FP32, Vec, valid=[rows, 32]]"
    out = ["aiv @f(A: %s, B: %s, Out: out %s, rows: Scalar[INDEX]) -> %s {" % (TENSOR, TENSOR, TENSOR, TENSOR),
           "  v0 = tile.load(A, (0, 0), (16, 32)) : %s" % TILE,
           "  w0 = tile.set_validshape(v0, rows, 32) : %s" % vt]
    w = out.append
    for i in range(n):
        w("  w%d = tile.%s(w%d, w%d) : %s" % (i + 1, "add" if i % 2 == 0 else "mul", i, i, vt))
    w("  result = tile.store(w%d, (0, 0), Out) : %s" % (n, TENSOR))
    w("  return result")
    w("}")
    return "\n".join(out) + "\n"


def generate(n, shape, body=8, reuse_every=None):
    if shape == "window":
        return generate_window(n)
    if shape == "valid":
        return generate_valid(n)
    if shape == "cube":
        return generate_cube(n)
    reuse = DEFAULT_REUSE[shape] if reuse_every is None else reuse_every
    out = []
    w = out.append
    w("aiv @f(A: %s, B: %s, Out: out %s) -> %s {" % (TENSOR, TENSOR, TENSOR, TENSOR))
    w("  v0 = tile.load(A, (0, 0), (16, 32)) : %s" % TILE)
    w("  v1 = tile.load(B, (0, 0), (16, 32)) : %s" % TILE)
    counter = [2]  # next value number (v0, v1 are the loads)

    def emit(ind, i, vals):
        lhs = vals[-1]
        if reuse > 0 and i % reuse == reuse - 1:
            rhs = "v0"
        else:
            rhs = vals[max(0, len(vals) - 1 - (1 + i % 4))]
        name = "v%d" % counter[0]
        counter[0] += 1
        w("%s%s = tile.%s(%s, %s) : %s" % (ind, name, "add" if i % 2 == 0 else "mul", lhs, rhs, TILE))
        vals.append(name)

    if shape != "loops":
        vals = ["v0", "v1"]
        for i in range(n):
            emit("  ", i, vals)
        last = vals[-1]
    else:
        cur, i, loop = "v1", 0, 0
        while i < n:
            nb = min(body, n - i)
            w("  r%d = for i%d in range(0, 4, 1) iter(acc%d = %s) -> (%s) {" % (loop, loop, loop, cur, TILE))
            vals = ["acc%d" % loop, "v0"]
            for _ in range(nb):
                emit("    ", i, vals)
                i += 1
            w("    yield %s" % vals[-1])
            w("  }")
            cur = "r%d" % loop
            loop += 1
        last = cur
    w("  result = tile.store(%s, (0, 0), Out) : %s" % (last, TENSOR))
    w("  return result")
    w("}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="compute ops (default 1000)")
    ap.add_argument("--shape", choices=SHAPES, default="line")
    ap.add_argument("--body", type=int, default=8, help="ops per loop body (loops shape, default 8)")
    ap.add_argument("--reuse-every", type=int, default=None, help="every K-th op reads input A (0 = never)")
    ap.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    a = ap.parse_args()
    if a.n < 1 or a.body < 1:
        ap.error("--n and --body must be positive")
    if a.reuse_every is not None and a.shape not in DEFAULT_REUSE:
        ap.error("--reuse-every does not apply to --shape %s" % a.shape)
    txt = generate(a.n, a.shape, a.body, a.reuse_every)
    if a.output == "-":
        sys.stdout.write(txt)
    else:
        with open(a.output, "w") as f:
            f.write(txt)


if __name__ == "__main__":
    main()
