"""Why the learned Pig agent levels off: can the network even represent the optimal policy?

Fits the network of ``train_pig.py`` (an MLP on the scaled observation ``(i, j, k) / goal``) to
the solved optimal policy by supervised learning, on every decision of the goal's grid
(``i, j < goal``, ``0 < k < goal - i``, all weighted alike), then scores its greedy policy
exactly against the optimum, as ``train_pig.py`` scores its agents.  If a fitted network
comes far closer to the optimum than reinforcement learning does, the network and its input
are not what limits the learned agent; the learning is.

The input is exactly the environment's (``dice_envs/Pig-v0``): ``--features scaled`` is
``observation="scaled"``, ``--features fourier`` is ``observation="fourier"``, which adds sines
and cosines of ``i``, ``j``, ``k`` and ``i + k`` at five frequencies
(:meth:`dice_envs.games.pig.rules.PigGame.fourier_observation`) and lets the network draw the optimal
policy's jagged hold boundary.

Run: ``.venv/bin/python experiments/diagnose_pig_capacity.py --hidden 64,64 --epochs 30
[--features scaled|fourier] [--seed 0] [--goal 100]`` (needs the ``[train]`` extra; about 20 s
per 30 epochs on one core).  Prints one JSON line: the settings, the fit's accuracy on the
decisions, and the exact ``difference`` (``2 (w - 1/2)``, 0 for the optimum itself).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from dice_envs.agents.learn.runs import fit_classifier, hidden_widths


def features(i, j, k, goal: int, kind: str) -> np.ndarray:
    """``(N, d)`` float32 inputs of the mover's positions ``(i, j, k)``: the observation
    ``kind`` (``"scaled"`` or ``"fourier"``) of ``dice_envs/Pig-v0``."""
    from dice_envs.games.pig.rules import PigGame

    return PigGame(goal).position_observation(i, j, k, kind)


def fit(goal: int, hidden, kind: str, epochs: int, seed: int, batch: int = 4096, learning_rate: float = 3e-3):
    """The network fitted to the optimal decisions, its accuracy on them, and its greedy roll table."""
    import torch

    from dice_envs.agents.pig import solver as pig_solver

    roll = pig_solver.solved(goal).roll[0]
    i, j, k = (x.ravel() for x in np.meshgrid(np.arange(goal), np.arange(goal), np.arange(1, goal), indexing="ij"))
    decision = i + k < goal
    i, j, k = i[decision], j[decision], k[decision]
    target = roll[i, j, k] > 0.5
    net = fit_classifier(features(i, j, k, goal, kind), target, hidden, epochs, seed, batch, learning_rate)
    M = goal + 1
    gi, gj, gk = (v.ravel() for v in np.meshgrid(np.arange(M), np.arange(M), np.arange(1, M), indexing="ij"))
    with torch.no_grad():
        logits = net(torch.tensor(features(gi, gj, gk, goal, kind))).squeeze(1).numpy()
    table = np.ones((M, M, M))
    table[..., 1:] = (logits > 0).reshape(M, M, M - 1)
    accuracy = float(((table[i, j, k] > 0.5) == target).mean())
    return table, accuracy


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--goal", type=int, default=100, help="winning score (100)")
    parser.add_argument("--hidden", type=hidden_widths, default="64,64", help="hidden layer widths, comma-separated")
    parser.add_argument("--features", choices=("scaled", "fourier"), default="scaled",
                        help="the network's input, the env's observation: scaled (i, j, k) / goal, or fourier, "
                             "which adds sines and cosines (scaled)")
    parser.add_argument("--epochs", type=int, default=30, help="passes over the optimal decisions (30)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.goal < 2:
        parser.error("--epochs must be positive, --goal at least 2")
    import torch

    from dice_envs.agents.pig.learned import exact_score

    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    from dice_envs.agents.pig.solver import table_policy

    table, accuracy = fit(args.goal, args.hidden, args.features, args.epochs, args.seed)
    score = exact_score(table_policy(table, "fitted"), args.goal)
    print(json.dumps({"goal": args.goal, "hidden": args.hidden, "features": args.features, "epochs": args.epochs,
                      "seed": args.seed, "accuracy": accuracy, "difference": score["difference"],
                      "seconds": round(time.perf_counter() - t0, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
