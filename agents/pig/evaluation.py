"""Exact scores of any Pig agent against optimal play (``dice-envs evaluate pig``).

The agent's decision is asked for in every position ``(i, j, k)`` (own score, the opponent's, the
turn total) at once, and its strategy plays Neller and Presser's optimal policy from both seats,
exactly.  The measure is the Difference (both seats' win probabilities minus 1), next to the
hold-at-20 and hold-at-25 rules'.  A network sees the observation it was trained on (read from its
``model.json``, else from the bounds of its observation space).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.agents.evaluate.observation_agents import Agent
from dice_envs.agents.evaluate.report import check_size, goal_of, jeopardy_report, two_action_probability
from dice_envs.agents.pig.learned import exact_score, observation_kind
from dice_envs.agents.pig.opponents import resolve_policy
from dice_envs.games.pig.rules import OBSERVATIONS, PigGame

__all__ = ["score_pig"]


def score_pig(spec, goal: Optional[int] = None, die=None) -> dict:
    """``spec`` (an agent, ``optimal``, ``hold_at_N`` or ``random``) against the optimal policy, in
    Pig to ``goal`` (the model's, else 100) with ``die`` (a fair d6 by default)."""
    game = PigGame(goal_of(spec, goal, 100), die)
    if isinstance(spec, Agent):
        agent = spec
        space = getattr(getattr(agent, "policy", None), "observation_space", None)
        kind = agent.info.get("observation") or observation_kind(getattr(space, "high", np.inf), game) or "full"
        if kind not in OBSERVATIONS:
            raise ValueError(f"{agent.name} was trained on observation={kind!r}; Pig's are {list(OBSERVATIONS)}")
        check_size(agent, len(game.encoded_bounds(kind)[1]), f"Pig (observation={kind!r})")

        def policy(i, j, k):
            shape = np.broadcast_shapes(np.shape(i), np.shape(j), np.shape(k))
            return two_action_probability(agent, game.position_observation(i, j, k, kind)).reshape(shape)
    else:
        policy = resolve_policy(spec, game)
    result = exact_score(policy, game.goal, game.die)
    # the references of pig.learned are Differences
    return {**jeopardy_report(result, result["references"]), "config": {"goal": game.goal, "die": game.die}}
