# SPDX-License-Identifier: Apache-2.0
"""README.md's Python example and docs/python.md's tutorial, run as written from the repository root."""
import contextlib
import io
import os
import re

import pytest

ROOT = os.environ["T2B_SOURCE_ROOT"]


def test_readme_python_block_runs(monkeypatch):
    pytest.importorskip("numpy")
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "README.md has no python block"
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), {})  # noqa: S102 - our own README
    printed = out.getvalue()
    assert "buffer.add(" in printed
    assert "pto.tadd" in printed


def test_python_md_ten_lines_run(monkeypatch):
    pytest.importorskip("numpy")
    # The tutorial builds, lowers and runs a kernel and asserts the result against NumPy itself.
    with open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8") as f:
        doc = f.read()
    block = re.findall(r"## Ten lines\n\n```python\n(.*?)```", doc, re.S)
    assert block, "docs/python.md has no ten-line block"
    assert len([line for line in block[0].splitlines() if line.strip()]) <= 14
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block[0], "docs/python.md", "exec"), {})  # noqa: S102 - our own docs
    assert "buffer.add(" in out.getvalue()
