"""What every ``dice-envs`` command shares: ``--json`` output with its schema version, a solve's
table-or-JSON ending, and the ``play`` prompt.  The commands themselves live in each game's room
(``dice_envs.agents.<room>.cli``) and the entry point in :mod:`dice_envs.agents.cli`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Dict, TypeVar

__all__ = ["JSON_SCHEMA", "ask", "present", "print_json"]

#: The version of the ``--json`` outputs' shape.  Every object has ``schema`` and ``game``
#: (``"pig"``, ``"liars_dice"``, ...); player counts are ``num_players``, as in the games'
#: arguments.  Version 1 renamed ``players`` and ``analysis`` to those.
JSON_SCHEMA = 1


def print_json(obj) -> None:
    """Print one JSON object on stdout (what ``--json`` promises), with ``schema`` first."""
    json.dump({"schema": JSON_SCHEMA, **obj}, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


_Choice = TypeVar("_Choice")


def ask(prompt: str, choices: Dict[str, _Choice]) -> _Choice:
    """Prompt until the answer is one of ``choices`` (keys); the value of that answer.  EOF quits."""
    while True:
        try:
            answer = input(prompt).strip().lower()
        except EOFError:
            raise KeyboardInterrupt from None
        if answer in choices:
            return choices[answer]
        print(f"please answer one of: {', '.join(sorted(choices))}")


def present(args: argparse.Namespace, report: dict, print_table, plot=None) -> int:
    """Finish a ``solve`` command: draw ``--plot`` with ``plot(solution, path)`` (the solution
    travels in ``report["_solution"]``), then print ``--json`` or the table."""
    solution = report.pop("_solution", None)
    if getattr(args, "plot", None) and plot is not None:
        report["plot"] = plot(solution, args.plot)
    if args.json:
        print_json(report)
    else:
        print_table(report)
    return 0
