"""The human-playable All Yellow Zombie Dice policies of Neller et al., and a random one.

Each policy is vectorised: ``policy(p, i, j, b, s)`` takes numpy integer arrays
(``p`` = 1 for the player moving first in a round, ``i``/``j`` the mover's and
opponent's scores, ``b`` brains and ``s`` shotguns this turn) and returns whether
to roll.  They follow the paper's pseudocode line by line (the comments in the
paper sometimes say something slightly different; see ``docs/games/zombie_dice.md``,
"Reading the AYZD paper").  ``goal`` is 13 in the paper.
"""

from __future__ import annotations

import numpy as np

GOAL = 13
# Tiebreaker hold-at values indexed by shotguns (Llano and Neller cases).
TIEBREAK_HOLD_AT = np.array([6, 3, 1])

# The paper's Table (Fig. 2): Difference to optimal play.
PUBLISHED_DIFFERENCES = {"fixed_hold_at": -0.0274, "minh": -0.0133, "llano": -0.0118, "neller": -0.0100}


def _arrays(p, i, j, b, s):
    return np.broadcast_arrays(*(np.asarray(x) for x in (p, i, j, b, s)))


def _trailing_player_two_rolls(p, i, j, b, goal):
    """Player 2 after player 1 reached the goal, when holding would lose: roll."""
    return (p == 2) & (j >= goal) & (i + b < j)


def fixed_hold_at(p, i, j, b, s, goal=GOAL):
    """Algorithm 1: roll with 0 shotguns, hold at 4 with 1, hold at 1 with 2."""
    p, i, j, b, s = _arrays(p, i, j, b, s)
    by_shotguns = np.where(s == 0, True, np.where(s == 1, b < 4, b < 1))
    return _trailing_player_two_rolls(p, i, j, b, goal) | by_shotguns


def minh(p, i, j, b, s, goal=GOAL):
    """Algorithm 2 (Minh cases): as Fixed Hold-At, but with 1 shotgun and an
    opponent at 8 or more, roll until reaching ``max(13, j + 3)``."""
    p, i, j, b, s = _arrays(p, i, j, b, s)
    one_shotgun = np.where(j >= 8, i + b < np.maximum(goal, j + 3), b < 4)
    by_shotguns = np.where(s == 0, True, np.where(s == 1, one_shotgun, b < 1))
    return _trailing_player_two_rolls(p, i, j, b, goal) | by_shotguns


def _match_or_exceed(i_after, j, s):
    """Player 2's last turn: exceed player 1 with under 2 shotguns, match with 2."""
    return ((s < 2) & (i_after <= j)) | ((s == 2) & (i_after < j))


def llano(p, i, j, b, s, goal=GOAL, both_at_ten=False):
    """Algorithm 3 (Llano cases).

    With 1 shotgun below the goal, the paper's comment says "if *either* player has
    at least 10, go for the goal" while its pseudocode tests ``i >= 10 and j >= 10``.
    The comment's reading (the default) reproduces the published Difference
    (-0.0118); ``both_at_ten=True`` follows the pseudocode (-0.0255).
    """
    p, i, j, b, s = _arrays(p, i, j, b, s)
    i_after = i + b
    hold_at = TIEBREAK_HOLD_AT[np.clip(s, 0, 2)]
    # Someone reached the goal.
    tied = np.where(p == 1, b < hold_at, b < 1)
    endgame = np.where(i == j, tied, np.where((p == 2) & (i < j), _match_or_exceed(i_after, j, s), False))
    # Both below the goal.
    zero = np.where(p == 1, i_after < np.maximum(goal, j + 9), i_after < goal)
    at_ten = ((i >= 10) & (j >= 10)) if both_at_ten else ((i >= 10) | (j >= 10))
    one = np.where(at_ten, i_after < goal, b < 4)
    below = np.where(s == 0, zero, np.where(s == 1, one, b < 1))
    return np.where((i >= goal) | (j >= goal), endgame, below)


def neller(p, i, j, b, s, goal=GOAL):
    """Algorithm 4 (Neller cases)."""
    p, i, j, b, s = _arrays(p, i, j, b, s)
    i_after = i + b
    hold_at = TIEBREAK_HOLD_AT[np.clip(s, 0, 2)]
    threshold = np.where(p == 1, 8, 10)
    # Part 2: shotguns set aside.
    one = np.where((i >= threshold) | (j >= threshold), i_after < goal, b < 4)
    part2 = np.where(s == 1, one, b < 1)
    first = np.where((i >= goal) & (i == j), b < hold_at, np.where(s == 0, i_after < np.maximum(goal, j + 8), part2))
    second = np.where(
        j >= goal,
        _match_or_exceed(i_after, j, s),
        np.where((i >= goal) & (i > j), False, np.where(s == 0, True, part2)),
    )
    return np.where(p == 1, first, second)


def random_policy(p, i, j, b, s):
    """Roll or hold with probability 1/2 each (exact evaluation treats it as mixed)."""
    return np.full(np.broadcast_shapes(*(np.shape(x) for x in (p, i, j, b, s))), 0.5)


HUMAN_POLICIES = {"fixed_hold_at": fixed_hold_at, "minh": minh, "llano": llano, "neller": neller}
