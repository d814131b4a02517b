"""``dice-envs solve liars-dice``, ``dice-envs solve liars-dice-match``, ``dice-envs export-efg liars-dice``,
``dice-envs play liars-dice`` and ``dice-envs train liars-dice`` (``dice-envs evaluate``:
:mod:`dice_envs.agents.liars_dice.evaluation`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import cast

import numpy as np

from dice_envs.agents.console import print_json, readable, write_results
from dice_envs.agents.evaluate.report import Evaluation
from dice_envs.agents.learn.presets import add_train_command
from dice_envs.agents.liars_dice import belief_learner, full_width, play_training, rllib_training
from dice_envs.games.liars_dice.named import NAMED_GAMES, named_game, rules_arguments, same_argument

PRESETS = Path(__file__).with_name("presets.toml")  # dice-envs train liars-dice


def game_arguments(parser: argparse.ArgumentParser, defaults: bool = True, dice: int = 1, wild: str = "none") -> None:
    """``--faces``, ``--dice N [N ...]`` and ``--wild [aces|highest|none]`` (a bare ``--wild`` is
    ``highest``); with ``defaults=False`` an option left out is None (``evaluate`` then takes
    the model's own game, the other commands :func:`rules_of`'s: the named game's, else the defaults).
    ``dice`` and ``wild`` are the defaults the help names (the whole game's are two dice each, aces wild)."""
    parser.add_argument("--faces", type=int, default=6 if defaults else None, help="sides of each die, 2 to 6 (6)")
    parser.add_argument("--dice", type=int, nargs="+", default=[dice] if defaults else None, metavar="N",
                        help="dice per player, 1 to 5: one count for everybody (--dice 2) or one per player "
                             f"(--dice 2 1) ({dice})")
    parser.add_argument("--wild", nargs="?", const="highest", default=wild if defaults else None,
                        choices=["aces", "highest", "none"],
                        help="the wild face: aces (face 1, as most tables play), highest (the highest face, "
                             f"OpenSpiel's liars_dice; a bare --wild) or none (default {wild})")


def named_game_argument(parser: argparse.ArgumentParser) -> None:
    """``--game NAME``: a named game (:mod:`dice_envs.games.liars_dice.named`), which sets ``--dice``,
    ``--faces`` and ``--wild``; given with it, they must agree with it."""
    parser.add_argument("--game", dest="named_game", default=None, metavar="NAME",
                        help="a named game, which sets --dice, --faces and --wild (given too, they must agree): "
                             + ", ".join(NAMED_GAMES) + " (LD2D5F: OpenSpiel's liars_dice with two five-sided dice "
                             "each, the field's benchmark)")


def rules_of(args: argparse.Namespace) -> dict:
    """``dice_per_player``, ``faces`` and ``wild`` of a parsed command line: ``--game``'s, or ``--dice``,
    ``--faces`` and ``--wild`` with their defaults for those not given (``ValueError`` where they
    conflict with ``--game``)."""
    return rules_arguments(getattr(args, "named_game", None), dice_per_player=dice_argument(args.dice),
                           faces=args.faces, wild=args.wild)


def named_game_options(name: str, options, given) -> dict:
    """The options of a learner (whose options are named ``options``) that the named game ``name``
    sets: ``faces``, ``wild`` and ``dice`` (``"2"``, ``"1,2"``), a learner without ``dice`` playing one
    die each.  ``ValueError`` for a game the learner cannot play, or an option of ``given`` (set with
    the name) that disagrees with the game (the presets' ``game`` key, ``dice-envs train --game``)."""
    named = named_game(name)
    game = named.game()
    settings: dict = {"faces": game.faces, "wild": game.wild_rule}
    if "dice" in options:
        settings["dice"] = ",".join(map(str, game.dice)) if len(set(game.dice)) > 1 else str(game.dice[0])
    elif game.dice != (1, 1):
        raise ValueError(f"{named.name} has {game.describe()}; this learner plays one die each")
    absent = sorted(set(settings) - set(options))
    if absent:
        raise ValueError(f"{named.name}: this learner has no option {', '.join(absent)}")
    for key, value in given.items():
        if key not in settings:
            continue
        rules_key = "dice_per_player" if key == "dice" else key
        try:
            mine = dice_argument([int(n) for n in str(value).split(",")]) if key == "dice" else value
        except ValueError:
            raise ValueError(f"dice must be counts such as '2' or '1,2', got {value!r}") from None
        theirs = dice_argument(list(game.dice)) if key == "dice" else settings[key]
        if not same_argument(rules_key, mine, theirs):
            raise ValueError(f"game {named.name} has {key} = {settings[key]!r}; {key} = {value!r} conflicts with it")
    return settings


def dice_argument(dice):
    """``--dice``'s values as ``dice_per_player``: one int, or a tuple of counts (None stays None)."""
    if dice is None or isinstance(dice, int):
        return dice
    return dice[0] if len(dice) == 1 else tuple(dice)


def add_commands(verbs) -> None:
    learners = {**play_training.LEARNERS, "mmd-full-width": full_width.LEARNER, "rllib-ppo": rllib_training.LEARNER,
                "pbs": belief_learner.LEARNER}
    add_train_command(verbs["train"], "liars-dice", "train a learner on two-player Liar's Dice, scored exactly "
                      "(exploitability)", learners, PRESETS, games=named_game_options, game_names=tuple(NAMED_GAMES))

    solve = verbs["solve"].add_parser(
        "liars-dice", help="Liar's Dice (2 players): equilibrium by CFR+, value and exploitability"
    )
    game_arguments(solve, defaults=False)
    named_game_argument(solve)
    solve.add_argument("--exploitability", type=float, default=1e-4, metavar="E",
                       help="stop when the average policy's exploitability (NashConv/2) is <= E (1e-4)")
    solve.add_argument("--algorithm", choices=["cfr+", "cfr"], default="cfr+",
                       help="CFR+ (default; regrets floored at 0, linear averaging) or vanilla CFR")
    solve.add_argument("--max-iterations", type=int, default=100_000,
                       help="stop after this many iterations even above the target (100000)")
    solve.add_argument("--lp", action="store_true", help="also solve the sequence-form LP (small games)")
    solve.add_argument("--cache-dir", default=None,
                       help="reuse/store the equilibrium in this directory (default: $DICE_ENVS_CACHE or "
                            "~/.cache/dice_envs, where evaluate, the Gymnasium ids and solve liars-dice-match "
                            "look for it)")
    solve.add_argument("--no-cache", action="store_true", help="neither reuse nor store the equilibrium")
    solve.add_argument("--engine", choices=["auto", "numpy", "compiled"], default="auto",
                       help="numpy passes over the whole public tree, or compiled depth-first walks on every core "
                            "(24 bytes per information state: two dice each fit in 10.5 GiB); auto picks the "
                            "compiled one from 4 M information states")
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.set_defaults(handler=solve_liars_dice)

    match = verbs["solve"].add_parser(
        "liars-dice-match", help="the whole game of Liar's Dice (rounds until one player has dice left): its value "
                                 "from the round games' CFR+ equilibria")
    game_arguments(match)
    match.add_argument("--starting-player", type=int, default=0, choices=[0, 1], help="who starts the first round")
    match.add_argument("--next-starter", choices=["loser", "winner"], default="loser",
                       help="who starts the next round (the loser, as usual)")
    match.add_argument("--exploitability", type=float, default=1e-4, metavar="E",
                       help="solve every round game to this exploitability (1e-4)")
    match.add_argument("--json", action="store_true", help="print one JSON object")
    match.set_defaults(handler=solve_liars_dice_match)

    export = verbs["export-efg"].add_parser("liars-dice", help="write Liar's Dice as a Gambit .efg file")
    game_arguments(export, defaults=False)
    named_game_argument(export)
    export.add_argument("--max-quantity", type=int, default=None,
                        help="highest quantity one may bid (default: the number of dice in play)")
    export.add_argument("--seed-bids", action="store_true",
                        help="the source document's bid space: quantities up to the number of faces (125 / 9,208 / "
                             "2,097,137 nodes for 2/3/4 faces)")
    export.add_argument("--out", "-o", default=None,
                        help="output file (default: the game's name, e.g. liars_dice_1v2_6_aces.efg: dice per player, "
                             "faces, wild rule, seed_bids)")
    export.add_argument("--force", action="store_true", help="overwrite the output file if it exists")
    export.add_argument("--json", action="store_true", help="print one JSON object")
    export.set_defaults(handler=export_liars_dice)

    play = verbs["play"].add_parser("liars-dice", help="play Liar's Dice against the equilibrium")
    game_arguments(play, defaults=False)
    named_game_argument(play)
    play.add_argument("--seat", type=int, choices=[0, 1], default=0, help="0 to bid first, 1 to bid second")
    play.add_argument("--seed", type=int, default=None, help="seed of the dice and the computer's choices (default: random)")
    play.add_argument("--exploitability", type=float, default=1e-3, metavar="E",
                      help="solve the computer's strategy to this exploitability (1e-3)")
    play.set_defaults(handler=play_liars_dice)


def solve_report(faces: int = 6, dice=1, wild="none", exploitability: float = 1e-4,
                 algorithm: str = "cfr+", max_iterations: int = 100_000, lp: bool = False,
                 cache_dir=None, progress=None, engine: str = "auto") -> dict:
    """Solve one game and return the figures the CLI prints."""
    from dice_envs.agents.liars_dice.solver import solve
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    game = LiarsDiceGame(dice_per_player=dice, faces=faces, wild=wild)
    result = solve(game, exploitability, algorithm, max_iterations=max_iterations, cache_dir=cache_dir,
                   progress=progress, engine=engine)
    report = result.as_dict()
    report["target_exploitability"] = exploitability
    report["converged"] = result.exploitability <= exploitability
    report["predictions"] = [{"iteration": t, "iterations": n, "cpu_seconds": c} for t, n, c in result.predictions]
    report["cpu_seconds"] = result.cpu_seconds
    if lp:
        from dice_envs.agents.solve.exploitability import certify_value
        from dice_envs.agents.solve.game_tree import build_tree
        from dice_envs.agents.solve.sequence_form import solve_lp

        tree = build_tree(game)
        lp_result = solve_lp(tree)
        report["lp_value_first_player"] = lp_result.value
        report["lp_seconds"] = lp_result.seconds
        lower, upper = certify_value(tree, lp_result.policy)
        report["exact_value"] = str(lower) if lower == upper else None
        report["exact_bounds"] = [str(lower), str(upper)]
        # the exact bounds certify the value too: the report's interval is the tighter of the two
        low, high = report["value_interval"]
        report["value_interval"] = [max(low, float(lower)), min(high, float(upper))]
    return report


def value_text(report: dict, max_decimals: int = 6) -> str:
    """A solve report's game value as the tables print it: the proven fraction, else the digits its
    certified interval supports (:func:`dice_envs.agents.solve.interval.format_value`)."""
    from dice_envs.agents.solve.interval import format_value

    return format_value(*report["value_interval"], exact=report.get("exact_value"), max_decimals=max_decimals)


def solve_liars_dice(args: argparse.Namespace) -> int:
    if not args.exploitability > 0:
        raise ValueError(f"--exploitability must be positive, got {args.exploitability}")
    def progress(iteration, expl):  # on stderr, so --json output stays one object
        print(f"\riteration {iteration}: exploitability {expl:.2e}", end="", file=sys.stderr, flush=True)

    from dice_envs.agents.solve.cache import default_cache_dir

    cache_dir = None if args.no_cache else (args.cache_dir or default_cache_dir())
    rules = rules_of(args)
    report = solve_report(rules["faces"], rules["dice_per_player"], rules["wild"], args.exploitability, args.algorithm,
                          args.max_iterations, args.lp, cache_dir,
                          progress if sys.stderr.isatty() else None, args.engine)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    if args.json:
        print_json(report)
        return 0
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    game = LiarsDiceGame(**rules)
    low, high = report["value_interval"]
    print(f"Liar's Dice, {game.describe()}" + (f" ({args.named_game})" if args.named_game else ""))
    value = value_text(report)
    print(f"  first player's value  {value}" + ("  (proven exact)" if report.get("exact_value") else
                                               "" if value.startswith("[") else
                                               f"  (it lies in [{low:+.6f}, {high:+.6f}])"))
    print(f"  solved strategy       value {report['value_first_player']:+.6f}, exploitability "
          f"{report['exploitability']:.2e} (target {args.exploitability:.0e})")
    print(f"  {args.algorithm} iterations   {report['iterations']}, {report['seconds']:.2f} s")
    if "lp_value_first_player" in report:
        print(f"  sequence-form LP      {report['lp_value_first_player']:+.6f} ({report['lp_seconds']:.2f} s)")
    return 0


def solve_liars_dice_match(args: argparse.Namespace) -> int:
    from dice_envs.agents.liars_dice.match_solver import solve_match
    from dice_envs.agents.solve.interval import as_win_probability, format_value
    from dice_envs.games.liars_dice.match import LiarsDiceMatchGame

    game = LiarsDiceMatchGame(2, dice_argument(args.dice), args.faces, args.wild, args.starting_player,
                              args.next_starter)
    report = solve_match(game, args.exploitability).as_dict()
    if args.json:
        print_json(report)
        return 0
    print(f"Liar's Dice, the whole game from {game.first_round.describe()}; the {args.next_starter} of a round "
          "starts the next")
    low, high = report["value_interval"]
    if args.starting_player == 1:  # the starter's interval
        low, high = -high, -low
    print(f"  player {args.starting_player}, who starts, wins with probability "
          f"{format_value(*as_win_probability((low, high)), sign=False)}: the exact value lies in "
          f"[{low:+.6f}, {high:+.6f}]\n  (the solved strategies' value {report['first_player_advantage']:+.6f})")
    for row in report["positions"]:
        print(f"  {row['dice'][0]} v {row['dice'][1]} dice, player {row['starter']} starts: player 0's value "
              f"{format_value(*row['value_interval_player_0'])} "
              f"(its round {format_value(*row['round_value_interval_player_0'])})")
    return 0


#: Bytes per node of an exported ``.efg`` file (48.5 measured for one 4-faced die each).
EFG_BYTES_PER_NODE = 64


def efg_name(game, seed_bids: bool = False) -> str:
    """The default file of ``export-efg liars-dice``: one name per game, ``liars_dice_1v2_6_aces.efg``
    (the dice of each player, the faces, the wild rule unless none, ``seed_bids`` for the source's bid space)."""
    parts = ["liars_dice", "v".join(map(str, game.dice)), str(game.faces)]
    parts += [] if game.wild_rule == "none" else [game.wild_rule]
    return "_".join(parts + (["seed_bids"] if seed_bids else [])) + ".efg"


def export_liars_dice(args: argparse.Namespace) -> int:
    from dice_envs.agents.solve.gambit import write_efg
    from dice_envs.core.resources import check_disk, check_resources
    from dice_envs.games.liars_dice.rules import LiarsDiceGame, tree_size

    rules = rules_of(args)
    max_quantity = rules["faces"] if args.seed_bids else args.max_quantity
    game = LiarsDiceGame(**rules, max_quantity=max_quantity)
    out = args.out or efg_name(game, args.seed_bids)
    if os.path.exists(out) and not args.force:
        raise ValueError(f"{out} exists: pass --force to overwrite it, or --out to name another file")
    comment = (
        "Liar's Dice (dice_envs): bids 'at least q dice show face f', a call ends the game; "
        "payoff +1 to the winner of the call, -1 to the loser."
        + (" Seed bid space: quantities up to the number of faces." if args.seed_bids else "")
    )
    expected = tree_size(game) if game.num_players == 2 else None
    if expected is not None:  # about 50 bytes per node, written at about 5 MB/s
        check_disk(f"export-efg liars-dice ({expected:,} nodes)", out, EFG_BYTES_PER_NODE * expected)
        check_resources(f"export-efg liars-dice ({expected:,} nodes)", 0, EFG_BYTES_PER_NODE * expected / 5e6)
    nodes = write_efg(game, out, title=f"Liar's Dice {game!r}", comment=comment)
    report = {"game": "liars_dice", "file": out, "nodes": nodes, "expected_nodes": expected, **game.config()}
    if args.json:
        print_json(report)
    else:
        print(f"wrote {nodes:,} nodes to {out}")
    return 0


def play_liars_dice(args: argparse.Namespace, input_fn=input) -> int:
    """A person against the CFR+ equilibrium, in the terminal."""
    from dice_envs.agents.liars_dice.solver import default_cache_dir, solve
    from dice_envs.games.liars_dice import env as liars_dice_v0
    from dice_envs.games.liars_dice.rules import LiarsDiceState

    env = liars_dice_v0.raw_env(**rules_of(args))
    game = env.game
    print("solving the computer's strategy ...", file=sys.stderr)
    result = solve(game, args.exploitability, cache_dir=default_cache_dir())
    rng = np.random.default_rng(args.seed)
    env.reset(seed=args.seed)
    me = env.possible_agents[args.seat]
    print(f"you are {me}; your dice: {' '.join(map(str, cast(LiarsDiceState, env.game_state).rolls[args.seat]))}"
          f"{' (' + str(game.wild_face) + 's are wild)' if game.wild else ''}")
    print(f"(the equilibrium is worth {result.value_first_player:+.4f} to player_0)")
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        state = cast(LiarsDiceState, env.game_state)
        if agent == me:
            env.step(_ask_action(state, input_fn))
        else:
            action = result.policy.sample(state, rng)
            print(f"computer: {game.action_name(action)}")
            env.step(action)
    print(env.game_state)
    print("you win!" if cast(LiarsDiceState, env.game_state).winner == args.seat else "the computer wins.")
    return 0


def _ask_action(state, input_fn) -> int:
    game = state.game
    legal = state.legal_actions()
    last = game.action_name(state.bids[-1]) if state.bids else "none"
    prompt = f"last bid: {last}. Bid 'q f' (at least q dice show f), or 'call': "
    while True:
        try:
            answer = input_fn(prompt).strip().lower()
        except EOFError:
            raise KeyboardInterrupt from None
        try:
            if answer in ("call", "c", "liar"):
                action = game.call_action
            else:
                q, f = (int(x) for x in answer.replace("x", " ").split())
                action = game.bid_action(q, f)
        except ValueError:
            print(f"please answer 'q f' with q from 1 to {game.max_quantity} and f from 1 to {game.faces}, or 'call'")
            continue
        if action in legal:
            return action
        print("that is not legal here; legal: " + ", ".join(game.action_name(a) for a in legal))


OPENSPIEL_VALUE_SIX_WILD = -7 / 258  # OpenSpiel's liars_dice (one 6-sided die each, 6s wild)


def values_report(faces=range(2, 7), exploitability: float = 1e-4, lp: bool = True) -> dict:
    """Game values for one die each under every wild rule (none, the highest face, aces): CFR+
    to ``exploitability``, cross-checked by the sequence-form LP when ``lp``, whose
    rounded profile then proves the exact value (:func:`dice_envs.agents.solve.exploitability.certify_value`)."""
    rows = []
    for wild in ("none", "highest", "aces"):
        for f in faces:
            row = solve_report(f, 1, wild, exploitability, lp=lp)
            if lp:
                row["cfr_minus_lp"] = row["value_first_player"] - row["lp_value_first_player"]
            if wild == "highest" and f == 6:
                row["openspiel_value"] = OPENSPIEL_VALUE_SIX_WILD
            rows.append(row)
    return {"game": "liars_dice", "dice_per_player": 1, "target_exploitability": exploitability, "rows": rows}


def print_values_table(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    from dice_envs.games.liars_dice.rules import check_wild

    table = Table(title="Liar's Dice, one die each: first player's equilibrium value")
    for column in ("F", "wild", "value", "CFR+", "expl.", "iters", "LP", "published"):
        table.add_column(column, justify="right", no_wrap=True)
    for row in report["rows"]:
        published = row.get("openspiel_value")
        table.add_row(
            str(row["faces"]), check_wild(row["wild"]), value_text(row), f"{row['value_first_player']:+.6f}",
            f"{row['exploitability']:.1e}", str(row["iterations"]),
            f"{row['lp_value_first_player']:+.6f}" if "lp_value_first_player" in row else "",
            "" if published is None else "-7/258",
        )
    Console().print(readable(table))
    print("value: the game's value, exact where proven (both best responses to the rounded\n"
          "  LP profile meet there), else the digits its certified interval supports;\n"
          f"CFR+: the value of CFR+'s average policy, at exploitability <= "
          f"{report['target_exploitability']:g};\nLP: the sequence-form LP's value; published: OpenSpiel's liars_dice.")


def ground_truth_liars_dice(out: str) -> dict:
    """The round's and the whole game's values, and CFR's and CFR+'s convergence on one die of six
    faces, highest face wild, written to ``out``."""
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
    return write_results(out, "liars_dice", report)


#: This room's parts of the ground-truth job (``./run main``), by the name ``--only`` takes.
GROUND_TRUTH = {"liars_dice": ground_truth_liars_dice}


#: What a round's agent is scored against: a best response to it (its exploitability, the default) or
#: the CFR+ equilibrium (which must be cached, or cheap to solve).
AGAINST = ("best-response", "equilibrium")


def _round_options(parser) -> None:
    game_arguments(parser, defaults=False)
    named_game_argument(parser)
    parser.add_argument("--against", choices=AGAINST, default=None,
                        help="score against a best response to the agent (its exploitability; the default) or "
                             "against the CFR+ equilibrium (cached, or solved where that is cheap)")
    parser.add_argument("--exploitability", type=float, default=None, metavar="E",
                        help="exploitability the CFR+ equilibrium of --against equilibrium is solved to (1e-4)")
    parser.add_argument("--cache-dir", default=None, help="reuse/store the equilibrium in this directory")
    parser.add_argument("--input", choices=["openspiel", "dice-envs"], default=None,
                        help="the information-state tensors AGENT reads, where it is a network, a function of "
                             "(tensors, masks) or a bare weights file (torch.save of a Sequential's state_dict): "
                             "openspiel (OpenSpiel's liars_dice: its game has the highest face wild unless --wild "
                             "says otherwise) or dice-envs (dice_envs_liars_dice's, the environments' observation)")
    parser.add_argument("--activation", choices=["tanh", "relu"], default=None,
                        help="the activation between a bare weights file's layers (tanh, as IIG-RL-Benchmark's "
                             "actors)")


def _match_options(parser) -> None:
    game_arguments(parser, defaults=False, dice=2, wild="aces")
    parser.add_argument("--starting-player", type=int, default=0, choices=[0, 1], help="who starts the first round")
    parser.add_argument("--next-starter", choices=["loser", "winner"], default="loser",
                        help="who starts the next round (the loser, as usual)")


def _read_options(config: dict) -> dict:
    options = {**{key: value for key, value in config.items() if key not in ("dice", "named_game")},
               "dice_per_player": dice_argument(config.get("dice"))}
    if config.get("named_game"):  # the named game's rules (those given too must agree)
        options.update(rules_arguments(config["named_game"], dice_per_player=options["dice_per_player"],
                                       faces=options.get("faces"), wild=options.get("wild")))
    return options


ROUND = Evaluation(
    "liars-dice", "Liar's Dice: exploitability, and the value against a best response (or the equilibrium)",
    "equilibrium, random",
    "dice_envs.agents.liars_dice.evaluation:score_round", _round_options, read_options=_read_options, mixed=True,
    recorded_names=("liars-dice", "liars_dice"),
    own_agents="dice_envs.agents.liars_dice.openspiel_agents:own_agent")
MATCH = Evaluation(
    "liars-dice-match", "Liar's Dice, the whole game of losing dice: exploitability, from its round games",
    "random; or one .pt model per round game the whole game reaches, joined by commas (2v2.pt,1v2.pt,1v1.pt: "
    "each trained with the round's starter first, as --dice 1,2 for a round the one-die player starts; the "
    "whole game's faces and wild face are the models', its dice the largest round's unless --dice is given)",
    "dice_envs.agents.liars_dice.evaluation:score_match", _match_options, read_options=_read_options, mixed=True,
    recorded_names=("liars-dice-match", "liars_dice_match"),
    own_agents="dice_envs.agents.liars_dice.evaluation:own_match_agent")

#: How ``dice-envs evaluate`` scores the round's and the whole game's agents
#: (:mod:`dice_envs.agents.liars_dice.evaluation`), as their :mod:`dice_envs.registry` entries name them.
EVALUATIONS = (ROUND,)
MATCH_EVALUATIONS = (MATCH,)
