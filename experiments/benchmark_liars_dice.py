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

4. ``--scoring D0,D1:WILD ...``: exact exploitability of a policy on six-sided dice, each in a
   fresh process: a 2x256 MLP (``build_network``, seeded) asked through observations, and a
   table (a ``TabularLiarsDicePolicy``, where the game is scored on the whole tree in memory;
   none exists at two dice each), with wall and CPU time and peak memory; beside OpenSpiel's
   ``exploitability`` of its uniform policy on its ``liars_dice`` where that is the same game
   (the highest face wild, equal dice), in a process capped at ``--openspiel-memory`` and
   ``--openspiel-timeout``.
5. ``--solves D0,D1:WILD[:ENGINE] ...``: CFR+ to ``--target``, with the run-time predictions
   made on the way beside the measured iterations and seconds; ``ENGINE`` is ``numpy``,
   ``compiled`` or ``auto`` (the default), so ``1,2:aces:numpy 1,2:aces:compiled`` pairs the two
   solvers on one game.

Run: ``.venv/bin/python experiments/benchmark_liars_dice.py [--largest 2x4w 3x3w] [--scoring 2,2:aces]
[--solves 1,2:aces] [--json]``.
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
from dice_envs.agents.liars_dice.solver import solve
from dice_envs.games.liars_dice.rules import LiarsDiceGame
dice, faces, wild, target = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", float(sys.argv[4])
game = LiarsDiceGame(dice_per_player=dice, faces=faces, wild=wild)
result = solve(game, target)
out = result.as_dict()
out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


SCORING_SCRIPT = r"""
import json, resource, sys, time
import numpy as np, torch
from dice_envs.games.liars_dice.rules import LiarsDiceGame
from dice_envs.agents.liars_dice.streamed import fits_in_memory
from dice_envs.agents.liars_dice.learned import LearnedLiarsDicePolicy, TabularLiarsDicePolicy, build_network
from dice_envs.agents.evaluate.observation_agents import LiarsDiceNetworkAgent
dice, wild, kind = tuple(int(x) for x in sys.argv[1].split(",")), sys.argv[2], sys.argv[3]
game = LiarsDiceGame(dice_per_player=dice, wild=wild)
torch.manual_seed(0)
t0, c0 = time.perf_counter(), time.process_time()
if fits_in_memory(game):
    from dice_envs.agents.liars_dice.learned import InfoStates
    from dice_envs.agents.liars_dice.solver import PublicTree, evaluate
    from dice_envs.agents.evaluate.contract import ask_agent
    tree = PublicTree(game)
    states = InfoStates(tree)
    if kind == "mlp":
        agent = LiarsDiceNetworkAgent(LearnedLiarsDicePolicy(game, build_network(game.config(), "256,256")))
    else:
        agent = LiarsDiceNetworkAgent(TabularLiarsDicePolicy(game, states.mask / states.mask.sum(1, keepdims=True)))
    ev = evaluate(tree, states.to_tree_policy(ask_agent(agent, states.obs, states.mask)))
    how = "whole tree in memory"
else:
    from dice_envs.agents.liars_dice.streamed import streamed_evaluate
    if kind != "mlp":
        print(json.dumps({"error": "no table of this game's information states fits in memory"})); sys.exit(0)
    agent = LiarsDiceNetworkAgent(LearnedLiarsDicePolicy(game, build_network(game.config(), "256,256")))
    ev = streamed_evaluate(game, agent)
    how = "streamed in blocks"
print(json.dumps({"exploitability": ev.exploitability, "how": how, "wall_seconds": time.perf_counter() - t0,
                  "cpu_seconds": time.process_time() - c0,
                  "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

OPENSPIEL_SCORING_SCRIPT = r"""
import json, resource, sys, time
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
game = pyspiel.load_game("liars_dice", {"numdice": int(sys.argv[1]), "dice_sides": 6})
t0, c0 = time.perf_counter(), time.process_time()
value = exploitability.exploitability(game, policy_lib.UniformRandomPolicy(game))
print(json.dumps({"exploitability": value, "wall_seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
                  "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SOLVE_SCRIPT = r"""
import json, resource, sys
from dice_envs.agents.liars_dice.solver import solve
from dice_envs.games.liars_dice.rules import LiarsDiceGame
dice, wild, target = tuple(int(x) for x in sys.argv[1].split(",")), sys.argv[2], float(sys.argv[3])
result = solve(LiarsDiceGame(dice_per_player=dice, wild=wild), target, engine=sys.argv[4])
out = result.as_dict()
out.update(cpu_seconds=result.cpu_seconds, predictions=result.predictions,
           max_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print(json.dumps(out))
"""


def _run(script: str, *args: str, timeout: float = 7200, env=None) -> dict:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=timeout,
                              env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"not finished in {timeout:.0f} s"}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:300]}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["wall_seconds_with_startup"] = time.perf_counter() - t0
    return out


def _spec(spec: str):
    """``"2,1:aces"`` -> ``("2,1", "aces")``; a third part (the solver engine) is dropped."""
    dice, _, rest = spec.partition(":")
    return dice, rest.partition(":")[0] or "aces"


def scoring(spec: str, openspiel_memory: int, openspiel_timeout: float) -> dict:
    dice, wild = _spec(spec)
    row = {"spec": spec, "mlp": _run(SCORING_SCRIPT, dice, wild, "mlp"),
           "table": _run(SCORING_SCRIPT, dice, wild, "table")}
    counts = dice.split(",")
    if wild == "highest" and len(set(counts)) == 1:
        row["openspiel_uniform"] = _run(OPENSPIEL_SCORING_SCRIPT, counts[0], str(openspiel_memory),
                                        timeout=openspiel_timeout)
    else:
        row["openspiel_uniform"] = {"error": "OpenSpiel's liars_dice has the highest face wild and equal dice only"}
    return row


def solves(spec: str, target: float) -> dict:
    dice, wild = _spec(spec)
    engine = spec.split(":")[2] if spec.count(":") >= 2 else "auto"
    env = {**os.environ, "DICE_ENVS_MAX_SECONDS": "none"}
    return {"spec": spec, **_run(SOLVE_SCRIPT, dice, wild, str(target), engine, env=env)}


def ours(target: float, repeats: int) -> dict:
    from dice_envs.agents.liars_dice.solver import CFRSolver, solve
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

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
    proc = subprocess.run([sys.executable, "-c", LARGEST_SCRIPT, str(dice), str(faces), "1" if wild else "0",
                           str(target)], capture_output=True, text=True, timeout=7200)
    if proc.returncode != 0:
        return {"spec": spec, "error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["spec"] = spec
    out["wall_seconds_with_startup"] = time.perf_counter() - t0
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=float, default=1e-3,
                        help="exploitability each CFR+ solve runs to: the headline game, --largest and --solves "
                             "(0.001)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="solves of the headline game (one 6-sided die each, 6s wild) timed; the median is "
                             "reported (3)")
    default_python = os.path.join(ROOT, ".venv-bench", "bin", "python")
    parser.add_argument("--openspiel-python", default=default_python if os.path.exists(default_python) else None,
                        help="an interpreter with open-spiel installed (default .venv-bench/bin/python)")
    parser.add_argument("--skip-openspiel", action="store_true",
                        help="do not run OpenSpiel; the report compares with its recorded figures, not measured here")
    parser.add_argument("--largest", nargs="*", default=[], metavar="DxF[w]",
                        help="also solve these games to the target, e.g. 2x4w 3x3w")
    parser.add_argument("--scoring", nargs="*", default=[], metavar="D0,D1:WILD",
                        help="time the exact scoring of a 2x256 MLP and a table, e.g. 1,1:aces 2,2:aces 2,2:highest")
    parser.add_argument("--solves", nargs="*", default=[], metavar="D0,D1:WILD[:ENGINE]",
                        help="time CFR+ to --target with its run-time predictions, e.g. 1,2:aces:numpy "
                             "1,2:aces:compiled")
    parser.add_argument("--openspiel-memory", type=float, default=8.0, help="GiB for OpenSpiel's scoring (8)")
    parser.add_argument("--openspiel-timeout", type=float, default=900.0, help="seconds for OpenSpiel's scoring (900)")
    parser.add_argument("--skip-headline", action="store_true", help="only the --largest, --scoring and --solves rows")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.skip_headline:
        rows = {"scoring": [scoring(spec, int(args.openspiel_memory * 2**30), args.openspiel_timeout)
                            for spec in args.scoring],
                "solves": [solves(spec, args.target) for spec in args.solves],
                "largest": [largest(spec, args.target) for spec in args.largest]}
        print(json.dumps(rows, indent=2) if args.json else _rows_text(rows))
        return 0

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
    result["scoring"] = [scoring(spec, int(args.openspiel_memory * 2**30), args.openspiel_timeout)
                         for spec in args.scoring]
    result["solves"] = [solves(spec, args.target) for spec in args.solves]

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
    print(_rows_text({"scoring": result["scoring"], "solves": result["solves"], "largest": []}))
    return 0


def _rows_text(rows: dict) -> str:
    lines = []
    for row in rows["scoring"]:
        lines.append(f"scoring {row['spec']} (six-sided dice):")
        for kind in ("mlp", "table", "openspiel_uniform"):
            r = row[kind]
            if "error" in r:
                lines.append(f"  {kind:18s} not run: {r['error']}")
            else:
                lines.append(f"  {kind:18s} exploitability {r['exploitability']:.6f}; {r['wall_seconds']:.1f} s wall, "
                             f"{r['cpu_seconds']:.1f} s CPU, peak {r['max_rss_mb']:.0f} MB"
                             + (f" ({r['how']})" if "how" in r else ""))
    for row in rows["solves"]:
        if "error" in row:
            lines.append(f"CFR+ {row['spec']}: failed: {row['error']}")
            continue
        predicted = "; ".join(f"at {t}: {n:.0f} iterations, {c:.0f} s" for t, n, c in row["predictions"])
        lines.append(f"CFR+ {row['spec']}: value {row['value_first_player']:+.6f}, "
                     f"exploitability {row['exploitability']:.2e}, {row['iterations']} iterations, "
                     f"{row['seconds']:.0f} s wall, {row['cpu_seconds']:.0f} s CPU, peak {row['max_rss_mb']:.0f} MB; "
                     f"predicted {predicted}")
    for row in rows["largest"]:
        lines.append(json.dumps(row))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
