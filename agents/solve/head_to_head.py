"""Exact head-to-head comparison of two policies from both seats.

Shared by every two-player game whose policies can be evaluated exactly (All Yellow
Zombie Dice, Pig, ...).  The "Difference" is the one of Neller et al.'s evaluator:
with ``w`` the candidate's win probability averaged over playing first and playing
second against the reference, ``difference = 2 (w - 1/2)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict


@dataclass
class HeadToHead:
    """A candidate against a reference, from both seats (the paper's "Difference")."""

    win_as_first: float
    win_as_second: float

    @property
    def win_rate(self) -> float:
        return 0.5 * (self.win_as_first + self.win_as_second)

    @property
    def difference(self) -> float:
        """``2 (w - 1/2)`` with ``w`` the candidate's seat-averaged win probability."""
        return 2.0 * (self.win_rate - 0.5)

    def as_dict(self) -> Dict[str, float]:
        return {"win_as_first": self.win_as_first, "win_as_second": self.win_as_second, "difference": self.difference}


def head_to_head(evaluate: Callable[..., float], candidate, reference, **kwargs) -> HeadToHead:
    """Exact head-to-head of ``candidate`` against ``reference``.

    ``evaluate(first, second, **kwargs)`` must return the exact probability that
    ``first``, moving first, beats ``second`` (a game without draws).
    """
    first = evaluate(candidate, reference, **kwargs)
    second = 1.0 - evaluate(reference, candidate, **kwargs)
    return HeadToHead(first, second)
