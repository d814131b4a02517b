"""CFR+ for two-player Liar's Dice too large for the numpy solver: depth-first walks of the
public tree compiled with numba, on every core, over arrays laid out in the walk's order.

:class:`~dice_envs.agents.liars_dice.solver.CFRSolver` updates whole ``(2 ** B, R)`` arrays
at a time and keeps about 25 float64 arrays of that shape alive: 200 bytes per (public
node, roll).  With two six-sided dice each (``B = 24`` bids, ``R = 21`` rolls, 352 M
information states) that is 70 GB.  :class:`CompiledCFR` runs the same algorithm
(alternating updates, regret matching+, linear averaging: the same iterates, to rounding)
by walking the public tree depth first, holding the regrets and the average-strategy sums
(float64 and float32 by default: 24 bytes per (public node, roll), 7.9 GiB at 2v2; the
average policy at the end adds 2.6 GiB) and one path of the tree per thread.

The block layout
----------------
A public node is the bitmask of the bids made (the numpy solver's tree); its actions are
the higher bids and, past the root, the call.  Each node owns a *block* of rows, one per
action (bids first, the call last) and one column per roll of the player to act, and the
blocks are stored in the walk's own order: a node, then the subtrees of its bids from the
lowest.  A walk therefore reads and writes each node's actions in one contiguous block and
moves through memory almost sequentially.  The subtree of a node whose last bid is ``h``
holds the same number of rows wherever it hangs, so the offset of a child is the parent's
plus a table lookup (:func:`block_rows`).  :func:`to_tree_layout` and
:func:`from_tree_layout` convert to and from :class:`~dice_envs.agents.liars_dice.solver.TreePolicy`'s
layout (a bid's probability stored at the node it leads to, a call's at its node).

The call's value for every own roll comes from the opponent's reach summed by how many of
its dice count for the bid (at most ``dice + 1`` classes): ``O(R)`` per node, not
``O(R ** 2)``.

Two exact savings: a subtree that neither player reaches (both reach vectors zero, which
regret matching+ makes common) is skipped in the CFR walk, because every update in it
would add zero; and in the evaluation walk a subtree the opponent never reaches is worth
zero to the best response.

This module holds the compiled walks; :class:`~dice_envs.agents.liars_dice.solver.CompiledCFRSolver`
and :func:`~dice_envs.agents.liars_dice.solver.solve` (``engine="compiled"``) are how to use them::

    solver = CompiledCFRSolver(LiarsDiceGame(dice_per_player=2, wild="aces"))
    solver.iterate(100)
    solver.evaluate()            # Evaluation: value, best responses, exploitability
"""

from __future__ import annotations

import functools
import os
import queue
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional, Tuple

import numpy as np

try:
    import numba
except ImportError:  # the [numba] extra; _jit names it
    numba = None  # type: ignore[assignment]

from dice_envs.core.extras import DependencyNotInstalled
from dice_envs.core.resources import check_resources
from dice_envs.core.validation import check_int
from dice_envs.games.liars_dice.rules import LiarsDiceGame

__all__ = ["CompiledCFR", "RoundTables", "block_rows", "from_tree_layout", "memory_bytes", "policy_values",
           "state_count", "to_tree_layout"]


def _jit(fn):
    return numba.njit(cache=True, nogil=True)(fn)


def _require_numba() -> None:
    """Without numba the walks would run as plain Python, hours for a tree of this size: refuse instead."""
    if numba is None:
        raise DependencyNotInstalled("the compiled Liar's Dice solver (two dice each) needs numba: "
                                     "pip install 'dice-envs[numba]'")


def block_rows(B: int) -> Tuple[int, np.ndarray]:
    """The block layout of a public tree of ``B`` bids: ``(rows, skip)``.

    ``rows`` is the number of rows of all blocks (``B`` at the root, ``B - h`` at a node whose
    last bid is ``h``).  The child by bid ``k`` of a node at offset ``off`` whose last bid is
    ``h`` (``-1`` at the root) starts at ``off + (its own rows) + skip[h + 1, k]``:
    ``skip[h0, k]`` is the rows of the subtrees by the bids ``h0 .. k - 1`` before it.
    """
    subtree = np.zeros(B + 1, np.int64)  # subtree[h]: rows under (and of) a node whose last bid is h
    for h in range(B - 1, -1, -1):
        subtree[h] = (B - h) + subtree[h + 1:B].sum()
    skip = np.zeros((B + 1, B + 1), np.int64)
    for h0 in range(B + 1):
        for k in range(h0 + 1, B + 1):
            skip[h0, k] = skip[h0, k - 1] + subtree[k - 1]
    return int(B + subtree[:B].sum()), skip


class RoundTables:
    """The small facts about a two-player round game that the compiled walks need, and what a
    :class:`~dice_envs.agents.liars_dice.solver.TreePolicy` asks of its tree (so that a policy
    on a public tree too large for :class:`~dice_envs.agents.liars_dice.solver.PublicTree`
    still answers for any state).

    Attributes:
        game: the :class:`~dice_envs.games.liars_dice.rules.LiarsDiceGame`.
        B, N, R: bids, public nodes (``2 ** B``), most rolls of one player.
        first: the player who bids first.
        num_rolls: ``(2,)`` rolls of each player.
        player_rolls, player_roll_index: each player's rolls (sorted face tuples) and their columns.
        priors: ``(2, R)`` probability of each roll (0 past a player's rolls).
        counting: ``(2, B, R)`` dice of each roll that count for each bid's face (wild rule applied).
        quantity: ``(B,)`` the quantity of each bid.
        dice: ``(2,)`` dice of each player.
        highbit, player: ``(N,)`` last bid (-1 at the root) and player to act at each node
            (computed when first asked for).
        rows, skip: the block layout (:func:`block_rows`).
    """

    def __init__(self, game: LiarsDiceGame):
        if game.num_players != 2:
            raise ValueError(f"the compiled solver needs num_players=2, got {game.num_players}")
        self.game = game
        self.B = B = game.num_bids
        self.N = 2**B
        dists = [game.roll_distribution(p) for p in (0, 1)]
        self.R = R = max(len(d) for d in dists)
        self.first = int(game.starting_player)
        self.num_rolls = np.array([len(d) for d in dists], np.int64)
        self.player_rolls = [[roll for roll, _ in dist] for dist in dists]
        self.player_roll_index = [{roll: i for i, roll in enumerate(rolls)} for rolls in self.player_rolls]
        self.dice = np.array(game.dice, np.int64)
        self.priors = np.zeros((2, R))
        self.counting = np.zeros((2, B, R), np.int64)
        self.quantity = np.array([game.bid(b)[0] for b in range(B)], np.int64)
        for p, dist in enumerate(dists):
            counts = np.zeros((game.faces, len(dist)), np.int64)
            for i, (roll, q) in enumerate(dist):
                self.priors[p, i] = float(q)
                for f in roll:
                    counts[f - 1, i] += 1
            for b in range(B):
                self.counting[p, b, : len(dist)] = game.matches(counts, game.bid(b)[1])
        self.rows, self.skip = block_rows(B)

    def top_offset(self, k: int) -> int:
        """The block of the node one bid deep, by bid ``k``."""
        return self.B + int(self.skip[0, k])

    def second_offset(self, k: int, k2: int) -> int:
        """The block of the node of bids ``k < k2``."""
        return self.top_offset(k) + (self.B - k) + int(self.skip[k + 1, k2])

    @functools.cached_property
    def highbit(self) -> np.ndarray:
        out = np.full(self.N, -1, np.int8)
        for k in range(self.B):
            out[1 << k: 1 << (k + 1)] = k
        return out

    @functools.cached_property
    def player(self) -> np.ndarray:
        parity = np.zeros(1, np.int8)
        for _ in range(self.B):  # the nodes 2**k .. 2**(k+1)-1 add bid k to the nodes below 2**k
            parity = np.concatenate([parity, parity ^ 1])
        return parity ^ np.int8(self.first)

    def node(self, bids) -> int:
        """The public node of a sequence of bids."""
        m = 0
        for b in bids:
            m |= 1 << b
        return m




def _strategy(arr, off, n_total, n_act, sig, d, total):
    """Regret matching on the block at ``off`` (``n_total`` actions, ``n_act`` rolls) into
    ``sig[d]`` (``sig[d, j, r]``: action ``j``, roll ``r``): the positive parts, normalised,
    uniform where nothing is positive.  On the average sums it gives the average strategy."""
    for r in range(n_act):
        total[r] = 0.0
    for j in range(n_total):
        for r in range(n_act):
            x = np.float64(arr[off + j, r])
            if x < 0.0:
                x = 0.0
            sig[d, j, r] = x
            total[r] += x
    uniform = 1.0 / n_total
    for r in range(n_act):
        if total[r] > 0.0:
            inv = 1.0 / total[r]
            for j in range(n_total):
                sig[d, j, r] *= inv
        else:
            for j in range(n_total):
                sig[d, j, r] = uniform


def _call_values(hb, a, p, d, n_bids, num_rolls, counting, quantity, dice, pi_o, sig, hist, kidv):
    """``kidv[d, n_bids, r]``: ``p``'s counterfactual value of the call of bid ``hb`` at depth
    ``d`` for each own roll ``r`` (the opponent's call probability ``sig[d, n_bids]`` included
    when the opponent is the caller ``a``)."""
    o = 1 - p
    d_o = dice[o]
    for c in range(d_o + 2):
        hist[c] = 0.0
    for r in range(num_rolls[o]):
        w = pi_o[d, r]
        if a == o:
            w *= sig[d, n_bids, r]
        hist[counting[o, hb, r]] += w
    for c in range(d_o - 1, -1, -1):  # hist[c]: weight of opponent rolls with at least c counting dice
        hist[c] += hist[c + 1]
    total = hist[0]
    sign = -1.0 if a == p else 1.0  # a true bid wins for its bidder
    for r in range(num_rolls[p]):
        need = quantity[hb] - counting[p, hb, r]
        if need <= 0:
            held = total
        elif need > d_o:
            held = 0.0
        else:
            held = hist[need]
        kidv[d, n_bids, r] = sign * (2.0 * held - total)


def _reach_child(a, p, d, j, n_p, n_o, pi_p, pi_o, sig):
    """The reaches into the child by action ``j`` (``pi_p[d + 1]``, ``pi_o[d + 1]``); whether
    either player reaches it at all."""
    reached = False
    own = a == p
    for r in range(n_p):
        x = pi_p[d, r] * sig[d, j, r] if own else pi_p[d, r]
        pi_p[d + 1, r] = x
        reached = reached or x != 0.0
    for r in range(n_o):
        x = pi_o[d, r] if own else pi_o[d, r] * sig[d, j, r]
        pi_o[d + 1, r] = x
        reached = reached or x != 0.0
    return reached


def _walk_cfr(hb, d, off, a, p, B, skip, num_rolls, counting, quantity, dice, reg, avg, weight, plus,
              pi_p, pi_o, val, sig, kidv, hist, total):
    """One CFR(+) update of player ``p`` in the subtree of the node at depth ``d > 0`` whose
    last bid is ``hb``, block ``off``, player ``a`` to act: ``pi_p[d]``, ``pi_o[d]`` are the
    reaches into it (own, and chance x opponent); leaves ``p``'s counterfactual values in
    ``val[d]``."""
    n_p, n_o = num_rolls[p], num_rolls[1 - p]
    n_bids = B - 1 - hb
    _strategy(reg, off, n_bids + 1, num_rolls[a], sig, d, total)
    base = off + n_bids + 1
    for j in range(n_bids):
        k = hb + 1 + j
        if _reach_child(a, p, d, j, n_p, n_o, pi_p, pi_o, sig):
            _walk_cfr(k, d + 1, base + skip[hb + 1, k], 1 - a, p, B, skip, num_rolls, counting, quantity, dice, reg,
                      avg, weight, plus, pi_p, pi_o, val, sig, kidv, hist, total)
            for r in range(n_p):
                kidv[d, j, r] = val[d + 1, r]
        else:  # nobody reaches it: every update there adds zero
            for r in range(n_p):
                kidv[d, j, r] = 0.0
    _finish_cfr(hb, d, off, a, p, B, num_rolls, counting, quantity, dice, reg, avg, weight, plus, pi_p, pi_o, val,
                sig, kidv, hist)


def _finish_cfr(hb, d, off, a, p, B, num_rolls, counting, quantity, dice, reg, avg, weight, plus, pi_p, pi_o, val,
                sig, kidv, hist):
    """A node's part of the update once its bids' values are in ``kidv[d]``: the call's value
    (past the root, ``d > 0``), the node's value ``val[d]`` and, where ``p`` acts, its
    regrets and average sums."""
    n_p = num_rolls[p]
    n_bids = B - 1 - hb
    if d > 0:
        _call_values(hb, a, p, d, n_bids, num_rolls, counting, quantity, dice, pi_o, sig, hist, kidv)
    n_total = n_bids + (1 if d > 0 else 0)
    for r in range(n_p):
        val[d, r] = 0.0
    for j in range(n_total):
        for r in range(n_p):
            val[d, r] += sig[d, j, r] * kidv[d, j, r] if a == p else kidv[d, j, r]
    if a == p:
        for j in range(n_total):
            for r in range(n_p):
                x = reg[off + j, r] + (kidv[d, j, r] - val[d, r])
                if plus and x < 0.0:
                    x = 0.0
                reg[off + j, r] = x
                avg[off + j, r] += weight * pi_p[d, r] * sig[d, j, r]


def _walk_eval(hb, d, off, a, p, B, skip, num_rolls, counting, quantity, dice, policy, pi_p, pi_o, vbr, vpol, sig,
               kidv, kidv2, hist, total):
    """``p``'s best-response values (``vbr[d]``) and values when it plays ``policy`` too
    (``vpol[d]``) in the subtree of the node at depth ``d > 0`` (as :func:`_walk_cfr`), against
    the opponent's ``policy`` (probabilities or strategy sums, block layout).  ``pi_p`` is
    scratch (the best response does not need its own reach)."""
    n_p, n_o = num_rolls[p], num_rolls[1 - p]
    n_bids = B - 1 - hb
    _strategy(policy, off, n_bids + 1, num_rolls[a], sig, d, total)
    for r in range(n_p):
        pi_p[d, r] = 0.0
    base = off + n_bids + 1
    for j in range(n_bids):
        k = hb + 1 + j
        if _reach_child(a, p, d, j, n_p, n_o, pi_p, pi_o, sig):
            _walk_eval(k, d + 1, base + skip[hb + 1, k], 1 - a, p, B, skip, num_rolls, counting, quantity, dice, policy,
                       pi_p, pi_o, vbr, vpol, sig, kidv, kidv2, hist, total)
            for r in range(n_p):
                kidv[d, j, r] = vbr[d + 1, r]
                kidv2[d, j, r] = vpol[d + 1, r]
        else:  # the opponent never gets here: worth nothing to either
            for r in range(n_p):
                kidv[d, j, r] = 0.0
                kidv2[d, j, r] = 0.0
    _finish_eval(hb, d, a, p, B, num_rolls, counting, quantity, dice, pi_o, vbr, vpol, sig, kidv, kidv2, hist)


def _finish_eval(hb, d, a, p, B, num_rolls, counting, quantity, dice, pi_o, vbr, vpol, sig, kidv, kidv2, hist):
    """A node's values once its bids' are in ``kidv[d]`` (best response) and ``kidv2[d]``
    (policy): the best response takes the best action at its own nodes, the policy value
    weights by the strategy, and the opponent's nodes add up."""
    n_p = num_rolls[p]
    n_bids = B - 1 - hb
    if d > 0:
        _call_values(hb, a, p, d, n_bids, num_rolls, counting, quantity, dice, pi_o, sig, hist, kidv)
        for r in range(n_p):
            kidv2[d, n_bids, r] = kidv[d, n_bids, r]
    n_total = n_bids + (1 if d > 0 else 0)
    for r in range(n_p):
        vbr[d, r] = -np.inf if a == p else 0.0
        vpol[d, r] = 0.0
    for j in range(n_total):
        for r in range(n_p):
            if a == p:
                if kidv[d, j, r] > vbr[d, r]:
                    vbr[d, r] = kidv[d, j, r]
                vpol[d, r] += sig[d, j, r] * kidv2[d, j, r]
            else:
                vbr[d, r] += kidv[d, j, r]
                vpol[d, r] += kidv2[d, j, r]


def _copy_layout(m, hb, off, B, skip, block, edge, call, normalise, to_tree):
    """Copy the subtree of node ``m`` (block ``off``) between the block layout and the tree
    layout (``edge`` by child node, ``call`` by node): ``to_tree`` or back.  With
    ``normalise`` (to the tree layout only) each roll's row of sums becomes probabilities,
    uniform where they are all 0, as the numpy solver's average policy."""
    n_bids = B - 1 - hb
    n_total = n_bids + (1 if m else 0)
    R = block.shape[1]
    for r in range(R):
        scale = 1.0
        if to_tree and normalise:
            total = 0.0
            for j in range(n_total):
                total += block[off + j, r]
            scale = 1.0 / total if total > 0.0 else -1.0
        for j in range(n_total):
            row = off + j
            if to_tree:
                x = block[row, r] * scale if scale > 0.0 else 1.0 / n_total
                if j < n_bids:
                    edge[m | (1 << (hb + 1 + j)), r] = x
                else:
                    call[m, r] = x
            else:
                block[row, r] = edge[m | (1 << (hb + 1 + j)), r] if j < n_bids else call[m, r]
    base = off + n_total
    for j in range(n_bids):
        k = hb + 1 + j
        _copy_layout(m | (1 << k), k, base + skip[hb + 1, k], B, skip, block, edge, call, normalise, to_tree)


if numba is not None:
    _strategy = _jit(_strategy)
    _call_values = _jit(_call_values)
    _reach_child = _jit(_reach_child)
    _finish_cfr = _jit(_finish_cfr)
    _finish_eval = _jit(_finish_eval)
    _walk_cfr = _jit(_walk_cfr)
    _walk_eval = _jit(_walk_eval)
    _copy_layout = _jit(_copy_layout)


def to_tree_layout(tables: "RoundTables", block: np.ndarray, normalise: bool = False):
    """``(edge, call)`` in :class:`~dice_envs.agents.liars_dice.solver.TreePolicy`'s layout from
    a block-layout array (``normalise``: strategy sums to probabilities)."""
    edge, call = np.zeros((tables.N, tables.R), block.dtype), np.zeros((tables.N, tables.R), block.dtype)
    _copy_layout(0, -1, 0, tables.B, tables.skip, block, edge, call, normalise, True)
    return edge, call


def from_tree_layout(tables: "RoundTables", edge: np.ndarray, call: np.ndarray) -> np.ndarray:
    """The block-layout array of a tree-layout ``(edge, call)`` pair (same dtype)."""
    block = np.zeros((tables.rows, tables.R), edge.dtype)
    _copy_layout(0, -1, 0, tables.B, tables.skip, block, np.ascontiguousarray(edge), np.ascontiguousarray(call),
                 False, False)
    return block


class _Buffers:
    """One thread's scratch for a walk: one row per depth of the public tree."""

    def __init__(self, B: int, R: int, max_dice: int):
        depth = B + 2
        self.pi_p = np.zeros((depth, R))
        self.pi_o = np.zeros((depth, R))
        self.val = np.zeros((depth, R))
        self.val2 = np.zeros((depth, R))
        self.sig = np.zeros((depth, B + 1, R))
        self.kidv = np.zeros((depth, B + 1, R))
        self.kidv2 = np.zeros((depth, B + 1, R))
        self.hist = np.zeros(max_dice + 2)
        self.total = np.zeros(R)


#: By default the walks use every core from this many (public node, roll) pairs up, one thread below.
THREADS_FROM_STATES = 2**20


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class _Walker:
    """Runs the compiled walks from the root on ``threads`` threads.

    The root and the ``B`` nodes below it are handled here, one at a time; the subtrees of the
    nodes two bids deep (``B (B - 1) / 2`` of them, the largest a quarter of the tree) are the
    jobs, handed out largest first to whichever thread is free.  The walks release the GIL
    and write disjoint parts of the arrays, so the result does not depend on ``threads``.
    """

    def __init__(self, tables: "RoundTables", threads: Optional[int] = None):
        _require_numba()
        self.tables = t = tables
        if threads is None:  # threads pay from about a million information states
            threads = _default_threads() if t.N * t.R >= THREADS_FROM_STATES else 1
        self.threads = check_int("threads", threads, 1)
        scratch = functools.partial(_Buffers, t.B, t.R, int(t.dice.max()))
        self.root = scratch()
        self.top = [scratch() for _ in range(t.B)]  # one per node one bid deep
        self.free: "queue.SimpleQueue[_Buffers]" = queue.SimpleQueue()
        for _ in range(self.threads):
            self.free.put(scratch())
        # (k, k2): the node of bids k < k2, whose subtree has 2 ** (B - 1 - k2) nodes
        self.jobs = sorted(((k, k2) for k in range(t.B) for k2 in range(k + 1, t.B)), key=lambda job: job[1])
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None

    def __del__(self):
        if getattr(self, "_pool", None) is not None:
            self._pool.shutdown(wait=False)

    def _run(self, walk: Callable[[int, int, _Buffers], None], live: set) -> None:
        """``walk(k, k2, scratch)`` for every job under a node in ``live``, on the threads."""
        def job(k: int, k2: int) -> None:
            buf = self.free.get()
            try:
                walk(k, k2, buf)
            finally:
                self.free.put(buf)

        jobs = [(k, k2) for k, k2 in self.jobs if k in live]
        if self._pool is None:
            for k, k2 in jobs:
                job(k, k2)
            return
        for future in [self._pool.submit(job, k, k2) for k, k2 in jobs]:
            future.result()

    def _top_nodes(self, p: int, arr) -> set:
        """The strategies (from ``arr``) at the root and at the nodes one bid deep that either
        player reaches, with their reaches; returns those nodes' bids."""
        t, root = self.tables, self.root
        a0, n_p, n_o = t.first, t.num_rolls[p], t.num_rolls[1 - p]
        _strategy(arr, 0, t.B, t.num_rolls[a0], root.sig, 0, root.total)
        live = set()
        for k in range(t.B):
            top = self.top[k]
            top.pi_p[0], top.pi_o[0], top.sig[0] = root.pi_p[0], root.pi_o[0], root.sig[0]
            if _reach_child(a0, p, 0, k, n_p, n_o, top.pi_p, top.pi_o, top.sig):
                _strategy(arr, t.top_offset(k), t.B - k, t.num_rolls[1 - a0], top.sig, 1, top.total)
                live.add(k)
        return live

    def _enter(self, k: int, k2: int, p: int, buf: _Buffers) -> bool:
        """Copy the reaches and strategy of the node of bid ``k`` into ``buf``; whether its
        child by bid ``k2`` is reached (its reaches then in ``buf`` at depth 2)."""
        t, top = self.tables, self.top[k]
        buf.pi_p[1], buf.pi_o[1], buf.sig[1] = top.pi_p[1], top.pi_o[1], top.sig[1]
        return _reach_child(1 - t.first, p, 1, k2 - k - 1, t.num_rolls[p], t.num_rolls[1 - p], buf.pi_p, buf.pi_o,
                            buf.sig)

    def cfr_update(self, p: int, weight: float, plus: bool, reg, avg) -> None:
        """One CFR(+) update of player ``p``'s regrets and average sums (block layout)."""
        t, root = self.tables, self.root
        a0 = t.first
        root.pi_p[0] = 0.0
        root.pi_p[0, : t.num_rolls[p]] = 1.0
        root.pi_o[0] = t.priors[1 - p]
        live = self._top_nodes(p, reg)

        def walk(k: int, k2: int, buf: _Buffers) -> None:
            kidv = self.top[k].kidv[1, k2 - k - 1]
            if self._enter(k, k2, p, buf):
                _walk_cfr(k2, 2, t.second_offset(k, k2), a0, p, t.B, t.skip, t.num_rolls, t.counting, t.quantity,
                          t.dice, reg, avg, weight, plus, buf.pi_p, buf.pi_o, buf.val, buf.sig, buf.kidv, buf.hist,
                          buf.total)
                kidv[:] = buf.val[2]
            else:
                kidv[:] = 0.0

        self._run(walk, live)
        for k in range(t.B):
            top = self.top[k]
            if k in live:
                _finish_cfr(k, 1, t.top_offset(k), 1 - a0, p, t.B, t.num_rolls, t.counting, t.quantity, t.dice, reg,
                            avg, weight, plus, top.pi_p, top.pi_o, top.val, top.sig, top.kidv, top.hist)
                root.kidv[0, k] = top.val[1]
            else:
                root.kidv[0, k] = 0.0
        _finish_cfr(-1, 0, 0, a0, p, t.B, t.num_rolls, t.counting, t.quantity, t.dice, reg, avg, weight, plus,
                    root.pi_p, root.pi_o, root.val, root.sig, root.kidv, root.hist)

    def player_values(self, p: int, policy):
        """``p``'s best-response value and its value when both play ``policy`` (probabilities or
        strategy sums, block layout)."""
        t, root = self.tables, self.root
        a0, n_p = t.first, t.num_rolls[p]
        root.pi_p[0] = 0.0  # scratch: the values need only the opponent's reach
        root.pi_o[0] = t.priors[1 - p]
        live = self._top_nodes(p, policy)

        def walk(k: int, k2: int, buf: _Buffers) -> None:
            top, j = self.top[k], k2 - k - 1
            if self._enter(k, k2, p, buf):
                _walk_eval(k2, 2, t.second_offset(k, k2), a0, p, t.B, t.skip, t.num_rolls, t.counting, t.quantity,
                           t.dice, policy, buf.pi_p, buf.pi_o, buf.val, buf.val2, buf.sig, buf.kidv, buf.kidv2,
                           buf.hist, buf.total)
                top.kidv[1, j], top.kidv2[1, j] = buf.val[2], buf.val2[2]
            else:
                top.kidv[1, j], top.kidv2[1, j] = 0.0, 0.0

        self._run(walk, live)
        for k in range(t.B):
            top = self.top[k]
            if k in live:
                _finish_eval(k, 1, 1 - a0, p, t.B, t.num_rolls, t.counting, t.quantity, t.dice, top.pi_o, top.val,
                             top.val2, top.sig, top.kidv, top.kidv2, top.hist)
                root.kidv[0, k], root.kidv2[0, k] = top.val[1], top.val2[1]
            else:
                root.kidv[0, k], root.kidv2[0, k] = 0.0, 0.0
        _finish_eval(-1, 0, a0, p, t.B, t.num_rolls, t.counting, t.quantity, t.dice, root.pi_o, root.val, root.val2,
                     root.sig, root.kidv, root.kidv2, root.hist)
        prior = t.priors[p, :n_p]
        return float(prior @ root.val[0, :n_p]), float(prior @ root.val2[0, :n_p])

    def values(self, policy) -> Tuple[float, float, float]:
        br0, value0 = self.player_values(0, policy)
        br1, _ = self.player_values(1, policy)
        return value0, br0, br1


def policy_values(game: LiarsDiceGame, edge: np.ndarray, call: np.ndarray,
                  threads: Optional[int] = None) -> Tuple[float, float, float]:
    """``(player 0's value, player 0's best-response value, player 1's)`` of the policy
    ``edge``, ``call`` (both seats; :class:`~dice_envs.agents.liars_dice.solver.TreePolicy`'s
    layout, float32 or float64), by the compiled walks: besides the policy, they hold its copy
    in the block layout."""
    tables = RoundTables(game)
    return _Walker(tables, threads).values(from_tree_layout(tables, edge, call))


def _check_dtype(name: str, dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"{name} must be float32 or float64, got {dtype}")
    return dtype


def state_count(game: LiarsDiceGame) -> int:
    """(public node, roll) pairs of a two-player round game: ``2 ** B`` nodes times the most rolls
    of a player (352 M for two six-sided dice each)."""
    return 2**game.num_bids * max(len(game.roll_distribution(p)) for p in range(2))


def memory_bytes(game: LiarsDiceGame, regret_dtype=np.float64, average_dtype=np.float32) -> int:
    """The peak memory of a :class:`CompiledCFR` solve of ``game``: the regrets and the average
    sums, one row per action of every public node and one column per roll, and at the end the
    average policy in the tree layout (10.5 GiB for two six-sided dice each with the default
    types: 10.7 GiB measured).  A Python integer, from the sizes alone: a game of hundreds of bids
    gives a number to refuse, not an overflow."""
    B = game.num_bids
    rows = 2 * (2**B - 1)  # block_rows's count: a bid into every node but the root, a call from each
    R = max(len(game.roll_distribution(p)) for p in range(2))
    # The walks' scratch (_Buffers): the root's, one per node one bid deep and one per thread.
    scratch = (1 + B + _default_threads()) * 8 * (B + 2) * R * (4 + 3 * (B + 1))
    return rows * R * (np.dtype(regret_dtype).itemsize + 2 * np.dtype(average_dtype).itemsize) + scratch + FIXED_BYTES


#: The solve's small objects, whatever the game: the round's tables, the history, the compiled
#: functions' dispatch (measured: up to 0.5 MiB past the arrays on the smallest games).
FIXED_BYTES = 1 << 20


class CompiledCFR:
    """CFR (``plus=False``) or CFR+ (``plus=True``) with alternating updates, as
    :class:`~dice_envs.agents.liars_dice.solver.CFRSolver`, by compiled depth-first walks.
    :class:`~dice_envs.agents.liars_dice.solver.CompiledCFRSolver` gives it that solver's
    interface (evaluations, policies).

    Args:
        game: a two-player :class:`~dice_envs.games.liars_dice.rules.LiarsDiceGame`.
        plus: CFR+ (regret matching+, iteration ``t`` weighted ``t`` in the average) or CFR.
        regret_dtype, average_dtype: storage of the regrets and of the average-strategy sums.
            Measured on 2v2 with five faces (aces wild) to an exploitability of 1e-3: float64
            regrets take 260 iterations, as the numpy solver; float32 regrets 340 (whatever the
            averages); float32 averages cost nothing.
        threads: threads walking the tree (default: the cores this process may use, from
            :data:`THREADS_FROM_STATES` up).

    Attributes:
        regrets, sums: the regrets and the average-strategy sums, block layout
            (:func:`to_tree_layout` gives the numpy solver's).

    Raises:
        ValueError: not two players, a bad dtype or ``threads``, or the solve over the memory
            limit (:meth:`estimate_memory`, :func:`dice_envs.core.resources.check_resources`),
            checked before anything is allocated.
    """

    def __init__(self, game: LiarsDiceGame, plus: bool = True, regret_dtype=np.float64, average_dtype=np.float32,
                 threads: Optional[int] = None):
        if game.num_players != 2:
            raise ValueError(f"the compiled solver needs num_players=2, got {game.num_players}")
        self.game = game
        self.plus = bool(plus)
        regret_dtype = _check_dtype("regret_dtype", regret_dtype)
        average_dtype = _check_dtype("average_dtype", average_dtype)
        self.memory_bytes = self.estimate_memory(game, regret_dtype, average_dtype)
        check_resources(f"the compiled CFR solver of {game!r} (2**{game.num_bids} public nodes x "
                        f"{max(len(game.roll_distribution(p)) for p in range(2))} rolls: {regret_dtype.name} regrets, "
                        f"{average_dtype.name} average sums)", self.memory_bytes)
        self.tables = t = RoundTables(game)
        self._walker = _Walker(t, threads)
        self.regrets = np.zeros((t.rows, t.R), regret_dtype)
        self.sums = np.zeros((t.rows, t.R), average_dtype)
        self.iteration = 0

    @classmethod
    def estimate_memory(cls, game: LiarsDiceGame, regret_dtype, average_dtype) -> int:
        """The solve's peak memory in bytes (:func:`memory_bytes`; a subclass adds what it builds)."""
        return memory_bytes(game, regret_dtype, average_dtype)

    @property
    def threads(self) -> int:
        return self._walker.threads

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (each updates player 0, then player 1)."""
        for _ in range(n):
            self.iteration += 1
            weight = float(self.iteration) if self.plus else 1.0
            for p in (0, 1):
                self._walker.cfr_update(p, weight, self.plus, self.regrets, self.sums)

    def average_values(self) -> Tuple[float, float, float]:
        """``(player 0's value, player 0's best-response value, player 1's)`` of the average
        policy (uniform before the first iteration)."""
        return self._walker.values(self.sums)

    def average_arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        """The average policy's ``(edge, call)`` probabilities, in the tree layout and the
        average sums' dtype."""
        return to_tree_layout(self.tables, self.sums, normalise=True)
