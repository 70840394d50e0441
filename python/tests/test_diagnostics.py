# SPDX-License-Identifier: Apache-2.0
"""The library's warnings and remarks reach Python (issue 56, item 1): `lower()` of a kernel that
stays Tile warns with `tile2buffer.Warning`, whose `.diagnostic` names the kernel and, where the
extended rollout lowers it, says so; `collect_diagnostics()` collects them instead; errors name
their kernel too. Run by `meson test --suite python`."""
import warnings

import pytest

import tile2buffer as t2b

SOURCE = """aiv @add_one(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {
  x = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  y = tile.add(x, x) : Tile[[16, 32], FP32, Vec]
  result = tile.store(y, (0, 0), Out) : Tensor[[16, 32], FP32]
  return result
}

aiv @row_max(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 1], FP32]) -> Tensor[[16, 1], FP32] {
  x = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec]
  m = tile.row_max(x) : Tile[[16, 1], FP32, Vec]
  result = tile.store(m, (0, 0), Out) : Tensor[[16, 1], FP32]
  return result
}
"""

TOO_BIG = """aiv @too_big(A: Tensor[[64, 512], FP32], B: Tensor[[64, 512], FP32], Out: out Tensor[[64, 512], FP32]) -> Tensor[[64, 512], FP32] {
  a = tile.load(A, (0, 0), (64, 512)) : Tile[[64, 512], FP32, Vec]
  b = tile.load(B, (0, 0), (64, 512)) : Tile[[64, 512], FP32, Vec]
  c = tile.add(a, b) : Tile[[64, 512], FP32, Vec]
  result = tile.store(c, (0, 0), Out) : Tensor[[64, 512], FP32]
  return result
}
"""


def test_a_kernel_left_tile_warns_naming_it_and_the_extended_rollout():
    program = t2b.parse(SOURCE, "two.t2b")
    with pytest.warns(t2b.Warning) as seen:
        lowered = t2b.lower(program)
    assert [f.stage for f in lowered.functions] == ["buffer", "tile"]
    [w] = [w for w in seen if issubclass(w.category, t2b.Warning)]
    assert w.filename == __file__  # stacklevel: the caller's line, not the package's
    d = w.message.diagnostic
    assert isinstance(d, t2b.Diagnostic)
    assert (d.severity, d.source, d.function, d.line, d.column) == ("remark", "lower", "row_max", 10, 3)
    assert d.message.startswith("@row_max stays Tile: tile.row_max: reductions remain Tile")
    assert 'Python: rollout="extended"' in d.message
    assert "two.t2b:10:3: note: in kernel @row_max" in str(w.message)
    # The extended rollout lowers it: nothing to say.
    with warnings.catch_warnings():
        warnings.simplefilter("error", t2b.Warning)
        wide = t2b.lower(program, rollout="extended")
    assert [f.stage for f in wide.functions] == ["buffer", "buffer"]


def test_collect_diagnostics_collects_instead_of_warning():
    program = t2b.parse(SOURCE, "two.t2b")
    with warnings.catch_warnings():
        warnings.simplefilter("error", t2b.Warning)  # a warning raised here would fail the test
        with t2b.collect_diagnostics() as notices:
            t2b.lower(program)
            t2b.lower(program, enable_buffer_ir=False)
    assert [(d.function, d.severity) for d in notices] == [("row_max", "remark"), ("add_one", "remark"), ("row_max", "remark")]
    assert notices[1].message == "@add_one stays Tile: enable_buffer_ir is false"
    with pytest.warns(t2b.Warning):  # the block is closed: warnings again
        t2b.lower(program)


def test_ptoas_over_capacity_is_a_warning_and_planner_errors_name_the_kernel():
    program = t2b.parse(TOO_BIG, "big.t2b")
    with t2b.collect_diagnostics() as notices:
        t2b.lower(program, planner="ptoas")
    [d] = notices
    assert (d.severity, d.source, d.function, d.line) == ("warning", "plan", "too_big", 4)
    assert "393216 bytes are live in Vec at once here" in d.message
    with pytest.raises(t2b.LoweringError) as e:
        t2b.lower(program, planner="pypto")
    assert e.value.diagnostics and all(d.function == "too_big" for d in e.value.diagnostics)


def test_simulation_warning_is_a_tile2buffer_warning():
    assert issubclass(t2b.SimulationWarning, t2b.Warning)
    assert issubclass(t2b.SimulationWarning, RuntimeWarning)  # as before
    assert issubclass(t2b.Warning, UserWarning)


def test_explain_selection_and_strict_name_the_extended_rollout():
    program = t2b.parse(SOURCE, "two.t2b")
    reasons = t2b.explain_selection(program)
    assert reasons["add_one"] == "selected"
    assert reasons["row_max"].startswith("10:3: tile.row_max: reductions remain Tile")
    assert reasons["row_max"].endswith('the extended rollout lowers it (t2b-opt --rollout=extended; Python: rollout="extended")')
    assert "extended rollout" not in t2b.explain_selection(program, rollout="extended")["row_max"]
    with pytest.raises(t2b.LoweringError) as e:
        t2b.lower(program, strict=True)
    assert 'Python: rollout="extended"' in e.value.diagnostics[0].message
