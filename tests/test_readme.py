"""The README's Python snippets run as written, each in a fresh interpreter as a user runs it
(about 25 s: the two MaskablePPO snippets train 10,000 and 100,000 steps)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"^```python\n(.*?)^```", README.read_text(), flags=re.S | re.M)


def test_the_readme_has_its_snippets():
    assert len(SNIPPETS) >= 3
    assert all("torch.set_num_threads(1)" in code for code in SNIPPETS if "MaskablePPO" in code)


@pytest.mark.slow
@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet{k + 1}" for k in range(len(SNIPPETS))])
def test_snippet_runs_as_written(code, tmp_path):
    if "sb3_contrib" in code:
        pytest.importorskip("sb3_contrib")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]


def test_the_readme_is_short_and_its_tables_hold_one_figure_per_cell():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    rows = [line for line in text.splitlines() if line.startswith("|") and not re.fullmatch(r"[|\-\s]+", line)]
    assert len(rows) >= 10
    for row in rows:
        for cell in row.strip("|").split("|"):
            assert len(re.findall(r"-?\d+\.\d+(?:e-?\d+)?", cell)) <= 1, cell  # one measured figure
            assert len(cell.split()) <= 40, cell  # a cell, not a paragraph
