# SPDX-License-Identifier: Apache-2.0
"""Writing kernels from Python: operands by the names the op records give them.

    b = t2b.Builder()
    k = b.kernel("add", "aiv")
    A = k.param("A", t2b.Tensor((16, 32), "FP32"))
    Out = k.param("Out", t2b.Tensor((16, 32), "FP32"), direction="out")
    x = k.load(A, offsets=(0, 0), shape=(16, 32))
    y = k.adds(x, scalar=1.0)
    k.ret(k.store(y, offsets=(0, 0), tensor=Out))
    program = b.build()          # a Program, as if parsed from the text b.text() returns

Every op of the catalogue is a method: Tile ops by their name without `tile.` (`k.load`,
`k.matmul_acc`), the others through `k.op(mnemonic, ...)` (`k.op("max", a, b)`,
`k.op("scalar.and", p, q)`, `k.op("scalar.const", 16, type=Scalar("INDEX"))`). Positional arguments fill the
op's operands in record order (`t2b-opt --list-ops`, docs/ops.md), keyword arguments name them or
the op's registered keywords (`init_cond=`, `addr=`); a missing, unknown or doubled operand is a
TypeError before any text is written. The result type is inferred where the op fixes it (loads,
elementwise ops, stores, matmuls, slices, reductions, block queries) and is otherwise `type=`.
Scalar arithmetic is Python's: `k.named(block * 8, "column")`; `==` and `!=` are `k.eq`, `k.ne`.
Regions are context managers: `with k.if_(flag) as br:` ... `br.yield_(...)`, `with br.else_():`;
`with k.for_(0, n, 1, x=init) as loop:` ... `loop.yield_(...)`, `loop.results`; `k.while_`.

Every line of the text remembers the Python line that wrote it (the first caller outside this
package), so the diagnostics about a built program point at the user's file and line, not at
the generated text.
"""
from __future__ import annotations

import difflib
import itertools
import numbers
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _core

__all__ = ["Builder", "KernelBuilder", "Value", "Tensor", "Tile", "Scalar", "Site"]


def _check_name(what: str, value: Any, names: Sequence[str]) -> None:
    """A dtype or memory space the library's tables (`_core.DTYPES`, `_core.SPACES`) do not know is
    a `ValueError` where the type is written, not a `ParseError` at the kernel's line later."""
    if value not in names:
        same = [n for n in names if n.lower() == str(value).lower()]  # 'index', 'vec': only the case is off
        hint = "; did you mean %r?" % same[0] if same else _did_you_mean(str(value), names)
        raise ValueError("unknown %s %r%s (the %ss: %s)" % (what, value, hint, what, ", ".join(names)))


@dataclass(frozen=True)
class Scalar:
    dtype: str

    def __post_init__(self) -> None:
        _check_name("dtype", self.dtype, _core.DTYPES)

    def text(self, header: bool = False) -> str:
        return "Scalar[%s]" % self.dtype if header else self.dtype


@dataclass(frozen=True)
class Tensor:
    shape: Tuple[int, int]
    dtype: str

    def __post_init__(self) -> None:
        _check_name("dtype", self.dtype, _core.DTYPES)

    def text(self, header: bool = False) -> str:
        return "Tensor[[%d, %d], %s]" % (self.shape[0], self.shape[1], self.dtype)


@dataclass(frozen=True)
class Tile:
    shape: Tuple[int, int]
    dtype: str
    space: str = "Vec"
    valid: Optional[Tuple[Any, Any]] = None  # literals or scalar Values

    def __post_init__(self) -> None:
        _check_name("dtype", self.dtype, _core.DTYPES)
        _check_name("memory space", self.space, _core.SPACES)

    def text(self, header: bool = False) -> str:
        fields = ""
        if self.valid is not None:
            fields = ", valid=[%s, %s]" % (_operand_text(self.valid[0]), _operand_text(self.valid[1]))
        return "Tile[[%d, %d], %s, %s%s]" % (self.shape[0], self.shape[1], self.dtype, self.space, fields)


Type = Union[Scalar, Tensor, Tile]


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    """"; did you mean 'x'?" for the choice closest to a misspelled `word`, or "" for none."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return "; did you mean %r?" % close[0] if close else ""


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


@dataclass(frozen=True)
class Site:
    """The Python line that wrote a line of the builder's text. The column comes from the code
    object's positions only when a diagnostic asks for it (`column`), so building stays cheap."""
    file: str
    line: int
    code: Any = field(default=None, repr=False, compare=False)  # the caller's code object and
    lasti: int = field(default=-1, repr=False, compare=False)   # its instruction (frame.f_lasti)

    @property
    def column(self) -> int:
        """1-based column of the call (0 when the interpreter does not record positions)."""
        positions = getattr(self.code, "co_positions", None)  # Python 3.11
        if positions is None or self.lasti < 0:
            return 0
        # One entry per 2-byte code unit; f_lasti is a byte offset.
        at = next(itertools.islice(positions(), self.lasti // 2, None), None)
        return at[2] + 1 if at is not None and at[0] == self.line and at[2] is not None else 0


def _caller() -> Optional[Site]:
    """Where the user called the builder: the first frame outside the tile2buffer package."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:
        return None
    return Site(frame.f_code.co_filename, frame.f_lineno, frame.f_code, frame.f_lasti)


class Value:
    """A value of the kernel being built: a parameter, an op result, a loop or iteration value.
    Scalar values take Python's arithmetic and comparison operators (one scalar op each)."""

    __slots__ = ("name", "type", "_kernel")

    def __init__(self, name: str, type_: Optional[Type], kernel: "KernelBuilder"):
        self.name = name
        self.type = type_
        self._kernel = kernel

    def __repr__(self) -> str:
        return "<Value %s: %s>" % (self.name, self.type.text() if self.type else "allocation")

    def _binary(self, infix: str, other: Any, swap: bool = False) -> "Value":
        lhs, rhs = (other, self) if swap else (self, other)
        return self._kernel.op(_BY_INFIX[infix], lhs, rhs)

    def __add__(self, o): return self._binary("+", o)
    def __radd__(self, o): return self._binary("+", o, True)
    def __sub__(self, o): return self._binary("-", o)
    def __rsub__(self, o): return self._binary("-", o, True)
    def __mul__(self, o): return self._binary("*", o)
    def __rmul__(self, o): return self._binary("*", o, True)
    def __floordiv__(self, o): return self._binary("//", o)
    def __mod__(self, o): return self._binary("%", o)
    def __bool__(self):
        raise TypeError("a Value has no truth value while the kernel is being built: %s < n writes a comparison; "
                        "branch in the kernel with k.if_(...), not with Python's if" % self.name)

    def __lt__(self, o): return self._binary("<", o)
    def __le__(self, o): return self._binary("<=", o)
    def __gt__(self, o): return self._binary(">", o)
    def __ge__(self, o): return self._binary(">=", o)


def _literal(v: Any) -> str:
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        text = repr(float(v))
        if text in ("inf", "-inf", "nan"):
            raise ValueError("a float literal must be finite, not %s" % text)
        return text if ("." in text or "e" in text) else text + ".0"
    raise TypeError("expected a Value, an int, a float or a bool, not %s" % type(v).__name__)


def _operand_text(v: Any) -> str:
    return v.name if isinstance(v, Value) else _literal(v)


def _type_of(v: Any, where: str) -> Type:
    """The type a region result or iteration value takes from `v`: a value's own; BOOL for a bool,
    INDEX for an integer literal (as the text format types `for` bounds); a float literal has no
    one type, so it needs `types=`."""
    if isinstance(v, Value):
        if v.type is None:
            raise TypeError("%s: %s is an allocation, not a value a region can carry" % (where, v.name))
        return v.type
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return Scalar("BOOL")
    if isinstance(v, numbers.Integral):
        return Scalar("INDEX")
    raise TypeError("%s: the literal %r has no one type; give types=[...]" % (where, v))


# The records as the library holds them (_core.op_records): mnemonic -> operands [(name, kind,
# optional, variadic)], keywords, result arity, regions, elementwise kind.
@dataclass(frozen=True)
class _Record:
    mnemonic: str
    operands: Tuple[Tuple[str, str, bool, bool], ...]
    keywords: Tuple[str, ...]
    results: str
    regions: int
    ew: str
    infix: str
    scalar: bool  # a scalar op: written as the text format's scalar statements
    family: str  # the op's family (ir/op_record.hpp op_family)
    result: str  # how the result type follows from the operands (ir/op_record.hpp result_rule)
    result_like: str  # `same_as`: the operand whose type the result has


def _records() -> Dict[str, _Record]:
    out = {}
    for mnemonic, operands, keywords, results, regions, ew, infix, scalar, family, result, like in _core.op_records():
        parsed = []
        for item in operands.split():
            name, kind = item.split(":")
            parsed.append((name, kind.rstrip("?*"), kind.endswith("?"), kind.endswith("*")))
        out[mnemonic] = _Record(mnemonic, tuple(parsed), tuple(keywords), results, regions, ew, infix, scalar, family, result,
                                like)
    return out


RECORDS = _records()
_BY_INFIX = {r.infix: r.mnemonic for r in RECORDS.values() if r.infix}
_ACCUMULATOR = {"FP16": "FP32", "BF16": "FP32", "FP32": "FP32", "INT8": "INT32"}


class _Region:
    def __init__(self, kernel: "KernelBuilder"):
        self.kernel = kernel
        self.lines: List[Tuple[int, str, Optional[Site]]] = []  # (depth, text, the Python line that wrote it)


class KernelBuilder:
    """One function: parameters, then ops in order. Methods named for Tile ops emit them."""

    def __init__(self, builder: "Builder", name: str, kind: str):
        self._builder = builder
        self.name = name
        self.kind = kind
        self._params: List[Tuple[Value, str]] = []
        self._names: set = set()
        self._body = _Region(self)
        self._stack: List[_Region] = [self._body]
        self._results: Optional[List[Value]] = None
        self._site = _caller()

    # -- names and lines --------------------------------------------------------------------
    def _fresh(self, name: Optional[str]) -> str:
        """`name` if unused, else `name_1`, `name_2`, ...; unnamed values get v0, v1, ..."""
        if name is None:
            n = 0
            while "v%d" % n in self._names:
                n += 1
            candidate = "v%d" % n
        else:
            candidate, n = name, 0
            while candidate in self._names:
                n += 1
                candidate = "%s_%d" % (name, n)
        self._names.add(candidate)
        return candidate

    def _line(self, text: str) -> None:
        self._stack[-1].lines.append((len(self._stack) - 1, text, _caller()))

    def _scalar_statement(self, rhs: str, type_: Optional[Type], name: Optional[str] = None) -> Value:
        v = Value(self._fresh(name), type_, self)
        self._line("%s = %s" % (v.name, rhs))
        return v

    # -- the function -----------------------------------------------------------------------
    def param(self, name: str, type_: Type, direction: str = "in") -> Value:
        if direction not in ("in", "out", "inout"):
            raise ValueError("direction must be 'in', 'out' or 'inout', not %r" % direction)
        if self._body.lines:
            raise TypeError("parameters come before the first op")
        v = Value(self._fresh(name), type_, self)
        self._params.append((v, direction))
        return v

    def ret(self, *values: Value) -> None:
        """Ends the function body; its results are these values' types."""
        if len(self._stack) != 1:
            raise TypeError("return ends the function body, not a region")
        self._results = list(values)
        self._line("return" + (" " + ", ".join(v.name for v in values) if values else ""))

    def submit(self, callee: str, *args: Any, deps: Sequence[Value] = (), name: Optional[str] = None) -> Value:
        text = "submit @%s(%s)" % (callee.lstrip("@"), ", ".join(_operand_text(a) for a in args))
        if deps:
            text += " deps(%s)" % ", ".join(d.name for d in deps)
        return self._scalar_statement(text, None, name or "t")

    def eq(self, lhs: Any, rhs: Any, name: Optional[str] = None) -> Value:
        return self.op(_BY_INFIX["=="], lhs, rhs, name=name)

    def ne(self, lhs: Any, rhs: Any, name: Optional[str] = None) -> Value:
        return self.op(_BY_INFIX["!="], lhs, rhs, name=name)

    def named(self, value: Value, name: str) -> Value:
        """Names the value the last statement defined: `column = k.named(block * 8, "column")`
        (an operator has no place for a name)."""
        depth, line, site = self._stack[-1].lines[-1]
        if not line.startswith(value.name + " = "):
            raise TypeError("%s is not the value the last statement defined" % value.name)
        self._names.discard(value.name)
        value.name = self._fresh(name)
        self._stack[-1].lines[-1] = (depth, value.name + line[line.index(" = "):], site)
        return value

    # -- ops from the records ---------------------------------------------------------------
    def op(self, mnemonic: str, *args: Any, type: Optional[Type] = None, name: Optional[str] = None,  # noqa: A002
           storage: Optional[Value] = None, offset: Optional[int] = None, **named: Any) -> Optional[Value]:
        rec = RECORDS.get(mnemonic)
        if rec is None:
            raise AttributeError("no op %r in the catalogue%s (t2b-opt --list-ops lists them)" % (
                mnemonic, _did_you_mean(mnemonic, list(RECORDS))))
        if offset is not None and storage is None:
            # Why an error: `offset=` places the result in `storage=`; alone it would be dropped,
            # and it is the misspelling of `offsets=` a load or store takes.
            raise TypeError("%s: offset= is the byte offset in storage=, which is not given%s" % (
                mnemonic, _did_you_mean("offset", [o[0] for o in rec.operands] + list(rec.keywords))))
        if rec.regions:
            raise TypeError("%s has regions: use if_, for_ or while_" % mnemonic)
        slots: Dict[str, Any] = {}
        if len(args) > len(rec.operands) and not (rec.operands and rec.operands[-1][3]):
            raise TypeError("%s takes %d operands (%s), not %d" % (mnemonic, len(rec.operands),
                                                                 ", ".join(o[0] for o in rec.operands), len(args)))
        for i, a in enumerate(args):
            if i >= len(rec.operands) - 1 and rec.operands and rec.operands[-1][3]:
                slots.setdefault(rec.operands[-1][0], []).append(a)
            else:
                slots[rec.operands[i][0]] = a
        keywords = {}
        for key, a in named.items():
            if any(o[0] == key for o in rec.operands):
                if key in slots:
                    raise TypeError("%s: operand %r given twice" % (mnemonic, key))
                slots[key] = a
            elif key in rec.keywords:
                keywords[key] = a
            else:
                raise TypeError("%s has no operand or keyword %r%s (operands: %s; keywords: %s)" % (
                    mnemonic, key, _did_you_mean(key, [o[0] for o in rec.operands] + list(rec.keywords)),
                    ", ".join(o[0] for o in rec.operands) or "none", ", ".join(rec.keywords) or "none"))
        texts = []
        for oname, kind, optional, variadic in rec.operands:
            if oname not in slots:
                if optional or variadic:
                    continue
                raise TypeError("%s needs operand %r" % (mnemonic, oname))
            texts.append(_kinded(mnemonic, oname, kind, slots[oname], variadic))
        texts += ["%s = %s" % (k, _operand_text(v)) for k, v in keywords.items()]
        if rec.scalar:
            return self._scalar_op(rec, texts, slots, type, name)
        call = "%s(%s)" % (mnemonic, ", ".join(texts))
        if rec.results == "none":
            self._line(call)
            return None
        if mnemonic == "tile.alloc":
            return self._scalar_statement(call, None, name)
        result_type = type or _infer(rec, slots)
        if result_type is None:
            raise TypeError("%s: give the result type (type=...); it is not fixed by the operands" % mnemonic)
        suffix = ""
        if storage is not None:
            suffix = " in %s%s" % (storage.name, "[%d]" % offset if offset else "")
        return self._scalar_statement("%s : %s%s" % (call, result_type.text(), suffix), result_type, name)

    def _scalar_op(self, rec: _Record, texts: List[str], slots: Dict[str, Any], type_: Optional[Type],
                   name: Optional[str]) -> Value:
        # Scalar statements are written as the text format writes them (docs/text-format.md):
        # `a + b`, `a and b`, `not a`, `min(a, b)`, `cast(a, INT32)`, `16 : INDEX`.
        m = rec.mnemonic
        if m == "scalar.const":
            if type_ is None:
                raise TypeError("scalar.const: give the constant's type (type=Scalar(...))")
            rhs = texts[0]
        elif rec.infix:
            rhs = "%s %s %s" % (texts[0], rec.infix, texts[1])
        elif m == "not":
            rhs = "not " + texts[0]
        else:
            rhs = "%s(%s)" % (m, ", ".join(texts))
        inferred: Optional[Type]
        if rec.result in ("boolean", "to_dtype"):
            inferred = _infer(rec, slots)
        else:  # the operands' type, from whichever operand is a value (`2 * n`)
            inferred = next((v.type for v in slots.values() if isinstance(v, Value)), None)
        if type_ is None and inferred is None:
            raise TypeError("%s: no operand is a value, so give the result type (type=Scalar(...))" % m)
        if type_ is not None:
            rhs += " : " + type_.text()
        return self._scalar_statement(rhs, type_ or inferred, name)

    def __getattr__(self, short: str):
        if short.startswith("_") or ("tile." + short) not in RECORDS:
            methods = [m[len("tile."):] for m in RECORDS if m.startswith("tile.")]
            methods += [m for m in dir(type(self)) if not m.startswith("_")]
            raise AttributeError("KernelBuilder has no op %r%s (Tile ops by their name without 'tile.'; "
                                 "others through op(mnemonic, ...))" % (short, _did_you_mean(short, methods)))
        return lambda *args, **kw: self.op("tile." + short, *args, **kw)

    # -- regions ----------------------------------------------------------------------------
    def if_(self, cond: Any, types: Sequence[Type] = (), names: Sequence[str] = ()) -> "_If":
        return _If(self, cond, list(types), list(names))

    def for_(self, start: Any, stop: Any, step: Any = 1, /, *, index: str = "i", names: Sequence[str] = (),
             types: Optional[Sequence[Type]] = None, iter: Optional[Dict[str, Any]] = None,  # noqa: A002
             **inits: Any) -> "_For":
        """Iteration values by keyword (`acc=zero`), or in `iter={...}` for the names `index`,
        `names`, `types` and `iter`, which are this method's own."""
        own = ("index", "names", "types", "iter")
        return _For(self, start, stop, step, index, list(names), types, _inits(iter, inits, own))

    def while_(self, cond, /, *, names: Sequence[str] = (), types: Optional[Sequence[Type]] = None,
               iter: Optional[Dict[str, Any]] = None, **inits: Any) -> "_While":  # noqa: A002
        return _While(self, cond, list(names), types, _inits(iter, inits, ("names", "types", "iter")))

    # -- text -------------------------------------------------------------------------------
    def text(self) -> str:
        return "".join(t + "\n" for t, _site in self._sited_lines())

    def _sited_lines(self) -> List[Tuple[str, Optional[Site]]]:
        """The function's text lines, each with the Python line that wrote it (the header and the
        closing brace: the `kernel(...)` call)."""
        if self._results is None:
            raise TypeError("@%s has no return yet (k.ret(...))" % self.name)
        params = ", ".join("%s: %s%s" % (v.name, "" if d == "in" else d + " ", v.type.text(header=True))
                           for v, d in self._params)
        head = "%s @%s(%s)" % (self.kind, self.name, params)
        if self._results:
            types = [v.type.text() for v in self._results]
            head += " -> " + (types[0] if len(types) == 1 else "(%s)" % ", ".join(types))
        return ([(head + " {", self._site)] + [("  " * (d + 1) + t, site) for d, t, site in self._body.lines]
                + [("}", self._site)])


def _inits(given: Optional[Dict[str, Any]], named: Dict[str, Any], own: Sequence[str]) -> Dict[str, Any]:
    out = dict(given or {})
    for k, v in named.items():
        # A list, a str or a type is no iteration value: a misspelled keyword of the method's own (`nmes=[...]`).
        if not isinstance(v, (Value, numbers.Number)) and type(v).__name__ != "bool_":
            raise TypeError("iteration value %r takes a value or a literal, not %s%s" % (
                k, type(v).__name__, _did_you_mean(k, own)))
        if k in out:
            raise TypeError("iteration value %r given twice" % k)
        out[k] = v
    return out


def _kinded(mnemonic: str, name: str, kind: str, v: Any, variadic: bool) -> str:
    where = "%s operand %r" % (mnemonic, name)
    if variadic:
        return ", ".join(_operand_text(x) for x in v)
    if kind == "v":
        if not isinstance(v, Value):
            raise TypeError("%s takes a value, not %r" % (where, v))
        return v.name
    if kind == "s":
        return _operand_text(v)
    if kind in ("p", "t"):
        if not isinstance(v, (tuple, list)) or (kind == "p" and len(v) != 2):
            raise TypeError("%s takes %s, not %r" % (where, "a pair (a, b)" if kind == "p" else "a tuple", v))
        return "(%s)" % ", ".join(_operand_text(x) for x in v)
    if kind in ("m", "d", "f"):
        if not isinstance(v, str):
            raise TypeError("%s takes a name (str), not %r" % (where, v))
        return v
    raise TypeError("%s: unknown operand kind %r" % (where, kind))


def _infer(rec: _Record, slots: Dict[str, Any]) -> Optional[Type]:
    """The result type by the record's rule (ir/op_record.hpp result_rule); None for `declared`."""
    t = lambda key: slots[key].type if isinstance(slots.get(key), Value) else None  # noqa: E731
    rule = rec.result
    if rule == "same_as":
        return t(rec.result_like)
    if rule == "load_window":
        valid = slots.get("valid")
        return Tile(tuple(slots["shape"]), t("tensor").dtype, "Vec",
                    tuple(valid) if valid is not None and tuple(valid) != tuple(slots["shape"]) else None)
    if rule == "window":
        src, valid = t("source"), slots.get("valid")
        return Tile(tuple(slots["shape"]), src.dtype, src.space, tuple(valid) if valid is not None else None)
    if rule == "matrix_product":
        lhs, rhs = t("lhs"), t("rhs")
        return Tile((lhs.shape[0], rhs.shape[1]), _ACCUMULATOR.get(lhs.dtype, lhs.dtype), "Acc")
    if rule == "column_of":
        src = t("source")
        return Tile((src.shape[0], 1), src.dtype, src.space)
    if rule == "row_of":
        src = t("source")
        return Tile((1, src.shape[1]), src.dtype, src.space, (1, src.valid[1]) if src.valid is not None else None)
    if rule == "converted":
        src = t("source")
        return Tile(src.shape, slots["to"], src.space, src.valid)
    if rule == "index":
        return Scalar("INDEX")
    if rule == "boolean":
        return Scalar("BOOL")
    if rule == "to_dtype":
        return Scalar(slots["to"])
    return None


class _If:
    def __init__(self, kernel: KernelBuilder, cond: Any, types: List[Type], names: List[str]):
        self.k, self.cond, self.types, self.names = kernel, cond, types, names
        self.then, self.other = _Region(kernel), _Region(kernel)
        self.results: List[Value] = []
        self._open: Optional[_Region] = None
        self._yields: Dict[int, List[Value]] = {}
        self._site = _caller()

    def __enter__(self) -> "_If":
        self._enter(self.then)
        return self

    def _enter(self, region: _Region) -> None:
        self._open = region
        self.k._stack.append(region)

    def _leave(self) -> None:
        self.k._stack.pop()
        self._open = None

    def yield_(self, *values: Any) -> None:
        if self._open is None:
            raise TypeError("yield_ belongs inside the if's then or else block")
        self._yields[id(self._open)] = list(values)
        self.k._line("yield " + ", ".join(_operand_text(v) for v in values))

    def else_(self) -> "_Else":
        return _Else(self)

    def __exit__(self, *exc) -> None:
        if self._open is self.then:
            self._leave()
        if exc[0] is not None:
            return
        then_yields = self._yields.get(id(self.then), [])
        if not self.types:
            self.types = [_type_of(v, "if result %d" % i) for i, v in enumerate(then_yields)]
        names = [self.k._fresh(self.names[i] if i < len(self.names) else None) for i in range(len(self.types))]
        self.results = [Value(n, ty, self.k) for n, ty in zip(names, self.types)]
        head = "if %s" % _operand_text(self.cond)
        if self.types:
            head = "%s = %s -> (%s)" % (", ".join(names), head, ", ".join(ty.text() for ty in self.types))
        self._head = head
        depth = len(self.k._stack) - 1
        self.k._stack[-1].lines.append((depth, head + " {", self._site))
        self.k._stack[-1].lines.extend(self.then.lines)
        self._tail_index = len(self.k._stack[-1].lines)
        self.k._stack[-1].lines.append((depth, "}", self._site))
        self._depth = depth


class _Else:
    def __init__(self, owner: _If):
        self.owner = owner
        self._site = _caller()

    def __enter__(self) -> _If:
        if not hasattr(self.owner, "_tail_index"):
            raise TypeError("else_ follows the closed then block: `with br.else_():` after `with k.if_(...) as br:`")
        if getattr(self.owner, "_has_else", False):
            raise TypeError("this if already has its else block")
        self.owner._has_else = True
        self.owner._enter(self.owner.other)
        return self.owner

    def __exit__(self, *exc) -> None:
        o = self.owner
        o._leave()
        if exc[0] is not None:
            return
        lines = o.k._stack[-1].lines
        lines[o._tail_index] = (o._depth, "} else {", self._site)
        lines[o._tail_index + 1:o._tail_index + 1] = o.other.lines + [(o._depth, "}", self._site)]


class _Loop:
    def __init__(self, kernel: KernelBuilder, names: List[str], types: Optional[Sequence[Type]], inits: Dict[str, Any]):
        self.k = kernel
        self.inits = inits
        self.types = list(types) if types is not None else [_type_of(v, "iteration value %r" % k) for k, v in inits.items()]
        if len(self.types) != len(inits):
            raise TypeError("one type per iteration value: %d types for %d values" % (len(self.types), len(inits)))
        self.names = names
        self.args = [Value(kernel._fresh(n), ty, kernel) for n, ty in zip(inits, self.types)]
        self.body = _Region(kernel)
        self.results: List[Value] = []
        self._site = _caller()

    def yield_(self, *values: Any) -> None:
        if self.k._stack[-1] is not self.body:
            raise TypeError("yield_ belongs at the end of the loop's body")
        self.k._line("yield " + ", ".join(_operand_text(v) for v in values))

    def _iter_text(self) -> str:
        if not self.inits:
            return ""
        return " iter(%s)" % ", ".join("%s = %s" % (a.name, _operand_text(v)) for a, v in zip(self.args, self.inits.values()))

    def __exit__(self, *exc) -> None:
        self.k._stack.pop()  # the body
        if exc[0] is None:
            self._close(*self._header())

    def _close(self, head: str, regions: List[Tuple[str, _Region]]) -> None:
        names = [self.k._fresh(self.names[i] if i < len(self.names) else a.name + "_out") for i, a in enumerate(self.args)]
        self.results = [Value(n, ty, self.k) for n, ty in zip(names, self.types)]
        if self.types:
            head = "%s = %s -> (%s)" % (", ".join(names), head, ", ".join(ty.text() for ty in self.types))
        depth = len(self.k._stack) - 1
        lines = self.k._stack[-1].lines
        first = True
        for opener, region in regions:
            lines.append((depth, (head + opener) if first else "}" + opener, self._site))
            lines.extend(region.lines)
            first = False
        lines.append((depth, "}", self._site))


class _For(_Loop):
    def __init__(self, kernel, start, stop, step, index, names, types, inits):
        super().__init__(kernel, names, types, inits)
        self.range = (start, stop, step)
        kinds = [v.type for v in self.range if isinstance(v, Value)]
        self.index = Value(kernel._fresh(index), kinds[0] if kinds else Scalar("INDEX"), kernel)

    def __enter__(self) -> "_For":
        self.k._stack.append(self.body)
        return self

    def _header(self):
        head = "for %s in range(%s)%s" % (self.index.name, ", ".join(_operand_text(v) for v in self.range), self._iter_text())
        return head, [(" {", self.body)]


class _While(_Loop):
    """`cond` is called with the iteration values and returns the BOOL value the loop tests."""

    def __init__(self, kernel, cond, names, types, inits):
        super().__init__(kernel, names, types, inits)
        self.cond = cond
        self.condition = _Region(kernel)

    def __enter__(self) -> "_While":
        self.k._stack.append(self.condition)
        try:
            flag = self.cond(*self.args)
            self.k._line("yield " + _operand_text(flag))
        finally:
            self.k._stack.pop()
        self.k._stack.append(self.body)
        return self

    def _header(self):
        return "while" + self._iter_text(), [(" cond {", self.condition), (" do {", self.body)]


class Builder:
    """A program: kernels and orchestrations in order. `build()` returns the parsed `Program`."""

    def __init__(self):
        self._functions: List[KernelBuilder] = []

    def kernel(self, name: str, kind: str = "aiv") -> KernelBuilder:
        if kind not in ("aiv", "aic", "incore", "orchestration"):
            raise ValueError("kind must be aiv, aic, incore or orchestration, not %r" % kind)
        f = KernelBuilder(self, name.lstrip("@"), kind)
        self._functions.append(f)
        return f

    def orchestration(self, name: str) -> KernelBuilder:
        return self.kernel(name, "orchestration")

    def text(self) -> str:
        return "\n".join(f.text() for f in self._functions)

    def sites(self) -> List[Optional[Site]]:
        """Per line of `text()`, the Python line that wrote it (None between functions)."""
        out: List[Optional[Site]] = []
        for i, f in enumerate(self._functions):
            if i:
                out.append(None)
            out += [site for _text, site in f._sited_lines()]
        return out

    def build(self, filename: str = "<builder>"):
        """The program of `text()`, parsed and verified (ParseError, VerifyError). Its
        diagnostics, and those of the programs lowered from it, are located at the Python lines
        that wrote the ops."""
        from . import _parse_built
        program = _parse_built(self.text(), filename, tuple(self.sites()))
        program.verify()
        return program
