"""Diagnostic for ``train_liars_dice_play.py --method escher``: how far its sampling scheme gets
with no network, measured with the full tree the learner never sees.

It runs ESCHER's iteration on tables instead of networks, one die each:

* the games are sampled as the learner samples them (4,096 per iteration of the batched
  environment; in game ``k`` player ``k % 2`` bids uniformly at random, the other plays
  ``sigma_t``);
* the regrets are exact: at every public node where the traverser decided, every roll it might
  hold gets the exact regrets of ``sigma_t`` there (the action values of
  :func:`dice_envs.agents.liars_dice.learned.action_value_table`, which average over the other
  player's rolls by their posterior).  These are the targets the learner's value network
  approximates with ``--other-dice posterior --own-dice all``.  They are added to a table, times
  the visits and the iteration (Linear CFR), where the learner fits its regret network to them;
* ``sigma_t`` is regret matching on that table (the learner's rule: the legal action of largest
  regret where none is positive);
* the average is the exact one: every information state's ``sigma_t`` weighted by the player's
  own reach and by ``t``.  The learner's average network approximates it from samples.

What the learner reaches beyond this is what its networks cost: the value network's error, and
the regret and average networks' fit.  ``--reservoir N`` sums the table over a uniform sample of
``N`` of all the rows made instead (one per visit and roll, as the learner's regret reservoir
keeps them without ``--merge-rows``): what the reservoir alone costs.  Every ``--every`` iterations
it prints one JSON line:
``iteration``, ``steps`` (agent steps sampled), ``seconds``, ``average`` and ``current`` (the
exploitability of the average and of ``sigma_t``).

Run::

    .venv/bin/python experiments/diagnose_liars_dice_escher.py --wild highest --iterations 2000

``--check`` re-measures what the networks cost on three-faced dice (:data:`NETWORK_CHECKS`, a few
minutes) and exits 1 if a figure leaves its band.

Measured (6 faces, highest face wild, seed 0; the learner's 30-minute runs make 1,800-2,200
iterations of 4,096 games): average 0.097 after 250 iterations (3.2 M agent steps), 0.070 after
500, 0.043 after 1,000, 0.026 after 1,500 (19 M), 0.022 after 1,850, 0.020 after 2,000 and 0.0078
after 6,000.  With 16,384 games per iteration 0.0141 after 1,500; with 1,024, 0.054.  Summed over a reservoir
of 2 M rows (the learner's ``--average-buffer``): 0.152 after 200 iterations, 0.142 after 300 and
0.131 after 400, against 0.114, 0.091 and 0.075 with every row.

``--predictive`` plays predictive regret matching (Farina et al. 2021) instead: regret matching
on the table's weighted mean plus the last iteration's regrets, times the share ``2 / (t + 1)``
the next iteration gets in a linear average.  Those regrets are here exact at every information
state; the learner could compute them, from its value network and the posterior, at the decisions
it plays.  Measured (wild, seed 0): 0.083 after 250 iterations, 0.032 after 500, 0.019 after 750,
0.018 after 1,000 and 0.0098 after 1,850, about twice as fast as plain regret matching (0.097,
0.070, 0.056, 0.043 and 0.022).  In a throw-away variant with a fixed error of 0.02 (standard
deviation) added to every mean regret, standing in for a network's, it ended at 0.024 after 1,000
iterations against 0.038 for plain regret matching with the same error (0.011 and 0.031 without
it, in that variant's run).

``--network 128,128`` puts the learner's regret network between the table and the policy:
``sigma_t`` plays regret matching on an MLP fitted every iteration, with ``--fit-steps`` Adam steps
(4,096 rows drawn by weight, as the learner draws them), to the table's exact mean regrets.  It
measures what the network's fit alone costs, with no noise in the targets.  Measured (wild, seed
0, 32 steps): 0.107 after 500 iterations and 0.074 after 1,000, against the table's 0.070 and
0.043; with ``--predictive`` (exact last regrets added to the network's mean) 0.064 and 0.038,
against 0.032 and 0.018.  With ``--fit-steps 128`` the network kept up with the table: 0.156
after 100 iterations and 0.114 after 200 (32 steps: 0.223 and 0.156; the table: 0.114 after 200).
A 2x256 network with 32 steps: 0.207, 0.132 and 0.104 after 100, 200 and 300 (the table: 0.091
after 300).  So a 2x128 network can hold the mean regrets; what it needs is enough fitting.  The
learner itself (targets from sampled rows of single iterations, and the value network) was at
0.16 after 500 iterations with the same sampling and 32 steps.

``--network-targets rows`` fits the network as the learner fits its regret network, to a reservoir
of 2 M rows (the learner's ``--average-buffer``) of every iteration's regrets, one row per visited
information state weighted by ``t`` and its visits, drawn by weight; but the regrets are exact, so
what remains between it and the learner is the value network.  Measured (wild, seed 0): 0.190
after 200 iterations and 0.124 after 500 with 32 steps (on exact means 0.156 and 0.107; the
learner 0.200 and 0.159), 0.131 after 200 and 0.101 after 400 with 128 steps (on exact means
0.114 after 200).  ``--fit-lr`` sets Adam's rate (``1e-3``, the learner's); with ``3e-4`` and 32
steps, rows: 0.312 after 200 and 0.188 after 500.  A lower rate does not help: the fit is short of
steps, not stuck at a noise floor.


``--regret-power p`` weights iteration ``t``'s regrets ``t ** p`` (1, Linear CFR, is the
learner's) and ``--average-power p`` its ``sigma_t`` in the average.  ``--plus`` plays regret
matching+ (CFR+'s rule): every iteration's regrets weighted alike, the table's sums floored at 0
after each iteration.  Measured (wild, seed 0; average after 250 / 500 / 750 / 1,000 iterations):

==========================================  ======  ======  ======  ======
rule                                        250     500     750     1,000
==========================================  ======  ======  ======  ======
regret matching, linear average             0.097   0.070   0.056   0.043
regret power 1.5, average power 2           0.090   0.069   0.045   0.032
regret matching, average power 2            0.118   0.081   0.065   0.047
regret power 2, average power 2             0.106   0.053   0.048   0.037
the same, ``--predictive``                  0.052   0.024   0.029   0.022
regret power 3, average power 3             0.106   0.069   0.051   0.041
``--plus``, linear average                  0.064   0.031   0.018   0.011
``--plus --average-power 2``                0.055   0.026   0.013   0.0075
the same, ``--predictive``                  0.038   0.018   0.0094  0.0058
==========================================  ======  ======  ======  ======

Regret matching+ needs about a sixth of the iterations of the learner's rule for the same
exploitability, and its current policy converges too (0.067 after 1,000 against 0.49).  With
``--network``, ``--plus`` fits the MLP as ``train_liars_dice_play.py --regret-plus`` fits the regret
network: to bootstrapped targets, its own output before the fit plus the iteration's exact regrets
at each visited information state times its visits over ``games`` times its reach by the
traverser's uniform draws (an estimate of its counterfactual reach), floored at 0, on rows drawn
by those estimates summed.  Measured (``--plus --average-power 2 --network 128,128``, 32 steps):
0.157 after 100 iterations, 0.081 after 200, 0.062 after 250 and 0.041 after 400, against 0.223,
0.156, - and 0.120 for the network fitted to the exact linear means.  Weighted by the visits
alone (a throw-away variant, whose sums were also divided by ``sqrt(t)``), it was at 0.38 after
200: the sums of rarely visited information states were too small for the network to hold.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time

import numpy as np



def regret_matching(regrets: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The positive parts normalised over the legal actions, or the legal action of largest regret
    (:func:`dice_envs.agents.liars_dice.escher.regret_matching` on numpy tables)."""
    positive = np.clip(regrets, 0.0, None) * mask
    total = positive.sum(1, keepdims=True)
    greedy = np.eye(mask.shape[1])[np.where(mask, regrets, -np.inf).argmax(1)]
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), greedy)


class TabularEscher:
    """ESCHER's iteration on tables with exact regrets (see the module docstring)."""

    def __init__(self, game, games: int, reservoir: int = 0, predictive: bool = False, network: str = "",
                 fit_steps: int = 32, targets: str = "mean", fit_lr: float = 1e-3, rows_buffer: int = 2_000_000,
                 regret_power: float = 1.0, average_power: float = 1.0, plus: bool = False):
        from dice_envs.agents.liars_dice.learned import InfoStates
        from dice_envs.agents.liars_dice.solver import PublicTree
        from dice_envs.games.liars_dice.batched import LiarsDiceBatch

        if len(set(game.dice)) != 1:
            raise ValueError("the diagnostic is for equal dice (one traverser's rolls per public node)")
        self.game, self.tree = game, PublicTree(game)
        self.states = InfoStates(self.tree)
        self.mask = self.states.mask.astype(bool)
        self.regret = np.zeros(self.mask.shape)
        self.average = np.zeros(self.mask.shape)
        self.batch = LiarsDiceBatch(games, game=game)
        self.iterations = self.steps = 0
        if plus and (reservoir or targets == "rows" or (network and predictive)):
            raise ValueError("--plus does not take --reservoir, --network-targets rows or (with --network) "
                             "--predictive")
        # iteration t's regrets are weighted t ** regret_power (plus: every iteration alike), its
        # sigma_t in the average t ** average_power
        self.plus = plus  # regret matching+: the sums floored at 0 after every iteration
        self.regret_power = 0.0 if plus else regret_power
        self.average_power, self.regret_weights, self.games = average_power, 0.0, games
        # (plus, with a network) the iteration's regrets at each row times its visits / (games * its
        # reach under the traverser's uniform bids), which estimates the counterfactual reach CFR
        # weights them by; and those estimates summed, by which rows are drawn
        self.increment = np.zeros(self.mask.shape)
        self.reach = np.zeros(len(self.mask))
        self.explore = self.own_reach(self.mask / self.mask.sum(1, keepdims=True))
        # predictive regret matching: the last iteration's regrets, and each row's total weight
        self.predictive = predictive
        self.last = np.zeros(self.mask.shape)
        self.weight = np.zeros(len(self.mask))
        # with ``reservoir`` rows, the regret table is the sum over a uniform sample of all rows ever
        # made (one per visit and roll), as the learner's regret reservoir keeps them
        self.reservoir = None
        if reservoir:
            from dice_envs.agents.liars_dice.escher import Reservoir

            self.reservoir = Reservoir(reservoir, 8, self.mask.shape[1], "the diagnostic's reservoir")
        # with a ``network``, sigma_t is regret matching on an MLP fitted every iteration to the table's
        # mean regrets (exact targets), or (targets="rows") to a reservoir of every iteration's exact
        # regrets, one row per visited information state, as the learner's regret network is fitted
        self.net, self.fit_steps, self.rows = None, fit_steps, None
        if targets not in ("mean", "rows"):
            raise ValueError(f"--network-targets must be mean or rows, got {targets!r}")
        if network:
            import torch

            from dice_envs.agents.liars_dice.learned import build_network

            if reservoir:
                raise ValueError("--network fits the table's exact means; it does not take --reservoir")
            try:
                # the uniform policy, as the learner's regret network starts
                self.net = build_network(game.config(), network, zero_output=True)
            except ValueError as error:
                raise ValueError(f"--network: {error}") from None
            self.optimiser = torch.optim.Adam(self.net.parameters(), lr=fit_lr)
            self.inputs = torch.from_numpy(self.states.obs)
            if targets == "rows":
                from dice_envs.agents.liars_dice.escher import Reservoir

                self.rows = Reservoir(rows_buffer, 8, self.mask.shape[1], "the diagnostic's rows")

    def policy(self) -> np.ndarray:
        """Regret matching on the table, or (``predictive``) on its weighted mean plus the last
        iteration's regrets times ``2 / (t + 1)``, the share of the mean the next iteration will have
        under linear weights (predictive regret matching, Farina et al. 2021)."""
        if self.net is not None:
            import torch

            with torch.inference_mode():
                mean = self.net(self.inputs).double().numpy()
            share = self.share() if self.predictive else 0.0
            return regret_matching(mean + share * self.last, self.mask)
        if not self.predictive:
            return regret_matching(self.regret, self.mask)
        share = self.share()
        return regret_matching(self.regret + share * self.weight[:, None] * self.last, self.mask)

    def share(self) -> float:
        """The share of iteration ``t`` (being played) in the weighted mean of iterations 1 to ``t``:
        ``2 / (t + 1)`` under linear weights."""
        t = self.iterations
        if self.regret_power == 1.0:
            return 2.0 / (t + 1)
        return t ** self.regret_power / (self.regret_weights + t ** self.regret_power)

    def fit(self, rng: np.random.Generator, minibatch: int = 4096) -> float:
        """``fit_steps`` Adam steps of the network on the table's mean regrets, each minibatch's rows
        drawn in proportion to their total weight (as the learner's rows are, by ``t`` and visits),
        or (``targets="rows"``) on rows of the reservoir drawn by weight, as the learner draws them
        with ``--merge-rows``, or (``plus``) as ``--regret-plus`` fits the learner's: to the network's
        own output before the fit plus the iteration's weighted regrets (none where it did not
        visit), floored at 0, rows drawn by their summed reach estimates; returns the last loss."""
        import torch

        from dice_envs.agents.liars_dice.escher import draw_by_weight

        if self.plus:  # the network's own output before the fit plus the iteration's weighted regrets, floored
            with torch.inference_mode():
                previous = self.net(self.inputs).double().numpy()
            at = None
            cumulative = np.cumsum(self.reach)
            target = torch.from_numpy((np.clip(previous + self.increment, 0.0, None) * self.mask).astype(np.float32))
        elif self.rows is not None:
            n = len(self.rows)
            at = self.rows.obs[:n].view(np.int64)[:, 0]
            cumulative = self.rows.by_weight()
            target = torch.from_numpy(self.rows.target[:n])
        else:
            at = None
            cumulative = np.cumsum(self.weight)
            target = torch.from_numpy((self.regret / np.maximum(self.weight, 1e-300)[:, None]).astype(np.float32))
        mask = torch.from_numpy(self.mask)
        loss = torch.zeros(())
        for _ in range(self.fit_steps):
            drawn = draw_by_weight(cumulative, minibatch, rng)
            i = torch.from_numpy(drawn if at is None else at[drawn])
            y = target[torch.from_numpy(drawn)]
            loss = ((((self.net(self.inputs[i]) - y) * mask[i]) ** 2).sum(1)).mean()
            self.optimiser.zero_grad()
            loss.backward()
            self.optimiser.step()
        return float(loss.detach())

    def own_reach(self, probs: np.ndarray) -> np.ndarray:
        """Each row's reach by its acting player's own actions under ``probs`` (one row per
        information state), the chance and the other player's actions left out."""
        policy, tree = self.states.to_tree_policy(probs), self.tree
        out = np.ones(len(self.mask))
        for player in (0, 1):
            own = tree.top_down(np.ones(tree.R), np.where(tree.edge_mask[player] > 0, policy.edge, 1.0)).reshape(-1)
            acting = self.states.acting == player
            out[acting] = own[acting]
        return out

    def average_policy(self) -> np.ndarray:
        total = self.average.sum(1, keepdims=True)
        uniform = self.mask / self.mask.sum(1, keepdims=True)
        return np.where(total > 0, self.average / np.where(total > 0, total, 1.0), uniform)

    def iterate(self, rng: np.random.Generator) -> None:
        from dice_envs.agents.liars_dice.learned import action_value_table

        tree, states = self.tree, self.states
        self.iterations += 1
        t = float(self.iterations)
        sigma = self.policy()
        self.regret_weights += t ** self.regret_power
        t_average, t = t ** self.average_power, t ** self.regret_power
        q = action_value_table(states, sigma)
        regret = (q - (q * sigma).sum(1, keepdims=True)) * self.mask
        visits = self._traverser_visits(sigma, rng)
        rows = (np.flatnonzero(visits)[:, None] * tree.R + np.arange(tree.R)[None, :]).reshape(-1)
        count = np.repeat(visits[visits > 0], tree.R)  # each row's visits
        self.last = regret
        if self.plus and self.net is not None:  # the bootstrapped fit's increments and draw weights
            self.increment[:] = 0.0
            self.increment[rows] = count[:, None] * regret[rows] / (self.games * self.explore[rows, None])
            self.reach[rows] += count / (self.games * self.explore[rows])
        self.weight[rows] += t * count
        if self.rows is not None:  # one row per visited information state, weighted by its visits
            self.rows.add(rows.astype(np.int64)[:, None].view(np.uint8), self.mask[rows],
                          regret[rows].astype(np.float32), t * count, rng)
        if self.reservoir is None:
            self.regret[rows] += t * count[:, None] * regret[rows]
            if self.plus:
                np.clip(self.regret, 0.0, None, out=self.regret)
        else:
            self._add_to_reservoir(np.repeat(rows, count), regret, t, rng)
        self.average += t_average * self.own_reach(sigma)[:, None] * sigma
        if self.net is not None:
            self.fit(rng)

    def _add_to_reservoir(self, rows: np.ndarray, regret: np.ndarray, t: float, rng: np.random.Generator) -> None:
        """Add one row per visit and roll (its information state's number, as eight bytes, for the
        observation) and rebuild the table from the rows kept."""
        store = self.reservoir
        index = rows.astype(np.int64)[:, None].view(np.uint8)
        store.add(index, self.mask[rows], regret[rows].astype(np.float32), t, rng)
        n = len(store)
        at = store.obs[:n].view(np.int64)[:, 0]
        for a in range(self.regret.shape[1]):
            self.regret[:, a] = np.bincount(at, store.weight[:n] * store.target[:n, a], len(self.regret))

    def _traverser_visits(self, sigma: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Play the iteration's games as the learner does; how often a traverser decided at each
        public node."""
        from dice_envs.agents.liars_dice.escher import sampled_games

        states = self.states
        visits = np.zeros(self.tree.N, np.int64)
        for step in sampled_games(self.batch, rng, lambda obs, mask, games: sigma[states.rows(obs)]):
            np.add.at(visits, states.rows(step.obs[step.traversing]) // self.tree.R, 1)
            self.steps += len(step.games)
        return visits

    def exploitability(self, probs: np.ndarray) -> float:
        from dice_envs.agents.liars_dice.solver import exploitability

        return exploitability(self.tree, self.states.to_tree_policy(probs))


#: ``--check``'s run: three-faced dice, 100 iterations of 512 games, seed 0, a 32x32 MLP fitted with 32
#: Adam steps per iteration (the table alone: 0.032, with ``--predictive`` 0.0053).
CHECK_RUN = ["--faces", "3", "--games", "512", "--iterations", "100", "--every", "100", "--network", "32,32"]

#: ``--check``'s figures: (name, options added to :data:`CHECK_RUN`, band of the average's exploitability).
#: A network's run is chaotic in its float32 rounding: the games it samples follow its policy, so a
#: product rounded otherwise on another CPU's kernels (AVX-512/AMX against AVX2, or torch's generic
#: kernels) leads to other games and another figure.  Each band covers the runs measured with the
#: kernels forced otherwise (MKL_CBWR=COMPATIBLE, MKL_CBWR=AVX2, ATEN_CPU_CAPABILITY=default) and
#: with seeds 1 and 2, with room to spare (seven runs each): 0.036-0.061 on the exact means,
#: 0.0097-0.017 with ``--predictive``, 0.047-0.071 on a reservoir of rows, and 0.0074-0.0115 for
#: regret matching+ on bootstrapped targets.  A learner that stops learning (uniform play: 0.718)
#: or a fit that stops following its targets lands outside them.
NETWORK_CHECKS = (
    ("fitted to the exact means", [], (0.025, 0.08)),
    ("fitted to the exact means, --predictive", ["--predictive"], (0.005, 0.025)),
    ("fitted to a reservoir of rows", ["--network-targets", "rows"], (0.03, 0.09)),
    ("regret matching+, average power 2, bootstrapped targets", ["--plus", "--average-power", "2"], (0.004, 0.02)),
)


def check() -> int:
    """Run :data:`NETWORK_CHECKS`; print each figure and its band; 1 if one is outside its band, or if
    the predictive rule's gain (at least 1.5 times lower than on the exact means) does not hold."""
    found = {}
    for name, options, (low, high) in NETWORK_CHECKS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main([*CHECK_RUN, *options])
        found[name] = average = json.loads(out.getvalue().splitlines()[-1])["average"]
        print(f"{name:58} average {average:.4f}  band {low:g}-{high:g}  "
              f"{'ok' if low < average < high else 'OUTSIDE'}", flush=True)
    means, predictive = found[NETWORK_CHECKS[0][0]], found[NETWORK_CHECKS[1][0]]
    gain = means / predictive if predictive > 0 else float("inf")
    print(f"the predictive rule's gain on the network: {gain:.2f} (at least 1.5)  {'ok' if gain >= 1.5 else 'LOST'}")
    inside = all(low < found[name] < high for name, _, (low, high) in NETWORK_CHECKS)
    return 0 if inside and gain >= 1.5 else 1


def main(argv=None) -> int:
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faces", type=int, default=6)
    parser.add_argument("--wild", default="none", choices=["none", "highest", "aces"])
    parser.add_argument("--games", type=int, default=4096, help="games per iteration")
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--every", type=int, default=50, help="iterations between printed lines")
    parser.add_argument("--reservoir", type=int, default=0,
                        help="rows the regret table is summed over: a uniform sample of all rows, as the learner's "
                             "regret reservoir keeps them (0: every row)")
    parser.add_argument("--predictive", action="store_true",
                        help="predictive regret matching: the last iteration's regrets added to the table's mean")
    parser.add_argument("--network", default="",
                        help="hidden layers (128,128) of an MLP that sigma_t plays regret matching on, fitted every "
                             "iteration to the table's exact mean regrets: what the regret network's fit alone costs")
    parser.add_argument("--fit-steps", type=int, default=32, help="--network: Adam steps per iteration")
    parser.add_argument("--network-targets", default="mean", choices=["mean", "rows"],
                        help="--network fitted to the table's exact means, or to a reservoir of every iteration's "
                             "exact regrets, one row per visited information state (the learner's rows, no value "
                             "network)")
    parser.add_argument("--fit-lr", type=float, default=1e-3, help="--network: Adam's learning rate")
    parser.add_argument("--regret-power", type=float, default=1.0,
                        help="iteration t's regrets are weighted t ** p (1: Linear CFR)")
    parser.add_argument("--average-power", type=float, default=1.0,
                        help="iteration t's sigma_t is weighted t ** p in the average (1: linear)")
    parser.add_argument("--plus", action="store_true",
                        help="regret matching+ (CFR+'s rule): every iteration's regrets weighted alike, the sums "
                             "floored at 0 after each; with --network, fitted to bootstrapped targets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true",
                        help="re-measure what the networks cost on three-faced dice (NETWORK_CHECKS, a few minutes) "
                             "and exit 1 if a figure leaves its band; the other options are ignored")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    if not args.fit_lr > 0:
        parser.error(f"--fit-lr must be above 0, got {args.fit_lr}")
    if args.plus and args.regret_power != 1.0:
        parser.error("--plus weights every iteration's regrets alike; it does not take --regret-power")
    if args.reservoir < 0:
        parser.error(f"--reservoir must be at least 0, got {args.reservoir}")
    for name in ("games", "iterations", "every", "fit_steps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.network:
        import torch

        torch.manual_seed(args.seed)
        torch.set_num_threads(1)  # as the learner's runs
    try:
        learner = TabularEscher(LiarsDiceGame(faces=args.faces, wild=args.wild), args.games, args.reservoir,
                                args.predictive, args.network, args.fit_steps, args.network_targets, args.fit_lr,
                                regret_power=args.regret_power, average_power=args.average_power,
                                plus=args.plus)
    except ValueError as error:
        parser.error(str(error))
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    for _ in range(args.iterations):
        learner.iterate(rng)
        if learner.iterations % args.every == 0 or learner.iterations == args.iterations:
            print(json.dumps({"iteration": learner.iterations, "steps": learner.steps,
                              "seconds": round(time.perf_counter() - start, 1),
                              "average": learner.exploitability(learner.average_policy()),
                              "current": learner.exploitability(learner.policy())}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
