"""Exact scores of any Zombie Dice agent against optimal play (``dice-envs evaluate ayzd|zombie-dice``).

Both versions are scored the same way: the agent's decision is asked for in every position of the
score grid at once, and its strategy plays the optimal policy from both seats, exactly (no
play-outs).  The measure is Neller et al.'s Difference, the sum of the two seats' win probabilities
minus 1 (``gap`` is half of it), with the Differences of the four human-playable policies of their
paper (:data:`dice_envs.agents.zombie_dice.policies.HUMAN_POLICIES`).

* :func:`score_ayzd`: All Yellow Zombie Dice, two players; a network sees the compact observation of
  ``dice_envs/ZombieDice-v0`` (``observation="compact"``).
* :func:`score_official`: the official dice (6 green, 4 yellow, 3 red); a network sees the observation it
  was trained on (``full``, ``scaled`` or ``fourier``, read from its ``model.json`` or its size).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from dice_envs.agents.evaluate.observation_agents import Agent, NetworkAgent
from dice_envs.agents.evaluate.report import check_size, goal_of, jeopardy_report, two_action_probability
from dice_envs.agents.zombie_dice import ayzd_solver
from dice_envs.agents.zombie_dice import solver as official_solver
from dice_envs.agents.zombie_dice.learned import exact_score, resolve_policy
from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES, PUBLISHED_DIFFERENCES
from dice_envs.core.encodings import ENCODINGS
from dice_envs.games.zombie_dice.rules import COMPACT_SIZE, ZombieDiceGame, compact_observation

__all__ = ["score_ayzd", "score_official"]


def score_ayzd(spec, goal: Optional[int] = None, stop_when_won: bool = True) -> dict:
    """All Yellow Zombie Dice: ``spec`` (an agent over the compact observation, or ``optimal``,
    ``random``, ``fixed_hold_at``, ``minh``, ``llano``, ``neller``) against the optimal policy."""
    goal = goal_of(spec, goal, 13)
    if isinstance(spec, Agent):
        agent = spec
        check_size(agent, COMPACT_SIZE, "All Yellow Zombie Dice (observation='compact')")

        def policy(p, i, j, b, s):
            p, i, j, b, s = np.broadcast_arrays(*(np.asarray(x) for x in (p, i, j, b, s)))
            obs = compact_observation(p, i, j, b, s, goal, rolled=1).reshape(-1, COMPACT_SIZE)
            return two_action_probability(agent, obs).reshape(p.shape)
    else:
        policy = resolve_policy(spec, goal, stop_when_won)
    result = exact_score(policy, goal, stop_when_won)
    optimal = ayzd_solver.solved(goal, stop_when_won)
    references = {name: ayzd_solver.head_to_head(
        human if goal == 13 else (lambda p, i, j, b, s, h=human: h(p, i, j, b, s, goal=goal)),
        optimal.as_policy(), goal, optimal.score_cap, stop_when_won).difference
        for name, human in HUMAN_POLICIES.items()}
    details: Dict[str, Any] = {"score_cap": optimal.score_cap}
    if goal == 13:
        details["published"] = dict(PUBLISHED_DIFFERENCES)
    return {**jeopardy_report(result, references, details), "config": {"goal": goal, "stop_when_won": stop_when_won}}


def score_official(spec, goal: Optional[int] = None, score_cap: Optional[int] = None,
                   stop_when_won: Optional[bool] = None) -> dict:
    """The official dice: ``spec`` (an agent over its training observation, ``optimal`` or one of
    :func:`dice_envs.agents.zombie_dice.solver.standard_policies`) against the optimal policy."""
    goal = goal_of(spec, goal, 13)
    if score_cap is None and isinstance(spec, Agent):
        score_cap = spec.info.get("score_cap")
    if stop_when_won is None:  # a model trained on the rules as written is scored on them
        stop_when_won = bool(spec.info.get("stop_when_won", True)) if isinstance(spec, Agent) else True
    solution = official_solver.solved(goal, score_cap)
    standard = official_solver.standard_policies(goal)
    policy: official_solver.TurnPolicy
    if isinstance(spec, Agent):
        policy = _agent_policy(spec, goal)
    elif spec == "optimal":
        policy = solution.as_policy()
    elif spec in standard:
        policy = standard[spec]
    else:
        raise ValueError(f"agent must be a saved model (.zip), module:function or one of "
                         f"{['optimal', *standard]}, got {spec!r}")
    h2h = official_solver.head_to_head(policy, solution.as_policy(), goal, solution.score_cap,
                                       stop_when_won).as_dict()
    references = official_solver.human_differences(goal, solution.score_cap, stop_when_won)
    return {**jeopardy_report(h2h, references, {"score_cap": solution.score_cap}),
            "config": {"goal": goal, "score_cap": solution.score_cap, "stop_when_won": stop_when_won}}


def _agent_policy(agent: Agent, goal: int) -> "official_solver.TurnPolicy":
    """The turn policy of an agent over the official dice' observation.

    A model trained on ``observation="scaled"`` or ``"fourier"`` (its ``model.json`` says so) sees
    that encoding; without ``model.json``, the encoding whose size the network takes."""
    game = ZombieDiceGame(2, "official", goal)
    sizes = {len(game.encoded_bounds(kind)[0]): kind for kind in ("full", "fourier")}
    kind = agent.info.get("observation") or sizes.get(agent.observation_size or 24, "full")
    if kind not in ENCODINGS:
        raise ValueError(f"{agent.name} was trained on observation={kind!r}; the official dice' are "
                         f"{list(ENCODINGS)}")
    check_size(agent, len(game.encoded_bounds(kind)[0]), f"Zombie Dice with the official dice (observation={kind!r})")
    layers = _mlp_layers(agent)
    if layers is not None:  # the same greedy decisions, several times faster
        return official_solver.NetworkPolicy(*layers, observation=kind, goal=goal, name=agent.name)
    return official_solver.ObservationPolicy(
        lambda obs: two_action_probability(agent, game.encoded_observation(obs, kind)), goal, agent.name)


def _mlp_layers(agent: Agent) -> Optional[Tuple[List[np.ndarray], List[np.ndarray], str]]:
    """``(weights, biases, activation)`` of a greedy SB3 network's policy MLP, as
    :class:`dice_envs.agents.zombie_dice.solver.NetworkPolicy` takes them, or None if the
    agent is not one (a function, a stochastic or an unusual network)."""
    if not isinstance(agent, NetworkAgent) or not agent.greedy:
        return None
    import torch  # a NetworkAgent was loaded with torch

    policy = agent.policy
    hidden = list(getattr(getattr(policy, "mlp_extractor", None), "policy_net", []))
    head = getattr(policy, "action_net", None)
    linear = [m for m in hidden if isinstance(m, torch.nn.Linear)]
    activations = {type(m) for m in hidden if not isinstance(m, torch.nn.Linear)}
    names = {torch.nn.ReLU: "relu", torch.nn.Tanh: "tanh"}
    flat = type(getattr(policy, "features_extractor", None)).__name__ == "FlattenExtractor"
    if not (flat and isinstance(head, torch.nn.Linear) and len(activations) <= 1 and activations <= set(names)):
        return None
    layers = linear + [head]
    weights = [m.weight.detach().numpy().T.copy() for m in layers]
    biases = [m.bias.detach().numpy().copy() for m in layers]
    return weights, biases, names[activations.pop()] if activations else "relu"
