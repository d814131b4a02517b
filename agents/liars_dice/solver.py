"""Equilibrium of two-player Liar's Dice: CFR+ / CFR over the public tree,
vectorised over the private dice with numpy, and exact evaluation.

The public tree
---------------
After the roll, everything public is the set of bids made so far (bids only go
up, and players alternate, so the set is the sequence).  A public node is the
bitmask ``m`` of those bids: ``2 ** B`` nodes for ``B`` bids, with the player to
act ``popcount(m) % 2`` and the last bid the highest set bit of ``m``.  Every
non-root node ``c`` is reached by exactly one edge, "bid ``highbit(c)``" from
``parent(c) = c - 2 ** highbit(c)``, so per-edge quantities (strategies, regrets)
live in arrays indexed by the child node; the call edge of node ``m`` lives in a
second array indexed by ``m``.  The children of all nodes below ``2 ** k`` by
bid ``k`` are exactly the nodes ``2 ** k .. 2 ** (k+1) - 1``, in the same order,
so a top-down pass (reach probabilities) or a bottom-up pass (values) is ``B``
contiguous slice operations.  An information state is (public node, own roll),
so every array has one column per roll of the player concerned: ``(2 ** B, R)``.
Where the players hold different numbers of dice (``dice_per_player=(1, 2)``), ``R`` is
the larger number of rolls, and the columns past a player's own rolls have probability 0.

Terminal values need no walk either: every node in ``2 ** b .. 2 ** (b+1) - 1``
ends in a call of bid ``b``, so its counterfactual values are one matrix
product with the ``R x R`` table "bid ``b`` is true for these two rolls".

One CFR iteration therefore costs ``O(B)`` numpy calls on ``(2 ** B, R)`` arrays
and ``B`` small matrix products, never a Python loop over histories or rolls.

Use::

    from dice_envs.agents.liars_dice.solver import solve
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    result = solve(LiarsDiceGame(faces=6, wild=True), target_exploitability=1e-4)
    result.value_first_player      # about -7/258
    result.policy.action_probabilities(state)   # {action: probability}

:func:`evaluate` gives the exact value, best-response values and exploitability
of any policy that answers :meth:`action_probabilities(state) <Policy>`
(:func:`tabulate` asks it once per information state).
"""

from __future__ import annotations

import functools
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from dice_envs.agents.liars_dice.compiled_solver import CompiledCFR, RoundTables, policy_values, state_count
from dice_envs.agents.solve import cache as solver_cache
from dice_envs.agents.solve.cache import default_cache_dir  # noqa: F401  (re-exported: the default for every caller)
from dice_envs.agents.solve.interval import value_interval
from dice_envs.core.game import sample_action
from dice_envs.core.resources import check_resources, seconds_limit
from dice_envs.core.validation import check_choice, check_int, check_real
from dice_envs.games.liars_dice.rules import LiarsDiceGame, LiarsDiceState

__all__ = [
    "PublicTree",
    "TreePolicy",
    "CFRSolver",
    "CompiledCFRSolver",
    "make_solver",
    "SolveResult",
    "solve",
    "tabulate",
    "evaluate",
    "exploitability",
    "default_cache_dir",
    "MAX_PUBLIC_NODES",
    "tree_for",
    "SHIPPED_DIR",
    "load_cached_or_shipped",
    "memory_bytes",
    "check_solve",
]

#: Equilibria shipped with the package, files of the on-disk cache's form (compressed): those the
#: Gymnasium ids' default opponents need (``dice_envs/LiarsDice-v1``; every round of
#: ``dice_envs/LiarsDiceMatch-v1``), so a first ``gymnasium.make`` does not solve.  :func:`solve`
#: reads them where the cache has no file, and checks them as it checks the cache's.
SHIPPED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "equilibria")

#: Refuse public trees above this many nodes times rolls (memory guard: about 8
#: float64 arrays of this size are live during CFR).
MAX_PUBLIC_NODES = 2**25

SOLVER_VERSION = 1

#: Peak memory of a CFR+ solve per (public node, roll), its public tree included: about 26
#: float64 arrays of the public tree's shape are live (measured: 207-210 bytes, with a margin).
BYTES_PER_NODE_ROLL = 256

#: Peak memory of building a :class:`PublicTree` per (public node, roll): seven float64 arrays
#: of its shape (masks, signs, ``1 / actions``) and the temporaries that build them (measured:
#: 59-64 bytes, with a margin).
PUBLIC_TREE_BYTES_PER_STATE = 72


class PublicTree:
    """Static structure of a two-player Liar's Dice game's public tree.

    Attributes:
        game: the :class:`~dice_envs.games.liars_dice.rules.LiarsDiceGame`.
        B, N, R: number of bids, public nodes (``2 ** B``) and columns per node (the most
            rolls a player has).
        player_rolls: ``[rolls of player 0, rolls of player 1]`` (sorted face tuples);
            ``player_roll_index[p]`` maps back.
        priors: ``(2, R)`` float64 probability of each player's rolls (exact values from
            ``dice.roll_counts``; 0 in the columns past a player's own rolls).
        rolls, roll_index, prior: the same for both players where they hold the same dice
            (player 0's otherwise).
        player: ``(N,)`` player to act at each node.
        highbit: ``(N,)`` last bid at each node (-1 at the root).
        num_actions: ``(N,)`` legal actions at each node.
        payoff: ``(B, R, R)`` +1 where bid ``b`` is true for rolls ``(r0, r1)``, -1 where false.
    """

    def __init__(self, game: LiarsDiceGame):
        if game.num_players != 2:
            raise ValueError(f"the public-tree solver needs num_players=2, got {game.num_players}")
        self.game = game
        self.B = B = game.num_bids
        self.N = N = 2**B
        dists = [game.roll_distribution(p) for p in (0, 1)]
        self.player_rolls = [[r for r, _ in dist] for dist in dists]
        self.player_roll_index = [{r: i for i, r in enumerate(rolls)} for rolls in self.player_rolls]
        self.R = R = max(len(rolls) for rolls in self.player_rolls)
        self.priors = np.zeros((2, R))
        for p, dist in enumerate(dists):
            self.priors[p, : len(dist)] = [float(q) for _, q in dist]
        self.rolls, self.roll_index, self.prior = self.player_rolls[0], self.player_roll_index[0], self.priors[0]
        self.prior_exact = [q for _, q in dists[0]]
        check_resources(f"the public tree of {game!r} (2**{B} public nodes x {R} rolls)",
                        PUBLIC_TREE_BYTES_PER_STATE * N * R)
        if N * R > MAX_PUBLIC_NODES:
            raise ValueError(
                f"game too large for the public-tree solver: 2**{B} public nodes x {R} rolls "
                f"= {N * R:,} > {MAX_PUBLIC_NODES:,}"
            )
        nodes = np.arange(N, dtype=np.int64)
        parity = np.zeros(N, dtype=np.int8)
        highbit = np.full(N, -1, dtype=np.int64)
        for k in range(B):
            bit = (nodes >> k) & 1
            parity ^= bit.astype(np.int8)
            highbit[bit == 1] = k
        self.first = game.starting_player
        self.player = parity ^ np.int8(self.first)
        self.highbit = highbit
        self.num_actions = (B - 1 - highbit) + (nodes > 0)
        # Full (N, R) arrays: numpy multiplies equal shapes much faster than it broadcasts.
        self.inv_n = np.repeat((1.0 / self.num_actions)[:, None], R, axis=1)
        # Float masks: nodes where player p acts, and edges (by child) chosen by p.
        self.node_mask = [np.repeat((self.player == p).astype(float)[:, None], R, axis=1) for p in (0, 1)]
        self.edge_mask = []
        for p in (0, 1):
            mask = self.to_children(self.node_mask[p])
            mask[0] = 0.0
            self.edge_mask.append(mask)
        # Payoff tables: truth of bid b for (roll of player 0, roll of player 1); 0 past a
        # player's own rolls.
        counts = np.zeros((2, R, game.faces), dtype=np.int64)
        for p, rolls in enumerate(self.player_rolls):
            for i, roll in enumerate(rolls):
                for f in roll:
                    counts[p, i, f - 1] += 1
        total = counts[0][:, None, :] + counts[1][None, :, :]  # (R, R, faces)
        exists = np.outer(self.priors[0] > 0, self.priors[1] > 0)
        payoff = np.empty((B, R, R))
        for b in range(B):
            quantity, face = game.bid(b)
            n = game.matches(np.moveaxis(total, 2, 0), face)
            payoff[b] = np.where(exists, np.where(n >= quantity, 1.0, -1.0), 0.0)
        self.payoff = payoff
        # payoff_t[p][b]: (R_opp, R_self) table to right-multiply opponent weights by.
        self.payoff_t = [np.ascontiguousarray(payoff.transpose(0, 2, 1)), np.ascontiguousarray(payoff)]
        self.call_sign = [np.where(self.node_mask[p] > 0, -1.0, 1.0) for p in (0, 1)]
        for sign in self.call_sign:
            sign[0] = 0.0

    # -- slice passes -----------------------------------------------------------------

    def top_down(self, root: Union[float, np.ndarray], weight: np.ndarray,
                 out: Optional[np.ndarray] = None) -> np.ndarray:
        """``out[c] = out[parent(c)] * weight[c]``, ``out[0] = root``."""
        out = np.empty_like(weight) if out is None else out
        out[0] = root
        for k in range(self.B):
            lo, hi = 1 << k, 1 << (k + 1)
            np.multiply(out[:lo], weight[lo:hi], out=out[lo:hi])
        return out

    def children_sum(self, x: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
        """``out[m] = sum of x[c]`` over the children ``c`` of ``m`` by a bid."""
        if out is None:
            out = np.zeros_like(x)
        else:
            out.fill(0.0)
        for k in range(self.B):
            lo, hi = 1 << k, 1 << (k + 1)
            out[:lo] += x[lo:hi]
        return out

    def to_children(self, y: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
        """``out[c] = y[parent(c)]`` (row 0 copied from ``y[0]``, unused)."""
        out = np.empty_like(y) if out is None else out
        out[0] = y[0]
        for k in range(self.B):
            lo, hi = 1 << k, 1 << (k + 1)
            out[lo:hi] = y[:lo]
        return out

    def call_values(self, opp_weight: np.ndarray, player: int, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Counterfactual value for ``player`` of the call at every node.

        ``opp_weight[m, r_o]`` is the probability, including chance, that the
        opponent holds ``r_o`` and plays to the call at ``m`` (the opponent's own
        call probability included when the opponent is the caller).  Returns
        ``(N, R)``: for each own roll, the expected payoff times that weight.
        """
        out = np.empty_like(opp_weight) if out is None else out
        out[0] = 0.0
        tables = self.payoff_t[player]
        for b in range(self.B):
            lo, hi = 1 << b, 1 << (b + 1)
            np.matmul(opp_weight[lo:hi], tables[b], out=out[lo:hi])
        # The bidder wins a true bid: sign +1 where `player` made the last bid,
        # i.e. where the opponent is to act (and is the caller).
        out *= self.call_sign[player]
        return out

    # -- information states -----------------------------------------------------------

    def node(self, bids) -> int:
        m = 0
        for b in bids:
            m |= 1 << b
        return m

    def probe_state(self, m: int, roll_index: int) -> LiarsDiceState:
        """A state at public node ``m`` where the player to act holds roll ``roll_index``
        (a column past the player's rolls stands for its first roll).  The opponent's dice
        are a placeholder (its first roll): a policy must look only at the acting player's
        information state."""
        bids = tuple(b for b in range(self.B) if m >> b & 1)
        player = int(self.player[m])
        rolls = [self.player_rolls[0][0], self.player_rolls[1][0]]
        own = self.player_rolls[player]
        rolls[player] = own[roll_index if roll_index < len(own) else 0]
        return LiarsDiceState(self.game, tuple(rolls), bids, False)

    def uniform(self) -> "TreePolicy":
        edge = np.zeros((self.N, self.R))
        edge[1:] = 1.0 / self.to_children(self.num_actions.astype(float)[:, None])[1:]
        edge = np.broadcast_to(edge[:, :1], (self.N, self.R)).copy()
        call = np.where(np.arange(self.N) > 0, 1.0 / self.num_actions, 0.0)[:, None].repeat(self.R, 1)
        return TreePolicy(self, edge, call)


@dataclass
class TreePolicy:
    """A behaviour policy for both players on the public tree.

    ``edge[c, r]``: probability that the player to act at ``parent(c)``, holding
    roll ``r``, bids ``highbit(c)``; ``call[m, r]``: probability of calling at ``m``.

    It answers :meth:`action_probabilities` for any
    :class:`~dice_envs.games.liars_dice.rules.LiarsDiceState`, so agents can play it.
    """

    tree: PublicTree
    edge: np.ndarray
    call: np.ndarray

    def action_probabilities(self, state: LiarsDiceState) -> Dict[int, float]:
        """``{action: probability}`` for the player to act in ``state``."""
        tree = self.tree
        m = tree.node(state.bids)
        r = tree.player_roll_index[state.current_player][state.rolls[state.current_player]]
        out = {b: float(self.edge[m | (1 << b), r]) for b in range(tree.highbit[m] + 1, tree.B)}
        if m:
            out[tree.game.call_action] = float(self.call[m, r])
        return out

    def __call__(self, state: LiarsDiceState) -> Dict[int, float]:
        return self.action_probabilities(state)

    def sample(self, state: LiarsDiceState, rng: np.random.Generator) -> int:
        return sample_action(self.action_probabilities(state), rng)

    def probabilities_from_observation(self, observation: np.ndarray) -> np.ndarray:
        """Action probabilities (a ``num_actions`` vector) from an environment
        observation of the player to act, as ``liars_dice_v0`` gives it."""
        tree, game = self.tree, self.tree.game
        obs = np.asarray(observation)
        base = game.num_players
        counts = np.rint(obs[base : base + game.faces]).astype(int)
        roll = tuple(f for f in range(1, game.faces + 1) for _ in range(counts[f - 1]))
        bits = obs[base + game.faces : base + game.faces + game.num_bids] > 0.5
        m = int(sum(1 << b for b in np.flatnonzero(bits)))
        r = tree.player_roll_index[int(tree.player[m])][roll]
        out = np.zeros(game.num_actions)
        for b in range(tree.highbit[m] + 1, tree.B):
            out[b] = self.edge[m | (1 << b), r]
        if m:
            out[game.call_action] = self.call[m, r]
        return out

    def act(self, observation, rng: np.random.Generator) -> int:
        """Sample an action from an environment observation (``obs["observation"]``
        or the whole ``obs`` dict): how an agent plays the policy in ``liars_dice_v0``."""
        if isinstance(observation, dict):
            observation = observation["observation"]
        p = self.probabilities_from_observation(observation)
        return int(rng.choice(len(p), p=p / p.sum()))


def _normalise(tree: PublicTree, edge: np.ndarray, call: np.ndarray):
    """Turn non-negative weights into a policy (uniform where all weights are 0)."""
    total = tree.children_sum(edge)
    total += call
    positive = total > 0
    inv = np.divide(1.0, total, out=np.zeros_like(total), where=positive)
    uniform = np.where(positive, 0.0, tree.inv_n)
    call_p = call * inv
    call_p += uniform
    call_p[0] = 0.0
    edge_p = edge * tree.to_children(inv)
    edge_p += tree.to_children(uniform)
    edge_p[0] = 0.0
    return edge_p, call_p


# ---------------------------------------------------------------------------------------
# exact evaluation


def _masks(tree: PublicTree, player: int):
    """``(edge mask, node mask)`` as ``(N, R)`` booleans: edges chosen by ``player``
    (indexed by child), nodes where ``player`` acts."""
    return tree.edge_mask[player] > 0, tree.node_mask[player] > 0


def _opponent_terminal_weight(tree: PublicTree, policy: TreePolicy, player: int):
    """Chance x opponent reach at each node, and including the opponent's call."""
    opp = 1 - player
    e_opp, n_opp = _masks(tree, opp)
    reach = tree.top_down(tree.priors[opp], np.where(e_opp, policy.edge, 1.0))
    return reach, reach * np.where(n_opp, policy.call, 1.0)


def best_response_value(tree: PublicTree, policy: TreePolicy, player: int) -> float:
    """Expected payoff of ``player``'s best response to ``policy`` of the other player."""
    _, term = _opponent_terminal_weight(tree, policy, player)
    q_call = tree.call_values(term, player)
    mine = tree.node_mask[player] > 0
    v = q_call
    if player == tree.first:
        v[0] = -np.inf  # no call at the root; the best bid decides
    for k in range(tree.B - 1, -1, -1):
        lo, hi = 1 << k, 1 << (k + 1)
        child = v[lo:hi]
        v[:lo] = np.where(mine[:lo], np.maximum(v[:lo], child), v[:lo] + child)
    return float(tree.priors[player] @ np.where(tree.priors[player] > 0, v[0], 0.0))


def counterfactual_values(tree: PublicTree, policy: TreePolicy, player: int):
    """``player``'s counterfactual values when both play ``policy``.

    Returns ``(reach, q_call, v)``, all ``(N, R)``: ``reach`` is chance x opponent
    reach of every node (per opponent roll), ``q_call[m, r]`` the counterfactual value
    of the call at ``m`` and ``v[m, r]`` that of node ``m`` (per own roll ``r``).
    """
    reach, term = _opponent_terminal_weight(tree, policy, player)
    q_call = tree.call_values(term, player)
    e_me, n_me = _masks(tree, player)
    v = q_call * np.where(n_me, policy.call, 1.0)
    w = np.where(e_me, policy.edge, 1.0)
    for k in range(tree.B - 1, -1, -1):
        lo, hi = 1 << k, 1 << (k + 1)
        v[:lo] += v[lo:hi] * w[lo:hi]
    return reach, q_call, v


def expected_value(tree: PublicTree, policy: TreePolicy, player: int = 0) -> float:
    """Expected payoff of ``player`` when both play ``policy``."""
    return float(tree.priors[player] @ counterfactual_values(tree, policy, player)[2][0])


@dataclass
class Evaluation:
    """Exact evaluation of a policy profile."""

    value_first_player: float
    best_response: tuple  # (player 0's best-response value, player 1's)
    nash_conv: float
    exploitability: float

    def as_dict(self) -> dict:
        return {
            "value_first_player": self.value_first_player,
            "best_response_values": list(self.best_response),
            "nash_conv": self.nash_conv,
            "exploitability": self.exploitability,
        }


def tabulate(tree: PublicTree, policy) -> TreePolicy:
    """Ask ``policy`` once per information state and return it as a :class:`TreePolicy`.

    ``policy`` is an object with ``action_probabilities(state) -> {action: p}`` or a
    callable ``policy(state)`` returning the same; a learned agent qualifies.  It
    must use only the acting player's information (see :meth:`PublicTree.probe_state`).
    Missing actions have probability 0; each answer must sum to 1.
    """
    if isinstance(policy, TreePolicy) and policy.tree.game == tree.game:
        return policy
    ask: Callable = getattr(policy, "action_probabilities", policy)
    edge = np.zeros((tree.N, tree.R))
    call = np.zeros((tree.N, tree.R))
    call_action = tree.game.call_action
    for m in range(tree.N):
        for r in range(tree.R):
            probs = ask(tree.probe_state(m, r))
            total = 0.0
            for a, p in probs.items():
                p = float(p)
                if p < 0:
                    raise ValueError(f"negative probability {p} for action {a} at {tree.probe_state(m, r)!r}")
                if a == call_action:
                    if m == 0 and p > 0:
                        raise ValueError("policy calls before any bid")
                    call[m, r] = p
                else:
                    if not tree.highbit[m] < a < tree.B:
                        if p > 0:
                            raise ValueError(f"policy gives illegal action {a} probability {p}")
                        continue
                    edge[m | (1 << a), r] = p
                total += p
            if abs(total - 1.0) > 1e-6:
                raise ValueError(f"action probabilities sum to {total}, not 1, at {tree.probe_state(m, r)!r}")
    return TreePolicy(tree, edge, call)


def evaluate(tree: PublicTree, policy, opponent=None) -> Evaluation:
    """Exact value, best responses, NashConv and exploitability (NashConv / 2).

    ``policy`` plays both seats unless ``opponent`` is given (then ``policy`` is
    player 0 and ``opponent`` player 1; the value is player 0's, and the best
    responses are to each other's part).
    """
    if isinstance(tree, RoundTables):  # too large for the in-memory passes: the compiled walks
        if opponent is not None or not isinstance(policy, TreePolicy):
            raise ValueError(f"{tree.game!r} is too large for the in-memory evaluation: score an agent with "
                             f"dice_envs.agents.liars_dice.streamed.streamed_evaluate")
        value, br0, br1 = policy_values(tree.game, policy.edge, policy.call)
        return Evaluation(value, (br0, br1), br0 + br1, (br0 + br1) / 2)
    p0 = tabulate(tree, policy)
    p1 = p0 if opponent is None else tabulate(tree, opponent)
    profile = p0 if opponent is None else _combine(tree, p0, p1)
    value = expected_value(tree, profile, 0)
    br = (best_response_value(tree, profile, 0), best_response_value(tree, profile, 1))
    nash_conv = br[0] + br[1]  # zero-sum: the two values sum to 0
    return Evaluation(value, br, nash_conv, nash_conv / 2)


def tree_for(game: LiarsDiceGame):
    """The in-memory :class:`PublicTree` of ``game`` where it fits (:data:`MAX_PUBLIC_NODES`),
    else its :class:`~dice_envs.agents.liars_dice.compiled_solver.RoundTables`, on which a
    :class:`TreePolicy` still answers and :func:`evaluate` runs the compiled walks."""
    if state_count(game) <= MAX_PUBLIC_NODES:
        return PublicTree(game)
    return RoundTables(game)


def exploitability(tree: PublicTree, policy) -> float:
    """NashConv / 2 of ``policy`` (both seats), as in OpenSpiel."""
    return evaluate(tree, policy).exploitability


def _combine(tree: PublicTree, p0: TreePolicy, p1: TreePolicy) -> TreePolicy:
    e0, n0 = _masks(tree, 0)
    return TreePolicy(tree, np.where(e0, p0.edge, p1.edge), np.where(n0, p0.call, p1.call))


# ---------------------------------------------------------------------------------------
# CFR / CFR+


class CFRSolver:
    """CFR (``plus=False``) or CFR+ (``plus=True``) on the public tree.

    Both use alternating updates (as OpenSpiel's ``CFRSolver`` / ``CFRPlusSolver``).
    CFR+ uses regret matching+ and linearly weighted averaging (iteration ``t``
    has weight ``t``); CFR uses plain regret matching and uniform averaging.
    :meth:`average_policy` is the policy that converges to a Nash equilibrium.
    """

    def __init__(self, game_or_tree, plus: bool = True):
        if not isinstance(game_or_tree, PublicTree):
            game = game_or_tree
            check_resources(f"solving {game!r} with the in-memory CFR solver (2**{game.num_bids} public nodes x "
                            f"{state_count(game) // 2**game.num_bids} rolls)", BYTES_PER_NODE_ROLL * state_count(game))
        self.tree = tree = game_or_tree if isinstance(game_or_tree, PublicTree) else PublicTree(game_or_tree)
        self.plus = plus
        shape = (tree.N, tree.R)
        self.reg_edge = np.zeros(shape)
        self.reg_call = np.zeros(shape)
        self.avg_edge = np.zeros(shape)
        self.avg_call = np.zeros(shape)
        self.sig_edge = np.zeros(shape)
        self.sig_call = np.zeros(shape)
        self._buf = [np.zeros(shape) for _ in range(5)]
        self.iteration = 0

    @property
    def game(self) -> LiarsDiceGame:
        return self.tree.game

    @property
    def memory_bytes(self) -> int:
        """Peak memory of the iterations and checks (estimated: :data:`BYTES_PER_NODE_ROLL`)."""
        return BYTES_PER_NODE_ROLL * self.tree.N * self.tree.R

    def current_policy(self) -> TreePolicy:
        """The regret-matching policy of the current iteration (a copy)."""
        self._regret_matching()
        return TreePolicy(self.tree, self.sig_edge.copy(), self.sig_call.copy())

    def average_policy(self) -> TreePolicy:
        if self.iteration == 0:
            return self.tree.uniform()
        edge, call = _normalise(self.tree, self.avg_edge, self.avg_call)
        return TreePolicy(self.tree, edge, call)

    # All the work below is done in preallocated buffers: allocating and freeing
    # large temporaries every iteration costs more than the arithmetic.

    def _regret_matching(self) -> None:
        tree, E, C = self.tree, self.sig_edge, self.sig_call
        total, inv, uniform, tmp = self._buf[:4]
        np.maximum(self.reg_edge, 0, out=E)
        np.maximum(self.reg_call, 0, out=C)
        tree.children_sum(E, out=total)
        total += C
        np.sign(total, out=uniform)  # 1 where some regret is positive, else 0
        np.maximum(total, np.finfo(float).tiny, out=inv)
        np.divide(1.0, inv, out=inv)
        inv *= uniform
        np.subtract(1.0, uniform, out=uniform)
        uniform *= tree.inv_n
        C *= inv
        C += uniform
        C[0] = 0.0
        E *= tree.to_children(inv, out=tmp)
        E += tree.to_children(uniform, out=tmp)
        E[0] = 0.0

    def _update(self, player: int, weight: float) -> None:
        tree = self.tree
        self._regret_matching()
        E, C = self.sig_edge, self.sig_call
        w, term, q_call, v, own_edge = self._buf[:5]
        em, nm = tree.edge_mask[player], tree.node_mask[player]
        eo, no = tree.edge_mask[1 - player], tree.node_mask[1 - player]
        # Chance x opponent reach, and its weight at each call terminal.
        np.multiply(E, eo, out=w)
        w += em
        tree.top_down(tree.priors[1 - player], w, out=term)
        np.multiply(C, no, out=w)
        w += nm
        term *= w
        tree.call_values(term, player, out=q_call)
        # Counterfactual values of this player's information states, bottom-up.
        np.multiply(C, nm, out=w)
        w += no
        np.multiply(q_call, w, out=v)
        np.multiply(E, em, out=own_edge)
        own_edge += eo
        for k in range(tree.B - 1, -1, -1):
            lo, hi = 1 << k, 1 << (k + 1)
            np.multiply(v[lo:hi], own_edge[lo:hi], out=term[lo:hi])
            v[:lo] += term[lo:hi]
        # Instantaneous regrets at this player's information states.
        tree.to_children(v, out=w)
        np.subtract(v, w, out=w)
        w *= em
        self.reg_edge += w
        np.subtract(q_call, v, out=w)
        w *= nm
        w[0] = 0.0
        self.reg_call += w
        if self.plus:
            np.maximum(self.reg_edge, 0, out=self.reg_edge)
            np.maximum(self.reg_call, 0, out=self.reg_call)
        # Average strategy, weighted by own reach.
        reach = tree.top_down(weight, own_edge, out=term)
        np.multiply(reach, C, out=w)
        w *= nm
        self.avg_call += w
        reach *= em
        self.avg_edge += reach

    def iterate(self, n: int = 1) -> None:
        for _ in range(n):
            self.iteration += 1
            weight = float(self.iteration) if self.plus else 1.0
            for player in (0, 1):
                self._update(player, weight)

    def evaluate(self) -> Evaluation:
        return evaluate(self.tree, self.average_policy())


class CompiledCFRSolver(CompiledCFR):
    """:class:`CFRSolver`'s algorithm and interface by the compiled depth-first walks of
    :mod:`dice_envs.agents.liars_dice.compiled_solver`: 24 bytes per (public node, roll)
    instead of about 200, on every core, so two six-sided dice each (352 M information
    states) fit in 10.5 GiB.  Same arguments as
    :class:`~dice_envs.agents.liars_dice.compiled_solver.CompiledCFR`."""

    @classmethod
    def estimate_memory(cls, game: LiarsDiceGame, regret_dtype, average_dtype) -> int:
        """The compiled solve's arrays and, where it fits, the :class:`PublicTree` its average
        policy is built on at the end (:func:`tree_for`)."""
        states = state_count(game)
        tree = PUBLIC_TREE_BYTES_PER_STATE * states if states <= MAX_PUBLIC_NODES else 0
        return super().estimate_memory(game, regret_dtype, average_dtype) + tree

    @functools.cached_property
    def tree(self):
        """:func:`tree_for` the game: the policies' tree."""
        return tree_for(self.game)

    def evaluate(self) -> Evaluation:
        value, br0, br1 = self.average_values()
        return Evaluation(value, (br0, br1), br0 + br1, (br0 + br1) / 2)

    def average_policy(self) -> TreePolicy:
        edge, call = self.average_arrays()
        return TreePolicy(self.tree, edge, call)


#: ``engine="auto"`` runs the compiled solver from this many (public node, roll) pairs up
#: (one die against two has 5.5 M), the numpy one below.
COMPILED_FROM_STATES = 2**22

ENGINES = ("auto", "numpy", "compiled")


def _engine(game: LiarsDiceGame, engine: str) -> str:
    check_choice("engine", engine, ENGINES)
    if engine == "auto":
        return "compiled" if state_count(game) >= COMPILED_FROM_STATES else "numpy"
    return engine


def make_solver(game: LiarsDiceGame, algorithm: str = "cfr+", engine: str = "auto", threads: Optional[int] = None):
    """A :class:`CFRSolver` or a :class:`CompiledCFRSolver` for ``game`` (``engine``: ``"auto"``
    picks the compiled one from :data:`COMPILED_FROM_STATES` up)."""
    plus = algorithm == "cfr+"
    engine = _engine(game, engine)
    if engine == "compiled":
        return CompiledCFRSolver(game, plus=plus, threads=threads)
    return CFRSolver(game, plus=plus)


def memory_bytes(game: LiarsDiceGame, engine: str = "auto") -> int:
    """The peak memory of :func:`solve` on ``game`` with ``engine`` in bytes: the estimate its
    solver checks before allocating anything (a Python integer)."""
    if game.num_players != 2:
        raise ValueError(f"the public-tree solver needs num_players=2, got {game.num_players}")
    if _engine(game, engine) == "compiled":
        return CompiledCFRSolver.estimate_memory(game, np.dtype(np.float64), np.dtype(np.float32))
    return BYTES_PER_NODE_ROLL * state_count(game)


def check_solve(game: LiarsDiceGame, target_exploitability: float = 1e-4, algorithm: str = "cfr+",
                max_iterations: int = 100_000, cache_dir: Optional[str] = None, engine: str = "auto",
                what: Optional[str] = None) -> None:
    """Refuse, before anything runs, a :func:`solve` whose memory (:func:`memory_bytes`) is over the
    limit, unless ``cache_dir`` holds its result: what a caller that solves several games
    checks of each before it solves the first.  ``what`` names the request in the refusal."""
    if cache_dir is not None and os.path.exists(_cache_path(game, target_exploitability, algorithm, max_iterations,
                                                            cache_dir)):
        return
    check_resources(what or f"solving {game!r}", memory_bytes(game, engine))


@dataclass
class SolveResult:
    """What :func:`solve` returns."""

    game: LiarsDiceGame
    algorithm: str
    policy: TreePolicy
    value_first_player: float
    exploitability: float
    iterations: int
    seconds: float
    history: List[tuple] = field(default_factory=list)  # (iteration, exploitability, seconds)
    cached: bool = False
    #: the run-time predictions made on the way: (iteration, predicted iterations, predicted seconds: CPU
    #: seconds over the solver's threads)
    predictions: List[tuple] = field(default_factory=list)
    cpu_seconds: Optional[float] = None
    #: the two best-response values to :attr:`policy` (player 0's, player 1's), which bound the game's value
    best_response: Tuple[float, float] = (float("nan"), float("nan"))

    @property
    def value_interval(self) -> Tuple[float, float]:
        """Player 0's certified interval for the game's value, from the two best responses
        (:func:`dice_envs.agents.solve.interval.value_interval`): the exact value lies in it, whatever
        the solve's quality; :attr:`value_first_player` is the solved strategy's own value."""
        return value_interval(self.best_response)

    def as_dict(self) -> dict:
        return {
            "game": "liars_dice",
            **self.game.config(),
            "algorithm": self.algorithm,
            "value_first_player": self.value_first_player,
            "value_interval": list(self.value_interval),
            "best_response_values": list(self.best_response),
            "exploitability": self.exploitability,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "public_nodes": self.policy.tree.N,
            "rolls_per_player": self.policy.tree.R,
            "cached": self.cached,
        }


def _check_schedule(iterations: int) -> int:
    return 1 if iterations < 10 else 5 if iterations < 100 else 20 if iterations < 1000 else 100


def solve(
    game: LiarsDiceGame,
    target_exploitability: float = 1e-4,
    algorithm: str = "cfr+",
    max_iterations: int = 100_000,
    max_seconds: Optional[float] = None,
    check_every: Optional[int] = None,
    cache_dir: Optional[str] = None,
    progress: Optional[Callable[[int, float], None]] = None,
    engine: str = "auto",
    threads: Optional[int] = None,
) -> SolveResult:
    """Run CFR+ (or ``algorithm="cfr"``) until the average policy's exploitability
    is at most ``target_exploitability`` (checked exactly every few iterations).

    Args:
        game: a two-player :class:`~dice_envs.games.liars_dice.rules.LiarsDiceGame`.
        target_exploitability: stop at or below this NashConv / 2 (> 0).
        algorithm: ``"cfr+"`` or ``"cfr"``.
        max_iterations, max_seconds: stop anyway when reached.
        check_every: iterations between exact exploitability checks (default: 1,
            5, 20 or 100 as the run grows).
        cache_dir: if given, reuse/store the result there (see :func:`load_cached`); a
            configuration shipped with the package (:data:`SHIPPED_DIR`) is read from there.
        progress: called as ``progress(iteration, exploitability)`` at every check.
        engine: ``"numpy"`` (:class:`CFRSolver`), ``"compiled"`` (:class:`CompiledCFRSolver`) or
            ``"auto"`` (:func:`make_solver`); the cache does not depend on it.
        threads: the compiled solver's threads (default: every core this process may use).

    Raises:
        ValueError: for a bad argument or a game that is too large.
    """
    check_choice("algorithm", algorithm, ("cfr+", "cfr"))
    target_exploitability = check_real("target_exploitability", target_exploitability, 0, low_open=True)
    max_iterations = check_int("max_iterations", max_iterations, 1)
    if max_seconds is not None:
        max_seconds = check_real("max_seconds", max_seconds, 0, low_open=True)
    if cache_dir is not None:
        cached = load_cached_or_shipped(game, target_exploitability, algorithm, cache_dir, max_iterations)
        if cached is not None:
            return cached
    t0, cpu0 = time.perf_counter(), time.process_time()
    solver = make_solver(game, algorithm, engine, threads)
    history: List[tuple] = []
    predictions: List[tuple] = []
    expl = float("inf")
    # CPU seconds in the iterations and in the checks after the first (the warm-up)
    cost = {"iteration": 0.0, "check": 0.0, "checks": 0, "warmup": 0.0, "warmup_iterations": 0}
    while True:
        step = check_every or _check_schedule(solver.iteration)
        c0 = time.process_time()
        solver.iterate(min(step, max_iterations - solver.iteration))
        c1 = time.process_time()
        result = solver.evaluate()
        if not cost["checks"]:  # the first step and check also load (or compile) the code: not counted in the rates
            cost["warmup"] = (c1 - c0) + (time.process_time() - c1)
            cost["warmup_iterations"] = solver.iteration
        else:
            cost["iteration"] += c1 - c0
            cost["check"] += time.process_time() - c1
        cost["checks"] += 1
        expl = result.exploitability
        history.append((solver.iteration, expl, time.perf_counter() - t0))
        if progress is not None:
            progress(solver.iteration, expl)
        if expl <= target_exploitability or solver.iteration >= max_iterations:
            break
        if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
            break
        if solver.iteration >= ESTIMATE_AFTER and solver.iteration >= 2 * (predictions[-1][0] if predictions else 0):
            predictions.append(_check_run_time(solver, history, target_exploitability, algorithm, max_iterations,
                                               max_seconds, cost, check_every, first=not predictions))
    out = SolveResult(game, algorithm, solver.average_policy(), result.value_first_player, expl,
                      solver.iteration, time.perf_counter() - t0, history, predictions=predictions,
                      cpu_seconds=time.process_time() - cpu0, best_response=tuple(result.best_response))
    # A run stopped by the iteration cap is cached too (it would stop there again); one
    # stopped by the clock is not (it might get further next time).
    if cache_dir is not None and (expl <= target_exploitability or solver.iteration >= max_iterations):
        store_cached(out, target_exploitability, cache_dir, max_iterations)
    return out


#: Iterations measured before the run's time is first estimated (:func:`_check_run_time`);
#: it is estimated again each time the iterations double.
ESTIMATE_AFTER = 80


def predict_iterations(history, target: float, algorithm: str) -> float:
    """Iterations a solve needs to reach ``target``, from its own trajectory ``history``
    (``[(iteration, exploitability, ...), ...]``): the rate ``exploitability ~ T^-k`` fitted
    (least squares, log-log) to the checks of the last two doublings of the iterations, and
    extrapolated from the fitted line at ``T``.  ``k`` is at least CFR+'s ``1`` (plain CFR's
    ``1/2``), the rates the theory and practice guarantee; measured rates are steeper (about
    1.9 for CFR+ on Liar's Dice).  The fit, not the last point, carries the extrapolation:
    CFR+'s exploitability does not fall monotonically."""
    T, expl = history[-1][0], history[-1][1]
    if expl <= target:
        return float(T)
    floor = 1.0 if algorithm == "cfr+" else 0.5
    recent = [(t, e) for t, e, *_ in history if t >= T / 4 and e > 0]
    if len(recent) < 3:
        return T * (expl / target) ** (1.0 / floor)
    x, y = np.log([t for t, _ in recent]), np.log([e for _, e in recent])
    slope, intercept = np.polyfit(x, y, 1)
    k = max(floor, -slope)
    at_T = float(np.exp(intercept + slope * np.log(T))) if -slope >= floor else expl
    return T * (max(at_T, target) / target) ** (1.0 / k)


def _check_run_time(solver, history, target: float, algorithm: str, max_iterations: int,
                    max_seconds: Optional[float], cost: dict, check_every: Optional[int], first: bool) -> tuple:
    """Announce a long solve (``first`` check only) or refuse one over the time limit: the
    iterations still needed are :func:`predict_iterations` (capped by ``max_iterations``),
    and their time the CPU seconds per iteration and per exact check measured so far (after
    the first, which also loads the code), with the checks the schedule will make, shared
    among the solver's threads (CPU time: a loaded machine does not change the estimate; over
    the threads: the wall time on an idle machine).  Returns ``(iteration, predicted
    iterations, predicted seconds)``."""
    T = solver.iteration
    needed = min(float(max_iterations), predict_iterations(history, target, algorithm))
    checks, t = 0, T
    while t < needed:
        t += check_every or _check_schedule(t)
        checks += 1
    per_iteration = cost["iteration"] / max(T - cost["warmup_iterations"], 1)
    per_check = cost["check"] / max(cost["checks"] - 1, 1)
    seconds = (cost["warmup"] + cost["iteration"] + cost["check"] + (needed - T) * per_iteration
               + checks * per_check) / getattr(solver, "threads", 1)
    if max_seconds is not None:
        seconds = min(seconds, max_seconds)
    limit = seconds_limit()
    if first or (limit is not None and seconds > limit):
        check_resources(f"solving {solver.game!r} to an exploitability of {target:g} with {algorithm} (about "
                        f"{needed:,.0f} iterations, predicted at iteration {T} from the convergence so far)",
                        solver.memory_bytes, seconds, clock="cpu per thread")
    return (T, needed, seconds)


# ---------------------------------------------------------------------------------------
# on-disk cache


def _cache_key(game: LiarsDiceGame, target: float, algorithm: str, max_iterations: int) -> dict:
    return {"solver_version": SOLVER_VERSION, "game": game.config(), "target": float(target), "algorithm": algorithm,
            "max_iterations": int(max_iterations)}


def _cache_path(game, target, algorithm, max_iterations, cache_dir) -> str:
    return solver_cache.cache_path("liars_dice", _cache_key(game, target, algorithm, max_iterations), cache_dir)


def store_cached(result: SolveResult, target: float, cache_dir: str, max_iterations: int = 100_000) -> Optional[str]:
    """Write the average policy and its figures atomically; None (with one warning) if the
    cache location cannot be written (:mod:`dice_envs.agents.solve.cache`)."""
    path = _cache_path(result.game, target, result.algorithm, max_iterations, cache_dir)
    meta = {**_cache_key(result.game, target, result.algorithm, max_iterations), "iterations": result.iterations,
            "seconds": result.seconds, "value_first_player": result.value_first_player,
            "exploitability": result.exploitability, "history": result.history}
    return solver_cache.store(path, {"edge": result.policy.edge, "call": result.policy.call}, meta)


def policy_problem(tree, edge: np.ndarray, call: np.ndarray) -> Optional[str]:
    """What keeps ``edge`` and ``call`` from being a :class:`TreePolicy` on ``tree`` (a
    :class:`PublicTree` or a :class:`~dice_envs.agents.liars_dice.compiled_solver.RoundTables`),
    or None: every probability must be finite and in ``[0, 1]``, no call at the root, and at
    every public node, for every roll of the player to act there, the bids and the call must
    sum to 1 (within rounding: 1e-9 for float64 tables, 1e-5 for float32 ones).  Checked a
    roll column at a time, so it needs memory for one column only."""
    tolerance = 1e-9 if edge.dtype == np.float64 and call.dtype == np.float64 else 1e-5
    rolls = np.array([len(r) for r in tree.player_rolls])[np.asarray(tree.player)]  # rolls of the player to act
    if np.any(call[0] != 0):
        return "it calls at the root, where there is no bid to call"
    for r in range(tree.R):
        e, c = edge[:, r].astype(np.float64), call[:, r].astype(np.float64)
        for name, x in (("bid", e), ("call", c)):
            if not np.isfinite(x).all():
                return f"non-finite {name} probabilities (roll column {r})"
            if x.min() < 0 or x.max() > 1:
                return f"{name} probabilities outside [0, 1] (roll column {r})"
        total = c.copy()
        for k in range(tree.B):  # add each node's bids, a level of children at a time
            lo, hi = 1 << k, 1 << (k + 1)
            total[:lo] += e[lo:hi]
        bad = (rolls > r) & (np.abs(total - 1.0) > tolerance)
        if bad.any():
            m = int(np.flatnonzero(bad)[0])
            return f"at public node {m}, roll column {r}, the probabilities sum to {total[m]:.12g}, not 1"
    return None


def load_cached(game: LiarsDiceGame, target: float, algorithm: str, cache_dir: str,
                max_iterations: int = 100_000) -> Optional[SolveResult]:
    """The cached result, or ``None`` if missing, stale or damaged.

    The cache is trusted only if its metadata matches this game, target, algorithm,
    iteration cap and solver version, the arrays have the right shape and are a policy
    (:func:`policy_problem`), and the stored policy's exploitability, recomputed exactly now,
    agrees with the stored value and meets the target (or the solve ran all its iterations).
    Anything else is treated as absent (and overwritten by the next solve); a file of the right
    key and shapes that is no policy, or whose figures are not its own, is named in a
    ``RuntimeWarning``.
    """
    path = _cache_path(game, target, algorithm, max_iterations, cache_dir)
    found = solver_cache.load(path)
    if found is None:
        return None
    arrays, meta = found
    key = _cache_key(game, target, algorithm, max_iterations)
    try:
        if {k: meta.get(k) for k in key} != key:
            return None
        edge, call = arrays["edge"], arrays["call"]
        tree = tree_for(game)
        if edge.shape != (tree.N, tree.R) or call.shape != (tree.N, tree.R):
            return None
        problem = policy_problem(tree, edge, call)
        if problem is not None:
            _ignored(path, f"it is not a policy: {problem}")
            return None
        policy = TreePolicy(tree, edge, call)
        ev = evaluate(tree, policy)
        # float32 probabilities (the compiled solver's) move the figures by rounding only
        tolerance = 1e-9 if edge.dtype == np.float64 else 1e-6
        if not (abs(ev.exploitability - meta["exploitability"]) < tolerance
                and abs(ev.value_first_player - meta["value_first_player"]) < tolerance):
            _ignored(path, f"its recorded exploitability {meta['exploitability']!r} and value "
                           f"{meta['value_first_player']!r} are not its policy's ({ev.exploitability:.6g}, "
                           f"{ev.value_first_player:.6g})")
            return None
        if not (ev.exploitability <= target + tolerance or int(meta["iterations"]) >= max_iterations):
            return None  # stopped early (killed): solved again
        return SolveResult(game, algorithm, policy, ev.value_first_player, ev.exploitability, int(meta["iterations"]),
                           float(meta["seconds"]), [tuple(h) for h in meta["history"]], cached=True,
                           best_response=tuple(ev.best_response))
    except (KeyError, TypeError, ValueError):  # wrong types or values in a well-formed file
        return None


def load_cached_or_shipped(game: LiarsDiceGame, target: float, algorithm: str, cache_dir: str,
                           max_iterations: int = 100_000) -> Optional[SolveResult]:
    """:func:`load_cached` from ``cache_dir``, else from the equilibria shipped with the package
    (:data:`SHIPPED_DIR`), else ``None``."""
    return (load_cached(game, target, algorithm, cache_dir, max_iterations)
            or load_cached(game, target, algorithm, SHIPPED_DIR, max_iterations))


def _ignored(path: str, why: str) -> None:
    """Name in a warning a cache file that is not what it claims (it is read as absent)."""
    warnings.warn(f"the solver cache file {path} is ignored and solved again: {why}", RuntimeWarning, stacklevel=3)


def convergence_curve(game: LiarsDiceGame, algorithm: str = "cfr+", iterations: int = 1000,
                      num_points: int = 40) -> List[tuple]:
    """``[(iteration, exploitability, seconds), ...]`` at about ``num_points``
    log-spaced iterations up to ``iterations`` (the exploitability of the average
    policy, computed exactly; the seconds exclude the evaluations)."""
    if algorithm not in ("cfr+", "cfr"):
        raise ValueError(f"algorithm must be 'cfr+' or 'cfr', got {algorithm!r}")
    solver = CFRSolver(game, plus=(algorithm == "cfr+"))
    marks = sorted(set(np.unique(np.geomspace(1, iterations, num_points).round().astype(int)).tolist()))
    out, spent = [], 0.0
    for mark in marks:
        t0 = time.perf_counter()
        solver.iterate(mark - solver.iteration)
        spent += time.perf_counter() - t0
        out.append((mark, solver.evaluate().exploitability, spent))
    return out
