"""The README's Python snippets run as written, one after another in one fresh interpreter as a user
runs them, each in its own namespace; the training snippets at their smallest budget (``learn(1)``:
Stable-Baselines3 still collects one whole rollout and trains on it)."""

from __future__ import annotations

import json
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


def at_the_smallest_budget(code: str) -> str:
    """``code`` with every ``.learn(N)`` asked for one step."""
    return re.sub(r"\.learn\([\d_]+\)", ".learn(1)", code)


#: Runs the snippets given on stdin (a JSON list), each in a fresh namespace, naming each as it starts.
RUNNER = """
import json, sys
for k, code in enumerate(json.load(sys.stdin)):
    print(f"--- snippet{k + 1}", flush=True)
    exec(compile(code, f"<README snippet{k + 1}>", "exec"), {"__name__": "__main__"})
"""


def test_the_smallest_budget_changes_only_the_training_steps():
    code = "model = MaskablePPO('MlpPolicy', env, n_steps=32)\nmodel.learn(100_000)  # seconds\nx.learn(7)"
    assert at_the_smallest_budget(code) == code.replace("100_000", "1").replace("7", "1")
    training = [code for code in SNIPPETS if "MaskablePPO" in code]
    assert training and all(at_the_smallest_budget(code) != code for code in training)


@pytest.mark.slow
def test_the_snippets_run_as_written(tmp_path):
    pytest.importorskip("sb3_contrib")
    snippets = [at_the_smallest_budget(code) for code in SNIPPETS]
    result = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(snippets), cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    started = [line[4:] for line in result.stdout.splitlines() if line.startswith("--- snippet")]
    assert result.returncode == 0, (started[-1:], result.stderr[-3000:])
    assert started == [f"snippet{k + 1}" for k in range(len(SNIPPETS))]


def test_the_readme_is_short_and_its_tables_hold_one_figure_per_cell():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    rows = [line for line in text.splitlines() if line.startswith("|") and not re.fullmatch(r"[|\-\s]+", line)]
    assert len(rows) >= 10
    for row in rows:
        for cell in row.strip("|").split("|"):
            assert len(re.findall(r"-?\d+\.\d+(?:e-?\d+)?", cell)) <= 1, cell  # one measured figure
            assert len(cell.split()) <= 40, cell  # a cell, not a paragraph
