"""Exact exploitability of any two-player Liar's Dice policy, streamed over the public tree in blocks.

:func:`dice_envs.agents.liars_dice.solver.evaluate` holds the whole public tree in memory:
several ``(2 ** B, R)`` float64 arrays.  With two six-sided dice each (``B = 24`` bids,
``R = 21`` rolls) one such array is 2.8 GB and the policy's action probabilities at all
352 M information states would be 70 GB.  :func:`streamed_evaluate` computes the same
figures (the profile's value, both best responses, NashConv and exploitability, to
rounding) while holding one block of the tree at a time.

The blocks
----------
Split the bids into the ``L`` lowest and the ``H = B - L`` highest.  A public node ``m``
(the bitmask of the bids made) is ``m_lo | s << L``.  Every node whose high part ``s`` is not
0 has its parent in the same *block* ``{m_lo | s << L : s}``, so a block is a public tree of
``H`` bids hanging from its root ``m_lo``; the roots form the *low tree*, a public tree of
``L`` bids.  The evaluation is

1. the low tree, top-down: every player's reach (chance x own policy) at each root;
2. each block in turn: the policy at its ``2 ** H`` nodes (asked once), each player's reach
   top-down from the root's, the call terminals' values, then the best responses' values
   bottom-up, which leave at the root the value of its call and high bids;
3. the low tree, bottom-up: the roots' low bids combined with what the blocks left.

A best response takes, at each of its own nodes, the best of the call and of every bid, so
the maximum can be taken over the call and high bids in the block and over the low bids
afterwards; the same split holds for the sums of the other player's nodes and of the
profile's value.  Memory is a few ``(2 ** L, R)`` arrays held throughout (the low tree's), a
few ``(2 ** H, R)`` arrays (one block's) and one batch of the policy's answers
(:func:`memory_bytes`, checked before anything is allocated); time is dominated by asking the
policy once per information state.  The first block is evaluated before the others, and the
whole evaluation's CPU time estimated from it (CPU time, not wall-clock time: what else the
machine runs does not change it): announced when long, refused over the time limit
(:func:`dice_envs.core.resources.check_resources`).

Policies come as a :class:`PolicySource`: :class:`AgentSource` asks an agent over
observations (``fn(observations, masks)``, a ``.pt`` or SB3 network, a table;
:mod:`dice_envs.agents.evaluate.observation_agents`), :class:`TreePolicySource` reads a
:class:`~dice_envs.agents.liars_dice.solver.TreePolicy` (the in-memory solver's, for tests).
"""

from __future__ import annotations

import time
from typing import Callable, List, Optional

import numpy as np

from dice_envs.agents.evaluate.contract import ask_agent
from dice_envs.agents.liars_dice.compiled_solver import state_count
from dice_envs.agents.liars_dice.learned import observation_width
from dice_envs.agents.liars_dice.solver import Evaluation
from dice_envs.core.resources import announced, check_resources
from dice_envs.core.validation import check_int
from dice_envs.games.liars_dice.rules import LiarsDiceGame

__all__ = ["AgentSource", "PolicySource", "StreamedTree", "TreePolicySource", "fits_in_memory", "memory_bytes",
           "streamed_best_responses", "streamed_evaluate", "DEFAULT_BLOCK_BITS", "IN_MEMORY_STATES"]

#: High bids per block: ``2 ** 16`` public nodes.
DEFAULT_BLOCK_BITS = 16

#: Rows an agent is asked at once, so that the answers' temporaries stay a few MB.  Measured on
#: the idle 2-core machine with a 2x256 MLP: half a 2v2 block (688 k rows) in 0.93 s against
#: 1.25-1.37 s in batches of 262,144, but the whole 2v2 scoring unchanged (544 s against 546 s),
#: its peak memory 826 MB against 986 MB.
ASK_BATCH = 1 << 15

#: Public nodes x rolls up to which a game is scored on the whole public tree in memory
#: (:func:`dice_envs.agents.liars_dice.solver.evaluate`); larger games are streamed here.  One die
#: against two is 5.5 M; two dice each 352 M.
IN_MEMORY_STATES = 1 << 24


#: Bytes per (public node, roll) of the low tree's arrays, held throughout: each player's policy
#: (its bids and calls), reach and best-response values, and the profile's value (float64), with
#: the temporaries of the bottom-up pass.
LOW_BYTES_PER_STATE = 12 * 8

#: Bytes per (public node, roll) of one block's arrays: each player's policy and reach, the call
#: values, the best responses' and the profile's values and their temporaries (float64).
BLOCK_BYTES_PER_STATE = 14 * 8

#: The time estimate's margin over the first block's pace (measured in wall-clock time: the
#: evaluation takes 0.75 to 1.25 times the first block's pace; 0.6 with blocks so small that a
#: block's fixed costs dominate).
TIME_MARGIN = 1.15

#: Bytes per public node of the node indices, players and bids of the low tree and of a block.
BYTES_PER_NODE = 6 * 8


def batch_nodes(tree: "StreamedTree") -> int:
    """Public nodes whose information states the policy is asked for at once: :data:`ASK_BATCH`
    rows, or the larger of the low tree and a block if smaller."""
    return max(1, min(ASK_BATCH // max(tree.R), 1 << max(tree.L, tree.H)))


def memory_bytes(tree: "StreamedTree", source: Optional["PolicySource"] = None, best_actions: bool = False) -> int:
    """The peak memory of :func:`streamed_evaluate` on ``tree`` with ``source`` (a Python integer):
    the low tree's arrays (held throughout), one block's, one batch of the policy's answers
    (``(nodes, R, actions)`` float64) and what ``source`` needs to give them
    (:meth:`PolicySource.batch_bytes`), and with ``best_actions`` the best responses' actions
    (one byte per information state)."""
    R = max(tree.R)
    low = (1 << tree.L) * (LOW_BYTES_PER_STATE * R + BYTES_PER_NODE)
    block = (1 << tree.H) * (BLOCK_BYTES_PER_STATE * R + BYTES_PER_NODE)
    answers = 8 * batch_nodes(tree) * R * tree.game.num_actions
    asking = 0 if source is None else source.batch_bytes(tree)
    actions = 2**tree.B * sum(tree.R) if best_actions else 0
    return low + block + answers + asking + actions


def fits_in_memory(game: LiarsDiceGame) -> bool:
    """Whether ``game``'s public tree is evaluated in memory rather than streamed (:data:`IN_MEMORY_STATES`)."""
    return state_count(game) <= IN_MEMORY_STATES


def _popcount(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.int64)
    count = np.zeros_like(x)
    while np.any(x):
        count += x & 1
        x = x >> 1
    return count


def _highbit(x: np.ndarray) -> np.ndarray:
    """The highest set bit of each entry (-1 for 0)."""
    out = np.full(x.shape, -1, np.int64)
    x = x.astype(np.int64)
    k = 0
    while np.any(x >> k):
        out[(x >> k) & 1 == 1] = k
        k += 1
    return out


class StreamedTree:
    """The static facts the streamed evaluation needs, per player (no ``(2 ** B, R)`` array).

    Attributes:
        game, B, L, H: the game, its bids, the low and the high (per-block) bids.
        rolls[p], priors[p]: player ``p``'s rolls (sorted face tuples) and their probabilities.
        counts[p]: ``(R_p, faces)`` face counts of each roll.
        payoff[b]: ``(R_0, R_1)`` +1 where bid ``b`` is true for the two rolls, -1 where false.
        first: the player who bids first.
    """

    def __init__(self, game: LiarsDiceGame, block_bits: Optional[int] = None):
        if game.num_players != 2:
            raise ValueError(f"the streamed evaluation needs num_players=2, got {game.num_players}")
        self.game = game
        self.B = B = game.num_bids
        self.H = H = min(B, DEFAULT_BLOCK_BITS if block_bits is None else int(block_bits))
        if H < 1:
            raise ValueError(f"block_bits must be at least 1, got {block_bits}")
        self.L = B - H
        self.first = game.starting_player
        self.rolls, self.priors, self.counts = [], [], []
        for p in (0, 1):
            dist = game.roll_distribution(p)
            self.rolls.append([r for r, _ in dist])
            self.priors.append(np.array([float(q) for _, q in dist]))
            counts = np.zeros((len(dist), game.faces), np.int64)
            for i, (roll, _) in enumerate(dist):
                for f in roll:
                    counts[i, f - 1] += 1
            self.counts.append(counts)
        self.R = [len(r) for r in self.rolls]
        total = self.counts[0][:, None, :] + self.counts[1][None, :, :]
        self.payoff = np.empty((B, self.R[0], self.R[1]))
        for b in range(B):
            quantity, face = game.bid(b)
            self.payoff[b] = np.where(game.matches(np.moveaxis(total, 2, 0), face) >= quantity, 1.0, -1.0)
        # payoff_for[q][b]: (R_opponent, R_q), to right-multiply the opponent's weights by.
        self.payoff_for = [np.ascontiguousarray(self.payoff.transpose(0, 2, 1)), self.payoff]

    def player(self, nodes: np.ndarray) -> np.ndarray:
        """The player to act at each public node."""
        return (_popcount(nodes) + self.first) % 2


class PolicySource:
    """Where the streamed evaluation gets a policy: ``probabilities(nodes, player)`` returns the
    ``(len(nodes), R_player, num_actions)`` action probabilities of ``player`` holding each of
    its rolls at each public node (all of them ``player``'s to act), 0 on illegal actions."""

    def probabilities(self, nodes: np.ndarray, player: int) -> np.ndarray:
        raise NotImplementedError

    def batch_bytes(self, tree: StreamedTree) -> int:
        """Peak memory of answering one batch of :func:`batch_nodes` nodes, besides the answers."""
        return 0


class TreePolicySource(PolicySource):
    """A :class:`~dice_envs.agents.liars_dice.solver.TreePolicy` (the in-memory public tree's
    arrays), read block by block."""

    def __init__(self, policy):
        self.policy = policy

    def probabilities(self, nodes, player):
        tree, game = self.policy.tree, self.policy.tree.game
        R = len(tree.player_rolls[player])
        out = np.zeros((len(nodes), R, game.num_actions))
        high = _highbit(nodes)
        for b in range(game.num_bids):
            legal = b > high
            out[legal, :, b] = self.policy.edge[nodes[legal] | (1 << b), :R]
        out[:, :, game.call_action] = np.where(nodes[:, None] > 0, self.policy.call[nodes, :R], 0.0)
        return out


class AgentSource(PolicySource):
    """An agent over observations (``agent(observations, masks) -> probabilities``, checked by
    :func:`dice_envs.agents.evaluate.contract.ask_agent`), asked at every information state of a
    block in one call.  An agent that takes dice_envs 0.1's shorter observation is given that
    prefix (:func:`~dice_envs.agents.liars_dice.learned.observation_width`).

    Raises:
        ValueError: an agent whose ``observation_size`` is neither of the game's."""

    def __init__(self, agent, game: LiarsDiceGame, tree: StreamedTree, name: str = "the agent"):
        self.agent, self.game, self.tree, self.name = agent, game, tree, name
        self.width = observation_width(agent, game)

    def batch_bytes(self, tree):
        """The observations (float32) and masks of a batch, the agent's answers and their checks
        (:func:`dice_envs.agents.evaluate.contract.ask_agent`), and the bids' bits."""
        nodes = batch_nodes(tree)
        rows = nodes * max(tree.R)
        return rows * (4 * self.game.observation_shape[0] + 3 * 8 * self.game.num_actions) + 8 * nodes * tree.B

    def observations(self, nodes: np.ndarray, player: int):
        """``(observations, masks)`` of ``player`` at ``nodes``, one row per (node, roll)."""
        game, tree = self.game, self.tree
        n, R, B = len(nodes), tree.R[player], game.num_bids
        obs = np.zeros((n, R, game.observation_shape[0]), np.float32)
        obs[:, :, player] = 1.0
        base = game.num_players
        obs[:, :, base : base + game.faces] = tree.counts[player][None]
        bits = (nodes[:, None] >> np.arange(B)) & 1
        obs[:, :, base + game.faces : base + game.faces + B] = bits[:, None, :]
        obs[:, :, game.prefix_size :] = game.dice
        mask = np.zeros((n, game.num_actions), bool)
        mask[:, :B] = np.arange(B) > _highbit(nodes)[:, None]
        mask[:, game.call_action] = nodes > 0
        masks = np.repeat(mask, R, axis=0)
        return obs.reshape(n * R, -1)[:, : self.width], masks

    def probabilities(self, nodes, player):
        obs, masks = self.observations(nodes, player)
        probs = ask_agent(self.agent, obs, masks, batch_size=ASK_BATCH, what=self.name)
        return probs.reshape(len(nodes), self.tree.R[player], -1)


def _top_down(root: np.ndarray, weight: np.ndarray, H: int) -> np.ndarray:
    """``out[s] = out[parent(s)] * weight[s]`` in a block of ``H`` bids, ``out[0] = root``."""
    out = np.empty_like(weight)
    out[0] = root
    for k in range(H):
        lo, hi = 1 << k, 1 << (k + 1)
        np.multiply(out[:lo], weight[lo:hi], out=out[lo:hi])
    return out


class _Sweep:
    """The policy on a public (sub)tree of ``bits`` bids whose node ``s`` is the public node
    ``offset | s << shift`` (a block, or the low tree): each player's probability of every
    edge and call, asked of the source once per information state."""

    def __init__(self, tree: StreamedTree, source: PolicySource, offset: int, shift: int, bits: int):
        self.tree, self.bits = tree, bits
        local = np.arange(1 << bits, dtype=np.int64)
        self.nodes = offset | (local << shift)
        self.acting = tree.player(self.nodes)
        self.bid = np.where(local > 0, _highbit(local) + shift, _highbit(np.array([offset]))[0])
        A = tree.game.num_actions
        n = len(local)
        # own_edge[p][s]: p's probability of the bid into s (1 where the other player chose it);
        # own_call[p][s]: p's probability of calling at s (1 where the other player acts).
        self.own_edge = [np.ones((n, tree.R[p])) for p in (0, 1)]
        self.own_call = [np.ones((n, tree.R[p])) for p in (0, 1)]
        step = batch_nodes(tree)
        for p in (0, 1):
            acting = np.flatnonzero(self.acting == p)
            for start in range(0, len(acting), step):  # a batch of nodes at a time: the answers stay small
                rows = acting[start : start + step]
                probs = source.probabilities(self.nodes[rows], p)  # (k, R_p, A)
                self.own_call[p][rows] = probs[:, :, A - 1]
                # The bid into child c = s | 1 << k (k above s's high bit) is action k + shift; the
                # rows are increasing, so the parents of children by bid k are a prefix of them.
                for k in range(bits):
                    lo = 1 << k
                    parents = rows[rows < lo]
                    if not len(parents):
                        continue
                    self.own_edge[p][parents + lo] = probs[: len(parents), :, k + shift]


def streamed_best_responses(game: LiarsDiceGame, source, block_bits: Optional[int] = None,
                            progress: Optional[Callable[[int, int], None]] = None):
    """:func:`streamed_evaluate`, and each player's best response as actions:
    ``(evaluation, [actions of player 0, actions of player 1])``, where ``actions[q][m, r]``
    (int8, ``(2 ** B, R_q)``) is player ``q``'s best action at public node ``m`` holding its
    roll ``r``, wherever ``q`` is to act (-1 elsewhere): a deterministic best response to
    ``source``, which Monte Carlo play can check (one byte per information state: 352 MB per
    player with two six-sided dice each, checked against the memory limit with the evaluation's
    own arrays, before any is allocated)."""
    tree = StreamedTree(game, block_bits)
    source = _as_source(source, game, tree)
    check_resources(f"the best responses of {game!r} (one byte per information state)",
                    memory_bytes(tree, source, best_actions=True))
    actions = [np.full((2**tree.B, tree.R[q]), -1, np.int8) for q in (0, 1)]
    return streamed_evaluate(game, source, block_bits, progress, tree, actions), actions


def _as_source(source, game: LiarsDiceGame, tree: StreamedTree) -> PolicySource:
    if isinstance(source, PolicySource):
        return source
    return TreePolicySource(source) if hasattr(source, "edge") else AgentSource(source, game, tree)


def streamed_evaluate(game: LiarsDiceGame, source, block_bits: Optional[int] = None,
                      progress: Optional[Callable[[int, int], None]] = None,
                      tree: Optional[StreamedTree] = None, best_actions: Optional[list] = None,
                      runs: int = 1) -> Evaluation:
    """The exact value, best responses, NashConv and exploitability of the policy ``source``
    plays in both seats (as :func:`dice_envs.agents.liars_dice.solver.evaluate`), holding
    the low tree and one block of ``2 ** block_bits`` public nodes at a time.

    The peak memory (:func:`memory_bytes`) is checked before anything is allocated; the CPU
    time is estimated from the first block (the policy's own speed included) before the others
    run: a long evaluation is announced (a
    :class:`~dice_envs.core.resources.LongRunWarning`), one over the time limit refused.

    Args:
        game: a two-player :class:`~dice_envs.games.liars_dice.rules.LiarsDiceGame`.
        source: a :class:`PolicySource`, or an agent over observations (wrapped in
            :class:`AgentSource`), or a :class:`~dice_envs.agents.liars_dice.solver.TreePolicy`.
        block_bits: high bids per block (default :data:`DEFAULT_BLOCK_BITS`, or all of them).
        progress: called as ``progress(blocks done, blocks)``.
        tree: the :class:`StreamedTree` to use (made from ``game`` and ``block_bits`` if None;
            one with negated payoffs gives the responses that try to lose).
        best_actions: filled with the best responses' actions (see :func:`streamed_best_responses`).
        runs: evaluations of this size the caller makes in a row, this one first: the time
            estimate covers them all (a later one runs inside
            :func:`dice_envs.core.resources.announced`).

    Raises:
        ValueError: a game that is not two-player, an evaluation over the memory or time limit,
            or a policy whose answers fail the agent contract.
    """
    runs = check_int("runs", runs, 1)
    started = time.process_time()
    tree = StreamedTree(game, block_bits) if tree is None else tree
    source = _as_source(source, game, tree)
    what = (f"{'the streamed evaluation' if runs == 1 else f'{runs} streamed evaluations'} of {game!r} (2**{tree.B} "
            f"public nodes, in blocks of 2**{tree.H})")
    memory = memory_bytes(tree, source, best_actions is not None)
    check_resources(what, memory)
    L, H = tree.L, tree.H
    blocks = 1 << L
    # Per root: each best response's value (q = 0, 1) and player 0's value of the profile,
    # of the call and the high bids (filled by the blocks).
    part_br = [np.zeros((blocks, tree.R[q])) for q in (0, 1)]
    part_ev = np.zeros((blocks, tree.R[0]))

    def run_block(m_lo: int, root_reach: list) -> None:
        block = _Sweep(tree, source, m_lo, L, H)
        reach = [_top_down(root_reach[p], block.own_edge[p], H) for p in (0, 1)]
        for q in (0, 1):
            br, ev = _block_values(tree, block, reach, q, None if best_actions is None else best_actions[q])
            part_br[q][m_lo] = br
            if q == 0:
                part_ev[m_lo] = ev
        if progress is not None:
            progress(m_lo + 1, blocks)

    # 1. The first block, whose root is the game's (the players' reach there is their priors),
    # timed: the rest is estimated from it (the low tree asks the policy at 2**L nodes, about
    # 2**(L - H) blocks' worth).
    source.probabilities(np.zeros(1, np.int64), tree.first)  # a first call may load code (a network's): not in the pace
    t0 = time.process_time()
    run_block(0, tree.priors)
    total = runs * (blocks + blocks / (1 << H))  # in blocks' worth
    if blocks > 1:
        check_resources(what, memory, (t0 - started) + TIME_MARGIN * (time.process_time() - t0) * total, clock="cpu")
    # 2. The low tree (a public tree of the L lowest bids), top-down: each player's reach.
    low = _Sweep(tree, source, 0, 0, L)
    low_reach = [_top_down(tree.priors[p], low.own_edge[p], L) for p in (0, 1)]
    # 3. Every other block; the estimate is made again from the blocks done whenever they double
    # (refused over the limit, not announced again).
    for m_lo in range(1, blocks):
        run_block(m_lo, [low_reach[0][m_lo], low_reach[1][m_lo]])
        done = m_lo + 1 + blocks / (1 << H)
        if m_lo & (m_lo + 1) == 0 and m_lo + 1 < blocks:
            with announced():
                check_resources(what, memory, (t0 - started) + TIME_MARGIN * (time.process_time() - t0) / done * total,
                                clock="cpu")
    # 4. The low tree, bottom-up: the roots' low bids.
    br_values = []
    for q in (0, 1):
        v = part_br[q]
        mine = (low.acting == q)[:, None]
        for k in range(L - 1, -1, -1):
            lo, hi = 1 << k, 1 << (k + 1)
            if best_actions is not None:
                better = mine[:lo] & (v[lo:hi] > v[:lo])
                rows, cols = np.nonzero(better)
                best_actions[q][rows, cols] = k
            v[:lo] = np.where(mine[:lo], np.maximum(v[:lo], v[lo:hi]), v[:lo] + v[lo:hi])
        br_values.append(float(tree.priors[q] @ v[0]))
    v = part_ev
    for k in range(L - 1, -1, -1):
        lo, hi = 1 << k, 1 << (k + 1)
        v[:lo] += v[lo:hi] * low.own_edge[0][lo:hi]
    value = float(tree.priors[0] @ v[0])
    nash_conv = br_values[0] + br_values[1]
    return Evaluation(value, tuple(br_values), nash_conv, nash_conv / 2)


def _block_values(tree: StreamedTree, block: _Sweep, reach: List[np.ndarray], q: int,
                  best_actions: Optional[np.ndarray] = None):
    """Player ``q``'s best-response values and (for ``q = 0``) the profile's values at the
    block's root, over its call and its high bids: ``((R_q,), (R_q,))``; ``best_actions``
    (``(2 ** B, R_q)``) gets the best of those actions at the block's nodes where ``q`` acts."""
    o = 1 - q
    H = block.bits
    # The other player's reach including its call, and the call's value for q at every node.
    term = reach[o] * block.own_call[o]
    q_call = np.empty((1 << H, tree.R[q]))
    payoff = tree.payoff_for[q]
    if block.nodes[0] == 0:
        q_call[0] = 0.0
    else:
        q_call[0] = term[0] @ payoff[block.bid[0]]
    for k in range(H):
        lo, hi = 1 << k, 1 << (k + 1)
        np.matmul(term[lo:hi], payoff[block.bid[lo]], out=q_call[lo:hi])
    # q wins a true bid it made: the sign is -1 where q is to act (and calls).
    mine = (block.acting == q)[:, None]
    q_call *= np.where(mine, -1.0, 1.0)
    v = q_call.copy()
    if block.nodes[0] == 0 and block.acting[0] == q:
        v[0] = -np.inf  # no call at the root: the best bid decides
    best = None
    if best_actions is not None:
        best = np.where(mine, tree.game.call_action, -1).astype(np.int8).repeat(tree.R[q], axis=1)
    shift = tree.L
    for k in range(H - 1, -1, -1):
        lo, hi = 1 << k, 1 << (k + 1)
        if best is not None:
            better = mine[:lo] & (v[lo:hi] > v[:lo])
            best[:lo][better] = k + shift
        v[:lo] = np.where(mine[:lo], np.maximum(v[:lo], v[lo:hi]), v[:lo] + v[lo:hi])
    if best is not None and best_actions is not None:  # (both or neither)
        best_actions[block.nodes] = best
    if q != 0:
        return v[0], None
    ev = q_call * block.own_call[q]
    for k in range(H - 1, -1, -1):
        lo, hi = 1 << k, 1 << (k + 1)
        ev[:lo] += ev[lo:hi] * block.own_edge[q][lo:hi]
    return v[0], ev[0]
