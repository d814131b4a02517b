"""Solve the named Liar's Dice games that the round table's record does not hold, and record their values.

The named games (:data:`dice_envs.games.liars_dice.named.NAMED_GAMES`) of six-sided dice are rounds of
the documentation's round table, whose solves experiments/liars_dice_value_tables.py records in
experiments/figures/liars_dice_round_values.json. The others (the field's benchmark LD2D5F: two
five-sided dice each, the highest face wild) are solved here, by CFR+ to exploitability 1e-3, and
recorded in experiments/figures/liars_dice_named_values.json: player 0's value, its certified
interval (the two best responses to the average policy, :mod:`dice_envs.agents.solve.interval`), the
exploitability, iterations, CPU and wall seconds and the process's peak memory.
tests/liars_dice/test_liars_dice_named_games.py checks the table's intervals against both records.

With --uniform it solves nothing, and adds to the record uniform play's exact exploitability in every
named game (the leaderboard's baseline, docs/leaderboard.md): by the recursion over the bids that
uniform play allows, and, up to LD2D5F's size, also by walking the whole tree (streamed where it does
not fit in memory), which must agree (two six-sided dice each, 352 M information states, is left to the
recursion).

    nice -n 10 python experiments/liars_dice_named_values.py     # LD2D5F: about 1.6 GiB, CPU minutes
    nice -n 10 python experiments/liars_dice_named_values.py --uniform     # a few CPU minutes (LD2D5F's tree)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

from dice_envs.agents.liars_dice.cli import solve_report
from dice_envs.agents.solve.cache import default_cache_dir
from dice_envs.games.liars_dice.named import NAMED_GAMES

FIGURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "figures")
RECORD = os.path.join(FIGURES, "liars_dice_named_values.json")
ROUND_RECORD = os.path.join(FIGURES, "liars_dice_round_values.json")
TARGET = 1e-3


def in_round_record(named, rounds) -> bool:
    """Does the round table's record hold ``named``'s rules (six faces, its dice and wild rule)?"""
    game = named.game()
    return any(game.faces == 6 and list(game.dice) == row["dice"] and game.wild_rule == row["wild"] for row in rounds)


def solve_named(named) -> dict:
    """One named game's figures: CFR+ to :data:`TARGET`, cached."""
    game = named.game()
    t0 = time.perf_counter()
    report = solve_report(game.faces, named.dice_per_player, game.wild_rule, TARGET, cache_dir=default_cache_dir())
    return {"name": named.name, "dice": list(game.dice), "faces": game.faces, "wild": game.wild_rule,
            "target_exploitability": TARGET, "value_first_player": report["value_first_player"],
            "value_interval": report["value_interval"], "exploitability": report["exploitability"],
            "iterations": report["iterations"], "cpu_seconds": None if report["cpu_seconds"] is None else round(report["cpu_seconds"], 1),
            "seconds": round(time.perf_counter() - t0, 1),
            "peak_memory_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def score_uniform(named, tree_limit: int = 16_000_000) -> dict:
    """Uniform play's exact exploitability in ``named`` and its best responses' values, by the recursion
    over the bids (:func:`dice_envs.agents.liars_dice.evaluation.uniform_play_best_responses`); up to
    ``tree_limit`` information states also by walking the whole tree (``dice-envs evaluate liars-dice
    random``), which must agree."""
    from dice_envs.agents.liars_dice.evaluation import score_round, uniform_play_best_responses

    cpu0 = time.process_time()
    best = uniform_play_best_responses(named.game())
    row = {"name": named.name, "exploitability": sum(best) / 2, "best_response_values": list(best),
           "cpu_seconds": round(time.process_time() - cpu0, 3)}
    if named.information_states <= tree_limit:
        cpu0 = time.process_time()
        report = score_round("random", **named.arguments)
        walked = report["details"]["best_response_values"]
        if max(abs(a - b) for a, b in zip(walked, best)) > 1e-9:
            raise AssertionError(f"{named.name}: the recursion gives {best}, the tree {walked}")
        row["tree_best_response_values"] = walked
        row["tree_cpu_seconds"] = round(time.process_time() - cpu0, 1)
    return row


def add_uniform(path: str) -> None:
    """Score uniform play in every named game and add it to the record at ``path`` (``"uniform"``)."""
    with open(path) as f:
        record = json.load(f)
    record["uniform"] = []
    for named in NAMED_GAMES.values():
        record["uniform"].append(score_uniform(named))
        print(f"{named.name}: uniform play's exploitability {record['uniform'][-1]['exploitability']:.6f} "
              f"({record['uniform'][-1]['cpu_seconds']} CPU s)", flush=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1)
    os.replace(tmp, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--record", default=RECORD, help="the named games' figures, rewritten (%(default)s)")
    parser.add_argument("--uniform", action="store_true",
                        help="solve nothing: add uniform play's exact exploitability in every named game to the record")
    args = parser.parse_args(argv)
    if args.uniform:
        add_uniform(args.record)
        return 0
    with open(ROUND_RECORD) as f:
        rounds = json.load(f)["rounds"]
    rows = []
    for named in NAMED_GAMES.values():
        if in_round_record(named, rounds):
            continue
        rows.append(solve_named(named))
        print(f"{named.name}: value in [{rows[-1]['value_interval'][0]:+.6f}, {rows[-1]['value_interval'][1]:+.6f}], "
              f"exploitability {rows[-1]['exploitability']:.2e}, {rows[-1]['cpu_seconds']} CPU s, "
              f"{rows[-1]['seconds']} s, peak {rows[-1]['peak_memory_mib']} MiB", flush=True)
    tmp = args.record + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"game": "liars_dice", "games": rows}, f, indent=1)
    os.replace(tmp, args.record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
