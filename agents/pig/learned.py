"""Learned models as Pig policies, and exact scoring of any Pig policy.

A model trained on ``dice_envs/Pig-v0`` sees the position ``(i, j, k)`` (own score,
opponent's score, turn total) and whose turn it is, with ``observation="scaled"``
divided by the goal.  :class:`ModelPolicy` turns it into a vectorised policy
``policy(i, j, k)`` by building that observation for every requested position and
running them through the network in a few large batches; :func:`exact_score`
queries any policy in *every* position of the solver's grid and evaluates it exactly
against the optimal policy from both seats (the Difference of the Zombie Dice paper;
the hold-at-20 rule scores -0.0798 at the goal of 100).

Loading models needs the ``[train]`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Dict, Optional

import numpy as np

from dice_envs.agents.learn.jeopardy_learned import roll_probabilities
from dice_envs.agents.pig import solver as pig_solver
from dice_envs.agents.pig.solver import solved
from dice_envs.core.dice import Die
from dice_envs.games.pig.rules import DEFAULT_GOAL, OBSERVATIONS, PigGame

__all__ = ["ModelPolicy", "exact_score", "observation_kind", "reference_differences"]

#: The fixed rules every learned Pig agent is compared with (exact Differences at the game's goal).
REFERENCE_HOLD_AT = (20, 25)


class ModelPolicy:
    """A trained network (SB3 model or policy) as a vectorised Pig policy ``(i, j, k)``.

    The observation (``"full"``, ``"scaled"`` or ``"fourier"``) is read off the model's
    observation space, which must be one of the spaces of ``dice_envs/Pig-v0`` for ``game``.

    Args:
        model: an SB3 model or its ``.policy``.
        game: the :class:`~dice_envs.games.pig.rules.PigGame` it was trained on (default goal 100, fair d6).
        greedy: the network's greedy decision (default) or its roll probability.
    """

    def __init__(self, model, game: Optional[PigGame] = None, greedy: bool = True):
        self.policy_net = getattr(model, "policy", model)
        self.game = game if game is not None else PigGame()
        space = self.policy_net.observation_space
        high = np.asarray(getattr(space, "high", None), np.float32)
        kind = observation_kind(high, self.game)
        if kind is None:
            raise ValueError(
                f"the model's observation space {space} is not one of dice_envs/Pig-v0's for {self.game!r} "
                f"(observation='full', 'scaled' or 'fourier'); was it trained on another goal or die?"
            )
        self.observation_kind = kind
        self.greedy = greedy
        self.__name__ = "learned"

    def __call__(self, i, j, k):
        shape = np.broadcast_shapes(np.shape(i), np.shape(j), np.shape(k))
        obs = self.game.position_observation(i, j, k, self.observation_kind)
        return roll_probabilities(self.policy_net, obs, self.greedy).reshape(shape)


def observation_kind(high, game: PigGame) -> Optional[str]:
    """Which observation of ``dice_envs/Pig-v0`` for ``game`` (:data:`dice_envs.games.pig.rules.OBSERVATIONS`)
    has the upper bounds ``high`` (a network's recorded observation space), or None."""
    high = np.asarray(high, np.float32)
    for kind in OBSERVATIONS:
        bound = game.encoded_bounds(kind)[1]
        if high.shape == bound.shape and np.allclose(high, bound):
            return kind
    return None


def reference_differences(goal: int = DEFAULT_GOAL, die: Optional[Die] = None) -> Dict[str, float]:
    """Exact Differences of the hold-at rules of :data:`REFERENCE_HOLD_AT` against optimal play."""
    game = PigGame(goal, die)
    return _reference_differences(game.goal, game.die)


@lru_cache(maxsize=8)
def _reference_differences(goal: int, die: Die) -> Dict[str, float]:
    """:func:`reference_differences`, cached by the goal and the die itself (the default die and
    ``None`` share one)."""
    optimal = solved(goal, die).as_policy()
    return {f"hold_at_{n}": pig_solver.head_to_head(pig_solver.hold_at(n), optimal, goal, die).difference
            for n in REFERENCE_HOLD_AT}


def exact_score(policy, goal: int = DEFAULT_GOAL, die: Optional[Die] = None) -> Dict:
    """Exact head-to-head of ``policy`` against the optimal policy, from both seats.

    The policy is queried once, in every position of the grid, then evaluated
    exactly.  Returns ``win_as_first``, ``win_as_second``, ``difference``, and under
    ``reached`` whether the Difference is at least each reference rule's
    (:func:`reference_differences`, also returned as ``references``).
    """
    optimal = solved(goal, die).as_policy()
    candidate = pig_solver.table_policy(pig_solver.policy_table(policy, goal), getattr(policy, "__name__", "policy"))
    result: Dict[str, Any] = pig_solver.head_to_head(candidate, optimal, goal, die).as_dict()
    references = reference_differences(goal, die)
    result["reached"] = {name: bool(result["difference"] >= gap) for name, gap in references.items()}
    result["references"] = dict(references)
    return result
