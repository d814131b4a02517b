"""experiments/plot_learner_curves.py: each preset's recorded runs, the seeds' mean, and the figures the README
and the learner pages give for them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from experiments import plot_learner_curves as plc

ROOT = Path(__file__).resolve().parents[1]


def test_the_mean_is_taken_where_every_seed_was_evaluated():
    a = (np.array([0.0, 10.0, 20.0, 30.0]), np.array([1.0, 0.5, 0.25, 0.125]))
    b = (np.array([0.0, 15.0, 29.0]), np.array([1.0, 0.4, 0.2]))
    minutes, mean = plc.mean_curve([a, b])
    assert minutes.tolist() == [0.0, 10.0, 15.0, 20.0, 29.0]
    assert mean[0] == 1.0 and mean[2] == pytest.approx((0.375 + 0.4) / 2)
    # runs scored once, at the end: one point, their mean
    minutes, mean = plc.mean_curve([(np.array([30.0]), np.array([0.004])), (np.array([30.01]), np.array([0.006]))])
    assert minutes.tolist() == [pytest.approx(30.005)] and mean.tolist() == [pytest.approx(0.005)]


def test_every_preset_names_its_recorded_runs():
    from dice_envs.agents.cli import build_parser

    for preset in plc.PRESETS:
        listed = build_parser().parse_args(["train", preset.game]).presets[preset.name]["seeds"]
        assert len(preset.files) == len(listed), preset.key  # (a run per seed the preset lists)
        for stem in preset.files:
            minutes, values = plc.curve(plc.read_report(stem))
            assert minutes.size >= 1 and np.all(values > 0), stem
    with pytest.raises(FileNotFoundError, match="not recorded"):
        plc.read_report("no_such_run")


def _agrees(written: str, computed: float) -> bool:
    """``written`` is ``computed`` rounded to the digits it shows (``1.9e-6``: two significant digits)."""
    mantissa, _, _ = written.partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    shown = f"{computed:.{decimals}e}" if "e" in written else f"{computed:.{decimals}f}"
    return float(shown) == float(written)


@pytest.mark.parametrize("source", ["README.md", "docs/learners"])
def test_the_written_figures_are_the_runs_figures(source):
    texts = [(ROOT / source).read_text()] if source.endswith(".md") else [
        p.read_text() for p in sorted((ROOT / source).glob("*.md"))]
    known = {preset.key: preset for preset in plc.PRESETS}
    checked = 0
    for text in texts:
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            names = re.findall(r"`([a-z0-9-]+)`", cells[0] + " " + (cells[1] if len(cells) > 1 else ""))
            figures = [c for c in cells if re.fullmatch(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", c)]
            key = next((f"{g}/{p}" for g in names for p in names if f"{g}/{p}" in known), None)
            if key is None:
                key = next((k for k in known if k.endswith("/" + names[0]) and k.startswith("liars-dice/")), None) \
                    if names else None
            if key is None or len(figures) < 2:
                continue
            runs = [plc.final_figure(plc.read_report(stem)) for stem in known[key].files]
            for written, computed in zip(figures[:2], runs):
                assert _agrees(written, computed), (key, written, computed)
            checked += 1
    assert checked >= (8 if source == "README.md" else 16)
