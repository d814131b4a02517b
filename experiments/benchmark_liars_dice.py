"""Speed of the Liar's Dice equilibrium solver (prints measured figures).

1. Time to reach exploitability 1e-3 for one 6-sided die each, 6s wild
   (OpenSpiel's ``liars_dice``), with our public-tree CFR+.
2. The same for OpenSpiel's C++ ``CFRPlusSolver`` (``pip install open-spiel``),
   run with a separate interpreter (``--openspiel-python``, default
   ``.venv-bench/bin/python`` if it exists) so OpenSpiel never becomes a
   dependency.  Its exploitability check is expensive (seconds), so we report the
   time of its CFR+ iterations alone, up to the first check at or below the
   target; our time includes our own exploitability checks.  Target: >= 50x.
3. ``--largest``: bigger games solved to 1e-3, each in a fresh process so its
   peak memory (max RSS) is its own.

Run: ``.venv/bin/python experiments/benchmark_liars_dice.py [--largest 2x4w 3x3w] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPENSPIEL_REFERENCE = {"iterations": 300, "seconds": 100.0}  # the figure for this machine

OPENSPIEL_SCRIPT = r"""
import json, sys, time
import pyspiel
target = float(sys.argv[1])
game = pyspiel.load_game("liars_dice", {"numdice": 1, "dice_sides": 6})
solver = pyspiel.CFRPlusSolver(game)
marks = [10, 50, 100, 150, 200] + list(range(220, 2001, 20))
done, iter_seconds, eval_seconds, history = 0, 0.0, [], []
for mark in marks:
    t0 = time.perf_counter()
    while done < mark:
        solver.evaluate_and_update_policy()
        done += 1
    iter_seconds += time.perf_counter() - t0
    t0 = time.perf_counter()
    expl = pyspiel.exploitability(game, solver.average_policy())
    eval_seconds.append(time.perf_counter() - t0)
    history.append((done, expl, iter_seconds))
    if expl <= target:
        break
print(json.dumps({"iterations": done, "exploitability": expl, "iteration_seconds": iter_seconds,
                  "eval_seconds_mean": sum(eval_seconds) / len(eval_seconds),
                  "total_seconds": iter_seconds + sum(eval_seconds), "history": history,
                  "open_spiel_version": getattr(pyspiel, "__version__", None)}))
"""

LARGEST_SCRIPT = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from dice_envs.agents.liars_dice_solver import solve
from dice_envs.liars_dice import LiarsDiceGame
dice, faces, wild, target = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", float(sys.argv[5])
game = LiarsDiceGame(dice_per_player=dice, faces=faces, wild=wild)
result = solve(game, target)
out = result.as_dict()
out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def ours(target: float, repeats: int) -> dict:
    from dice_envs.agents.liars_dice_solver import CFRSolver, solve
    from dice_envs.liars_dice import LiarsDiceGame

    game = LiarsDiceGame(faces=6, wild=True)
    runs = [solve(game, target) for _ in range(repeats)]
    iterations = runs[0].iterations
    solver = CFRSolver(game)
    t0 = time.perf_counter()
    solver.iterate(iterations)
    iteration_seconds = time.perf_counter() - t0
    return {
        "iterations": iterations,
        "exploitability": runs[0].exploitability,
        "value_first_player": runs[0].value_first_player,
        "seconds_median": statistics.median(r.seconds for r in runs),
        "seconds_min": min(r.seconds for r in runs),
        "iteration_seconds": iteration_seconds,
    }


def openspiel(python: str, target: float) -> dict:
    proc = subprocess.run([python, "-c", OPENSPIEL_SCRIPT, str(target)], capture_output=True, text=True,
                          timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr else "OpenSpiel run failed")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def largest(spec: str, target: float) -> dict:
    """``spec`` like ``2x4w``: 2 dice each, 4 faces, wild (drop ``w`` for no wild face)."""
    wild = spec.endswith("w")
    dice, faces = (int(x) for x in spec.rstrip("w").split("x"))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", LARGEST_SCRIPT, ROOT, str(dice), str(faces), "1" if wild else "0",
                           str(target)], capture_output=True, text=True, timeout=7200)
    if proc.returncode != 0:
        return {"spec": spec, "error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["spec"] = spec
    out["wall_seconds_with_startup"] = time.perf_counter() - t0
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=1e-3)
    parser.add_argument("--repeats", type=int, default=3)
    default_python = os.path.join(ROOT, ".venv-bench", "bin", "python")
    parser.add_argument("--openspiel-python", default=default_python if os.path.exists(default_python) else None,
                        help="an interpreter with open-spiel installed (default .venv-bench/bin/python)")
    parser.add_argument("--skip-openspiel", action="store_true")
    parser.add_argument("--largest", nargs="*", default=[], metavar="DxF[w]",
                        help="also solve these games to the target, e.g. 2x4w 3x3w")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    result = {"target_exploitability": args.target, "ours": ours(args.target, args.repeats)}
    if args.openspiel_python and not args.skip_openspiel:
        try:
            result["openspiel"] = openspiel(args.openspiel_python, args.target)
            result["speedup_vs_openspiel_iterations_only"] = (
                result["openspiel"]["iteration_seconds"] / result["ours"]["seconds_median"]
            )
        except Exception as err:  # not installed, crashed: say so, never invent a figure
            result["openspiel_error"] = str(err)
    if "openspiel" not in result:
        result["openspiel_reference_not_measured"] = OPENSPIEL_REFERENCE
        result["speedup_vs_reference"] = OPENSPIEL_REFERENCE["seconds"] / result["ours"]["seconds_median"]
    result["largest"] = [largest(spec, args.target) for spec in args.largest]

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    o = result["ours"]
    print(f"Liar's Dice, one 6-sided die each, 6s wild, to exploitability <= {args.target:g}:")
    print(f"  dice_envs CFR+ : {o['seconds_median']:.3f} s median of {args.repeats} (min {o['seconds_min']:.3f} s), "
          f"{o['iterations']} iterations, exploitability {o['exploitability']:.2e}, "
          f"value {o['value_first_player']:+.5f}; iterations alone {o['iteration_seconds']:.3f} s")
    if "openspiel" in result:
        s = result["openspiel"]
        print(f"  OpenSpiel C++ CFRPlusSolver: {s['iterations']} iterations in {s['iteration_seconds']:.1f} s "
              f"(iterations only; each exploitability check {s['eval_seconds_mean']:.1f} s, "
              f"{s['total_seconds']:.1f} s in all), exploitability {s['exploitability']:.2e}")
        print(f"  speed-up: {result['speedup_vs_openspiel_iterations_only']:.0f}x (target >= 50x)")
    else:
        if "openspiel_error" in result:
            print(f"  OpenSpiel not run: {result['openspiel_error']}")
        print(f"  OpenSpiel reference (NOT measured here): about {OPENSPIEL_REFERENCE['iterations']} iterations, "
              f"about {OPENSPIEL_REFERENCE['seconds']:.0f} s -> {result['speedup_vs_reference']:.0f}x (target >= 50x)")
    for row in result["largest"]:
        if "error" in row:
            print(f"  {row['spec']}: failed: {row['error']}")
            continue
        print(f"  {row['dice_per_player']} dice each, {row['faces']} faces{', wild' if row['wild'] else ''}: "
              f"{row['public_nodes']:,} public nodes x {row['rolls_per_player']} rolls; "
              f"exploitability {row['exploitability']:.2e} after {row['iterations']} iterations in "
              f"{row['seconds']:.1f} s; value {row['value_first_player']:+.5f}; peak memory {row['max_rss_mb']:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
