"""Learned models as All Yellow Zombie Dice policies, and exact scoring of any policy.

A model trained on the compact observation of ``dice_envs/ZombieDice-v0``
(:func:`dice_envs.games.zombie_dice.rules.compact_observation`) sees nothing but the
solver's position ``(p, i, j, b, s)``.  :class:`ModelPolicy` therefore turns it
into a vectorised policy ``policy(p, i, j, b, s)`` exactly as the environment
would query it: it builds the same observation for every requested position and
runs them through the network in a few large batches.  :func:`exact_score` takes
any policy's decision in *every* state of the solver's grid and evaluates it
exactly against the optimal policy from both seats (the paper's Difference).

Loading models needs the ``[train]`` extra (torch, stable-baselines3,
sb3-contrib); everything else here is numpy.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, Dict, Optional

import numpy as np

from dice_envs.agents.learn.jeopardy_learned import greedy_table, load_model, roll_probabilities
from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES, PUBLISHED_DIFFERENCES, random_policy
from dice_envs.games.zombie_dice.rules import COMPACT_SIZE, SHOTGUNS_TO_BUST, compact_observation

__all__ = ["ModelPolicy", "exact_score", "greedy_table", "load_model", "resolve_policy", "table_policy"]

POLICY_NAMES = ("optimal", "random") + tuple(HUMAN_POLICIES)


class ModelPolicy:
    """A trained network (SB3 model or policy) as a vectorised AYZD policy ``(p, i, j, b, s)``.

    Args:
        model: an SB3 model or its ``.policy``, trained on the compact observation.
        goal: the goal the observation is scaled by (13).
        greedy: the network's greedy decision (default) or its roll probability.
    """

    def __init__(self, model, goal: int = 13, greedy: bool = True):
        self.policy_net = getattr(model, "policy", model)
        shape = getattr(self.policy_net.observation_space, "shape", None)
        if shape != (COMPACT_SIZE,):
            raise ValueError(
                f"the model's observation space has shape {shape}; exact evaluation needs a model trained on "
                f"the compact All Yellow observation ({COMPACT_SIZE},) (observation='compact')"
            )
        self.goal, self.greedy = goal, greedy
        self.__name__ = "learned"

    def __call__(self, p, i, j, b, s):
        p, i, j, b, s = np.broadcast_arrays(*(np.asarray(x) for x in (p, i, j, b, s)))
        obs = compact_observation(p, i, j, b, s, self.goal, rolled=1).reshape(-1, COMPACT_SIZE)
        return roll_probabilities(self.policy_net, obs, self.greedy).reshape(p.shape)


def table_policy(table: np.ndarray, name: str = "table"):
    """A ``(2, M, M, T)`` roll-probability table (:func:`dice_envs.agents.zombie_dice.ayzd_solver.policy_table`) as a policy."""
    top = table.shape[1] - 1

    def policy(p, i, j, b, s):
        p, i, j, b, s = np.broadcast_arrays(*(np.asarray(x) for x in (p, i, j, b, s)))
        t = 1 + SHOTGUNS_TO_BUST * np.minimum(b, top) + s
        return table[p - 1, np.minimum(i, top), np.minimum(j, top), t]

    policy.__name__ = name
    return policy


def resolve_policy(spec, goal: int = 13, stop_when_won: bool = True):
    """A policy from a name (``optimal``, ``random``, a human-playable one), a model path, or ``module:attr``."""
    if callable(spec):
        return spec
    spec = os.fspath(spec)
    if spec == "optimal":
        return ayzd.solved(goal, stop_when_won).as_policy()
    if spec == "random":
        return random_policy
    if spec in HUMAN_POLICIES:
        policy = HUMAN_POLICIES[spec]
        return policy if goal == 13 else (lambda p, i, j, b, s: policy(p, i, j, b, s, goal=goal))
    if spec.endswith(".zip") or os.path.exists(spec):
        return ModelPolicy(load_model(spec), goal)
    if ":" in spec:
        module, _, attr = spec.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as err:
            raise ValueError(f"cannot import policy {spec!r}: {err}") from None
    raise ValueError(
        f"policy must be one of {list(POLICY_NAMES)}, a saved model (.zip) or module:attribute, got {spec!r}"
    )


def exact_score(policy, goal: int = 13, stop_when_won: bool = True, score_cap: Optional[int] = None) -> Dict:
    """Exact head-to-head of ``policy`` against the optimal policy, from both seats.

    The policy is queried once, in every state of the grid (one batch), then
    evaluated exactly.  Returns ``win_as_first``, ``win_as_second``, ``difference``
    and, for the paper's goal of 13, ``reached`` (for each published human-playable
    policy, whether ``difference >= `` its published gap) and ``published``.
    """
    solution = ayzd.solved(goal, stop_when_won) if score_cap is None else ayzd.solve(goal, score_cap, stop_when_won)
    M = solution.score_cap
    candidate = table_policy(ayzd.policy_table(policy, M), getattr(policy, "__name__", "policy"))
    result: Dict[str, Any] = ayzd.head_to_head(candidate, solution.as_policy(), goal, M, stop_when_won).as_dict()
    if goal == 13:
        result["reached"] = {name: bool(result["difference"] >= gap) for name, gap in PUBLISHED_DIFFERENCES.items()}
        result["published"] = dict(PUBLISHED_DIFFERENCES)
    return result
