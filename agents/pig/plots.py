"""Plot of Pig's optimal policy (matplotlib, imported only when a plot is drawn)."""

from __future__ import annotations

from dice_envs.agents.plotting import pyplot, save_figure


def plot_pig_policy(solution, path: str) -> str:
    """Neller and Presser's picture of optimal Pig: for each score ``(i, j)``, the turn
    total at which the optimal mover holds (left) and the mover's win probability at
    the start of a turn (right).  Written atomically to ``path`` (PNG); returns it."""
    plt = pyplot()
    goal = solution.goal
    hold = solution.hold_at()[:goal, :goal].astype(float)
    win = solution.start[0, :goal, :goal]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.8), constrained_layout=True)
    image = axes[0].imshow(hold.T, origin="lower", cmap="viridis", aspect="equal")
    fig.colorbar(image, ax=axes[0], shrink=0.85, label="hold at turn total k (roll below it)")
    axes[0].set_title("optimal hold-at turn total (the goal-reaching total where it rolls on)")
    image = axes[1].imshow(win.T, origin="lower", cmap="RdBu", vmin=0, vmax=1, aspect="equal")
    levels = [0.1, 0.25, 0.5, 0.75, 0.9]
    contours = axes[1].contour(win.T, levels=levels, colors="black", linewidths=0.6)
    axes[1].clabel(contours, fmt="%.2f", fontsize=7)
    fig.colorbar(image, ax=axes[1], shrink=0.85, label="mover's win probability at a turn's start")
    axes[1].set_title("win probability under optimal play by both")
    for ax in axes:
        ax.set_xlabel("mover's score i")
        ax.set_ylabel("opponent's score j")
    die = solution.die
    faces = ", ".join(f"{f}: {p}" for f, p in zip(die.faces, die.probabilities))
    fig.suptitle(
        f"Optimal Pig, goal {goal}, {die.name} ({faces}): first player wins {solution.first_player_win:.4f}"
    )
    return save_figure(fig, path)
