"""The main job (``./run main``): solve every game, print its ground-truth tables and baseline scores,
and write them as JSON and plots to ``results/``.

Each game's room offers its parts as ``GROUND_TRUTH`` in its commands module (``{name: job(out)}``,
the module its :mod:`dice_envs.registry` entry names), so the job knows no game itself.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Callable, Dict, Optional, Sequence

from dice_envs.registry import GAMES, load

__all__ = ["jobs", "main"]


def jobs() -> Dict[str, Callable[[str], dict]]:
    """Every game's ground-truth jobs, by name, in the registry's order."""
    found: Dict[str, Callable[[str], dict]] = {}
    for module in dict.fromkeys(entry.commands for entry in GAMES.values() if entry.commands):
        found.update(getattr(load(module), "GROUND_TRUTH", {}))
    return found


def main(argv: Optional[Sequence[str]] = None) -> int:
    from dice_envs.agents.cli import show_warning

    known = jobs()
    parser = argparse.ArgumentParser(
        prog="ground_truth", description="Solve every game, print its ground-truth tables and baseline scores, "
                                         "and write them as JSON and plots.")
    parser.add_argument("--out", default="results", help="directory for JSON and plots (default results/)")
    parser.add_argument("--only", choices=sorted(known), action="append", help="run only this game (repeatable)")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = show_warning  # announcements (a long solve, a cache not written) as one line
        for name in args.only or known:
            print(f"== {name} ==")
            known[name](args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
