"""Agents that play the jeopardy-game environments (Zombie Dice, Pig) from a policy.

The exact solvers speak in positions ``(p, i, j, b, s)`` (seat, own score, opponent's
score, turn total, shotguns; see :mod:`dice_envs.agents.zombie_dice_ayzd_solver` and :mod:`dice_envs.agents.pig_solver`);
:class:`PolicyAgent` turns such a policy into actions for a rules-core state that
offers ``rolled`` and ``two_player_view()``, so exactly the same decisions are used
by the exact evaluator and in simulated play.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.zombie_dice import HOLD, ROLL


class PolicyAgent:
    """Plays ``policy(p, i, j, b, s) -> probability of rolling``.

    A fresh turn always rolls (holding is illegal); a fractional probability is
    sampled with ``rng``.
    """

    def __init__(self, policy, rng: Optional[np.random.Generator] = None):
        self.policy = policy
        self.rng = rng if rng is not None else np.random.default_rng()

    def roll_probability(self, state) -> float:
        if not state.rolled:
            return 1.0
        return float(np.asarray(self.policy(*state.two_player_view())))

    def act(self, state) -> int:
        q = self.roll_probability(state)
        if q >= 1.0:
            return ROLL
        if q <= 0.0:
            return HOLD
        return ROLL if self.rng.random() < q else HOLD

    def __call__(self, state) -> int:
        return self.act(state)

    def reset(self, rng: np.random.Generator) -> None:
        """Use ``rng`` from now on (the single-agent env passes its ``np_random``)."""
        self.rng = rng


class BatchedPolicyAgent:
    """:class:`PolicyAgent` for the batched environments: a batched opponent
    (:mod:`dice_envs.vector`) that asks ``policy`` once for all the games it moves in.

    The positions come from the batch's ``two_player_view(rows)`` (``(p, i, j, b, s)``
    for Zombie Dice, ``(i, j, k)`` for Pig), so a table policy such as the solvers'
    optimal one is one array look-up per step.
    """

    def __init__(self, policy):
        self.policy = policy

    def __call__(self, batch, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        q = np.asarray(self.policy(*batch.two_player_view(rows)), dtype=np.float64)
        q = np.where(batch.rolled(rows), np.broadcast_to(q, rows.shape), 1.0)
        return np.where(rng.random(len(rows)) < q, ROLL, HOLD)
