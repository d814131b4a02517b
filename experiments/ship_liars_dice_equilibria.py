"""Write the Liar's Dice equilibria that ship with the package: those the Gymnasium ids' default
opponents need (``dice_envs/LiarsDice-v1``'s game, and every round of ``dice_envs/LiarsDiceMatch-v1``'s),
solved by CFR+ to their default exploitability and saved compressed, in the on-disk cache's form,
to ``agents/liars_dice/equilibria/`` (:data:`dice_envs.agents.liars_dice.solver.SHIPPED_DIR`).

Run again when the solver's version or a default changes:
``.venv/bin/python experiments/ship_liars_dice_equilibria.py`` (under a minute).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile

import numpy as np

from dice_envs.agents.liars_dice.gym import LiarsDiceEnv
from dice_envs.agents.liars_dice.match_gym import LiarsDiceMatchEnv
from dice_envs.agents.liars_dice.match_solver import positions
from dice_envs.agents.liars_dice.solver import SHIPPED_DIR, solve, store_cached
from dice_envs.agents.solve import cache as solver_cache

TARGET = 1e-4  # the Gymnasium ids' default exploitability


def default_games() -> list:
    """The round games of the two ids' default opponents."""
    match = LiarsDiceMatchEnv(opponent="random").game
    return [LiarsDiceEnv(opponent="random").game] + [match.round_game((d0, d1), s) for d0, d1, s in positions(match)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=SHIPPED_DIR, help="folder to write (default: the package's)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for game in default_games():
            result = solve(game, TARGET, engine="numpy")  # solved, not read from the cache or the package
            arrays, meta = solver_cache.load(store_cached(result, TARGET, scratch))
            path = os.path.join(args.out, os.path.basename(store_cached(result, TARGET, scratch)))
            np.savez_compressed(path, **arrays, meta=np.array(json.dumps(meta)))
            print(f"{path}: {game!r}, exploitability {result.exploitability:.2e}, {os.path.getsize(path):,} bytes")


if __name__ == "__main__":
    main()
