"""``dice-envs solve closest-number`` and ``dice-envs play closest-number``."""

from __future__ import annotations

import argparse
import sys
import time
from typing import cast

import numpy as np

from dice_envs.agents.console import print_json, readable, write_results
from dice_envs.agents.evaluate.report import Evaluation
from dice_envs.agents.solve.interval import format_value


def _game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--numbers", type=int, default=10, help="number cards 1..N, 4 to 40 (10)")
    parser.add_argument("--round3", choices=["two_cards", "one_card"], default="two_cards",
                        help="reading of the seed's round-3 rule: two scoring cards each (default) or one card")


def add_commands(verbs) -> None:
    solve = verbs["solve"].add_parser(
        "closest-number",
        help="Closest Number: subgame-perfect round 1; for 2 players the full-game equilibrium",
    )
    solve.add_argument("--players", type=int, default=2, help="players, 2 to N // 2 (2)")
    _game_arguments(solve)
    solve.add_argument("--tie-break", choices=["lowest", "highest", "spiteful"], default="lowest",
                       help="round 1: which of equally good numbers a player picks (lowest)")
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.set_defaults(handler=solve_closest_number)

    play = verbs["play"].add_parser("closest-number", help="play Closest Number against the equilibrium")
    _game_arguments(play)
    play.add_argument("--seat", type=int, choices=[0, 1], default=0, help="your seat (0 or 1)")
    play.add_argument("--starting-player", type=int, choices=[0, 1], default=None,
                      help="who starts round 1 (default: drawn at random)")
    play.add_argument("--seed", type=int, default=None, help="seed of the dice and the computer's choices (default: random)")
    play.set_defaults(handler=play_closest_number)


def solve_report(players: int = 2, numbers: int = 10, round3: str = "two_cards", tie_break: str = "lowest") -> dict:
    """Round 1's subgame-perfect picks and, for two players, the full-game equilibrium."""
    from dice_envs.agents.closest_number.round1 import solve_round1

    t0 = time.perf_counter()
    report = {"game": "closest_number", "num_players": players, "numbers": numbers, "round3": round3,
              "round1": solve_round1(players, numbers, tie_break).as_dict()}
    if players == 2:
        from dice_envs.agents.closest_number.solver import solve

        report["full_game"] = solve(numbers, round3).as_dict()
    report["seconds"] = time.perf_counter() - t0
    return report


def solve_closest_number(args: argparse.Namespace) -> int:
    report = solve_report(args.players, args.numbers, args.round3, args.tie_break)
    if args.json:
        print_json(report)
        return 0
    r1 = report["round1"]
    print(f"Closest Number, {args.players} players, numbers 1..{args.numbers}")
    print(f"  round 1 alone (each maximises own points; ties: {r1['tie_break']} number)")
    print(f"    picks in order   {r1['placements_in_order']}")
    print(f"    points in order  {r1['points_in_order']}")
    print(f"    best first picks {r1['best_first_moves']}")
    full = report.get("full_game")
    if full:
        print(f"  full game (round 3 reading: {full['round3']})")
        print(f"    value for the starting player  {format_value(*full['value_interval'])} (it lies in "
              f"[{full['value_interval'][0]:+.6f}, {full['value_interval'][1]:+.6f}]; the strategy's "
              f"{full['value_first_player']:+.6f})")
        print(f"    exploitability                 {full['exploitability']:.2e}")
        line = ", ".join(f"P{m['seat']} {m['action']}" for m in full["round1_equilibrium_line"])
        print(f"    round 1 at equilibrium         {line}")
    print(f"  {report['seconds']:.2f} s")
    return 0


def _ask_placement(state) -> int:
    game = state.game
    legal = state.legal_actions()
    prompt = "your card: a number" + (", or 'd N' for the decoy" if state.rules.decoy else "") + ": "
    while True:
        try:
            answer = input(prompt).strip().lower()
        except EOFError:
            raise KeyboardInterrupt from None
        words = answer.replace("decoy", "d").split()
        decoy = "d" in words
        digits = [w for w in words if w != "d"]
        if len(digits) != 1 or not digits[0].isdigit() or not 1 <= int(digits[0]) <= game.numbers:
            print(f"please answer a number from 1 to {state.rules.numbers}"
                  + (" (prefix 'd' for the decoy)" if state.rules.decoy else ""))
            continue
        action = game.action(int(digits[0]), decoy)
        if action in legal:
            return action
        try:
            state.check_action(action)
        except ValueError as err:
            print(str(err).split("; legal actions")[0])


def play_closest_number(args: argparse.Namespace) -> int:
    """A person against the equilibrium strategy, in the terminal."""
    from dice_envs.agents.closest_number.solver import ClosestNumberSolver
    from dice_envs.games.closest_number import env as closest_number_v0
    from dice_envs.games.closest_number.rules import ClosestNumberState

    env = closest_number_v0.raw_env(numbers=args.numbers, round3=args.round3,
                                    starting_player=args.starting_player)
    print("solving the computer's strategy ...", file=sys.stderr)
    solver = ClosestNumberSolver(args.numbers, args.round3)
    value = solver.solve_all()
    policy = solver.policy()
    rng = np.random.default_rng(args.seed)
    env.reset(seed=args.seed)
    me = env.possible_agents[args.seat]
    first = cast(ClosestNumberState, env.game_state).first
    print(f"you are {me}; player_{first} starts round 1 "
          f"(at equilibrium the starting player's value is {value:+.3f})")
    shown_round = None
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        state = cast(ClosestNumberState, env.game_state)
        if state.round != shown_round:
            if state.history:
                print("last round, face up:")
                print(_face_up(state.game, state.history[-1]))
            shown_round = state.round
        if agent == me:
            print(state.describe(args.seat))
            env.step(_ask_placement(state))
        else:
            action = policy.sample(state, rng)
            number, decoy = state.game.decode(action)
            hidden = " (face down)" if state.rules.decoy else ""
            print(f"computer puts a card on {number}{hidden}")
            env.step(action)
    final = cast(ClosestNumberState, env.game_state)
    print(final.describe(None))
    print("you win!" if final.winner == args.seat else "a draw." if final.winner is None else "the computer wins.")
    return 0


def _face_up(game, placements) -> str:
    cells = {k: f"P{s}" + ("d" if d else "") for s, k, d in placements}
    top = max(k for _, k, _ in placements)
    return " ".join(f"{cells.get(k, '.'):>4}" for k in range(1, max(top, 1) + 1))


def closest_number_report(boards=range(4, 11), players=range(2, 6), numbers: int = 10) -> dict:
    """The main job's table: the full two-player game's value and exploitability on
    every board size in ``boards`` (both round-3 readings), and round 1 alone on
    ``numbers`` for each player count (lowest-number tie-breaking)."""
    from dice_envs.agents.closest_number.round1 import solve_round1
    from dice_envs.agents.closest_number.solver import solve

    full = []
    for n in boards:
        for round3 in ("two_cards", "one_card"):
            r = solve(n, round3).as_dict()
            full.append({k: r[k] for k in ("numbers", "round3", "value_first_player", "value_interval", "exploitability", "seconds",
                                            "round1_equilibrium_line")})
    round1 = [solve_round1(p, numbers).as_dict() for p in players if p <= numbers // 2]
    return {"game": "closest_number", "full_game": full, "round1": round1}


def print_closest_number_table(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Closest Number, 2 players: value of the whole game for the starting player")
    for column in ("numbers", "round 3", "value", "exploitability", "round 1 at equilibrium", "s"):
        table.add_column(column, justify="right", no_wrap=True)
    for row in report["full_game"]:
        line = ", ".join(f"P{m['seat']} {m['action'].replace('card on ', '')}" for m in row["round1_equilibrium_line"])
        table.add_row(str(row["numbers"]), row["round3"], format_value(*row["value_interval"], max_decimals=4),
                      f"{row['exploitability']:.1e}", line, f"{row['seconds']:.1f}")
    console = Console(width=max(Console().width, 100))
    console.print(readable(table))
    table = Table(title="Round 1 alone: subgame-perfect picks (own points; ties: lowest number)")
    for column in ("players", "numbers", "picks in order", "points", "best first picks"):
        table.add_column(column, justify="right", no_wrap=True)
    for row in report["round1"]:
        table.add_row(str(row["num_players"]), str(row["numbers"]), str(row["placements_in_order"]),
                      str(row["points_in_order"]), str(row["best_first_moves"]))
    console.print(readable(table))


def ground_truth_closest_number(out: str) -> dict:
    """Round 1's subgame-perfect picks and the two-player whole game's values, written to ``out``."""
    report = closest_number_report()
    print_closest_number_table(report)
    return write_results(out, "closest_number", report)


#: This room's parts of the ground-truth job (``./run main``), by the name ``--only`` takes.
GROUND_TRUTH = {"closest_number": ground_truth_closest_number}


def _options(parser) -> None:
    parser.add_argument("--numbers", type=int, default=None, help="number cards 1..N (10)")
    parser.add_argument("--round3", choices=["two_cards", "one_card"], default=None,
                        help="how round 3 is read (two_cards)")


CLOSEST_NUMBER = Evaluation("closest-number", "Closest Number: exploitability, and the value against the equilibrium",
                            "equilibrium, random", "dice_envs.agents.closest_number.evaluation:score_closest_number",
                            _options, mixed=True,
                            recorded_names=("closest-number", "closest_number"))

#: How ``dice-envs evaluate`` scores this room's agents (:mod:`dice_envs.agents.closest_number.evaluation`), as
#: its :mod:`dice_envs.registry` entry names them.
EVALUATIONS = (CLOSEST_NUMBER,)
