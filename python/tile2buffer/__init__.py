# SPDX-License-Identifier: Apache-2.0
"""Lower planned Tile IR into explicit Buffer IR for Ascend-style NPUs, from Python.

    import tile2buffer as t2b
    program = t2b.parse(open("kernel.t2b").read(), "kernel.t2b")
    lowered = t2b.lower(program, planner="ptoas")
    print(lowered)                      # the Buffer IR, canonical text
    print(t2b.emit_pto(lowered))        # PTO-AS
    svg = t2b.memory_map(program, planner="pypto")   # where the planner put each tile, as SVG
    out = t2b.run(lowered, "add_mul", {"A": a, "B": b})   # NumPy arrays in, NumPy arrays out

Errors raise `ParseError`, `VerifyError`, `LoweringError`, `EmitError` or `RunError` (all
`tile2buffer.Error`): the message
is the located diagnostics as `t2b-opt` prints them, `.diagnostics` the list of `Diagnostic`.
Programs are immutable: `lower` and `run_passes` return a new one and never change their input.
The library's warnings and remarks (a kernel that stays Tile and why, the PTOAS over-capacity
warning) are Python warnings of category `tile2buffer.Warning` (`.diagnostic` holds the
`Diagnostic`); `with tile2buffer.collect_diagnostics() as notices:` collects them in a list instead.
"""
from __future__ import annotations

import builtins
import contextlib
import linecache
import numbers
import re
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

from . import _core
from .builder import Builder, KernelBuilder, Scalar, Site, Tensor, Tile, Value, _did_you_mean

__all__ = [
    "Diagnostic", "Error", "ParseError", "VerifyError", "LoweringError", "EmitError", "RunError",
    "Warning", "SimulationWarning", "collect_diagnostics", "Function", "Program", "parse", "load_binary", "lower",
    "explain_selection", "emit_pto", "run", "run_passes", "memory_map", "Builder", "KernelBuilder", "Value", "Tensor",
    "Tile", "Scalar", "Site", "PLANNERS", "TARGETS", "ROLLOUTS", "PASSES",
]

PLANNERS = _core.PLANNERS  # the library's tables; an unknown name is a ValueError from _core
TARGETS = _core.TARGETS
ROLLOUTS = _core.ROLLOUTS
PASSES = _core.PASSES  # the library's pass table (passes/pipeline_api.hpp pass_names), in pipeline order


@dataclass(frozen=True)
class Diagnostic:
    """One located diagnostic. `line` and `column` are 1-based; 0 when the location is unknown.
    About a program `Builder.build` made, they are the Python caller's file, line and column.
    `function` is the kernel it is about (without "@"), "" when it is about none."""
    file: str
    line: int
    column: int
    severity: str
    source: str
    message: str
    formatted: str
    function: str = ""

    def __str__(self) -> str:
        return self.formatted.rstrip("\n")


class Error(Exception):
    """Base of the package's errors; `str(e)` is every diagnostic, formatted with its excerpt."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics: List[Diagnostic] = list(diagnostics)
        super().__init__("".join(d.formatted for d in self.diagnostics).rstrip("\n"))


class ParseError(Error):
    """Malformed text or binary input."""


class VerifyError(Error):
    """Well-formed input that is not valid IR (the verifier's findings)."""


class LoweringError(Error):
    """Valid IR the pipeline refuses (a planner that cannot place it, an unsupported construct)."""


class EmitError(Error):
    """A program the PTO-AS emitter refuses (a Tile kernel named explicitly, the preflight)."""


class RunError(Error):
    """A simulation that stopped (an out-of-bounds access, a failed check): its located diagnostics."""


class Warning(builtins.UserWarning):  # pylint: disable=redefined-builtin  # tile2buffer.Warning
    """A warning or remark of the library (severity "warning" or "remark"): a kernel `lower` left
    Tile and why (and, where `rollout="extended"` lowers it, that hint), the PTOAS over-capacity
    warning. `.diagnostic` is the `Diagnostic` (its `.function` names the kernel)."""

    def __init__(self, diagnostic: Diagnostic, text: Optional[str] = None):
        super().__init__(str(diagnostic) if text is None else text)
        self.diagnostic = diagnostic


class SimulationWarning(Warning, builtins.RuntimeWarning):
    """A run that finished but whose outputs hold what the kernel did not compute: elements of an
    `out` tensor it never wrote (they hold -555), values derived from never-written storage, or
    writes outside a tensor. Its text is the diagnostic's message alone."""


_collecting = threading.local()  # per thread: the lists of the open collect_diagnostics blocks


@contextlib.contextmanager
def collect_diagnostics() -> Iterator[List[Diagnostic]]:
    """Collects the library's warnings and remarks raised in this block on this thread (by
    `lower`, `run_passes` and `run`) into the list it yields, in order, instead of raising them as warnings:

        with tile2buffer.collect_diagnostics() as notices:
            lowered = tile2buffer.lower(program)
        kept_tile = [d.function for d in notices if d.severity == "remark"]
    """
    stack = _collecting.__dict__.setdefault("stack", [])
    collected: List[Diagnostic] = []
    stack.append(collected)
    try:
        yield collected
    finally:
        stack.pop()


def _collected(diagnostic: Diagnostic) -> bool:
    """Whether an open `collect_diagnostics` block took `diagnostic` (else the caller warns)."""
    stack = getattr(_collecting, "stack", None)
    if not stack:
        return False
    stack[-1].append(diagnostic)
    return True


def _diagnostics(raw, sites: Optional[Sequence[Optional[Site]]] = None) -> List[Diagnostic]:
    return [_at_site(Diagnostic(*d), sites) for d in raw]


# The caret line of an excerpt (diag/diagnostic.hpp append_excerpt).
_CARET = re.compile(r"^[ \t]*\^$")


def _site_of(sites: Optional[Sequence[Optional[Site]]], line: int) -> Optional[Site]:
    return sites[line - 1] if sites is not None and 1 <= line <= len(sites) else None


def _excerpt(site: Site) -> str:
    """The user's Python line with a caret under the call, as the C++ side excerpts IR text."""
    source = linecache.getline(site.file, site.line).rstrip("\n")
    if not source:
        return ""
    col = site.column or len(source) - len(source.lstrip()) + 1
    return "%s\n%s^\n" % (source, "".join(c if c == "\t" else " " for c in source[:col - 1]))


def _at_site(d: Diagnostic, sites: Optional[Sequence[Optional[Site]]]) -> Diagnostic:
    """`d` about a builder-made program, moved from the generated text to the Python line that
    wrote the op (`Builder.sites`): its location, and each location and excerpt of `formatted`
    (the excerpt becomes the Python line when its source can be read, else stays the IR line)."""
    if sites is None:
        return d
    located = re.compile(re.escape(d.file) + r":(\d+):(\d+): ")  # how format() starts a diagnostic or note
    lines = d.formatted.split("\n")
    out: List[str] = []
    i = 0
    while i < len(lines):
        m = located.match(lines[i])
        at = _site_of(sites, int(m.group(1))) if m else None
        if at is None:
            out.append(lines[i])
            i += 1
            continue
        out.append("%s:%d:%d: %s" % (at.file, at.line, at.column, lines[i][m.end():]))
        i += 1
        if i + 1 < len(lines) and _CARET.match(lines[i + 1]):  # the IR excerpt of that location
            python = _excerpt(at)
            out.append(python.rstrip("\n") if python else "\n".join(lines[i:i + 2]))
            i += 2
    formatted = "\n".join(out)
    site = _site_of(sites, d.line)
    if site is None:
        return Diagnostic(d.file, d.line, d.column, d.severity, d.source, d.message, formatted, d.function)
    return Diagnostic(site.file, site.line, site.column, d.severity, d.source, d.message, formatted, d.function)


def _check(pair, error, sites: Optional[Sequence[Optional[Site]]] = None):
    value, raw = pair
    if raw:
        diags = _diagnostics(raw, sites)
        if error is LoweringError and all(d.source == "verify" for d in diags):
            error = VerifyError
        raise error(diags)
    return value


@dataclass(frozen=True)
class Function:
    """A function of a program: `kind` is aiv, aic, incore or orchestration; `stage` tile or buffer."""
    name: str
    kind: str
    stage: str
    is_kernel: bool


class Program:
    """A parsed or lowered program. `str(program)` is its canonical `.t2b` text."""

    __slots__ = ("_core", "_sites")

    def __init__(self, core, sites: Optional[Sequence[Optional[Site]]] = None):
        self._core = core
        self._sites = sites  # a builder-made program's Python line per text line (Builder.sites)

    def __str__(self) -> str:
        return str(self._core)

    def __repr__(self) -> str:
        names = ", ".join("@" + f.name for f in self.functions)
        return "<tile2buffer.Program %s: %s>" % (self.file or "<string>", names)

    @property
    def file(self) -> str:
        return self._core.file

    @property
    def functions(self) -> List[Function]:
        return [Function(*f) for f in self._core.functions]

    @property
    def kernels(self) -> List[Function]:
        """The device functions (aiv, aic, incore): what the pipeline lowers. Each `stage` says
        whether it was lowered ("buffer") or stayed "tile" (`explain_selection` says why)."""
        return [f for f in self.functions if f.is_kernel]

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError("no function named @%s in the program" % name)

    def to_binary(self) -> bytes:
        """The binary IR (docs/binary-format.md); `load_binary` reads it back. Raises `VerifyError`
        for IR no parser or pass produces (a use of a value nothing defines)."""
        return _check(self._core.to_binary(), VerifyError, self._sites)

    def verify(self) -> None:
        """Raises `VerifyError` unless the program is valid IR."""
        raw = self._core.verify()
        if raw:
            raise VerifyError(_diagnostics(raw, self._sites))


def parse(text: str, filename: str = "<string>") -> Program:
    """Parses `.t2b` text; raises `ParseError` (located) on malformed input."""
    if not isinstance(text, str):
        raise TypeError("parse takes the program's text as str, not %s" % type(text).__name__)
    return Program(_check(_core.parse(text, filename), ParseError))


def _parse_built(text: str, filename: str, sites: Sequence[Optional[Site]]) -> Program:
    """`parse` for `Builder.build`: the program keeps the Python line of each text line."""
    return Program(_check(_core.parse(text, filename), ParseError, sites), sites)


def load_binary(data: bytes, filename: str = "") -> Program:
    """Reads binary IR as `Program.to_binary` writes it; raises `ParseError` on malformed bytes."""
    return Program(_check(_core.load_binary(bytes(data), filename), ParseError))


def _rollout(rollout: str) -> str:
    return "default" if rollout == "spec" else rollout  # "spec": the name this package used first


def lower(program: Program, planner: str = "pypto", target: str = "a2a3", rollout: str = "default",
          enable_buffer_ir: bool = True, verify: bool = True, workers: int = 1, strict: bool = False) -> Program:
    """Runs the whole pipeline and returns the lowered program.

    `rollout` is "default" (the spec's default rollout, exactly) or "extended" (also the recipes
    the library declares outside it: reductions, broadcasts, rsqrt, cast and more lower under it).
    Kernels the rollout does not select stay Tile: each raises a `tile2buffer.Warning` (a remark
    with the reason, and the hint when `rollout="extended"` lowers it; `explain_selection` says
    the same), as does the PTOAS over-capacity warning; `collect_diagnostics()` collects them
    instead. `strict=True` raises `LoweringError` instead when a kernel stays Tile: one located
    error per such kernel, naming it, with the reason `explain_selection` gives. Invalid input
    raises `VerifyError`; a program the pipeline refuses raises `LoweringError`. `workers` threads
    lower the kernels (0: one per hardware thread); the output does not depend on it.
    """
    if workers < 0:
        raise ValueError("workers must be >= 0, not %d" % workers)
    if strict and not enable_buffer_ir:
        raise ValueError("strict=True asks that every kernel is lowered, which enable_buffer_ir=False turns off")
    value, raw, notices = _core.lower(program._core, planner, target, _rollout(rollout), bool(enable_buffer_ir),
                                      bool(verify), int(workers))
    if raw:  # the notices produced before the failure first, then the errors
        _notify(notices, program._sites)
    lowered = Program(_check((value, raw), LoweringError, program._sites), program._sites)
    if strict:
        _raise_if_tile(program, lowered, planner, target, rollout)  # its errors replace the stays-Tile remarks
    _notify(notices, program._sites)
    return lowered


def _notify(notices, sites: Optional[Sequence[Optional[Site]]]) -> None:
    """Each library notice as a `tile2buffer.Warning`, or into the open `collect_diagnostics`."""
    for d in _diagnostics(notices, sites):
        if not _collected(d):
            warnings.warn(Warning(d), stacklevel=3)


def _raise_if_tile(program: Program, lowered: Program, planner: str, target: str, rollout: str) -> None:
    """`lower(strict=True)`: a kernel of `lowered` that stayed Tile is an error at its reason."""
    stayed = {f.name for f in lowered.kernels if f.stage != "buffer"}
    if not stayed:
        return
    entries = _check(_core.explain_selection(program._core, planner, target, _rollout(rollout)), LoweringError,
                     program._sites)
    raw = [_core.diagnostic(program._core, line, col, "select",
                            "@%s stays Tile (lower(strict=True)): %s" % (name, reason or "recorded as not selected"))
           for name, selected, line, col, reason in entries if name in stayed]
    raise LoweringError(_diagnostics(raw, program._sites))


def explain_selection(program: Program, planner: str = "pypto", target: str = "a2a3",
                      rollout: str = "default") -> Dict[str, str]:
    """Kernel name -> "selected", or the located reason it stays Tile ("15:3: tile.row_max: ...";
    for a builder-made program, the Python line: "kernel.py:12:5: tile.row_max: ...")."""
    entries = _check(_core.explain_selection(program._core, planner, target, _rollout(rollout)), LoweringError,
                     program._sites)

    def where(line: int, col: int) -> str:
        site = _site_of(program._sites, line)
        return "%d:%d" % (line, col) if site is None else "%s:%d:%d" % (site.file, site.line, site.column)

    return {name: "selected" if selected else "%s: %s" % (where(line, col), reason)
            for name, selected, line, col, reason in entries}


def run_passes(program: Program, passes: Sequence[str], planner: str = "pypto", target: str = "a2a3",
               rollout: str = "default", verify: bool = True, workers: int = 1) -> Program:
    """Runs the pipeline's passes named in `passes`, in that order (`PASSES` lists them in the
    order `lower` runs them; a pass may repeat or be left out), as `t2b-opt --pass-pipeline` does,
    and returns the new program. An unknown name is a `ValueError` (with a did-you-mean); errors
    as `lower`."""
    if isinstance(passes, str):
        raise TypeError("passes is a list of pass names, not a str: run_passes(p, [%r])" % passes)
    names = list(passes)
    for name in names:
        if name not in PASSES:
            raise ValueError("unknown pass %r%s (the passes: %s)" % (name, _did_you_mean(str(name), PASSES),
                                                                    ", ".join(PASSES)))
    if workers < 0:
        raise ValueError("workers must be >= 0, not %d" % workers)
    value, raw, notices = _core.run_passes(program._core, names, planner, target, _rollout(rollout), bool(verify),
                                           int(workers))
    _notify(notices, program._sites)
    return Program(_check((value, raw), LoweringError, program._sites), program._sites)


def memory_map(program: Program, planner: str = "pypto", target: str = "a2a3", rollout: str = "default") -> str:
    """The SVG memory map of `program` as `planner` plans it (`t2b-opt --memory-map`): per kernel
    and memory space, each allocation a rectangle over its live ops (x) and its bytes (y). Errors
    as `lower` (a program the planner cannot plan is a `LoweringError`)."""
    return _check(_core.memory_map(program._core, planner, target, _rollout(rollout)), LoweringError, program._sites)


def emit_pto(program: Program, generic: bool = False, kernel: Optional[str] = None, target: str = "a2a3") -> str:
    """PTO-AS text of the Buffer kernels (`generic`: MLIR's generic op form). Without `kernel`,
    kernels that stayed Tile are left out with a comment beside the lowered ones; naming one, or
    a program with no Buffer kernel at all, is an `EmitError` (as `t2b-opt --emit=pto`)."""
    return _check(_core.emit_pto(program._core, bool(generic), kernel or "", target), EmitError, program._sites)


def _scalar_text(name: str, value: Any) -> str:
    # Why text: the library types each value against its parameter (sim/host_run.hpp), as
    # `t2b-opt --scalar` does: 3 binds an INDEX parameter, 3.5 is refused rather than truncated.
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):  # int and NumPy's integer scalars; not 0-d arrays
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    raise TypeError("scalars[%r] must be a bool, an int or a float, not %s" % (name, type(value).__name__))


def run(program: Program, kernel: str, inputs: Mapping[str, Any], scalars: Optional[Mapping[str, Any]] = None,
        grid: int = 1, subblocks: int = 1) -> Dict[str, Any]:
    """Runs `kernel` (a device function, or an orchestration and the kernels it submits) in the
    reference simulator, as the program stands: Tile IR as written, Buffer IR once lowered.

    `inputs` maps every in/inout tensor parameter to a NumPy array of its static shape and dtype
    (FP16 float16, FP32 float32, INT8 int8, INT32 int32, BF16 as uint16 bit patterns); `scalars`
    every scalar parameter to a value that fits it. A device function runs as a launch of `grid`
    blocks of `subblocks` subblocks each. Returns every out/inout tensor by parameter name.
    A missing, unknown, mistyped or misshapen argument is a `ValueError` naming the parameter; an
    invalid program a `VerifyError`; a simulation that stops is a `RunError`; outputs holding what the kernel did not compute give a
    `SimulationWarning`.
    """
    import numpy as np  # only `run` needs NumPy

    if not isinstance(kernel, str):
        raise TypeError("kernel must be a function name (str), not %s" % type(kernel).__name__)
    for what, n in (("grid", grid), ("subblocks", subblocks)):
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 65535:
            raise ValueError("%s must be an int from 1 to 65535, not %r" % (what, n))
    arrays = []
    for name, value in dict(inputs).items():
        if not isinstance(value, np.ndarray):
            raise TypeError("inputs[%r] must be a numpy.ndarray, not %s" % (name, type(value).__name__))
        a = np.ascontiguousarray(value)
        arrays.append((str(name), a.dtype.str, list(a.shape), a.tobytes()))
    bound = [(str(name), _scalar_text(name, value)) for name, value in dict(scalars or {}).items()]
    program.verify()  # as t2b-opt does before a run: the simulator assumes valid IR
    name = kernel[1:] if kernel.startswith("@") else kernel
    outputs, notes, _stage, error, raw = _core.run(program._core, name, arrays, bound, grid, subblocks)
    if raw:
        raise RunError(_diagnostics(raw, program._sites))
    if error:
        raise ValueError(error)
    for d in _diagnostics(notes, program._sites):
        if not _collected(d):
            warnings.warn(SimulationWarning(d, d.message), stacklevel=2)
    return {name: np.frombuffer(bytearray(data), dtype=np.dtype(descr)).reshape(rows, cols)
            for name, descr, rows, cols, data in outputs}
