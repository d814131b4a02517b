"""Agents that play the Zombie Dice environments from a policy over ``(p, i, j, b, s)``.

The policies of :mod:`agents.zombie_policies` and a solved :class:`agents.ayzd.Solution`
speak the paper's language; :class:`PolicyAgent` turns one into actions for a
:class:`dice_envs.zombie_dice.ZombieDiceState` (two players), so exactly the
same decisions are used by the exact evaluator and in simulated play.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.zombie_dice import HOLD, ROLL, ZombieDiceState


class PolicyAgent:
    """Plays ``policy(p, i, j, b, s) -> probability of rolling``.

    A fresh turn always rolls (holding is illegal); a fractional probability is
    sampled with ``rng``.
    """

    def __init__(self, policy, rng: Optional[np.random.Generator] = None):
        self.policy = policy
        self.rng = rng if rng is not None else np.random.default_rng()

    def roll_probability(self, state: ZombieDiceState) -> float:
        if not state.rolled:
            return 1.0
        return float(np.asarray(self.policy(*state.two_player_view())))

    def act(self, state: ZombieDiceState) -> int:
        q = self.roll_probability(state)
        if q >= 1.0:
            return ROLL
        if q <= 0.0:
            return HOLD
        return ROLL if self.rng.random() < q else HOLD

    def __call__(self, state: ZombieDiceState) -> int:
        return self.act(state)
