"""Opponents for the single-agent Pig environments (``dice_envs/Pig-v0``), single and batched.

An ``opponent=`` is ``"optimal"`` (Neller and Presser's optimal policy, solved exactly
for the game's goal and die), ``"hold_at_N"`` (hold once the turn total reaches N, e.g.
``"hold_at_20"``), ``"random"``, or a vectorised policy ``policy(i, j, k)`` returning the
probability of rolling (see :mod:`dice_envs.agents.pig.solver`), a model saved by
``experiments/train_pig.py`` (``.zip``) or ``module:attribute`` naming such a policy.
"""

from __future__ import annotations

import importlib
import os
import re

from dice_envs.agents.evaluate.jeopardy_agents import BatchedPolicyAgent, BatchedTurnOpponent, PolicyAgent, TurnTable
from dice_envs.agents.evaluate.opponents import RandomOpponent

NAMES = ("optimal", "hold_at_N", "random")

#: The time :func:`dice_envs.agents.pig.solver.turn_endings` takes per outcome of a turn table, a
#: margin over its measured cost (with the named policies; a saved model's may be more).
TURN_SECONDS_PER_OUTCOME = 240e-9


def solved(goal: int, die):
    """The optimal Pig policy for ``goal`` and ``die`` (cached; :func:`dice_envs.agents.pig.solver.solved`)."""
    from dice_envs.agents.pig import solver as pig_solver

    return pig_solver.solved(goal, die)


def resolve_policy(spec, game):
    """A vectorised policy ``(i, j, k) -> P(roll)`` from a name (``"random"``: the uniformly
    random one, :func:`dice_envs.agents.pig.solver.uniform_random`), a callable, a model saved by
    ``experiments/train_pig.py`` (``.zip``) or ``module:attribute``."""
    from dice_envs.agents.pig import solver as pig_solver

    if callable(spec):
        return spec
    spec = os.fspath(spec) if isinstance(spec, os.PathLike) else spec
    if spec == "optimal":
        return solved(game.goal, game.die).as_policy()
    if spec == "random":
        return pig_solver.uniform_random()
    match = re.fullmatch(r"hold_at_(\d+)", spec) if isinstance(spec, str) else None
    if match:
        return pig_solver.hold_at(int(match.group(1)))
    if isinstance(spec, str) and (spec.endswith(".zip") or os.path.isfile(spec)):
        from dice_envs.agents.learn.jeopardy_learned import load_model
        from dice_envs.agents.pig.learned import ModelPolicy

        return ModelPolicy(load_model(spec), game)
    if isinstance(spec, str) and ":" in spec:
        module, _, attr = spec.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as err:
            raise ValueError(f"cannot import policy {spec!r}: {err}") from None
    raise ValueError(f"opponent must be one of {list(NAMES)}, a saved model (.zip), module:attribute or a "
                     f"policy (i, j, k) -> P(roll), got {spec!r}")


def make_opponent(spec, game):
    """An opponent over rules-core states for :class:`dice_envs.envs.single_agent.SingleAgentEnv`."""
    if isinstance(spec, str) and spec == "random":
        return RandomOpponent()
    if hasattr(spec, "act") or hasattr(spec, "reset"):  # an agent over states
        return spec
    return PolicyAgent(resolve_policy(spec, game))


def make_batched_opponent(spec, game):
    """A batched opponent (:mod:`dice_envs.envs.vector`).  A named policy or a saved model plays
    each turn in one draw from the exact distribution of how it ends
    (:class:`~dice_envs.agents.evaluate.jeopardy_agents.BatchedTurnOpponent`); a policy passed as a
    function (which may change while it plays) decides one roll at a time, by array look-up."""
    from dice_envs.agents.pig import solver as pig_solver
    from dice_envs.envs.vector import random_opponent

    if isinstance(spec, str) and spec == "random":
        return whole_turns(random_opponent, pig_solver.uniform_random(), game)
    if getattr(spec, "batched", False):
        return spec
    policy = resolve_policy(spec, game)
    step = BatchedPolicyAgent(policy)
    return step if callable(spec) else whole_turns(step, policy, game)


def whole_turns(step, policy, game) -> BatchedTurnOpponent:
    """``policy(i, j, k)`` playing whole turns at once in :class:`dice_envs.games.pig.batched.PigBatch`
    games of ``game``; ``step`` plays it one decision at a time."""
    from dice_envs.agents.pig import solver as pig_solver

    def outcomes(i, j):
        return pig_solver.turn_endings(policy, i, j, game.goal, game.die)

    def position(batch, rows):
        i, j, _ = batch.two_player_view(rows)
        return i, j

    table = TurnTable((game.goal, game.goal), outcomes, eager=True, width=game.goal + game.max_face,
                      label=f"scores below goal={game.goal}", seconds_per_outcome=TURN_SECONDS_PER_OUTCOME)
    return BatchedTurnOpponent(step, table, position)
