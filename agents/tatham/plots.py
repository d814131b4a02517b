"""Plot of the fault sensitivity of Tatham's dice and the alternatives (matplotlib,
imported only when a plot is drawn)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dice_envs.agents.plotting import pyplot, save_figure
from dice_envs.games.tatham import dice as tatham


def plot_fault_sensitivity(path: str, load=Fraction(1, 4), max_load=Fraction(1, 2), steps: int = 10) -> str:
    """Two panels: the worst relative error of each total when one face of one die is
    ``load`` heavier (left), and the worst total variation as the load grows from 0 to
    ``max_load`` (right), one line per mechanism.  Written atomically to ``path``."""
    plt = pyplot()
    load = Fraction(load)
    fig, axes = plt.subplots(1, 2, figsize=(14, 5.5), constrained_layout=True)
    loads = [Fraction(max_load) * k / steps for k in range(steps + 1)]
    styles = ["-", "--", "-", "--", ":", "-.", "-"]
    for (key, mech), style in zip(tatham.MECHANISMS.items(), styles):
        sens = tatham.fault_sensitivity(mech, 1 + load)
        totals = sorted(sens.relative_error_by_total)
        axes[0].plot(totals, [100 * float(sens.relative_error_by_total[t]) for t in totals], style, marker="o",
                     label=mech.name)
        tv = [float(tatham.fault_sensitivity(mech, 1 + x).total_variation) for x in loads]
        axes[1].plot([100 * float(x) for x in loads], tv, style, marker=".", label=mech.name)
    axes[0].set_xticks(np.arange(2, 13))
    axes[0].set_xlabel("total")
    axes[0].set_ylabel("worst relative error of P(total), %")
    axes[0].set_title(f"one face of one die {float(load):.0%} heavier: worst case over the face")
    axes[1].set_xlabel("extra weight on the loaded face, %")
    axes[1].set_ylabel("worst total variation distance of the totals")
    axes[1].set_title("how far the distribution of totals moves (Tatham's three pairs coincide)")
    axes[1].legend(fontsize=8, loc="upper left")
    fig.suptitle("Fault sensitivity of the ways to roll a Settlers total (exact)")
    return save_figure(fig, path)
