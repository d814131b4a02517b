"""What every ``dice-envs`` command shares: ``--json`` output with its schema version, a solve's
table-or-JSON ending, the ``play`` prompt, and the terminal game of the jeopardy games.  The commands
themselves live in each game's room (``dice_envs.agents.<room>.cli``), the entry point in
:mod:`dice_envs.agents.cli`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Dict, TypeVar

from dice_envs.core.encodings import HOLD, ROLL
from dice_envs.core.files import atomic_file

__all__ = ["JSON_SCHEMA", "ask", "play_jeopardy", "present", "print_json", "readable", "write_results"]

#: The version of the ``--json`` outputs' shape.  Every object has ``schema`` and ``game``
#: (``"pig"``, ``"liars_dice"``, ...); player counts are ``num_players``, as in the games'
#: arguments.  Version 1 renamed ``players`` and ``analysis`` to those.
JSON_SCHEMA = 1


def print_json(obj) -> None:
    """Print one JSON object on stdout (what ``--json`` promises), with ``schema`` first."""
    json.dump({"schema": JSON_SCHEMA, **obj}, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


def readable(table):
    """A rich ``Table`` of names and figures, laid out to be read whole in a narrow terminal (80
    columns): rich's default cuts a cell or header that does not fit to ``"roll_un…"``, so two long
    names read the same.  Here a first column of one-word names keeps its width, the others give
    way by wrapping (between words, then within one), and no cell ends in an ellipsis; the lighter
    frame leaves the columns more room.  Returns ``table``, changed in place."""
    from rich import box
    from rich.text import Text

    def one_word(cell) -> bool:
        text = Text.from_markup(cell) if isinstance(cell, str) else cell
        return isinstance(text, Text) and len(text.plain.split()) <= 1

    table.box = box.SIMPLE_HEAD
    table.pad_edge = False
    for k, column in enumerate(table.columns):
        column.overflow = "fold"
        column.no_wrap = k == 0 and all(one_word(cell) for cell in column.cells)
    return table


def write_results(out: str, name: str, report: dict) -> dict:
    """Write ``report`` to ``out/name.json`` atomically (a temporary file, then a rename), say so, and
    return it: the end of each game's part of the ground-truth job."""
    import os

    path = os.path.join(out, f"{name}.json")
    with atomic_file(path, "w") as fh:
        json.dump(report, fh, indent=2)
    print(f"wrote {path}" + (f" and {report['plot']}" if report.get("plot") else "") + "\n")
    return report


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
        print(f"please answer one of: {', '.join('Enter' if c == '' else c for c in sorted(choices))}")


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


def play_jeopardy(env, seat: int, computer, hint) -> bool:
    """Play a jeopardy game (Pig, Zombie Dice) in the terminal: the person at ``seat`` against
    ``computer`` (``act(state) -> action``), until the game is over.

    ``env`` is the game's raw AEC environment with ``render_mode="ansi"``: its render, printed at every
    decision, says what happened since (the rolls, a bust, the computer's holds and rolls).  ``hint(state)``
    is the text shown before the person's roll-or-hold choice.  A turn starts with a roll: Enter (or
    ``r``) rolls; anything else is asked again.  Returns whether the person won.
    """
    me = env.possible_agents[seat]
    print(f"you are {me}; the computer plays the other seat")
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        print(env.render())
        state = env.game_state
        if agent != me:
            env.step(computer.act(state))
        elif state.rolled:
            env.step(ask(f"{hint(state)} [r]oll or [h]old? ", {"r": ROLL, "roll": ROLL, "h": HOLD, "hold": HOLD}))
        else:
            ask("your turn starts with a roll: press Enter (or r) to roll ", {"": ROLL, "r": ROLL, "roll": ROLL})
            env.step(ROLL)
    print(env.render())
    return env.game_state.winner == seat
