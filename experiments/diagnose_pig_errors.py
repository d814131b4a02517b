"""Where a learned Pig policy loses to the optimum: its wrong decisions, grouped, each group repaired.

Takes a policy (a saved model, read as ``dice-envs evaluate pig`` reads it, its greedy
decisions) and compares it with the solved optimal policy in every decision of the grid
(``i, j < goal``, ``0 < k < goal - i``).  A decision's *margin* is how much the optimal mover's
win probability differs between rolling and holding there (both followed by optimal play).
For groups of wrong decisions (by margin, by turn total, by score), the groups' decisions are
set to the optimum's and the policy is scored again, exactly, against the optimum: what the
Difference becomes says how much of the gap that group holds, with how often the policy
reaches those positions already taken into account by the exact score.

``against_itself`` asks whether the wrong decisions are right against the policy's own play (the
self-play opponent): from the exact win probabilities of the policy against itself, the better
of rolling and holding in each decision with turn total 10 < k <= 30 (where the gap is), how often
it agrees with the optimum, and how many of the policy's wrong decisions there it would make too.

Run: ``.venv/bin/python experiments/diagnose_pig_errors.py experiments/models/pig_batched_selfplay_fourier_seed0.zip``
(needs the ``[train]`` extra for a saved model; about 10 s).  Prints one JSON line: the
Difference, the number of decisions and wrong ones (rolls where the optimum holds, holds where
it rolls), and per group its wrong decisions and the Difference with them repaired.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np


MARGINS = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4)


def margins(solution, goal: int):
    """``(roll, margin)`` on the ``(M, M, M)`` grid ``(i, j, k)`` for the mover of seat 0 of
    ``solution`` (a :class:`dice_envs.agents.pig.solver.Solution`): whether rolling is worth more
    than holding, and by how much, in win probability, each followed by the solution's play."""
    from dice_envs.games.pig.rules import BUST_FACE

    values, top = solution.values[0], goal
    later = solution.start[-1]  # the opponent's turn starts (its own seat)
    i, j, k = grid(goal)
    hold = np.where(i + k >= goal, 1.0, 1.0 - later[j, np.minimum(i + k, top)])
    roll_value = np.zeros(i.shape)
    for face, p in solution.die.distribution():
        face, p = int(face), float(p)
        if face == BUST_FACE:  # the opponent starts a turn at (j, i)
            roll_value += p * (1.0 - later[j, i])
        else:
            after = k + face
            roll_value += p * np.where(i + after >= goal, 1.0, values[i, j, np.minimum(after, top)])
    return roll_value > hold, np.abs(roll_value - hold)


def grid(goal: int):
    """The coordinates ``(i, j, k)`` of the ``(M, M, M)`` grid, ``M = goal + 1``."""
    M = goal + 1
    return np.meshgrid(np.arange(M), np.arange(M), np.arange(M), indexing="ij")


def table_score(table: np.ndarray, goal: int) -> float:
    """The exact Difference of the decisions ``table`` (``(M, M, M)`` bools, True: roll) against the optimum."""
    from dice_envs.agents.pig.learned import exact_score
    from dice_envs.agents.pig.solver import table_policy

    return float(exact_score(table_policy(table.astype(float)), goal)["difference"])


def diagnose(policy, goal: int) -> dict:
    """The report of the module docstring for ``policy(i, j, k) -> roll probability``."""
    from dice_envs.agents.pig import solver as pig_solver

    learned = pig_solver.policy_table(policy, goal) > 0.5
    optimal = pig_solver.solved(goal).roll[0] > 0.5
    _, margin = margins(pig_solver.solved(goal), goal)
    i, j, k = grid(goal)
    decision = (i < goal) & (j < goal) & (k >= 1) & (i + k < goal)
    wrong = decision & (learned != optimal)
    # The decisions best against the policy itself, one at a time (from its exact self-play values).
    itself = pig_solver.table_policy(learned.astype(float))
    against_itself, _ = margins(pig_solver.policy_values(itself, itself, goal), goal)
    played = decision & (k > 10) & (k <= 30)
    groups = {"all": decision}
    groups.update({f"margin > {t:g}": margin > t for t in MARGINS})
    groups.update({
        "k <= 10": k <= 10, "10 < k <= 20": (k > 10) & (k <= 20), "20 < k <= 30": (k > 20) & (k <= 30),
        "k > 30": k > 30, "either score >= 80": (i >= 80) | (j >= 80), "both scores < 80": (i < 80) & (j < 80),
    })
    repaired = {}
    for name, cells in groups.items():
        fix = wrong & cells
        repaired[name] = {"wrong": int(fix.sum()),
                          "difference": table_score(np.where(fix, optimal, learned), goal)}
    return {"goal": goal, "difference": table_score(learned, goal), "decisions": int(decision.sum()),
            "wrong": int(wrong.sum()), "rolls_where_optimum_holds": int((wrong & learned).sum()),
            "holds_where_optimum_rolls": int((wrong & ~learned).sum()), "repaired": repaired,
            "against_itself": {
                "decisions_10_k_30": int(played.sum()),
                "agrees_with_optimum": float((against_itself == optimal)[played].mean()),
                "wrong_10_k_30": int((wrong & played).sum()),
                "wrong_it_explains": int((wrong & played & (against_itself == learned)).sum())}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a saved Pig model (.zip), or a policy name dice-envs evaluate pig takes")
    parser.add_argument("--goal", type=int, default=100, help="winning score (100)")
    args = parser.parse_args(argv)
    if args.goal < 2:
        parser.error("--goal must be at least 2")
    from dice_envs.agents.pig.opponents import resolve_policy
    from dice_envs.games.pig.rules import PigGame

    try:
        policy = resolve_policy(args.model, PigGame(args.goal))
    except (OSError, ValueError) as err:
        print(f"diagnose_pig_errors: {err}", file=sys.stderr)
        return 2
    print(json.dumps(diagnose(policy, args.goal)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
