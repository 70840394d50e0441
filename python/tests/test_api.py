# SPDX-License-Identifier: Apache-2.0
"""The `tile2buffer` package against the command line it wraps: every example kernel lowered under
the three planners prints what `t2b-opt` prints, the input is never modified, and every error class
carries its located diagnostics. Run by `meson test --suite python` (PYTHONPATH=<build>/python,
T2B_OPT, T2B_EXAMPLES_DIR and T2B_GOLDEN_DIR set by python/meson.build)."""
import glob
import os
import subprocess
import threading

import pytest

import tile2buffer as t2b

# What a stays-Tile reason adds where the extended rollout lowers the kernel (passes/pipeline_api.hpp).
HINT = 'the extended rollout lowers it (t2b-opt --rollout=extended; Python: rollout="extended")'

EXAMPLES = os.environ["T2B_EXAMPLES_DIR"]
GOLDEN = os.environ["T2B_GOLDEN_DIR"]
T2B_OPT = os.environ["T2B_OPT"]
KERNELS = sorted(glob.glob(os.path.join(EXAMPLES, "*.t2b")))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def cli(*args):
    r = subprocess.run([T2B_OPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr


def test_examples_exist():
    assert len(KERNELS) >= 9


@pytest.mark.parametrize("path", KERNELS, ids=os.path.basename)
def test_parse_prints_the_canonical_text(path):
    program = t2b.parse(read(path), path)
    rc, out, err = cli(path)
    assert rc == 0, err
    assert str(program) == out
    assert program.file == path
    assert str(t2b.parse(str(program))) == str(program)


@pytest.mark.parametrize("planner", t2b.PLANNERS)
@pytest.mark.parametrize("path", KERNELS, ids=os.path.basename)
def test_lower_equals_t2b_opt_and_leaves_the_input(path, planner):
    program = t2b.parse(read(path), path)
    before = str(program)
    lowered = t2b.lower(program, planner=planner)
    assert str(program) == before
    rc, out, err = cli("--lower", "--planner=" + planner, path)
    assert rc == 0, err
    assert str(lowered) == out


def test_functions_kernels_and_stages():
    program = t2b.parse(read(os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")))
    assert [(f.name, f.kind, f.stage) for f in program.functions] == [
        ("add_mul", "aiv", "tile"), ("row_max", "aiv", "tile"), ("main", "orchestration", "tile")]
    assert [f.name for f in program.kernels] == ["add_mul", "row_max"]
    lowered = t2b.lower(program, planner="ptoas")
    assert lowered.function("add_mul").stage == "buffer"
    assert lowered.function("row_max").stage == "tile"
    with pytest.raises(KeyError):
        lowered.function("nope")


def test_explain_selection_names_the_reason_with_its_location():
    program = t2b.parse(read(os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")))
    assert t2b.explain_selection(program) == {
        "add_mul": "selected",
        "row_max": "15:3: tile.row_max: reductions remain Tile in the normal pipeline; " + HINT,
    }


def test_emit_pto_both_forms_and_a_tile_kernel_named():
    path = os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")
    lowered = t2b.lower(t2b.parse(read(path), path), planner="pypto")
    custom = t2b.emit_pto(lowered)
    assert "func.func @add_mul" in custom and "pto.tadd" in custom
    assert "@row_max: stays Tile, not emitted" in custom
    rc, out, err = cli("--planner=pypto", "--emit=pto", "--quiet", path)
    assert rc == 0, err
    assert custom == out
    generic = t2b.emit_pto(lowered, generic=True)
    assert '"pto.tadd"' in generic
    with pytest.raises(t2b.EmitError) as e:
        t2b.emit_pto(lowered, kernel="row_max")
    assert "is a Tile-stage kernel" in str(e.value)


def test_binary_round_trip_and_corruption():
    program = t2b.parse(read(os.path.join(EXAMPLES, "06_cube.t2b")), "06_cube.t2b")
    data = program.to_binary()
    assert isinstance(data, bytes)
    assert str(t2b.load_binary(data)) == str(program)
    with pytest.raises(t2b.ParseError) as e:
        t2b.load_binary(data[: len(data) // 2], "cut.bin")
    assert e.value.diagnostics and e.value.diagnostics[0].source == "binary"


def test_parse_error_is_located():
    text = "aiv @k(A: Tensor[[16, 32], FP32]) {\n  x = tile.load(A, (0, 0) : Tile[[16, 32], FP32, Vec]\n}\n"
    with pytest.raises(t2b.ParseError) as e:
        t2b.parse(text, "bad.t2b")
    [d] = e.value.diagnostics
    assert (d.file, d.line, d.severity, d.source) == ("bad.t2b", 2, "error", "parse")
    assert d.column > 0
    assert str(e.value).startswith("bad.t2b:2:%d: error: parse: " % d.column)
    assert "^" in str(e.value)  # the excerpt's caret
    assert isinstance(e.value, t2b.Error)


def test_verify_error_from_lower_and_from_verify():
    path = os.path.join(GOLDEN, "verify", "yield-type-invalid.t2b")
    program = t2b.parse(read(path), path)
    with pytest.raises(t2b.VerifyError) as e:
        program.verify()
    assert any("yield operand 0 must have the type of if result 0" in d.message for d in e.value.diagnostics)
    with pytest.raises(t2b.VerifyError) as e:
        t2b.lower(program)
    assert e.value.diagnostics[0].line == 9


def test_lowering_error_names_what_is_live():
    path = os.path.join(GOLDEN, "lower", "planner_overflow_live-invalid.t2b")
    program = t2b.parse(read(path), path)
    with pytest.raises(t2b.LoweringError) as e:
        t2b.lower(program, planner="pypto")
    assert "planner pypto cannot place 131072" in str(e.value) and "mem_a 131072 B" in str(e.value)
    assert not isinstance(e.value, t2b.VerifyError)


@pytest.mark.parametrize("kwargs", [{"planner": "nope"}, {"target": "a9"}, {"rollout": "wide"}, {"workers": -1}])
def test_bad_options_are_value_errors(kwargs):
    program = t2b.parse(read(os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")))
    with pytest.raises(ValueError):
        t2b.lower(program, **kwargs)


def test_parse_takes_text():
    with pytest.raises(TypeError):
        t2b.parse(b"aiv @k() {}")


def test_two_threads_lower_at_once_with_the_same_output():
    programs = [t2b.parse(read(p), p) for p in KERNELS]
    expected = [str(t2b.lower(p, planner="dsa_rp")) for p in programs]
    results = [[], []]

    def work(slot):
        for _ in range(3):
            results[slot].append([str(t2b.lower(p, planner="dsa_rp", workers=2)) for p in programs])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for slot in results:
        assert slot == [expected] * 3


def test_emit_pto_of_a_program_with_no_buffer_kernel_is_an_error():
    program = t2b.parse(read(os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")))
    with pytest.raises(t2b.EmitError) as e:
        t2b.emit_pto(program)
    assert "is a Tile-stage kernel" in str(e.value)


def test_a_lowered_programs_errors_keep_the_source_excerpt():
    path = os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")
    lowered = t2b.lower(t2b.parse(read(path), path))
    with pytest.raises(t2b.EmitError) as e:
        t2b.emit_pto(lowered, kernel="row_max")
    assert "\naiv @row_max(A: Tensor" in str(e.value)  # the excerpt of the function's line


def test_the_rollouts_differ_only_on_the_extended_ops():
    # The extended rollout adds recipes for reductions (and the like) only: kernels without
    # them print the same under both rollouts; the old spelling "spec" is the default rollout.
    assert t2b.ROLLOUTS == ("default", "extended")
    for path in KERNELS:
        program = t2b.parse(read(path), path)
        outs = {r: str(t2b.lower(program, planner="dsa_rp", rollout=r)) for r in ("default", "extended", "spec")}
        assert outs["default"] == outs["spec"], path
        if "tile.row_" not in read(path):
            assert outs["default"] == outs["extended"], path
            assert t2b.explain_selection(program, rollout="extended") == t2b.explain_selection(program)


def test_strict_lower_raises_at_each_kernel_that_stays_tile():
    path = os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")
    program = t2b.parse(read(path), path)
    with pytest.raises(t2b.LoweringError) as e:
        t2b.lower(program, strict=True)
    [d] = e.value.diagnostics  # add_mul lowers; row_max stays Tile
    assert (d.file, d.line, d.column, d.severity) == (path, 15, 3, "error")
    assert d.message == ("@row_max stays Tile (lower(strict=True)): "
                         "tile.row_max: reductions remain Tile in the normal pipeline; " + HINT)
    assert "\n  m = tile.row_max(x)" in str(e.value)  # the excerpt
    lowered = t2b.lower(program, rollout="extended", strict=True)
    assert [(f.name, f.kind, f.stage) for f in lowered.kernels] == [
        ("add_mul", "aiv", "buffer"), ("row_max", "aiv", "buffer")]
    with pytest.raises(ValueError, match="enable_buffer_ir=False"):
        t2b.lower(program, strict=True, enable_buffer_ir=False)


def test_kernels_give_the_stage_view():
    program = t2b.parse(read(os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")))
    lowered = t2b.lower(program)
    assert [(f.name, f.stage) for f in lowered.kernels] == [("add_mul", "buffer"), ("row_max", "tile")]
    assert [f.name for f in lowered.functions if not f.is_kernel] == ["main"]


def test_run_passes_runs_the_named_passes_as_t2b_opt_does():
    assert t2b.PASSES == t2b._core.PASSES and "init_storage" in t2b.PASSES and t2b.PASSES[-1] == "verify_buffer"
    path = os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")
    program = t2b.parse(read(path), path)
    some = ["init_storage", "select", "legalize"]
    rc, out, err = cli("--pass-pipeline=" + ",".join(some), path)
    assert rc == 0, err
    assert str(t2b.run_passes(program, some)) == out
    assert str(t2b.run_passes(program, list(t2b.PASSES))) == str(t2b.lower(program))
    with pytest.raises(ValueError, match=r"unknown pass 'init_storag'; did you mean 'init_storage'\? \(the passes: "):
        t2b.run_passes(program, ["init_storag"])
    with pytest.raises(TypeError, match="a list of pass names"):
        t2b.run_passes(program, "init_storage")


@pytest.mark.parametrize("planner", t2b.PLANNERS)
def test_memory_map_is_the_svg_t2b_opt_draws(planner, tmp_path):
    path = os.path.join(EXAMPLES, "02_unplanned_add_mul.t2b")
    svg = t2b.memory_map(t2b.parse(read(path), path), planner=planner)
    assert svg.startswith("<?xml") and "</svg>" in svg
    rc, out, err = cli("--memory-map=%s" % (tmp_path / "map.svg"), "--planner=" + planner, path)
    assert rc == 0, err
    assert svg == (tmp_path / "map.svg").read_text()


def test_memory_map_of_a_program_no_planner_can_place_is_a_lowering_error():
    path = os.path.join(GOLDEN, "lower", "planner_overflow_live-invalid.t2b")
    with pytest.raises(t2b.LoweringError, match="planner pypto cannot place"):
        t2b.memory_map(t2b.parse(read(path), path), planner="pypto")
