"""Exact solution and exact policy evaluation for two-player All Yellow Zombie Dice.

The model is the one of Neller, Llano, Vu Dinh and Presser ("Optimal Play of the
All Yellow Zombie Dice Game"): a position is ``(p, i, j, b, s)``, with ``p`` = 1
for the player who moves first in a round and 2 for the other, ``i``/``j`` the
mover's and the opponent's banked scores, ``b`` the brains and ``s`` the shotguns
of the turn so far.  The end of the game follows the official rules, exactly as
:mod:`dice_envs.games.zombie_dice.rules` plays them:

* reaching the goal makes the round the last one; player 2 still takes a turn
  after player 1 reaches it;
* a tie at the end of a round in which the goal was reached starts a
  tiebreaker round (player 1 first, then player 2);
* with ``stop_when_won=True`` (the default, and the paper's model) the last
  player of a round stops as soon as holding would win the game: the game is over
  the moment it is decided.  With ``False`` (the letter of the official rules) a
  player 2 who could win by holding may roll on, and may bust.  Optimal play is
  the same under both; a policy that rolls on is not (the published Differences
  of Fixed Hold-At, Minh and Neller are reproduced only with the default).

Two details the paper leaves open, chosen to match the environment:

* a player must roll at the start of a turn (a fresh turn is a separate turn
  state from ``b = s = 0`` after rolling three footprints, where holding is legal);
* scores are unbounded, so the grid stops at ``score_cap``: a score or turn total
  that would exceed ``score_cap - 1`` counts as ``score_cap - 1``.  The default cap
  is far above any score reached with non-negligible probability; the tests
  check that raising it changes no result.

The roll outcome probabilities come from :func:`dice_envs.core.dice.roll_counts` with
the environment's own yellow die.

A *policy* is a callable ``policy(p, i, j, b, s)`` taking numpy integer arrays
(broadcast together) and returning the probability of rolling (bools are fine).
It is only asked where holding is legal.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

import numpy as np

from dice_envs.agents.evaluate.contract import ask_policy
from dice_envs.agents.solve.head_to_head import HeadToHead  # noqa: F401  (re-exported: dice_envs.agents.zombie_dice.ayzd_solver.HeadToHead)
from dice_envs.agents.solve.head_to_head import head_to_head as shared_head_to_head
from dice_envs.agents.solve.jeopardy import ScoreRules, TurnModel, check_grid, solve_score_grid
from dice_envs.core.dice import roll_counts
from dice_envs.core.validation import check_int
from dice_envs.games.zombie_dice.rules import DICE_PER_ROLL, SHOTGUNS_TO_BUST, YELLOW

Policy = Callable[..., np.ndarray]

DEFAULT_GOAL = 13


def default_score_cap(goal: int) -> int:
    """A score cap well beyond reachable play: 4 goals, and at least the goal plus 39 (52 for the
    usual 13).  What a cap must leave above the goal does not shrink with the goal: 4 goals alone
    was off by 1.7e-3 in the first player's win at goal 2 and 1.1e-4 at goal 3; with this cap every
    goal from 1 to 13 agrees with a cap of goal + 80 to 5e-14."""
    return max(4 * goal, goal + 39)


def turn_states(score_cap: int) -> int:
    """The size of :func:`turn_model` (fresh, and ``(b, s)`` for ``b < score_cap``, ``s < 3``)."""
    return 1 + SHOTGUNS_TO_BUST * score_cap


@lru_cache(maxsize=16)
def turn_model(score_cap: int) -> TurnModel:
    """The AYZD turn chain over states ``fresh`` and ``(b, s)`` for ``b < score_cap``, ``s < 3``.

    State 0 is the fresh turn (must roll); state ``1 + 3 b + s`` is after at least
    one roll with ``b`` brains and ``s`` shotguns.
    """
    rolls = [
        (counts[0], counts[1], float(p)) for counts, p in roll_counts(YELLOW, DICE_PER_ROLL)
    ]  # (brains, shotguns, probability); YELLOW faces are (brain, shotgun, footprints)
    top = score_cap - 1
    labels = [("fresh", 0, 0)] + [("rolled", b, s) for b in range(score_cap) for s in range(SHOTGUNS_TO_BUST)]

    def index(b, s):
        return 1 + SHOTGUNS_TO_BUST * b + s

    def transitions(t):
        _, b, s = labels[t]
        out = []
        for db, ds, p in rolls:
            if s + ds >= SHOTGUNS_TO_BUST:
                out.append((None, p))
            else:
                out.append((index(min(b + db, top), s + ds), p))
        return out

    banked = [b for _, b, _ in labels]
    can_hold = [kind == "rolled" for kind, _, _ in labels]
    return TurnModel.build(labels, banked, can_hold, transitions)


def state_index(b: int, s: int) -> int:
    """Turn-state index of ``(b, s)`` after at least one roll."""
    return 1 + SHOTGUNS_TO_BUST * b + s


def policy_table(policy: Policy, score_cap: int) -> np.ndarray:
    """Roll probabilities of ``policy`` on the whole grid: shape ``(2, M, M, T)``.

    Index ``[p - 1, i, j, t]``; the fresh state (t = 0) always rolls.
    """
    check_grid(2, score_cap, turn_states(score_cap))  # before the turn model is built
    model = turn_model(score_cap)
    M = score_cap
    labels = model.labels[1:]
    b = np.array([lab[1] for lab in labels])
    s = np.array([lab[2] for lab in labels])
    p = np.arange(1, 3)[:, None, None, None]
    i = np.arange(M)[None, :, None, None]
    j = np.arange(M)[None, None, :, None]
    shape = (2, M, M, len(labels))
    values = ask_policy(policy, (p, i, j, b[None, None, None, :], s[None, None, None, :]), shape, "(p, i, j, b, s)")
    table = np.ones((2, M, M, model.size))
    table[..., 1:] = values
    return table


@dataclass
class Solution:
    """Win probabilities (and decisions) on the whole AYZD grid.

    Attributes:
        goal, score_cap: the model.
        start: ``(2, M, M)``: the mover's win probability at the start of a turn,
            ``start[p - 1, i, j]``.
        values: ``(2, M, M, T)``: the mover's win probability in every turn state.
        roll: ``(2, M, M, T)``: probability of rolling (0/1 for a deterministic policy).
        seconds: time taken.
    """

    goal: int
    score_cap: int
    start: np.ndarray
    values: np.ndarray
    roll: np.ndarray
    seconds: float = 0.0

    @property
    def first_player_win(self) -> float:
        """Probability that the player who moves first wins, from the empty board."""
        return float(self.start[0, 0, 0])

    def value(self, p: int, i: int, j: int, b: int, s: int, fresh: bool = False) -> float:
        """The mover's win probability at ``(p, i, j, b, s)``."""
        t = 0 if fresh else state_index(min(b, self.score_cap - 1), s)
        return float(self.values[p - 1, min(i, self.score_cap - 1), min(j, self.score_cap - 1), t])

    def should_roll(self, p: int, i: int, j: int, b: int, s: int) -> bool:
        """The solved policy's decision at ``(p, i, j, b, s)`` (scalar)."""
        t = state_index(min(b, self.score_cap - 1), s)
        return bool(self.roll[p - 1, min(i, self.score_cap - 1), min(j, self.score_cap - 1), t] > 0.5)

    def as_policy(self) -> Policy:
        """This solution's decisions as a vectorised policy ``(p, i, j, b, s) -> bool``."""
        roll, top = self.roll, self.score_cap - 1

        def policy(p, i, j, b, s):
            p, i, j, b, s = np.broadcast_arrays(*(np.asarray(x) for x in (p, i, j, b, s)))
            t = 1 + SHOTGUNS_TO_BUST * np.minimum(b, top) + s
            return roll[p - 1, np.minimum(i, top), np.minimum(j, top), t] > 0.5

        policy.__name__ = "optimal"
        return policy


class AYZDRules(ScoreRules):
    """The score grid of two-player AYZD: seat 0 is player 1 (moves first in a round)."""

    num_seats = 2

    def __init__(self, goal: int, score_cap: int, stop_when_won: bool):
        if score_cap <= goal:
            raise ValueError(f"score_cap must exceed the goal ({goal}), got {score_cap}")
        self.goal, self.score_cap, self.stop_when_won = goal, score_cap, stop_when_won

    def terminal_value(self, seat, i, j):
        # Player 1 to move after a round in which the goal was reached, not tied: game over.
        over = (seat == 0) & (np.maximum(i, j) >= self.goal) & (i != j)
        return np.where(over, (i > j).astype(float), np.nan)

    def must_hold(self, seat, i, j, banked):
        if not self.stop_when_won:
            return None
        # Player 2, last in the round, holds as soon as holding wins the game.
        after = i[None, :] + banked
        return (seat[None, :] == 1) & (after >= self.goal) & (after > j[None, :])


def _solve_grid(goal: int, score_cap: int, tables: Optional[np.ndarray], stop_when_won: bool = True) -> Solution:
    """Solve (``tables`` None) or evaluate (``(2, M, M, T)`` roll probabilities) the game."""
    t0 = time.perf_counter()
    rules = AYZDRules(goal, score_cap, stop_when_won)
    check_grid(rules.num_seats, score_cap, turn_states(score_cap))  # before the turn model is built
    grid = solve_score_grid(turn_model(score_cap), rules, start_state=0, tables=tables)
    return Solution(goal, score_cap, grid.start, grid.values, grid.roll, time.perf_counter() - t0)


def solve(goal: int = DEFAULT_GOAL, score_cap: Optional[int] = None, stop_when_won: bool = True) -> Solution:
    """Optimal (win-probability maximising) play for both seats.

    Args:
        goal: the score that triggers the last round (13).
        score_cap: grid size (default :func:`default_score_cap`).
        stop_when_won: the end-of-game rule (see the module docstring).
    """
    _check_goal(goal)
    return _solve_grid(goal, check_score_cap(score_cap, goal), None, stop_when_won)


@lru_cache(maxsize=8)
def solved(goal: int = DEFAULT_GOAL, stop_when_won: bool = True) -> Solution:
    """:func:`solve` at the default grid, kept in memory (solving takes about a second): the
    ``"optimal"`` opponent and policy of All Yellow Zombie Dice."""
    return solve(goal, stop_when_won=stop_when_won)


def _check_goal(goal):
    check_int("goal", goal, 1)


def check_score_cap(score_cap: Optional[int], goal: int) -> int:
    """The grid size to use: :func:`default_score_cap` for None, else ``score_cap`` if it is at
    least ``2 * goal``.  Scores and turn totals are capped at ``score_cap - 1``; below
    ``2 * goal`` that cap changes the answer (cap 14 gives a first-player win of 0.4903
    instead of 0.4701 at goal 13), so it is refused.  The default's error is below 1e-14
    (cap 52 and 60 agree to 7e-15 at goal 13)."""
    if score_cap is None:
        return default_score_cap(goal)
    cap = check_int(f"score_cap (at goal {goal}; smaller caps change the values)", score_cap, 2 * goal)
    if cap < default_score_cap(goal):
        warnings.warn(f"score_cap {cap} is below the default {default_score_cap(goal)} at goal {goal}: the values "
                      f"are approximate (cap 30 at goal 13 moves the first player's win by 2e-8)", UserWarning,
                      stacklevel=3)
    return cap


def evaluate(first: Policy, second: Policy, goal: int = DEFAULT_GOAL, score_cap: Optional[int] = None,
             stop_when_won: bool = True) -> float:
    """Exact probability that ``first`` (moving first) beats ``second``."""
    _check_goal(goal)
    M = check_score_cap(score_cap, goal)
    tables = np.empty((2, M, M, turn_model(M).size))
    tables[0] = policy_table(first, M)[0]
    tables[1] = policy_table(second, M)[1]
    return _solve_grid(goal, M, tables, stop_when_won).first_player_win


def head_to_head(candidate: Policy, reference: Policy, goal: int = DEFAULT_GOAL,
                 score_cap: Optional[int] = None, stop_when_won: bool = True) -> HeadToHead:
    """Exact head-to-head of ``candidate`` against ``reference`` from both seats."""
    return shared_head_to_head(
        evaluate, candidate, reference, goal=goal, score_cap=score_cap, stop_when_won=stop_when_won
    )
