"""``dice-envs solve ayzd``, ``dice-envs solve zombie-dice``, ``dice-envs play zombie-dice`` and ``dice-envs train
ayzd|zombie-dice`` (``dice-envs evaluate``: :mod:`dice_envs.agents.zombie_dice.evaluation`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Union

import numpy as np

from dice_envs.agents.console import play_jeopardy, present, readable, write_results
from dice_envs.agents.evaluate.report import Evaluation
from dice_envs.agents.learn.presets import add_train_command
from dice_envs.agents.zombie_dice.training import AYZD_LEARNERS, ZOMBIE_DICE_LEARNERS

if TYPE_CHECKING:
    from dice_envs.agents.evaluate.jeopardy_agents import PolicyAgent
    from dice_envs.agents.zombie_dice.solver import OptimalAgent

PRESETS = Path(__file__).with_name("presets.toml")  # dice-envs train ayzd and dice-envs train zombie-dice


def add_commands(verbs) -> None:
    add_train_command(verbs["train"], "ayzd", "train a learner on All Yellow Zombie Dice, scored exactly against "
                      "optimal play", AYZD_LEARNERS, PRESETS, section="ayzd")
    add_train_command(verbs["train"], "zombie-dice", "train a learner on Zombie Dice with the official dice, scored "
                      "exactly against optimal play", ZOMBIE_DICE_LEARNERS, PRESETS, section="zombie-dice")

    solve = verbs["solve"].add_parser(
        "ayzd", help="All Yellow Zombie Dice: optimal play and the human-playable policies' gaps"
    )
    solve.add_argument("--goal", type=int, default=13, help="score that triggers the last round (13)")
    solve.add_argument("--score-cap", type=int, default=None, help="grid size (default: 4 x goal)")
    solve.add_argument(
        "--official-ending", action="store_true",
        help="let a player 2 who could win by holding roll on (letter of the rules; not the paper's model)",
    )
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.add_argument("--plot", metavar="PNG", help="also draw the optimal roll/hold regions to this file")
    solve.set_defaults(handler=solve_ayzd)

    full = verbs["solve"].add_parser(
        "zombie-dice", help="Zombie Dice with the official dice: optimal play, and the Differences of the "
        "human-playable, All Yellow and simple policies to it (exact)"
    )
    full.add_argument("--goal", type=int, default=13, help="score that triggers the last round (13)")
    full.add_argument("--score-cap", type=int, default=None, help="grid size (default: goal + 39)")
    full.add_argument("--cap-check", nargs="?", type=int, const=0, default=None, metavar="CAP",
                      help="also solve with a higher score cap (default: 16 more) and report the largest change")
    full.add_argument("--fresh", action="store_true", help="solve again even if the solution is cached")
    full.add_argument(
        "--official-ending", action="store_true",
        help="score the policies letting a player 2 who could win by holding roll on (the rules as written; "
        "the optimum is the same); the human-playable policies are reported under both readings",
    )
    full.add_argument("--json", action="store_true", help="print one JSON object")
    full.add_argument("--plot", metavar="PNG", help="also draw the turn-start win probabilities to this file")
    full.set_defaults(handler=solve_zombie_dice)

    play = verbs["play"].add_parser("zombie-dice", help="play Zombie Dice against the optimal policy")
    play.add_argument("--variant", choices=["all_yellow", "official"], default="all_yellow",
                      help="the dice: 13 yellow (default) or the official green/yellow/red")
    play.add_argument("--seat", type=int, choices=[0, 1], default=0, help="0 to move first, 1 to move second")
    play.add_argument("--seed", type=int, default=None, help="seed of the dice and the computer's choices (default: random)")
    play.set_defaults(handler=play_zombie_dice)


def ayzd_report(goal: int = 13, score_cap=None, stop_when_won: bool = True) -> dict:
    """Solve AYZD and score the four human-playable policies exactly (the paper's table)."""
    from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
    from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES, PUBLISHED_DIFFERENCES
    from dice_envs.core.resources import announced, check_resources

    cap = ayzd.check_score_cap(score_cap, goal)
    # The solve and 8 evaluations (two per human policy), each with its policy table.
    cells = 2 * cap * cap * (1 + 3 * cap)
    check_resources(f"solve ayzd --goal {goal} (a {cap} x {cap} score grid, solved and evaluated 9 times)",
                    9 * 8 * cells, 9 * 0.5e-6 * cells)
    with announced():  # the parts check their own limits; the whole was announced above
        solution = ayzd.solve(goal, score_cap, stop_when_won=stop_when_won)
        optimal = solution.as_policy()
        policies = {}
        for name, policy in HUMAN_POLICIES.items():
            result = ayzd.head_to_head(policy, optimal, goal, solution.score_cap, stop_when_won).as_dict()
            if goal == 13:
                result["published_difference"] = PUBLISHED_DIFFERENCES[name]
            policies[name] = result
    return {
        "game": "all_yellow_zombie_dice",
        "goal": goal,
        "score_cap": solution.score_cap,
        "stop_when_won": stop_when_won,
        "first_player_win": solution.first_player_win,
        "seconds": solution.seconds,
        "policies": policies,
        "_solution": solution,
    }


def solve_ayzd(args: argparse.Namespace) -> int:
    def plot(solution, path):
        from dice_envs.agents.zombie_dice.plots import plot_ayzd_policy

        return plot_ayzd_policy(solution, path)

    return present(args, ayzd_report(args.goal, args.score_cap, not args.official_ending), print_ayzd_table, plot)


def print_ayzd_table(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(
        f"All Yellow Zombie Dice, goal {report['goal']}: optimal first-player win probability "
        f"[bold]{report['first_player_win']:.6f}[/bold] (solved in {report['seconds']:.2f} s)"
    )
    table = Table(title="Human-playable policies against optimal play (exact)")
    for column in ("policy", "win as first", "win as second", "Difference", "published"):
        table.add_column(column, justify="right" if column != "policy" else "left")
    for name, row in report["policies"].items():
        published = row.get("published_difference")
        table.add_row(
            name, f"{row['win_as_first']:.4f}", f"{row['win_as_second']:.4f}", f"{row['difference']:+.4f}",
            "" if published is None else f"{published:+.4f}",
        )
    console.print(readable(table))


#: The exact evaluations of ``solve zombie-dice`` (18 under its reading, 8 under the other) take
#: about this many times the solve's time estimate (measured at goal 13: docs/games/zombie_dice.md).
EVALUATIONS_PER_SOLVE = 1.0

#: The two readings of the end of a round, by their report keys.
READINGS = {True: "stop_when_won", False: "official_ending"}


def zombie_dice_report(goal: int = 13, score_cap=None, fresh: bool = False, cap_check=None,
                       stop_when_won: bool = True) -> dict:
    """Solve official two-player Zombie Dice (or load the cached solution) and score the standard
    policies exactly against it (:mod:`dice_envs.agents.zombie_dice.solver`), under the reading
    ``stop_when_won`` (the default: a player 2 who would win by holding holds; ``False``: the
    rules as written).  The four human-playable policies are scored under both readings:
    ``difference_stop_when_won`` and ``difference_official_ending``, and ``best_human_policy``
    names the best of them under each."""
    import time

    from dice_envs.agents.zombie_dice import solver as zds
    from dice_envs.agents.zombie_dice.policies import PUBLISHED_DIFFERENCES
    from dice_envs.core.resources import announced, check_resources

    cap = zds.check_score_cap(score_cap, goal)
    memory, seconds, chain_seconds = zds._estimate(cap, goal)
    cache_dir = zds.solver_cache.default_cache_dir()
    cached = not fresh and os.path.exists(zds.solver_cache.cache_path("zombie_dice", zds._cache_key(goal, cap),
                                                                      cache_dir))
    # One estimate for the command: the solve only where it will run (a cached solution is loaded).
    check_resources(f"solve zombie-dice --goal {goal} (score cap {cap}: {'read from the cache' if cached else 'solved'}, "
                    f"then 26 exact evaluations)", memory,
                    chain_seconds + seconds * (EVALUATIONS_PER_SOLVE + (0 if cached else 1)))
    shared = zds.TurnOutcomes(zds.dice_chain())  # the turns followed, shared by every evaluation
    with announced():  # the solve and the evaluations check their own limits; the whole was announced above
        if fresh:
            solution = zds.solve(goal, cap)
            zds.store_cached(solution, cache_dir)
        else:  # a cached solution is re-evaluated exactly before it is reported (verify)
            solution = zds.solved(goal, cap, cache_dir=cache_dir, verify=True, outcomes=shared)
        t0 = time.perf_counter()
        standard = zds.standard_policies(goal)  # the same objects under both readings: their turns are shared
        policies = zds.differences(solution, standard, stop_when_won=stop_when_won, outcomes=shared)
        human = {name: standard[name] for name in zds.REFERENCE_POLICIES}
        other = zds.differences(solution, human, stop_when_won=not stop_when_won, outcomes=shared)
    for name in zds.REFERENCE_POLICIES:
        policies[name][f"difference_{READINGS[stop_when_won]}"] = policies[name]["difference"]
        policies[name][f"difference_{READINGS[not stop_when_won]}"] = other[name]["difference"]
    best = {reading: max(zds.REFERENCE_POLICIES, key=lambda name: policies[name][f"difference_{reading}"])
            for reading in READINGS.values()}
    evaluation_seconds = time.perf_counter() - t0
    if goal == 13:
        for name, published in PUBLISHED_DIFFERENCES.items():
            policies[name]["all_yellow_difference"] = published
    turn = {name: zds.turn_figures(policy) for name, policy in (
        ("roll_until_1_shotgun", zds.RollUntilShotguns(1)),
        ("roll_until_2_shotguns", zds.RollUntilShotguns(2)),
        ("max_expected_brains", zds.max_expected_brains_policy()),
    )}
    report = {
        "game": "zombie_dice",
        "variant": "official",
        "num_players": 2,
        "goal": goal,
        "score_cap": solution.score_cap,
        "stop_when_won": stop_when_won,
        "first_player_win": solution.first_player_win,
        "seconds": solution.seconds,
        "states": solution.states,
        "positions": solution.positions,
        "dice_states": solution.chain.size,
        "peak_memory": solution.peak_memory,
        "policy_iterations": solution.iterations,
        "timings": solution.timings,
        "cached": solution.cached,
        "policies": policies,
        "best_human_policy": best,
        "evaluation_seconds": evaluation_seconds,
        "turn": turn,
    }
    if cap_check is not None:
        report["cap_check"] = zds.cap_check(goal, cap, cap_check or None, base=solution)
    report["_solution"] = solution
    return report


def solve_zombie_dice(args: argparse.Namespace) -> int:
    def plot(solution, path):
        from dice_envs.agents.zombie_dice.solver_plots import plot_official_solution

        return plot_official_solution(solution, path)

    report = zombie_dice_report(args.goal, args.score_cap, args.fresh, args.cap_check,
                                stop_when_won=not args.official_ending)
    return present(args, report, print_zombie_dice_table, plot)


def print_zombie_dice_table(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    how = "loaded from the cache; solved" if report["cached"] else "solved"
    console.print(
        f"Zombie Dice (official dice), goal {report['goal']}: optimal first-player win probability "
        f"[bold]{report['first_player_win']:.6f}[/bold] ({how} in {report['seconds']:.1f} s; "
        f"{report['states']:,} states over {report['dice_states']:,} dice states; score cap {report['score_cap']})"
    )
    reading = "the rules as written" if not report["stop_when_won"] else "a winning player 2 holds"
    table = Table(title=f"Policies against optimal play (exact, both seats; {reading})")
    columns = ("policy", "win as first", "win as second", "Difference", "holds when won", "as written",
               "AYZD Difference")
    for column in columns:
        table.add_column(column, justify="right" if column != "policy" else "left")

    def signed(value):
        return "" if value is None else f"{value:+.4f}"

    for name, row in report["policies"].items():
        table.add_row(name, f"{row['win_as_first']:.4f}", f"{row['win_as_second']:.4f}", signed(row["difference"]),
                      signed(row.get("difference_stop_when_won")), signed(row.get("difference_official_ending")),
                      signed(row.get("all_yellow_difference")))
    console.print(readable(table))
    best = report["best_human_policy"]
    console.print(f"best human-playable policy: {best['stop_when_won']} when a winning player 2 holds, "
                  f"{best['official_ending']} under the rules as written")
    for name, row in report["turn"].items():
        console.print(f"one turn, {name}: {row['expected_brains']:.6f} brains expected, busts {row['bust']:.6f}")
    check = report.get("cap_check")
    if check:
        lowest = check["lowest_score_with_a_changed_decision"]
        console.print(
            f"score cap {check['score_cap']} -> {check['raised_cap']}: first-player win changes by "
            f"{check['first_player_win_change']:.1e}, no turn-start value below the goal by more than "
            f"{check['max_change_below_goal']:.1e} (below {check['score_cap'] // 2}: "
            f"{check['max_change_below_half_cap']:.1e}); decisions changed: {check['decisions_changed']:,} of "
            f"{check['decisions_compared']:,}" + ("" if lowest is None else f", none below a score of {lowest}")
        )


def play_zombie_dice(args: argparse.Namespace) -> int:
    """A person against the optimal policy (AYZD's for all yellow dice, the official dice's
    otherwise), in the terminal."""
    from dice_envs.agents.evaluate.jeopardy_agents import PolicyAgent
    from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
    from dice_envs.games.zombie_dice import env as zombie_dice_v0
    from dice_envs.games.zombie_dice.rules import ZombieDiceState

    env = zombie_dice_v0.raw_env(variant=args.variant, render_mode="ansi")
    computer: Union[OptimalAgent, PolicyAgent]
    if args.variant == "official":
        from dice_envs.agents.zombie_dice import solver as zds

        print("(the optimal policy for the official dice: loaded from the cache, or solved in about a minute)")
        official = zds.solved(env.game.goal)
        computer = zds.OptimalAgent(official)
        hint_value = official.value
    else:
        solution = ayzd.solve(env.game.goal)
        computer = PolicyAgent(solution.as_policy(), rng=np.random.default_rng(args.seed))
        hint_value = lambda state: solution.value(*state.two_player_view())  # noqa: E731
    env.reset(seed=args.seed)

    def hint(state: ZombieDiceState) -> str:
        return f"(win probability if you play on optimally: {hint_value(state):.3f})"

    print("you win!" if play_jeopardy(env, args.seat, computer, hint) else "the computer wins.")
    return 0


def ground_truth_ayzd(out: str) -> dict:
    """All Yellow Zombie Dice's table and its optimal policy's plot, written to ``out``."""
    from dice_envs.agents.zombie_dice.plots import plot_ayzd_policy

    report = ayzd_report()
    solution = report.pop("_solution")
    print_ayzd_table(report)
    report["plot"] = plot_ayzd_policy(solution, os.path.join(out, "ayzd_optimal_policy.png"))
    return write_results(out, "ayzd", report)


def ground_truth_official(out: str) -> dict:
    """The official dice' table and their optimal policy's plot, written to ``out``."""
    from dice_envs.agents.zombie_dice.solver_plots import plot_official_solution

    report = zombie_dice_report()  # solved once, then cached
    solution = report.pop("_solution")
    print_zombie_dice_table(report)
    report["plot"] = plot_official_solution(solution, os.path.join(out, "zombie_dice_official_policy.png"))
    return write_results(out, "zombie_dice_official", report)


#: This room's parts of the ground-truth job (``./run main``), by the name ``--only`` takes.
GROUND_TRUTH = {"zombie_dice": ground_truth_ayzd, "zombie_dice_official": ground_truth_official}


def _official_ending(parser, solve: str) -> None:
    parser.add_argument("--official-ending", dest="stop_when_won", action="store_false", default=None,
                        help=f"let a player 2 who could win by holding roll on (the rules as written; as for {solve})")


def _ayzd_options(parser) -> None:
    parser.add_argument("--goal", type=int, default=None, help="goal (default: the model's, else 13)")
    _official_ending(parser, "solve ayzd")


def _official_options(parser) -> None:
    parser.add_argument("--goal", type=int, default=None, help="goal (default: the model's, else 13)")
    parser.add_argument("--score-cap", type=int, default=None, help="grid size (default: goal + 39)")
    _official_ending(parser, "solve zombie-dice")


AYZD = Evaluation(
    "ayzd", "All Yellow Zombie Dice against the optimal policy (the paper's Difference)",
    "optimal, random, fixed_hold_at, minh, llano, neller", "dice_envs.agents.zombie_dice.evaluation:score_ayzd", _ayzd_options,
    recorded_names=("ayzd", "all_yellow_zombie_dice"))
OFFICIAL = Evaluation(
    "zombie-dice", "Zombie Dice with the official dice against the optimal policy",
    ("optimal, the human-playable policies, all_yellow_optimal, roll_until_1_shotgun, roll_until_2_shotguns, "
     "max_expected_brains, random"), "dice_envs.agents.zombie_dice.evaluation:score_official", _official_options,
    recorded_names=("zombie-dice", "zombie_dice"))

#: How ``dice-envs evaluate`` scores this room's agents (:mod:`dice_envs.agents.zombie_dice.evaluation`), as its
#: :mod:`dice_envs.registry` entry names them.
EVALUATIONS = (AYZD, OFFICIAL)
