"""``dice-envs train GAME``: train a learner from a preset, scored exactly.

Each game's room adds its ``train`` sub-command with its learners and its presets file
(:func:`dice_envs.agents.learn.presets.add_train_command`); :func:`run` runs any of them:
``--list-presets`` prints the presets, ``--print-config`` the resolved options as a ``--config``
file, and otherwise the preset's learner trains (resuming from its run directory's checkpoint) and
prints its report as one JSON line.  Torch (or Ray) is imported only when a run starts: a missing
extra is one line naming it.
"""

from __future__ import annotations

import argparse
import functools
import sys

from dice_envs.agents.learn.presets import command_options, describe_presets, resolved_config, to_toml
from dice_envs.agents.learn.runs import run_script
from dice_envs.core.extras import needs_extra


def run(args: argparse.Namespace) -> int:
    """Run one ``dice-envs train GAME`` command line; the exit code (2 for a bad preset, option or
    checkpoint, with the message on stderr; 130 when interrupted)."""
    if getattr(args, "list_presets", False):
        print(f"{args.train_game} presets ({args.presets_file}):")
        print(describe_presets(args.presets))
        return 0
    chosen = {}

    def parse(_argv):
        chosen["learner"], options, chosen["label"] = command_options(args)
        return options

    if getattr(args, "print_config", False):
        try:
            options = parse(None)
        except ValueError as err:  # as run_script reports it
            print(f"dice-envs train {args.train_game}: error: {err}", file=sys.stderr)
            return 2
        print(to_toml(resolved_config(chosen["learner"], options)), end="")
        return 0

    def train(options):
        learner = chosen["learner"]
        with needs_extra(f"dice-envs train {args.train_game} ({learner.name})"):
            if learner.scored_by:
                from dice_envs.agents.scoring import score

                return learner.train(options, functools.partial(_score, score))
            return learner.train(options)

    return run_script(f"dice-envs train {args.train_game}", parse, train, None)


def _score(score, game, agent, **settings):
    """:func:`dice_envs.agents.scoring.score` of ``agent`` (greediness as the agent sets it)."""
    return score(game, agent, **settings)
