#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The kernel zoo (examples/kernels/zoo) against NumPy: each kernel runs in the reference simulator
as written (Tile IR) and lowered with --rollout=extended under the pypto, dsa_rp and ptoas
planners (`t2b-opt --run` on .npy inputs), and every output is compared with a NumPy formula
written here (float64 on the rounded inputs), independently of the simulator. Tolerances follow
extended-rollout.md §2.7: kernels with exp or rsqrt |got - ref| <= 1e-5 + 1e-4 |ref|; the GEMMs on
inputs that are multiples of 1/8 exactly; quantized INT8 codes and INT32 accumulators exactly.
Elements a kernel must not write keep the tool's never-written marker (-555).

usage: zoo_numpy.py T2B_OPT SOURCE_ROOT [--perturb]
  --perturb  nudge every expected output past its tolerance; every comparison must then fail
             (meson test zoo-numpy-detects-a-difference).
Exits 77 (skipped) without a Python that has NumPy (Debian: python3-numpy).
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        if subprocess.run(["/usr/bin/python3", "-c", "import numpy"], capture_output=True).returncode == 0:
            sys.exit(subprocess.run(["/usr/bin/python3", __file__] + sys.argv[1:]).returncode)
    print("SKIP: no Python with the numpy module (apt-get install -y python3-numpy)")
    sys.exit(77)

T2B = os.path.abspath(sys.argv[1])
ZOO = os.path.join(sys.argv[2], "examples", "kernels", "zoo")
PERTURB = "--perturb" in sys.argv[3:]
UNWRITTEN = -555.0
RUNS = [("tile", []), ("pypto", ["--rollout=extended", "--planner=pypto"]),
        ("dsa_rp", ["--rollout=extended", "--planner=dsa_rp"]), ("ptoas", ["--rollout=extended", "--planner=ptoas"])]
rng = np.random.default_rng(20261203)
checks, failures = 0, []


def run(kernel_file, function, inputs, scalars=(), flags=(), grid=1):
    """The out tensors of one --run, as {name: array}; the stage it ran in."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [T2B, os.path.join(ZOO, kernel_file), "--run", function, "--output-dir", d, f"--grid={grid}"] + list(flags)
        for name, array in inputs.items():
            path = os.path.join(d, f"in_{name}.npy")
            np.save(path, array)
            cmd += ["--input", f"{name}={path}"]
        for name, value in scalars:
            cmd += ["--scalar", f"{name}={value}"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}\n{p.stdout}{p.stderr}")
        stage = "Buffer" if "Buffer IR" in p.stdout and "Tile IR" not in p.stdout else "Tile"
        outs = {f[:-4]: np.load(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".npy") and not f.startswith("in_")}
        return outs, stage


def compare(what, got, ref, atol, rtol, unwritten=None):
    """got within atol + rtol |ref| of ref where ref is finite; exactly the marker where `unwritten`."""
    global checks
    checks += 1
    ref = np.asarray(ref, np.float64)
    want_marker = np.zeros(ref.shape, bool) if unwritten is None else unwritten
    if PERTURB:  # every element, the untouched ones too, now wants something it does not hold
        ref = ref + 2 * (atol + rtol * np.abs(ref)) + 1e-3
        want_marker = np.zeros(ref.shape, bool)
    bad = (np.abs(got.astype(np.float64) - ref) > atol + rtol * np.abs(ref)) & ~want_marker
    bad |= want_marker & (got != UNWRITTEN)
    if PERTURB:
        bad = np.ones(1, bool) if not bad.any() else np.zeros(1, bool)  # the nudge must be caught
        if bad.any():
            failures.append(what)
            print(f"FAIL {what}: a difference past the tolerance went unnoticed")
        return
    if bad.any():
        i = tuple(np.argwhere(bad)[0])
        failures.append(what)
        print(f"FAIL {what}: {int(bad.sum())} elements differ, first at {i}: got {got[i]!r}, want {ref[i]!r}")


def each_run(kernel_file, function, inputs, scalars=(), grid=1):
    """(label, outputs) per run; a lowered run must have run every kernel in Buffer IR."""
    for label, flags in RUNS:
        outs, stage = run(kernel_file, function, inputs, scalars, flags, grid)
        want = "Tile" if label == "tile" else "Buffer"
        if stage != want:
            failures.append(f"{kernel_file} {label}")
            print(f"FAIL {kernel_file} {label}: ran in {stage} IR, expected {want}")
        yield label, outs


def softmax():
    x = (rng.standard_normal((64, 64)) * 2).astype(np.float32)
    for cols in (0, 1, 17, 64):
        v = x[:, :cols].astype(np.float64)
        ref = np.full((64, 64), UNWRITTEN)
        if cols:
            e = np.exp(v - v.max(1, keepdims=True))
            ref[:, :cols] = e / e.sum(1, keepdims=True)
        marker = np.zeros((64, 64), bool)
        marker[:, cols:] = True
        for label, outs in each_run("softmax.t2b", "softmax", {"X": x}, [("cols", cols)], grid=4):
            compare(f"softmax cols={cols} {label}", outs["Y"], ref, 1e-5, 1e-4, marker)


def layernorm():
    x = (rng.standard_normal((16, 64)) * 3 + 1).astype(np.float32)
    g = rng.uniform(0.5, 1.5, (1, 64)).astype(np.float32)
    b = rng.uniform(-1, 1, (1, 64)).astype(np.float32)
    X, G, B = (a.astype(np.float64) for a in (x, g, b))
    mu = X.mean(1, keepdims=True)
    var = ((X - mu) ** 2).mean(1, keepdims=True)
    ref = (X - mu) / np.sqrt(var + 1e-5) * G + B
    for label, outs in each_run("layernorm.t2b", "layernorm", {"X": x, "G": g, "B": b}):
        compare(f"layernorm {label}", outs["Y"], ref, 1e-5, 1e-4)


def rmsnorm():
    x = (rng.standard_normal((16, 128)) * 2).astype(np.float32)
    g = rng.uniform(0.5, 1.5, (1, 128)).astype(np.float32)
    X, G = x.astype(np.float64), g.astype(np.float64)
    ref = X / np.sqrt((X ** 2).mean(1, keepdims=True) + 1e-6) * G
    for label, outs in each_run("rmsnorm.t2b", "rmsnorm", {"X": x, "G": g}):
        compare(f"rmsnorm {label}", outs["Y"], ref, 1e-5, 1e-4)


def rmsnorm_fp16():
    # FP16 in and out through tile.cast; the FP32 computation's error is far below FP16's step,
    # so the result is the float64 formula rounded once to FP16, within one FP16 step.
    x = (rng.standard_normal((16, 128)) * 2).astype(np.float16)
    g = rng.uniform(0.5, 1.5, (1, 128)).astype(np.float32)
    X, G = x.astype(np.float64), g.astype(np.float64)
    ref = X / np.sqrt((X ** 2).mean(1, keepdims=True) + 1e-6) * G
    for label, outs in each_run("rmsnorm_fp16.t2b", "rmsnorm_fp16", {"X": x, "G": g}):
        compare(f"rmsnorm_fp16 {label}", outs["Y"].astype(np.float64), ref, 1e-5, 2.0 ** -10)


def gemm_bias_relu():
    # Multiples of 1/8 in [-1, 1]: every product and partial sum is exact in FP32.
    a = (rng.integers(-8, 9, (64, 128)) / 8).astype(np.float16)
    b = (rng.integers(-8, 9, (128, 64)) / 8).astype(np.float16)
    bias = (rng.integers(-8, 9, (1, 64)) / 8).astype(np.float32)
    ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0)
    for label, outs in each_run("gemm_bias_relu.t2b", "main", {"A": a, "B": b, "Bias": bias}):
        compare(f"gemm_bias_relu {label}", outs["Out"], ref, 0, 0)


def gemm():
    # pypto-lib's examples/intermediate/gemm.py: C = A @ B in FP32, a 2 x 2 grid of [64, 64] C
    # tiles, K in four steps of 64 (matmul on the first, matmul_acc after). Multiples of 1/8 in
    # [-1, 1]: every product and partial sum (|sum| <= 256, in steps of 1/64) is exact in FP32.
    a = (rng.integers(-8, 9, (128, 256)) / 8).astype(np.float32)
    b = (rng.integers(-8, 9, (256, 128)) / 8).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    for label, outs in each_run("gemm.t2b", "gemm", {"A": a, "B": b}, grid=4):
        compare(f"gemm {label}", outs["C"], ref, 0, 0)


def flash_attention():
    # |x| <= 1 keeps S and the FP16 probabilities in range (§4.4).
    q = rng.uniform(-1, 1, (16, 64)).astype(np.float16)
    k = rng.uniform(-1, 1, (256, 64)).astype(np.float16)
    v = rng.uniform(-1, 1, (256, 64)).astype(np.float16)
    sr = (q.astype(np.float64) @ k.astype(np.float64).T) * 0.125
    e = np.exp(sr - sr.max(1, keepdims=True))
    ref_o = (e / e.sum(1, keepdims=True)) @ v.astype(np.float64)
    # The online recurrences replayed in float64 on the S blocks: alpha_j and the final row sum.
    m, l, alphas = np.full(16, -1.0e30), np.zeros(16), []
    for j in range(4):
        blk = sr[:, 64 * j:64 * (j + 1)]
        mn = np.maximum(m, blk.max(1))
        a = np.exp(m - mn)
        l = l * a + np.exp(blk - mn[:, None]).sum(1)
        m = mn
        alphas.append(a)
    for label, outs in each_run("flash_attention.t2b", "main", {"Q": q, "K": k, "V": v}):
        compare(f"flash_attention O {label}", outs["O"], ref_o, 3e-3, 3e-3)
        compare(f"flash_attention Alpha {label}", outs["Alpha"], np.array(alphas), 1e-5, 1e-4)
        compare(f"flash_attention L {label}", outs["L"], l[None, :], 1e-5, 1e-4)
        compare(f"flash_attention Alpha[0] {label}", outs["Alpha"][0], np.zeros(16), 0, 0)


def rope():
    # The rotary embedding written from its definition: (x_lo, x_hi) rotated per column pair i by
    # the angle whose cosine and sine are cos[i], sin[i] (the lower half) and cos[h + i],
    # sin[h + i] (the upper half); each element is two products and one add, rounded in FP32 only
    # by the kernel, so the float64 value is within a few FP32 steps.
    x = rng.standard_normal((128, 128)).astype(np.float32)
    c = rng.standard_normal((1, 128)).astype(np.float32)
    s = rng.standard_normal((1, 128)).astype(np.float32)
    X, C, S = (a.astype(np.float64) for a in (x, c, s))
    h = 64
    ref = np.empty((128, 128))
    for i in range(h):
        ref[:, i] = X[:, i] * C[0, i] - X[:, h + i] * S[0, i]
        ref[:, h + i] = X[:, h + i] * C[0, h + i] + X[:, i] * S[0, h + i]
    for label, outs in each_run("rope.t2b", "rope", {"X": x, "Cos": c, "Sin": s}, grid=16):
        compare(f"rope {label}", outs["Y"], ref, 1e-5, 1e-5)




def bf16_bits(x):
    """float32 -> BF16 bit patterns (<u2), rounded to nearest even (what --input takes for BF16)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    """BF16 bit patterns -> float64."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def rms_lm_head():
    # Final RMSNorm (mean of squares over HIDDEN = 512, eps 1e-6, FP32 weight) of the BF16 hidden
    # states, rounded to BF16 (Normed), then the LM head logits Normed @ W^T for the rows below
    # `batch` (Out; the rows past it are never written). Normed is checked against the float64
    # formula within one BF16 step; the logits against the float64 product of the Normed the kernel
    # wrote (its BF16 rounding is checked just before) and W, within the FP32 accumulation's error.
    hidden = bf16_bits(rng.standard_normal((32, 512)) * 2)
    norm_w = rng.uniform(0.5, 1.5, (1, 512)).astype(np.float32)
    w = bf16_bits(rng.uniform(-0.1, 0.1, (192, 512)))
    X = bf16_value(hidden)
    normed = X / np.sqrt((X ** 2).mean(1, keepdims=True) + 1e-6) * norm_w.astype(np.float64)
    for batch in (16, 21, 32):
        marker = np.zeros((32, 192), bool)
        marker[batch:, :] = True
        for label, outs in each_run("rms_lm_head.t2b", "main", {"Hidden": hidden, "NormW": norm_w, "W": w},
                                    [("batch", batch)], grid=3):
            got_normed = bf16_value(outs["Normed"])
            compare(f"rms_lm_head Normed batch={batch} {label}", got_normed, normed, 1e-6, 2.0 ** -8)
            ref = np.full((32, 192), UNWRITTEN)
            ref[:batch] = (got_normed @ bf16_value(w).T)[:batch]
            compare(f"rms_lm_head Out batch={batch} {label}", outs["Out"], ref, 1e-4, 1e-5, marker)


def expert_shared():
    # pypto-lib's DeepSeek-V4 shared expert (decode, T = 4 tokens in a 16-row tile; D = 256,
    # MOE_INTER = 512), stage by stage, each stage from the inputs and the previous stage's GM
    # output as the kernel wrote it (rms_lm_head's way: a requantization is discontinuous, so the
    # next stage is checked on the INT8 values the kernel chose, which are themselves checked
    # exactly). x is the per-row INT8 quant of a normal sample (gate.py's int8_quant_per_row), the
    # weights INT8 with per-channel scales sized so that the SwiGLU clamps (limit 10) bite.
    T, D, INTER, LIMIT = 4, 256, 512, 10.0
    xf = rng.standard_normal((T, D))
    amax_x = np.abs(xf).max(1, keepdims=True)
    x_i8 = np.rint(xf * (127.0 / amax_x)).astype(np.int8)
    x_scale = (amax_x / 127.0).astype(np.float32)
    w1 = rng.integers(-127, 128, (INTER, D)).astype(np.int8)
    w3 = rng.integers(-127, 128, (INTER, D)).astype(np.int8)
    w2 = rng.integers(-127, 128, (D, INTER)).astype(np.int8)
    w1s = rng.uniform(0.002, 0.006, (1, INTER)).astype(np.float32)
    w3s = rng.uniform(0.002, 0.006, (1, INTER)).astype(np.float32)
    w2s = rng.uniform(0.002, 0.006, (1, D)).astype(np.float32)
    inputs = {"X": x_i8, "XScale": x_scale, "W1": w1, "W1Scale": w1s, "W3": w3, "W3Scale": w3s, "W2": w2,
              "W2Scale": w2s, "HI8": np.zeros((16, INTER), np.int8)}
    # The INT8 matmuls exactly, in int64; rows past T are never written.
    gate_i = x_i8.astype(np.int64) @ w1.astype(np.int64).T
    up_i = x_i8.astype(np.int64) @ w3.astype(np.int64).T
    pad = np.zeros((16, INTER), bool)
    pad[T:] = True
    ref_gate = np.full((16, INTER), UNWRITTEN)
    ref_gate[:T] = gate_i
    ref_up = np.full((16, INTER), UNWRITTEN)
    ref_up[:T] = up_i
    # Dequantize, clamp, SwiGLU (silu(g) = g / (1 + e^-g)) in float64.
    xs = x_scale.astype(np.float64)
    g = np.minimum(gate_i * xs * w1s.astype(np.float64), LIMIT)
    u = np.clip(up_i * xs * w3s.astype(np.float64), -LIMIT, LIMIT)
    h = g / (1.0 + np.exp(-g)) * u
    ref_h = np.full((16, INTER), UNWRITTEN)
    ref_h[:T] = h
    clamped = (gate_i * xs * w1s > LIMIT).sum() + (np.abs(up_i * xs * w3s) > LIMIT).sum()
    assert clamped > 0, "the inputs must exercise the SwiGLU clamps"
    for label, outs in each_run("expert_shared.t2b", "main", inputs, grid=2):
        compare(f"expert_shared GateI32 {label}", outs["GateI32"], ref_gate, 0, 0, pad)
        compare(f"expert_shared UpI32 {label}", outs["UpI32"], ref_up, 0, 0, pad)
        compare(f"expert_shared HF32 {label}", outs["HF32"], ref_h, 1e-5, 1e-4, pad)
        # The per-row scales in FP32 on the kernel's activation: amax (floored at 1e-4) is exact,
        # scale_q = 127 / amax and the dequant scale 1 / scale_q each one rounding.
        hk = outs["HF32"][:T].astype(np.float32)
        amax = np.maximum(np.abs(hk).max(1, keepdims=True), np.float32(1e-4))
        scale_q = np.float32(127.0) / amax
        ref_dq = np.full((16, 8), UNWRITTEN)
        ref_dq[:T] = np.broadcast_to((np.float32(1.0) / scale_q).astype(np.float64), (T, 8))
        pad_dq = np.zeros((16, 8), bool)
        pad_dq[T:] = True
        compare(f"expert_shared HScaleDq {label}", outs["HScaleDq"], ref_dq, 0, 1e-6, pad_dq)
        # The requantization reproduced: FP32 product, RINT to INT32 (saturating), INT32 -> FP16
        # (ROUND: floor(x + 0.5), exact on |q| <= 128), FP16 -> INT8 TRUNC saturating to
        # [-128, 127]; the padding rows keep the caller's zeros.
        scaled = (hk * scale_q).astype(np.float64)
        q32 = np.clip(np.rint(scaled), -2.0 ** 31, 2.0 ** 31 - 1)
        q16 = np.floor(q32 + 0.5).astype(np.float16).astype(np.float64)
        ref_q = np.zeros((16, INTER))
        ref_q[:T] = np.clip(np.trunc(q16), -128, 127)
        compare(f"expert_shared HI8 {label}", outs["HI8"], ref_q, 0, 0)
        # Independently of the kernel's FP32 values: the float64 quantization of the float64
        # activation, within one INT8 step (a value within FP32 rounding of a .5 tie may go
        # either way).
        ref_q64 = np.zeros((16, INTER))
        ref_q64[:T] = np.rint(h * (127.0 / np.maximum(np.abs(h).max(1, keepdims=True), 1e-4)))
        compare(f"expert_shared HI8 vs float64 {label}", outs["HI8"], ref_q64, 1, 0)
        # w2 on the kernel's INT8 activation, exactly (the padding rows give 0).
        y_i = outs["HI8"].astype(np.int64) @ w2.astype(np.int64).T
        compare(f"expert_shared YI32 {label}", outs["YI32"], y_i, 0, 0)
        # Dequant: y * max(scale row) * w2 scale, rounded to BF16 (RINT): within one BF16 step
        # (relative 2^-8) plus the FP32 error.
        sh = y_i[:T] * outs["HScaleDq"][:T].astype(np.float64).max(1, keepdims=True) * w2s.astype(np.float64)
        compare(f"expert_shared Sh {label}", bf16_value(outs["Sh"]), sh, 1e-5, 1e-4 + 2.0 ** -8)




def mtp_projection():
    # DeepSeek-V4 MTP projection (pypto-lib mtp_projection.py), D = 256, HC_MULT = 4, for t = 16
    # (whole linear groups) and t = 24 (a tail of 8 rows in the second group). Per token row and
    # hc: w = norm_w * smooth, amax = max(1e-4, max |x * w|), codes q = trunc(fp16(rint(x * w *
    # (127 / amax)))) saturated to INT8, scale = rsqrt(mean(x^2) + 1e-6) * amax / 127; then
    # Out[t, hc] = (q_e @ We^T) * scale_e * we_scale + (q_h[hc] @ Wh^T) * scale_h[hc] * wh_scale.
    # The codes are replayed in float32 from the same inputs in the kernel's order of operations
    # (every step one correctly rounded IEEE op, so a code on a rounding boundary is decided as the
    # FP32 kernel decides it) and must match exactly; they are also within one step of the float64
    # formula. The scales are checked against float64 within the rsqrt tolerance, the INT32
    # accumulators exactly against int64 products, and Out against the float64 dequant formula on
    # the accumulators and the scales the kernel wrote (checked just before). HiddenI8 and PrevI8
    # are the workspaces' previous contents (random codes): rows past t keep them and feed only
    # accumulator rows that are never stored to Out.
    D, HC, TMAX = 256, 4, 32

    def codes32(x, norm_w, smooth):
        w = (norm_w * smooth).astype(np.float32)
        xg = (x * w).astype(np.float32)
        amax = np.maximum(np.float32(1e-4), np.abs(xg).max(1, keepdims=True))
        mult = (np.float32(127.0) / amax).astype(np.float32)
        i32 = np.rint((xg * mult).astype(np.float32))
        return np.clip(np.trunc(i32.astype(np.float16).astype(np.float64)), -128, 127).astype(np.int64)

    def codes64_and_scale(x, norm_w, smooth):
        X = x.astype(np.float64)
        xg = X * (norm_w.astype(np.float64) * smooth.astype(np.float64))
        amax = np.maximum(1e-4, np.abs(xg).max(1, keepdims=True))
        q = np.clip(np.rint(xg * (127.0 / amax)), -127, 127)
        scale = 1.0 / np.sqrt((X ** 2).mean(1, keepdims=True) + 1e-6) * amax / 127.0
        return q, scale[:, 0]

    hidden = bf16_bits(rng.standard_normal((TMAX, D)) * 2)
    prev = (rng.standard_normal((TMAX, HC * D)) * 1.5).astype(np.float32)
    enorm, hnorm, esmooth, hsmooth = (rng.uniform(0.5, 1.5, (1, D)).astype(np.float32) for _ in range(4))
    ew, hw = (rng.integers(-127, 128, (D, D)).astype(np.int8) for _ in range(2))
    ews, hws = (rng.uniform(0.5, 1.5, (1, D)).astype(np.float32) / np.float32(127 * 16) for _ in range(2))
    old_hidden_i8 = rng.integers(-128, 128, (TMAX, D)).astype(np.int8)
    old_prev_i8 = rng.integers(-128, 128, (TMAX * HC, D)).astype(np.int8)
    x_hidden = bf16_value(hidden).astype(np.float32)
    inputs = {"Hidden": hidden, "PrevHidden": prev, "EnormW": enorm, "HnormW": hnorm, "EProjW": ew,
              "EWScale": ews, "ESmooth": esmooth, "HProjW": hw, "HWScale": hws, "HSmooth": hsmooth,
              "HiddenI8": old_hidden_i8, "PrevI8": old_prev_i8}
    for t in (16, 24):
        tl = (t + 15) // 16 * 16
        q_hidden = old_hidden_i8.astype(np.int64)
        q_hidden[:t] = codes32(x_hidden[:t], enorm, esmooth)
        q64, scale_hidden = codes64_and_scale(x_hidden[:t], enorm, esmooth)
        assert np.abs(q_hidden[:t] - q64).max() <= 1
        q_prev = old_prev_i8.astype(np.int64)
        scale_prev = np.full((HC, TMAX), UNWRITTEN)
        for hc in range(HC):
            x = prev[:t, hc * D:(hc + 1) * D]
            rows = np.arange(t) // 16 * 16 * HC + hc * 16 + np.arange(t) % 16
            q_prev[rows] = codes32(x, hnorm, hsmooth)
            q64, scale_prev[hc, :t] = codes64_and_scale(x, hnorm, hsmooth)
            assert np.abs(q_prev[rows] - q64).max() <= 1
        ref_hs = np.full((TMAX, 1), UNWRITTEN)
        ref_hs[:t, 0] = scale_hidden
        acc_hidden = np.full((TMAX, D), UNWRITTEN)
        acc_hidden[:tl] = q_hidden[:tl] @ ew.astype(np.int64).T
        acc_prev = np.full((TMAX * HC, D), UNWRITTEN)
        acc_prev[:tl * HC] = q_prev[:tl * HC] @ hw.astype(np.int64).T
        marker_hs = ref_hs == UNWRITTEN
        marker_ps = scale_prev == UNWRITTEN
        marker_out = np.zeros((TMAX, HC * D), bool)
        marker_out[t:] = True
        for label, outs in each_run("mtp_projection.t2b", "main", inputs, [("t", t)], grid=4):
            what = f"mtp_projection t={t} {label}"
            compare(f"{what} HiddenI8", outs["HiddenI8"], q_hidden, 0, 0)
            compare(f"{what} PrevI8", outs["PrevI8"], q_prev, 0, 0)
            compare(f"{what} HiddenScale", outs["HiddenScale"], ref_hs, 1e-5, 1e-4, marker_hs)
            compare(f"{what} PrevScale", outs["PrevScale"], scale_prev, 1e-5, 1e-4, marker_ps)
            compare(f"{what} HiddenAcc", outs["HiddenAcc"], acc_hidden, 0, 0, acc_hidden == UNWRITTEN)
            compare(f"{what} PrevAcc", outs["PrevAcc"], acc_prev, 0, 0, acc_prev == UNWRITTEN)
            hs = outs["HiddenScale"][:t].astype(np.float64)
            ps = outs["PrevScale"][:, :t].astype(np.float64)
            e = acc_hidden[:t] * hs * ews.astype(np.float64)
            ref = np.full((TMAX, HC * D), UNWRITTEN)
            for hc in range(HC):
                rows = np.arange(t) // 16 * 16 * HC + hc * 16 + np.arange(t) % 16
                h = acc_prev[rows] * ps[hc][:, None] * hws.astype(np.float64)
                ref[:t, hc * D:(hc + 1) * D] = e + h
            compare(f"{what} Out", outs["Out"], ref, 1e-5, 1e-4, marker_out)


for case in (softmax, layernorm, rmsnorm, rmsnorm_fp16, gemm_bias_relu, gemm, flash_attention, rope, rms_lm_head, expert_shared, mtp_projection):
    try:
        case()
    except RuntimeError as e:
        failures.append(case.__name__)
        print(f"FAIL {case.__name__}: {e}")

print(f"{checks} comparisons, {len(failures)} failed" + (" (perturbed: each must fail)" if PERTURB else ""))
sys.exit(1 if failures or checks == 0 else 0)
