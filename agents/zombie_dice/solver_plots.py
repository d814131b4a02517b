"""Plots of the solved official-dice Zombie Dice game (matplotlib, imported only when a plot is drawn)."""

from __future__ import annotations

import numpy as np

from dice_envs.agents.plotting import pyplot, save_figure


def _reachable(seat: int, goal: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Turn-start positions that occur in play (seat 0 moves first in a round)."""
    if seat == 1:
        return ((i < goal) & (j < goal)) | (j >= i)
    return (np.maximum(i, j) < goal) | (i == j)


def plot_official_solution(solution, path: str, extra: int = 6) -> str:
    """Three panels over the mover's score (x) and the opponent's (y): the optimal mover's win
    probability at the start of a turn as player 1 and as player 2, and player 1's win
    probability minus the All Yellow game's (how much the dice colours change the odds).
    Written to ``path`` (PNG)."""
    from dice_envs.agents.zombie_dice import ayzd_solver as ayzd

    plt = pyplot()
    from matplotlib.ticker import MaxNLocator

    goal = solution.goal
    size = min(goal + extra, solution.score_cap)
    ii, jj = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    yellow = ayzd.solve(goal).start
    panels = []
    for seat in (0, 1):
        table = solution.start[seat, :size, :size].copy()
        table[~_reachable(seat, goal, ii, jj)] = np.nan
        panels.append((f"player {seat + 1} to move: win probability", table, "viridis", 0.0, 1.0))
    change = solution.start[0, :size, :size] - yellow[0, :size, :size]
    change[~_reachable(0, goal, ii, jj)] = np.nan
    bound = float(np.nanmax(np.abs(change))) or 1.0
    panels.append(("player 1: official minus all yellow", change, "coolwarm", -bound, bound))
    fig, axes = plt.subplots(1, 3, figsize=(18, 6), constrained_layout=True)
    for ax, (title, table, cmap, vmin, vmax) in zip(axes, panels):
        image = ax.imshow(table.T, origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="equal")
        ax.axhline(goal - 0.5, color="red", lw=0.8)
        ax.axvline(goal - 0.5, color="red", lw=0.8)
        ax.set_title(title)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("own score i")
        ax.set_ylabel("opponent score j")
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.suptitle(
        f"Optimal play of Zombie Dice with the official dice (goal {goal}): the first player wins "
        f"{solution.first_player_win:.4f} (all yellow: {yellow[0, 0, 0]:.4f})"
    )
    return save_figure(fig, path)
