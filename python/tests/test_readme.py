# SPDX-License-Identifier: Apache-2.0
"""README.md's Python example, run as written from the repository root, prints Buffer IR and PTO-AS."""
import contextlib
import io
import os
import re

ROOT = os.environ["T2B_SOURCE_ROOT"]


def test_readme_python_block_runs(monkeypatch):
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
