"""The main job: solve every game, print its ground-truth tables and baseline
scores, and write them as JSON and plots to ``results/``.

Run it with ``./run main`` (or ``python experiments/ground_truth.py --out DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile


def write_json(path: str, obj) -> None:
    """Write ``obj`` as JSON atomically (a temporary file, then a rename)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=directory, delete=False, suffix=".tmp") as tmp:
        json.dump(obj, tmp, indent=2)
    os.replace(tmp.name, path)


def zombie_dice(out: str) -> dict:
    from agents.plots import plot_ayzd_policy
    from dice_envs.cli.zombie_dice import ayzd_report, print_ayzd_table

    report = ayzd_report()
    solution = report.pop("_solution")
    print_ayzd_table(report)
    report["plot"] = plot_ayzd_policy(solution, os.path.join(out, "ayzd_optimal_policy.png"))
    write_json(os.path.join(out, "ayzd.json"), report)
    print(f"wrote {out}/ayzd.json and {report['plot']}\n")
    return report


def liars_dice(out: str) -> dict:
    from agents.liars_dice_plots import plot_convergence
    from agents.liars_dice_solver import convergence_curve
    from dice_envs.cli.liars_dice import print_values_table, values_report
    from dice_envs.liars_dice import LiarsDiceGame

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


JOBS = {"zombie_dice": zombie_dice, "liars_dice": liars_dice}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results", help="directory for JSON and plots (default results/)")
    parser.add_argument("--only", choices=sorted(JOBS), action="append", help="run only these games")
    args = parser.parse_args(argv)
    for name in args.only or JOBS:
        print(f"== {name} ==")
        JOBS[name](args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
