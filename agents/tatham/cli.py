"""``dice-envs dice tatham``: Simon Tatham's dice that never roll 7, checked exactly."""

from __future__ import annotations

import argparse
import os

from dice_envs.agents.console import print_json, readable, write_results


def add_commands(verbs) -> None:
    tatham = verbs["dice"].add_parser(
        "tatham", help="Tatham's relabelled dice: exact checks of the seed's claims and fault sensitivity"
    )
    tatham.add_argument(
        "--load", default="1/4",
        help="extra weight on the loaded face, as a fraction or decimal above -1 (default 1/4: 25%% heavier)",
    )
    tatham.add_argument("--json", action="store_true", help="print one JSON object")
    tatham.add_argument("--plot", metavar="PNG", help="also draw the sensitivity plot to this file")
    tatham.set_defaults(handler=dice_tatham)


def dice_tatham(args: argparse.Namespace) -> int:
    from dice_envs.games.tatham import dice as tatham

    report = tatham.report(args.load)
    if args.plot:
        from dice_envs.agents.tatham.plots import plot_fault_sensitivity

        report["plot"] = plot_fault_sensitivity(args.plot, load=_fraction(report["load"]))
    if args.json:
        print_json(report)
    else:
        print_tatham_tables(report)
    return 0 if report["all_checks_passed"] else 1


def _fraction(text: str):
    from fractions import Fraction

    return Fraction(text)


def print_tatham_tables(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    checks = Table(title="A Pair Of Dice Which Never Roll 7: the seed's claims, by exact enumeration")
    checks.add_column("check")
    checks.add_column("result", justify="center")
    for c in report["checks"]:
        checks.add_row(c["check"], "[green]exact[/green]" if c["passed"] else "[red]FAILS[/red]")
    console.print(readable(checks))
    load = float(_fraction(report["load"]))
    table = Table(title=f"Fault sensitivity: one face of one die {load:+.0%} in weight, worst case over the face")
    for column in ("mechanism", "7", "red", "total variation (face)", "max rel. error (face, total)", "at 6 / 8"):
        table.add_column(column, justify="left" if column == "mechanism" else "right")
    for row in report["sensitivity"]:
        by_total = row["max_relative_error_by_total"]
        table.add_row(
            row["mechanism"], "yes" if row["rolls_seven"] else "no", "yes" if row["red_numbers"] else "no",
            f"{row['total_variation']:.4f} ({row['total_variation_face']})",
            f"{row['max_relative_error']:.1%} ({row['max_relative_error_face']}, {row['max_relative_error_total']})",
            f"{by_total['6']:.1%} / {by_total['8']:.1%}",
        )
    console.print(readable(table))


def ground_truth_tatham(out: str) -> dict:
    """The exact checks of Tatham's dice and their fault sensitivity's plot, written to ``out``; exits
    with an error where a check fails."""
    from dice_envs.agents.tatham.plots import plot_fault_sensitivity
    from dice_envs.games.tatham.dice import report as tatham_report

    report = tatham_report()
    print_tatham_tables(report)
    if not report["all_checks_passed"]:
        raise SystemExit("Tatham's dice: an exact check failed (see the table above)")
    report["plot"] = plot_fault_sensitivity(os.path.join(out, "tatham_fault_sensitivity.png"))
    return write_results(out, "tatham", report)


#: This room's parts of the ground-truth job (``./run main``), by the name ``--only`` takes.
GROUND_TRUTH = {"tatham": ground_truth_tatham}
