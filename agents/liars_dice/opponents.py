"""Opponents for the single-agent Liar's Dice environment (``dice_envs/LiarsDice-v0``).

:func:`make_opponent` turns an ``opponent=`` argument into a callable over
rules-core states: ``"random"``, ``"equilibrium"`` (the CFR+ policy of
:mod:`dice_envs.agents.liars_dice.solver`, two players), a model saved by
``experiments/train_liars_dice.py`` (``.pt``), or any object answering
``action_probabilities(state)`` (a :class:`~dice_envs.agents.liars_dice.solver.TreePolicy`,
a :class:`~dice_envs.agents.liars_dice.learned.LearnedLiarsDicePolicy` or ``TabularLiarsDicePolicy``, ...).
"""

from __future__ import annotations

import os

import numpy as np

from dice_envs.agents.evaluate.opponents import PolicyOpponent, RandomOpponent


def make_opponent(spec, game, exploitability: float = 1e-4):
    """An opponent for :class:`dice_envs.envs.single_agent.SingleAgentEnv` from ``spec``
    (see the module docstring).  ``exploitability``: how closely ``"equilibrium"``
    is solved (the solve is cached on disk, see :func:`dice_envs.agents.liars_dice.solver.default_cache_dir`)."""
    if isinstance(spec, str) and spec == "random":
        return RandomOpponent()
    if hasattr(spec, "action_probabilities"):
        return PolicyOpponent(spec)
    if isinstance(spec, str) and spec == "equilibrium":
        if game.num_players != 2:
            raise ValueError(f"opponent 'equilibrium' needs two players, got {game.num_players}; use 'random'")
        from dice_envs.agents.liars_dice.learned import equilibrium

        return PolicyOpponent(equilibrium(game, exploitability).policy)
    if isinstance(spec, (str, os.PathLike)) and str(spec).endswith(".pt"):
        if not os.path.exists(spec):
            raise ValueError(f"opponent: no such model file {str(spec)!r}")
        from dice_envs.agents.liars_dice.learned import load_model

        policy = load_model(spec)
        if policy.game != game:
            raise ValueError(f"opponent model {str(spec)!r} is for {policy.game.config()}, not {game.config()}")
        return PolicyOpponent(policy)
    if callable(spec):
        return spec
    raise ValueError(
        "opponent must be 'random', 'equilibrium', a model path (.pt), a policy with "
        f"action_probabilities(state) or a callable over states, got {spec!r}"
    )


class BatchedTreePolicy:
    """A :class:`~dice_envs.agents.liars_dice.solver.TreePolicy` (the CFR+ equilibrium, say)
    as a batched opponent (:mod:`dice_envs.envs.vector`): for the games ``rows`` of a
    :class:`~dice_envs.games.liars_dice.batched.LiarsDiceBatch`, the public node (the set of
    bids made) and the mover's roll index select the action probabilities, one array
    look-up for all games, and an action is sampled from them."""

    batched = True

    def __init__(self, policy):
        tree = policy.tree
        game = tree.game
        self.policy = policy
        self.game = game
        self.bit = 1 << np.arange(tree.B, dtype=np.int64)
        # A player's roll (counts per face) -> its index in the tree, through a base-(dice + 1) code.
        base = max(game.dice) + 1
        self.code_weights = base ** np.arange(game.faces, dtype=np.int64)
        codes = np.zeros((2, base**game.faces), np.int64)
        for p, rolls in enumerate(tree.player_rolls):
            for r, roll in enumerate(rolls):
                counts = np.bincount(np.asarray(roll) - 1, minlength=game.faces)
                codes[p, counts @ self.code_weights] = r
        self.roll_of_code = codes

    def __call__(self, batch, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        tree, game = self.policy.tree, self.game
        bids = batch.state["bids"][rows]
        node = bids.astype(np.int64) @ self.bit
        mover = batch.seat(batch.state["num_bids"][rows])
        counts = batch.state["counts"][rows, mover]
        roll = self.roll_of_code[mover, counts @ self.code_weights]
        probs = np.zeros((len(rows), game.num_actions))
        later = np.arange(tree.B) > tree.highbit[node][:, None]
        children = node[:, None] | self.bit
        probs[:, : tree.B] = np.where(later, self.policy.edge[np.where(later, children, 0), roll[:, None]], 0.0)
        probs[:, game.call_action] = np.where(node > 0, self.policy.call[node, roll], 0.0)
        cumulative = np.cumsum(probs, axis=1)
        u = rng.random(len(rows)) * cumulative[:, -1]
        return np.minimum((u[:, None] >= cumulative).sum(axis=1), game.num_actions - 1)


def make_batched_opponent(spec, game, exploitability: float = 1e-4):
    """A batched opponent for :class:`dice_envs.agents.liars_dice.gym.LiarsDiceVectorEnv`:
    ``"random"``, ``"equilibrium"`` (a table look-up of the CFR+ policy; two players),
    a policy on the solver's public tree (``TreePolicy``) or a batched opponent."""
    from dice_envs.envs.vector import random_opponent

    if isinstance(spec, str) and spec == "random":
        return random_opponent
    if getattr(spec, "batched", False):
        return spec
    if isinstance(spec, str) and spec == "equilibrium":
        if game.num_players != 2:
            raise ValueError(f"opponent 'equilibrium' needs two players, got {game.num_players}; use 'random'")
        from dice_envs.agents.liars_dice.learned import equilibrium

        return BatchedTreePolicy(equilibrium(game, exploitability).policy)
    if hasattr(spec, "tree") and hasattr(spec, "edge"):
        return BatchedTreePolicy(spec)
    raise ValueError("the batched Liar's Dice env takes opponent 'random', 'equilibrium', a TreePolicy or a "
                     f"batched opponent, got {spec!r}")
