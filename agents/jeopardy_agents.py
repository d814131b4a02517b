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
