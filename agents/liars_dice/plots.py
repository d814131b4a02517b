"""Plots for Liar's Dice (matplotlib, imported only when a plot is drawn)."""

from __future__ import annotations

import os
from typing import Dict, List


def plot_convergence(curves: Dict[str, List[tuple]], path: str, title: str) -> str:
    """Exploitability (log) against iterations (log), one line per algorithm.

    ``curves`` maps a label to ``[(iteration, exploitability, seconds), ...]``
    (as :func:`dice_envs.agents.liars_dice.solver.convergence_curve` returns).
    """
    from dice_envs.agents.plotting import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    for label, curve in curves.items():
        its = [c[0] for c in curve]
        expl = [max(c[1], 1e-12) for c in curve]
        ax.loglog(its, expl, marker="o", markersize=3, label=label)
    for level in (1e-3, 1e-4):
        ax.axhline(level, color="grey", lw=0.6, ls="--")
    ax.set_xlabel("iterations")
    ax.set_ylabel("exploitability of the average policy (NashConv / 2)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path
