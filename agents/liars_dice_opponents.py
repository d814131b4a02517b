"""Opponents for the single-agent Liar's Dice environment (``dice_envs/LiarsDice-v0``).

:func:`make_opponent` turns an ``opponent=`` argument into a callable over
rules-core states: ``"random"``, ``"equilibrium"`` (the CFR+ policy of
:mod:`dice_envs.agents.liars_dice_solver`, two players), a model saved by
``experiments/train_liars_dice.py`` (``.pt``), or any object answering
``action_probabilities(state)`` (a :class:`~dice_envs.agents.liars_dice_solver.TreePolicy`,
a :class:`~dice_envs.agents.liars_dice_learned.LearnedLiarsDicePolicy`, ...).
"""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from dice_envs.core import sample_action

from .random_opponent import RandomOpponent


class PolicyOpponent:
    """Samples from ``policy.action_probabilities(state)``; seeded through :meth:`reset`."""

    def __init__(self, policy, rng: Optional[np.random.Generator] = None):
        self.policy = policy
        self.rng = rng if rng is not None else np.random.default_rng()

    def reset(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, state) -> int:
        return sample_action(self.policy.action_probabilities(state), self.rng)


def make_opponent(spec, game, exploitability: float = 1e-4):
    """An opponent for :class:`dice_envs.single_agent.SingleAgentEnv` from ``spec``
    (see the module docstring).  ``exploitability``: how closely ``"equilibrium"``
    is solved (the solve is cached on disk, see :func:`dice_envs.agents.liars_dice_solver.default_cache_dir`)."""
    if isinstance(spec, str) and spec == "random":
        return RandomOpponent()
    if hasattr(spec, "action_probabilities"):
        return PolicyOpponent(spec)
    if isinstance(spec, str) and spec == "equilibrium":
        if game.num_players != 2:
            raise ValueError(f"opponent 'equilibrium' needs two players, got {game.num_players}; use 'random'")
        from dice_envs.agents.liars_dice_learned import equilibrium

        return PolicyOpponent(equilibrium(game, exploitability).policy)
    if isinstance(spec, (str, os.PathLike)) and str(spec).endswith(".pt"):
        if not os.path.exists(spec):
            raise ValueError(f"opponent: no such model file {str(spec)!r}")
        from dice_envs.agents.liars_dice_learned import LearnedLiarsDicePolicy

        policy = LearnedLiarsDicePolicy.load(spec)
        if policy.game != game:
            raise ValueError(f"opponent model {str(spec)!r} is for {policy.game.config()}, not {game.config()}")
        return PolicyOpponent(policy)
    if callable(spec):
        return spec
    raise ValueError(
        "opponent must be 'random', 'equilibrium', a model path (.pt), a policy with "
        f"action_probabilities(state) or a callable over states, got {spec!r}"
    )
