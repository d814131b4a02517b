"""``dice-envs evaluate GAME AGENT``: an agent scored exactly against the game's optimum.

One sub-command per game with an exact evaluator (:func:`dice_envs.agents.scoring.evaluations`);
AGENT is a saved Stable-Baselines3 model (``.zip``), a project model (``.pt``),
``module:function`` over observations (``fn(observations, masks) -> probabilities``,
see :mod:`dice_envs.agents.evaluate.observation_agents`) or a policy the game names.  Every game
prints the same JSON object (``--json``; its keys: :mod:`dice_envs.agents.evaluate.report`).
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Optional

from dice_envs.agents.console import print_json
from dice_envs.agents.evaluate.report import print_report
from dice_envs.agents.scoring import evaluations, score

AGENT_HELP = ("a saved model (.zip from Stable-Baselines3, e.g. a training run's model.zip; .pt from the Liar's "
              "Dice trainers; an RLlib checkpoint directory), module:function taking (observations, masks) and "
              "returning action probabilities or actions, or a policy named here: {names}")

#: The options every game's ``evaluate`` has; the rest are the game's settings.
_COMMON = ("verb", "game", "agent", "greedy", "json", "threads", "handler", "max_memory", "max_seconds", "max_disk")


def add_commands(verbs) -> None:
    for name, evaluation in evaluations().items():
        parser = verbs["evaluate"].add_parser(name, help=evaluation.help, description=evaluation.help)
        parser.add_argument("agent", help=AGENT_HELP.format(names=evaluation.policies))
        evaluation.add_options(parser)
        how = parser.add_mutually_exclusive_group()
        default_greedy, default_stochastic = ("", " (the default: the optimum is a mixed strategy)") if evaluation.mixed \
            else (" (the default: the optimum is a deterministic policy)", "")
        how.add_argument("--greedy", dest="greedy", action="store_true", default=None,
                         help=f"score a network's most probable action{default_greedy}")
        how.add_argument("--stochastic", dest="greedy", action="store_false",
                         help=f"score a network's action probabilities{default_stochastic}")
        parser.add_argument("--threads", type=int, default=None, metavar="N",
                            help="threads torch scores a network with (default: torch's, one per core; "
                                 "1 to leave the other cores to a training run)")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.set_defaults(handler=evaluate)


def evaluate(args: argparse.Namespace) -> int:
    evaluation = evaluations()[args.game]
    config = evaluation.read_options({key: value for key, value in vars(args).items() if key not in _COMMON})
    with _torch_threads(args.threads):
        report = score(args.game, args.agent, args.greedy, **config)
    report["config"] = evaluation.printable(report["config"])
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
