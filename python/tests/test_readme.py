# SPDX-License-Identifier: Apache-2.0
"""README.md's Python example and every Python block of docs/python.md, run as written from the
repository root. Each block is compiled at its own lines of its file, so a failure, and a
diagnostic about a kernel a block builds, names the document's line."""
import contextlib
import io
import os
import re

import pytest

ROOT = os.environ["T2B_SOURCE_ROOT"]


def python_blocks(doc):
    """(first line, code) of each ```python block of the file `doc` (relative to ROOT)."""
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        text = f.read()
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def run_blocks(doc, blocks, monkeypatch):
    """Runs `blocks` in order in one namespace, as one script; returns what they print."""
    monkeypatch.chdir(ROOT)
    namespace = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for first, code in blocks:
            exec(compile("\n" * (first - 1) + code, doc, "exec"), namespace)  # noqa: S102 - our own docs
    return out.getvalue()


def test_readme_python_block_runs(monkeypatch):
    pytest.importorskip("numpy")
    blocks = python_blocks("README.md")
    assert blocks, "README.md has no python block"
    printed = run_blocks("README.md", blocks[:1], monkeypatch)
    assert "buffer.add(" in printed
    assert "pto.tadd" in printed


def test_python_md_blocks_run_in_order(monkeypatch):
    pytest.importorskip("numpy")
    # The tutorial builds, lowers and runs a kernel and asserts the result against NumPy itself;
    # the blocks after it use what it built, as a reader's session would.
    blocks = python_blocks(os.path.join("docs", "python.md"))
    with open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8") as f:
        doc = f.read()
    ten = re.findall(r"## Ten lines\n\n```python\n(.*?)```", doc, re.S)
    assert ten and ten[0] == blocks[0][1], "docs/python.md's first python block is the ten-line one"
    assert len([line for line in ten[0].splitlines() if line.strip()]) <= 14
    assert len(blocks) >= 4
    printed = run_blocks(os.path.join("docs", "python.md"), blocks, monkeypatch)
    assert "buffer.add(" in printed
    # The strict-lowering example's error is at the document's line that wrote the reduction.
    at = doc[:doc.index("k.ret(k.store(k.row_max(x)")].count("\n") + 1
    assert "docs/python.md:%d:15: error: select: @peak stays Tile" % at in printed
    assert "\nk.ret(k.store(k.row_max(x), offsets=(0, 0), tensor=Out))\n              ^" in printed
