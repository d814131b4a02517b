"""Exact solution and exact policy evaluation for two-player Pig.

A thin layer on the shared jeopardy solver (:mod:`dice_envs.agents.solve.jeopardy`), which also
solves All Yellow Zombie Dice (:mod:`dice_envs.agents.zombie_dice.ayzd_solver`).  The model is Neller and
Presser's ("Optimal Play of the Dice Game Pig", 2004): a position is ``(i, j, k)``,
the mover's banked score ``i``, the opponent's ``j`` and the turn total ``k``; the
mover wins at once when ``i + k`` reaches the goal, exactly as
:mod:`dice_envs.games.pig.rules` plays it.  Pig's seats are symmetric, so the optimal policy
needs one seat on the score grid; evaluating two *different* policies uses two
(seat 0 is the player who moves first).

The grid is exact, not truncated: scores and turn totals that reach the goal end
the game, so they are capped at the goal without changing anything.  The roll
probabilities come from the game's own die (:class:`dice_envs.core.dice.Die`), so a
loaded die gives the exact optimal play and win probabilities for that die.

A *policy* is a callable ``policy(i, j, k)`` taking numpy integer arrays
(broadcast together) and returning the probability of rolling (bools are fine).
It is only asked where the mover has rolled this turn (``k > 0``) and has not
reached the goal; the rules decide everywhere else.  :class:`dice_envs.agents.evaluate.jeopardy_agents.PolicyAgent`
plays such a policy in the environment (Pig states have the same
``rolled``/``two_player_view`` interface as Zombie Dice states).

Published values (Neller and Presser 2004, goal 100, fair d6): the optimal first
player wins with probability 0.5306; with both players holding at 20, the first
player wins with probability about 0.5347 (see ``tests/pig/test_pig_solver.py``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

import numpy as np

from dice_envs.agents.evaluate.contract import ask_policy
from dice_envs.agents.solve.head_to_head import HeadToHead
from dice_envs.agents.solve.head_to_head import head_to_head as shared_head_to_head
from dice_envs.agents.solve.jeopardy import ScoreRules, TurnModel, check_grid, solve_score_grid
from dice_envs.core.dice import Die, d
from dice_envs.games.pig.rules import BUST_FACE, DEFAULT_GOAL, check_pig_die

Policy = Callable[..., np.ndarray]

FAIR_D6 = d(6)

# Neller and Presser (2004).
PUBLISHED_FIRST_PLAYER_WIN = 0.5306
PUBLISHED_HOLD_AT_20_FIRST_PLAYER_WIN = 0.5347


def _check(goal, die) -> Die:
    if isinstance(goal, (bool, np.bool_)) or not isinstance(goal, (int, np.integer)) or goal < 1:
        raise ValueError(f"goal must be a positive integer, got {goal!r}")
    return check_pig_die(FAIR_D6 if die is None else die)


@lru_cache(maxsize=32)
def turn_model(goal: int, die: Die = FAIR_D6) -> TurnModel:
    """The Pig turn chain over turn totals ``k = 0..goal``.

    State ``k`` is the turn total; state 0 is the start of a turn (the mover must
    roll).  A roll of 1 busts; a roll of ``f`` moves to ``min(k + f, goal)`` (every
    total at or beyond the goal wins, so the cap is exact).  In state ``goal`` the
    game is already won (:class:`PigRules` makes the mover hold there), so no roll is
    ever made from it; its roll is recorded as a bust only to keep the chain free of
    a self-loop that never ends (a die that cannot show 1 would make one).
    """
    die = _check(goal, die)
    rolls = [(int(face), float(p)) for face, p in die.distribution()]
    labels = [(k,) for k in range(goal + 1)]

    def transitions(k):
        if k == goal:
            return [(None, 1.0)]
        return [(None if face == BUST_FACE else min(k + face, goal), p) for face, p in rolls]

    return TurnModel.build(labels, list(range(goal + 1)), [k > 0 for k in range(goal + 1)], transitions)


class PigRules(ScoreRules):
    """Pig's score grid: the mover wins as soon as banked score plus turn total reaches the goal.

    Args:
        goal: the winning score.
        num_seats: 1 for the optimal policy (the seats are symmetric); 2 to
            evaluate two policies, seat 0 being the player who moves first.
    """

    def __init__(self, goal: int, num_seats: int = 1):
        if num_seats not in (1, 2):
            raise ValueError(f"num_seats must be 1 or 2, got {num_seats!r}")
        self.goal, self.num_seats, self.score_cap = goal, num_seats, goal + 1

    def terminal_value(self, seat, i, j):
        # The opponent reached the goal on their turn: the mover has lost.
        return np.where(j >= self.goal, 0.0, np.where(i >= self.goal, 1.0, np.nan))

    def must_hold(self, seat, i, j, banked):
        return i[None, :] + banked >= self.goal


@dataclass
class Solution:
    """Win probabilities and decisions on the whole Pig grid.

    Attributes:
        goal, die: the game.
        start: ``(S, M, M)`` with ``M = goal + 1``: the mover's win probability at the
            start of a turn, ``start[seat, i, j]`` (one seat for the optimal policy).
        values: ``(S, M, M, T)``: the mover's win probability at turn total ``k = t``.
        roll: ``(S, M, M, T)``: probability of rolling (0/1 for a deterministic policy).
        seconds: time taken.
    """

    goal: int
    die: Die
    start: np.ndarray
    values: np.ndarray
    roll: np.ndarray
    seconds: float = 0.0

    @property
    def first_player_win(self) -> float:
        """Probability that the player who moves first wins, from ``0-0``."""
        return float(self.start[0, 0, 0])

    def _index(self, i, j, k):
        top = self.goal
        return 0, min(i, top), min(j, top), min(k, top)

    def value(self, i: int, j: int, k: int = 0) -> float:
        """The mover's win probability at ``(i, j, k)`` (``k = 0``: a turn's start)."""
        return float(self.values[self._index(i, j, k)])

    def should_roll(self, i: int, j: int, k: int) -> bool:
        """The solved policy's decision at ``(i, j, k)``."""
        return bool(self.roll[self._index(i, j, k)] > 0.5)

    def hold_at(self) -> np.ndarray:
        """``(M, M)``: the smallest turn total at which the optimal mover holds at scores
        ``(i, j)`` (the goal-reaching total ``goal - i`` if it rolls everywhere before)."""
        roll = self.roll[0, :, :, 1:] > 0.5  # k = 1..goal
        k = np.arange(1, self.goal + 1)
        reach = self.goal - np.arange(self.goal + 1)[:, None]
        holds = ~roll | (k[None, None, :] >= reach[:, :, None])
        return np.where(holds.any(axis=2), np.argmax(holds, axis=2) + 1, self.goal)

    def as_policy(self) -> Policy:
        """This solution's decisions as a vectorised policy ``(i, j, k) -> bool``."""
        roll, top = self.roll[0], self.goal

        def policy(i, j, k):
            i, j, k = np.broadcast_arrays(*(np.asarray(x) for x in (i, j, k)))
            return roll[np.minimum(i, top), np.minimum(j, top), np.minimum(k, top)] > 0.5

        policy.__name__ = "optimal"
        return policy


def uniform_random() -> Policy:
    """The uniformly random policy over the legal actions: roll at a turn's start (holding is not
    legal before the first roll), else roll or hold with probability 1/2 each."""

    def policy(i, j, k):
        return np.where(np.asarray(k) == 0, 1.0, 0.5)

    policy.__name__ = "random"
    return policy


def hold_at(n: int) -> Policy:
    """The policy "hold at ``n`` or at the goal": roll while the turn total is below ``n``.

    Reaching the goal ends the game by the rules, so the policy need not test it.
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"hold-at total must be a positive integer, got {n!r}")

    def policy(i, j, k):
        return np.asarray(k) < n

    policy.__name__ = f"hold_at_{n}"
    return policy


hold_at_20 = hold_at(20)


def policy_table(policy: Policy, goal: int) -> np.ndarray:
    """Roll probabilities of ``policy`` on the whole grid: shape ``(M, M, T)``.

    The start of a turn (``k = 0``) always rolls.
    """
    M = goal + 1
    i = np.arange(M)[:, None, None]
    j = np.arange(M)[None, :, None]
    k = np.arange(1, M)[None, None, :]
    values = ask_policy(policy, (i, j, k), (M, M, M - 1), "(i, j, k)")
    table = np.ones((M, M, M))
    table[..., 1:] = values
    return table


def table_policy(table: np.ndarray, name: str = "table") -> Policy:
    """A ``(M, M, M)`` table of roll probabilities over ``(i, j, k)`` (:func:`policy_table`) as a
    vectorised policy; scores and turn totals beyond the table read its last row."""
    top = table.shape[0] - 1

    def policy(i, j, k):
        return table[np.minimum(i, top), np.minimum(j, top), np.minimum(k, top)]

    policy.__name__ = name
    return policy


def _solve_grid(goal: int, die: Die, tables: Optional[np.ndarray]) -> Solution:
    t0 = time.perf_counter()
    rules = PigRules(goal, num_seats=1 if tables is None else 2)
    check_grid(rules.num_seats, rules.score_cap, goal + 1)  # the turn model's size, before it is built
    grid = solve_score_grid(turn_model(goal, die), rules, start_state=0, tables=tables)
    return Solution(goal, die, grid.start, grid.values, grid.roll, time.perf_counter() - t0)


def solve(goal: int = DEFAULT_GOAL, die: Optional[Die] = None) -> Solution:
    """Optimal (win-probability maximising) play of Pig with ``die`` (default a fair d6)."""
    die = _check(goal, die)
    return _solve_grid(int(goal), die, None)


def solved(goal: int = DEFAULT_GOAL, die: Optional[Die] = None) -> Solution:
    """:func:`solve`, cached for the process (the opponents and the exact scorers share it)."""
    return _solved(int(goal), _check(goal, die))


@lru_cache(maxsize=8)
def _solved(goal: int, die: Die) -> Solution:
    """:func:`solved`'s cache, by the goal and the die itself (``solved(100)`` and ``solved(100, FAIR_D6)``
    share one)."""
    return solve(goal, die)


def evaluate(first: Policy, second: Policy, goal: int = DEFAULT_GOAL, die: Optional[Die] = None) -> float:
    """Exact probability that ``first`` (moving first) beats ``second``."""
    return policy_values(first, second, goal, die).first_player_win


def policy_values(first: Policy, second: Policy, goal: int = DEFAULT_GOAL, die: Optional[Die] = None) -> Solution:
    """The win probabilities on the whole grid when ``first`` (seat 0, moving first) plays
    ``second`` (seat 1): a :class:`Solution` with one row per seat, ``values[seat, i, j, k]``
    the mover's (policy evaluation; :func:`solve` maximises instead)."""
    die = _check(goal, die)
    goal = int(goal)
    tables = np.stack([policy_table(first, goal), policy_table(second, goal)])
    return _solve_grid(goal, die, tables)


def head_to_head(candidate: Policy, reference: Policy, goal: int = DEFAULT_GOAL,
                 die: Optional[Die] = None) -> HeadToHead:
    """Exact head-to-head of ``candidate`` against ``reference`` from both seats
    (``difference`` as in the Zombie Dice paper: ``2 (w - 1/2)``)."""
    return shared_head_to_head(evaluate, candidate, reference, goal=goal, die=die)


def turn_endings(policy: Policy, i, j, goal: int = DEFAULT_GOAL, die: Optional[Die] = None) -> np.ndarray:
    """How a turn of ``policy`` ends from the positions ``(i[n], j[n])`` (banked scores of the
    mover and the opponent, at the start of the mover's turn): ``(N, G)``, the probability of
    banking ``g`` points (``g = 0``: a roll of 1).  A turn total that reaches the goal wins at
    once and banks what it is (up to the goal plus the die's top face, less one), as
    :mod:`dice_envs.games.pig.rules` plays it; the turn model of the grid caps it at the goal instead.
    """
    die = _check(goal, die)
    rolls = [(int(face), float(p)) for face, p in die.distribution()]
    i, j = (np.asarray(x, np.int64) for x in np.broadcast_arrays(i, j))
    N, G = len(i), goal + max(face for face, _ in rolls)
    mass = np.zeros((G, N))
    mass[0] = 1.0
    out = np.zeros((G, N))
    for k in range(G):
        playing = i + k < goal
        if not (mass[k] * playing).any():
            out[k] += mass[k]
            continue
        roll = np.ones(N) if k == 0 else ask_policy(policy, (i, j, np.full(N, k)), (N,), "(i, j, k)")
        rolled = mass[k] * np.where(playing, roll, 0.0)
        out[k] += mass[k] - rolled
        for face, p in rolls:
            if face == BUST_FACE:
                out[0] += rolled * p
            else:
                mass[k + face] += rolled * p
    return out.T
