"""``dice-envs solve shakes``: The Shakes' court policies, exactly.

Prints (or with ``--json``, emits as one JSON object) the team-win probability
and expected number of patients saved of the Bayes-optimal court policy, the
seed's dice rule, exact Thompson sampling, greedy and random play, plus the
full-information bound (the maesters' best joint play) and how far the dice
rule's choice probabilities are from Thompson sampling's.
"""

from __future__ import annotations

import argparse
import os

from dice_envs.agents.console import print_json, readable, write_results
from dice_envs.agents.evaluate.report import Evaluation


def add_commands(verbs) -> None:
    solve = verbs["solve"].add_parser(
        "shakes", help="The Shakes: Bayes-optimal court policy vs the dice rule, Thompson sampling, greedy, random"
    )
    solve.add_argument("--players", type=int, default=4, help="number of players / treatments, 2 to 6 (4)")
    solve.add_argument(
        "--objective", choices=["win", "saved"], default="win",
        help="what the optimal policy maximises: team-win probability (default) or expected patients saved",
    )
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.set_defaults(handler=solve_shakes)


def shakes_report(players: int, objective: str = "win") -> dict:
    """Solve one player count; the dict the CLI prints with ``--json``."""
    from dice_envs.agents.shakes.solver import solve

    return solve(players, objective).as_dict()


def solve_shakes(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 6:
        raise ValueError(f"--players must be an integer from 2 to 6, got {args.players}")
    report = shakes_report(args.players, args.objective)
    if args.json:
        print_json(report)
        return 0
    print_shakes_table([report])
    return 0


def print_shakes_table(reports) -> None:
    """One table row per (player count, policy), as the main job prints it."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    objective = reports[0]["objective"]
    table = Table(title=f"The Shakes, court policies (exact; optimal maximises {objective})")
    for column in ("players", "policy", "team win", "expected saved", "best choice", "gap to optimal"):
        table.add_column(column, justify="left" if column == "policy" else "right")
    for report in reports:
        best = report["policies"]["optimal"]["team_win"]
        rows = list(report["policies"].items()) + [("full info", report["full_information"])]
        for k, (name, row) in enumerate(rows):
            table.add_row(
                str(report["num_players"]) if k == 0 else "", name, f"{row['team_win']:.4f}",
                f"{row['expected_saved']:.3f}", f"{row.get('best_choice_rate', float('nan')):.3f}",
                f"{row['team_win'] - best:+.4f}",
            )
        table.add_section()
    console.print(readable(table))
    closeness = Table(title="Dice rule vs exact Thompson sampling: total variation of the choice probabilities")
    for column in ("players", "mean TV per patient", "max TV (reached)", "dice - Thompson team win", "seconds"):
        closeness.add_column(column, justify="right")
    for report in reports:
        cmp, pol = report["dice_vs_thompson"], report["policies"]
        closeness.add_row(
            str(report["num_players"]), f"{cmp['mean_tv']:.4f}", f"{cmp['max_tv']:.4f}",
            f"{pol['dice_rule']['team_win'] - pol['thompson']['team_win']:+.4f}", f"{report['seconds']:.2f}",
        )
    console.print(readable(closeness))
    console.print(
        "best choice = average over patients of P(the chosen treatment holds the highest card); "
        "full info = every patient gets the best treatment (the maesters' best joint play)."
    )


def ground_truth_shakes(out: str) -> dict:
    """The court's table for 2 to 6 treatments and the competitive game's outcome, written to ``out``."""
    from dice_envs.agents.shakes.solver import competitive_best_response, competitive_outcome

    reports = [shakes_report(players) for players in range(2, 7)]
    print_shakes_table(reports)
    competitive = [competitive_outcome(players) for players in range(2, 7)]
    for row in competitive:
        print(f"competitive, {row['num_players']} players, everyone argues: draw {row['draw']:.4f}, "
              f"each seat wins {row['each_seat_wins']:.4f}")
    checks = [competitive_best_response(players) for players in (2, 3)]
    for row in checks:
        print(f"competitive, {row['num_players']} players: states where yielding beats arguing against "
              f"everyone arguing: {row['states_where_yielding_is_better']}")
    return write_results(out, "shakes", {"court": reports, "competitive": competitive,
                                         "competitive_best_response": checks})


#: This room's parts of the ground-truth job (``./run main``), by the name ``--only`` takes.
GROUND_TRUTH = {"shakes": ground_truth_shakes}


def _options(parser) -> None:
    parser.add_argument("--players", dest="num_players", type=int, default=None,
                        help="treatments (the court's maesters), 2 to 6 (4)")
    parser.add_argument("--objective", choices=["win", "saved"], default=None,
                        help="team win probability (win, default) or patients saved")


COURT = Evaluation("shakes", "The Shakes' court against the Bayes-optimal policy",
                   "optimal, thompson, greedy, dice_rule, random", "dice_envs.agents.shakes.evaluation:score_court",
                   _options, recorded_names=("shakes",))

#: How ``dice-envs evaluate`` scores this room's agents (:mod:`dice_envs.agents.shakes.evaluation`), as its
#: :mod:`dice_envs.registry` entry names them.
EVALUATIONS = (COURT,)
