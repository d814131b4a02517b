"""A public-belief-state learner for two-player Liar's Dice (ReBeL's scheme, specialised to the
game): the ``pbs`` learner of ``dice-envs train liars-dice``.

The public belief state
-----------------------
After the roll everything public is the set of bids made, and the game that follows a bid depends
only on that bid and on who moves next.  What the rest of the history adds is belief: how likely
each of a player's rolls is, given the bids it made.  A *public belief state* (PBS) is therefore
``(last bid, mover, b0, b1)``, ``b_p`` a probability vector over player ``p``'s rolls.  Given the
two beliefs, the game after the bid is a game of its own (its chance node deals the rolls by the
beliefs), with a value for each player and each of its rolls: ``V(last bid, mover, b0, b1)``, the
counterfactual values of an equilibrium of that game, divided by the other player's belief mass
(Brown, Bakhtin, Lerer and Gong, *Combining Deep Reinforcement Learning and Search for
Imperfect-Information Games*, NeurIPS 2020).

The pieces
----------
* :class:`SubgameTree`: the public tree of the next ``depth`` bids after a last bid, every node
  ``(parent, bid)``; its *leaves* are the nodes ``depth`` bids deep where bids remain, and every
  node after a bid ends, by a call, in a terminal.
* :func:`solve_subgames`: CFR+ (alternating updates, regret matching+, linearly weighted averages)
  on a batch of PBSs, vectorised over the batch, the nodes and the rolls (PBSs of different last
  bids share the tree of the lowest one: the bids below a PBS's own are illegal at its root).  The
  leaves are valued by a :data:`LeafValues` function (the value network, or in tests the exact values
  of a full-game equilibrium), asked once per update at the beliefs the current strategies lead to.
  Returns the average strategies and, at every node, each player's values with each roll against
  the other's average strategy (its best response: the equilibrium's values as CFR+ converges).
  Optionally with a *gadget* (safe re-solving): see below.
* The **value network** (:class:`ValueNetwork`): an MLP from a PBS (the last bid one-hot, the mover
  one-hot, both beliefs) to both players' per-roll values.
* The **policy network** (:class:`PolicyNetwork`): an MLP from a PBS and the mover's own roll to
  its action probabilities.  It is the agent that is scored: :class:`BeliefAgent` computes, along a
  bid history, both beliefs by Bayes' rule from the policy network's own probabilities
  (:func:`bayes_update`, :func:`beliefs_at`), so it is a fixed function of (own dice, bid history)
  and the in-memory and streamed exact evaluators score it as any agent over observations.

Training (:class:`BeliefLearner`; one iteration)
-------------------------------------------------
1. **Sample PBSs** as ReBeL does, by playing forward from the root: ``games`` games, each public
   step drawn from the mover's belief and the policy network (a roll from the belief, an action from
   the network at it); in each game one player, drawn at random, instead plays a uniformly random
   legal action with probability ``explore``, so that PBSs off the policy's path are visited too.
   The beliefs along a game always follow the policy network (not the exploration): they are the
   beliefs the scored agent holds at the same bids.  Each public node visited is one PBS.  To them
   are added ``leaf_pbs`` PBSs at the leaves of the last iteration's solves, with the beliefs of a
   CFR iteration drawn in proportion to its weight (ReBeL propagates beliefs by such an iterate):
   the PBSs where the value network is asked during the solves.
2. **Solve bottom-up by the last bid.**  The PBSs are sorted by their last bid and solved in
   ``groups`` batches from the highest bids down (:func:`solve_subgames`, ``cfr_iterations``
   iterations, the next ``depth`` bids unrolled), with the value network at the leaves.  After each
   batch the value network takes ``value_steps`` Adam steps towards the root values of the solves,
   drawn from a buffer of the last ``buffer`` of them: the leaves of a batch's subgames have higher
   last bids than their roots, so they are valued by a network just fitted to solves of those bids.
   The highest bids' subgames have no leaves (they end within ``depth`` bids), so the training is
   exact there first, and the exactness moves down the bids as the network learns.
3. **Re-solve safely** (``safe``): each PBS again, one bid deep, with the gadget of Burch, Johanson
   and Bowling (*Solving Imperfect Information Games Using Decomposition*, AAAI 2014), as
   DeepStack's continual re-solving uses it: before the root, the player who just bid chooses, with
   each of its rolls, between entering the subgame and taking the value the value network gives it
   at this PBS.  The solve above, which valued this PBS as a leaf by the value network, promised it
   those values; the gadget keeps the mover's strategy from giving it more.
4. **Fit the policy network** (``policy_steps`` Adam steps of cross-entropy) to the root strategies
   of the re-solves, a row for every roll the mover may hold.

Why sampled PBSs rather than a grid of beliefs: the beliefs that matter are those the scored
agent's own policy leads to, a thin set among all pairs of distributions over the rolls; playing
forward from the root with the policy network visits them (and, with the exploration, their
neighbourhood), as ReBeL's self-play does, while the bottom-up order within an iteration gives the
leaves the freshest values.

Why the gadget: the policy network plays, at every public node, a re-solve at that node's PBS.  A
subgame has many equilibria, which give the other player's rolls different values, and a re-solve
may pick one that gives some roll more than the solve above assumed: the composed strategy is then
exploitable, though every piece is an equilibrium of its subgame.  Re-solving every public node of
one four-faced die each (highest face wild) exactly, each at the beliefs the re-solves above lead
to, shows it (a test checks it): without the gadget the whole is far from an equilibrium; with the
values the re-solve above computed as the promise, close to one.  In games without a wild face,
where many bids are never made, the gadget with those promises does not close the gap.

:func:`value_error` measures the value network against exact values: each PBS's subgame solved
without a depth limit (no leaves), to the end of the game.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, cast

import numpy as np

from dice_envs.agents.evaluate.observation_agents import Agent, greedy_choice
from dice_envs.agents.learn.presets import Learner
from dice_envs.agents.learn.runs import atomic_file, damaged, save_torch
from dice_envs.agents.liars_dice.beliefs import highbit, histories_through, popcount, public_nodes
from dice_envs.agents.liars_dice.compiled_solver import RoundTables
from dice_envs.core.resources import check_resources
from dice_envs.games.liars_dice.rules import LiarsDiceGame

__all__ = ["SubgameTree", "Subgames", "solve_subgames", "subgame_size", "LeafValues", "ValueNetwork", "PolicyNetwork",
           "bayes_update", "beliefs_at", "BeliefAgent", "BeliefLearner", "value_error", "MODEL_KIND", "belief_agent",
           "load_belief_agent", "Args", "LEARNER"]

#: The share of the prior mixed into every belief after a Bayes update (ReBeL smooths its reaches
#: likewise): a roll the policy never bids with keeps a tiny belief, so no belief is ever all zeros.
BELIEF_SMOOTHING = 1e-6


# -- the game's tables -----------------------------------------------------------------------------


class Rules:
    """The small tables the learner needs, for any size of the game (no public tree is built).

    Attributes:
        game: the two-player :class:`~dice_envs.games.liars_dice.rules.LiarsDiceGame`.
        B, R, A: bids, most rolls of one player, actions (the bids, then the call).
        priors: ``(2, R)`` chance of each player's rolls (0 past a player's own rolls).
        valid: ``(2, R)`` the columns that are rolls of the player.
        truth: ``(B, R, R)`` +1 where bid ``b`` is true for rolls ``(r0, r1)``, -1 where false, 0 past
            a player's rolls.
        first: the player who bids first.
        player_rolls: each player's rolls (sorted face tuples), in column order.
    """

    def __init__(self, game: LiarsDiceGame):
        if game.num_players != 2:
            raise ValueError(f"the public-belief-state learner needs num_players=2, got {game.num_players}")
        tables = RoundTables(game)
        self.game = game
        self.B, self.R, self.A = game.num_bids, tables.R, game.num_actions
        self.call = game.call_action
        self.first = int(game.starting_player)
        self.priors = tables.priors.copy()
        self.valid = self.priors > 0
        self.player_rolls = tables.player_rolls
        total = tables.counting[0][:, :, None] + tables.counting[1][:, None, :]  # (B, R, R)
        true = total >= tables.quantity[:, None, None]
        self.truth = np.where(self.valid[0][None, :, None] & self.valid[1][None, None, :],
                              np.where(true, 1.0, -1.0), 0.0)

    def inputs(self, last_bid: np.ndarray, mover: np.ndarray, beliefs: np.ndarray) -> np.ndarray:
        """The PBSs as network inputs, ``(n, B + 3 + 2 R)`` float32: the last bid one-hot (a first
        column for "no bid yet"), the mover one-hot, player 0's belief, player 1's."""
        n = len(last_bid)
        out = np.zeros((n, self.B + 3 + 2 * self.R), np.float32)
        out[np.arange(n), np.asarray(last_bid) + 1] = 1.0
        out[np.arange(n), self.B + 1 + np.asarray(mover)] = 1.0
        out[:, self.B + 3:] = np.asarray(beliefs).reshape(n, 2 * self.R)
        return out

    def legal(self, last_bid: np.ndarray) -> np.ndarray:
        """``(n, A)`` the legal actions after each last bid (-1: none yet, no call)."""
        last_bid = np.asarray(last_bid)
        mask = np.zeros((len(last_bid), self.A), bool)
        mask[:, : self.B] = np.arange(self.B)[None, :] > last_bid[:, None]
        mask[:, self.call] = last_bid >= 0
        return mask


def bayes_update(rules: Rules, belief: np.ndarray, likelihood: np.ndarray, player: np.ndarray) -> np.ndarray:
    """The mover's belief after its action, ``belief * likelihood`` normalised, with
    :data:`BELIEF_SMOOTHING` of the prior mixed in (the prior where the product is all zeros).

    Args:
        belief: ``(n, R)`` the mover's belief before the action.
        likelihood: ``(n, R)`` the probability of the action with each roll.
        player: ``(n,)`` the mover (whose prior is mixed in).
    """
    prior = rules.priors[np.asarray(player)]
    x = belief * likelihood
    total = x.sum(axis=1, keepdims=True)
    x = np.where(total > 1e-300, x / np.where(total > 1e-300, total, 1.0), prior)
    return (1.0 - BELIEF_SMOOTHING) * x + BELIEF_SMOOTHING * prior


# -- depth-limited subgames ---------------------------------------------------------------------------


def subgame_size(bids: int, last_bid: int, depth: int) -> int:
    """The number of nodes of the subgame after ``last_bid``, ``depth`` bids deep, in a game of ``bids``
    bids (:attr:`SubgameTree.size`), counted without building it: ``C(remaining, d)`` ``d`` bids deep."""
    return sum(math.comb(bids - 1 - last_bid, d) for d in range(depth + 1))


#: Bytes per element of the ``(PBSs, nodes, rolls, actions)`` arrays of a solve at its peak: the
#: float64 regrets, averages, increments and strategies, the action values and their temporaries.
SOLVE_BYTES = 96


def subgame_memory(rules: "Rules", size: int) -> int:
    """The peak bytes of a subgame tree of ``size`` nodes (its lists while it is built, its arrays) and of
    :func:`solve_in_chunks` on it (batches of :data:`SOLVE_CHUNK` elements, or one PBS where that is more)."""
    tree = size * (440 + 8 * rules.B + rules.A + 16 * rules.R ** 2)
    return tree + SOLVE_BYTES * max(SOLVE_CHUNK, size * rules.R * rules.A)


class SubgameTree:
    """The public tree of the next ``depth`` bids after ``last_bid`` (-1: the game's start).

    Nodes are listed level by level (the root first); node ``c > 0`` is reached from
    ``parent[c]`` by bid ``bid[c]``.

    Attributes:
        last_bid, depth: as given.
        size: the number of nodes.
        parent, bid, level: ``(size,)``; ``bid`` is each node's last bid.
        path: ``(size,)`` the bids made since the root, as a bitmask of bid numbers.
        child: ``(size, B)`` the node each bid leads to (-1 where none).
        legal: ``(size, A)`` the actions the player to act chooses from (none at a leaf).
        leaves: the nodes ``depth`` bids deep after which bids remain: valued by a
            :data:`LeafValues` function.
        levels: the nodes of each level.
        truth: ``(2, size, R, R)`` for each player ``p``, ``+1`` where the node's last bid is true
            for (``p``'s roll, the other's roll), ``-1`` where false (0 at the game's start).
    """

    def __init__(self, rules: Rules, last_bid: int, depth: int):
        B = rules.B
        if not -1 <= last_bid < B:
            raise ValueError(f"last_bid must be from -1 to {B - 1}, got {last_bid}")
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        size = subgame_size(B, last_bid, depth)
        check_resources(f"the subgame after bid {last_bid}, {depth} bids deep ({size:,} public nodes)",
                        subgame_memory(rules, size))
        self.last_bid, self.depth = last_bid, depth
        parent, bid, level, path = [-1], [last_bid], [0], [0]
        frontier = [0]
        for d in range(depth):
            grown = []
            for n in frontier:
                for b in range(bid[n] + 1, B):
                    parent.append(n)
                    bid.append(b)
                    level.append(d + 1)
                    path.append(path[n] | (1 << b))
                    grown.append(len(parent) - 1)
            frontier = grown
        self.size = n = len(parent)
        self.parent = np.array(parent, np.int64)
        self.bid = np.array(bid, np.int64)
        self.level = np.array(level, np.int64)
        self.path = np.array(path, dtype=object if B > 62 else np.int64)
        self.child = np.full((n, B), -1, np.int64)
        self.child[self.parent[1:], self.bid[1:]] = np.arange(1, n)
        is_leaf = (self.level == depth) & (self.bid < B - 1)
        self.leaves = np.flatnonzero(is_leaf)
        self.legal = rules.legal(self.bid)
        self.legal[self.level == depth, : B] = False
        self.legal[is_leaf] = False
        self.levels = [np.flatnonzero(self.level == d) for d in range(depth + 1)]
        truth = np.zeros((n, rules.R, rules.R))
        called = self.bid >= 0
        truth[called] = rules.truth[self.bid[called]]
        self.truth = np.stack([truth, truth.transpose(0, 2, 1)])


#: How a subgame's leaves are valued: ``leaf_values(tree, mover, beliefs) -> values``, given the
#: :class:`SubgameTree`, the player to act at each leaf ``(K, L)`` and both players' beliefs there
#: ``(K, L, 2, R)`` (normalised); returns ``(K, L, 2, R)``: each player's value with each of its
#: rolls, given the other player's belief (an expected payoff in ``[-1, 1]``).
LeafValues = Callable[[SubgameTree, np.ndarray, np.ndarray], np.ndarray]


@dataclass
class Subgames:
    """What :func:`solve_subgames` returns for a batch of ``K`` PBSs.

    Attributes:
        values: ``(K, 2, R)`` each player's value with each of its rolls at the root: the value of its
            best response to the other's average strategy (the gadget's other player entering the
            subgame).  Close to the equilibrium's as CFR+ converges, and never below what the player
            can get: what a gadget may promise.
        node_values: ``(K, size, 2, R)`` the same at every node: each player's counterfactual values
            divided by the other player's reach (0 where the other player never plays to the node); None
            from :func:`solve_in_chunks`, which keeps the roots' only.
        root_policy: ``(K, R, A)`` the average strategy of the mover at the root, by its roll.
        policy: ``(K, size, R, A)`` the average strategy at every node (of the player to act there); None
            from :func:`solve_in_chunks`.
        leaf_seconds: the CPU seconds spent asking the leaf values.
        leaf_beliefs: ``(K, L, 2, R)`` with ``sample_at``, both beliefs at every leaf under the strategies
            of the iteration ``sample_at`` gave each PBS (else None).
        leaf_reach: ``(K, L)`` the chance of reaching each leaf under those strategies.
    """

    values: np.ndarray
    node_values: Optional[np.ndarray]
    root_policy: np.ndarray
    policy: Optional[np.ndarray]
    leaf_seconds: float
    leaf_beliefs: Optional[np.ndarray] = None
    leaf_reach: Optional[np.ndarray] = None


def _regret_matching(regret: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The positive parts of ``regret`` normalised over the legal actions (uniform where none is positive)."""
    positive = np.where(legal, np.maximum(regret, 0.0), 0.0)
    total = positive.sum(axis=-1, keepdims=True)
    uniform = legal / np.maximum(legal.sum(axis=-1, keepdims=True), 1)
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), uniform)


def solve_subgames(rules: Rules, tree: SubgameTree, last_bid: np.ndarray, mover: np.ndarray, beliefs: np.ndarray,
                   leaf_values: Optional[LeafValues], iterations: int,
                   gadget: Optional[np.ndarray] = None, sample_at: Optional[np.ndarray] = None) -> Subgames:
    """CFR+ on the subgames of ``K`` PBSs, in one batch.

    Every subgame is solved on ``tree``, built from a last bid no higher than any of theirs: at a
    root whose last bid is higher, the bids up to it are illegal, so the nodes below them are never
    reached, and what remains is that PBS's own subgame ``tree.depth`` bids deep.

    Alternating updates; each player's update asks ``leaf_values`` once, at the beliefs the current
    strategies lead to (so ``2 * iterations`` asks); regrets floored at 0 (regret matching+); the
    average strategy weights iteration ``t`` by ``t`` times the player's own reach (its belief
    included); the values returned are those of best responses to the average strategies.

    With ``gadget``, the subgame is re-solved safely (Burch, Johanson and Bowling, *Solving
    Imperfect Information Games Using Decomposition*, AAAI 2014; DeepStack's re-solving): before the
    root, the player who is not the mover chooses, with each of its rolls, between entering the
    subgame and taking ``gadget``'s value for that roll, a decision solved by the same CFR+.  The
    mover's strategy then gives the other player no more than ``gadget`` with any roll (up to the
    solve's error): the values it was promised where the subgame was entered.

    Args:
        last_bid: ``(K,)`` the last bid at each root (-1: none yet), none below ``tree.last_bid``.
        mover: ``(K,)`` the player to act at each root.
        beliefs: ``(K, 2, R)`` both players' beliefs at each root (each row sums to 1).
        leaf_values: values the leaves (may be None when ``tree`` has no leaves).
        iterations: CFR+ iterations (each an update of both players).
        gadget: ``(K, R)`` the values promised to the root's other player with each of its rolls (a
            row of NaN: no gadget for that PBS), or None.
        sample_at: ``(K,)`` an iteration (from 1) for each PBS at which the leaves' beliefs and chances of
            being reached are kept (:attr:`Subgames.leaf_beliefs`), or None.

    Raises:
        ValueError: a tree with leaves and no ``leaf_values``, a last bid below the tree's, or beliefs
            or a gadget of the wrong shape.
    """
    K, R, B = len(mover), rules.R, rules.B
    mover, last_bid = np.asarray(mover), np.asarray(last_bid)
    if last_bid.shape != (K,) or (K and last_bid.min() < tree.last_bid):
        raise ValueError(f"last_bid must be {K} bids from {tree.last_bid} (the tree's) up, got {last_bid}")
    beliefs = np.asarray(beliefs, np.float64)
    if beliefs.shape != (K, 2, R):
        raise ValueError(f"beliefs must be (K, 2, R) = ({K}, 2, {R}), got {beliefs.shape}")
    if gadget is not None and np.shape(gadget) != (K, R):
        raise ValueError(f"gadget must be (K, R) = ({K}, {R}), got {np.shape(gadget)}")
    if len(tree.leaves) and leaf_values is None:
        raise ValueError(f"the subgame after bid {tree.last_bid} has {len(tree.leaves)} leaves: give leaf_values")
    n = tree.size
    player = mover[:, None] ^ (tree.level[None, :] & 1)  # (K, n)
    own = [(player == p)[:, :, None] for p in (0, 1)]  # (K, n, 1)
    legal = np.repeat(tree.legal[None, :, None, :], K, axis=0)  # (K, n, 1, A)
    legal[:, 0, 0] = rules.legal(last_bid)
    root_truth = np.stack([rules.truth[np.maximum(last_bid, 0)], rules.truth[np.maximum(last_bid, 0)].transpose(0, 2, 1)])
    root_truth[:, last_bid < 0] = 0.0  # (2, K, R, R)
    promised = None if gadget is None else np.nan_to_num(np.asarray(gadget, np.float64))
    chooses = None if gadget is None else ~np.isnan(np.asarray(gadget)).any(axis=1)  # (K,)
    regret = np.zeros((K, n, R, rules.A))
    average = np.zeros((K, n, R, rules.A))
    enter_regret = np.zeros((K, 2, R))  # the gadget's: enter, take the promised value
    parents = [tree.parent[c] for c in tree.levels]
    bids = [tree.bid[c] for c in tree.levels]
    leaf_seconds = 0.0
    kept_beliefs = None if sample_at is None else np.zeros((K, len(tree.leaves), 2, R))
    kept_reach = None if sample_at is None else np.zeros((K, len(tree.leaves)))

    def reaches(sigma, enter):
        """``(2, K, n, R)`` each player's reach (belief times its own strategy) at every node."""
        out = np.empty((2, K, n, R))
        out[:, :, 0] = beliefs.transpose(1, 0, 2)
        for p in (0, 1):
            out[p][:, 0] *= np.where(own[p][:, 0], 1.0, enter)
        for d in range(1, tree.depth + 1):
            c, q = tree.levels[d], parents[d]
            step = np.take_along_axis(sigma[:, q], bids[d][None, :, None, None], axis=3)[..., 0]  # (K, |c|, R)
            for p in (0, 1):
                out[p][:, c] = out[p][:, q] * np.where(own[p][:, q], step, 1.0)
        return out

    def values(sigma, enter, i, t=0, best=False):
        """Player ``i``'s counterfactual values ``(K, n, R)`` under ``sigma`` (with ``best``, of its best
        response to the other's part of ``sigma``), the regrets' increments at its nodes, and the other
        player's reach mass ``(K, n, 1)``."""
        nonlocal leaf_seconds
        o = 1 - i
        reach = reaches(sigma, enter)
        v = np.zeros((K, n, R))
        if len(tree.leaves):
            mass = reach[:, :, tree.leaves].sum(axis=3)  # (2, K, L)
            leaf_beliefs = reach[:, :, tree.leaves] / np.maximum(mass, 1e-300)[..., None]
            leaf_beliefs = np.where(mass[..., None] > 1e-300, leaf_beliefs, rules.priors[:, None, None, :])
            began = time.process_time()
            at_leaves = leaf_values(tree, player[:, tree.leaves], leaf_beliefs.transpose(1, 2, 0, 3))
            leaf_seconds += time.process_time() - began
            v[:, tree.leaves] = at_leaves[:, :, i] * mass[o][..., None]
            if sample_at is not None and i == 0:
                now = np.asarray(sample_at) == t
                kept_beliefs[now] = leaf_beliefs.transpose(1, 2, 0, 3)[now]
                kept_reach[now] = (mass[0] * mass[1])[now]
        # The call at every node: the other player's weight (its reach, and its call where it calls).
        weight = reach[o] * np.where(own[o], sigma[..., rules.call], 1.0)
        q_call = np.einsum("kns,nrs->knr", weight, tree.truth[i])
        q_call[:, 0] = np.einsum("ks,krs->kr", weight[:, 0], root_truth[i])
        q_call = np.where(own[i], -q_call, q_call)  # the caller wins when the bid is false
        increments = np.zeros((K, n, R, rules.A))
        for d in range(tree.depth, -1, -1):
            nodes = tree.levels[d]
            kids = tree.child[nodes]  # (|nodes|, B)
            q = np.empty((K, len(nodes), R, rules.A))
            q[..., : B] = v[:, np.maximum(kids, 0)].transpose(0, 1, 3, 2)
            q[..., rules.call] = q_call[:, nodes]
            act = legal[:, nodes]
            q = np.where(act, q, 0.0)
            decided = act.any(axis=-1)  # (K, |nodes|, 1): not a leaf
            mine = own[i][:, nodes]
            own_value = np.where(act, q, -np.inf).max(-1) if best else (sigma[:, nodes] * q).sum(-1)
            value = np.where(mine, own_value, q.sum(-1))
            v[:, nodes] = np.where(decided, value, v[:, nodes])
            increments[:, nodes] = np.where(mine[..., None] & act, q - value[..., None], 0.0)
        return v, increments, reach, reach[o].sum(axis=2, keepdims=True)

    for t in range(1, iterations + 1):
        for i in (0, 1):
            sigma = _regret_matching(regret, legal)
            enter = np.ones((K, R))
            if chooses is not None:
                enter[chooses] = _regret_matching(enter_regret[chooses].transpose(0, 2, 1), np.ones(2, bool))[..., 0]
            v, increments, reach, _ = values(sigma, enter, i, t)
            regret = np.maximum(regret + increments, 0.0)
            if chooses is not None and promised is not None:  # the root's other player: enter or take the promise
                chooser = ~own[i][:, 0] & chooses[:, None]  # (K, 1): this player is the root's other player
                options = np.stack([v[:, 0], promised], axis=1)  # (K, 2, R)
                expected = (np.stack([enter, 1.0 - enter], axis=1) * options).sum(axis=1, keepdims=True)
                enter_regret = np.where(chooser[:, None], np.maximum(enter_regret + options - expected, 0.0),
                                        enter_regret)
            average += t * np.where(own[i][..., None], reach[i][..., None] * sigma, 0.0)
    policy = _regret_matching(average, legal)
    # Each player's best response to the other's average strategy (both entering: the game has no gadget).
    node_values = np.zeros((K, n, 2, R))
    for i in (0, 1):
        v, _, _, mass = values(policy, np.ones((K, R)), i, best=True)
        node_values[:, :, i] = np.where(mass > 1e-300, v / np.maximum(mass, 1e-300), 0.0)
    return Subgames(node_values[:, 0], node_values, policy[:, 0], policy, leaf_seconds, kept_beliefs, kept_reach)


# -- the networks -------------------------------------------------------------------------------------


def _mlp(inputs: int, hidden: str, outputs: int, what: str):
    """A ReLU MLP of the hidden layers ``hidden`` (``"256,256"``); ``what`` names it if it is refused (larger
    than memory allows)."""
    import torch.nn as nn

    from dice_envs.agents.liars_dice.learned import NETWORK_CHUNK, hidden_sizes
    from dice_envs.core.resources import check_network

    sizes = [inputs, *hidden_sizes(hidden)]
    check_network(what, [*sizes, outputs], NETWORK_CHUNK)
    layers: list = []
    for a, b in zip(sizes, sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    layers.append(nn.Linear(sizes[-1], outputs))
    return nn.Sequential(*layers)


def _run(net, x: np.ndarray):
    """``net`` on the rows ``x`` (float32), without gradients, in chunks; a float64 array."""
    import torch

    from dice_envs.agents.liars_dice.learned import NETWORK_CHUNK

    out = []
    with torch.inference_mode():
        for lo in range(0, len(x), NETWORK_CHUNK):
            out.append(net(torch.from_numpy(x[lo : lo + NETWORK_CHUNK])).double().numpy())
    return np.concatenate(out) if out else np.zeros((0, net[-1].out_features))


class ValueNetwork:
    """``V(last bid, mover, b0, b1)``: both players' values with each of their rolls (an MLP from
    :meth:`Rules.inputs` to ``2 R`` outputs, clipped to ``[-1, 1]``, 0 past a player's rolls).  Called
    as a :data:`LeafValues` function it values a subgame's leaves."""

    def __init__(self, rules: Rules, hidden: str, what: str = "the value network"):
        self.rules, self.hidden = rules, hidden
        self.net = _mlp(rules.B + 3 + 2 * rules.R, hidden, 2 * rules.R, what)

    def predict(self, last_bid: np.ndarray, mover: np.ndarray, beliefs: np.ndarray) -> np.ndarray:
        """``(n, 2, R)`` the values at ``n`` PBSs (``beliefs``: ``(n, 2, R)``)."""
        rules = self.rules
        out = _run(self.net, rules.inputs(last_bid, mover, beliefs)).reshape(-1, 2, rules.R)
        return np.where(rules.valid[None], np.clip(out, -1.0, 1.0), 0.0)

    def __call__(self, tree: SubgameTree, mover: np.ndarray, beliefs: np.ndarray) -> np.ndarray:
        K, L = mover.shape
        last = np.broadcast_to(tree.bid[tree.leaves][None, :], (K, L)).reshape(-1)
        return self.predict(last, mover.reshape(-1), beliefs.reshape(K * L, 2, -1)).reshape(K, L, 2, -1)


class PolicyNetwork:
    """The mover's action probabilities at a PBS, for each of its rolls: an MLP from
    :meth:`Rules.inputs` and the roll (one-hot) to the actions' logits, softmax over the legal ones."""

    def __init__(self, rules: Rules, hidden: str, what: str = "the policy network"):
        self.rules, self.hidden = rules, hidden
        self.net = _mlp(rules.B + 3 + 3 * rules.R, hidden, rules.A, what)

    def inputs(self, last_bid: np.ndarray, mover: np.ndarray, beliefs: np.ndarray) -> np.ndarray:
        """``(n * R, inputs)``: every PBS once per roll column of the mover (rows ``k * R + r``)."""
        R = self.rules.R
        pbs = np.repeat(self.rules.inputs(last_bid, mover, beliefs), R, axis=0)
        roll = np.tile(np.eye(R, dtype=np.float32), (len(last_bid), 1))
        return np.concatenate([pbs, roll], axis=1)

    def probabilities(self, last_bid: np.ndarray, mover: np.ndarray, beliefs: np.ndarray) -> np.ndarray:
        """``(n, R, A)`` the mover's action probabilities with each of its rolls at ``n`` PBSs."""
        rules = self.rules
        n = len(last_bid)
        logits = _run(self.net, self.inputs(last_bid, mover, beliefs)).reshape(n, rules.R, rules.A)
        legal = rules.legal(last_bid)[:, None, :]
        logits = np.where(legal, logits, -np.inf)
        logits -= logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=-1, keepdims=True)


# -- beliefs along a bid history, and the agent that is scored ---------------------------------------


def beliefs_at(rules: Rules, policy: PolicyNetwork, nodes: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Both beliefs and the policy network's probabilities at the public ``nodes`` (bitmasks of the
    bids made), computed top-down from the root along every history by :func:`bayes_update` with
    the policy network's own probabilities.

    Returns ``(beliefs, probabilities)``: ``(n, 2, R)`` and ``(n, R, A)`` (the mover's, by roll)."""
    nodes = np.asarray(nodes, np.int64)
    known = histories_through(nodes)
    depth, last = popcount(known), highbit(known)
    mover = (rules.first + depth) % 2
    beliefs = np.zeros((len(known), 2, rules.R))
    probs = np.zeros((len(known), rules.R, rules.A))
    for d in range(int(depth.max()) + 1):
        here = np.flatnonzero(depth == d)
        if d == 0:
            beliefs[here] = rules.priors
        else:
            parent = np.searchsorted(known, known[here] - (np.int64(1) << last[here]))
            moved = mover[parent]
            likelihood = probs[parent, :, last[here]]
            beliefs[here] = beliefs[parent]
            beliefs[here, moved] = bayes_update(rules, beliefs[parent, moved], likelihood, moved)
        probs[here] = policy.probabilities(last[here], mover[here], beliefs[here])
    at = np.searchsorted(known, nodes)
    return beliefs[at], probs[at]


class BeliefAgent(Agent):
    """The policy network as an agent over observations (``agent(observations, masks) ->
    probabilities``, :mod:`dice_envs.agents.evaluate.contract`): the public node and the mover's roll
    are read from each observation, both beliefs computed along the bids by :func:`beliefs_at`, and
    the network asked at them.  A fixed function of (own dice, bid history), so the exact evaluators
    (in memory, or streamed where the tree does not fit) score it as any agent.  With ``greedy`` it
    plays its most probable legal action
    (:func:`~dice_envs.agents.evaluate.observation_agents.greedy_choice`)."""

    kind = "torch"

    def __init__(self, rules: Rules, policy: PolicyNetwork, name: str = "the PBS policy network",
                 greedy: bool = False):
        self.rules, self.policy, self.name, self.greedy = rules, policy, name, greedy
        self.game = g = rules.game
        self._counts = slice(g.num_players, g.num_players + g.faces)
        self._roll = [{tuple(int(c) for c in np.bincount(np.array(roll) - 1, minlength=g.faces)): i
                       for i, roll in enumerate(rolls)} for rolls in rules.player_rolls]
        self.info = {"game": "liars_dice", **g.config()}

    @property
    def observation_size(self) -> int:
        return int(self.game.observation_shape[0])

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations, np.float32)
        seat = np.argmax(obs[:, : self.game.num_players], axis=1)
        counts = np.rint(obs[:, self._counts]).astype(np.int64)
        try:
            roll = np.array([self._roll[s][tuple(c)] for s, c in zip(seat, counts.tolist())], np.int64)
        except KeyError as err:
            raise ValueError(f"an observation holds dice {err.args[0]} that its seat does not roll") from None
        unique, row = np.unique(public_nodes(self.game, obs), return_inverse=True)
        _, probs = beliefs_at(self.rules, self.policy, unique)
        masks = np.asarray(masks, bool)
        out = probs[row, roll] * masks
        return greedy_choice(out, masks) if self.greedy else out / out.sum(axis=1, keepdims=True)

    def tree_policy(self, tree):
        """The agent's policy on an in-memory public tree (a
        :class:`~dice_envs.agents.liars_dice.solver.TreePolicy`)."""
        from dice_envs.agents.liars_dice.learned import InfoStates

        states = InfoStates(tree)
        return states.to_tree_policy(self(states.obs, states.mask))


#: The ``kind`` of the ``model.pt`` the ``pbs`` learner writes (:func:`save_belief_model`).
MODEL_KIND = "pbs-policy"


def save_belief_model(path: Path, rules: Rules, policy: PolicyNetwork, file=None) -> None:
    """The policy network as :func:`load_belief_agent` reads it (``kind``, ``game``, ``hidden``,
    ``net``), written atomically."""
    with (file or atomic_file)(path) as tmp:
        save_torch({"kind": MODEL_KIND, "game": rules.game.config(), "hidden": policy.hidden,
                    "net": policy.net.state_dict()}, tmp)


def belief_agent(blob: dict, path, greedy: bool = False) -> BeliefAgent:
    """The :class:`BeliefAgent` of the contents ``blob`` of the ``model.pt`` ``path`` that the ``pbs``
    learner wrote (:func:`dice_envs.agents.liars_dice.learned.read_model` reads them), playing its
    most probable legal action with ``greedy``.

    Raises:
        ValueError: naming the file, if it is not such a model, its network is larger than memory allows
            or its weights are not finite."""
    from dice_envs.agents.liars_dice.learned import check_finite
    from dice_envs.core.resources import ResourceLimitError

    try:
        if blob.get("kind") != MODEL_KIND:
            raise ValueError(f"its kind is {blob.get('kind')!r}, not {MODEL_KIND!r}")
        rules = Rules(LiarsDiceGame(**blob["game"]))
        policy = PolicyNetwork(rules, blob["hidden"], f"the network of {os.fspath(path)!r}")
        policy.net.load_state_dict(blob["net"])
    except ResourceLimitError:
        raise
    except Exception as err:  # missing keys, wrong shapes, another game
        raise ValueError(f"{os.fspath(path)!r} is not a model of the pbs learner ({type(err).__name__}: "
                         f"{str(err)[:200]})") from None
    check_finite(policy.net, path)
    return BeliefAgent(rules, policy, Path(path).name, greedy)


def load_belief_agent(path) -> BeliefAgent:
    """The :class:`BeliefAgent` of a ``model.pt`` written by the ``pbs`` learner, read as any model of
    the room (:func:`dice_envs.agents.liars_dice.learned.read_model`: ``torch.load(weights_only=True)``,
    the sizes its zip declares checked first).

    Raises:
        ValueError: naming the file, if it is not such a model."""
    from dice_envs.agents.liars_dice.learned import read_model

    return belief_agent(read_model(path), path)


# -- measuring the value network ---------------------------------------------------------------------


#: Elements of one ``(K, nodes, R, A)`` array that a batch of subgames may hold at once.
SOLVE_CHUNK = 1 << 21


def solve_in_chunks(rules: Rules, tree: SubgameTree, last_bid: np.ndarray, mover: np.ndarray, beliefs: np.ndarray,
                    leaf_values: Optional[LeafValues], iterations: int, gadget: Optional[np.ndarray] = None,
                    sample_at: Optional[np.ndarray] = None) -> Subgames:
    """:func:`solve_subgames` on batches small enough for memory (:data:`SOLVE_CHUNK`), joined: the roots'
    values and strategies, and the leaves' beliefs and chances with ``sample_at`` (not the other nodes':
    :attr:`Subgames.node_values` and :attr:`Subgames.policy` are None)."""
    chunk = max(1, SOLVE_CHUNK // (tree.size * rules.R * rules.A))
    kept = ("values", "root_policy") + (() if sample_at is None else ("leaf_beliefs", "leaf_reach"))
    parts: Dict[str, list] = {name: [] for name in kept}
    leaf_seconds = 0.0
    for lo in range(0, len(mover), chunk):
        part = solve_subgames(rules, tree, last_bid[lo : lo + chunk], mover[lo : lo + chunk], beliefs[lo : lo + chunk],
                              leaf_values, iterations, None if gadget is None else gadget[lo : lo + chunk],
                              None if sample_at is None else sample_at[lo : lo + chunk])
        for name in kept:
            parts[name].append(getattr(part, name))
        leaf_seconds += part.leaf_seconds
    joined = {name: np.concatenate(arrays) for name, arrays in parts.items()}
    return Subgames(node_values=None, policy=None, leaf_seconds=leaf_seconds, **joined)


def exact_tree(rules: Rules, last_bid: int) -> SubgameTree:
    """The subgame after ``last_bid`` to the end of the game: no leaves."""
    return SubgameTree(rules, last_bid, max(1, rules.B - 1 - last_bid))


def value_error(rules: Rules, value: ValueNetwork, last_bid: np.ndarray, mover: np.ndarray, beliefs: np.ndarray,
                iterations: int = 300) -> Dict[str, float]:
    """The value network against exact subgame values at ``n`` PBSs: each subgame solved to the end of
    the game (no leaves) by ``iterations`` of CFR+.

    Returns:
        ``pbs`` (their number), ``mean_abs_error`` (each player's per-roll error weighted by its
        belief, averaged over the players and the PBSs), ``max_abs_error`` (over the rolls a player
        may hold) and ``pbs_value_error`` (the mean error of player 0's value of the PBS,
        ``sum_r b0(r) V0(r)``: the one number an equilibrium fixes whatever equilibrium is found).
    """
    last_bid, mover, beliefs = np.asarray(last_bid), np.asarray(mover), np.asarray(beliefs, np.float64)
    exact = np.zeros((len(last_bid), 2, rules.R))
    for b in np.unique(last_bid):
        sel = np.flatnonzero(last_bid == b)
        exact[sel] = solve_in_chunks(rules, exact_tree(rules, int(b)), last_bid[sel], mover[sel], beliefs[sel], None,
                                     iterations).values
    predicted = value.predict(last_bid, mover, beliefs)
    error = np.abs(predicted - exact)
    weighted = (error * beliefs).sum(axis=2)  # (n, 2)
    return {"pbs": int(len(last_bid)), "mean_abs_error": float(weighted.mean()),
            "max_abs_error": float(np.where(rules.valid[None], error, 0.0).max()),
            "pbs_value_error": float(np.abs(((predicted - exact)[:, 0] * beliefs[:, 0]).sum(axis=1)).mean())}


# -- the learner ----------------------------------------------------------------------------------------


class Buffer:
    """The last ``capacity`` training rows (first in, first out): inputs, targets and a mask of the
    targets' entries that count."""

    def __init__(self, capacity: int, inputs: int, outputs: int, what: str = "a buffer"):
        from dice_envs.core.resources import check_resources

        check_resources(f"{what} of {capacity:,} rows", 2 * capacity * (4 * inputs + 5 * outputs))
        self.capacity, self.seen = capacity, 0
        self.x = np.zeros((capacity, inputs), np.float32)
        self.y = np.zeros((capacity, outputs), np.float32)
        self.mask = np.zeros((capacity, outputs), bool)

    def __len__(self) -> int:
        return min(self.seen, self.capacity)

    def add(self, x: np.ndarray, y: np.ndarray, mask: np.ndarray) -> None:
        x, y, mask = x[-self.capacity :], y[-self.capacity :], mask[-self.capacity :]
        slot = (self.seen + np.arange(len(x))) % self.capacity
        self.x[slot], self.y[slot], self.mask[slot] = x, y, mask
        self.seen += len(x)

    def sample(self, n: int, rng: np.random.Generator) -> tuple:
        import torch

        i = rng.integers(0, len(self), n)
        return torch.from_numpy(self.x[i]), torch.from_numpy(self.y[i]), torch.from_numpy(self.mask[i])

    def state_dict(self) -> dict:
        import torch

        n = len(self)
        return {"seen": torch.tensor(self.seen), "x": torch.from_numpy(self.x[:n].copy()),
                "y": torch.from_numpy(self.y[:n].copy()), "mask": torch.from_numpy(self.mask[:n].copy())}

    def load_state_dict(self, state: dict) -> None:
        seen = int(state["seen"])
        n = min(seen, self.capacity)
        for name in ("x", "y", "mask"):
            array, mine = state[name].numpy(), getattr(self, name)
            if array.shape != (n,) + mine.shape[1:] or array.dtype != mine.dtype:
                raise ValueError(f"the buffer's {name!r} is {array.dtype}{list(array.shape)}, expected "
                                 f"{mine.dtype}{[n, *mine.shape[1:]]}")
            mine[:n] = array
        self.seen = seen


@dataclass
class Sampled:
    """The PBSs of one iteration's games, one per public node visited: ``node``, ``last_bid``,
    ``mover`` ``(n,)`` and ``beliefs`` ``(n, 2, R)``."""

    node: np.ndarray
    last_bid: np.ndarray
    mover: np.ndarray
    beliefs: np.ndarray


class BeliefLearner:
    """The networks, their optimisers and buffers, and one iteration of training (see the module's
    docstring).

    Args:
        game: a two-player round game.
        hidden, value_hidden: the policy and value networks' hidden layers.
        depth: bids unrolled in the subgames that give the value network's targets (the safe re-solves
            that give the policy network's unroll one: their leaves are the values the gadget promises).
        cfr_iterations: CFR+ iterations of each solve.
        games: games played per iteration to sample the PBSs.
        explore: chance of the exploring player's uniformly random action.
        value_steps: Adam steps on the value network after each group of solves (one per last bid).
        policy_steps: Adam steps on the policy network per iteration.
        minibatch, learning_rate, value_learning_rate, buffer: the fits' settings; ``buffer`` rows
            kept for each network.
        groups: the batches an iteration's PBSs are solved in, from the highest last bids down, the
            value network fitted after each.
        safe: the policy network's targets from the safe re-solve (:meth:`solve`).
        leaf_pbs: PBSs at the leaves of an iteration's solves (:meth:`_leaf_pbs`) solved with the next
            iteration's.
    """

    def __init__(self, game: LiarsDiceGame, hidden: str = "256,256", value_hidden: str = "256,256", depth: int = 1,
                 cfr_iterations: int = 100, games: int = 128, explore: float = 0.25, value_steps: int = 16,
                 policy_steps: int = 64, minibatch: int = 512, learning_rate: float = 1e-3,
                 value_learning_rate: float = 1e-3, buffer: int = 100_000, groups: int = 4, safe: bool = True,
                 leaf_pbs: int = 128):
        import torch

        self.rules = rules = Rules(game)
        self.depth, self.cfr_iterations, self.games, self.explore = depth, cfr_iterations, games, explore
        self.value_steps, self.policy_steps, self.minibatch = value_steps, policy_steps, minibatch
        self.groups, self.safe, self.leaf_pbs = groups, safe, leaf_pbs
        self.frontier = Sampled(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                                np.zeros((0, 2, rules.R)))
        self.value = ValueNetwork(rules, value_hidden)
        self.policy = PolicyNetwork(rules, hidden)
        self.optimisers = {"value": torch.optim.Adam(self.value.net.parameters(), lr=value_learning_rate),
                           "policy": torch.optim.Adam(self.policy.net.parameters(), lr=learning_rate)}
        self.value_buffer = Buffer(buffer, rules.B + 3 + 2 * rules.R, 2 * rules.R, "the value network's buffer")
        self.policy_buffer = Buffer(buffer, rules.B + 3 + 3 * rules.R, rules.A, "the policy network's buffer")
        self._trees: Dict[Tuple[int, int], SubgameTree] = {}
        self.iterations = 0
        #: CPU seconds of each part of the iterations so far
        self.seconds = dict.fromkeys(("sampling", "solving", "leaf_values", "value_fit", "policy_fit"), 0.0)

    def tree(self, last_bid: int, depth: int) -> SubgameTree:
        """The subgame after ``last_bid``, ``depth`` bids deep (fewer where fewer remain: then it has no
        leaves)."""
        depth = max(1, min(depth, self.rules.B - 1 - last_bid))
        if (last_bid, depth) not in self._trees:
            self._trees[last_bid, depth] = SubgameTree(self.rules, last_bid, depth)
        return self._trees[last_bid, depth]

    def agent(self) -> BeliefAgent:
        return BeliefAgent(self.rules, self.policy)

    def sample(self, rng: np.random.Generator) -> Sampled:
        """Play ``games`` games from the root (see the module's docstring), the PBS of every public node
        visited, once each."""
        rules, K = self.rules, self.games
        node = np.zeros(K, np.int64)
        last = np.full(K, -1, np.int64)
        mover = np.full(K, rules.first, np.int64)
        beliefs = np.tile(rules.priors, (K, 1, 1))
        explorer = rng.integers(0, 2, K)
        alive = np.ones(K, bool)
        seen: List[tuple] = []
        while alive.any():
            idx = np.flatnonzero(alive)
            m = mover[idx]
            seen.append((node[idx], last[idx], m, beliefs[idx].copy()))
            probs = self.policy.probabilities(last[idx], m, beliefs[idx])
            own = beliefs[idx, m]
            dist = np.einsum("nr,nra->na", own, probs)
            legal = rules.legal(last[idx])
            exploring = (explorer[idx] == m) & (rng.random(len(idx)) < self.explore)
            dist = np.where(exploring[:, None], legal / legal.sum(1, keepdims=True), dist)
            cumulative = np.cumsum(dist / dist.sum(1, keepdims=True), axis=1)
            action = np.minimum((cumulative < rng.random(len(idx))[:, None]).sum(1), rules.A - 1)
            action = np.where(legal[np.arange(len(idx)), action], action, np.argmax(legal * dist, axis=1))
            beliefs[idx, m] = bayes_update(rules, own, probs[np.arange(len(idx)), :, action], m)
            called = action == rules.call
            alive[idx[called]] = False
            go, bid = idx[~called], action[~called]
            node[go] |= np.int64(1) << bid
            last[go] = bid
            mover[go] ^= 1
        parts = [np.concatenate(x) for x in zip(*seen)]
        _, first = np.unique(parts[0], return_index=True)
        return Sampled(*(p[first] for p in parts))

    def iterate(self, rng: np.random.Generator) -> Tuple[int, Dict[str, float]]:
        """One iteration: sample, solve bottom-up by the last bid fitting the value network after each
        group, fit the policy network.  Returns the PBSs solved and the last losses."""
        rules = self.rules
        c0 = time.process_time()
        pbs = self.sample(rng)
        if len(self.frontier.last_bid):  # the leaves sampled by the last iteration's solves
            pbs = Sampled(*(np.concatenate([getattr(pbs, f.name), getattr(self.frontier, f.name)])
                            for f in dataclasses.fields(Sampled)))
        self.seconds["sampling"] += time.process_time() - c0
        losses = {"value_loss": float("nan"), "policy_loss": float("nan")}
        order = np.argsort(-pbs.last_bid, kind="stable")  # the highest bids first
        leaves: List[Sampled] = []
        for sel in np.array_split(order, min(self.groups, len(order))):
            last, mover, beliefs = pbs.last_bid[sel], pbs.mover[sel], pbs.beliefs[sel]
            c0 = time.process_time()
            solved, safe = self.solve(last, mover, beliefs, rng)
            leaves.append(self._leaf_pbs(self.tree(int(last.min()), self.depth), pbs.node[sel], solved, rng))
            self.seconds["solving"] += time.process_time() - c0 - solved.leaf_seconds - safe.leaf_seconds
            self.seconds["leaf_values"] += solved.leaf_seconds + safe.leaf_seconds
            self.value_buffer.add(rules.inputs(last, mover, beliefs), solved.values.reshape(len(sel), -1).astype(np.float32),
                                  np.broadcast_to(rules.valid.reshape(1, -1), (len(sel), 2 * rules.R)))
            rows = self.policy.inputs(last, mover, beliefs)
            valid = rules.valid[mover].reshape(-1)
            legal = np.repeat(rules.legal(last), rules.R, axis=0)
            self.policy_buffer.add(rows[valid], safe.root_policy.reshape(-1, rules.A)[valid].astype(np.float32),
                                   legal[valid])
            c0 = time.process_time()
            losses["value_loss"] = self._fit(self.value.net, self.optimisers["value"], self.value_buffer,
                                             self.value_steps, rng, _squared_error)
            self.seconds["value_fit"] += time.process_time() - c0
        c0 = time.process_time()
        losses["policy_loss"] = self._fit(self.policy.net, self.optimisers["policy"], self.policy_buffer,
                                          self.policy_steps, rng, _cross_entropy)
        self.seconds["policy_fit"] += time.process_time() - c0
        leaf = Sampled(*(np.concatenate([getattr(x, f.name) for x in leaves]) for f in dataclasses.fields(Sampled)))
        keep = rng.permutation(len(leaf.last_bid))[: self.leaf_pbs]
        self.frontier = Sampled(*(getattr(leaf, f.name)[keep] for f in dataclasses.fields(Sampled)))
        self.iterations += 1
        return len(pbs.node), losses

    def _leaf_pbs(self, tree: SubgameTree, roots: np.ndarray, solved: Subgames, rng: np.random.Generator) -> Sampled:
        """One leaf of each root's subgame, drawn by its chance of being reached under the strategies of
        the solve's sampled iteration (with :attr:`explore` of a uniform draw among the reachable leaves),
        with the beliefs there: PBSs where the value network is asked during the solves."""
        rules = self.rules
        if solved.leaf_reach is None or solved.leaf_beliefs is None or not solved.leaf_reach.shape[1]:
            return Sampled(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                           np.zeros((0, 2, rules.R)))
        reach = solved.leaf_reach
        total = reach.sum(axis=1, keepdims=True)
        has = total[:, 0] > 0
        reachable = reach > 0
        chance = ((1.0 - self.explore) * reach / np.where(total > 0, total, 1.0)
                  + self.explore * reachable / np.maximum(reachable.sum(1, keepdims=True), 1))[has]
        pick = (np.cumsum(chance, axis=1) < rng.random(len(chance))[:, None] * chance.sum(1, keepdims=True)).sum(1)
        pick = np.minimum(pick, chance.shape[1] - 1)
        leaf = tree.leaves[pick]
        movers = (rules.first + popcount(roots[has] | tree.path[leaf])) % 2
        return Sampled(roots[has] | tree.path[leaf], tree.bid[leaf], movers,
                       solved.leaf_beliefs[np.flatnonzero(has), pick])

    def solve(self, last_bid: np.ndarray, mover: np.ndarray, beliefs: np.ndarray,
              rng: Optional[np.random.Generator] = None) -> Tuple[Subgames, Subgames]:
        """The subgames of a batch of PBSs, solved twice: ``depth`` bids deep as they are (the value
        network's targets) and, with ``safe``, one bid deep with the gadget that promises the mover's
        opponent the value network's values for it at the PBS (the policy network's targets; see the
        module's docstring).  Without ``safe`` both are the first."""
        rules, low = self.rules, int(last_bid.min())
        sample_at = None
        if rng is not None and self.leaf_pbs:  # an iteration for each PBS, drawn in proportion to its weight t
            t = np.arange(1, self.cfr_iterations + 1)
            sample_at = rng.choice(t, len(last_bid), p=t / t.sum())
        solved = solve_in_chunks(rules, self.tree(low, self.depth), last_bid, mover, beliefs, self.value,
                                 self.cfr_iterations, sample_at=sample_at)
        if not self.safe:
            return solved, solved
        promised = self.value.predict(last_bid, mover, beliefs)[np.arange(len(last_bid)), 1 - mover]
        promised[last_bid < 0] = np.nan  # the game's start: nothing was promised
        safe = solve_in_chunks(rules, self.tree(low, 1), last_bid, mover, beliefs, self.value, self.cfr_iterations,
                               promised)
        return solved, safe

    def _fit(self, net, optimiser, buffer: Buffer, steps: int, rng: np.random.Generator, loss_of) -> float:
        net.train()
        loss = None
        for _ in range(steps):
            x, y, mask = buffer.sample(self.minibatch, rng)
            loss = loss_of(net(x), y, mask)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        net.eval()
        return float("nan") if loss is None else float(loss.detach())

    def networks(self) -> tuple:
        return self.value.net, self.policy.net

    def state_dicts(self) -> dict:
        """Everything that carries over between iterations, by name (the checkpoint's tensors)."""
        return {"value_net": self.value.net, "policy_net": self.policy.net, "value_opt": self.optimisers["value"],
                "policy_opt": self.optimisers["policy"], "value_buffer": self.value_buffer,
                "policy_buffer": self.policy_buffer, "frontier": _FrontierState(self)}


class _FrontierState:
    """A learner's :attr:`BeliefLearner.frontier` as a state dict of tensors (for the checkpoint)."""

    def __init__(self, learner: BeliefLearner):
        self.learner = learner

    def state_dict(self) -> dict:
        import torch

        f = self.learner.frontier
        return {"node": torch.from_numpy(f.node.copy()), "last_bid": torch.from_numpy(f.last_bid.copy()),
                "mover": torch.from_numpy(f.mover.copy()), "beliefs": torch.from_numpy(f.beliefs.copy())}

    def load_state_dict(self, state: dict) -> None:
        arrays = {name: state[name].numpy() for name in ("node", "last_bid", "mover", "beliefs")}
        n, rules = len(arrays["node"]), self.learner.rules
        if any(len(a) != n for a in arrays.values()) or arrays["beliefs"].shape != (n, 2, rules.R):
            raise ValueError(f"the frontier's arrays are not {n} PBSs of {rules.R} rolls")
        node, last_bid = arrays["node"], arrays["last_bid"]
        if (node < 0).any() or (node >= 1 << rules.B).any() or (last_bid != highbit(node)).any() or (
                arrays["mover"] != (rules.first + popcount(node)) % 2).any():
            raise ValueError("the frontier's PBSs are not public nodes of this game with their last bids and movers")
        if (arrays["beliefs"] < 0).any() or not np.allclose(arrays["beliefs"].sum(axis=2), 1.0):
            raise ValueError("the frontier's beliefs are not probability vectors")
        self.learner.frontier = Sampled(arrays["node"], arrays["last_bid"], arrays["mover"], arrays["beliefs"])


def _squared_error(output, target, mask):
    return ((output - target) ** 2 * mask).sum() / mask.sum().clamp(min=1)


def _cross_entropy(output, target, mask):
    import torch

    log_p = torch.log_softmax(output.masked_fill(~mask, -1e9), dim=-1)
    return -(target * log_p).masked_fill(~mask, 0.0).sum(-1).mean()


# -- the trainer --------------------------------------------------------------------------------------


FORMAT = 1  # the checkpoint format written and read (checkpoint.pt "format")
#: the options that may differ from the checkpoint's on resume
CHANGEABLE = ("run_dir", "minutes", "steps", "eval_every", "threads", "plot", "quiet", "value_error_pbs")
#: the state dicts in checkpoint.pt (:meth:`BeliefLearner.state_dicts`)
TENSORS = ("value_net", "policy_net", "value_opt", "policy_opt", "value_buffer", "policy_buffer", "frontier")
#: Nodes x rolls x actions of a subgame above which :func:`value_error` is not asked for a PBS at the end
#: of a run (its exact subgame would not fit the batched solver's arrays).
VALUE_ERROR_LIMIT = SOLVE_CHUNK


@dataclass
class Args:
    """The options of the ``pbs`` learner; the defaults are its recommended settings."""

    run_dir: str = ""  # outputs and checkpoint (default: runs/liars_dice_pbs_<faces>[_<dice>][_wild|_aces])
    faces: int = 6  # faces of each die
    dice: str = "1"  # dice per player: one count for both ("2") or one each ("1,2")
    wild: str = "highest"  # none | highest | aces
    minutes: float = 30.0  # wall-clock budget (total over resumes; in-memory evaluations included, streamed ones not)
    steps: int = 0  # stop after this many PBSs solved in total (0: no limit)
    eval_every: int = 10  # iterations between exact evaluations
    games: int = 128  # games played per iteration to sample the PBSs (each public node visited is one)
    explore: float = 0.25  # chance that the exploring player of a game plays a uniformly random action
    depth: int = 2  # bids unrolled in the subgames that give the value network's targets
    cfr_iterations: int = 100  # CFR+ iterations of each subgame solve
    groups: int = 4  # batches an iteration's PBSs are solved in, highest last bids first, the value net fitted after each
    leaf_pbs: int = 128  # PBSs at the solves' leaves (at a random CFR iteration) solved with the next iteration's
    safe: bool = True  # the policy network follows safe re-solves (a gadget promising the value network's values)
    hidden: str = "256,256"  # the policy network's hidden layers
    value_hidden: str = "256,256"  # the value network's hidden layers
    learning_rate: float = 1e-3  # the policy network's Adam rate
    value_learning_rate: float = 1e-3  # the value network's Adam rate
    value_steps: int = 32  # Adam steps on the value network after each group of solves
    policy_steps: int = 64  # Adam steps on the policy network per iteration
    minibatch: int = 512  # rows per Adam step
    buffer: int = 100_000  # rows kept for each network (first in, first out)
    value_error_pbs: int = 64  # PBSs at which the value network is measured against exact values at the end (0: none)
    cfr_target: float = 1e-4  # exploitability the CFR+ reference is solved to
    seed: int = 0  # seeds torch and numpy
    threads: int = 1  # torch threads (exact resume needs the same count)
    plot: bool = True  # write the curve's figure
    quiet: bool = False  # no progress on stderr


def check(args: Args) -> Args:
    """The options checked (``ValueError`` naming a bad one), ``run_dir``'s default filled in."""
    from dice_envs.agents.learn.runs import check_args, layer_sizes
    from dice_envs.agents.liars_dice.play_training import game_of

    args.hidden = layer_sizes("hidden", args.hidden)
    args.value_hidden = layer_sizes("value_hidden", args.value_hidden)
    check_args(args, at_least_one=("eval_every", "games", "depth", "cfr_iterations", "groups", "value_steps",
                                   "policy_steps", "minibatch", "buffer", "threads"),
               positive=("learning_rate", "value_learning_rate", "cfr_target"), non_negative=("value_error_pbs", "leaf_pbs"),
               ranges={"explore": (0.0, 1.0)})
    game = game_of(cast(Any, args))  # (the options it reads: faces, dice, wild)
    if args.depth > game.num_bids:
        raise ValueError(f"--depth must be at most the game's {game.num_bids} bids, got {args.depth}")
    check_memory(args, Rules(game))  # (a game of two players)
    if not args.run_dir:
        args.run_dir = (f"runs/liars_dice_pbs_{args.faces}" + ("" if args.dice == "1" else "_" + "v".join(map(str, game.dice)))
                        + {"none": "", "highest": "_wild", "aces": "_aces"}[game.wild_rule])
    return args


def check_memory(args: Args, rules: Rules) -> None:
    """Refuse (:class:`~dice_envs.core.resources.ResourceLimitError`, a ``ValueError`` naming the options and
    the memory limit) options whose arrays would not fit in memory: the subgames ``--depth`` bids deep, the
    PBSs of ``--games`` games an iteration, the ``--buffer`` rows, the networks of ``--hidden`` and
    ``--value-hidden`` on a ``--minibatch``."""
    from dice_envs.agents.liars_dice.learned import NETWORK_CHUNK, hidden_sizes
    from dice_envs.core.resources import check_network

    B, R, A = rules.B, rules.R, rules.A
    size = subgame_size(B, -1, args.depth)
    check_resources(f"--depth {args.depth} (subgames of up to {size:,} public nodes)", subgame_memory(rules, size))
    pbs = args.games * (B + 1) + args.leaf_pbs  # a game visits at most B + 1 public nodes
    leaves = math.comb(B, args.depth)  # at most, in one subgame; the beliefs there are kept for a group's PBSs
    per_pbs = 16 * R + 4 * R * (B + 3 + 3 * R) + 8 * (2 * R + R * A)
    check_resources(f"--games {args.games:,} with --depth {args.depth} and --groups {args.groups} (up to {pbs:,} "
                    f"PBSs an iteration, subgames of up to {leaves:,} leaves)",
                    pbs * per_pbs + -(-pbs // args.groups) * leaves * 8 * (2 * R + 1))
    check_resources(f"--buffer {args.buffer:,} (the rows kept for each network)",
                    2 * args.buffer * (4 * (2 * B + 6 + 5 * R) + 5 * (2 * R + A)))
    rows = max(args.minibatch, NETWORK_CHUNK)
    for name, inputs, outputs in (("hidden", B + 3 + 3 * R, A), ("value_hidden", B + 3 + 2 * R, 2 * R)):
        check_network(f"--{name.replace('_', '-')} {getattr(args, name)} (on a --minibatch of {args.minibatch:,} "
                      f"rows)", [inputs, *hidden_sizes(getattr(args, name)), outputs], rows)


def measured_value_error(learner: BeliefLearner, count: int, rng: np.random.Generator) -> Optional[dict]:
    """:func:`value_error` at up to ``count`` PBSs of one more sample of games (those whose exact subgame
    fits :data:`VALUE_ERROR_LIMIT`), with the CPU seconds it took; None if there is none."""
    rules = learner.rules
    pbs = learner.sample(rng)
    fits = np.array([k for k, b in enumerate(pbs.last_bid.tolist())  # (Python integers: 2**59 nodes do not overflow)
                     if subgame_size(rules.B, b, max(1, rules.B - 1 - b)) * rules.R * rules.A <= VALUE_ERROR_LIMIT],
                    np.int64)
    if not len(fits) or not count:
        return None
    pick = rng.choice(fits, min(count, len(fits)), replace=False)
    c0 = time.process_time()
    out = value_error(rules, learner.value, pbs.last_bid[pick], pbs.mover[pick], pbs.beliefs[pick])
    return {**out, "sampled_pbs": int(len(pbs.node)), "cpu_seconds": time.process_time() - c0}


def target_of(game) -> float:
    """The exploitability a run aims at, drawn on its curve: 0.02 with one die each and a wild face,
    0.01 without, 0.05 with more dice."""
    return (0.02 if game.wild else 0.01) if game.dice == (1, 1) else 0.05


def train(args: Args) -> dict:
    import torch

    from dice_envs.agents.liars_dice.play_training import game_of
    from dice_envs.agents.liars_dice.training import (StreamedScorer, TrainingLoop, final_and_best, game_title,
                                                      load_state_dicts, make_scorer, open_run, start_run_dir,
                                                      write_outputs)

    torch.set_num_threads(args.threads)
    game = game_of(cast(Any, args))  # (the options it reads: faces, dice, wild)
    run = Path(args.run_dir)
    ckpt_path = run / "checkpoint.pt"
    blob, state, report = open_run(args, FORMAT, CHANGEABLE, TENSORS)
    if report is not None:
        return report
    scorer = make_scorer(game, args.cfr_target)
    start_run_dir(run)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    learner = BeliefLearner(game, hidden=args.hidden, value_hidden=args.value_hidden, depth=args.depth,
                            cfr_iterations=args.cfr_iterations, games=args.games, explore=args.explore,
                            value_steps=args.value_steps, policy_steps=args.policy_steps, minibatch=args.minibatch,
                            learning_rate=args.learning_rate, value_learning_rate=args.value_learning_rate,
                            buffer=args.buffer, groups=args.groups, safe=args.safe, leaf_pbs=args.leaf_pbs)
    modules = learner.state_dicts()
    seconds = dict(learner.seconds, scoring=0.0)
    if blob is not None:
        load_state_dicts(blob, ckpt_path, run, **modules)
        try:
            seconds = {name: float(state["cpu_seconds"][name]) for name in seconds}
        except (KeyError, TypeError, ValueError) as err:
            raise damaged(ckpt_path, f"its state: {err}", run) from None
    del blob
    learner.seconds.update({k: v for k, v in seconds.items() if k in learner.seconds})

    def cpu_seconds() -> dict:
        return {**learner.seconds, "scoring": seconds["scoring"]}

    def update():
        """One iteration (``loop``, below, runs it): the PBSs it solved and its numbers."""
        solved, losses = learner.iterate(rng)
        return solved, dict(losses, pbs=solved)

    def score():
        c0 = time.process_time()
        scores = scorer.scores_policy(learner.agent())
        seconds["scoring"] += time.process_time() - c0
        return scores

    loop = TrainingLoop(args, FORMAT, state, update=update, score=score,
                        tensors=lambda: {k: m.state_dict() for k, m in modules.items()}, networks=learner.networks(),
                        generators={"learner": rng}, more_state=lambda: {"cpu_seconds": cpu_seconds()},
                        streamed=isinstance(scorer, StreamedScorer), unit="iteration",
                        counts="{steps} PBSs solved, {updates} iterations",
                        position="PBSs {steps:8d}  iterations {updates:5d}")
    learner.iterations = loop.updates
    interrupted = loop.run()
    model_path = run / "model.pt"
    if not interrupted:
        save_belief_model(model_path, learner.rules, learner.policy)
    final, best = final_and_best(loop.history)  # (None values where a streamed run was not yet scored)
    value_measured = None if interrupted else measured_value_error(  # (a generator of its own: resumes stay exact)
        learner, args.value_error_pbs, np.random.default_rng([args.seed, learner.iterations]))
    result = loop.report(
        game, scorer, final, model_path,
        describe={"method": "pbs",
                  "description": (f"public-belief-state learner: value network {args.value_hidden} on depth-"
                                  f"{args.depth} CFR+ subgame solves, policy network {args.hidden} on "
                                  + ("safe " if args.safe else "") + "re-solves, scored: the policy network with "
                                  "beliefs by Bayes' rule along the bids"),
                  "exploitability": final["exploitability"], "best_exploitability": best["exploitability"],
                  "best_at_steps": best["steps"]},
        counts={"updates": learner.iterations, "cpu_seconds": cpu_seconds(), "value_error": value_measured})
    if interrupted:
        return result
    write_outputs(run, result, loop.history, args.plot, game_title(game) + ": pbs",
                  "policy network (PBS learner), exact", "PBSs solved", scorer.cfr_exploitability,
                  target=target_of(game))
    loop.save(report=result)  # a rerun of the finished run prints it
    return result


def main(argv=None) -> int:
    """The trainer with its options as flags and no preset: train and print the report as one JSON line."""
    from dice_envs.agents.learn.runs import args_from_dataclass, run_script
    from dice_envs.agents.liars_dice.play_training import wild_flags

    return run_script("train_liars_dice_pbs", lambda a=None: check(args_from_dataclass(Args, __doc__.splitlines()[0], a)),
                      train, wild_flags(sys.argv[1:] if argv is None else argv))


#: The ``pbs`` learner of ``dice-envs train liars-dice``.
LEARNER = Learner("pbs", "public-belief-state learner (ReBeL's scheme): value network on subgame solves, "
                         "belief-conditioned policy network", Args, check, train)
