"""Plots of the solved All Yellow Zombie Dice policy (matplotlib, imported only when a plot is drawn)."""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.agents.plotting import pyplot, save_figure


def hold_at_table(solution, seat: int, shotguns: int, max_score: int, max_turn: Optional[int] = None) -> np.ndarray:
    """For each (own score i, opponent score j): the smallest turn total at which the
    optimal player ``seat`` (1 or 2) holds with ``shotguns`` set aside, or NaN if it
    rolls at every turn total up to ``max_turn``."""
    from dice_envs.agents.zombie_dice.ayzd_solver import state_index

    max_turn = max_turn or solution.score_cap - 1
    states = [state_index(b, shotguns) for b in range(max_turn + 1)]
    holds = solution.roll[seat - 1, :max_score, :max_score][..., states] < 0.5  # (i, j, b)
    first = np.argmax(holds, axis=-1).astype(float)
    first[~holds.any(axis=-1)] = np.nan
    return first


def _reachable(seat: int, goal: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Turn-start positions that occur in play (ties at or above the goal are tiebreaks)."""
    if seat == 1:
        return ((i < goal) & (j < goal)) | (i == j)
    return (i < goal) | (i == j)


def plot_ayzd_policy(solution, path: str, extra: int = 6) -> str:
    """The optimal AYZD policy as the paper draws it: for each seat (rows) and each
    number of shotguns set aside (columns), the turn total at which to hold, over the
    mover's score (x) and the opponent's score (y).  Written to ``path`` (PNG)."""
    plt = pyplot()
    goal = solution.goal
    size = goal + extra
    fig, axes = plt.subplots(2, 3, figsize=(16, 10), constrained_layout=True)
    ii, jj = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    image = None
    for row, seat in enumerate((1, 2)):
        for s in range(3):
            ax = axes[row, s]
            table = hold_at_table(solution, seat, s, size)
            table[~_reachable(seat, goal, ii, jj)] = np.nan
            image = ax.imshow(table.T, origin="lower", cmap="viridis", vmin=0, vmax=goal + 8, aspect="equal")
            for i in range(size):
                for j in range(size):
                    if not np.isnan(table[i, j]):
                        ax.text(i, j, int(table[i, j]), ha="center", va="center", fontsize=5.5, color="white")
            ax.axhline(goal - 0.5, color="red", lw=0.8)
            ax.axvline(goal - 0.5, color="red", lw=0.8)
            ax.set_title(f"player {seat}, {s} shotgun{'s' if s != 1 else ''} set aside")
            ax.set_xlabel("own score i")
            ax.set_ylabel("opponent score j")
    fig.colorbar(image, ax=axes, shrink=0.6, label="hold at turn total b (roll below it)")
    fig.suptitle(
        f"Optimal play of All Yellow Zombie Dice (goal {goal}): first player wins {solution.first_player_win:.4f}"
    )
    return save_figure(fig, path)
