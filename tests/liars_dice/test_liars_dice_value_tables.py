"""The documentation's two Liar's Dice value tables agree: the whole game's table is what the round table's
printed values give, and the published exact values lie where the printed values say.

The round table (docs/games/liars_dice.md) prints each round's value for the first bidder, exact or as the
digits its certified interval supports; the whole-game table (docs/games/liars_dice_match.md) player 0's
probability of winning from each start. Both are written by experiments/liars_dice_value_tables.py; this
test recomputes the second from the first with the whole game's recursion written out by hand.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from dice_envs.agents.solve.interval import format_value, read_value

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
WILD_RULES = ("none", "highest", "aces")


def _table(page: str, header: str) -> dict:
    """``{(row name, wild rule): cell}`` of the markdown table whose header starts with ``header``."""
    lines = (DOCS / page).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    cells = {}
    for line in itertools.takewhile(lambda line: line.startswith("|"), lines[start + 2:]):
        name, *values = [cell.strip() for cell in line.strip("|").split("|")]
        cells.update({(name.split(" (")[0], wild): value for wild, value in zip(WILD_RULES, values)})
    return cells


ROUNDS = _table("liars_dice.md", "| dice (player 0 v player 1)")
WHOLE_GAME = _table("liars_dice_match.md", "| the whole game, six-sided dice")


def _whole_game(v11, v12, v21, v22) -> dict:
    """Player 0's value of the whole game from each start (player 0 starts, the loser of a round starts
    the next), from the first bidder's round values ``v<a><b>`` (``a`` dice against ``b``)."""
    def after(win, lose, round_value):
        return lose + (win - lose) * (1 + round_value) / 2

    w11 = v11
    w21 = after(1, w11, v21)  # losing leaves 1 v 1, the loser (player 0) starting
    w12 = after(-w11, -1, v12)  # winning leaves 1 v 1 with player 1 starting
    w21_other_starts = after(1, w11, -v12)  # player 1, one die, bids first against two
    w22 = after(w21_other_starts, w12, v22)
    return {"1 v 1": w11, "2 v 1": w21, "1 v 2": w12, "2 v 2": w22}


@pytest.mark.parametrize("wild", WILD_RULES)
def test_the_whole_game_table_is_what_the_printed_rounds_give(wild):
    """Every whole-game cell is the digits (or fraction) that the round cells' intervals support, at
    every corner of their box: nothing in the second table is more precise than the first allows."""
    names = ("1 v 1", "1 v 2", "2 v 1", "2 v 2")
    boxes = [read_value(ROUNDS[(name, wild)]) for name in names]
    corners = [_whole_game(*corner) for corner in itertools.product(*boxes)]
    for start, printed in ((name, WHOLE_GAME[(name, wild)]) for name in names):
        lower = min((1 + c[start]) / 2 for c in corners)
        upper = max((1 + c[start]) / 2 for c in corners)
        one_round = ROUNDS[("1 v 1", wild)]
        exact = (1 + Fraction(one_round)) / 2 if start == "1 v 1" and "/" in one_round else None
        assert printed == format_value(lower, upper, exact=exact, sign=False), (start, wild)


def test_the_published_exact_values_lie_in_the_printed_ones():
    """OpenSpiel's -7/258 (one die each, highest face wild) and Thomas Ahle's sequence-form LP values
    for one die against two with aces wild, -5/54 and 7/27."""
    assert ROUNDS[("1 v 1", "highest")] == "-7/258"
    for name, exact in (("1 v 2", Fraction(-5, 54)), ("2 v 1", Fraction(7, 27))):
        lower, upper = read_value(ROUNDS[(name, "aces")])
        assert lower <= exact <= upper, (name, ROUNDS[(name, "aces")])
    assert WHOLE_GAME[("1 v 1", "aces")] == str((1 + Fraction(-7, 327)) / 2)


def test_a_printed_value_reads_back_as_the_interval_it_stands_for():
    assert read_value("-0.093") == pytest.approx((-0.0935, -0.0925))
    assert read_value("-7/258") == (-7 / 258, -7 / 258)
    assert read_value("[+0.008510, +0.012510]") == (0.00851, 0.01251)
    with pytest.raises(ValueError, match="not a value as format_value prints it"):
        read_value("about 0.1")
