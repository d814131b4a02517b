"""Opponents for the single-agent Pig environments (``dice_envs/Pig-v0``), single and batched.

An ``opponent=`` is ``"optimal"`` (Neller and Presser's optimal policy, solved exactly
for the game's goal and die), ``"hold_at_N"`` (hold once the turn total reaches N, e.g.
``"hold_at_20"``), ``"random"``, or a vectorised policy ``policy(i, j, k)`` returning the
probability of rolling (see :mod:`dice_envs.agents.pig_solver`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .jeopardy_agents import BatchedPolicyAgent, PolicyAgent
from .random_opponent import RandomOpponent

NAMES = ("optimal", "hold_at_N", "random")


@lru_cache(maxsize=8)
def solved(goal: int, die):
    """The optimal Pig policy for ``goal`` and ``die`` (cached)."""
    from . import pig_solver

    return pig_solver.solve(goal, die)


def resolve_policy(spec, game):
    """A vectorised policy ``(i, j, k) -> P(roll)`` from a name or a callable (not ``"random"``)."""
    from . import pig_solver

    if callable(spec):
        return spec
    if spec == "optimal":
        return solved(game.goal, game.die).as_policy()
    match = re.fullmatch(r"hold_at_(\d+)", spec) if isinstance(spec, str) else None
    if match:
        return pig_solver.hold_at(int(match.group(1)))
    raise ValueError(f"opponent must be one of {list(NAMES)} or a policy (i, j, k) -> P(roll), got {spec!r}")


def make_opponent(spec, game):
    """An opponent over rules-core states for :class:`dice_envs.single_agent.SingleAgentEnv`."""
    if isinstance(spec, str) and spec == "random":
        return RandomOpponent()
    if hasattr(spec, "act") or hasattr(spec, "reset"):  # an agent over states
        return spec
    return PolicyAgent(resolve_policy(spec, game))


def make_batched_opponent(spec, game):
    """A batched opponent (:mod:`dice_envs.vector`): the optimal one is an array look-up."""
    from dice_envs.vector import random_opponent

    if isinstance(spec, str) and spec == "random":
        return random_opponent
    if getattr(spec, "batched", False):
        return spec
    return BatchedPolicyAgent(resolve_policy(spec, game))
