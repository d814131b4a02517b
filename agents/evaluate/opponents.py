"""Opponents for every game's single-agent environment: uniformly random, or sampled
from any policy that gives ``action_probabilities(state)``."""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.core.game import GameState, sample_action


class RandomOpponent:
    """Uniformly random among the legal actions (any game, any number of players);
    seeded by :class:`SingleAgentEnv` through :meth:`reset`."""

    def __init__(self, rng: Optional[np.random.Generator] = None):
        self.rng = rng if rng is not None else np.random.default_rng()

    def reset(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, state: GameState) -> int:
        legal = state.legal_actions()
        return int(legal[self.rng.integers(len(legal))])


class PolicyOpponent:
    """Samples from ``policy.action_probabilities(state)`` (an equilibrium, a learned
    policy, ...); seeded by :class:`SingleAgentEnv` through :meth:`reset`."""

    def __init__(self, policy, rng: Optional[np.random.Generator] = None):
        self.policy = policy
        self.rng = rng if rng is not None else np.random.default_rng()

    def reset(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, state: GameState) -> int:
        return sample_action(self.policy.action_probabilities(state), self.rng)
