"""Outcome-sampling MCCFR on Liar's Dice against OpenSpiel's (prints measured figures).

One 6-sided die each, 6s wild (OpenSpiel's ``liars_dice``).  Each solver gets the same
CPU time (``--seconds``, of its own process; checked between iterations, or between
chunks of 10,000 of OpenSpiel's), then the exploitability (NashConv / 2, exact) of its
average policy is computed:

1. ours, :class:`dice_envs.agents.liars_dice.mccfr.OutcomeSamplingCFR` on the batched
   environment (``--batch`` games per iteration, numpy), with OpenSpiel's settings
   (``explore`` 0.6, no regret discount) and with ``train_liars_dice_play.py --method
   mccfr``'s defaults (0.3, the Linear CFR discount); our exact evaluator scores it;
2. OpenSpiel's C++ ``OutcomeSamplingMCCFRSolver`` (epsilon 0.6, its default), one
   sampled game per ``run_iteration`` (it alternates the player it updates; ours updates
   both from every game), scored by ``pyspiel.exploitability``.  It runs in a separate
   interpreter (``--openspiel-python``, default this one if it imports ``pyspiel``, else
   ``.venv-bench/bin/python``), so OpenSpiel never becomes a dependency.

Printed: the games each sampled, games per CPU second and its ratio ours / OpenSpiel's
(same settings), and each exploitability.  ``--games N`` gives each solver N games instead
of a time budget (ours rounds up to whole iterations), and ``--run ours`` (OpenSpiel's
settings only) or ``--run openspiel`` runs one side alone and ``--no-exploitability``
skips the scoring: for timing whole processes.

Run: ``.venv/bin/python experiments/benchmark_liars_dice_mccfr.py [--seconds 60] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OPENSPIEL_SCRIPT = r"""
import json, sys, time
import pyspiel
budget, seed, fixed, score = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
game = pyspiel.load_game("liars_dice", {"numdice": 1, "dice_sides": 6})
solver = pyspiel.OutcomeSamplingMCCFRSolver(game, 0.6, seed)
t0, games = time.process_time(), 0
while (games < fixed) if fixed else (time.process_time() - t0 < budget):
    chunk = min(10000, fixed - games) if fixed else 10000
    for _ in range(chunk):
        solver.run_iteration()
    games += chunk
seconds = time.process_time() - t0
print(json.dumps({"games": games, "cpu_seconds": seconds,
                  "exploitability": pyspiel.exploitability(game, solver.average_policy()) if score else None}))
"""

#: (explore, regret_discount) of our two settings
SETTINGS = {"openspiel_settings": (0.6, 0.0), "trainer_defaults": (0.3, 1.0)}


def ours(budget: float, batch_size: int, explore: float, regret_discount: float, seed: int, games: int = 0,
         score: bool = True) -> dict:
    import numpy as np

    from dice_envs.agents.liars_dice.learned import InfoStates
    from dice_envs.agents.liars_dice.mccfr import OutcomeSamplingCFR
    from dice_envs.agents.liars_dice.solver import PublicTree, exploitability
    from dice_envs.games.liars_dice.batched import LiarsDiceBatch
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    game = LiarsDiceGame(faces=6, wild=True)
    tree = PublicTree(game)
    states = InfoStates(tree)
    cfr = OutcomeSamplingCFR(states, explore, regret_discount)
    batch, rng = LiarsDiceBatch(batch_size, game=game), np.random.default_rng(seed)
    t0, steps = time.process_time(), 0
    while (cfr.iterations * batch_size < games) if games else (time.process_time() - t0 < budget):
        steps += cfr.iterate(batch, rng)
    seconds = time.process_time() - t0
    return {"games": cfr.iterations * batch_size, "agent_steps": steps, "cpu_seconds": seconds,
            "exploitability": exploitability(tree, states.to_tree_policy(cfr.average_policy())) if score else None}


def default_openspiel_python():
    try:
        import pyspiel  # noqa: F401

        return sys.executable
    except ImportError:
        bench = os.path.join(ROOT, ".venv-bench", "bin", "python")
        return bench if os.path.exists(bench) else None


def openspiel(python: str, budget: float, seed: int, games: int = 0, score: bool = True) -> dict:
    proc = subprocess.run([python, "-c", OPENSPIEL_SCRIPT, str(budget), str(seed), str(games), "1" if score else "0"],
                          capture_output=True, text=True,
                          timeout=7200)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr else "OpenSpiel run failed")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="CPU seconds for each solver")
    parser.add_argument("--games", type=int, default=0, help="instead, this many sampled games for each solver")
    parser.add_argument("--no-exploitability", dest="score", action="store_false",
                        help="skip the exploitability (OpenSpiel's takes seconds): for timing whole processes")
    parser.add_argument("--batch", type=int, default=16384, help="our games per iteration")
    parser.add_argument("--seed", type=int, default=0, help="random seed of both solvers' sampling (0)")
    parser.add_argument("--run", choices=["both", "ours", "openspiel"], default="both",
                        help="which solvers run: both (ours with both settings, and OpenSpiel's), ours (with "
                             "OpenSpiel's settings only) or openspiel (both)")
    parser.add_argument("--openspiel-python", default=default_openspiel_python(),
                        help="an interpreter with open-spiel installed")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not args.seconds > 0 or args.batch < 1 or args.games < 0:
        raise SystemExit("--seconds must be above 0, --batch at least 1 and --games at least 0")

    result = {"cpu_seconds": args.seconds}
    if args.run in ("both", "ours"):
        settings = SETTINGS if args.run == "both" else {"openspiel_settings": SETTINGS["openspiel_settings"]}
        result["ours"] = {name: ours(args.seconds, args.batch, *setting, args.seed, args.games, args.score)
                          for name, setting in settings.items()}
    if args.run in ("both", "openspiel"):
        if not args.openspiel_python:
            result["openspiel_error"] = "no interpreter with open-spiel (pip install open-spiel, or --openspiel-python)"
        else:
            try:
                result["openspiel"] = openspiel(args.openspiel_python, args.seconds, args.seed, args.games, args.score)
            except Exception as err:  # not installed, crashed: say so, never invent a figure
                result["openspiel_error"] = str(err)
    if "ours" in result and "openspiel" in result:
        mine, theirs = result["ours"]["openspiel_settings"], result["openspiel"]
        result["games_per_second_ratio"] = ((mine["games"] / mine["cpu_seconds"])
                                            / (theirs["games"] / theirs["cpu_seconds"]))

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    budget = f"{args.games:,} games" if args.games else f"{args.seconds:g} CPU seconds"
    print(f"Liar's Dice, one 6-sided die each, 6s wild: outcome-sampling MCCFR, {budget} each")
    for name, row in result.get("ours", {}).items():
        explore, discount = SETTINGS[name]
        print(f"  dice_envs (explore {explore}, regret discount {discount:g}, {args.batch:,} games per iteration): "
              f"{row['games']:,} games in {row['cpu_seconds']:.1f} CPU s, "
              f"{row['games'] / row['cpu_seconds']:,.0f} games/s "
              f"({row['agent_steps'] / row['cpu_seconds']:,.0f} agent steps/s), exploitability "
              f"{row['exploitability'] if row['exploitability'] is None else round(row['exploitability'], 4)}")
    if "openspiel" in result:
        row = result["openspiel"]
        print(f"  OpenSpiel C++ OutcomeSamplingMCCFRSolver (epsilon 0.6): {row['games']:,} games in "
              f"{row['cpu_seconds']:.1f} CPU s, "
              f"{row['games'] / row['cpu_seconds']:,.0f} games/s, exploitability "
              f"{row['exploitability'] if row['exploitability'] is None else round(row['exploitability'], 4)}")
    elif "openspiel_error" in result:
        print(f"  OpenSpiel not run: {result['openspiel_error']}")
    if "games_per_second_ratio" in result:
        print(f"  games per CPU second, ours / OpenSpiel's (same settings): {result['games_per_second_ratio']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
