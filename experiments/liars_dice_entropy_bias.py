"""How far from a Nash equilibrium does an entropy bonus hold a Liar's Dice learner?

A learner that keeps an entropy bonus of weight ``tau`` (PPO's ``--entropy``, IIG-RL-Benchmark's
``ent_coef`` 0.1) converges, at best, to a regularised equilibrium rather than a Nash equilibrium:
its exploitability there is a floor the learner cannot go below however long it trains.  This
script computes that floor exactly on the games whose information states fit in memory: the agent
logit quantal-response equilibrium of temperature ``tau`` (in every information state the policy is
the softmax of its exact action values over ``tau``), found by tabular optimistic magnetic mirror
descent with a fixed uniform magnet (:class:`~dice_envs.agents.liars_dice.learned.OptimisticMMD`),
whose fixed point it is; then its exact exploitability (NashConv / 2).

It is the floor of the entropy bonus taken alone.  PPO differs in two ways that move it: its
values include the entropy still to come (a soft equilibrium), and it normalises the advantages of
each batch, which scales the effective temperature by their spread.

Usage::

    python -m experiments.liars_dice_entropy_bias --game LD1D6F --game LD1D6F-nowild \\
        --tau 0.1 --tau 0.05 --tau 0.02 --tau 0.01
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from dice_envs.agents.liars_dice.learned import InfoStates, OptimisticMMD, masked_log_softmax
from dice_envs.agents.liars_dice.solver import exploitability, tree_for
from dice_envs.core.resources import check_resources
from dice_envs.games.liars_dice.named import NAMED_GAMES, named_game


def regularised_equilibrium(states: InfoStates, tau: float, eta: float, tolerance: float, max_steps: int):
    """The agent logit QRE of temperature ``tau``: log-probabilities ``(rows, A)`` and the steps taken.

    Raises:
        RuntimeError: if the policy still moves by more than ``tolerance`` (largest change of a
            probability) after ``max_steps`` steps.
    """
    mask = states.mask
    uniform = masked_log_softmax(np.zeros(mask.shape), mask)
    log_pi, mmd = uniform, OptimisticMMD(states, eta, tau, optimism=1.0)
    for step in range(1, max_steps + 1):
        new = mmd.step(log_pi, uniform)
        change = float(np.abs(np.where(mask, np.exp(new) - np.exp(log_pi), 0.0)).max())
        log_pi = new
        if step % 100 == 0:
            print(f"  tau {tau}: step {step}, largest change {change:.2e}", file=sys.stderr, flush=True)
        if change < tolerance:
            return log_pi, step
    raise RuntimeError(f"tau {tau}: the policy still moves by {change:.2e} after {max_steps} steps (eta {eta})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", choices=sorted(NAMED_GAMES), help="a named game (repeatable)")
    parser.add_argument("--tau", action="append", type=float, help="a temperature (repeatable)")
    parser.add_argument("--eta", type=float, default=0.3, help="MMD's step size")
    parser.add_argument("--tolerance", type=float, default=1e-6, help="stop when no probability moves more")
    parser.add_argument("--max-steps", type=int, default=20_000, help="give up on a temperature past this many steps")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    games, taus = args.game or ["LD1D6F", "LD1D6F-nowild"], args.tau or [0.1, 0.05, 0.02, 0.01]
    if any(t <= 0 for t in taus) or args.eta <= 0 or args.tolerance <= 0 or args.max_steps < 1:
        parser.error("--tau, --eta, --tolerance and --max-steps must be positive")
    rows = []
    for name in games:
        game = named_game(name).game()
        tree = tree_for(game)
        check_resources(f"{name}'s information-state table", 64 * tree.N * tree.R * game.num_actions)
        states = InfoStates(tree)
        for tau in taus:
            t0 = time.process_time()
            try:
                log_pi, steps = regularised_equilibrium(states, tau, args.eta, args.tolerance, args.max_steps)
            except RuntimeError as err:  # (a smaller --eta converges where a larger one cycles)
                print(f"{name:16s} {err}", flush=True)
                continue
            probs = np.where(states.mask, np.exp(log_pi), 0.0)
            value = exploitability(tree, states.to_tree_policy(probs))
            row = {"game": name, "tau": tau, "exploitability": value, "mmd_steps": steps,
                   "cpu_seconds": round(time.process_time() - t0, 1)}
            rows.append(row)
            print(f"{name:16s} tau {tau:<6g} exploitability {value:.5f}  ({steps} steps, {row['cpu_seconds']} CPU s)",
                  flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
