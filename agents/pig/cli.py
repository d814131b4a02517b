"""``dice-envs solve pig``, ``dice-envs play pig`` and ``dice-envs train pig`` (``dice-envs evaluate pig``:
:mod:`dice_envs.agents.pig.evaluation`)."""

from __future__ import annotations

import argparse
import os
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from dice_envs.agents.console import play_jeopardy, present, readable, write_results
from dice_envs.agents.evaluate.report import Evaluation
from dice_envs.agents.learn.presets import add_train_command
from dice_envs.agents.pig.training import LEARNERS
from dice_envs.core.dice import d

PRESETS = Path(__file__).with_name("presets.toml")  # dice-envs train pig


def add_commands(verbs) -> None:
    add_train_command(verbs["train"], "pig", "train a learner on Pig (goal 100), scored exactly against optimal play",
                      LEARNERS, PRESETS)

    solve = verbs["solve"].add_parser(
        "pig", help="Pig: optimal play (Neller and Presser 2004) and the hold-at-20 policy's exact gap"
    )
    solve.add_argument("--goal", type=int, default=100, help="winning score (100)")
    solve.add_argument("--hold-at", type=int, default=20, help="the hold-at policy to score against optimal (20)")
    add_die_arguments(solve)
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.add_argument("--plot", metavar="PNG", help="also draw the optimal hold-at totals and win probabilities")
    solve.set_defaults(handler=solve_pig)

    play = verbs["play"].add_parser("pig", help="play Pig against the optimal policy")
    play.add_argument("--goal", type=int, default=100, help="winning score (100)")
    add_die_arguments(play)
    play.add_argument("--seat", type=int, choices=[0, 1], default=0, help="0 to move first, 1 to move second")
    play.add_argument("--seed", type=int, default=None, help="seed of the dice and the computer's choices (default: random)")
    play.set_defaults(handler=play_pig)


def add_die_arguments(parser) -> None:
    parser.add_argument(
        "--load", nargs=2, metavar=("FACE", "FACTOR"), action="append", default=[],
        help="load a face of the d6: multiply its weight by FACTOR (e.g. --load 6 5/4); repeatable",
    )


def die_from_args(args: argparse.Namespace):
    """The d6, with the faces given by ``--load FACE FACTOR`` loaded (None: a fair d6)."""
    return loaded_die(args.load)


def loaded_die(loads):
    """The d6 with each ``(face, factor)`` of ``loads`` loaded (None: a fair d6, for no loads)."""
    if not loads:
        return None
    die = d(6)
    for face, factor in loads:
        try:
            face, factor = int(face), Fraction(factor)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"--load needs an integer face and a factor such as 5/4, got {face} {factor}") from None
        die = die.loaded(face, factor)
    return die


def die_summary(die) -> dict:
    """A JSON-friendly description of a die: faces and exact probabilities."""
    return {
        "name": die.name,
        "faces": [int(f) for f in die.faces],
        "probabilities": [str(p) for p in die.probabilities],
    }


def pig_report(goal: int = 100, die=None, hold_at: int = 20) -> dict:
    """Solve Pig and score the hold-at policy exactly (self-play and against optimal)."""
    from dice_envs.agents.pig import solver as pig

    policy = pig.hold_at(hold_at)  # checks the argument before the solve
    solution = pig.solve(goal, die)
    optimal = solution.as_policy()
    t0 = time.perf_counter()
    row = pig.head_to_head(policy, optimal, goal, die).as_dict()
    row["self_play_first_player_win"] = pig.evaluate(policy, policy, goal, die)
    row["evaluation_seconds"] = time.perf_counter() - t0
    classic = goal == 100 and (die is None or die == pig.FAIR_D6)
    if classic and hold_at == 20:
        row["published_self_play_first_player_win"] = pig.PUBLISHED_HOLD_AT_20_FIRST_PLAYER_WIN
    report = {
        "game": "pig",
        "goal": goal,
        "die": die_summary(solution.die),
        "first_player_win": solution.first_player_win,
        "seconds": solution.seconds,
        "optimal_hold_at_from_0_0": int(solution.hold_at()[0, 0]),
        "policies": {policy.__name__: row},
        "_solution": solution,
    }
    if classic:
        report["published_first_player_win"] = pig.PUBLISHED_FIRST_PLAYER_WIN
    return report


def solve_pig(args: argparse.Namespace) -> int:
    def plot(solution, path):
        from dice_envs.agents.pig.plots import plot_pig_policy

        return plot_pig_policy(solution, path)

    return present(args, pig_report(args.goal, die_from_args(args), args.hold_at), print_pig_table, plot)


def print_pig_table(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    published = report.get("published_first_player_win")
    note = f" (published {published})" if published is not None else ""
    die = report["die"]
    console.print(
        f"Pig, goal {report['goal']}, {die['name']} ({', '.join(f'{f}: {p}' for f, p in zip(die['faces'], die['probabilities']))}): "
        f"optimal first-player win probability [bold]{report['first_player_win']:.6f}[/bold]{note} "
        f"(solved in {report['seconds']:.2f} s)"
    )
    table = Table(title="Policies against optimal play (exact)")
    for column in ("policy", "win as first", "win as second", "Difference", "self-play first-player win"):
        table.add_column(column, justify="right" if column != "policy" else "left")
    for name, row in report["policies"].items():
        self_play = f"{row['self_play_first_player_win']:.4f}"
        if "published_self_play_first_player_win" in row:
            self_play += f" (published {row['published_self_play_first_player_win']})"
        table.add_row(
            name, f"{row['win_as_first']:.4f}", f"{row['win_as_second']:.4f}", f"{row['difference']:+.4f}", self_play
        )
    console.print(readable(table))


def play_pig(args: argparse.Namespace) -> int:
    """A person against the optimal Pig policy, in the terminal."""
    from dice_envs.agents.evaluate.jeopardy_agents import PolicyAgent
    from dice_envs.agents.pig import solver as pig
    from dice_envs.games.pig import env as pig_v0
    from dice_envs.games.pig.rules import PigState

    env = pig_v0.raw_env(goal=args.goal, die=die_from_args(args), render_mode="ansi")
    solution = pig.solve(env.game.goal, env.game.die)
    computer = PolicyAgent(solution.as_policy(), rng=np.random.default_rng(args.seed))
    env.reset(seed=args.seed)

    def hint(state: PigState) -> str:
        i, j, k = state.two_player_view()
        advice = "roll" if solution.should_roll(i, j, k) else "hold"
        return f"(win probability with optimal play: {solution.value(i, j, k):.3f}; optimal: {advice})"

    print("you win!" if play_jeopardy(env, args.seat, computer, hint) else "the computer wins.")
    return 0


def ground_truth_pig(out: str) -> dict:
    """Pig's table and its optimal policy's plot, written to ``out``."""
    from dice_envs.agents.pig.plots import plot_pig_policy

    report = pig_report()
    solution = report.pop("_solution")
    print_pig_table(report)
    report["plot"] = plot_pig_policy(solution, os.path.join(out, "pig_optimal_policy.png"))
    return write_results(out, "pig", report)


#: This room's parts of the ground-truth job (``./run main``), by the name ``--only`` takes.
GROUND_TRUTH = {"pig": ground_truth_pig}


def _options(parser) -> None:
    parser.add_argument("--goal", type=int, default=None, help="goal (default: the model's, else 100)")
    add_die_arguments(parser)


def _read_options(config: dict) -> dict:
    return {**{key: value for key, value in config.items() if key != "load"}, "die": loaded_die(config.get("load"))}


def _printable(config: dict) -> dict:
    return {**config, "die": None if config.get("die") is None else die_summary(config["die"])}


PIG = Evaluation("pig", "Pig against the optimal policy", "optimal, hold_at_N, random",
                 "dice_envs.agents.pig.evaluation:score_pig", _options,
                 read_options=_read_options, printable=_printable, recorded_names=("pig",))

#: How ``dice-envs evaluate`` scores this room's agents (:mod:`dice_envs.agents.pig.evaluation`), as its
#: :mod:`dice_envs.registry` entry names them.
EVALUATIONS = (PIG,)
