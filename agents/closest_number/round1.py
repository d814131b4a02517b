"""Round 1 alone, the source document's motivating question: players in turn pick distinct
numbers from ``1..numbers``; each scores one point per number their pick is
strictly closest to.  What are the subgame-perfect picks and scores?

Each player maximises **their own points in round 1** (the source document's question:
"how can each player maximise their chances of guessing the right number",
asked before the game grew a second round).  With three or more players this is
not a zero-sum game, so a later player's choice between equally good numbers
changes the earlier players' points: the answer depends on a *tie-breaking
assumption*, which :func:`solve_round1` takes as an argument:

* ``"lowest"`` (default): among equally good numbers, the lowest;
* ``"highest"``: the highest (the mirror image of ``"lowest"``);
* ``"spiteful"``: the one that leaves the other players the fewest points in
  total (then the lowest).

The solution is found by backward induction over every sequence of picks
(``numbers! / (numbers - players)!`` leaves: 720 for three players on ten
numbers); the scoring is the rules core's :func:`dice_envs.games.closest_number.rules.score_board`.
In the full two-player game round 1 is played for a different goal (winning the
game, :mod:`dice_envs.agents.closest_number.solver`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Tuple

from dice_envs.games.closest_number.rules import ClosestNumberGame, score_board

__all__ = ["TIE_BREAKS", "Round1Solution", "solve_round1", "MAX_LEAVES"]

TIE_BREAKS = ("lowest", "highest", "spiteful")
MAX_LEAVES = 5_000_000


@dataclass
class Round1Solution:
    """``placements[i]`` is the number picked by the ``i``-th player to move (the
    starting player first), ``points[i]`` that player's points;
    ``best_first_moves`` every first pick that earns the first player its
    subgame-perfect points (under the same tie-breaking for later players)."""

    num_players: int
    numbers: int
    tie_break: str
    placements: Tuple[int, ...]
    points: Tuple[int, ...]
    best_first_moves: Tuple[int, ...]

    def as_dict(self) -> dict:
        return {
            "num_players": self.num_players,
            "numbers": self.numbers,
            "tie_break": self.tie_break,
            "placements_in_order": list(self.placements),
            "points_in_order": list(self.points),
            "best_first_moves": list(self.best_first_moves),
        }


def solve_round1(num_players: int = 3, numbers: int = 10, tie_break: str = "lowest") -> Round1Solution:
    """Subgame-perfect picks of round 1 when every player maximises their own points.

    Raises:
        ValueError: for a bad argument, or a tree with more than ``MAX_LEAVES`` leaves.
    """
    ClosestNumberGame(num_players, numbers)  # validates the arguments
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    leaves = math.perm(numbers, num_players)
    if leaves > MAX_LEAVES:
        raise ValueError(f"round 1 with {num_players} players on {numbers} numbers has {leaves:,} "
                         f"pick sequences, more than {MAX_LEAVES:,}; use fewer players or numbers")

    def points(picks: Tuple[int, ...]) -> Tuple[int, ...]:
        return score_board(enumerate(picks), num_players, numbers)

    def better(i: int, new: Tuple[int, ...], old: Tuple[int, ...]) -> bool:
        """Does player ``i`` prefer outcome ``new`` (points) to ``old``, new being the later-scanned number?"""
        if new[i] != old[i]:
            return new[i] > old[i]
        if tie_break == "highest":
            return True  # numbers are scanned upwards
        if tie_break == "spiteful":
            return sum(new) - new[i] < sum(old) - old[i]
        return False

    memo: Dict[Tuple[int, ...], Tuple[Tuple[int, ...], Tuple[int, ...]]] = {}

    def play(prefix: Tuple[int, ...]) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        if len(prefix) == num_players:
            return prefix, points(prefix)
        if prefix in memo:
            return memo[prefix]
        i = len(prefix)
        best = None
        for k in range(1, numbers + 1):
            if k in prefix:
                continue
            outcome = play(prefix + (k,))
            if best is None or better(i, outcome[1], best[1]):
                best = outcome
        assert best is not None  # numbers >= players: some number is free
        memo[prefix] = best
        return best

    picks, pts = play(())
    first: List[int] = [k for k in range(1, numbers + 1) if play((k,))[1][0] == pts[0]]
    return Round1Solution(num_players, numbers, tie_break, picks, pts, tuple(first))
