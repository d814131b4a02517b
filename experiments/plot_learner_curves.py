"""Draw each training preset's learning curves for the learner pages of the documentation site.

Every preset of ``dice-envs train`` records its runs' curves as JSON in ``experiments/figures/`` (one file per
seed: the exact measure at each evaluation, against the minutes of training). This script draws one figure per
preset, a curve per seed and their mean, into ``docs/images/learners/GAME-PRESET.png``, and prints each preset's
final figures as the rows of the learner pages' Results tables (``--table``)::

    python experiments/plot_learner_curves.py            # every figure
    python experiments/plot_learner_curves.py --table    # the Results rows, from the same files
    python experiments/plot_learner_curves.py --only liars-dice/escher-1v1

The mean is taken over the seeds' curves interpolated on the minutes where every seed was evaluated; a run scored
only once, at the end, is drawn as a point. A preset budgeted in agent steps (the field's protocol) is drawn against
its steps instead, in millions. The y axis is exact: the exploitability (NashConv / 2) of the saved
policy in Liar's Dice, and the distance to optimal play, minus the All Yellow Zombie Dice paper's Difference, in
Pig and Zombie Dice; both are 0 at optimal play, on a log scale.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np

from dice_envs.agents.plotting import pyplot, save_figure

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "experiments" / "figures"
OUT = ROOT / "docs" / "images" / "learners"


@dataclass(frozen=True)
class Preset:
    """One preset's recorded runs: ``files`` are the JSON reports of seeds 0, 1, ... (without ``.json``)."""

    game: str
    name: str
    title: str
    files: Tuple[str, ...]
    x: str = "minutes"  #: the curves' axis: ``minutes`` of training, or agent ``steps`` (a budget of steps)

    @property
    def key(self) -> str:
        return f"{self.game}/{self.name}"


def _seeds(stem: str, n: int = 2) -> Tuple[str, ...]:
    return tuple(f"{stem}_seed{seed}" for seed in range(n))


_ESCHER = "liars_dice_play_escher_plus_steps16_predictive_ema"

PRESETS: Tuple[Preset, ...] = (
    Preset("pig", "maskable-ppo", "Pig, MaskablePPO self-play", _seeds("pig_batched_selfplay_fourier_lambda09_30min")),
    Preset("ayzd", "maskable-ppo", "All Yellow Zombie Dice, MaskablePPO self-play",
           _seeds("ayzd_batched_selfplay_30min")),
    Preset("zombie-dice", "maskable-ppo", "Zombie Dice (official dice), MaskablePPO self-play",
           _seeds("zombie_dice_official_selfplay_fourier_30min")),
    Preset("liars-dice", "escher-1v1", "ESCHER, one die each, no wild face",
           _seeds("liars_dice_play_escher_1v1_nowild_25718ksteps"), x="steps"),
    Preset("liars-dice", "escher-1v1-highest", "ESCHER, one die each, highest face wild",
           _seeds("liars_dice_play_escher_1v1_highest_48540ksteps"), x="steps"),
    Preset("liars-dice", "escher-1v1-aces", "ESCHER, one die each, aces wild",
           _seeds(f"{_ESCHER}_games8192_6faces_1v1_aces_30min")),
    Preset("liars-dice", "escher-1v2-aces", "ESCHER, one die against two, aces wild",
           _seeds("liars_dice_play_escher_1v2_aces_27660ksteps"), x="steps"),
    Preset("liars-dice", "escher-2v1-aces", "ESCHER, two dice against one, aces wild",
           _seeds("liars_dice_play_escher_2v1_aces_27086ksteps"), x="steps"),
    Preset("liars-dice", "escher-2v2-aces", "ESCHER, two dice each, aces wild (scored at the end)",
           _seeds("liars_dice_play_escher_2v2_aces_7054ksteps"), x="steps"),
    Preset("liars-dice", "mmd-full-width", "Full-width optimistic MMD, one die each, no wild face",
           _seeds("liars_dice_mmd_6faces_30min_256x256")),
    Preset("liars-dice", "mmd-full-width-highest", "Full-width optimistic MMD, one die each, highest face wild",
           ("liars_dice_mmd_6faces_wild_30min_256x256", "liars_dice_mmd_6faces_wild_30min_256x256_seed1")),
    Preset("liars-dice", "mccfr", "Outcome-sampling MCCFR, one die each, no wild face",
           _seeds("liars_dice_play_mccfr_6faces_30min")),
    Preset("liars-dice", "mccfr-highest", "Outcome-sampling MCCFR, one die each, highest face wild",
           _seeds("liars_dice_play_mccfr_6faces_wild_30min")),
    Preset("liars-dice", "mmd", "MMD from sampled returns, one die each, no wild face",
           _seeds("liars_dice_play_mmd_average_6faces_30min")),
    Preset("liars-dice", "mmd-highest", "MMD from sampled returns, one die each, highest face wild",
           _seeds("liars_dice_play_mmd_average_6faces_wild_30min")),
    Preset("liars-dice", "ppo", "Self-play PPO, one die each, no wild face", _seeds("liars_dice_play_ppo_6faces_30min")),
    Preset("liars-dice", "ppo-highest", "Self-play PPO, one die each, highest face wild",
           _seeds("liars_dice_play_ppo_6faces_wild_30min")),
    Preset("liars-dice", "pbs-1v1-highest", "Public-belief-state learner, one die each, highest face wild",
           _seeds("liars_dice_pbs_6faces_wild_30min")),
    Preset("liars-dice", "iig-ppo-ld1d6f", "PPO with IIG-RL-Benchmark's settings, one die each, highest face wild",
           _seeds("liars_dice_play_iig_ppo_ld1d6f_30min")),
    Preset("liars-dice", "iig-ppo-ld1d6f-nowild", "PPO with IIG-RL-Benchmark's settings, one die each, no wild face",
           _seeds("liars_dice_play_iig_ppo_ld1d6f_nowild_2850ksteps"), x="steps"),
    Preset("liars-dice", "iig-ppo-1v2-aces", "PPO with IIG-RL-Benchmark's settings, one die against two, aces wild",
           _seeds("liars_dice_play_iig_ppo_1v2_aces_5700ksteps"), x="steps"),
    Preset("liars-dice", "iig-ppo-2v1-aces", "PPO with IIG-RL-Benchmark's settings, two dice against one, aces wild",
           _seeds("liars_dice_play_iig_ppo_2v1_aces_5700ksteps"), x="steps"),
    Preset("liars-dice", "iig-mmd-ld1d6f", "MMD with IIG-RL-Benchmark's settings, one die each, highest face wild",
           _seeds("liars_dice_play_iig_mmd_ld1d6f_2850ksteps"), x="steps"),
    Preset("liars-dice", "iig-ppo-ld2d5f", "PPO with IIG-RL-Benchmark's settings, LD2D5F",
           _seeds("liars_dice_play_iig_ppo_ld2d5f_10msteps"), x="steps"),
    Preset("liars-dice", "iig-mmd-ld2d5f", "MMD with IIG-RL-Benchmark's settings, LD2D5F",
           _seeds("liars_dice_play_iig_mmd_ld2d5f_10msteps"), x="steps"),
)

#: The comparison with OpenSpiel's learners: game -> (title, [(label, JSON report)]), seed 0 each.
COMPARISONS: Dict[str, Tuple[str, List[Tuple[str, str]]]] = {
    "openspiel-1v1-highest": ("One die each, highest face wild, seed 0", [
        ("ESCHER, dice-envs train", f"{_ESCHER}_games8192_6faces_wild_30min_seed0"),
        ("NFSP, OpenSpiel", "liars_dice_openspiel_nfsp_6faces_wild_30min_seed0"),
        ("ESCHER, OpenSpiel", "liars_dice_openspiel_escher_6faces_wild_30min_seed0"),
        ("Deep CFR, OpenSpiel", "liars_dice_openspiel_deep_cfr_6faces_wild_30min_seed0"),
    ]),
    "openspiel-1v2-aces": ("One die against two, aces wild, seed 0", [
        ("ESCHER, dice-envs train", f"{_ESCHER}_floor001_6faces_1v2_aces_60min_seed0"),
        ("NFSP, OpenSpiel", "liars_dice_openspiel_nfsp_6faces_1v2_aces_30min_seed0"),
        ("ESCHER, OpenSpiel", "liars_dice_openspiel_escher_6faces_1v2_aces_30min_seed0"),
        ("Deep CFR, OpenSpiel", "liars_dice_openspiel_deep_cfr_6faces_1v2_aces_30min_seed0"),
    ]),
}


def read_report(stem: str) -> dict:
    """The JSON report ``experiments/figures/STEM.json``."""
    path = FIGURES / f"{stem}.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: the preset table names a report that is not recorded")
    return json.loads(path.read_text())


def final_figure(report: dict) -> float:
    """The run's final exact figure: exploitability, or the Difference (negative: worse than optimal)."""
    return float(report["exploitability"] if "exploitability" in report else report["difference"])


def curve(report: dict, x: str = "minutes") -> Tuple[np.ndarray, np.ndarray]:
    """``(x, distance)`` of a report's evaluations (``x``: ``minutes`` or ``steps``): the exploitability, or minus
    the Difference."""
    if "history" in report:
        points = [(p[x], -p["difference"]) for p in report["history"]]
    else:
        points = [(p[x], p["exploitability"]) for p in report["curve"] if p.get("exploitability") is not None]
    if not points:
        raise ValueError("the report holds no evaluation")
    minutes, values = np.array(points, dtype=float).T
    return minutes, values


def mean_curve(curves: Sequence[Tuple[np.ndarray, np.ndarray]]) -> Tuple[np.ndarray, np.ndarray]:
    """The seeds' mean on the minutes where every seed was evaluated (interpolated between evaluations)."""
    start = max(m[0] for m, _ in curves)
    stop = min(m[-1] for m, _ in curves)
    grid = np.unique(np.concatenate([m for m, _ in curves]))
    grid = grid[(grid >= start) & (grid <= stop)]
    if grid.size == 0:  # a single evaluation per run, at slightly different minutes
        return np.array([np.mean([m[-1] for m, _ in curves])]), np.array([np.mean([v[-1] for _, v in curves])])
    return grid, np.mean([np.interp(grid, m, v) for m, v in curves], axis=0)


def _axes(title: str, ylabel: str, xlabel: str = "minutes of training"):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def _finish(fig, ax, x_max: float) -> None:
    """The x axis from 0, plain numbers on the log axis (minor ticks labelled within a decade), nothing cut off."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xlim(0, x_max * 1.03)
    low, high = ax.get_ylim()
    plain = FuncFormatter(lambda y, _: f"{y:g}")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain if high / low < 10 else NullFormatter())
    ax.tick_params(axis="y", which="minor", labelsize=7)
    fig.tight_layout()


def _ylabel(game: str) -> str:
    if game == "liars-dice":
        return "exploitability (exact)"
    return "-Difference to optimal (exact)"


def plot_preset(preset: Preset, out: Path = OUT) -> Path:
    """Draw ``preset``'s figure: a thin curve per seed and their mean, thick."""
    scale = 1e6 if preset.x == "steps" else 1.0
    curves = [(x / scale, values) for x, values in (curve(read_report(stem), preset.x) for stem in preset.files)]
    fig, ax = _axes(preset.title, _ylabel(preset.game),
                    "agent steps (millions)" if preset.x == "steps" else "minutes of training")
    for seed, (minutes, values) in enumerate(curves):
        style = "o" if minutes.size == 1 else "-"
        ax.plot(minutes, values, style, lw=1, alpha=0.6, label=f"seed {seed}")
    minutes, values = mean_curve(curves)
    ax.plot(minutes, values, "s" if minutes.size == 1 else "-", color="black", lw=2, label="mean")
    ax.legend(fontsize=8)
    _finish(fig, ax, max(m[-1] for m, _ in curves))
    path = out / f"{preset.game}-{preset.name}.png"
    save_figure(fig, str(path), dpi=90)
    return path


def plot_comparison(name: str, out: Path = OUT) -> Path:
    """Draw one of :data:`COMPARISONS`: a curve per learner, seed 0."""
    title, runs = COMPARISONS[name]
    fig, ax = _axes(title, "exploitability (exact)")
    for label, stem in runs:
        minutes, values = curve(read_report(stem))
        keep = minutes <= 36  # the half hour (Deep CFR checks its budget between iterations: up to 35 minutes)
        ax.plot(minutes[keep], values[keep], "-o", ms=3, lw=1.2, label=label)
    ax.legend(fontsize=8)
    _finish(fig, ax, 36)
    path = out / f"liars-dice-{name}.png"
    save_figure(fig, str(path), dpi=90)
    return path


def table_row(preset: Preset) -> str:
    """The Results row of ``preset``: its final figure per seed and their mean."""
    finals = [final_figure(read_report(stem)) for stem in preset.files]
    cells = " | ".join(f"{value:.3g}" for value in finals)
    return f"| `{preset.name}` | {preset.title} | {cells} | {np.mean(finals):.3g} |"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="GAME/PRESET", help="draw only this preset (repeatable)")
    parser.add_argument("--table", action="store_true", help="print the Results rows instead of drawing")
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder of the figures (default: {OUT})")
    args = parser.parse_args(argv)
    known = {preset.key: preset for preset in PRESETS}
    unknown = set(args.only or ()) - known.keys()
    if unknown:
        parser.error(f"unknown preset(s) {sorted(unknown)}; known: {sorted(known)}")
    chosen = [known[key] for key in args.only] if args.only else list(PRESETS)
    for preset in chosen:
        print(table_row(preset) if args.table else plot_preset(preset, args.out))
    if not args.table and not args.only:
        for name in COMPARISONS:
            print(plot_comparison(name, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
