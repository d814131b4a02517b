"""``dice-envs evaluate GAME AGENT``: an agent scored exactly against the game's optimum.

One sub-command per game with an exact evaluator (:data:`dice_envs.agents.scoring.GAMES`);
AGENT is a saved Stable-Baselines3 model (``.zip``), a project model (``.pt``),
``module:function`` over observations (``fn(observations, masks) -> probabilities``,
see :mod:`dice_envs.agents.evaluate.observation_agents`) or a policy the game names.  Every game
prints the same JSON object (``--json``; its keys: :mod:`dice_envs.agents.scoring`).
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Optional

from dice_envs.agents.console import print_json
from dice_envs.agents.scoring import MIXED

AGENT_HELP = ("a saved model (.zip from Stable-Baselines3, e.g. the training scripts' model.zip; .pt from "
              "experiments/train_liars_dice*.py; an RLlib checkpoint directory from experiments/train_rllib.py), "
              "module:function taking (observations, masks) and returning action probabilities or actions, or a "
              "policy named here: {names}")


def _official_ending(parser, solve: str) -> None:
    parser.add_argument("--official-ending", dest="stop_when_won", action="store_false", default=None,
                        help=f"let a player 2 who could win by holding roll on (the rules as written; as for {solve})")


def _ayzd(parser) -> None:
    parser.add_argument("--goal", type=int, default=None, help="goal (default: the model's, else 13)")
    _official_ending(parser, "solve ayzd")


def _zombie_dice(parser) -> None:
    parser.add_argument("--goal", type=int, default=None, help="goal (default: the model's, else 13)")
    parser.add_argument("--score-cap", type=int, default=None, help="grid size (default: goal + 39)")
    _official_ending(parser, "solve zombie-dice")


def _pig(parser) -> None:
    from dice_envs.agents.pig.cli import _add_die_arguments

    parser.add_argument("--goal", type=int, default=None, help="goal (default: the model's, else 100)")
    _add_die_arguments(parser)


def _liars_dice_match(parser) -> None:
    from dice_envs.agents.liars_dice.cli import game_arguments

    game_arguments(parser, defaults=False)
    parser.add_argument("--starting-player", type=int, default=0, choices=[0, 1], help="who starts the first round")
    parser.add_argument("--next-starter", choices=["loser", "winner"], default="loser",
                        help="who starts the next round (the loser, as usual)")


def _liars_dice(parser) -> None:
    from dice_envs.agents.liars_dice.cli import game_arguments

    game_arguments(parser, defaults=False)
    parser.add_argument("--exploitability", type=float, default=None, metavar="E",
                        help="exploitability the CFR+ reference equilibrium is solved to (1e-4)")
    parser.add_argument("--cache-dir", default=None, help="reuse/store the equilibrium in this directory")


def _shakes(parser) -> None:
    parser.add_argument("--players", dest="num_players", type=int, default=None,
                        help="treatments (the court's maesters), 2 to 6 (4)")
    parser.add_argument("--objective", choices=["win", "saved"], default=None,
                        help="team win probability (win, default) or patients saved")


def _closest_number(parser) -> None:
    parser.add_argument("--numbers", type=int, default=None, help="number cards 1..N (10)")
    parser.add_argument("--round3", choices=["two_cards", "one_card"], default=None,
                        help="how round 3 is read (two_cards)")


#: game -> (help, the names it knows, its options)
GAMES = {
    "ayzd": ("All Yellow Zombie Dice against the optimal policy (the paper's Difference)",
             "optimal, random, fixed_hold_at, minh, llano, neller", _ayzd),
    "zombie-dice": ("Zombie Dice with the official dice against the optimal policy",
                    ("optimal, the human-playable policies, all_yellow_optimal, roll_until_1_shotgun, "
                     "roll_until_2_shotguns, max_expected_brains, random"), _zombie_dice),
    "pig": ("Pig against the optimal policy", "optimal, hold_at_N, random", _pig),
    "liars-dice": ("Liar's Dice: exploitability, and the value against the CFR+ equilibrium",
                   "equilibrium, random", _liars_dice),
    "liars-dice-match": ("Liar's Dice, the whole game of losing dice: exploitability, from its round games",
                         "random", _liars_dice_match),
    "shakes": ("The Shakes' court against the Bayes-optimal policy",
               "optimal, thompson, greedy, dice_rule, random", _shakes),
    "closest-number": ("Closest Number: exploitability, and the value against the equilibrium",
                       "equilibrium, random", _closest_number),
}


def add_commands(verbs) -> None:
    for game, (help_text, names, add_options) in GAMES.items():
        parser = verbs["evaluate"].add_parser(game, help=help_text, description=help_text)
        parser.add_argument("agent", help=AGENT_HELP.format(names=names))
        add_options(parser)
        how = parser.add_mutually_exclusive_group()
        mixed = game in MIXED  # the games whose equilibrium is mixed
        how.add_argument("--greedy", dest="greedy", action="store_true", default=None,
                         help="score a network's greedy action" + ("" if mixed else " (the default)"))
        how.add_argument("--stochastic", dest="greedy", action="store_false",
                         help="score a network's action probabilities" + (" (the default)" if mixed else ""))
        parser.add_argument("--threads", type=int, default=None, metavar="N",
                            help="threads torch scores a network with (default: torch's, one per core; "
                                 "1 to score beside a one-thread training run)")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.set_defaults(handler=evaluate)


def evaluate(args: argparse.Namespace) -> int:
    from dice_envs.agents.scoring import score

    skip = {"verb", "game", "agent", "greedy", "json", "threads", "handler", "load", "max_memory", "max_seconds",
            "max_disk"}
    config = {key: value for key, value in vars(args).items() if key not in skip}
    if args.game == "pig":
        from dice_envs.agents.pig.cli import die_from_args

        config["die"] = die_from_args(args)
    if args.game in ("liars-dice", "liars-dice-match"):
        from dice_envs.agents.liars_dice.cli import dice_argument

        config["dice_per_player"] = dice_argument(config.pop("dice"))
    with _torch_threads(args.threads):
        report = score(args.game, args.agent, args.greedy, **config)
    if "die" in report["config"]:
        from dice_envs.agents.pig.cli import die_summary

        die = report["config"]["die"]
        report["config"]["die"] = None if die is None else die_summary(die)
    if args.json:
        print_json(report)
    else:
        print_report(report)
    return 0


@contextlib.contextmanager
def _torch_threads(threads: Optional[int]):
    """torch's thread count set to ``threads`` (``None``: left as it is) while the agent is scored,
    and put back after (``main`` may run in-process).  Without torch installed no agent is a
    network, and the count governs nothing."""
    if threads is None:
        yield
        return
    if threads < 1:
        raise ValueError(f"--threads must be at least 1, got {threads}")
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def print_report(report: dict) -> None:
    """The report as a few lines of text."""
    settings = ", ".join(f"{key} {value['name'] if isinstance(value, dict) else value}"
                         for key, value in report["config"].items() if value is not None and key != "cache_dir")
    print(f"{report['agent']} ({report['agent_type']}) in {report['game']} ({settings}), exact:")
    print(f"  {report['payoff']}: {report['value']:.6f}" + (
        "" if report["seats"] is None else
        f" (as first {report['seats']['first']:.6f}, as second {report['seats']['second']:.6f})"))
    best = {"optimal": "the optimal policy", "equilibrium": "the equilibrium",
            "best_response": "an equilibrium"}.get(report["opponent"], "the optimum")
    print(f"  {best} in its place: {report['optimal_value']:.6f}; gap {report['gap']:+.6f}")
    if "difference" in report["details"]:
        print(f"  Difference (both seats' win probabilities - 1): {report['details']['difference']:+.6f}")
    if report["exploitability"] is not None:
        print(f"  exploitability (NashConv/2): {report['exploitability']:.6f}")
    for name, gap in report["references"].items():
        print(f"  {name:22s} gap {gap:+.6f}: {'reached' if report['reached'][name] else 'not reached'}")
