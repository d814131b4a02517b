"""Solve the Liar's Dice rounds that the documentation's two value tables print, and print both tables.

The round table (docs/games/liars_dice.md) prints each round's value for the player who bids first: the
fraction the LP certificate proves (one die each), else the digits that the solve's certified interval
supports (its two best responses bound the value, :mod:`dice_envs.agents.solve.interval`). The whole-game
table (docs/games/liars_dice_match.md) is computed from the printed round values, each read back as the
interval it stands for (:func:`dice_envs.agents.solve.interval.read_value`) and propagated through the
positions (:func:`dice_envs.agents.liars_dice.match_solver.position_intervals`). So the two tables
come from one set of solves, and tests/liars_dice/test_liars_dice_value_tables.py recomputes the second
from the first.

The rounds' figures are recorded in experiments/figures/liars_dice_round_values.json. Two dice each
(352 M information states, 12 GiB, about an hour per wild rule on two cores) is solved only with
--two-dice-each; otherwise its recorded rows are kept.

    python experiments/liars_dice_value_tables.py                  # 1v1, 1v2, 2v1; 2v2 from the record
    DICE_ENVS_MAX_MEMORY=12G DICE_ENVS_MAX_SECONDS=none \\
        python experiments/liars_dice_value_tables.py --two-dice-each
"""

from __future__ import annotations

import argparse
import json
import os
import time
from fractions import Fraction

from dice_envs.agents.liars_dice.match_solver import position_intervals
from dice_envs.agents.solve.cache import default_cache_dir
from dice_envs.agents.solve.interval import as_win_probability, format_value, read_value
from dice_envs.games.liars_dice.match import LiarsDiceMatchGame

RECORD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "figures", "liars_dice_round_values.json")
WILD_RULES = ("none", "highest", "aces")
ROUNDS = ((1, 1), (1, 2), (2, 1), (2, 2))
FACES = 6


def solve_round(dice, wild: str) -> dict:
    """One round's figures: CFR+ to 1e-4 (1e-3 at two dice each), cached; one die each also by the
    sequence-form LP, whose rounded profile proves the exact value."""
    from dice_envs.agents.liars_dice.cli import solve_report

    target = 1e-3 if dice == (2, 2) else 1e-4
    t0 = time.perf_counter()
    report = solve_report(FACES, list(dice), wild, target, lp=dice == (1, 1), cache_dir=default_cache_dir())
    return {"dice": list(dice), "wild": wild, "target_exploitability": target,
            "value_first_player": report["value_first_player"], "value_interval": report["value_interval"],
            "exploitability": report["exploitability"], "exact_value": report.get("exact_value"),
            "iterations": report["iterations"], "seconds": round(time.perf_counter() - t0, 1)}


def round_text(row: dict) -> str:
    """How the round table prints a row: the proven fraction, else the digits its interval supports."""
    return format_value(*row["value_interval"], exact=row.get("exact_value"))


def whole_game_texts(printed: dict) -> dict:
    """Player 0's probability of winning the whole game from each of :data:`ROUNDS`, player 0
    starting and the loser of a round starting the next, from the printed round values
    (``printed[(wild, (a, b))]``: the text the round table prints for the bidder with ``a`` dice
    against ``b``)."""
    out = {}
    for wild in WILD_RULES:
        for dice in ROUNDS:
            game = LiarsDiceMatchGame(2, dice, FACES, wild)

            def round_interval(position, wild=wild):
                d0, d1, starter = position
                if starter == 0:
                    return read_value(printed[(wild, (d0, d1))])
                lower, upper = read_value(printed[(wild, (d1, d0))])  # player 1 bids first: its value, negated
                return -upper, -lower

            intervals = position_intervals(game, round_interval)
            one_round = printed[(wild, (1, 1))]
            exact = (1 + Fraction(one_round)) / 2 if dice == (1, 1) and "/" in one_round else None
            out[(wild, dice)] = format_value(*as_win_probability(intervals[(*dice, 0)]), exact=exact, sign=False)
    return out


def markdown(rows) -> str:
    printed = {(row["wild"], tuple(row["dice"])): round_text(row) for row in rows}
    lines = ["| dice (player 0 v player 1) | no wild face | highest face wild | aces wild |", "|---|---|---|---|"]
    for dice in ROUNDS:
        lines.append(f"| {dice[0]} v {dice[1]} | " + " | ".join(printed[(w, dice)] for w in WILD_RULES) + " |")
    whole = whole_game_texts(printed)
    lines += ["", "| the whole game, six-sided dice, player 0 starts | no wild face | highest face wild | aces wild |",
              "|---|---|---|---|"]
    for dice in ROUNDS:
        name = f"{dice[0]} v {dice[1]}" + (" (one round)" if dice == (1, 1) else "")
        lines.append(f"| {name} | " + " | ".join(whole[(w, dice)] for w in WILD_RULES) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--two-dice-each", action="store_true",
                        help="also solve two dice each to 1e-3 (12 GiB and about an hour per wild rule)")
    parser.add_argument("--record", default=RECORD, help="the rounds' figures, read and rewritten (%(default)s)")
    parser.add_argument("--print-only", action="store_true", help="solve nothing: print the tables of the record")
    args = parser.parse_args(argv)
    rows = {}
    if os.path.exists(args.record):
        with open(args.record) as f:
            rows = {(row["wild"], tuple(row["dice"])): row for row in json.load(f)["rounds"]}
    if not args.print_only:
        for dice in ROUNDS:
            if dice == (2, 2) and not args.two_dice_each:
                continue
            for wild in WILD_RULES:
                rows[(wild, dice)] = solve_round(dice, wild)
                print(f"{dice[0]} v {dice[1]}, {wild}: {round_text(rows[(wild, dice)])} "
                      f"({rows[(wild, dice)]['seconds']} s)", flush=True)
        ordered = [rows[(w, d)] for d in ROUNDS for w in WILD_RULES if (w, d) in rows]
        tmp = args.record + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"game": "liars_dice", "faces": FACES, "rounds": ordered}, f, indent=1)
        os.replace(tmp, args.record)
    print(markdown([rows[(w, d)] for d in ROUNDS for w in WILD_RULES]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
