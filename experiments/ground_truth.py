"""The main job: solve every game, print its ground-truth tables and baseline
scores, and write them as JSON and plots to ``results/``.

Run it with ``./run main`` (or ``python experiments/ground_truth.py --out DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def write_json(path: str, obj) -> None:
    """Write ``obj`` as JSON atomically (a temporary file, then a rename; readable by others)."""
    from dice_envs.core.files import atomic_file

    with atomic_file(path, "w") as fh:
        json.dump(obj, fh, indent=2)


def zombie_dice(out: str) -> dict:
    from dice_envs.agents.zombie_dice.cli import ayzd_report, print_ayzd_table
    from dice_envs.agents.zombie_dice.plots import plot_ayzd_policy

    report = ayzd_report()
    solution = report.pop("_solution")
    print_ayzd_table(report)
    report["plot"] = plot_ayzd_policy(solution, os.path.join(out, "ayzd_optimal_policy.png"))
    write_json(os.path.join(out, "ayzd.json"), report)
    print(f"wrote {out}/ayzd.json and {report['plot']}\n")
    return report


def zombie_dice_official(out: str) -> dict:
    from dice_envs.agents.zombie_dice.cli import print_zombie_dice_table, zombie_dice_report
    from dice_envs.agents.zombie_dice.solver_plots import plot_official_solution

    report = zombie_dice_report()  # the official dice: solved once (about 25 s), then cached
    solution = report.pop("_solution")
    print_zombie_dice_table(report)
    report["plot"] = plot_official_solution(solution, os.path.join(out, "zombie_dice_official_policy.png"))
    write_json(os.path.join(out, "zombie_dice_official.json"), report)
    print(f"wrote {out}/zombie_dice_official.json and {report['plot']}\n")
    return report


def shakes(out: str) -> dict:
    from dice_envs.agents.shakes.cli import print_shakes_table, shakes_report
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
    result = {"court": reports, "competitive": competitive, "competitive_best_response": checks}
    write_json(os.path.join(out, "shakes.json"), result)
    print(f"wrote {out}/shakes.json\n")
    return result


def pig(out: str) -> dict:
    from dice_envs.agents.pig.cli import pig_report, print_pig_table
    from dice_envs.agents.pig.plots import plot_pig_policy

    report = pig_report()
    solution = report.pop("_solution")
    print_pig_table(report)
    report["plot"] = plot_pig_policy(solution, os.path.join(out, "pig_optimal_policy.png"))
    write_json(os.path.join(out, "pig.json"), report)
    print(f"wrote {out}/pig.json and {report['plot']}\n")
    return report


def tatham(out: str) -> dict:
    from dice_envs.agents.tatham.cli import print_tatham_tables
    from dice_envs.agents.tatham.plots import plot_fault_sensitivity
    from dice_envs.games.tatham.dice import report as tatham_report

    report = tatham_report()
    print_tatham_tables(report)
    if not report["all_checks_passed"]:
        raise SystemExit("Tatham's dice: an exact check failed (see the table above)")
    report["plot"] = plot_fault_sensitivity(os.path.join(out, "tatham_fault_sensitivity.png"))
    write_json(os.path.join(out, "tatham.json"), report)
    print(f"wrote {out}/tatham.json and {report['plot']}\n")
    return report


def liars_dice(out: str) -> dict:
    from dice_envs.agents.liars_dice.cli import print_values_table, values_report
    from dice_envs.agents.liars_dice.plots import plot_convergence
    from dice_envs.agents.liars_dice.solver import convergence_curve
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    report = values_report()
    print_values_table(report)
    game = LiarsDiceGame(faces=6, wild=True)
    curves = {name: convergence_curve(game, name, 2000) for name in ("cfr", "cfr+")}
    report["convergence_six_faces_wild"] = {k: [list(p) for p in v] for k, v in curves.items()}
    report["plot"] = plot_convergence(
        {name.upper(): c for name, c in curves.items()}, os.path.join(out, "liars_dice_convergence.png"),
        "Liar's Dice, one 6-sided die each, 6s wild: CFR vs CFR+",
    )
    write_json(os.path.join(out, "liars_dice.json"), report)
    print(f"wrote {out}/liars_dice.json and {report['plot']}\n")
    return report


def closest_number(out: str) -> dict:
    from dice_envs.agents.closest_number.cli import closest_number_report, print_closest_number_table

    report = closest_number_report()
    print_closest_number_table(report)
    write_json(os.path.join(out, "closest_number.json"), report)
    print(f"wrote {out}/closest_number.json\n")
    return report


JOBS = {"zombie_dice": zombie_dice, "zombie_dice_official": zombie_dice_official, "shakes": shakes, "pig": pig, "tatham": tatham, "liars_dice": liars_dice,
        "closest_number": closest_number}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results", help="directory for JSON and plots (default results/)")
    parser.add_argument("--only", choices=sorted(JOBS), action="append", help="run only these games")
    args = parser.parse_args(argv)
    import warnings

    from dice_envs.agents.cli import show_warning

    warnings.showwarning = show_warning  # announcements (a long solve, a cache not written) as one line
    for name in args.only or JOBS:
        print(f"== {name} ==")
        JOBS[name](args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
