"""Exact optimal play of two-player Zombie Dice with the official dice (6 green, 4 yellow, 3 red).

The All Yellow paper (Neller et al.; :mod:`dice_envs.agents.zombie_dice.ayzd_solver`) names this
as its future work.  The model is the environment's (:class:`dice_envs.games.zombie_dice.rules.ZombieDiceGame`
``(2, "official", goal, stop_when_won=True)``), and every probability comes from its rules core:

* **The dice chain.**  The within-turn state is the turn's brains ``b`` and the dice, by colour:
  the cup, the brain dice and the shotgun dice set aside, the footprints to re-roll
  (:class:`DiceChain`: 10,766 dice states, enumerated from the fresh turn with
  :meth:`ZombieDiceState.chance_outcomes` and :meth:`ZombieDiceState.apply`, so the cup
  refill, re-rolled footprints and busting at 3 shotguns are the core's own).  A roll from
  dice state ``d`` goes to ``d'`` with ``g`` more brains (``g`` is a function of ``(d, d')``),
  or busts.  The dice states alone have cycles (through the cup refill), but the chain over
  ``(d, b)`` is acyclic apart from self-loops (three footprints rolled again): ``b`` never
  falls, and a roll that adds no brain either adds a shotgun or turns fewer than three
  footprints into three.
* **The score grid** is the one of :mod:`dice_envs.agents.solve.jeopardy` and the AYZD
  solver: positions ``(seat, i, j)`` with seat 0 the player who moves first in a round (the
  AYZD ``p = 1``), ``i``/``j`` the mover's and the opponent's banked scores, with the ends of
  the game of :class:`OfficialRules` (a :class:`~dice_envs.agents.solve.jeopardy.ScoreRules`,
  also the cross-check's): the last round, tiebreak rounds, and ``stop_when_won`` (the second
  player of a round holds as soon as holding wins).  The positions that pass the turn to each other at
  unchanged scores (a bust, or a hold with nothing) come in pairs, solved exactly by policy
  iteration on the affine form of :func:`~dice_envs.agents.solve.jeopardy.solve_pairs`: the
  decisions are greedy with respect to their own exact values (the certificate of optimality).
* **The score cap.**  Scores are unbounded; the grid stops at ``score_cap`` (``M``): a score
  of ``M - 1`` or more counts as ``M - 1``, and a turn whose banked score would reach ``M - 1``
  holds there (with the official dice the dice chain has cycles through the cup refill, so a
  capped turn total cannot keep rolling the way the AYZD grid lets it).  Raising the cap
  changes nothing measurable: see :func:`cap_check` and ``docs/games/zombie_dice.md``.

**Why not :func:`~dice_envs.agents.solve.jeopardy.solve_score_grid` itself?**  Its tables are
``2 x M x M x T`` float64 cells with ``T`` the turn states; here ``T`` is about
``10,766 x M`` (dice states by turn brains): at ``M = 52`` that is 2.7e9 cells, 22 GB per
table (it keeps three).  This module solves the same equations with the same pair algorithm, but goes through
the game by phase and keeps only what is needed:

* the last round (player 2 needing ``j - k`` more brains to tie player 1's ``j``) depends on the
  turn only through ``k = i + b``, so one backward pass over ``(d, k)`` per ``j`` serves every
  ``i`` (and every tiebreak position);
* below the goal, the positions of one total ``i + j`` are solved together, one sparse
  matrix product per layer of turn brains and per level of the chain's zero-brain rolls
  (``scipy.sparse``; the products are most of the time);
* only the turn-start values (``2 x M x M``) and the decisions (one bit per state, about
  15 MB at ``M = 52``) are kept.

The tests check it against a plain value iteration written independently over the rules
core, and against :func:`~dice_envs.agents.solve.jeopardy.solve_score_grid` itself with a
:class:`~dice_envs.agents.solve.jeopardy.TurnModel` over ``(d, b)`` (:func:`turn_model`), at
small goals where that fits.

**Evaluating a fixed policy** goes the other way: a forward pass of the probability mass through
a position's turn gives how the turn ends (hold with ``b`` brains, or bust), which depends only on
the decisions taken in it, not on the scores.  Those outcomes are computed once per distinct turn
(:class:`TurnOutcomes`: the optimum's are shared by every evaluation against it, and positions whose
decisions hash alike share one pass), and the grid is then solved position by position from them.
:func:`evaluate` takes ``stop_when_won``: ``False`` lets a player 2 who would win by holding roll
on (the rules as written; the optimum is the same under both readings).

**Policies.**  A policy for exact evaluation (:func:`evaluate`, :func:`head_to_head`) is a
:class:`TurnPolicy`; adapters: :class:`ScorePolicy` for the AYZD-style ``policy(p, i, j, b, s)``
(the human-playable policies and the All Yellow optimum, reading only the turn's brains and
shotguns), :class:`DicePolicy` for a table over ``(b, dice state)`` (the policy that maximises
the expected brains of a turn), :class:`ObservationPolicy` for a function of the environment's
observation vector (a trained network), and :class:`TablePolicy` for the solved optimum.
"""

from __future__ import annotations

import hashlib
import math
import resource
import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache, partial
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, TypeGuard

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from dice_envs.agents.evaluate.contract import ask_policy
from dice_envs.agents.solve import cache as solver_cache
from dice_envs.agents.solve.head_to_head import HeadToHead
from dice_envs.agents.solve.jeopardy import TIE_TOLERANCE, ScoreRules, TurnModel
from dice_envs.core.resources import check_resources
from dice_envs.core.validation import check_int
from dice_envs.games.zombie_dice.rules import HOLD, ROLL, ZombieDiceGame, ZombieDiceState

__all__ = [
    "DEFAULT_GOAL", "SOLVER_VERSION", "DiceChain", "dice_chain", "OfficialRules", "turn_model", "Solution", "solve",
    "solved", "evaluate", "head_to_head", "TurnPolicy", "ScorePolicy", "DicePolicy", "ObservationPolicy",
    "TablePolicy", "RollUntilShotguns", "max_expected_brains_policy", "one_turn", "turn_figures", "standard_policies",
    "differences", "evaluate_grid", "observations", "cap_check", "default_score_cap", "check_score_cap",
    "store_cached", "load_cached", "OptimalAgent", "BatchedOptimalOpponent", "exact_score", "human_differences",
    "REFERENCE_POLICIES", "NetworkPolicy", "DICE_FEATURES", "TurnOutcomes", "turn_endings",
]

DEFAULT_GOAL = 13
#: Bump when the model or the file layout changes: cached solutions of other versions are ignored.
SOLVER_VERSION = 1
VARIANT = "official"


#: Points of the grid above the goal by default.  What the cap cuts short is how far the last
#: round can carry the scores past the goal, so the margin is absolute, not a multiple of the
#: goal: 39 points (a cap of 52 at goal 13, as the AYZD solver's 4 goals) change the values by
#: about 1e-12 (see :func:`cap_check`).  A cap of 4 goals would be far too small at small goals
#: (at goal 3, a cap of 12 is off by 4e-4).
CAP_MARGIN = 39


def default_score_cap(goal: int) -> int:
    """The grid size used unless asked: ``goal + 39`` (52 for the usual 13)."""
    return goal + CAP_MARGIN


def check_score_cap(score_cap: Optional[int], goal: int) -> int:
    """:func:`default_score_cap` for None, else ``score_cap`` if it is at least ``2 * goal``
    (a smaller grid changes the values: it cuts the last round short)."""
    if score_cap is None:
        return default_score_cap(goal)
    return check_int(f"score_cap (at goal {goal}; smaller caps change the values)", score_cap, 2 * goal)


# ---------------------------------------------------------------------------------------
# the dice chain


@dataclass(frozen=True, eq=False)
class _Level:
    """The states of one level of the chain's zero-brain rolls (rows ``lo:hi``, sorted by
    brain dice set aside) and their transitions as one sparse matrix over the four layers
    ``V[b], V[b + 1], V[b + 2], V[b + 3]`` stacked (columns ``g * D + d'``), each row divided
    by the probability of leaving the state (the self-loop, three footprints rolled again, is
    solved in closed form)."""

    lo: int
    hi: int
    counts: np.ndarray  # counts[b]: rows with at most b brain dice set aside (b = 0..13)
    bust: np.ndarray  # probability of busting, divided by 1 - self-loop (as the matrix rows)
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    width: int

    def rows(self, b: int) -> int:
        return int(self.counts[min(b, len(self.counts) - 1)])

    @lru_cache(maxsize=None)
    def matrix(self, n: int) -> sp.csr_matrix:
        """The first ``n`` rows (views of the arrays, no copy)."""
        end = self.indptr[n]
        return sp.csr_matrix((self.data[:end], self.indices[:end], self.indptr[: n + 1]), shape=(n, self.width))


@dataclass(frozen=True, eq=False)
class DiceChain:
    """The within-turn dice chain of a Zombie Dice variant, from the rules core.

    State ``d`` is ``labels[d] = (cup, brain_dice, shotgun_dice, feet)`` (tuples by colour);
    ``fresh`` is the full cup at the start of a turn (the player must roll).  The states are
    numbered so that the successors of a roll that adds no brain come first (by levels).

    Attributes:
        brains, shotguns: brain dice and shotguns set aside in each state.
        src, dst, gain, prob: the transitions of a roll: ``src -> dst`` adding ``gain`` brains
            with probability ``prob`` (self-loops and busts excluded).
        exact: the same probabilities as :class:`fractions.Fraction`.
        self_loop, bust: per state, probability that a roll leaves the state unchanged (three
            footprints rolled again) or busts (3 or more shotguns).
    """

    variant: str
    labels: Tuple[tuple, ...]
    fresh: int
    brains: np.ndarray
    shotguns: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    gain: np.ndarray
    prob: np.ndarray
    exact: Tuple[Fraction, ...]
    self_loop: np.ndarray
    bust: np.ndarray
    levels: Tuple[_Level, ...]
    codes: np.ndarray  # state -> code of (cup, shotgun_dice, feet)
    lookup: np.ndarray  # code -> state (-1: none)
    full_cup: Tuple[int, ...]
    build_seconds: float = 0.0

    @property
    def size(self) -> int:
        return len(self.labels)

    @property
    def stay(self) -> np.ndarray:
        return 1.0 - self.self_loop

    def encode(self, cup, shotgun_dice, feet) -> np.ndarray:
        """Codes of dice states given as ``(..., colours)`` integer arrays (any shape)."""
        cup, shotgun_dice, feet = (np.asarray(x, np.int64) for x in (cup, shotgun_dice, feet))
        radix = np.array(self.full_cup, np.int64) + 1
        code = np.zeros(cup.shape[:-1], np.int64)
        for part, base in ((cup, radix), (shotgun_dice, np.full_like(radix, 3)), (feet, np.full_like(radix, 4))):
            for c in range(len(radix)):
                code = code * base[c] + np.clip(part[..., c], 0, base[c] - 1)
        return code

    def index(self, cup, shotgun_dice, feet) -> np.ndarray:
        """Dice-state numbers of arrays ``(..., colours)`` (-1 where there is none)."""
        return self.lookup[self.encode(cup, shotgun_dice, feet)]

    def dice(self, part: str) -> np.ndarray:
        """``(D, colours)`` dice per state: ``part`` is ``"cup"``, ``"brain_dice"``,
        ``"shotgun_dice"`` or ``"feet"``."""
        return self._parts[("cup", "brain_dice", "shotgun_dice", "feet").index(part)]

    @cached_property
    def _parts(self) -> Tuple[np.ndarray, ...]:
        return tuple(np.array(part, np.float32) for part in zip(*self.labels))

    @cached_property
    def _by_key(self) -> Dict[tuple, int]:
        return {(cup, shotgun_dice, feet): d for d, (cup, _, shotgun_dice, feet) in enumerate(self.labels)}

    def state_of(self, state: ZombieDiceState) -> int:
        """The dice state of a rules-core state (-1 if the chain has none: a bust)."""
        return self._by_key.get((state.cup, state.shotgun_dice, state.feet), -1)

    def matrix(self, gain: Optional[int] = None) -> sp.csr_matrix:
        """The ``D x D`` transition matrix of a roll (all gains, or those adding ``gain`` brains)."""
        keep = slice(None) if gain is None else self.gain == gain
        D = self.size
        return sp.csr_matrix((self.prob[keep], (self.src[keep], self.dst[keep])), shape=(D, D))


def _enumerate(variant: str):
    """Every dice state reachable from a fresh turn, and the exact transitions of a roll,
    with the rules core (the pending-roll state's ``chance_outcomes()`` and ``apply``)."""
    game = ZombieDiceGame(2, variant, goal=10**6)  # a goal no turn reaches: nothing ends a turn but a bust

    def key(st):
        return (st.cup, st.brain_dice, st.shotgun_dice, st.feet)

    start = game.new_initial_state()
    order = [key(start)]
    number = {order[0]: 0}
    transitions = []
    k = 0
    while k < len(order):
        cup, brain_dice, shotgun_dice, feet = order[k]
        pending = ZombieDiceState(game, (0, 0), (0, 1), 0, False, cup, brain_dice, shotgun_dice, feet, 0, k != 0,
                                  True, None)
        outcomes = pending.chance_outcomes()
        # Exact sums in integers over the common denominator (as fast as floats).
        unit = math.lcm(*(p.denominator for _, p in outcomes))
        merged: Dict[int, list] = {}
        bust = total = 0
        for outcome, p in outcomes:
            w = p.numerator * (unit // p.denominator)
            total += w
            after = pending.apply(outcome)
            if after.turn_index != 0:  # the turn passed: a bust
                bust += w
                continue
            nk = key(after)
            if nk not in number:
                number[nk] = len(order)
                order.append(nk)
            entry = merged.setdefault(number[nk], [after.turn_brains, 0])
            if entry[0] != after.turn_brains:
                raise AssertionError(f"two gains between the same dice states {order[k]} -> {nk}")
            entry[1] += w
        if total != unit:
            raise AssertionError(f"roll outcomes of {order[k]} sum to {Fraction(total, unit)}")
        transitions.append(({d: (g, Fraction(w, unit)) for d, (g, w) in merged.items()}, Fraction(bust, unit)))
        k += 1
    return game, order, transitions


#: The memory :func:`turn_endings` holds beyond its result, by variant: building the
#: :func:`dice_chain` and its :class:`TurnOutcomes`, or what they keep and a forward pass, whichever is
#: more, with a margin over what was measured (for the estimates of the tables built from them).
TURN_MODEL_BYTES = {"official": 128 * 2**20, "all_yellow": 32 * 2**20}


def dice_chain(variant: str = VARIANT) -> DiceChain:
    """The :class:`DiceChain` of ``variant`` (cached for the process; about 5 seconds to build)."""
    return _built_dice_chain(variant)


@lru_cache(maxsize=4)
def _built_dice_chain(variant: str) -> DiceChain:
    """:func:`dice_chain`'s build, cached by the variant's name (``dice_chain()`` and
    ``dice_chain("official")`` share one)."""
    t0 = time.perf_counter()
    game, order, transitions = _enumerate(variant)
    n = len(order)
    brains0 = np.array([sum(lab[1]) for lab in order])
    # Levels of the rolls that add no brain (and are no self-loop): successors first.
    zero_succ = [[d for d, (g, _) in merged.items() if g == 0 and d != s] for s, (merged, _) in enumerate(transitions)]
    level = np.full(n, -1)
    for root in range(n):
        stack = [root]
        while stack:
            s = stack[-1]
            if level[s] >= 0:
                stack.pop()
                continue
            pending = [d for d in zero_succ[s] if level[d] < 0]
            if pending:
                if len(stack) > 4 * n:
                    raise AssertionError("the zero-brain rolls form a cycle")
                stack.extend(pending)
            else:
                level[s] = 1 + max((level[d] for d in zero_succ[s]), default=-1)
                stack.pop()
    perm = np.lexsort((np.arange(n), brains0, level))  # new order -> old state
    new = np.empty(n, np.intp)
    new[perm] = np.arange(n)
    labels = tuple(order[o] for o in perm)
    sources: List[int] = []
    targets: List[int] = []
    gains: List[int] = []
    exact: List[Fraction] = []
    self_loop, bust = np.zeros(n), np.zeros(n)
    for o in range(n):
        merged, b = transitions[o]
        s = new[o]
        bust[s] = float(b)
        for d, (g, p) in sorted(merged.items()):
            if d == o:
                if g != 0:
                    raise AssertionError("a self-loop that adds brains")
                self_loop[s] = float(p)
                continue
            sources.append(s)
            targets.append(new[d])
            gains.append(g)
            exact.append(p)
    src, dst, gain = np.array(sources, np.intp), np.array(targets, np.intp), np.array(gains, np.intp)
    prob = np.array([float(p) for p in exact])
    if gain.max() > 3:
        raise AssertionError("a roll of three dice added more than three brains")
    brains = brains0[perm]
    shotguns = np.array([sum(lab[2]) for lab in labels])
    lvl = level[perm]
    levels = []
    edge_order = np.lexsort((dst, src))
    src_s, dst_s, gain_s, prob_s = src[edge_order], dst[edge_order], gain[edge_order], prob[edge_order]
    for v in range(lvl.max() + 1):
        lo, hi = np.searchsorted(lvl, v), np.searchsorted(lvl, v, side="right")
        keep = (src_s >= lo) & (src_s < hi)
        stay = 1.0 - self_loop
        m = sp.csr_matrix((prob_s[keep] / stay[src_s[keep]], (src_s[keep] - lo, gain_s[keep] * n + dst_s[keep])),
                          shape=(hi - lo, 4 * n))
        m.sort_indices()
        counts = np.searchsorted(brains[lo:hi], np.arange(14), side="right")
        levels.append(_Level(int(lo), int(hi), counts, bust[lo:hi] / stay[lo:hi], m.data, m.indices, m.indptr, 4 * n))
        zero = keep & (gain_s == 0)
        if np.any(lvl[dst_s[zero]] >= v):
            raise AssertionError("a zero-brain roll to the same or a later level")
    full_cup = tuple(game.full_cup)
    chain_cup = np.array([lab[0] for lab in labels])
    chain_shot = np.array([lab[2] for lab in labels])
    chain_feet = np.array([lab[3] for lab in labels])
    proto = DiceChain(variant, labels, int(new[0]), brains, shotguns, src, dst, gain, prob, tuple(exact), self_loop,
                      bust, tuple(levels), np.zeros(0, np.int64), np.zeros(0, np.intp), full_cup)
    codes = proto.encode(chain_cup, chain_shot, chain_feet)
    radix = np.prod(np.array(full_cup) + 1) * 3 ** len(full_cup) * 4 ** len(full_cup)
    lookup = np.full(int(radix), -1, np.intp)
    if len(np.unique(codes)) != n:
        raise AssertionError("two dice states with the same code")
    lookup[codes] = np.arange(n)
    return DiceChain(variant, labels, int(new[0]), brains, shotguns, src, dst, gain, prob, tuple(exact), self_loop,
                     bust, tuple(levels), codes, lookup, full_cup, time.perf_counter() - t0)


# ---------------------------------------------------------------------------------------
# the score grid's rules (shared with the generic solver for the cross-check)


class OfficialRules(ScoreRules):
    """The two-player score grid of :mod:`dice_envs.games.zombie_dice.rules` (seat 0 moves first in a round).

    As :class:`dice_envs.agents.zombie_dice.ayzd_solver.AYZDRules`, plus the score cap rule of
    this module: a turn whose banked score would reach ``score_cap - 1`` holds.
    """

    num_seats = 2

    def __init__(self, goal: int, score_cap: int):
        self.goal, self.score_cap = goal, score_cap

    def terminal_value(self, seat, i, j):
        over = (seat == 0) & (np.maximum(i, j) >= self.goal) & (i != j)
        return np.where(over, (i > j).astype(float), np.nan)

    def must_hold(self, seat, i, j, banked):
        after = i[None, :] + banked
        wins = (seat[None, :] == 1) & (after >= self.goal) & (after > j[None, :])
        return wins | (after >= self.score_cap - 1)


def turn_model(chain: DiceChain, score_cap: int) -> TurnModel:
    """A :class:`~dice_envs.agents.solve.jeopardy.TurnModel` over the turn states ``(d, b)``,
    ``b < score_cap`` (state 0 is the fresh turn), for
    :func:`~dice_envs.agents.solve.jeopardy.solve_score_grid` with :class:`OfficialRules`.

    A roll's turn total is capped at ``score_cap - 1``; the rules make every state there hold
    (so their own rolls, recorded as busts to keep the chain acyclic, are never used).  Only
    small grids fit in memory: this is the cross-check of the fast solver, not the solver.
    """
    top = score_cap - 1
    states = [(chain.fresh, 0)] + [(d, b) for b in range(score_cap) for d in range(chain.size)
                                    if d != chain.fresh and (chain.brains[d] <= b or b == top)]
    number = {s: t for t, s in enumerate(states)}
    out_edges: List[list] = [[] for _ in range(chain.size)]
    for s, d, g, p in zip(chain.src, chain.dst, chain.gain, chain.prob):
        out_edges[s].append((int(d), int(g), float(p)))

    def transitions(t):
        d, b = states[t]
        if b >= top:
            return [(None, 1.0)]
        out = [(None, float(chain.bust[d]))]
        if chain.self_loop[d]:
            out.append((t, float(chain.self_loop[d])))
        for d2, g, p in out_edges[d]:
            out.append((number[(d2, min(b + g, top))], p))
        return out

    labels = [("fresh", d, b) if t == 0 else ("rolled", d, b) for t, (d, b) in enumerate(states)]
    return TurnModel.build(labels, [b for _, b in states], [t != 0 for t in range(len(states))], transitions)


# ---------------------------------------------------------------------------------------
# one backward pass over the turn layers, for a batch of positions


def _backward(chain: DiceChain, hold: np.ndarray, forced: np.ndarray, x: np.ndarray, affine: bool,
              decide: Optional[Callable[[int], np.ndarray]] = None, bounds: bool = False):
    """Backward induction over the turn layers ``b = L - 1 .. 0`` of ``N`` positions at once.

    Args:
        hold: ``(L, C)`` value of holding at each layer, per column; ``C = 2N`` (``[const | coef]``
            of the affine form in the unknown pass value ``x``) if ``affine``, else ``N``.
        forced: ``(L, N)``: the rules make the mover hold after a roll at this layer (the
            score cap, or stop_when_won); the last layer must be forced for every position.
        x: ``(N,)``: with ``affine``, the guess of the pass value used to choose greedily;
            without, the (known) value of a bust.
        decide: if given, ``decide(b) -> (D, N)`` roll probabilities to follow (else greedy).
        bounds: (affine and greedy) also return, per position, the interval of pass values
            over which every decision stays greedy with respect to these values (the
            certificate of :func:`dice_envs.agents.solve.jeopardy.greedy_is_consistent`,
            with the same tolerances, computed on the way instead of in a second pass).

    Returns:
        ``(V, Q, fresh, (lo, hi))``: ``V`` ``(L + 3, D, C)`` values (the layers above ``L - 1``
        repeat it), ``Q`` ``(L, D, N)`` decisions (bool when greedy, else the probabilities),
        ``fresh`` ``(L, C)`` the fresh state's values per layer, and the interval (or None).
        The fresh state always rolls; states that cannot occur (fewer turn brains than brain
        dice set aside) hold.
    """
    L, C = hold.shape
    N = forced.shape[1]
    D = chain.size
    if not forced[L - 1].all():
        raise ValueError("the last layer must be forced")
    V = np.empty((L + 3, D, C))
    V[L - 1 :] = hold[L - 1]
    Q = np.zeros((L, D, N), bool if decide is None else float)
    fresh_values = np.empty((L, C))
    fresh_values[L - 1] = hold[L - 1]
    bust_row = np.concatenate([np.zeros(N), np.ones(N)]) if affine else np.asarray(x, float)
    fresh = chain.fresh
    lo = np.full(N, -np.inf)
    hi = np.full(N, np.inf)
    slack = 2 * TIE_TOLERANCE
    for b in range(L - 2, -1, -1):
        Vb = V[b]
        flat = V[b : b + 4].reshape(4 * D, C)
        probs = None if decide is None else decide(b)
        h = hold[b]
        fb = forced[b]
        for lev in chain.levels:
            n = lev.rows(b)
            if n < lev.hi - lev.lo:
                Vb[lev.lo + n : lev.hi] = h  # states that cannot occur at this layer
            if n == 0:
                continue
            rows = slice(lev.lo, lev.lo + n)
            roll = lev.matrix(n) @ flat  # rows already divided by 1 - self-loop
            if affine:
                roll[:, N:] += lev.bust[:n, None]  # a bust passes the turn: the unknown x
            else:
                roll += lev.bust[:n, None] * bust_row
            at = fresh - lev.lo if lev.lo <= fresh < lev.lo + n else -1
            if probs is None:
                if affine:
                    A = roll[:, :N] - h[:N]
                    slope = roll[:, N:] - h[N:]
                    q = slope * x
                    q += A
                    q = q > TIE_TOLERANCE
                else:
                    q = roll - h > TIE_TOLERANCE
                q &= ~fb
                if at >= 0:
                    q[at] = True
                if bounds:
                    # Keep q greedy at x': A + slope x' >= -slack where rolling, <= slack where holding.
                    free = (slope != 0) & ~fb
                    if at >= 0:
                        free[at] = False
                    if free.any():
                        with np.errstate(divide="ignore", invalid="ignore"):
                            edge = np.where(q, -slack - A, slack - A) / slope
                        lower = free & ((slope > 0) == q)
                        upper = free & ~((slope > 0) == q)
                        lo = np.maximum(lo, np.where(lower, edge, -np.inf).max(axis=0))
                        hi = np.minimum(hi, np.where(upper, edge, np.inf).min(axis=0))
                if affine:
                    Vb[rows, :N] = np.where(q, roll[:, :N], h[:N])
                    Vb[rows, N:] = np.where(q, roll[:, N:], h[N:])
                else:
                    Vb[rows] = np.where(q, roll, h)
            else:
                q = np.where(fb, 0.0, probs[rows])
                if at >= 0:
                    q[at] = 1.0
                qc = np.concatenate([q, q], axis=1) if affine else q
                Vb[rows] = h + qc * (roll - h)
            Q[b, rows] = q
        fresh_values[b] = Vb[fresh]
    return V, Q, fresh_values, ((lo, hi) if bounds else None)


def _pair_values(a, c, a2, c2):
    """``S = a + c x`` with ``x = 1 - S2`` and ``S2 = a2 + c2 (1 - S)``; 1/2 where the two
    positions would pass the turn back and forth forever (only at the score cap)."""
    den = 1.0 - c * c2
    with np.errstate(divide="ignore", invalid="ignore"):
        S = (a + c * (1.0 - a2 - c2)) / den
        S2 = (a2 + c2 * (1.0 - a - c)) / den
    endless = den <= 1e-15
    return np.where(endless, 0.5, S), np.where(endless, 0.5, S2)


# ---------------------------------------------------------------------------------------
# how the turns of a fixed policy end (exact evaluation)


def _turn_outcomes(chain: DiceChain, forced: np.ndarray, decide: Callable[[int], np.ndarray],
                   by_layer: bool = False) -> np.ndarray:
    """How the turns of ``N`` positions end when the mover follows ``decide``: the forward pass
    of the probability mass through the turn states, the transpose of :func:`_backward`'s.

    Args:
        forced: ``(L, N)``, as :func:`_backward`'s: from its first forced layer ``f[n]`` on,
            column ``n`` holds (the last layer must be forced for every position).
        decide: ``decide(b) -> (D, N)`` roll probabilities.

    Returns:
        ``(L + 1, N)``: row ``b < L`` the probability of holding with ``b`` turn brains, row ``L``
        of busting.  A turn that passes ``f[n]`` (a roll gains up to three brains) is counted as
        holding at ``f[n]``: every batch of :func:`_run` has the same hold value on every layer
        from ``f[n]`` on (the score cap, or a win).  With ``by_layer``, ``(L + 4, N)``: the turns
        that pass ``f[n]`` are counted where they stopped (rows up to ``L + 2``; the brains a
        won turn banks), and row ``L + 3`` is the bust.
    """
    L, N = forced.shape
    if not forced[L - 1].all():
        raise ValueError("the last layer must be forced")
    D, fresh = chain.size, chain.fresh
    f = np.argmax(forced, axis=0)
    mass = np.zeros((L + 3, D, N))
    mass[0, fresh] = 1.0
    bust = np.zeros(N)
    for b in range(L - 1):
        mb = mass[b]
        fb = forced[b]
        if b > 0 and (fb.all() or not mb.any()):
            if not mass[b : b + 3].any():
                break  # nothing left rolling: every turn has ended (exactly)
            continue
        probs = decide(b)
        flat = mass[b : b + 4].reshape(4 * D, N)
        for lev in reversed(chain.levels):  # a roll that adds no brain goes to an earlier level
            n = lev.rows(b)
            if n == 0:
                continue
            rows = slice(lev.lo, lev.lo + n)
            rolled = probs[rows] * mb[rows]
            if fb.any():
                rolled[:, fb] = 0.0
            if b == 0 and lev.lo <= fresh < lev.lo + n:
                rolled[fresh - lev.lo] = mb[fresh]  # the fresh turn rolls (only at b = 0 has it mass)
            bust += lev.bust[:n] @ rolled
            flat += lev.matrix(n).T @ rolled
            mb[rows] -= rolled
    held = mass.sum(axis=1)  # what did not roll on holds where it is
    if by_layer:
        return np.concatenate([held, bust[None]])
    columns = np.arange(N)
    out = np.zeros((L + 1, N))
    out[:L] = np.where(np.arange(L)[:, None] < f[None, :], held[:L], 0.0)
    out[f, columns] += np.where(np.arange(L + 3)[:, None] >= f[None, :], held, 0.0).sum(axis=0)
    out[L] = bust
    return out


class TurnOutcomes:
    """The turn outcomes (:func:`_turn_outcomes`) of fixed policies, shared by the evaluations of
    one call (:func:`differences` asks for the optimum's in all of them).

    A turn's outcomes depend only on the decisions taken in it and on where the rules end it,
    not on the position's scores.  So they are kept by position (asked again, they are read
    back), and computed once per distinct turn: the decisions of every layer are hashed
    (BLAKE2b, 256 bits) and positions with the same digest and the same end share one forward
    pass.  In player 2's last turn the human-playable policies decide by the brains still needed,
    so the positions of one deficit share one pass.
    """

    def __init__(self, chain: DiceChain):
        self.chain = chain
        self._known: Dict[tuple, np.ndarray] = {}
        self._by_turn: Dict[tuple, np.ndarray] = {}
        self._last_rounds: Dict[tuple, Tuple[np.ndarray, np.ndarray]] = {}
        self._policies: List[TurnPolicy] = []  # alive while their ids are keys
        self.passes = 0  # columns of forward passes run (distinct turns)

    def _remember(self, policy: "TurnPolicy") -> None:
        """Keep ``policy`` alive while its id is part of the keys."""
        if not any(p is policy for p in self._policies):
            self._policies.append(policy)

    def _turns(self, policy: "TurnPolicy", seat: int, i: np.ndarray, j: np.ndarray, f: np.ndarray) -> list:
        """A key per position: its end ``f``, and the digest of its decisions' signatures
        (:meth:`TurnPolicy.signature`) on the layers ``b < f``."""
        digests = [hashlib.blake2b(type(policy).__name__.encode(), digest_size=32) for _ in range(len(i))]
        for b in range(int(f.max())):
            signature = np.asarray(policy.signature(self.chain, seat, i, j, b), np.float64)
            signature = np.ascontiguousarray(np.broadcast_to(signature, (len(signature), len(i))).T)
            for n in np.flatnonzero(b < f):
                digests[n].update(signature[n].tobytes())
        return [(id(policy), int(f[n]), digests[n].digest()) for n in range(len(i))]

    def __call__(self, policy: "TurnPolicy", seat: int, i, j, forced: np.ndarray, by_layer: bool = False
                 ) -> np.ndarray:
        """``(L + 1, N)`` outcomes of ``policy`` in positions ``(seat, i[n], j[n])`` whose turns end
        as ``forced`` says (as :func:`_turn_outcomes`; ``(L + 4, N)`` with ``by_layer``)."""
        L, N = forced.shape
        i, j = np.broadcast_to(i, (N,)), np.broadcast_to(j, (N,))
        f = np.argmax(forced, axis=0)
        past = 3 if by_layer else 1  # rows kept from f on: where the turns stopped, or f alone
        self._remember(policy)
        keys = [(id(policy), seat, int(i[n]), int(j[n]), int(f[n]), by_layer) for n in range(N)]
        missing = np.array([n for n, key in enumerate(keys) if key not in self._known], np.intp)
        if len(missing):
            turns = [turn + (by_layer,) for turn in self._turns(policy, seat, i[missing], j[missing], f[missing])]
            first: Dict[tuple, int] = {}
            for c, turn in enumerate(turns):
                if turn not in self._by_turn:
                    first.setdefault(turn, int(missing[c]))
            if first:
                new = np.array(list(first.values()), np.intp)
                top = int(f[new].max()) + 1
                found = _turn_outcomes(self.chain, forced[:top, new],
                                       lambda b: policy.decide(self.chain, seat, i[new], j[new], b), by_layer)
                self.passes += len(new)
                for c, (turn, n) in enumerate(first.items()):
                    self._by_turn[turn] = np.append(found[: f[n] + past, c], found[-1, c])
            for c, n in enumerate(missing):
                self._known[keys[n]] = self._by_turn[turns[c]]
        out = np.zeros((L + 4 if by_layer else L + 1, N))
        for n, key in enumerate(keys):
            known = self._known[key]
            out[: len(known) - 1, n] = known[:-1]
            out[-1, n] = known[-1]
        return out

    def last_round(self, policy: "TablePolicy", grid: "_Grid", t: int, stop_when_won: bool):
        """For the solved optimum as player 2 in the last round against ``t``: ``(win, tie)``,
        ``(t,)`` probabilities for every banked score ``i < t`` (its value is ``win + tau tie``
        with ``tau`` the tiebreak's), by one backward pass over the banked score."""
        key = (id(policy), t, bool(stop_when_won))
        if key not in self._last_rounds:
            self._remember(policy)
            f = _last_round_limit(grid, t, stop_when_won)
            k = np.arange(f + 1)
            hold = np.stack(_last_round_hold(grid, t, k), axis=1)
            _, _, F, _ = _backward(self.chain, hold, np.broadcast_to((k >= f)[:, None], (f + 1, 2)),
                                   np.zeros(2), False, lambda kk: np.repeat(policy.by_score(t, kk), 2, axis=1))
            self._last_rounds[key] = (F[:t, 0].copy(), F[:t, 1].copy())
        return self._last_rounds[key]


#: :func:`turn_endings` follows a turn until less than this much of its probability is still
#: rolling: a hundredth of the resolution of a float64 uniform draw (2**-53, about 1.1e-16).
TURN_TAIL = 1e-18
#: Bytes of probability mass one forward pass of :func:`turn_endings` may hold at once.
_PASS_BYTES = 64 * 2**20


#: How deep :func:`turn_endings` follows a turn first, in brains.
TURN_HORIZON = 64
#: The outcomes per position :func:`turn_endings` gives when its first pass decides every turn (a
#: policy that keeps rolling past :data:`TURN_HORIZON` brains gives more).
TURN_WIDTH = TURN_HORIZON + 4


def turn_endings(outcomes: TurnOutcomes, policy: "TurnPolicy", goal: int, stop_when_won: bool, seat, i, j,
                 horizon: int = TURN_HORIZON) -> np.ndarray:
    """How a turn of ``policy`` ends as the environment plays it, from the positions ``(seat[n],
    i[n], j[n])`` (seat 0 moves first in a round; scores as they are, not capped): ``(N, G)``, the
    probability of banking ``g`` brains (``g = 0``: a bust, or a hold with none).

    Unlike the grid's turns, nothing caps a turn here: player 2 of a round stops as soon as
    holding wins only with ``stop_when_won`` (then the turn banks the brains it has, maybe
    more than it needed), and otherwise the turn is followed ``horizon`` brains deep, then
    twice as deep, ... until less than :data:`TURN_TAIL` of it is still rolling; that
    remainder is left out (a row sums to at least ``1 - TURN_TAIL``).
    """
    seat, i, j = (np.asarray(x, np.int64) for x in np.broadcast_arrays(seat, i, j))
    N, D = len(i), outcomes.chain.size
    last = (seat == 1) & bool(stop_when_won)
    win = np.where(last, np.maximum(1, np.maximum(goal - i, j + 1 - i)), np.iinfo(np.int64).max)
    found: Dict[int, np.ndarray] = {}
    todo, depth = np.arange(N), horizon
    while len(todo):
        if depth > 64 * horizon:
            raise ValueError(f"policy {policy.name} keeps rolling: a turn is still going {depth // 2} brains deep")
        width = max(1, _PASS_BYTES // ((depth + 4) * D * 8))
        left = []
        for side in (0, 1):
            ours = todo[seat[todo] == side]
            for lo in range(0, len(ours), width):
                part = ours[lo : lo + width]
                fp = np.minimum(win[part], depth)
                L = int(fp.max()) + 1
                out = outcomes(policy, side, i[part], j[part], np.arange(L)[:, None] >= fp[None, :], by_layer=True)
                for c, n in enumerate(part):
                    probs = out[: L + 3, c].copy()
                    probs[0] += out[-1, c]  # a bust banks nothing
                    if win[n] > depth:  # followed to the depth only: what passed it is still rolling
                        if probs[fp[c] :].sum() > TURN_TAIL:
                            left.append(n)
                            continue
                        probs[fp[c] :] = 0.0
                    found[int(n)] = probs
        todo, depth = np.array(sorted(left), np.int64), 2 * depth
    table = np.zeros((N, max(len(probs) for probs in found.values())))
    for n, probs in found.items():
        table[n, : len(probs)] = probs
    return table


def _expected_hold(outcomes: np.ndarray, hold: np.ndarray, affine: bool) -> np.ndarray:
    """The fresh turn's value from its outcomes ``(L + 1, N)`` and the hold values ``(L, C)``
    (``[const | coef]`` of the pass value if ``affine``, where a bust adds to ``coef``; else a
    bust is worth 0)."""
    L, N = outcomes.shape[0] - 1, outcomes.shape[1]
    if affine:
        return np.concatenate([(outcomes[:L] * hold[:, :N]).sum(axis=0),
                               (outcomes[:L] * hold[:, N:]).sum(axis=0) + outcomes[L]])
    return (outcomes[:L] * hold).sum(axis=0)


# ---------------------------------------------------------------------------------------
# policies for exact evaluation


class TurnPolicy:
    """A policy for :func:`evaluate`: ``decide(chain, seat, i, j, b) -> (D, N)`` probabilities of
    rolling in every dice state, for the ``N`` positions ``(seat, i[n], j[n])`` with ``b`` turn
    brains (``seat`` 0 moves first in a round; the fresh state's entry is ignored: the player
    must roll).  Scores are capped at the grid's ``score_cap - 1``."""

    name: str = "policy"

    def decide(self, chain: DiceChain, seat: int, i: np.ndarray, j: np.ndarray, b: int) -> np.ndarray:
        raise NotImplementedError

    def signature(self, chain: DiceChain, seat: int, i: np.ndarray, j: np.ndarray, b: int) -> np.ndarray:
        """``(K, N)``: two positions whose columns are equal take the same decisions with ``b``
        turn brains (how an evaluation finds the turns it has already followed).  By default the
        decisions themselves; a policy that reads a few features of the position says which."""
        return np.asarray(self.decide(chain, seat, i, j, b), np.float64)


class ScorePolicy(TurnPolicy):
    """A policy ``policy(p, i, j, b, s)`` over the AYZD position (``p`` = 1 or 2, ``s`` the
    shotguns set aside) read on the full game: it sees the turn's brains and shotguns, not the
    dice colours (the human-playable policies, the All Yellow optimum)."""

    def __init__(self, policy, name: Optional[str] = None):
        self.policy = policy
        self.name = name or str(getattr(policy, "__name__", "policy"))

    def decide(self, chain, seat, i, j, b):
        return self.signature(chain, seat, i, j, b)[np.minimum(chain.shotguns, 2)]

    def signature(self, chain, seat, i, j, b):
        """The decisions by shotguns set aside, ``(3, N)``."""
        args = (np.full(len(i), seat + 1), np.asarray(i), np.asarray(j), np.full(len(i), b), np.arange(3)[:, None])
        return np.asarray(ask_policy(self.policy, args, (3, len(i)), "(p, i, j, b, s)"), np.float64)


class RollUntilShotguns(TurnPolicy):
    """Roll while fewer than ``shotguns`` shotguns are set aside, then hold (whatever the scores)."""

    def __init__(self, shotguns: int):
        self.shotguns = shotguns
        self.name = f"roll_until_{shotguns}_shotgun" + ("s" if shotguns != 1 else "")

    def decide(self, chain, seat, i, j, b):
        return np.broadcast_to((chain.shotguns < self.shotguns).astype(float)[:, None], (chain.size, len(i)))

    def signature(self, chain, seat, i, j, b):
        return np.zeros((1, len(i)))  # the same decisions in every position

    def __call__(self, p, i, j, b, s):
        """The same policy over ``(p, i, j, b, s)`` (for :class:`~dice_envs.agents.evaluate.jeopardy_agents.PolicyAgent`)."""
        return np.asarray(s) < self.shotguns


class DicePolicy(TurnPolicy):
    """A policy given as a table ``roll[b, d]`` over turn brains and dice states, whatever the
    scores (rows past the table's last repeat it)."""

    def __init__(self, roll: np.ndarray, name: str = "dice_policy"):
        self.roll = np.asarray(roll, float)
        self.name = name

    def decide(self, chain, seat, i, j, b):
        return np.broadcast_to(self.roll[min(b, len(self.roll) - 1)][:, None], (chain.size, len(i)))

    def signature(self, chain, seat, i, j, b):
        return np.zeros((1, len(i)))  # the same decisions in every position


class ObservationPolicy(TurnPolicy):
    """A policy over the environment's observation vector: ``fn(obs) -> roll probabilities``
    for a ``(K, 24)`` float32 batch of the AEC observations of the mover (two players,
    official dice; :meth:`dice_envs.games.zombie_dice.rules.ZombieDiceState.observation`).  This is how a
    network trained on ``dice_envs/ZombieDice-v0`` (``variant="official"``) is scored exactly.
    ``goal`` only sets the last-round flag."""

    def __init__(self, fn, goal: int = DEFAULT_GOAL, name: str = "observation_policy"):
        self.fn, self.goal, self.name = fn, goal, name

    def decide(self, chain, seat, i, j, b):
        rows = np.flatnonzero(chain.brains <= b)  # the dice states that can occur with b brains
        obs = observations(chain, seat, np.asarray(i), np.asarray(j), b, self.goal, rows)
        K, N = obs.shape[:2]
        q = np.zeros((chain.size, N))
        q[rows] = np.asarray(self.fn(obs.reshape(K * N, -1)), float).reshape(K, N)
        if np.any((q < 0) | (q > 1)) or np.isnan(q).any():
            raise ValueError(f"policy {self.name} must return roll probabilities in [0, 1]")
        return q


def observations(chain: DiceChain, seat: int, i: np.ndarray, j: np.ndarray, b: int, goal: int,
                 rows: Optional[np.ndarray] = None) -> np.ndarray:
    """``(K, N, 24)`` AEC observations of the mover (seat ``seat`` of a two-player official
    game) in the dice states ``rows`` (default: all), at positions ``(i[n], j[n])`` with ``b``
    turn brains: exactly :meth:`dice_envs.games.zombie_dice.rules.ZombieDiceState.observation` (tested)."""
    rows = np.arange(chain.size) if rows is None else np.asarray(rows)
    K, N = len(rows), len(i)
    obs = np.zeros((K, N, 24), np.float32)
    obs[:, :, 0] = i
    obs[:, :, 1] = j
    obs[:, :, 2] = 1.0  # to move: the observer
    obs[:, :, 4:6] = 1.0  # both seats are in every round of a two-player game
    obs[:, :, 7] = 1.0 if seat == 1 else 0.0  # the other seat already played this round
    obs[:, :, 8] = b
    obs[:, :, 9] = chain.shotguns[rows, None]
    obs[:, :, 10] = (rows != chain.fresh)[:, None]
    obs[:, :, 11] = (np.maximum(i, j) >= goal)[None, :]
    for k, name in enumerate(("cup", "brain_dice", "shotgun_dice", "feet")):
        obs[:, :, 12 + 3 * k : 15 + 3 * k] = chain.dice(name)[rows, None, :]
    return obs


#: The features of :func:`observations` that depend on the dice state alone (shotguns, rolled flag,
#: the dice by colour); the others depend on the position and the turn's brains.
DICE_FEATURES = np.array([9, 10] + list(range(12, 24)))


class NetworkPolicy(TurnPolicy):
    """A multilayer perceptron over the environment's observation vector, played greedily: the
    decisions of :class:`ObservationPolicy` with ``fn(obs) = logits(x)[:, ROLL] > logits(x)[:, HOLD]``
    (hold on a tie) for ``x`` the observation in the env's encoding ``observation``, computed
    several times faster.

    ``weights[k]`` is ``(inputs, outputs)`` and ``biases[k]`` ``(outputs,)``; the hidden layers
    use ``activation`` (``"relu"`` or ``"tanh"``); the last layer gives the two logits (hold,
    roll).  ``observation``: the encoding the network was trained on (``"full"``, ``"scaled"``
    or ``"fourier"``: :meth:`dice_envs.games.zombie_dice.rules.ZombieDiceGame.encoded_observation`).

    The first layer is linear, and each input feature depends on the dice state alone
    (:data:`DICE_FEATURES`) or on the position and the turn's brains alone (the others,
    including the Fourier waves of the scores); so the first layer's input sum is computed once
    per dice state and once per position, and only added up per state (the same sum in another
    order: a decision can differ from :class:`ObservationPolicy`'s only where the two logits are
    equal to float32 rounding).
    """

    def __init__(self, weights, biases, activation: str = "relu", observation: str = "full",
                 goal: int = DEFAULT_GOAL, name: str = "network"):
        if activation not in ("relu", "tanh"):
            raise ValueError(f"activation must be 'relu' or 'tanh', got {activation!r}")
        self.game = ZombieDiceGame(2, "official", goal)
        inputs = self.game.encoded_bounds(observation)[0].size
        self.weights = [np.asarray(w, np.float32) for w in weights]
        self.biases = [np.asarray(v, np.float32) for v in biases]
        if not self.weights or self.weights[0].shape[0] != inputs or self.weights[-1].shape[1] != 2:
            raise ValueError(f"the network must take the {inputs} features of the two-player official observation "
                             f"(observation={observation!r}) and give 2 logits (hold, roll)")
        self.activation, self.observation, self.goal, self.name = activation, observation, goal, name
        self._dice_part: Optional[np.ndarray] = None

    def _act(self, h: np.ndarray) -> None:
        if self.activation == "relu":
            np.maximum(h, 0, out=h)
        else:
            np.tanh(h, out=h)

    def _first_layer(self, obs: np.ndarray, dice: bool) -> np.ndarray:
        """The first layer's input sum over the dice features (``dice``) or over the others."""
        x = np.array(self.game.encoded_observation(obs, self.observation))  # a copy, zeroed in part below
        drop = np.ones(x.shape[-1], bool)
        drop[DICE_FEATURES] = False
        x[..., drop if dice else ~drop] = 0.0
        return x @ self.weights[0]

    def decide(self, chain, seat, i, j, b):
        if self._dice_part is None:
            zero = np.zeros(1, int)
            self._dice_part = self._first_layer(observations(chain, 0, zero, zero, 0, self.goal)[:, 0], dice=True)
        rows = np.flatnonzero(chain.brains <= b)
        i, j = np.asarray(i), np.asarray(j)
        by_position = observations(chain, seat, i, j, b, self.goal, rows[:1])[0]
        P = self._first_layer(by_position, dice=False) + self.biases[0]  # (N, H)
        q = np.zeros((chain.size, len(i)))
        step = max(1, (1 << 14) // max(1, len(i)))  # blocks of about 16 k rows: their hidden layers stay in cache
        for lo in range(0, len(rows), step):
            part = rows[lo : lo + step]
            h = (self._dice_part[part][:, None, :] + P[None, :, :]).reshape(len(part) * len(i), -1)
            for w, v in zip(self.weights[1:], self.biases[1:]):
                self._act(h)
                h = h @ w
                h += v
            q[part] = (h[:, ROLL] > h[:, HOLD]).reshape(len(part), len(i))
        return q


class TablePolicy(TurnPolicy):
    """The solved optimum's decisions (:meth:`Solution.as_policy`)."""

    def __init__(self, solution: "Solution"):
        self.solution = solution
        self.name = "optimal"

    def decide(self, chain, seat, i, j, b):
        sol = self.solution
        top = sol.score_cap - 1
        i, j = np.minimum(i, top), np.minimum(j, top)
        out = np.zeros((chain.size, len(i)))
        for n in range(len(i)):
            if b < sol.layers[seat, i[n], j[n]]:
                out[:, n] = sol.row(sol.offset[seat, i[n], j[n]] + b)
        return out

    def signature(self, chain, seat, i, j, b):
        """The stored row of each position's decisions (-1: hold everywhere)."""
        sol = self.solution
        top = sol.score_cap - 1
        i, j = np.minimum(i, top), np.minimum(j, top)
        return np.where(b < sol.layers[seat, i, j], sol.offset[seat, i, j] + b, -1)[None, :].astype(np.float64)

    def by_score(self, t: int, k: int) -> np.ndarray:
        """Decisions of player 2 in the last round at ``k`` brains against ``t`` (``(D, 1)``)."""
        sol = self.solution
        if k < sol.layers[1, 0, t]:
            return sol.row(sol.offset[1, 0, t] + k)[:, None].astype(float)
        return np.zeros((sol.chain.size, 1))


# ---------------------------------------------------------------------------------------
# the solution


@dataclass
class Solution:
    """Optimal play of two-player official Zombie Dice.

    Attributes:
        goal, score_cap: the model.
        start: ``(2, M, M)``: the mover's win probability at the start of a turn in position
            ``(seat, i, j)`` (seat 0 moves first in a round); NaN where the position cannot occur.
        bits: the decisions, one bit per (layer, dice state) row of ``D8`` bits (packed);
            position ``(seat, i, j)`` owns ``layers[seat, i, j]`` rows from row
            ``offset[seat, i, j]`` on: row ``offset + b`` holds the decisions at ``b`` turn
            brains.  Past its rows the mover holds (the score cap, or stop_when_won).
        states: number of turn states of the model (positions times the turn states ``(d, b)``
            that can occur in them); ``seconds``, ``peak_memory`` (bytes; the process's peak
            resident size), ``timings`` (seconds per phase), ``iterations`` (policy iterations).
    """

    goal: int
    score_cap: int
    start: np.ndarray
    bits: np.ndarray
    offset: np.ndarray
    layers: np.ndarray
    D8: int
    seconds: float = 0.0
    states: int = 0
    peak_memory: int = 0
    timings: Dict[str, float] = field(default_factory=dict)
    iterations: int = 0
    positions: int = 0
    cached: bool = False

    @property
    def chain(self) -> DiceChain:
        return dice_chain(VARIANT)

    @property
    def first_player_win(self) -> float:
        """Probability that the player who moves first wins, from the empty board."""
        return float(self.start[0, 0, 0])

    def row(self, r: int) -> np.ndarray:
        """The decisions of row ``r`` (bool over dice states)."""
        D8 = self.D8 // 8
        return np.unpackbits(self.bits[r * D8 : (r + 1) * D8])[: self.chain.size].astype(bool)

    def roll_decision(self, seat, i, j, b, d, rolled=True) -> np.ndarray:
        """Vectorised decisions: roll (True) or hold, for movers in ``seat`` (0 = first in the
        round) with scores ``i``/``j``, ``b`` turn brains and dice state ``d``; a turn not yet
        rolled always rolls.  Scores and turn totals beyond the grid count as its top."""
        seat, i, j, b, d, rolled = np.broadcast_arrays(*(np.asarray(v) for v in (seat, i, j, b, d, rolled)))
        top = self.score_cap - 1
        i, j = np.minimum(i, top), np.minimum(j, top)
        b = np.minimum(b, top)
        inside = b < self.layers[seat, i, j]
        bit = (self.offset[seat, i, j] + b) * self.D8 + np.maximum(d, 0)
        byte = self.bits[np.where(inside, bit >> 3, 0)]
        value = (byte >> (7 - (bit & 7))) & 1
        return np.where(~np.asarray(rolled, bool), True, inside & (value == 1) & (d >= 0))

    def should_roll(self, state: ZombieDiceState) -> bool:
        """The optimal decision in a rules-core state of a two-player official game (a few
        microseconds: plain Python on the packed bits)."""
        if not state.rolled:
            return True
        mover = state.active[state.turn_index]
        seat = 0 if state.turn_index == 0 else 1
        top = self.score_cap - 1
        i, j = min(state.scores[mover], top), min(state.scores[1 - mover], top)
        b = min(state.turn_brains, top)
        if b >= self._layers[seat][i][j]:
            return False
        d = self.chain.state_of(state)
        if d < 0:
            return False
        bit = (self._offset[seat][i][j] + b) * self.D8 + d
        return bool((self._bytes[bit >> 3] >> (7 - (bit & 7))) & 1)

    @cached_property
    def _bytes(self) -> bytes:
        return self.bits.tobytes()

    @cached_property
    def _layers(self) -> list:
        return self.layers.tolist()

    @cached_property
    def _offset(self) -> list:
        return self.offset.tolist()

    def as_policy(self) -> TablePolicy:
        """The optimum as a :class:`TablePolicy` (one per solution, so that evaluations sharing a
        :class:`TurnOutcomes` share its turns)."""
        if self.__dict__.get("_policy") is None:
            self.__dict__["_policy"] = TablePolicy(self)
        return self.__dict__["_policy"]

    def value(self, state: ZombieDiceState) -> float:
        """The mover's win probability under optimal play in a rules-core state (recomputed
        for its position from the stored turn-start values: a fraction of a second)."""
        p, i, j, b, _ = state.two_player_view()
        top = self.score_cap - 1
        seat, i, j = p - 1, min(i, top), min(j, top)
        if not state.rolled:
            return float(self.start[seat, i, j])
        d = self.chain.state_of(state)
        key = (seat, i, j)
        if key not in self._values:
            self._values.clear()  # one position at a time (a turn's states)
            self._values[key] = _position_values(self, seat, i, j)
        V = self._values[key]
        return float(V[min(b, len(V) - 1), d])

    @cached_property
    def _values(self) -> dict:
        return {}

    def summary(self) -> dict:
        return {"goal": self.goal, "score_cap": self.score_cap, "first_player_win": self.first_player_win,
                "seconds": self.seconds, "states": self.states, "positions": self.positions,
                "dice_states": self.chain.size,
                "peak_memory": self.peak_memory, "policy_iterations": self.iterations,
                "timings": dict(self.timings)}


# ---------------------------------------------------------------------------------------
# the phases of the game


class _Grid:
    """The score grid being solved or evaluated: turn-start values and the decision rows."""

    def __init__(self, chain: DiceChain, goal: int, M: int, keep: bool):
        self.chain, self.goal, self.M, self.keep = chain, goal, M, keep
        self.start = np.full((2, M, M), np.nan)
        i = np.arange(M)[:, None]
        j = np.arange(M)[None, :]
        over = (np.maximum(i, j) >= goal) & (i != j)
        self.start[0] = np.where(over, (i > j).astype(float), np.nan)
        self.offset = np.zeros((2, M, M), np.int64)
        self.layers = np.zeros((2, M, M), np.int32)
        self.blocks: List[np.ndarray] = []
        self.rows = 0
        self.D8 = -(-chain.size // 8) * 8
        self.states = 0
        self.positions = 0
        self.iterations = 0
        self.timings: Dict[str, float] = {}  # seconds per phase of the pass that filled it

    def add_block(self, decisions: np.ndarray) -> int:
        """Store ``(layers, D)`` bool decisions; return their first row."""
        first = self.rows
        if self.keep:
            padded = np.zeros((len(decisions), self.D8), bool)
            padded[:, : decisions.shape[1]] = decisions
            self.blocks.append(np.packbits(padded, axis=1).ravel())
        self.rows += len(decisions)
        return first

    def count(self, layers: int) -> int:
        """Turn states of a position in which the mover chooses: ``(d, b)`` after a roll with
        ``b < layers`` that can occur (at least as many brains as brain dice set aside), plus
        the fresh turn."""
        layers = int(layers)
        return 1 + int(np.maximum(layers - self.chain.brains, 0).sum()) - layers  # the fresh state: b = 0 only

    def x_guess(self, seat: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Guess of the pass value ``1 - S(1 - seat, j, i)`` of ``(seat, i, j)``: extrapolated
        from the partner's neighbours with one and two more points (solved already)."""
        top = self.M - 1
        s1 = self.start[1 - seat, j, np.minimum(i + 1, top)]
        s2 = self.start[1 - seat, j, np.minimum(i + 2, top)]
        guess = np.where(np.isnan(s2), s1, np.clip(2 * s1 - s2, 0.0, 1.0))
        return 1.0 - np.nan_to_num(guess, nan=0.5)


def _affine_hold(values: np.ndarray, passes: np.ndarray) -> np.ndarray:
    """``(L, 2N)`` ``[const | coef]`` hold values: ``values`` where holding banks something,
    the pass value ``x`` (const 0, coef 1) where it does not."""
    return np.concatenate([np.where(passes, 0.0, values), passes.astype(float)], axis=1)


def _solve_batch_pair(grid: _Grid, batch0, batch1, outcomes0=None, outcomes1=None, max_iterations: int = 100):
    """Solve two coupled batches: position ``n`` of one passes the turn to position ``n`` of the
    other (a bust, or a hold with nothing), the unknown of the pair.

    Each batch is ``(hold_values (L, N), passes (L, N), forced (L, N), x_guess (N,))``.  With
    ``outcomes0``/``outcomes1`` (:func:`_turn_outcomes` of fixed policies) their values are
    exact at once, and ``Q0``/``Q1`` are None.  Else policy iteration,
    pair by pair (:func:`dice_envs.agents.solve.jeopardy.solve_pairs`): choose greedily at the
    guessed pass values, solve the pair's two affine equations exactly, and stop when every
    decision is greedy with respect to its own exact values; only the positions whose
    decisions are not are solved again.  Returns ``(S0, S1, Q0, Q1)``.
    """
    chain = grid.chain
    h = (_affine_hold(batch0[0], batch0[1]), _affine_hold(batch1[0], batch1[1]))
    forced = (batch0[2], batch1[2])
    N = forced[0].shape[1]
    if outcomes0 is not None:
        grid.iterations += 1
        F0, F1 = _expected_hold(outcomes0, h[0], True), _expected_hold(outcomes1, h[1], True)
        S0, S1 = _pair_values(F0[:N], F0[N:], F1[:N], F1[N:])
        return S0, S1, None, None
    x = [batch0[3].astype(float).copy(), batch1[3].astype(float).copy()]
    a = [np.zeros(N), np.zeros(N)]
    c = [np.zeros(N), np.zeros(N)]
    lo = [np.zeros(N), np.zeros(N)]
    hi = [np.zeros(N), np.zeros(N)]
    Q = [np.zeros(forced[0].shape[:1] + (chain.size, N), bool), np.zeros(forced[1].shape[:1] + (chain.size, N), bool)]
    todo = [np.ones(N, bool), np.ones(N, bool)]
    first_forced = [np.argmax(forced[0], axis=0), np.argmax(forced[1], axis=0)]
    for _ in range(max_iterations):
        for side in (0, 1):
            cols = np.flatnonzero(todo[side])
            if not len(cols):
                continue
            grid.iterations += 1
            L = max(int(first_forced[side][cols].max()) + 1, 2)
            hold = h[side][:L][:, np.concatenate([cols, N + cols])]
            _, Qs, F, (l, u) = _backward(chain, hold, forced[side][:L, cols], x[side][cols], True, bounds=True)
            k = len(cols)
            a[side][cols], c[side][cols], lo[side][cols], hi[side][cols] = F[0, :k], F[0, k:], l, u
            Q[side][:, :, cols] = False
            Q[side][:L, :, cols] = Qs
        S0, S1 = _pair_values(a[0], c[0], a[1], c[1])
        x = [1.0 - S1, 1.0 - S0]
        todo = [(x[s] < lo[s]) | (x[s] > hi[s]) for s in (0, 1)]
        if not (todo[0].any() or todo[1].any()):
            return S0, S1, Q[0], Q[1]
    raise RuntimeError(f"policy iteration did not settle in {max_iterations} iterations")


def _tie_batches(grid: _Grid, t: int, stop_when_won: bool = True):
    """The tiebreak pair at ``t >= goal``: ``(0, t, t)`` and ``(1, t, t)``."""
    M, start = grid.M, grid.start
    top = M - 1
    # (0, t, t): holding k > t leaves player 2 the last turn (1, t, k).
    f0 = top - t
    L0 = max(f0 + 1, 2)
    b = np.arange(L0)
    k = np.minimum(t + b, top)
    values0 = np.where(k > t, 1.0 - start[1, t, k], 0.0)[:, None]
    passes0 = (k == t)[:, None]
    forced0 = (b >= f0)[:, None]
    # (1, t, t): holding with any brain wins, unless at the cap; stop_when_won holds there.
    f1 = 1 if t < top else 0
    if not stop_when_won and t < top:
        f1 += _past_the_win(grid)
    L1 = max(f1 + 1, 2)
    b = np.arange(L1)
    k = np.minimum(t + b, top)
    values1 = np.where(k > t, 1.0, 0.0)[:, None]
    passes1 = (k == t)[:, None]
    forced1 = (b >= f1)[:, None]
    guess = np.array([0.5])
    return (values0, passes0, forced0, guess), (values1, passes1, forced1, guess), f0, f1


def _past_the_win(grid: _Grid) -> int:
    """How many brains past a win a player 2 who rolls on (``stop_when_won=False``) may gain
    before the turn holds: as far as the grid reaches past the goal, ``M - 1 - goal``.  Scores
    are unbounded; this is where the model cuts such a turn short, as the score cap does every
    other (below the goal it is the cap itself).  Measured on a shorter reach, the
    Differences hardly move (see the tests)."""
    return grid.M - 1 - grid.goal


def _last_round_limit(grid: _Grid, t: int, stop_when_won: bool) -> int:
    """The banked score at which player 2's last turn against ``t >= goal`` ends by holding: one
    more than ``t`` (a win) with ``stop_when_won``, else the score cap's ``M - 1`` (the solve, and
    the optimum's turns, which hold once they win; a policy's own turns under the letter of
    the rules end :func:`_past_the_win` brains past the win, :func:`_last_round_by_position`)."""
    top = grid.M - 1
    return t + 1 if stop_when_won and t < top else top


def _last_round_hold(grid: _Grid, t: int, k: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Holding with banked score ``k`` in player 2's last turn against ``t >= goal``: ``(win,
    tie)`` indicators (floats), the hold's value being ``win + tau tie`` with ``tau`` the
    tiebreak's.  Above ``t`` wins, ``t`` ties, below loses; at the score cap (``t`` is ``M - 1``)
    no score passes ``t``."""
    top = grid.M - 1
    k = np.minimum(k, top)
    win = (k > t) & (t < top)
    return win.astype(float), (k == t).astype(float)


def _last_round_batch(grid: _Grid, t: int, tau: float, stop_when_won: bool = True):
    """Player 2's last turn against ``t >= goal``, indexed by the banked score ``k`` (all ``i``)."""
    f = _last_round_limit(grid, t, stop_when_won)
    k = np.arange(f + 1)
    win, tie = _last_round_hold(grid, t, k)
    return (win + tau * tie)[:, None], (k >= f)[:, None], f


def _ab_batches(grid: _Grid, sigma: int, stop_when_won: bool = True):
    """Below the goal: positions ``(0, i, j)`` and their partners ``(1, j, i)`` with ``i + j = sigma``."""
    goal, M, start = grid.goal, grid.M, grid.start
    top = M - 1
    i = np.arange(max(0, sigma - goal + 1), min(goal - 1, sigma) + 1)
    j = sigma - i
    # Seat 0 at (i, j): holding k leaves (1, j, k); the cap at k = M - 1.
    f0 = top - i
    L0 = int(f0.max()) + 1
    b = np.arange(L0)[:, None]
    k0 = np.minimum(i[None, :] + b, top)
    values0 = 1.0 - start[1, j[None, :], k0]
    passes0 = np.broadcast_to(b == 0, values0.shape)
    forced0 = b >= f0[None, :]
    # Seat 1 at (j, i): holding k < goal leaves (0, i, k); k >= goal (> i) wins, and ends the
    # turn with stop_when_won (else the cap does).
    f1 = goal - j if stop_when_won else top - j
    L1 = int(f1.max()) + 1
    b1 = np.arange(L1)[:, None]
    k1 = j[None, :] + b1
    values1 = np.where(k1 >= goal, 1.0, 1.0 - start[0, i[None, :], np.minimum(k1, goal - 1)])
    passes1 = np.broadcast_to(b1 == 0, values1.shape)
    forced1 = b1 >= f1[None, :]
    guess0 = grid.x_guess(0, i, j)
    guess1 = grid.x_guess(1, j, i)
    if np.isnan(values0[~passes0 & ~forced0]).any() or np.isnan(values1[~passes1 & ~forced1]).any():
        raise AssertionError("a hold leads to a position not solved yet")
    return i, j, (values0, passes0, forced0, guess0), (values1, passes1, forced1, guess1), f0, f1


def _run(goal: int, M: int, policies: Optional[Tuple[TurnPolicy, TurnPolicy]] = None, keep: bool = True,
         progress: Optional[Callable[[str, float], None]] = None, stop_when_won: bool = True,
         outcomes: Optional[TurnOutcomes] = None) -> _Grid:
    """Solve (``policies`` None) or evaluate the whole grid; ``stop_when_won=False`` lets a
    player 2 who would win by holding roll on (the letter of the rules).  An evaluation reads
    each policy's turn outcomes from ``outcomes`` (shared between evaluations; default: its own)."""
    chain = dice_chain(VARIANT)
    grid = _Grid(chain, goal, M, keep and policies is None)
    top = M - 1
    timings = {"last round and tiebreaks": 0.0, "below the goal": 0.0}
    t_start = time.perf_counter()
    turns = outcomes if outcomes is not None else TurnOutcomes(chain)  # (not used when solving)

    def ends(seat, i, j, forced):
        """The turn outcomes of seat ``seat``'s policy at ``(seat, i, j)`` (None when solving)."""
        return None if policies is None else turns(policies[seat], seat, i, j, forced)

    # 1. The last round and the tiebreaks, from the top of the grid down.
    for t in range(top, goal - 1, -1):
        batch0, batch1, f0, f1 = _tie_batches(grid, t, stop_when_won)
        S0, S1, Q0, Q1 = _solve_batch_pair(grid, batch0, batch1, ends(0, t, t, batch0[2]), ends(1, t, t, batch1[2]))
        grid.start[0, t, t], grid.start[1, t, t] = S0[0], S1[0]
        if policies is None:
            grid.offset[0, t, t], grid.layers[0, t, t] = grid.add_block(Q0[:f0, :, 0]), f0
            grid.offset[1, t, t], grid.layers[1, t, t] = grid.add_block(Q1[:f1, :, 0]), f1
        grid.states += grid.count(f0) + grid.count(f1)
        grid.positions += 2 + t
        tau = 1.0 - S0[0]
        # Player 2's last turn (1, i, t), i < t: bust or hold below t loses, t ties, above wins.
        f = _last_round_limit(grid, t, stop_when_won)
        if policies is None:
            hold, forced, _ = _last_round_batch(grid, t, tau, stop_when_won)
            _, Q, F, _ = _backward(chain, hold, forced, np.zeros(1), False)
            grid.start[1, :t, t] = F[:t, 0]
            first = grid.add_block(Q[:f, :, 0])
            i = np.arange(t)
            grid.offset[1, i, t] = first + i
            grid.layers[1, i, t] = f - i
        elif _is_table(policies[1], goal, M):  # decisions by banked score: every i in one pass
            win, tie = turns.last_round(policies[1], grid, t, stop_when_won)
            grid.start[1, :t, t] = win + tau * tie
        else:
            _last_round_by_position(grid, t, tau, lambda i, forced: ends(1, i, t, forced), stop_when_won)
        grid.states += sum(grid.count(f - i) for i in range(t))
    timings["last round and tiebreaks"] = time.perf_counter() - t_start
    if progress:
        progress("last round and tiebreaks", timings["last round and tiebreaks"])
    # 2. Below the goal, by decreasing total score.
    t1 = time.perf_counter()
    for sigma in range(2 * (goal - 1), -1, -1):
        i, j, batch0, batch1, f0, f1 = _ab_batches(grid, sigma, stop_when_won)
        S0, S1, Q0, Q1 = _solve_batch_pair(grid, batch0, batch1, ends(0, i, j, batch0[2]), ends(1, j, i, batch1[2]))
        grid.start[0, i, j], grid.start[1, j, i] = S0, S1
        for n in range(len(i)):
            if policies is None:
                grid.offset[0, i[n], j[n]] = grid.add_block(Q0[: f0[n], :, n])
                grid.layers[0, i[n], j[n]] = f0[n]
                grid.offset[1, j[n], i[n]] = grid.add_block(Q1[: f1[n], :, n])
                grid.layers[1, j[n], i[n]] = f1[n]
            grid.states += grid.count(f0[n]) + grid.count(f1[n])
            grid.positions += 2
    timings["below the goal"] = time.perf_counter() - t1
    grid.timings = timings
    return grid


def _is_table(policy: "TurnPolicy", goal: int, M: int) -> TypeGuard["TablePolicy"]:
    """Whether ``policy`` is the solved optimum of this grid (its decisions in the last round
    depend on the banked score only)."""
    return isinstance(policy, TablePolicy) and policy.solution.goal == goal and policy.solution.score_cap == M


def _last_round_by_position(grid: _Grid, t: int, tau: float, ends, stop_when_won: bool = True, chunk: int = 16):
    """Evaluation of player 2's last turn, positions ``(1, i, t)``, ``i < t`` (a bust loses),
    from ``ends(i, forced)``, the turn outcomes of player 2's policy, ``chunk`` positions at a time."""
    top = grid.M - 1
    limit = _last_round_limit(grid, t, True)  # banked score at which the mover holds (a win, or the cap)
    if not stop_when_won and t < top:
        limit += _past_the_win(grid)
    for lo in range(0, t, chunk):
        i = np.arange(lo, min(lo + chunk, t))
        f = limit - i
        b = np.arange(int(f.max()) + 1)[:, None]
        win, tie = _last_round_hold(grid, t, i[None, :] + b)
        hold = win + tau * tie
        grid.start[1, i, t] = _expected_hold(ends(i, b >= f[None, :]), hold, False)


def _peak_memory() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def _estimate(M: int, goal: int) -> Tuple[float, float, float]:
    """``(bytes, seconds, seconds of the dice chain)`` of a solve: the largest batch holds the
    values of ``(M + 3) x D x 2 goal`` float64 (and as much again in temporaries), on top of
    about 400 MB (the chain, the decisions, Python); the time is a rate fitted to measured solves
    (35 s at goal 13 with cap 52, plus 5 s for the chain)."""
    D = 10_766
    memory = 2 * (M + 3) * D * 2 * goal * 8 + 400e6
    layer_positions = goal * goal * (M - goal / 2) + goal * goal * goal / 2 + M * M
    return memory, 3e-3 * layer_positions, 5.0


def solve(goal: int = DEFAULT_GOAL, score_cap: Optional[int] = None,
          progress: Optional[Callable[[str, float], None]] = None) -> Solution:
    """Optimal (win-probability maximising) play for both seats, by exact policy iteration.

    Args:
        goal: the score that triggers the last round (13).
        score_cap: grid size (default :func:`default_score_cap`).
        progress: called as ``progress(phase, seconds)`` after each phase.
    """
    check_int("goal", goal, 1)
    M = check_score_cap(score_cap, goal)
    memory, seconds, chain_seconds = _estimate(M, goal)
    check_resources(f"solving official Zombie Dice at goal {goal} (score cap {M})", memory, seconds + chain_seconds)
    chain = dice_chain(VARIANT)
    t0 = time.perf_counter()
    grid = _run(goal, M, progress=progress)
    bits = np.concatenate(grid.blocks) if grid.blocks else np.zeros(0, np.uint8)
    timings = {"dice chain": chain.build_seconds, **grid.timings}
    # The seconds count the dice chain's enumeration (done once per process) as part of the solve.
    seconds = chain.build_seconds + time.perf_counter() - t0
    return Solution(goal, M, grid.start, bits, grid.offset, grid.layers, grid.D8, seconds,
                    int(grid.states), _peak_memory(), timings, int(grid.iterations), int(grid.positions))


def evaluate(first: TurnPolicy, second: TurnPolicy, goal: int = DEFAULT_GOAL, score_cap: Optional[int] = None,
             stop_when_won: bool = True, outcomes: Optional[TurnOutcomes] = None) -> float:
    """Exact probability that ``first`` (moving first in every round) beats ``second``.

    ``stop_when_won`` (default) is the environment's default ending: a player 2 who would win
    by holding holds.  ``False`` is the letter of the rules: that player's policy decides, and
    may roll on and bust.  The optimum is the same under both (holding wins, and every roll
    can bust), so one :func:`solve` serves both.  ``outcomes`` shares the policies' turn
    outcomes with other evaluations (as :func:`differences` does)."""
    return float(evaluate_grid(first, second, goal, score_cap, stop_when_won, outcomes)[0, 0, 0])


def evaluate_grid(first: TurnPolicy, second: TurnPolicy, goal: int = DEFAULT_GOAL,
                  score_cap: Optional[int] = None, stop_when_won: bool = True,
                  outcomes: Optional[TurnOutcomes] = None) -> np.ndarray:
    """The ``(2, M, M)`` turn-start win probabilities of the mover when ``first`` plays seat 0
    and ``second`` seat 1 (``stop_when_won`` and ``outcomes`` as in :func:`evaluate`)."""
    check_int("goal", goal, 1)
    M = check_score_cap(score_cap, goal)
    policies = (_as_turn_policy(first), _as_turn_policy(second))
    return _run(goal, M, policies, keep=False, stop_when_won=bool(stop_when_won), outcomes=outcomes).start


def _as_turn_policy(policy) -> TurnPolicy:
    if isinstance(policy, TurnPolicy):
        return policy
    if isinstance(policy, Solution):
        return policy.as_policy()
    if callable(policy):
        return ScorePolicy(policy)
    raise ValueError(f"a policy must be a TurnPolicy, a Solution or a policy(p, i, j, b, s), got {policy!r}")


def head_to_head(candidate, reference, goal: int = DEFAULT_GOAL, score_cap: Optional[int] = None,
                 stop_when_won: bool = True, outcomes: Optional[TurnOutcomes] = None) -> HeadToHead:
    """Exact head-to-head of ``candidate`` against ``reference`` from both seats (the Difference;
    ``stop_when_won`` and ``outcomes`` as in :func:`evaluate`)."""
    candidate, reference = _as_turn_policy(candidate), _as_turn_policy(reference)
    outcomes = TurnOutcomes(dice_chain(VARIANT)) if outcomes is None else outcomes
    first = evaluate(candidate, reference, goal, score_cap, stop_when_won, outcomes)
    second = 1.0 - evaluate(reference, candidate, goal, score_cap, stop_when_won, outcomes)
    return HeadToHead(first, second)


def _position_values(solution: Solution, seat: int, i: int, j: int) -> np.ndarray:
    """``(layers, D)`` optimal win probabilities of the mover in the turn states ``(d, b)`` after a
    roll in position ``(seat, i, j)``, recomputed from the stored turn-start values (layers past
    the last repeat it)."""
    chain, goal, start = solution.chain, solution.goal, solution.start
    grid = _Grid(chain, goal, solution.score_cap, keep=False)
    grid.start = start
    if seat == 1 and j >= goal and i < j:  # player 2's last turn: by banked score k = i + b
        hold, forced, _ = _last_round_batch(grid, j, 1.0 - start[0, j, j])
        V, _, _, _ = _backward(chain, hold, forced, np.zeros(1), False)
        return V[i:, :, 0]
    if i == j and i >= goal:
        batch, n = _tie_batches(grid, i)[seat], 0
    elif i < goal and j < goal:
        ii, jj, batch0, batch1, _, _ = _ab_batches(grid, i + j)
        batch = batch0 if seat == 0 else batch1
        n = int(np.flatnonzero((ii if seat == 0 else jj) == i)[0])
    else:
        raise ValueError(f"position {(seat, i, j)} does not occur in play")
    values, passes, forced, _ = batch
    x_pass = 1.0 - start[1 - seat, j, i]
    L = max(int(np.argmax(forced[:, n])) + 1, 2)
    hold = np.where(passes[:L, [n]], x_pass, values[:L, [n]])
    V, _, _, _ = _backward(chain, hold, forced[:L, [n]], np.array([x_pass]), False)
    return V[:, :, 0]


# ---------------------------------------------------------------------------------------
# fixed policies: one turn, the expected-brains maximiser, the standard set


def one_turn(roll: np.ndarray) -> Dict[str, float]:
    """Exact figures of one turn from a fresh cup for a policy that rolls in the dice states
    where ``roll`` (bool over dice states) is True and holds elsewhere (it may not look at
    the turn's brains or the scores): expected brains banked and probability of busting.

    Solved as two sparse linear systems over the dice states (the chain has cycles through
    the cup refill, so no backward induction): ``P`` the probability of ending by holding,
    ``B`` the expected brains gained from now on counted only when the turn ends by holding.
    """
    chain = dice_chain(VARIANT)
    D = chain.size
    roll = np.asarray(roll, bool).copy()
    roll[chain.fresh] = True
    T = chain.matrix()
    moving = sp.diags(roll.astype(float))
    A = sp.identity(D, format="csr") - moving @ (T + sp.diags(chain.self_loop))
    P = spla.spsolve(A.tocsc(), (~roll).astype(float))
    G = sp.csr_matrix((chain.prob * chain.gain, (chain.src, chain.dst)), shape=(D, D))
    B = spla.spsolve(A.tocsc(), moving @ (G @ P))
    return {"expected_brains": float(B[chain.fresh]), "bust": float(1.0 - P[chain.fresh])}


def max_expected_brains_policy(top: int = 400) -> DicePolicy:
    """The policy that maximises the expected brains banked in a turn (whatever the scores):
    backward induction over ``(d, b)`` up to ``b = top`` (where it holds; the decisions at the
    turn totals of any grid do not change when ``top`` is doubled: see the tests)."""
    chain = dice_chain(VARIANT)
    hold = np.arange(top + 1, dtype=float)[:, None]
    forced = np.zeros((top + 1, 1), bool)
    forced[-1] = True
    _, Q, _, _ = _backward(chain, hold, forced, np.zeros(1), False)
    return DicePolicy(Q[:, :, 0], "max_expected_brains")


def expected_brains_value(policy: DicePolicy, top: int = 400) -> float:
    """Expected brains banked in one turn from a fresh cup by a :class:`DicePolicy`."""
    chain = dice_chain(VARIANT)
    hold = np.arange(top + 1, dtype=float)[:, None]
    forced = np.zeros((top + 1, 1), bool)
    forced[-1] = True
    _, _, F, _ = _backward(chain, hold, forced, np.zeros(1), False,
                        lambda b: policy.decide(chain, 0, np.zeros(1, int), np.zeros(1, int), b))
    return float(F[0, 0])


def turn_figures(policy: TurnPolicy, top: int = 400) -> Dict[str, float]:
    """Exact one-turn figures from a fresh cup, whatever the scores (the first turn of the
    first player): ``expected_brains`` banked and the probability of busting (``bust``).

    A :class:`RollUntilShotguns` policy is solved exactly over the dice states
    (:func:`one_turn`); any other policy that ignores the scores over ``(d, b)`` up to ``top``
    turn brains, where it is made to hold."""
    chain = dice_chain(VARIANT)
    if isinstance(policy, RollUntilShotguns):
        return one_turn(chain.shotguns < policy.shotguns)
    forced = np.zeros((top + 1, 1), bool)
    forced[-1] = True
    zero = np.zeros(1, int)
    decide = lambda b: policy.decide(chain, 0, zero, zero, b)  # noqa: E731
    brains = np.arange(top + 1, dtype=float)[:, None]
    _, _, F, _ = _backward(chain, brains, forced, np.zeros(1), False, decide)
    _, _, H, _ = _backward(chain, np.ones((top + 1, 1)), forced, np.zeros(1), False, decide)
    return {"expected_brains": float(F[0, 0]), "bust": float(1.0 - H[0, 0])}


def standard_policies(goal: int = DEFAULT_GOAL) -> Dict[str, TurnPolicy]:
    """The policies of the Difference table: the four human-playable policies read on the full
    game, the All Yellow optimum, roll until 2 / 1 shotguns, the expected-brains maximiser and
    random."""
    from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
    from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES, random_policy

    out: Dict[str, TurnPolicy] = {name: ScorePolicy(partial(policy, goal=goal), name)
                                  for name, policy in HUMAN_POLICIES.items()}
    out["all_yellow_optimal"] = ScorePolicy(ayzd.solve(goal).as_policy(), "all_yellow_optimal")
    out["roll_until_2_shotguns"] = RollUntilShotguns(2)
    out["roll_until_1_shotgun"] = RollUntilShotguns(1)
    out["max_expected_brains"] = max_expected_brains_policy()
    out["random"] = ScorePolicy(random_policy, "random")
    return out


def differences(solution: Solution, policies: Optional[Mapping[str, TurnPolicy]] = None,
                progress: Optional[Callable[[str, float], None]] = None, stop_when_won: bool = True,
                outcomes: Optional[TurnOutcomes] = None) -> Dict[str, dict]:
    """Exact head-to-head of each policy (default :func:`standard_policies`) against the
    solved optimum from both seats: ``win_as_first``, ``win_as_second``, ``difference``
    (``stop_when_won`` as in :func:`evaluate`).  The evaluations share the turn outcomes (pass
    ``outcomes`` to share them with another call, e.g. under the other reading)."""
    policies = standard_policies(solution.goal) if policies is None else policies
    optimal = solution.as_policy()
    outcomes = TurnOutcomes(solution.chain) if outcomes is None else outcomes
    out = {}
    for name, policy in policies.items():
        t0 = time.perf_counter()
        out[name] = head_to_head(policy, optimal, solution.goal, solution.score_cap, stop_when_won,
                                 outcomes).as_dict()
        if progress:
            progress(name, time.perf_counter() - t0)
    return out


#: The human-playable policies whose Differences on the full game are :func:`exact_score`'s references.
REFERENCE_POLICIES = ("fixed_hold_at", "minh", "llano", "neller")
_REFERENCES: Dict[Tuple[int, int, bool], Dict[str, float]] = {}


def human_differences(goal: int = DEFAULT_GOAL, score_cap: Optional[int] = None,
                      stop_when_won: bool = True) -> Dict[str, float]:
    """The exact Differences against the optimum of the four human-playable policies read on the
    full game (:data:`REFERENCE_POLICIES`, as in :func:`differences`), computed once per process
    and ``(goal, score_cap, stop_when_won)`` (about 1 minute at goal 13)."""
    from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES

    M = check_score_cap(score_cap, goal)
    key = (goal, M, bool(stop_when_won))
    if key not in _REFERENCES:
        policies = {name: ScorePolicy(partial(HUMAN_POLICIES[name], goal=goal), name) for name in REFERENCE_POLICIES}
        found = differences(solved(goal, M), policies, stop_when_won=stop_when_won)
        _REFERENCES[key] = {name: found[name]["difference"] for name in REFERENCE_POLICIES}
    return dict(_REFERENCES[key])


def exact_score(policy, goal: int = DEFAULT_GOAL, score_cap: Optional[int] = None, references: bool = True,
                stop_when_won: bool = True) -> dict:
    """Exact head-to-head of ``policy`` against the solved optimum, from both seats.

    ``policy`` is a function of the environment's observations, ``fn(obs) -> roll
    probabilities`` for a ``(K, 24)`` float32 batch of AEC observations of the mover
    (:class:`ObservationPolicy`: how a network trained on ``dice_envs/ZombieDice-v0`` with the
    official dice is scored; a network trained on ``observation="scaled"`` scales them first with
    :meth:`dice_envs.games.zombie_dice.rules.ZombieDiceGame.scaled_observation`), or any :class:`TurnPolicy`.
    The optimum is :func:`solved` at ``goal`` and ``score_cap`` (default :func:`default_score_cap`);
    ``stop_when_won`` as in :func:`evaluate`.

    Returns ``win_as_first``, ``win_as_second``, ``difference`` (``2 (w - 1/2)`` for the
    seat-averaged win probability ``w``) and, with ``references``, ``references`` (the
    Differences of the four human-playable policies, :func:`human_differences`) and
    ``reached`` (for each, whether ``difference >=`` its Difference).  About 1 minute at goal 13
    plus the policy's own time on 3.4e8 observations (a 64 x 64 network: several minutes).
    """
    check_int("goal", goal, 1)
    M = check_score_cap(score_cap, goal)
    candidate = policy if isinstance(policy, TurnPolicy) else ObservationPolicy(policy, goal, "learned")
    result: Dict[str, Any] = head_to_head(candidate, solved(goal, M).as_policy(), goal, M, stop_when_won).as_dict()
    if references:
        result["references"] = human_differences(goal, M, stop_when_won)
        result["reached"] = {name: bool(result["difference"] >= gap) for name, gap in result["references"].items()}
    return result


def cap_check(goal: int = DEFAULT_GOAL, score_cap: Optional[int] = None, raised: Optional[int] = None,
              base: Optional[Solution] = None) -> dict:
    """Solve at ``score_cap`` and at ``raised`` (default: 16 more) and compare.

    Positions near a grid's top are the cap's own artefacts (a score of ``M - 1`` stands for
    every score from there on), so the comparison reports: the change of the first player's
    win probability; the largest change of a turn-start value below the goal (both scores
    under it) and at every score below ``score_cap / 2``; and, over every turn state
    ``(seat, i, j, d, b)`` that both grids decide and that can occur, how many decisions differ
    and the smallest score (``max(i + b, j)``) at which one does.
    """
    M = check_score_cap(score_cap, goal)
    raised = raised or M + 16
    if raised <= M:
        raise ValueError(f"the raised cap must exceed {M}, got {raised}")
    small = base if base is not None and base.score_cap == M and base.goal == goal else solve(goal, M)
    big = solve(goal, raised)
    a, b = small.start, big.start[:, :M, :M]
    both = ~np.isnan(a) & ~np.isnan(b)
    change = np.where(both, np.abs(a - b), 0.0)
    i = np.arange(M)[:, None]
    j = np.arange(M)[None, :]
    chain = small.chain
    compared = differ = 0
    lowest = None
    for seat, ii, jj in zip(*np.nonzero(both & (small.layers > 0))):
        n = int(min(small.layers[seat, ii, jj], big.layers[seat, ii, jj]))
        rows1 = small.offset[seat, ii, jj] + np.arange(n)
        rows2 = big.offset[seat, ii, jj] + np.arange(n)
        r1 = np.stack([small.row(r) for r in rows1])
        r2 = np.stack([big.row(r) for r in rows2])
        possible = chain.brains[None, :] <= np.arange(n)[:, None]
        bad = (r1 != r2) & possible
        compared += int(possible.sum())
        if bad.any():
            differ += int(bad.sum())
            score = max(int(ii) + int(np.flatnonzero(bad.any(axis=1))[0]), int(jj))
            lowest = score if lowest is None else min(lowest, score)
    return {
        "score_cap": M,
        "raised_cap": raised,
        "first_player_win_change": abs(small.first_player_win - big.first_player_win),
        "max_change_below_goal": float(change[:, np.maximum(i, j) < goal].max()),
        "max_change_below_half_cap": float(change[:, np.maximum(i, j) < M // 2].max()),
        "decisions_compared": compared,
        "decisions_changed": differ,
        "lowest_score_with_a_changed_decision": lowest,
        "seconds_raised": big.seconds,
    }


# ---------------------------------------------------------------------------------------
# the cache


def _cache_key(goal: int, M: int) -> dict:
    return {"solver_version": SOLVER_VERSION, "game": "zombie_dice", "variant": VARIANT, "num_players": 2,
            "goal": int(goal), "score_cap": int(M), "stop_when_won": True, "dice_states": dice_chain(VARIANT).size}


def _digest(arrays: Dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def store_cached(solution: Solution, cache_dir: str) -> Optional[str]:
    """Write the solution atomically (:mod:`dice_envs.agents.solve.cache`); None (with one
    warning) if the cache location cannot be written."""
    key = _cache_key(solution.goal, solution.score_cap)
    arrays = {"start": solution.start, "bits": solution.bits, "offset": solution.offset, "layers": solution.layers}
    meta = {**key, "digest": _digest(arrays), "D8": solution.D8, "seconds": solution.seconds,
            "states": solution.states, "peak_memory": solution.peak_memory, "timings": solution.timings,
            "iterations": solution.iterations, "positions": solution.positions,
            "first_player_win": solution.first_player_win}
    return solver_cache.store(solver_cache.cache_path("zombie_dice", key, cache_dir), arrays, meta)


def load_cached(goal: int, score_cap: int, cache_dir: str, verify: bool = False,
                outcomes: Optional[TurnOutcomes] = None) -> Optional[Solution]:
    """The cached solution, or None if missing, stale or damaged.

    Trusted only if its metadata matches (solver version, game, goal, cap, dice states), the
    arrays have the right shapes and types, their SHA-256 digest is the one recorded when they
    were written, the decision rows are consistent (every position's rows inside the bit
    array), and the stored first-player win is the stored start value.  With ``verify`` the
    stored policy is also evaluated exactly against itself (seconds) and must reproduce every
    stored turn-start value to 1e-9 (its turns kept in ``outcomes``, for the evaluations that follow).
    """
    key = _cache_key(goal, score_cap)
    found = solver_cache.load(solver_cache.cache_path("zombie_dice", key, cache_dir))
    if found is None:
        return None
    arrays, meta = found
    try:
        if {k: meta.get(k) for k in key} != key:
            return None
        M = score_cap
        start, bits, offset, layers = arrays["start"], arrays["bits"], arrays["offset"], arrays["layers"]
        D8 = int(meta["D8"])
        if (start.shape != (2, M, M) or offset.shape != (2, M, M) or layers.shape != (2, M, M)
                or start.dtype != np.float64 or bits.dtype != np.uint8 or bits.ndim != 1
                or not np.issubdtype(offset.dtype, np.integer) or not np.issubdtype(layers.dtype, np.integer)
                or D8 != -(-dice_chain(VARIANT).size // 8) * 8):
            return None
        if meta["digest"] != _digest(arrays):
            return None
        rows = bits.size * 8 // D8
        if np.any(layers < 0) or np.any((layers > 0) & ((offset < 0) | (offset + layers > rows))):
            return None
        if not (abs(float(start[0, 0, 0]) - float(meta["first_player_win"])) < 1e-15):
            return None
        solution = Solution(goal, M, start, bits, offset.astype(np.int64), layers.astype(np.int32), D8,
                            float(meta["seconds"]), int(meta["states"]), int(meta["peak_memory"]),
                            {k: float(v) for k, v in meta["timings"].items()}, int(meta["iterations"]),
                            int(meta["positions"]), cached=True)
        if verify:
            again = evaluate_grid(solution.as_policy(), solution.as_policy(), goal, M, outcomes=outcomes)
            both = ~np.isnan(start)
            if not np.all(np.abs(again[both] - start[both]) < 1e-9):
                return None
        return solution
    except (KeyError, TypeError, ValueError):
        return None


def solved(goal: int = DEFAULT_GOAL, score_cap: Optional[int] = None, cache_dir: Optional[str] = None,
           verify: bool = False, progress=None, outcomes: Optional[TurnOutcomes] = None) -> Solution:
    """The solution, from the on-disk cache (``cache_dir``, default
    :func:`dice_envs.agents.solve.cache.default_cache_dir`; ``verify`` and ``outcomes`` as in
    :func:`load_cached`) or solved and cached there; also kept in memory for the process."""
    M = check_score_cap(score_cap, goal)
    cache_dir = cache_dir or solver_cache.default_cache_dir()
    key = (goal, M, cache_dir)
    hit = _MEMORY.get(key)
    if hit is not None:
        return hit
    solution = load_cached(goal, M, cache_dir, verify=verify, outcomes=outcomes)
    if solution is None:
        solution = solve(goal, M, progress=progress)
        store_cached(solution, cache_dir)
    _MEMORY[key] = solution
    return solution


_MEMORY: Dict[tuple, Solution] = {}


# ---------------------------------------------------------------------------------------
# playing the optimum in the environments


class OptimalAgent:
    """Plays the solved optimum in rules-core states (the single-agent env's opponent)."""

    def __init__(self, solution: Solution):
        self.solution = solution

    def roll_probability(self, state: ZombieDiceState) -> float:
        return 1.0 if self.solution.should_roll(state) else 0.0

    def act(self, state: ZombieDiceState) -> int:
        return ROLL if self.solution.should_roll(state) else HOLD

    def __call__(self, state) -> int:
        return self.act(state)

    def reset(self, rng) -> None:
        pass


class BatchedOptimalOpponent:
    """The solved optimum as a batched opponent (:mod:`dice_envs.envs.vector`): one array look-up
    over the batch's state arrays (:class:`dice_envs.games.zombie_dice.batched.ZombieDiceBatch`)."""

    batched = True

    def __init__(self, solution: Solution):
        self.solution = solution

    def __call__(self, batch, rows: np.ndarray, rng) -> np.ndarray:
        p, i, j, b, _ = batch.two_player_view(rows)
        st = batch.state
        d = self.solution.chain.index(st["cup"][rows], st["shotgun_dice"][rows], st["feet"][rows])
        roll = self.solution.roll_decision(p - 1, i, j, b, d, st["rolled"][rows])
        return np.where(roll, ROLL, HOLD)
