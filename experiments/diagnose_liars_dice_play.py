"""Diagnostics for ``train_liars_dice_play.py`` (Liar's Dice from sampled play): where
the learner's exploitability comes from, measured with the full tree the learner never
sees.

It runs the trainer's own pieces (:func:`~dice_envs.agents.liars_dice.play.play`, the
critic fit and :func:`~dice_envs.agents.liars_dice.play.mmd_fit`) for ``--updates``
updates of ``--method mmd`` with the trainer's options, and every ``--every`` updates
prints one JSON line:

* ``current``: the exploitability of the policy network (the current iterate);
* ``average``: that of the exact average of the iterates seen so far (one every
  ``--every`` updates), each information state's policies weighted by the player's own
  reach and linearly in time, as CFR+ averages: what ``--average``'s network learns
  from samples, without its fitting error;
* ``critic_error``: the mean absolute difference between the critic's action values and
  the exact ones of the policy network, over the legal actions at the decisions of the
  last batch (0 with ``--exact-critic``).

``--exact-critic`` replaces the learned critic by the exact action values of the policy
network's own policy at every update (the learner is then no longer a sampled-play
learner: the values are a full-width expectation), which separates the critic's error
from the rest: with it, the iterate reaches the regularised equilibrium of ``--alpha``
or not.

Run (the trainer's options after the diagnostic's)::

    .venv/bin/python experiments/diagnose_liars_dice_play.py --updates 1000 --exact-critic -- --wild --eta 0.05

Needs torch (the ``[train]`` extra).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from dice_envs.agents.liars_dice import play as learners
from dice_envs.agents.liars_dice import play_training as trainer


class ExactValues:
    """The exact action values of a network's policy at any batch of decisions
    (:func:`dice_envs.agents.liars_dice.learned.action_value_table`, looked up by
    information state, :meth:`~dice_envs.agents.liars_dice.learned.InfoStates.rows`)."""

    def __init__(self, game, states):
        self.game, self.states = game, states
        self.table = None

    def refresh(self, net) -> None:
        import torch

        from dice_envs.agents.liars_dice.learned import LearnedLiarsDicePolicy, action_value_table

        probs = LearnedLiarsDicePolicy(self.game, net).probabilities(self.states.obs, self.states.mask)
        self.table = torch.from_numpy(action_value_table(self.states, probs).astype(np.float32))

    def __call__(self, ro):
        """``(n, A)`` exact values at the rollout's decisions, 0 on illegal actions."""
        import torch

        rows = torch.from_numpy(self.states.rows(ro.obs.numpy()))
        return self.table[rows].masked_fill(~ro.mask, 0.0)


class ReachAverage:
    """The exact own-reach-weighted average of policies over every information state,
    each added with a weight (CFR's average strategy, in the rows of
    :class:`~dice_envs.agents.liars_dice.learned.InfoStates`)."""

    def __init__(self, states):
        self.states = states
        self.total = np.zeros(states.mask.shape)

    def add(self, probs: np.ndarray, weight: float) -> None:
        states, tree = self.states, self.states.tree
        policy = states.to_tree_policy(probs)
        reach = np.zeros((tree.N, tree.R))
        for player in (0, 1):  # own reach at each node: the player's own edges only
            own_edge = policy.edge * tree.edge_mask[player] + tree.edge_mask[1 - player]
            mine = tree.top_down(np.ones(tree.R), own_edge)
            reach += mine * tree.node_mask[player]
        self.total += weight * reach.reshape(-1, 1) * probs

    def policy(self) -> np.ndarray:
        total = self.total.sum(1, keepdims=True)
        uniform = self.states.mask / self.states.mask.sum(1, keepdims=True)
        return np.where(total > 0, self.total / np.where(total > 0, total, 1.0), uniform)


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=1000, help="updates of --method mmd to run (1000)")
    parser.add_argument("--every", type=int, default=100, help="updates between lines (and averaged iterates)")
    parser.add_argument("--exact-critic", action="store_true",
                        help="replace the learned critic by the exact action values of the network's policy "
                             "(a full-width expectation, no longer sampled play)")
    parser.add_argument("trainer", nargs=argparse.REMAINDER, help="-- then train_liars_dice_play.py options")
    ns = parser.parse_args(argv)
    if ns.updates < 1 or ns.every < 1:
        raise ValueError(f"--updates and --every must be at least 1, got {ns.updates} and {ns.every}")
    rest = [a for a in ns.trainer if a != "--"]
    args = trainer.parse_args(["--method", "mmd", "--run-dir", "unused", "--quiet", *rest])
    if args.method != "mmd":
        raise ValueError("the diagnostics follow --method mmd")
    return ns, args


def diagnose(ns, args, out=None) -> list:
    """Run the diagnostic; returns the lines printed (as dicts)."""
    import torch

    from dice_envs.agents.liars_dice.learned import LearnedLiarsDicePolicy
    from dice_envs.agents.liars_dice.solver import exploitability
    from dice_envs.games.liars_dice.batched import LiarsDiceBatch
    from dice_envs.games.liars_dice.rules import LiarsDiceGame
    from dice_envs.agents.liars_dice.training import ExactScorer

    torch.set_num_threads(args.threads)
    game = LiarsDiceGame(faces=args.faces, wild=args.wild)
    scorer = ExactScorer(game, args.cfr_target)
    states = scorer.states
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    m = learners.new_modules(args, game, states)
    critics = learners.Critics(m["critic"], m["opt_critic"])
    batch = LiarsDiceBatch(args.games, game=game)
    exact, average, lines, start = ExactValues(game, states), ReachAverage(states), [], time.time()
    for update in range(1, ns.updates + 1):
        m["net"].eval()
        ro = learners.play(batch, m["net"], rng, args.explore, args.explore_sharpness)
        m["net"].train()
        if ns.exact_critic:  # q_prev: the previous policy's values, for --optimism
            q_prev = None if exact.table is None else exact(ro)
            exact.refresh(m["net"])
            q = exact(ro)
            q_prev = q if q_prev is None else q_prev
        else:
            if update % ns.every == 0:
                exact.refresh(m["net"])  # the policy that played: the critic's error is measured against it
            q_prev = critics.values(ro)
            critics.fit(args, ro)
            q = critics.values(ro)
        learners.mmd_fit(args, m["net"], m["opt"], m["magnet"], ro, q, q_prev)
        if args.magnet_every and update % args.magnet_every == 0:
            m["magnet"].load_state_dict(m["net"].state_dict())
        if update % ns.every == 0:
            m["net"].eval()
            probs = LearnedLiarsDicePolicy(game, m["net"]).probabilities(states.obs, states.mask)
            average.add(probs, float(update))
            error = 0.0 if ns.exact_critic else float(((q - exact(ro)).abs().sum(1) / ro.mask.sum(1)).mean())
            line = {"updates": update, "minutes": round((time.time() - start) / 60, 2),
                    "current": exploitability(scorer.tree, states.to_tree_policy(probs)),
                    "average": exploitability(scorer.tree, states.to_tree_policy(average.policy())),
                    "critic_error": error}
            lines.append(line)
            print(json.dumps(line), file=out or sys.stdout, flush=True)
    return lines


def main(argv=None) -> int:
    try:
        ns, args = parse(argv)
        diagnose(ns, args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
