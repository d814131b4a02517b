"""Opponents for the single-agent Zombie Dice environment.

:func:`make_opponent` turns an ``opponent=`` argument of ``dice_envs/ZombieDice-v0``
(a name, a saved model, an agent or a policy) into a callable over rules-core
states; :class:`TableAgent` plays a policy given as a table over the AYZD grid
without numpy overhead (the optimal policy, or a learned one in self-play).

``"optimal"`` is the exact optimum of the variant: with all yellow dice the AYZD
solution (:func:`~dice_envs.agents.zombie_dice.ayzd_solver.solved`), with the official dice the solution of
:mod:`dice_envs.agents.zombie_dice.solver` (solved once, about a minute, then read from the
on-disk cache).  Both are solved with ``stop_when_won=True``; with ``False`` the optimal
decisions are the same (holding when holding wins), so the same table plays.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.agents.evaluate.jeopardy_agents import BatchedPolicyAgent, BatchedTurnOpponent, PolicyAgent, TurnTable
from dice_envs.agents.evaluate.opponents import RandomOpponent
from dice_envs.agents.zombie_dice.ayzd_solver import solved
from dice_envs.games.zombie_dice.rules import ZombieDiceState


class TableAgent(PolicyAgent):
    """:class:`PolicyAgent` for a policy given as a roll-probability table over the AYZD grid.

    ``table[p - 1, i, j, t]`` with ``t = 1 + 3 b + s`` (:func:`dice_envs.agents.zombie_dice.ayzd_solver.policy_table`;
    scores above the grid count as its top), looked up without numpy overhead.
    """

    def __init__(self, table: np.ndarray, rng: Optional[np.random.Generator] = None):
        super().__init__(None, rng)
        self.table = table

    def roll_probability(self, state: ZombieDiceState) -> float:
        if not state.rolled:
            return 1.0
        p, i, j, b, s = state.two_player_view()
        top = self.table.shape[1] - 1
        return float(self.table[p - 1, min(i, top), min(j, top), 1 + 3 * min(b, top) + s])


def make_opponent(spec, game):
    """An opponent for :class:`dice_envs.envs.single_agent.SingleAgentEnv` from a specification.

    ``spec``: ``"random"``; ``"optimal"``, a human-playable policy name
    (:data:`dice_envs.agents.zombie_dice.policies.HUMAN_POLICIES`) or a saved model path (two
    players only); an agent (``act(state)`` or a callable over states with
    ``reset``); or a vectorised policy ``policy(p, i, j, b, s)``.
    """
    if isinstance(spec, str) and spec == "random":
        return RandomOpponent()
    if hasattr(spec, "act") or hasattr(spec, "reset"):  # an agent over states
        return spec
    if isinstance(spec, (str, bytes)) or hasattr(spec, "__fspath__"):
        if game.num_players != 2:
            raise ValueError(f"opponent {spec!r} plays two-player games only; with {game.num_players} use 'random'")
        if spec == "optimal":
            if game.variant == "official":
                from dice_envs.agents.zombie_dice import solver as zombie_dice_solver

                return zombie_dice_solver.OptimalAgent(zombie_dice_solver.solved(game.goal))
            return TableAgent(solved(game.goal, game.stop_when_won).roll)
        from dice_envs.agents.zombie_dice.learned import resolve_policy

        return PolicyAgent(resolve_policy(spec, game.goal, game.stop_when_won))
    if callable(spec):
        return PolicyAgent(spec)
    raise ValueError(
        "opponent must be 'random', 'optimal', a human policy name, a model path, an agent or a policy, "
        f"got {spec!r}"
    )


def make_batched_opponent(spec, game):
    """A batched opponent (:mod:`dice_envs.envs.vector`) from the same specifications as
    :func:`make_opponent`, except agents over single states: ``"random"``, ``"optimal"``
    (a table look-up), a human-playable policy name, a saved model path or a vectorised
    policy ``policy(p, i, j, b, s)``; or a batched opponent ``(batch, rows, rng) -> actions``
    (marked by a ``batched = True`` attribute)."""
    from dice_envs.agents.zombie_dice import solver as zs
    from dice_envs.agents.zombie_dice.policies import random_policy
    from dice_envs.envs.vector import random_opponent

    if isinstance(spec, str) and spec == "random":
        if game.num_players != 2:
            return random_opponent
        return whole_turns(random_opponent, zs.ScorePolicy(random_policy, "random"), game)
    if getattr(spec, "batched", False):
        return spec
    if hasattr(spec, "act") or hasattr(spec, "reset"):
        raise ValueError("the batched environment needs a policy over positions or a batched opponent, "
                         f"not an agent over single states ({spec!r})")
    if isinstance(spec, (str, bytes)) or hasattr(spec, "__fspath__"):
        if game.num_players != 2:
            raise ValueError(f"opponent {spec!r} plays two-player games only; with {game.num_players} use 'random'")
        if spec == "optimal" and game.variant == "official":
            solution = zs.solved(game.goal)
            return whole_turns(zs.BatchedOptimalOpponent(solution), solution.as_policy(), game)
        if spec == "optimal":
            policy = solved(game.goal, game.stop_when_won).as_policy()
        else:
            from dice_envs.agents.zombie_dice.learned import resolve_policy

            policy = resolve_policy(spec, game.goal, game.stop_when_won)
        return whole_turns(BatchedPolicyAgent(policy), zs.ScorePolicy(policy), game)
    if callable(spec):
        if game.num_players != 2:
            raise ValueError(f"a policy over (p, i, j, b, s) plays two-player games only, got {game.num_players}")
        return BatchedPolicyAgent(spec)
    raise ValueError(
        "opponent must be 'random', 'optimal', a human policy name, a model path, a policy or a batched "
        f"opponent, got {spec!r}"
    )


def whole_turns(step, policy, game) -> BatchedTurnOpponent:
    """``policy`` (a :class:`~dice_envs.agents.zombie_dice.solver.TurnPolicy`) playing whole turns
    at once in two-player :class:`dice_envs.games.zombie_dice.batched.ZombieDiceBatch` games of
    ``game`` (scores below the optimum's score cap; :func:`~dice_envs.agents.zombie_dice.solver.turn_endings`);
    ``step`` plays it one decision at a time."""
    from dice_envs.agents.zombie_dice import solver as zs

    turns: list = []  # the dice chain's turn outcomes, built on first use (seconds with the official dice)

    def outcomes(seat, i, j):
        if not turns:
            turns.append(zs.TurnOutcomes(zs.dice_chain(game.variant)))
        return zs.turn_endings(turns[0], policy, game.goal, game.stop_when_won, seat, i, j)

    def position(batch, rows):
        p, i, j, _, _ = batch.two_player_view(rows)
        return p - 1, i, j

    M = zs.default_score_cap(game.goal)
    table = TurnTable((2, M, M), outcomes, width=zs.TURN_WIDTH, label=f"two seats, scores below {M} at goal={game.goal}",
                      model_bytes=zs.TURN_MODEL_BYTES[game.variant])
    return BatchedTurnOpponent(step, table, position)
