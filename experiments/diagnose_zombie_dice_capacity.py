"""Why the learned full Zombie Dice agent levels off: can its network draw the optimal policy?

Plays ``--games`` batches of two-player Zombie Dice with the official dice, both seats
played by the solved optimum (:mod:`dice_envs.agents.zombie_dice.solver`), and records
every decision the optimum makes with both actions legal: the AEC observation and its
choice.  A network of ``train_ayzd.py --variant official``'s shape is then fitted to those
choices by supervised learning (on the env's encoding ``--features``: ``scaled`` or
``fourier``), and its greedy policy is scored exactly against the optimum, as the training
script scores its agents (:class:`dice_envs.agents.zombie_dice.solver.NetworkPolicy`).

The decisions are weighted as optimal play reaches them, the way the exact score weights
them.  If a fitted network comes far closer to the optimum than reinforcement learning does,
the network and its input are not what limits the learned agent; the learning is.  Where one
encoding fits much closer than another, the input is part of what limits it (as it was for
Pig: ``experiments/diagnose_pig_capacity.py``).

Run: ``OMP_NUM_THREADS=1 .venv/bin/python experiments/diagnose_zombie_dice_capacity.py
--features fourier [--hidden 64,64 --epochs 20 --steps 400 --seed 0]`` (needs the ``[train]``
extra; about 1 minute to play and fit, and 3-4 minutes for the exact score, on one core).
Prints one JSON line: the settings, the decisions recorded, the fit's accuracy on them and the
exact ``difference`` (``2 (w - 1/2)``, 0 for the optimum itself).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from dice_envs.agents.learn.runs import fit_classifier, hidden_widths


def optimal_decisions(solution, num_envs: int, steps: int, seed: int):
    """``(observations, rolls)``: the AEC observations (``(N, 24)``) of every decision the
    optimum ``solution`` (:func:`dice_envs.agents.zombie_dice.solver.solved`) made in ``steps``
    steps of ``num_envs`` batched games against itself, and whether it rolled."""
    from dice_envs.agents.zombie_dice import solver as zds
    from dice_envs.agents.zombie_dice.gym import ZombieDiceVectorEnv
    from dice_envs.games.zombie_dice.rules import ROLL

    optimum = zds.BatchedOptimalOpponent(solution)
    env = ZombieDiceVectorEnv(num_envs, opponent=optimum, variant="official", goal=solution.goal, auto_forced=True,
                              illegal_action="raise")
    rng = np.random.default_rng(seed)
    rows = np.arange(num_envs)
    observations, rolls = [], []
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        actions = optimum(env.batch, rows, rng)
        observations.append(obs)
        rolls.append(actions == ROLL)
        obs, *_ = env.step(actions)
    env.close()
    return np.concatenate(observations), np.concatenate(rolls)


def network_policy(net, kind: str, goal: int):
    """The fitted one-logit network as a greedy :class:`~dice_envs.agents.zombie_dice.solver.NetworkPolicy`
    (its logit ``z`` becomes the two logits ``(0, z)``: roll where ``z > 0``)."""
    import torch

    from dice_envs.agents.zombie_dice import solver as zds

    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    weights = [m.weight.detach().numpy().T.copy() for m in linear]
    biases = [m.bias.detach().numpy().copy() for m in linear]
    weights[-1] = np.concatenate([np.zeros_like(weights[-1]), weights[-1]], axis=1)
    biases[-1] = np.concatenate([np.zeros_like(biases[-1]), biases[-1]])
    return zds.NetworkPolicy(weights, biases, "relu", kind, goal, "fitted")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", choices=("scaled", "fourier"), default="scaled",
                        help="the env's observation encoding the network sees")
    parser.add_argument("--hidden", type=hidden_widths, default="64,64", help="hidden layer widths, comma-separated")
    parser.add_argument("--epochs", type=int, default=20, help="passes over the recorded decisions")
    parser.add_argument("--games", type=int, default=4096, help="games played at once")
    parser.add_argument("--steps", type=int, default=400, help="steps of the batch (decisions = games x steps)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the games and the fit (0)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--goal", type=int, default=13, help="brains to win (tests use tiny goals)")
    parser.add_argument("--score-cap", type=int, default=0, help="the solver's score cap (0: its default, goal + 39)")
    args = parser.parse_args(argv)
    if min(args.epochs, args.games, args.steps, args.goal) < 1:
        parser.error("--epochs, --games, --steps and --goal must be positive")
    if args.score_cap and args.score_cap < 2 * args.goal:
        parser.error(f"--score-cap must be 0 (the default) or at least 2 x --goal, got {args.score_cap}")
    import torch

    from dice_envs.agents.zombie_dice import solver as zds
    from dice_envs.games.zombie_dice.rules import ZombieDiceGame

    torch.set_num_threads(args.threads)
    goal, cap = args.goal, args.score_cap or None
    t0 = time.perf_counter()
    observations, rolls = optimal_decisions(zds.solved(goal, cap), args.games, args.steps, args.seed)
    x = ZombieDiceGame(2, "official", goal).encoded_observation(observations, args.features)
    net = fit_classifier(x, rolls, args.hidden, args.epochs, args.seed)
    with torch.no_grad():
        accuracy = float(((net(torch.as_tensor(x)).squeeze(1) > 0).numpy() == rolls).mean())
    fitted = time.perf_counter() - t0
    score = zds.exact_score(network_policy(net, args.features, goal), goal, cap, references=False)
    print(json.dumps({"features": args.features, "hidden": args.hidden, "epochs": args.epochs, "seed": args.seed,
                      "decisions": len(rolls), "roll_share": float(rolls.mean()), "accuracy": accuracy,
                      "difference": score["difference"], "seconds_to_fit": round(fitted, 1),
                      "seconds": round(time.perf_counter() - t0, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
