"""Full-width optimistic magnetic mirror descent for two-player Liar's Dice, a network fitted to it,
scored exactly: the ``mmd-full-width`` learner of ``dice-envs train liars-dice``.

Method: magnetic mirror descent (MMD, Sokota et al. 2023) in behavioural form, with optimistic
action values, and a small torch MLP as the policy (fitted mirror descent).  Every update

1. runs the network once over every information state (public bid set x own roll; one batch) to
   get its policy ``pi``;
2. from ``pi``, takes ``lookahead`` exact MMD steps on a table of all information states
   (:class:`dice_envs.agents.liars_dice.learned.OptimisticMMD`).  Each step computes, exactly on
   the public tree, every information state's action values ``q_t(a)`` for the acting player
   against the current table (counterfactual values divided by the opponent's and chance's reach:
   expected payoffs in ``[-1, 1]``, the full-width expectation of what a batch of self-play games
   would estimate), and moves to ``log pi' = (log pi + alpha eta log rho + eta q~) / (1 + alpha
   eta)``, normalised over the legal actions: the mirror-descent step on the payoff regularised by
   ``alpha KL(pi || rho)`` toward the magnet ``rho``.  ``q~ = q_t + optimism (q_t - q_{t-1})`` is
   the optimistic (predictive) value;
3. takes ``inner_steps`` Adam steps fitting the network to the table it reached (KL(table ||
   network); every depth of the bid history gets the same total weight, so the few early
   information states that decide most of the value count as much as the many deep ones; the
   learning rate decays by the cosine to ``lr_floor`` times its start over the budget);
4. every ``magnet_every`` updates moves the magnet ``rho`` to the network's policy (a moving magnet
   makes the fixed point a Nash equilibrium rather than the regularised one).

Plain behavioural MMD (``optimism = 0``) cycles on this game, and the dynamics are sensitive to
the network's fitting error: fitting after every step stalls where fitting after many steps
(``lookahead``) does not.  So the agent learns from exact expected feedback, full width over the
information states (no sampled games, hence no sampling noise), and the network is always the
starting point of the next update, so its errors feed back into the dynamics.  A "step" in the
outputs is one update (one fit; ``info_states_per_step`` network rows).  The defaults are the
settings of the best recorded result (the presets of ``presets.toml`` in this module's folder).

Every ``eval_every`` updates, and at the end, the network's policy is tabulated over all
information states into a :class:`dice_envs.agents.liars_dice.solver.TreePolicy` and evaluated
exactly: exploitability (NashConv / 2) and the value of the learned policy against the CFR+
equilibrium from both seats.

Outputs, in ``run_dir``: ``tb/`` (TensorBoard), ``checkpoint.pt`` (the whole state of the run,
replaced atomically after every evaluation and after 10 minutes without one; rerunning the same
command resumes), ``model.pt`` (the final network, for ``dice-envs evaluate liars-dice``),
``exploitability.png`` and ``curve.json``; the last line of stdout is one JSON object.

Checkpoint (``checkpoint.pt``, format 3): one ``torch.save`` file holding only tensors and plain
containers, read back with ``torch.load(weights_only=True)`` (a crafted pickle is refused, never
run): ``format``; ``net``, ``magnet`` and ``opt`` (state dicts); ``prev_q`` (the last action values
of the optimistic step, a tensor, or ``None``); and ``state``, a JSON text: ``steps``, ``elapsed``
(seconds), ``history`` (the curve), ``args`` (the options), ``rng`` (Python's, numpy's and torch's
generator states) and, once the run is finished, ``report``.  A checkpoint of another format (format
2 read ``lr_floor`` as a rate, not a fraction of it), a damaged one, or a ``model.pt`` without a
``checkpoint.pt`` is refused with a message naming the file.  Resuming is exact (on the same
``threads``); Ctrl-C or SIGTERM finish the update in progress, save the checkpoint and exit with
code 130.  On resume ``minutes``, ``steps``, ``eval_every``, ``threads``, ``plot``, ``quiet`` and
``run_dir`` may change; every other option must equal the checkpoint's, or the run is refused with
the option, both values and what to do.  A finished run that is rerun prints its stored report.

Options are checked first (``ValueError`` naming the option): numbers finite, counts at least 1,
``eta``, ``learning_rate`` and ``cfr_target`` positive, ``alpha`` and ``optimism`` >= 0,
``lr_floor`` in [0, 1], ``faces`` from 2 to 6, ``wild`` a rule, ``hidden`` layer sizes.  If the
fit's loss or the network stop being finite numbers, the run stops with an error and keeps the last
checkpoint.

Run: ``dice-envs train liars-dice --preset mmd-full-width`` (the ``[train]`` extra).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from dice_envs.agents.learn.presets import Learner
from dice_envs.agents.liars_dice.play_training import wild_flags
from dice_envs.agents.liars_dice.learned import OptimisticMMD, build_network, masked_kl, masked_log_probs
from dice_envs.agents.liars_dice.training import (
    ExactScorer,
    TrainingLoop,
    game_title,
    load_state_dicts,
    open_run,
    save_model,
    start_run_dir,
    write_outputs,
)
from dice_envs.agents.learn.runs import (
    args_from_dataclass,
    budget_fraction,
    check_args,
    cosine_decay,
    damaged,
    layer_sizes,
    run_script,
)

FORMAT = 3  # the checkpoint format written and read (checkpoint.pt "format")
#: the options that may differ from the checkpoint's on resume (see the module docstring)
CHANGEABLE = ("run_dir", "minutes", "steps", "eval_every", "threads", "plot", "quiet")


@dataclass
class Args:
    """The options of the full-width trainer; the defaults are its recommended settings."""

    run_dir: str = ""  # outputs and checkpoint (default: runs/liars_dice_<faces>[_wild|_aces])
    faces: int = 6  # faces of each die
    wild: str = "none"  # none | highest | aces
    minutes: float = 30.0  # wall-clock budget (total over resumes; evaluations included)
    steps: int = 0  # stop after this many updates in total (0: no limit)
    eval_every: int = 20  # updates (fits) between exact evaluations
    hidden: str = "256,256"  # the policy network's hidden layers
    learning_rate: float = 3e-3  # the fit's Adam rate at the start
    lr_floor: float = 0.1  # the fit's learning rate decays (cosine) to lr_floor x its start over the budget
    inner_steps: int = 40  # Adam steps of each fit to the MMD target
    lookahead: int = 50  # exact MMD steps taken from the network's policy before each fit
    eta: float = 0.5  # the step size of MMD
    alpha: float = 0.03  # the weight of the KL to the magnet
    magnet_every: int = 2  # updates between moves of the magnet to the policy network
    optimism: float = 1.0  # q~ = q_t + optimism (q_t - q_{t-1})
    cfr_target: float = 1e-4  # exploitability the CFR+ reference is solved to
    seed: int = 0  # seeds torch and numpy
    threads: int = 1  # torch threads (exact resume needs the same count)
    plot: bool = True  # write the curve's figure
    quiet: bool = False  # no progress on stderr


def parse_args(argv=None) -> Args:
    """The options as flags, checked: ``ValueError`` names a bad one."""
    return check(args_from_dataclass(Args, __doc__.splitlines()[0], argv))


def check(args: Args) -> Args:
    """The options checked (``ValueError`` naming a bad one), ``run_dir``'s default filled in."""
    args.hidden = layer_sizes("hidden", args.hidden)
    check_args(args, at_least_one=("eval_every", "inner_steps", "lookahead", "magnet_every", "threads"),
               positive=("eta", "learning_rate", "cfr_target"), non_negative=("alpha", "optimism"),
               ranges={"lr_floor": (0.0, 1.0)})
    game = game_of(args)
    if not args.run_dir:
        args.run_dir = f"runs/liars_dice_{args.faces}" + {"none": "", "highest": "_wild", "aces": "_aces"}[game.wild_rule]
    return args


def game_of(args: Args):
    """The round game of ``faces`` and ``wild`` (one die each; ``ValueError`` naming the option)."""
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    if args.wild not in ("none", "highest", "aces"):
        raise ValueError(f"--wild must be none, highest or aces, got {args.wild!r}")
    try:
        return LiarsDiceGame(faces=args.faces, wild=args.wild)
    except ValueError as err:
        raise ValueError(f"--faces: {err}") from None


def fit_learning_rate(args: Args, elapsed: float, steps: int) -> float:
    """Cosine decay from ``--learning-rate`` to ``--lr-floor`` times it over the budget (the
    ``--steps`` limit if given, else ``--minutes``): late updates move the policy
    little, and a finer fit keeps the network's error from driving the dynamics."""
    return cosine_decay(args.learning_rate, args.lr_floor * args.learning_rate, budget_fraction(args, steps, elapsed))


# -- checkpoint -------------------------------------------------------------------------------


TENSORS = ("net", "magnet", "opt")  # the state dicts in checkpoint.pt, and prev_q


def load_tensors(blob: dict, path: Path, run: Path, net, magnet, opt, mask_shape) -> Optional[np.ndarray]:
    """Put the checkpoint's networks and optimiser in place; returns the last action
    values (``prev_q``) of the optimistic step.  ``ValueError`` naming the file."""
    import torch

    load_state_dicts(blob, path, run, net=net, magnet=magnet, opt=opt)
    prev_q = blob.get("prev_q")
    if prev_q is None:
        return None
    if not isinstance(prev_q, torch.Tensor) or tuple(prev_q.shape) != tuple(mask_shape):
        raise damaged(path, f"not this run's networks: prev_q should be a tensor of shape {tuple(mask_shape)}", run)
    prev_q = prev_q.numpy()
    if not np.isfinite(prev_q).all():
        raise damaged(path, "not this run's networks: non-finite numbers in the action values", run)
    return prev_q


# -- training -------------------------------------------------------------------------------


def train(args: Args) -> dict:
    import torch

    torch.set_num_threads(args.threads)
    game = game_of(args)
    run = Path(args.run_dir)
    ckpt_path = run / "checkpoint.pt"
    blob, state, report = open_run(args, FORMAT, CHANGEABLE, TENSORS)
    if report is not None:
        return report

    scorer = ExactScorer(game, args.cfr_target)
    tree, states = scorer.tree, scorer.states
    start_run_dir(run)
    torch.manual_seed(args.seed)
    net = build_network(game.config(), args.hidden, zero_output=True)  # start (and put the first magnet) at uniform
    magnet = build_network(game.config(), args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    prev_q = None  # last update's action values, for the optimistic step
    if blob is not None:
        prev_q = load_tensors(blob, ckpt_path, run, net, magnet, opt, states.mask.shape)
    else:
        magnet.load_state_dict(net.state_dict())
    del blob
    obs_t = torch.from_numpy(states.obs)
    mask_t = torch.from_numpy(states.mask)
    # Fit weights: every depth (number of bids made) gets the same total weight, so the
    # few early information states, which decide most of the value, are not drowned
    # out by the thousands of deep ones.
    depth = np.array([bin(m).count("1") for m in range(tree.N)])
    per_depth = np.bincount(depth, minlength=tree.B + 1)
    row_weight = np.repeat(1.0 / per_depth[depth], tree.R)
    weight_t = torch.from_numpy((row_weight / row_weight.sum()).astype(np.float32))
    mmd = OptimisticMMD(states, args.eta, args.alpha, args.optimism, prev_q)
    last_fit = {"kl": float("nan")}

    def update():
        """One update (``loop``, below, runs it): --lookahead exact MMD steps, the fit, the magnet's move."""
        with torch.no_grad():
            log_pi = masked_log_probs(net, obs_t, mask_t).double().numpy()
            log_magnet = masked_log_probs(magnet, obs_t, mask_t).double().numpy()
        # --lookahead exact MMD steps from the network's policy, then fit the network there.
        for _ in range(args.lookahead):
            log_pi = mmd.step(log_pi, log_magnet)
        target = torch.from_numpy(np.where(states.mask, log_pi, -1e9).astype(np.float32))
        target_p = target.exp()
        net.train()
        for group in opt.param_groups:
            group["lr"] = fit_learning_rate(args, loop.elapsed, loop.steps)
        for _ in range(args.inner_steps):
            lp = masked_log_probs(net, obs_t, mask_t)
            loss = (masked_kl(target_p, target, lp, mask_t) * weight_t).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        last_fit["kl"] = float(loss.detach())
        if (loop.steps + 1) % args.magnet_every == 0:
            magnet.load_state_dict(net.state_dict())  # (at this update's number)
        return 1, {"fit_kl": last_fit["kl"]}

    def tensors() -> dict:
        prev = None if mmd.prev_q is None else torch.from_numpy(np.ascontiguousarray(mmd.prev_q))
        return {"net": net.state_dict(), "magnet": magnet.state_dict(), "opt": opt.state_dict(), "prev_q": prev}

    loop = TrainingLoop(args, FORMAT, state, update=update, score=lambda: scorer.scores(net), tensors=tensors,
                        networks=(net,), steps_are_updates=True, counts="{steps} updates",
                        position="updates {steps:6d}", note=lambda scores: f"  fit KL {last_fit['kl']:.2e}",
                        log_every=10, suspect=f"--learning-rate {args.learning_rate}")
    interrupted = loop.run()
    model_path = run / "model.pt"
    if not interrupted:
        save_model(model_path, game, args.hidden, net)
    result = loop.report(
        game, scorer, loop.history[-1], model_path,
        describe={"method": (f"fitted MMD (behavioural form, exact optimistic action values, {args.lookahead} exact "
                             f"steps per fit, moving magnet), torch MLP {args.hidden}"),
                  "exploitability": loop.history[-1]["exploitability"]},
        counts={"info_states_per_step": int(states.obs.shape[0])})
    if interrupted:
        return result
    write_outputs(run, result, loop.history, args.plot, game_title(game),
                  "learned policy (optimistic MMD, torch MLP), exact", "updates", scorer.cfr_exploitability)
    loop.save(report=result)  # a rerun of the finished run prints it
    return result


def main(argv=None) -> int:
    """The trainer with its options as flags and no preset (``experiments/train_liars_dice.py``): train
    and print the report as one JSON line (:func:`dice_envs.agents.learn.runs.run_script`)."""
    return run_script("train_liars_dice", parse_args, train, wild_flags(sys.argv[1:] if argv is None else argv))


#: The full-width learner of ``dice-envs train liars-dice``.
LEARNER = Learner("mmd-full-width", "optimistic MMD on exact action values, full width, a network fitted to it",
                  Args, check, train)
