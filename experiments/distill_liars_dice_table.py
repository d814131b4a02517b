"""Distill a tabular Liar's Dice policy (``train_liars_dice_play.py --method mccfr``'s
``model.pt``) into the project's policy network, from sampled play, scored exactly.

1. Play ``--games`` games of the batched environment with the table's policy mixed with
   ``--explore`` uniform in both seats (a batch of 16,384 at a time), and keep every
   information state a decision was made at: the states play reaches, as a learner that
   sees only sampled games knows them.
2. Fit the network of :func:`dice_envs.agents.liars_dice.learned.build_network`
   (``--hidden``) to the table's probabilities at those states, each weighted equally:
   ``--steps`` Adam steps of KL(table || network) on minibatches of ``--minibatch`` states,
   the learning rate decaying by the cosine to ``--lr-floor`` times ``--learning-rate``.
3. Score the network exactly over every information state (exploitability, value against
   the CFR+ equilibrium), as the trainers do, and save it to ``--out`` in the format
   ``dice-envs evaluate liars-dice`` reads.

The last line of stdout is one JSON object: the table's and the network's exploitability,
the states visited, the final fit loss, the seconds taken and the options.

Measured with the defaults (one core each, two at a time; 20 x 16,384 games): the committed
wild table (exploitability 0.0059; play reached 9,559 of its 24,576 information states) gave a
network at 0.0106 in 208 s, the no-wild table (0.00067; 6,360 states reached) one at 0.0014 in
194 s (``experiments/models/liars_dice_play_mccfr_distilled_*.pt``).  Along the way, in a
first version of this fit (constant rate decayed by 0.7 every 2,000 steps), the wild network
was at 0.0276 after 2,000 steps and 0.0105-0.0114 from 6,000 to 10,000.

Run: ``.venv/bin/python experiments/distill_liars_dice_table.py experiments/models/liars_dice_play_mccfr_wild.pt
--out runs/distilled_wild.pt`` (needs torch, the ``[train]`` extra).  Bad options and a file
that is not a table model are refused (exit code 2).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from dice_envs.agents.learn.runs import cosine_decay, layer_sizes

BATCH = 16384  # games played at a time


def visited_rows(policy, states, games: int, explore: float, rng: np.random.Generator) -> np.ndarray:
    """The rows of ``states`` (:class:`~dice_envs.agents.liars_dice.learned.InfoStates`) at
    which a decision was made in ``games`` sampled games, both seats playing the table
    ``policy.table`` mixed with ``explore`` uniform; sorted."""
    from dice_envs.agents.liars_dice.mccfr import sample_mixed, uniform_policy
    from dice_envs.games.liars_dice.batched import LiarsDiceBatch

    seen = np.zeros(len(states.mask), bool)
    uniform = uniform_policy(states.mask)
    for start in range(0, games, BATCH):
        batch = LiarsDiceBatch(min(BATCH, games - start), game=policy.game)
        batch.reset(rng)
        while True:
            idx = np.flatnonzero(~batch.done)
            if not len(idx):
                break
            rows = states.rows(batch.observe_mover(where=idx))
            seen[rows] = True
            action, _ = sample_mixed(policy.table[rows], uniform[rows], explore, rng)
            batch.step(action, rng, where=idx)
    return np.flatnonzero(seen)


def fit_network(table: np.ndarray, states, rows: np.ndarray, game, args) -> tuple:
    """The network fitted to ``table`` at ``rows`` (KL(table || network), rows weighted
    equally); returns ``(network, last loss)``."""
    import torch

    from dice_envs.agents.liars_dice.learned import build_network, masked_kl, masked_log_probs

    obs = torch.from_numpy(states.obs[rows])
    mask = torch.from_numpy(states.mask[rows])
    target = torch.from_numpy(table[rows].astype(np.float32))
    log_target = torch.log(target.clamp_min(1e-12))
    net = build_network(game.config(), args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    loss = torch.zeros(())
    for step in range(args.steps):
        for group in opt.param_groups:
            group["lr"] = args.learning_rate * cosine_decay(1.0, args.lr_floor, step / args.steps)
        mb = torch.randint(0, len(rows), (args.minibatch,))
        lp = masked_log_probs(net, obs[mb], mask[mb])
        loss = masked_kl(target[mb], log_target[mb], lp, mask[mb]).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net.eval(), float(loss.detach())


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a table model.pt (train_liars_dice_play.py --method mccfr)")
    parser.add_argument("--out", required=True, help="where to save the network (model.pt format)")
    parser.add_argument("--games", type=int, default=20 * BATCH, help="sampled games that find the states")
    parser.add_argument("--explore", type=float, default=0.3, help="uniform share of the play that finds them")
    parser.add_argument("--hidden", default="256,256", help="hidden layer widths, comma-separated (256,256)")
    parser.add_argument("--steps", type=int, default=6000, help="Adam steps")
    parser.add_argument("--minibatch", type=int, default=4096, help="states per Adam step (4096)")
    parser.add_argument("--learning-rate", type=float, default=1e-3,
                        help="Adam's learning rate at the first step, then decaying to --lr-floor times it (0.001)")
    parser.add_argument("--lr-floor", type=float, default=0.05,
                        help="where the cosine decay of the learning rate over --steps ends, as a share of "
                             "--learning-rate (0.05)")
    parser.add_argument("--cfr-target", type=float, default=1e-4, help="exploitability of the CFR+ reference")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1)")
    args = parser.parse_args(argv)
    for name in ("games", "steps", "minibatch", "threads"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name} must be at least 1, got {getattr(args, name)}")
    for name, low, high in (("explore", 0.0, 1.0), ("lr_floor", 0.0, 1.0)):
        if not low <= getattr(args, name) <= high:
            raise ValueError(f"--{name.replace('_', '-')} must be from {low} to {high}, got {getattr(args, name)}")
    if not (np.isfinite(args.learning_rate) and args.learning_rate > 0):
        raise ValueError(f"--learning-rate must be a finite number above 0, got {args.learning_rate}")
    if not 0 <= args.seed < 2 ** 32:
        raise ValueError(f"--seed must be in [0, 2**32), got {args.seed}")
    args.hidden = layer_sizes("hidden", args.hidden)
    return args


def distill(args: argparse.Namespace) -> dict:
    import torch

    from dice_envs.agents.liars_dice.learned import TabularLiarsDicePolicy, load_model
    from dice_envs.agents.liars_dice.training import ExactScorer, save_model

    torch.set_num_threads(args.threads)
    policy = load_model(args.model)
    if not isinstance(policy, TabularLiarsDicePolicy):
        raise ValueError(f"{args.model!r} holds a network, not a table: nothing to distill")
    start = time.time()
    torch.manual_seed(args.seed)
    scorer = ExactScorer(policy.game, args.cfr_target)
    rows = visited_rows(policy, scorer.states, args.games, args.explore, np.random.default_rng(args.seed))
    net, loss = fit_network(policy.table, scorer.states, rows, policy.game, args)
    scores = scorer.scores(net)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    save_model(Path(args.out), policy.game, args.hidden, net)
    return {"game": policy.game.config(), "model": args.model, "out": args.out,
            "table_exploitability": scorer.scores_table(policy.table)["exploitability"],
            "exploitability": scores["exploitability"], "value_vs_equilibrium": scores["value_vs_equilibrium"],
            "states_visited": int(len(rows)), "states": int(len(scorer.states.mask)), "fit_loss": loss,
            "seconds": time.time() - start, "args": vars(args)}


def main(argv=None) -> int:
    try:
        report = distill(parse_args(argv))
    except ValueError as err:
        print(f"distill_liars_dice_table: error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
