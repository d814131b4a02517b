"""The ``dice-envs`` command line (also ``python -m dice_envs``).

Commands are grouped by verb (``solve``, ``play``, ...); each game adds its own
sub-commands from a module in its room (``dice_envs.agents.<room>.cli``), listed in :data:`GAME_COMMANDS`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import warnings
from typing import Optional, Sequence

from dice_envs.agents.cli import train
from dice_envs.agents.evaluate.contract import AgentError
from dice_envs.core import resources
from dice_envs.core.extras import DependencyNotInstalled
from dice_envs.core.files import os_error_line
from dice_envs.registry import GAMES, plain_name

VERBS = {
    "solve": "solve a game exactly and print its ground truth",
    "play": "play a game in the terminal against a computed strategy",
    "export-efg": "write a game tree in Gambit's .efg format",
    "dice": "exact analyses of dice",
    "evaluate": "score a saved model or a policy exactly against the optimum",
    "train": "train a learner from a preset (the [train] extra), scored exactly",
}

#: The modules that add sub-commands, each with ``add_commands(verbs)`` where ``verbs`` maps a verb to its
#: subparsers: every game's (its :mod:`dice_envs.registry` entry's ``commands``), then ``evaluate``'s.
GAME_COMMANDS = [*dict.fromkeys(entry.commands for entry in GAMES.values() if entry.commands),
                 "dice_envs.agents.cli.evaluate"]


def build_parser() -> argparse.ArgumentParser:
    from dice_envs import __version__

    parser = argparse.ArgumentParser(
        prog="dice-envs", description="Exactly solved dice games for RL.",
        epilog=f"Errors are one line; {DEBUG_VARIABLE}=1 shows the traceback behind one.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    limits = parser.add_argument_group("resource limits (dice_envs.core.resources; a request over one is refused "
                                       "before it starts)")
    limits.add_argument("--max-memory", metavar="SIZE", help="memory a solve may use (default 8G; 'none': no limit)")
    limits.add_argument("--max-seconds", metavar="S", help="estimated time a solve may take (default 3600)")
    limits.add_argument("--max-disk", metavar="SIZE", help="size of a file written (default 10G)")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="COMMAND")
    games = {}
    for verb, help_text in VERBS.items():
        sub = verbs.add_parser(verb, help=help_text)
        games[verb] = sub.add_subparsers(dest="game", required=True, metavar="GAME")
    for name in GAME_COMMANDS:
        importlib.import_module(name).add_commands(games)
    for game_parser in games["train"].choices.values():
        game_parser.set_defaults(handler=train.run)
    parser.games = games  # type: ignore[attr-defined]  # verb -> its games' subparsers (for game_name_in)
    return parser


def canonical_game(name: str) -> str:
    """The command line's spelling of a game from any of the project's others: the PettingZoo
    module or id (``liars_dice_v0``, ``dice_envs/liars_dice-v0``), the Gymnasium id
    (``dice_envs/LiarsDice-v0``) or the OpenSpiel name (``dice_envs_liars_dice``) all give
    ``liars-dice`` (:func:`dice_envs.registry.plain_name`)."""
    return plain_name(name).replace("_", "-")


def game_names_in(argv, parser) -> list:
    """``argv`` with the game after a verb given in the command line's spelling (:func:`canonical_game`)
    where it was given in another that names a game of that verb."""
    argv = list(argv)
    for i, token in enumerate(argv[:-1]):
        if token in VERBS:
            choices = parser.games[token].choices
            if argv[i + 1] not in choices and canonical_game(argv[i + 1]) in choices:
                argv[i + 1] = canonical_game(argv[i + 1])
            break
    return argv


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(game_names_in(sys.argv[1:] if argv is None else argv, parser))
    previous = signal.signal(signal.SIGTERM, _interrupt)  # a kill cleans up as Ctrl-C does
    saved = {name: os.environ.get(name) for name in _LIMITS.values()}
    try:
        _set_limits(args)
        if getattr(args, "plot", None):  # before the solve, not after it
            from dice_envs.envs.rendering import check_available

            try:
                check_available()
            except DependencyNotInstalled:
                raise DependencyNotInstalled("--plot draws with matplotlib: pip install 'dice-envs[plot]'") from None
        with warnings.catch_warnings(), _working(args):
            warnings.showwarning = show_warning
            return int(args.handler(args) or 0)
    except (ValueError, DependencyNotInstalled) as err:  # what a user can fix: a bad option, model, limit or
        # a missing extra (see DEBUG_VARIABLE)
        if os.environ.get(DEBUG_VARIABLE):
            raise
        parser.exit(2, f"dice-envs: error: {err}\n")
    except AgentError as err:  # the agent's own exception (SystemExit included), naming the agent
        if os.environ.get(DEBUG_VARIABLE):
            raise
        parser.exit(1, f"dice-envs: error: {err}\n")
    except OSError as err:  # a path that cannot be read or written (a file as a directory, a read-only disk)
        if os.environ.get(DEBUG_VARIABLE):
            raise
        parser.exit(2, f"dice-envs: error: {os_error_line(err)}\n")
    except KeyboardInterrupt:
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        for name, value in saved.items():  # main() may be called in-process (tests, notebooks)
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


#: Set (to anything) to see the traceback behind an error message instead of the message alone.
DEBUG_VARIABLE = "DICE_ENVS_DEBUG"

_LIMITS = {"max_memory": "DICE_ENVS_MAX_MEMORY", "max_seconds": "DICE_ENVS_MAX_SECONDS",
           "max_disk": "DICE_ENVS_MAX_DISK"}


def _set_limits(args: argparse.Namespace) -> None:
    """``--max-memory`` and friends, checked, as the environment variables the guard reads."""
    for option, name in _LIMITS.items():
        value = getattr(args, option)
        if value is not None:
            os.environ[name] = value
    resources.memory_limit(), resources.seconds_limit(), resources.disk_limit()  # a bad value fails here


#: The spinner running (see :func:`_working`), where a warning is printed above it.
_SPINNER: list = []


class _StopSpinnerOnWrite:
    """``sys.stdout`` while the spinner runs: the first write (the command's result) erases the
    spinner, so the result is not printed under a spinner that goes on drawing."""

    def __init__(self, stream, progress):
        self._stream, self._progress = stream, progress

    def write(self, text: str) -> int:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
            _SPINNER.clear()
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def _working(args: argparse.Namespace):
    """A spinner with the elapsed time on stderr while a solve, export or evaluation runs
    (only on a terminal, and not for ``play``, which talks to the user itself); it is erased
    before the result is printed."""
    if args.verb == "play" or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn(f"dice-envs {args.verb} {args.game}"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True, redirect_stdout=False,
                  redirect_stderr=False) as progress:
        progress.add_task("", total=None)
        _SPINNER[:] = [progress]
        with contextlib.redirect_stdout(_StopSpinnerOnWrite(sys.stdout, progress)):
            try:
                yield
            finally:
                _SPINNER.clear()


def show_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings (a long run announced, a cache not written) as one plain line on stderr (above the
    spinner while it runs)."""
    text = f"dice-envs: {category.__name__}: {message}"
    if _SPINNER:
        _SPINNER[0].console.print(text, markup=False, highlight=False, soft_wrap=True)
    else:
        print(text, file=sys.stderr, flush=True)


def _interrupt(signum, frame):
    raise KeyboardInterrupt
