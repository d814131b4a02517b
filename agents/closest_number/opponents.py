"""Opponents for the single-agent Closest Number environments (``dice_envs/ClosestNumber-v0``).

An ``opponent=`` is ``"equilibrium"`` (two players: the exact equilibrium of
:mod:`dice_envs.agents.closest_number.solver`, its round games solved on demand and
kept for the process), ``"random"``, or any object answering
``action_probabilities(state)``.  The batched env takes ``"random"`` or a batched
opponent ``(batch, rows, rng) -> actions`` (:mod:`dice_envs.envs.vector`).
"""

from __future__ import annotations

from functools import lru_cache

from dice_envs.agents.evaluate.opponents import PolicyOpponent, RandomOpponent

NAMES = ("equilibrium", "random")


@lru_cache(maxsize=4)
def equilibrium(numbers: int, round3: str):
    """The equilibrium policy of the two-player game on ``numbers`` (cached)."""
    from dice_envs.agents.closest_number.solver import ClosestNumberSolver

    return ClosestNumberSolver(numbers, round3).policy()


def make_opponent(spec, game):
    """An opponent over rules-core states for :class:`dice_envs.envs.single_agent.SingleAgentEnv`."""
    if isinstance(spec, str):
        if spec == "random":
            return RandomOpponent()
        if spec == "equilibrium":
            if game.num_players != 2:
                raise ValueError(f"opponent='equilibrium' is solved for two players, not {game.num_players}; "
                                 f"use opponent='random' or a policy")
            return PolicyOpponent(equilibrium(game.numbers, game.round3))
    if hasattr(spec, "action_probabilities"):
        return PolicyOpponent(spec)
    if callable(spec):
        return spec
    raise ValueError(f"opponent must be one of {list(NAMES)}, a policy with action_probabilities(state) "
                     f"or a callable state -> action, got {spec!r}")


def make_batched_opponent(spec, game):
    """A batched opponent (:mod:`dice_envs.envs.vector`): ``"random"`` or a batched callable."""
    from dice_envs.envs.vector import random_opponent

    if isinstance(spec, str) and spec == "random":
        return random_opponent
    if getattr(spec, "batched", False):
        return spec
    if isinstance(spec, str) and spec == "equilibrium":
        raise ValueError("the batched Closest Number env has no equilibrium opponent yet (the equilibrium is a "
                         "look-up over rules-core states); use gymnasium.make('dice_envs/ClosestNumber-v0', "
                         "opponent='equilibrium') or opponent='random'")
    raise ValueError(f"opponent of the batched env must be 'random' or a batched opponent "
                     f"(batch, rows, rng) -> actions with batched = True, got {spec!r}")
