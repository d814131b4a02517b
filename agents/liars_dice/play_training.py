"""Liar's Dice learners from sampled games, scored exactly: the ``escher``, ``mmd``, ``ppo`` and
``mccfr`` learners of ``dice-envs train liars-dice``.

The game: ``faces`` (6), ``dice`` (dice per player: ``1``, ``2`` or one count each, ``1,2``) and
``wild`` (``none``, ``highest``: the highest face wild, OpenSpiel's rule, or ``aces``).  Two dice
each (352 M information states) is for ESCHER only.

Unlike the full-width trainer (:mod:`dice_envs.agents.liars_dice.full_width`: exact expected
action values over every information state), the learners here see only sampled games: every
update plays ``games`` games of the batched environment
(:class:`dice_envs.games.liars_dice.batched.LiarsDiceBatch`) to the end and learns from the
decisions made and the payoff (+1 / -1) each player got (:mod:`dice_envs.agents.liars_dice.play`
holds the learners' pieces):

* ``escher``: ESCHER (McAleer et al. 2023), of the Deep CFR family, with no table at any point
  (:class:`dice_envs.agents.liars_dice.escher.Escher`, whose docstring has the algorithm and its
  settings): a history value network (``critic_hidden``, ``value_learning_rate``,
  ``value_steps``), a regret network (``hidden``, ``learning_rate``, ``regret_steps``) and an
  average-policy network (``average_hidden``, ``average_learning_rate``, ``average_steps``), fitted
  from two reservoirs of ``average_buffer`` rows each.  Its defaults are predictive regret
  matching+ with posterior targets (``regret_plus``, ``predictive_plus``, ``other_dice =
  "posterior"``, ``own_dice = "all"``, ``merge_rows``, ``reach_floor = 0.01``, ``iteration_rows =
  0.25``, ``average_power = 2``, ``average_ema``);
  ``regret_plus = false`` plays Deep CFR's regret matching on linearly weighted regrets.  The
  average network is scored and saved; regret matching's exploitability is logged as
  ``current_exploitability`` (where the tree fits in memory, else with ``score_current``);
* ``mmd``: magnetic mirror descent (Sokota et al. 2023) with sampled returns, in behavioural form:
  a Q critic fitted to the sampled payoffs, the closed-form step
  ``log pi' = (log pi + alpha eta log rho + eta q~) / (1 + alpha eta)`` at every decision of the
  batch, ``q~ = q_t + optimism (q_t - q_{t-1})``, the policy network fitted to it; one exploratory
  deviation per game (``explore``, drawn from ``pi ** explore_sharpness``), the other player's
  later payoffs weighted by the deviation's capped importance ratio (:func:`~dice_envs.agents.
  liars_dice.play.play` says why); the magnet ``rho`` uniform, or moved to the policy network every
  ``magnet_every`` updates; with ``average`` an NFSP-style average-policy network (Heinrich and
  Silver 2016) learns the time average of the played policies from a first-in-first-out buffer,
  and it is the network scored and saved;
* ``ppo``: self-play PPO with action masks (Schulman et al. 2017): the clipped policy-gradient loss
  with an entropy bonus, the Q critic's state value as the baseline, or (``advantage = "gae"``)
  CleanRL's form: a state-value critic in the same loss (``value_coef``, ``clip_value``) and
  generalised advantage estimates (``gamma``, ``gae_lambda``); ``max_grad_norm`` clips the
  gradient, ``activation = "tanh"`` and ``lr_decay = "linear"`` give CleanRL's networks and
  annealing.  ``kl`` adds the KL from the policy that played to the loss: with the entropy bonus
  (the KL to a uniform magnet) that is magnetic mirror descent as IIG-RL-Benchmark trains it
  (Sokota et al. 2023, its reinforcement-learning form).  Plain self-play policy gradient is not
  designed for imperfect-information games and cycles;
* ``mccfr``: outcome-sampling Monte Carlo CFR (Lanctot et al. 2009) on tables
  (:class:`dice_envs.agents.liars_dice.mccfr.OutcomeSamplingCFR`): both seats sample from
  ``(1 - explore) sigma + explore uniform``, the regrets are discounted by ``t^d / (t^d + 1)``
  (``regret_discount`` ``d``; 1: Linear CFR), the average policy is accumulated with linear
  weights; it is the average that is scored and saved (a table in ``model.pt``).

The network methods fit with ``epochs`` passes of Adam over minibatches of ``minibatch`` decisions;
``lr_floor`` decays every learning rate by the cosine to that fraction of its start over the
budget (with ``lr_hold``, over its last ``1 - lr_hold``; with ``lr_updates``, over that many updates
rather than the budget, whatever the budget), ``alpha_final`` decays MMD's ``alpha``
geometrically (:func:`~dice_envs.agents.liars_dice.play.scheduled`).  The defaults of every
option are the learner's recommended settings; ESCHER's are the one configuration that its presets
run on every row but two dice each, with the row's game and budget alone.  The presets
(``presets.toml`` in this module's folder) hold each recorded result's settings.

Every ``eval_every`` updates, and at the end, the scored network (or table) is run over all
information states, a batch of public nodes at a time, and its policy evaluated exactly
(:class:`dice_envs.agents.liars_dice.training.ExactScorer`): exploitability (NashConv / 2) and
value against the CFR+ equilibrium from both seats.  That evaluation is the only use of the full
tree; the learner never sees it.  A "step" is one agent step: one decision, of either seat, in a
sampled game.  Where the tree does not fit in memory (two dice each) the scoring of a network
learner is streamed (:class:`dice_envs.agents.liars_dice.training.StreamedScorer`): there is no
first evaluation, the values against the equilibrium are None, the current iterate of a learner
with an average is scored only with ``score_current`` (if that scoring is over the time limit, the
scored policy's score is kept and stderr says so), the scoring time is not counted in ``minutes``,
and that time is estimated before the training (the untrained network's first block): a run that
would end with a scoring over the time limit is refused before it trains.  MCCFR's tables over
every information state are refused there.

Outputs, in ``run_dir``: ``tb/`` (TensorBoard), ``checkpoint.pt`` (replaced atomically after every
evaluation, after 10 minutes without one, and before every streamed scoring), ``model.pt`` (the
scored network in the format ``dice-envs evaluate liars-dice`` reads), ``exploitability.png`` and
``curve.json``; the last line of stdout is one JSON object (``method``, ``exploitability``,
``best_exploitability``, ``current_exploitability``, ``value_vs_equilibrium``, ``steps``,
``updates``, ``minutes``, ``steps_per_second``, the CFR+ reference, the curve and the options).

Checkpoint (``checkpoint.pt``, format 1; :mod:`dice_envs.agents.liars_dice.training`): the state
dicts of the method's networks, optimisers and buffers (:func:`~dice_envs.agents.liars_dice.play.
tensor_names`), and the JSON ``state`` (``steps``, ``updates``, ``elapsed``, ``history``, ``args``,
``rng``).  Every update starts fresh games, so resuming is exact (an interrupted run, resumed, gives
the same curve and networks as an uninterrupted one with the same options, on the same
``threads``).  Ctrl-C or SIGTERM finish the update in progress, save the checkpoint and exit with
code 130.  On resume ``minutes``, ``steps``, ``eval_every``, ``threads``, ``plot``, ``quiet``,
``score_current`` and ``run_dir`` may change; any other option that differs is refused with the
option, both values and what to do.  A finished run that is rerun prints its report.

Options are checked first (``ValueError`` naming the option): numbers finite, counts at least 1,
rates positive, ranges, choices, the options of one method given to another, reservoirs and
buffers past the memory limit (``DICE_ENVS_MAX_MEMORY``), a game too large for the in-memory tree
with a method other than ``escher``.  Losses or networks that stop being finite stop the run with
an error, keeping the last checkpoint.

Run: ``dice-envs train liars-dice --preset NAME`` (the ``[train]`` extra, also for ``mccfr``'s
checkpoints); ``minutes`` and ``steps`` (agent steps) are totals over resumes.
"""


from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any, Dict, cast
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dice_envs.agents.liars_dice.escher import OTHER_DICE, OWN_DICE, Reservoir
from dice_envs.agents.liars_dice.learned import ACTIVATIONS, LearnedLiarsDicePolicy, belief_inputs
from dice_envs.agents.liars_dice.play import (
    UPDATES,
    Critics,
    average_update,
    new_modules,
    play,
    scheduled,
    set_learning_rate,
    tensor_names,
)
from dice_envs.agents.learn.presets import Learner
from dice_envs.agents.liars_dice.streamed import fits_in_memory
from dice_envs.core.resources import ResourceLimitError
from dice_envs.agents.liars_dice.training import (
    StreamedScorer,
    TrainingLoop,
    final_and_best,
    game_title,
    load_state_dicts,
    make_scorer,
    open_run,
    save_model,
    save_table_model,
    scalars,
    start_run_dir,
    write_outputs,
)
from dice_envs.agents.learn.runs import (
    budget_fraction,
    budget_spent,
    check_args,
    damaged,
    flag,
    layer_sizes,
    log,
    options_parser,
    run_script,
)

FORMAT = 1  # the checkpoint format written and read (checkpoint.pt "format")
METHODS = ("escher", "mmd", "ppo", "mccfr")
#: the options that may differ from the checkpoint's on resume (see the module docstring)
CHANGEABLE = ("run_dir", "minutes", "steps", "eval_every", "threads", "plot", "quiet", "score_current")
#: what a finished run rerun with --score-current changes in its report
RESCORED = ("current_exploitability", "curve", "args")
DESCRIPTION = {
    "ppo": "self-play PPO with action masks (clipped, entropy bonus, a Q critic's baseline or GAE), sampled games",
    "mmd": "MMD with sampled returns (behavioural closed form on a Q critic fitted to sampled payoffs), sampled "
           "games",
    "mccfr": "outcome-sampling MCCFR (regret matching, Linear CFR discount, linear averaging), sampled games",
    "escher": "ESCHER (history value network, regret network, average-policy network; no importance weights), "
              "sampled games",
}


@dataclass
class Args:
    """The options of the learners from sampled games; the defaults are ESCHER's recommended settings
    (and, for the options of one other method, that method's)."""

    method: str = "escher"  # escher | mmd | ppo | mccfr
    run_dir: str = ""  # outputs and checkpoint (default: runs/liars_dice_play_<method>_<faces>[_<dice>][_wild|_aces])
    faces: int = 6  # faces of each die
    dice: str = "1"  # dice per player: one count for both ("2") or one each ("1,2")
    wild: str = "highest"  # none | highest | aces
    minutes: float = 30.0  # wall-clock budget (total over resumes; evaluations included)
    steps: int = 0  # stop after this many agent steps in total (0: no limit)
    games: int = 8192  # games played (to the end) per update
    eval_every: int = 50  # updates between exact evaluations
    hidden: str = "128,128"  # the policy network (escher: the regret network)
    critic_hidden: str = "128,128"  # the critic (escher: the history value network)
    learning_rate: float = 1e-3  # the policy network's Adam rate (escher: the regret network's)
    value_learning_rate: float = 2e-3  # the critic's Adam rate (escher: the history value network's)
    minibatch: int = 4096  # rows per Adam step
    lr_floor: float = 1.0  # every learning rate decays (cosine) to lr_floor x its start over the budget (1: constant)
    epochs: int = 2  # passes of Adam over each update's decisions
    clip: float = 0.2  # the ratio clip of PPO (and of the state value, with --clip-value)
    entropy: float = 0.01  # the entropy bonus of PPO
    entropy_anneal: bool = False  # PPO: the entropy bonus decays linearly from --entropy to 0 over the budget
    advantage: str = "q"  # PPO's baseline: q (a Q critic's state value) | gae (a state-value critic, GAE, one loss)
    gamma: float = 1.0  # --advantage gae: the discount of the next decision's value
    gae_lambda: float = 0.95  # --advantage gae: GAE's lambda
    value_coef: float = 0.5  # --advantage gae: the state value's squared error's weight in the loss
    clip_value: bool = False  # --advantage gae: clip the state value's change as the ratio (CleanRL's clip_vloss)
    kl: float = 0.0  # PPO: the weight of the KL from the policy that played (IIG-RL-Benchmark's MMD: 0.025)
    max_grad_norm: float = 0.0  # PPO: clip the gradient's norm to this (0: no clipping)
    activation: str = "relu"  # the networks' hidden activation: relu | tanh (mmd, ppo)
    lr_decay: str = "cosine"  # how the rates decay to --lr-floor x their start: cosine | linear
    lr_hold: float = 0.0  # the share of the budget at the starting rates before they decay to --lr-floor x them
    lr_updates: int = 0  # the decay (and --lr-hold) runs over this many updates, then stays at the floor (0: over the budget)
    eta: float = 0.1  # the step size of MMD
    alpha: float = 0.1  # the weight of the KL to the magnet
    alpha_final: float = 0.0  # alpha decays geometrically to this over the budget (0: alpha stays constant)
    magnet_every: int = 0  # updates between moves of the magnet to the policy network (0: never; it stays uniform)
    optimism: float = 0.0  # q~ = q_t + optimism (q_t - q_{t-1})
    explore: float = 0.3  # mmd: per-decision chance of the game's one exploratory deviation; mccfr: uniform share
    explore_sharpness: float = 0.0  # the deviation draws from pi ** sharpness (0: uniform)
    regret_discount: float = 1.0  # the regrets x t^d / (t^d + 1) after iteration t (0: none; 1: Linear CFR)
    average: bool = True  # also fit an average-policy network (NFSP-style); it is scored and saved
    average_buffer: int = 2_000_000  # rows kept for the average policy (escher: in each of its two reservoirs)
    average_rows: int = 512  # decisions added to the average buffer per update
    average_steps: int = 16  # Adam steps fitting the average-policy network per update
    average_learning_rate: float = 1e-3  # the average-policy network's Adam rate
    average_weighting: str = "linear"  # a kept decision's chance to be drawn: linear in its age | uniform
    value_steps: int = 16  # Adam steps fitting the history value network per iteration
    regret_steps: int = 16  # Adam steps fitting the regret network per iteration
    other_dice: str = "posterior"  # regret targets averaged over the other player's rolls | sampled (as dealt)
    own_dice: str = "all"  # regret rows for each of the traverser's rolls | dealt (its dealt dice)
    merge_rows: bool = True  # an iteration's equal rows become one, by their number; minibatches by weight
    regret_plus: bool = True  # regret matching+ (floored sums, bootstrapped targets); false: regret matching
    reach_floor: float = 0.01  # regret matching+: the traverser's reach is floored at this in the rows' weights
    regret_decay: float = 1.0  # regret matching+: the sums are multiplied by this before each iteration's regrets are added
    iteration_rows: float = 0.25  # regret matching+: this share of each regret minibatch comes from the iteration's own rows
    predictive_plus: bool = True  # regret matching+: sigma_t plays on the regret network plus its last change
    average_power: float = 2.0  # iteration t's policy is weighted t ** average_power in the average
    average_ema: float = 0.995  # scored and saved is a moving average (this decay per step) of the average net (0: off)
    average_hidden: str = ""  # the average-policy network's hidden layers (empty: hidden's)
    beliefs: bool = False  # escher: the networks also take both players' ranges, computed from their own play
    score_current: bool = False  # scored streamed: also score the current iterate of an average's learner (an hour on two dice each)
    cfr_target: float = 1e-4  # exploitability the CFR+ reference is solved to
    seed: int = 0  # seeds torch, numpy and the env
    threads: int = 1  # torch threads (exact resume needs the same count)
    plot: bool = True  # write the curve's figure
    quiet: bool = False  # no progress on stderr


#: the options each method reads, other than those of every method (``faces``, ``dice``, ``wild``, the
#: budget, ``games``, ``eval_every``, ``seed``, ...)
METHOD_OPTIONS = {
    "escher": ("hidden", "critic_hidden", "learning_rate", "value_learning_rate", "minibatch", "lr_floor",
               "average_buffer", "average_steps", "average_learning_rate", "value_steps", "regret_steps",
               "other_dice", "own_dice", "merge_rows", "regret_plus", "reach_floor", "regret_decay", "iteration_rows",
               "predictive_plus", "average_power", "average_ema", "average_hidden", "score_current", "lr_decay",
               "lr_hold", "lr_updates", "beliefs"),
    "mmd": ("hidden", "critic_hidden", "learning_rate", "value_learning_rate", "minibatch", "lr_floor", "epochs",
            "eta", "alpha", "alpha_final", "magnet_every", "optimism", "explore", "explore_sharpness", "average",
            "average_buffer", "average_rows", "average_steps", "average_learning_rate", "average_weighting",
            "activation", "lr_decay", "lr_hold", "lr_updates", "score_current"),
    "ppo": ("hidden", "critic_hidden", "learning_rate", "value_learning_rate", "minibatch", "lr_floor", "epochs",
            "clip", "entropy", "entropy_anneal", "average", "average_buffer", "average_rows", "average_steps",
            "average_learning_rate", "average_weighting", "advantage", "gamma", "gae_lambda", "value_coef",
            "clip_value", "kl", "max_grad_norm", "activation", "lr_decay", "lr_hold", "lr_updates", "score_current"),
    "mccfr": ("explore", "regret_discount"),
}
#: the defaults a method's options take where they are not given: the method's recommended settings
#: where they differ from ESCHER's (``Args``'s)
METHOD_DEFAULTS: Dict[str, Dict[str, Any]] = {
    "escher": {},
    "mmd": {"games": 4096, "hidden": "256,256", "critic_hidden": "256,256", "average_buffer": 1_000_000,
            "average_steps": 4},
    "ppo": {"games": 1024, "hidden": "256,256", "critic_hidden": "256,256", "epochs": 4, "minibatch": 1024,
            "average": False, "average_buffer": 1_000_000, "average_steps": 4},
    "mccfr": {"games": 16384, "eval_every": 500},
}


def unread(method: str) -> tuple:
    """The options ``method`` does not read (other methods'): a checkpoint's values of them are moot."""
    return tuple(sorted({name for other in METHODS for name in METHOD_OPTIONS[other]} - set(METHOD_OPTIONS[method])))


def method_args(method: str, **options) -> Args:
    """The options of ``method`` with its recommended defaults (:data:`METHOD_DEFAULTS`) where
    ``options`` give none."""
    if method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    return Args(method=method, **{**METHOD_DEFAULTS[method], **options})


def parse_args(argv=None) -> Args:
    """The options as flags (a bare ``--wild`` is ``--wild highest``), checked: ``ValueError`` names a bad one,
    and an option of another method.  ``--method`` picks the method's recommended defaults (:func:`method_args`)."""
    parser = options_parser(Args, __doc__.splitlines()[0])
    for action in parser._actions:
        if action.dest != "help":
            action.default = argparse.SUPPRESS  # (only the options given: the others are the method's defaults)
    given = vars(parser.parse_args(wild_flags(sys.argv[1:] if argv is None else argv)))
    method = given.pop("method", "escher")
    refused = set(unread(method)) if method in METHODS else set()  # (an unknown method: method_args names it)
    for name in given:
        if name in refused:  # (the rule of ``dice-envs train liars-dice``'s learners: their ``ignores``)
            owners = " or ".join(f"--method {m}" for m in METHODS if name in METHOD_OPTIONS[m])
            raise ValueError(f"{flag(name)} is for {owners}, not --method {method}")
    return check(method_args(method, **given))


def check(args: Args) -> Args:
    """The options checked (``ValueError`` naming a bad one), ``run_dir``'s default filled in."""
    from dice_envs.core.resources import check_network, check_resources

    if args.method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}, got {args.method!r}")
    if args.average_weighting not in ("linear", "uniform"):
        raise ValueError(f"--average-weighting must be linear or uniform, got {args.average_weighting!r}")
    args.hidden = layer_sizes("hidden", args.hidden)
    args.critic_hidden = layer_sizes("critic_hidden", args.critic_hidden)
    args.average_hidden = layer_sizes("average_hidden", args.average_hidden)
    check_args(args, at_least_one=("games", "eval_every", "epochs", "minibatch", "threads", "average_buffer",
                                   "average_rows", "average_steps", "value_steps", "regret_steps"),
               positive=("learning_rate", "value_learning_rate", "average_learning_rate", "clip", "eta",
                         "cfr_target", "value_coef", "gamma", "regret_decay"),
               non_negative=("entropy", "alpha", "alpha_final", "optimism", "magnet_every", "regret_discount",
                             "lr_floor", "kl", "max_grad_norm", "lr_updates"),
               ranges={"explore": (0.0, 1.0), "explore_sharpness": (0.0, 1.0), "lr_floor": (0.0, 1.0),
                       "gamma": (0.0, 1.0), "gae_lambda": (0.0, 1.0), "average_power": (0.0, 4.0),
                       "regret_decay": (0.0, 1.0)},
               shares=("average_ema", "reach_floor", "lr_hold", "iteration_rows"))
    for name in ("lr_hold", "lr_updates"):
        if getattr(args, name) > 0 and args.lr_floor == 1.0:
            raise ValueError(f"{flag(name)} {getattr(args, name)} shapes the rates' decay, and there is none: "
                             "give --lr-floor below 1 too")
    for name, choices in (("advantage", ("q", "gae")), ("activation", ACTIVATIONS), ("lr_decay", ("cosine", "linear"))):
        if getattr(args, name) not in choices:
            raise ValueError(f"{flag(name)} must be one of {', '.join(choices)}, got {getattr(args, name)!r}")
    if args.method == "escher":
        if args.reach_floor and not args.regret_plus:
            raise ValueError("--reach-floor is for --regret-plus (its rows' weights); give --reach-floor 0 with "
                             "--no-regret-plus")
        if args.regret_decay < 1.0 and not args.regret_plus:
            raise ValueError("--regret-decay is for --regret-plus (it decays the sums the regret network holds)")
        if args.iteration_rows and not args.regret_plus:
            raise ValueError("--iteration-rows is for --regret-plus (its fit adds the iteration's regrets to the sums); "
                             "give --iteration-rows 0 with --no-regret-plus")
        if args.predictive_plus and not args.regret_plus:
            raise ValueError("--predictive-plus is for --regret-plus (it predicts with the last fit's change); "
                             "give --no-predictive-plus with --no-regret-plus")
    if args.method == "mccfr" and args.explore == 0:
        raise ValueError("--explore must be above 0 for --method mccfr: outcome sampling must sample every action")
    if args.alpha_final > args.alpha:
        raise ValueError(f"--alpha-final must be at most --alpha ({args.alpha}): it is where alpha decays to, got "
                         f"{args.alpha_final}")
    for name, choices in (("other_dice", OTHER_DICE), ("own_dice", OWN_DICE)):
        if getattr(args, name) not in choices:
            raise ValueError(f"{flag(name)} must be one of {', '.join(choices)}, got {getattr(args, name)!r}")
    args.average = args.average and args.method in ("mmd", "ppo")  # (ESCHER and MCCFR keep their own average)
    args.average_hidden = args.average_hidden or args.hidden  # spelled out, so resumes compare the network built
    game = game_of(args)
    if args.method == "mccfr" and not fits_in_memory(game):
        raise ValueError(f"--method mccfr keeps tables over every information state, which {game.describe()} "
                         f"does not fit in memory; the network learners (escher, ppo, mmd) are scored streamed there")
    if args.average and args.method in ("mmd", "ppo"):  # the buffer, and its copy in every checkpoint
        row = 2 * game.observation_shape[0] + 3 * game.num_actions
        check_resources(f"--average-buffer {args.average_buffer:,} decisions", 2 * row * args.average_buffer)
    if args.method == "escher":  # its two reservoirs of --average-buffer rows, and their copies in a checkpoint
        extra = belief_inputs(game) if args.beliefs else 0
        check_resources(f"--average-buffer {args.average_buffer:,} rows in each of ESCHER's two reservoirs",
                        2 * args.average_buffer * Reservoir.row_bytes(game.observation_shape[0], game.num_actions,
                                                                      extra))
    # a minibatch is drawn from a buffer (with replacement: it may exceed the rows played) and goes
    # through each network, forward and back
    inputs, actions = game.observation_shape[0], game.num_actions
    for name in ("hidden", "critic_hidden", "average_hidden"):
        layers = [inputs, *(int(h) for h in getattr(args, name).split(",") if h), actions]
        check_network(f"{flag(name)} {getattr(args, name)} with --minibatch {args.minibatch:,}", layers,
                      rows=args.minibatch)
    check_resources(f"--minibatch {args.minibatch:,} rows drawn at once",
                    args.minibatch * Reservoir.row_bytes(inputs, actions))
    if not args.run_dir:
        args.run_dir = (f"runs/liars_dice_play_{args.method}_{args.faces}"
                        + ("" if args.dice == "1" else "_" + "v".join(map(str, game.dice)))
                        + {"none": "", "highest": "_wild", "aces": "_aces"}[game.wild_rule])
    return args


def wild_flags(argv) -> list:
    """``--wild`` alone means ``--wild highest`` (the highest face wild, as before the option took
    a rule) and ``--no-wild`` means ``--wild none``."""
    argv = list(argv)
    out = []
    for k, word in enumerate(argv):
        if word == "--no-wild":
            out += ["--wild", "none"]
        elif word == "--wild" and (k + 1 == len(argv) or argv[k + 1].startswith("-")):
            out += ["--wild", "highest"]
        else:
            out.append(word)
    return out


def legacy_args(saved: dict) -> dict:
    """A checkpoint's options as this version names them: runs from before ``--dice`` and the wild
    rules recorded ``wild`` as a bool (True: the highest face) and had no ESCHER options; runs from
    before ESCHER's later options played plain regret matching on dealt dice with linear averaging
    of the average network itself, of ``--hidden``'s layers; the critic's rate was
    ``critic_learning_rate``; runs from before PPO's ``--advantage gae`` had its options at the
    values of :data:`INTRODUCED_WITH_GAE`; runs from before ``--lr-hold`` and ``--lr-updates``
    decayed over the whole budget (``lr_hold`` and ``lr_updates`` 0), before ``--regret-decay``
    kept whole sums (1), and before ``--iteration-rows`` fitted on the reservoir alone (0).  Options
    this version no longer has are dropped at the value that did what this version does, and refused
    (``ValueError`` naming it) at another."""
    if not isinstance(saved, dict):
        return saved
    saved = {"other_dice": "sampled", "own_dice": "dealt", "merge_rows": False, "regret_plus": False,
             "average_power": 1.0, "reach_floor": 0.0, "regret_decay": 1.0, "iteration_rows": 0.0,
             "predictive_plus": False, "average_ema": 0.0, "beliefs": False, "entropy_anneal": False,
             "lr_hold": 0.0, "lr_updates": 0, **INTRODUCED_WITH_GAE, **saved}
    if "critic_learning_rate" in saved:
        saved.setdefault("value_learning_rate", saved.pop("critic_learning_rate"))
    for name, default in REMOVED.items():
        if saved.get(name, default) != default:
            raise ValueError(f"it was made with {flag(name)} {saved[name]!r}, an option this version no longer has "
                             f"(experiments/notebook/2026-11-28-trainer-variants-removed.md)")
        saved.pop(name, None)
    if "hidden" in saved:
        saved.setdefault("average_hidden", saved["hidden"])
    if isinstance(saved.get("wild"), bool):
        saved["wild"] = "highest" if saved["wild"] else "none"
    if "dice" not in saved:  # (runs from before --dice had no ESCHER: their values of its steps are moot)
        saved.update(dice="1", value_steps=saved.get("value_steps", 32), regret_steps=saved.get("regret_steps", 64))
    return saved


#: the options that came with PPO's ``--advantage gae``, at the values that do what the runs before them did
INTRODUCED_WITH_GAE = {"advantage": "q", "gamma": 1.0, "gae_lambda": 0.95, "value_coef": 0.5, "clip_value": False,
                       "kl": 0.0, "max_grad_norm": 0.0, "activation": "relu", "lr_decay": "cosine"}
#: the options this version no longer has, at the value that did what this version does
REMOVED = {"central_critic": False, "magnet_to": "policy", "predictive_steps": 0, "regret_ema": 0.0,
           "bfloat16": False}


def game_of(args: Args):
    """The round game of the options ``--faces``, ``--dice`` and ``--wild`` (``ValueError`` naming the
    option)."""
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    try:
        dice = tuple(int(part) for part in args.dice.split(","))
    except ValueError:
        raise ValueError(f"--dice must be one count of dice per player or two separated by a comma (2 or 1,2), "
                         f"got {args.dice!r}") from None
    if len(dice) not in (1, 2):
        raise ValueError(f"--dice: the learners here are for two players, got {len(dice)} counts ({args.dice!r})")
    if args.wild not in ("none", "highest", "aces"):
        raise ValueError(f"--wild must be none, highest or aces, got {args.wild!r}")
    try:
        return LiarsDiceGame(dice_per_player=dice[0] if len(dice) == 1 else dice, faces=args.faces, wild=args.wild)
    except ValueError as err:
        raise ValueError(f"--faces / --dice: {err}") from None


# -- training -------------------------------------------------------------------------------


def train(args: Args) -> dict:
    import torch

    from dice_envs.games.liars_dice.batched import LiarsDiceBatch

    torch.set_num_threads(args.threads)
    game = game_of(args)
    run = Path(args.run_dir)
    ckpt_path = run / "checkpoint.pt"
    blob, state, report = open_run(args, FORMAT, CHANGEABLE + unread(args.method), tensor_names(args),
                                   upgrade=legacy_args)
    if report is not None and not (args.score_current and report["current_exploitability"] is None):
        return report  # (a finished run rerun with --score-current goes on to score its current policy)

    scorer = make_scorer(game, args.cfr_target)
    start_run_dir(run)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    modules = new_modules(args, game, scorer.states if args.method == "mccfr" else None)  # (MCCFR's tables' rows)
    net, critic, opt, opt_critic, magnet, avg_net, opt_avg, buffer = (
        cast(Any, modules.get(name)) for name in ("net", "critic", "opt", "opt_critic", "magnet", "average_net", "opt_average",
                                       "average_buffer"))
    cfr = modules["tables"].cfr if args.method == "mccfr" else None
    escher = modules.get("escher")
    critics = Critics(critic, opt_critic)
    modules = {name: modules[name] for name in tensor_names(args)}
    if blob is not None:
        load_state_dicts(blob, ckpt_path, run, **modules)
    del blob
    update: Any = UPDATES.get(args.method)
    scored = escher.output_net if escher else avg_net if args.average else net  # the network scored and saved
    streamed = isinstance(scorer, StreamedScorer)

    def one_update():
        """One update of the method (``loop``, below, runs it): the agent steps it played and its numbers."""
        now = scheduled(args, budget_fraction(args, loop.steps, loop.elapsed), loop.updates)
        for optimiser, rate in ((opt, now.learning_rate), (opt_critic, now.value_learning_rate),
                                (opt_avg, now.average_learning_rate)):
            if optimiser is not None:
                set_learning_rate(optimiser, rate)
        if cfr is not None:
            played, losses = cfr.iterate(batch, rng), {}
            if not np.isfinite(cfr.regret).all():
                raise ValueError(f"the regrets stopped being finite at iteration {loop.updates + 1}; the "
                                 f"checkpoint at update {loop.saved_updates} is kept")
        elif escher is not None:
            rates = {"regret": now.learning_rate, "last": now.learning_rate,
                     "value": now.value_learning_rate, "average": now.average_learning_rate}
            for name, optimiser in escher.optimisers.items():
                set_learning_rate(optimiser, rates[name])
            played, losses = escher.iterate(batch, rng)
            losses.update(learning_rate=now.learning_rate)
        else:
            net.eval()
            ro = play(batch, net, rng, *((args.explore, args.explore_sharpness) if args.method == "mmd" else ()))
            net.train()
            played = len(ro.ret)
            losses = update(now, net, opt, critics, modules.get("magnet"), ro)
            if args.average:
                losses["average_loss"] = average_update(now, avg_net, opt_avg, buffer, ro)
            losses.update(alpha=now.alpha, learning_rate=now.learning_rate, entropy_bonus=now.entropy)
        if args.method == "mmd" and args.magnet_every and (loop.updates + 1) % args.magnet_every == 0:
            magnet.load_state_dict(net.state_dict())  # (at this update's number)
        return played, dict(losses, mean_game_length=played / args.games)

    def current_policy(observations, masks):
        """The current iterate where an average is scored: ESCHER's regret matching, or the policy
        network of a learner with an average network (``--average``)."""
        if escher is not None:
            return escher.current_policy(observations, masks)
        return LearnedLiarsDicePolicy(game, net).probabilities(observations, masks)

    def score():
        """The exact scores of the policy scored and saved, with the current iterate's exploitability
        (where the scoring is streamed, only with --score-current: an hour more at two dice each)."""
        if cfr is not None:
            scores = scorer.scores_table(cfr.average_policy())
            scores["current_exploitability"] = scorer.scores_table(cfr.current_policy())["exploitability"]
        else:
            scores = scorer.scores(scored, beliefs=bool(escher) and args.beliefs)
        if (escher is not None or args.average) and (args.score_current or not streamed):
            try:
                scores["current_exploitability"] = scorer.policy_exploitability(current_policy)
            except ResourceLimitError as refused:
                if not streamed:
                    raise
                # the scored policy's streamed score (minutes) is kept; a rerun with a higher limit scores this one
                print(f"the current policy was not scored: {refused}. The scored policy's score is kept; rerun the "
                      f"same command with --score-current under a higher limit to score the current policy",
                      file=sys.stderr)
        return scores

    def score_current():
        """The current iterate scored, added to the last evaluation (a finished run rerun with
        --score-current)."""
        if not args.score_current or "current_exploitability" in loop.history[-1]:
            return
        score = loop.history[-1]["current_exploitability"] = scorer.policy_exploitability(current_policy)
        scalars(loop.writer, "exact", {"current_exploitability": score}, loop.steps)
        log(args, f"{loop.where()}  current policy exploitability {score:.5f}")
        loop.save()

    loop = TrainingLoop(
        args, FORMAT, state, update=one_update, score=score,
        tensors=lambda: {k: m.state_dict() for k, m in modules.items()},
        # the networks being trained, checked for finite weights every update
        networks=() if cfr is not None else escher.networks() if escher else (
            (net, critic) + ((avg_net,) if args.average else ())),
        generators={"play": rng}, streamed=streamed,
        note=lambda scores: (f"  (current policy {scores['current_exploitability']:.5f})"
                             if "current_exploitability" in scores else ""),
        rerun=score_current)
    for learner, what in ((cfr, "tables"), (escher, "reservoirs")):
        if learner is not None and learner.iterations != loop.updates:  # the linear weights count the iterations
            raise damaged(ckpt_path, f"its {what} are at iteration {learner.iterations}, its state at update "
                                     f"{loop.updates}", run)
    batch = LiarsDiceBatch(args.games, game=game)
    if streamed and not budget_spent(args, loop.steps, loop.elapsed):  # over the time limit: refused now, not after
        scorer.check_time(scored, beliefs=bool(escher) and args.beliefs)
    interrupted = loop.run()
    model_path = run / "model.pt"
    if cfr is not None and not interrupted:
        save_table_model(model_path, game, cfr.average_policy())
    elif not interrupted:
        save_model(model_path, game, args.average_hidden if escher else args.hidden, scored,
                   activation="relu" if escher else args.activation, beliefs=bool(escher) and args.beliefs)
    final, best = final_and_best(loop.history)  # (None values where a streamed run was not yet scored)
    description = (f"{DESCRIPTION[args.method]}, tables over {len(scorer.states.mask):,} information states, "
                   f"scored: the average policy") if cfr is not None else (
                   f"{DESCRIPTION[args.method]}, torch MLP {args.hidden}"
                   + (f" (the average network {args.average_hidden})" if escher and args.average_hidden != args.hidden
                      else "")
                   + (", both players' ranges as inputs" if escher and args.beliefs else "")
                   + (", scored: the average-policy network (NFSP-style)" if args.average else "")
                   + (", scored: the average-policy network" if escher else ""))
    describe = {
        "method": args.method,
        "description": description,
        "exploitability": final["exploitability"],
        "best_exploitability": best["exploitability"],
        # (None where it was not measured: an average's iterate when the scoring is streamed)
        "current_exploitability": final.get("current_exploitability",
                                            None if escher or args.average else final["exploitability"]),
        "best_at_steps": best["steps"],
    }
    result = loop.report(game, scorer, final, model_path, describe, counts={"updates": loop.updates})
    if report is not None:  # a finished run rerun with --score-current: its own report (its speed, ...) and that score
        result = dict(report, **{key: result[key] for key in RESCORED})
    if interrupted:
        return result
    scored_label = ("average policy (mccfr, sampled play, tables)" if cfr is not None else
                    ("average-policy network" if args.average or escher else "learned policy")
                    + f" ({args.method}, sampled " + ("games" if escher else "self-play") + ", torch MLP)")
    write_outputs(run, result, loop.history, args.plot, game_title(game) + f": {args.method}, sampled "
                  + ("games" if escher else "self-play"), f"{scored_label}, exact", "agent steps",
                  scorer.cfr_exploitability, target=target_of(args, game),
                  also={"current_exploitability": ("regret matching" if cfr is not None or escher else "policy network")
                        + " (the current iterate), exact"})
    loop.save(report=result)  # a rerun of the finished run prints it
    return result


def target_of(args: Args, game) -> float:
    """The exploitability a run aims at (the issues' targets), drawn on its curve: for ESCHER 0.02
    with one die each and a wild face, 0.01 without, 0.05 with more dice; for the others 0.05 with
    a wild face, 0.02 without."""
    if args.method == "escher":
        return (0.02 if game.wild else 0.01) if game.dice == (1, 1) else 0.05
    return 0.05 if game.wild else 0.02


def main(argv=None) -> int:
    """The trainer with its options as flags and no preset (``experiments/train_liars_dice_play.py``): train
    and print the report as one JSON line (:func:`dice_envs.agents.learn.runs.run_script`)."""
    return run_script("train_liars_dice_play", parse_args, train, argv)


def _learner(method: str, description: str) -> Learner:
    return Learner(method, description, Args, check, train, ignores=unread(method), fixed={"method": method},
                   defaults=METHOD_DEFAULTS[method])


#: The learners from sampled games of ``dice-envs train liars-dice``.
LEARNERS = {
    "escher": _learner("escher", "ESCHER (networks only), predictive regret matching+ by default"),
    "mmd": _learner("mmd", "magnetic mirror descent from sampled returns, with an average network"),
    "ppo": _learner("ppo", "self-play PPO with action masks"),
    "mccfr": _learner("mccfr", "outcome-sampling Monte Carlo CFR, tables"),
}
