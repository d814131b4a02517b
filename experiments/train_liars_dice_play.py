"""Train a neural policy for two-player Liar's Dice from sampled games (or tables, ``--method
mccfr``), scoring it EXACTLY: with the CFR+ solver's evaluator where the public tree fits in
memory (up to three dice in play), streamed over it in blocks with two dice each.

The game: ``--faces`` (6), ``--dice`` (dice per player: ``1``, ``2`` or one count each, ``1,2``) and
``--wild`` (``none``, ``highest``: the highest face wild, OpenSpiel's rule, what a bare ``--wild``
means, or ``aces``).  Two dice each (352 M information states) is for ``--method escher`` only.

Unlike ``train_liars_dice.py`` (full-width: exact expected action values over every
information state), the learners here see only sampled games: every update plays
``--games`` games of the batched environment (:class:`dice_envs.games.liars_dice.batched.LiarsDiceBatch`)
to the end, both seats played by the current policy network (self-play), and learns
from the decisions made and the payoff (+1 / -1) each player got.  Four methods
(``--method``):

* ``ppo``: self-play PPO with action masks (Schulman et al. 2017): the clipped
  policy-gradient loss on both players' decisions with an entropy bonus
  (``--entropy``); the baseline is the critic's state value ``sum_a pi(a|s) Q(s, a)``
  and the advantages are the sampled payoff minus it, normalised over the batch.
  Plain self-play policy gradient is not designed for imperfect-information games
  and is expected to cycle (the README measures it).
* ``mmd``: magnetic mirror descent (Sokota et al. 2023) with sampled returns, in
  behavioural form, designed for two-player zero-sum imperfect-information games:
  the critic ``Q(s, a)`` is fitted to the sampled payoffs of the actions taken (it
  estimates the action values against the current policy, averaged over the
  opponent's hidden die by the sampling itself); at every decision of the batch the
  target is the closed-form MMD step
  ``log pi' = (log pi + alpha eta log rho + eta q~) / (1 + alpha eta)`` over the
  legal actions (:func:`dice_envs.agents.liars_dice.learned.mmd_step`'s rule), with
  ``q~ = q_t + optimism (q_t - q_{t-1})`` (``q_{t-1}``: the critic before this
  update's fit), and the policy network is fitted to it (KL(target || network)).
  The magnet ``rho`` is the uniform policy unless ``--magnet-every`` moves it to the
  network's policy every that many updates.  With a fixed uniform magnet the fixed
  point is the ``alpha``-regularised equilibrium, whose exploitability, computed
  exactly on the wild 6-face game (the exact table version, 400 optimistic steps),
  is 0.010 at ``alpha`` 0.02, 0.031 at 0.05, 0.076 at 0.1 (the default: in 1.5-minute sampled
  runs 0.1 ended lower than 0.05, 0.27 against 0.36-0.41).

  Exploration (``--explore``, ``mmd`` only): in each game, the first decision at which
  a coin with that chance comes up is a deviation drawn from ``pi ** --explore-sharpness``
  (0: uniform), and the game is played on-policy after it.  The critic learns from the
  deviating decision and the later ones; the earlier ones' payoffs (a deviation follows)
  are left out; the other player's later decisions are weighted by the importance ratio
  ``pi(a) / mu(a)`` of the deviation, capped at 1, because the deviation ignores the
  deviator's die: unweighted, such games teach the other player that rare bids are
  random bluffs (after a wild-face bid it learned to call, exact value -0.99, critic
  +0.18).

  Why (measured on wild 6-face Liar's Dice, 1.5-minute runs): on-policy sampling alone
  (``--explore 0``) with a moving magnet collapses to nearly pure policies (mean
  entropy 0.01 nats) and stalls near exploitability 0.42, because the states the policy
  avoids get no data while a best response goes there; uniform deviations without the
  weights left the critic's mean error at the second decision at 0.22, with them 0.13.
  The action values learned from samples remain a limit: the critic's mean error over
  the first four decisions stays 0.1-0.3 (against the exact values of the network's own
  policy), where the full-width trainer has none.  In 25-minute runs (README) the
  exploitability reaches its lowest within minutes (0.23 wild, 0.034 without the wild
  face) and then drifts up and jumps between evaluations.

* ``mccfr``: outcome-sampling Monte Carlo CFR (Lanctot et al. 2009), tabular
  (:class:`dice_envs.agents.liars_dice.mccfr.OutcomeSamplingCFR`): no network.  Every
  update (an iteration) plays ``--games`` games, both seats sampling from
  ``(1 - explore) sigma + explore uniform`` (``--explore``; ``sigma``: regret matching),
  and adds every decision's importance-weighted sampled counterfactual regrets to a table
  over the information states (each observation is looked up as its information state,
  :meth:`dice_envs.agents.liars_dice.learned.InfoStates.rows`); the cumulative regrets are
  discounted by ``t^d / (t^d + 1)`` (``--regret-discount`` ``d``; 1: Linear CFR) and the
  average policy is accumulated with linear weights.  It is the average policy that is
  scored and saved (a table, ``model.pt`` that ``dice-envs evaluate`` reads as well);
  regret matching's own exploitability is logged as ``current_exploitability``.  The
  network options (``--hidden``, the rates, ``--epochs``...) do not apply; ``--average``
  and ``--central-critic`` are refused.  Measured on the wild 6-face game (1 to 3 minutes, one
  core each, two runs at a time, ``--games`` 16,384; the settings with the same update in a
  loop of its own, the batch sizes with this script): without the discount, ``--explore``
  0.3 beat 0.6 (OS-MCCFR's usual value) and 0.15: 0.074 against 0.086 and 0.086 after 1
  minute, 0.047 against 0.060 (0.6) after 3; the Linear CFR discount helped: 0.057 against
  0.074 after 1 minute at 0.3, 0.042 against 0.060 after 3 at 0.6; and 16,384 games per
  update beat 4,096 (0.045 against 0.054 after 2 minutes; Python's overhead per update is
  spread over more games: 775 k against 559 k agent steps per second).

* ``escher``: ESCHER (McAleer et al. 2023), of the Deep CFR family, with no table at any point
  (:class:`dice_envs.agents.liars_dice.escher.Escher`, whose docstring has the algorithm): every
  update (an iteration) plays ``--games`` games in which one player (alternating between games)
  samples uniformly and the other plays regret matching on the regret network; a history value
  network (``--critic-hidden``; it also sees the other player's dice) is fitted by expected SARSA
  (``--value-steps`` Adam steps, ``--critic-learning-rate``), the regret network (``--hidden``,
  ``--learning-rate``) to the value network's regrets at the sampling player's decisions
  (``--regret-steps``) and the average-policy network (``--average-hidden``, else ``--hidden``;
  ``--average-steps``, ``--average-learning-rate``) to the policies played at the other player's,
  both from reservoir samples of all iterations' rows (``--average-buffer`` rows each) weighted
  linearly in the iteration.  The average network is scored and saved; regret matching's
  exploitability is logged as ``current_exploitability`` (where the tree fits in memory).
  ``--other-dice posterior`` averages each regret target over the other player's possible dice,
  weighted by their posterior given its bids; ``--own-dice all`` adds a row for every roll the
  player might hold (the class docstring says why both keep CFR's weights); ``--merge-rows`` makes
  an iteration's equal rows one, weighted by their number, and draws minibatches by weight;
  ``--predictive-steps N`` plays predictive regret matching, the regret network's output plus
  ``2 / (t + 1)`` times a last-regret network fitted with ``N`` Adam steps per iteration to that
  iteration's regret rows alone; ``--regret-ema d`` plays on a moving average of the regret
  network's weights; ``--regret-plus`` plays regret matching+ (CFR+'s rule): the regret network
  holds each information state's floored sum of regrets, weighted by estimates of the
  counterfactual reach, and is fitted to its own output before the fit plus the iteration's
  regrets, floored at 0; ``--reach-floor f`` floors the traverser's reach at ``f`` in those
  weights; ``--predictive-plus`` plays predictive regret matching+ on it, the network's output
  plus its change in the last fit; ``--average-ema d`` scores and saves a moving average of the
  average network's weights; ``--average-power p`` weights iteration ``t``'s policy ``t ** p`` in
  the average; ``--bfloat16`` runs the networks' forward passes under torch's CPU autocast to
  bfloat16 (an iteration in 0.43x the time on this machine's AMX CPU at two dice each; the 2v2
  row's hour made 1.8x the iterations and did not end lower).  What each did on
  the wild game, and how far the same sampling goes on tables
  (``experiments/diagnose_liars_dice_escher.py``), is in
  ``docs/training/liars_dice_escher_experiments.md``.
  Measured on one die each with the highest face wild (seed 0, 4 minutes, prototype of the same
  update): 2x128 networks with 4,096 games, 4,096-row minibatches and 16/32/16 Adam steps reached
  0.184, 2x256 ones 0.29 (a third of the updates); 16,384 games per update with 32/64/32 steps
  0.20 in 3.2 minutes; a fixed sampling policy that favours small raises (instead of uniform) was
  worse (0.25 against 0.24 after 200 updates); with the history values replaced by the exact action
  values of the current policy (a diagnostic) 0.18 after 80 updates of 16,384 games against 0.27
  learned: the value network is not the main limit, the number of sampled games is (the same
  update on tables, exact values, reached 0.079 after 23 M agent steps).

The network methods fit the critic (MSE on the taken action's value) and the policy with
``--epochs`` passes of Adam over minibatches of ``--minibatch`` decisions.

Central critic (``--central-critic``, either method): a second critic ``Q(s, o, a)`` also sees the
other player's observation ``o`` (its dice, which the end of every game reveals; centralised
training, decentralised play), fitted to the payoffs; the critic the updates use is then fitted to
its values at the other player's actual dice over every legal action
(:class:`~dice_envs.agents.liars_dice.play.Critics`). Measured on the wild 6-face game (30 minutes,
seed 0, the ``--average`` settings below): the average network ended at 0.0705 (best 0.0678) against
0.0785 (best 0.0643) without it, 25 % fewer updates in the time; the iterate stayed at 0.20-0.36
over the second half. Removing the noise of the hidden die and of the rest of the game from the
critic's targets did not move the iterate: its error is not mainly the critic's variance.

Schedules over the budget (:func:`~dice_envs.agents.liars_dice.play.scheduled`): ``--lr-floor``
decays every learning rate by the cosine to that fraction of its start, ``--alpha-final`` decays
``alpha`` geometrically (the regularised equilibrium's exploitability falls with ``alpha``: 0.031 at
0.05, 0.010 at 0.02). Measured (wild, 30 minutes, seed 0): ``--alpha-final`` 0.03 with
``--lr-floor`` 0.1 ended worse, 0.098 (best 0.058 at 20 minutes), the iterate rising to 0.4-0.8 as
``alpha`` fell: from samples the smaller ``alpha`` destabilises the iterate before the average gains
from it. Without the wild face (same settings, seed 0) it helped: final 0.0275 and best 0.0233
against 0.035 and 0.031; with ``--alpha-final`` 0.02 the best was 0.0203 (20.5 minutes) and the
final 0.037, the iterate swinging (0.03-0.24) once ``alpha`` fell below about 0.04.

Average policy (``--average``, either method): a second network of the same shape
learns the time average of the played policies, as NFSP's average network does
(Heinrich and Silver 2016): every update adds ``--average-rows`` of the batch's
decisions (those reached by their mover's own policy) with the probabilities the
policy network played there to a first-in-first-out buffer of ``--average-buffer``
rows, and takes ``--average-steps`` Adam steps of cross-entropy on minibatches drawn
from it, newer rows more often (``--average-weighting linear``: a row's chance grows
linearly with its age rank, as CFR+ weights its average; or ``uniform``).  Each
decision is weighted by how often play reaches it, as the average of behaviour
policies must be.  It is this network that is scored, saved as ``model.pt`` and
reported (``exploitability``); the policy network's own exploitability is logged as
``current_exploitability``.  ``--magnet-to average`` moves the magnet to it instead of
the policy network.  Why (measured on the wild 6-face game with
``experiments/diagnose_liars_dice_play.py``, which tracks these exactly): the iterates of MMD with
sampled returns keep moving (exploitability 0.15-0.45 from one evaluation to the
next), and the exact own-reach-weighted average of those iterates, tabulated over all
information states, was 2-5x less exploitable than the iterate itself (0.08-0.09
against 0.15-0.46 after 4 minutes at ``--eta`` 0.05 or 0.2).  Its limit is the magnet:
replacing the critic by the exact action values of the network's own policy (a
diagnostic; the learner never has them) takes the iterate to 0.07-0.08 and no
further at ``--alpha`` 0.1, the regularised equilibrium's 0.076, with the magnet
uniform or moved to the policy every 200 updates; at ``--alpha`` 0.03 (also with
``--optimism`` 1) the exact-value iterate was still at 0.23-0.27 after 400 updates
(untested guess: the network is fitted only where the sampled games go).  With the
learned critic the iterate stays 2-3x above the exact-value one, so the critic's error
is the other limit.  The magnet bounds the iterate, not its average: without the wild
face the regularised equilibrium of ``--alpha`` 0.1 is exploitable by 0.070 (exact
table, 400 optimistic steps), and the average network got to 0.042 in 5.6 minutes.

Settings for ``--average`` (wild 6-face game, seed 0, agent steps compared at equal
counts): 4,096 games per update with 2 epochs on minibatches of 4,096 and ``--eta`` 0.1
reached 0.090 at 5.1 M steps at 20 k steps/s, against 0.124 at 4.8 M (and 13 k steps/s)
with 4 epochs on minibatches of 1,024 at ``--eta`` 0.05; ``--eta`` 0.05 with the first
settings was slower (0.164 against 0.116 at 3.8 M), and 8,192 games with 1 epoch at
``--eta`` 0.2 unstable (the iterate at 0.57 after 75 updates).  Moving the magnet to the
average network every 100 updates did not help within 5 M steps (0.116 against 0.090), nor over
30 minutes (final 0.094, best 0.085, against 0.0785 and 0.0643; the iterate was steadier, 0.15-0.24
over the second half against 0.24-0.54).
Playing costs little: in a profile of the defaults, 4 % of the time went to playing the
games and the rest to fitting the networks.

Every ``--eval-every`` updates, and at the end, the policy network (with ``--average``, the
average network) is run over all information states (one batch,
:class:`dice_envs.agents.liars_dice.learned.InfoStates`) and its policy evaluated exactly
(:class:`dice_envs.agents.liars_dice.training.ExactScorer`): exploitability (NashConv / 2) and
value against the CFR+ equilibrium from both seats.  That evaluation is the only use of the
full tree; the learner never sees it.  A "step" in the outputs is one agent step: one
decision, of either seat, in a sampled game; ``steps_per_second`` counts them over the
wall-clock time of this process (evaluations included).

Where the tree does not fit in memory, the scoring is streamed
(:class:`dice_envs.agents.liars_dice.training.StreamedScorer`, minutes: 544 s for a 2x256 MLP at
two six-sided dice each): there is no first evaluation (the first is at ``--eval-every``, or at
the end), the values against the equilibrium are None, and the scoring time
is not counted in ``--minutes``.  ESCHER's current policy (regret matching on the regret network) is
then scored only with ``--score-current`` (``current_exploitability`` is None without it): on two
dice each its two 2x512 networks take about an hour on one thread.  A finished run rerun with
``--score-current`` scores the current policy of its last evaluation and prints the report with it.

Outputs, in ``--run-dir`` (default ``runs/liars_dice_play_<method>_<faces>[_<d0>v<d1>][_wild|_aces]``):
``tb/`` (TensorBoard: ``exact/exploitability``, ``exact/value_vs_equilibrium``, the
losses), ``checkpoint.pt`` (replaced atomically after every evaluation, after 10 minutes
without one, and before every streamed scoring, so a kill during that scoring costs no
training: rerunning the same command resumes and first runs the scoring it owes),
``model.pt`` (the final scored network in the format
``dice-envs evaluate liars-dice`` reads: the network of ``build_network``, so the same
input as ``train_liars_dice.py``'s), ``exploitability.png`` and ``curve.json``.  The
last line of stdout is one JSON object: ``method``, ``exploitability`` (final),
``best_exploitability``, ``current_exploitability`` (the policy network's; with
``--average`` the scored network is the average one), ``value_vs_equilibrium``,
``steps``, ``updates``, ``minutes``,
``steps_per_second``, the CFR+ reference, the curve and the options.

Checkpoint (``checkpoint.pt``, format 1; see :mod:`dice_envs.agents.liars_dice.training`): ``net``,
``critic``, ``opt``, ``opt_critic``, (``mmd``) ``magnet``, (``--central-critic``) ``central`` and
``opt_central``, and (``--average``) ``average_net``, ``opt_average`` and ``average_buffer`` (its
rows) state dicts, or (``mccfr``) ``tables`` (``regret``, ``average``, ``iterations``;
:class:`~dice_envs.agents.liars_dice.play.CFRTables`), or (``escher``) ``escher`` (the three
networks, their optimisers, both reservoirs and the iteration count;
:meth:`dice_envs.agents.liars_dice.escher.Escher.state_dict`), and the JSON ``state`` (``steps``,
``updates``, ``elapsed``, ``history``, ``args``, ``rng``: Python's, numpy's and torch's generators
and the generator that rolls the dice and samples the actions). Every update starts fresh games, so
nothing else is needed: resuming is exact (an interrupted run, resumed, gives the same curve and
networks as an uninterrupted one with the same options, on the same ``--threads``). Ctrl-C or
SIGTERM finish the update in progress, save the checkpoint (not evaluated) and exit with code 130;
the report is the last evaluation's (a streamed run stopped before its one evaluation reports
``None`` scores and an empty curve). On resume ``--minutes``, ``--steps``, ``--eval-every``,
``--threads``, ``--plot``, ``--quiet``, ``--score-current`` and ``--run-dir`` may change; any other
option that differs is refused with the option, both values and what to do. A finished run that is
rerun prints its report.

Options are checked first (``ValueError`` naming the option; exit code 2): ``--method``
``ppo``, ``mmd``, ``mccfr`` or ``escher``, ``--dice`` one or two counts from 1 to 5, ``--wild`` a rule,
a game too large for the in-memory tree with a method other than ``escher``, numbers finite,
counts at least 1, rates, ``--eta`` and ``--clip``
positive, ``--alpha``, ``--optimism``, ``--entropy``, ``--magnet-every`` >= 0, ``--alpha-final``
from 0 to ``--alpha``, ``--lr-floor`` above 0 and at most 1, ``--explore``
and ``--explore-sharpness`` from 0 to 1 (``--explore`` above 0 for ``mccfr``), ``--regret-discount``
>= 0, ``--faces`` from 2 to 6, ``--magnet-to`` policy or
average (average only with ``--average``), ``--average-weighting`` linear or uniform, an
``--average-buffer`` whose rows (and their copy in a checkpoint) would pass the memory limit
(``DICE_ENVS_MAX_MEMORY``), the same for ESCHER's two reservoirs, ``--average`` and ``--central-critic``
with ``mccfr`` or ``escher``, ``--other-dice`` sampled or posterior and ``--own-dice`` dealt or all
(both, ``--merge-rows``, ``--predictive-steps``, ``--regret-ema`` and ``--average-ema`` in [0, 1), ``--regret-plus``
(not with the two before), ``--reach-floor`` in [0, 1) and ``--predictive-plus`` (both only with
``--regret-plus``), ``--average-power`` in [0, 4] and ``--average-hidden``, for ``escher``
only), layer sizes for ``--hidden``, ``--critic-hidden`` and ``--average-hidden``.  Losses or
networks that stop being finite stop the run with an error (exit code 2), keeping the last
checkpoint.

Run: ``.venv/bin/python experiments/train_liars_dice_play.py --method mmd --minutes 30 [--wild]``
or ``--method mccfr --games 16384 --eval-every 500 --minutes 30 [--wild]``, or (README) ``--method escher
--games 4096 --minibatch 4096 --value-steps 16 --regret-steps 32 --average-steps 16 --average-buffer
2000000 --hidden 128,128 --critic-hidden 128,128 --eval-every 50 --minutes 30 --wild highest`` (or
``--dice 2 --wild aces --minutes 60 --eval-every 100000``) (needs torch, the
``[train]`` extra, also for ``mccfr``'s checkpoints).  ``--minutes`` and ``--steps`` (agent steps) are
totals over resumes.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dice_envs.agents.liars_dice.escher import OTHER_DICE, OWN_DICE, Reservoir
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
from dice_envs.agents.liars_dice.streamed import fits_in_memory
from dice_envs.agents.liars_dice.training import (
    SignalStop,
    StreamedScorer,
    checkpoint_blob,
    curve,
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
    args_from_dataclass,
    atomic_file,
    budget_fraction,
    budget_spent,
    check_args,
    check_fields,
    damaged,
    jsonable,
    layer_sizes,
    log,
    random_states,
    restore_random_states,
    run_script,
    save_torch,
)

FORMAT = 1  # the checkpoint format written and read (checkpoint.pt "format")
METHODS = ("ppo", "mmd", "mccfr", "escher")
#: seconds of training after which a checkpoint is written even without an evaluation
CHECKPOINT_SECONDS = 600.0
#: the options that may differ from the checkpoint's on resume (see the module docstring)
CHANGEABLE = ("run_dir", "minutes", "steps", "eval_every", "threads", "plot", "quiet", "score_current")
#: what a finished run rerun with --score-current changes in its report
RESCORED = ("current_exploitability", "curve", "args")
DESCRIPTION = {
    "ppo": "self-play PPO with action masks (clipped, entropy bonus, Q critic baseline), sampled games",
    "mmd": "MMD with sampled returns (behavioural closed form on a Q critic fitted to sampled payoffs), sampled "
           "games",
    "mccfr": "outcome-sampling MCCFR (regret matching, Linear CFR discount, linear averaging), sampled games",
    "escher": "ESCHER (history value network, regret network, average-policy network; no importance weights), "
              "sampled games",
}


@dataclass
class Args:
    method: str = "mmd"  # ppo | mmd | mccfr | escher
    run_dir: str = ""  # outputs and checkpoint (default: runs/liars_dice_play_<method>_<faces>[_<dice>][_wild|_aces])
    faces: int = 6  # faces of each die
    dice: str = "1"  # dice per player: one count for both ("2") or one each ("1,2")
    wild: str = "none"  # none | highest (a bare --wild) | aces
    minutes: float = 30.0  # wall-clock budget (total over resumes; evaluations included)
    steps: int = 0  # stop after this many agent steps in total (0: no limit)
    games: int = 1024  # games played (to the end) per update
    eval_every: int = 20  # updates
    hidden: str = "256,256"  # the policy network
    critic_hidden: str = "256,256"  # the critic (escher: the history value network)
    learning_rate: float = 1e-3  # the policy's Adam rate
    critic_learning_rate: float = 2e-3  # the critic's Adam rate
    epochs: int = 4  # passes over each update's decisions
    minibatch: int = 1024  # decisions per Adam step
    clip: float = 0.2  # ppo: the ratio clip
    entropy: float = 0.01  # ppo: the entropy bonus
    eta: float = 0.2  # mmd: step size
    alpha: float = 0.1  # mmd: weight of the KL to the magnet
    alpha_final: float = 0.0  # mmd: alpha decays geometrically to this over the budget (0: alpha stays constant)
    lr_floor: float = 1.0  # every learning rate decays (cosine) to lr_floor x its start over the budget (1: constant)
    magnet_every: int = 0  # mmd: updates between magnet moves (0: never; the magnet stays uniform)
    magnet_to: str = "policy"  # mmd: what the magnet moves to: policy (the policy network) | average (--average's)
    optimism: float = 0.0  # mmd: q~ = q_t + optimism (q_t - q_{t-1})
    explore: float = 0.3  # mmd: per-decision chance of the game's one exploratory deviation; mccfr: uniform share
    regret_discount: float = 1.0  # mccfr: regrets x t^d / (t^d + 1) after iteration t (0: none; 1: Linear CFR)
    explore_sharpness: float = 0.0  # mmd: the deviation draws from pi ** sharpness (0: uniform)
    central_critic: bool = False  # learn Q(s, other's observation, a) from the finished games; fit the critic to it
    average: bool = False  # also fit an average-policy network (NFSP-style); it is scored and saved
    average_buffer: int = 1_000_000  # average: decisions kept (first in, first out)
    average_rows: int = 512  # average: decisions added to the buffer per update
    average_steps: int = 4  # average: Adam steps per update on minibatches drawn from the buffer
    average_learning_rate: float = 1e-3  # the average-policy network's Adam rate
    average_weighting: str = "linear"  # average: a kept decision's chance to be drawn: linear in its age | uniform
    value_steps: int = 32  # escher: Adam steps fitting the history value network (--critic-hidden) per iteration
    regret_steps: int = 64  # escher: Adam steps fitting the regret network (--hidden) per iteration
    other_dice: str = "sampled"  # escher: regret targets at the other player's dealt dice | posterior (all its rolls)
    own_dice: str = "dealt"  # escher: regret rows for the traverser's dealt dice | all (each of its rolls)
    merge_rows: bool = False  # escher: an iteration's equal rows become one, by their number; minibatches by weight
    predictive_steps: int = 0  # escher: Adam steps fitting the last-regret network per iteration (0: plain RM)
    regret_ema: float = 0.0  # escher: sigma_t plays on a moving average (this decay per step) of the regret network
    regret_plus: bool = False  # escher: regret matching+ (floored sums, bootstrapped targets) on the regret network
    average_power: float = 1.0  # escher: iteration t's policy is weighted t ** average_power in the average
    reach_floor: float = 0.0  # escher --regret-plus: the traverser's reach is floored at this in the weights
    predictive_plus: bool = False  # escher --regret-plus: sigma_t plays on the regret network plus its last change
    average_ema: float = 0.0  # escher: scored and saved is a moving average (this decay per step) of the average net
    average_hidden: str = ""  # escher: the average-policy network's hidden layers (empty: --hidden's)
    bfloat16: bool = False  # escher: the networks' matrix products in bfloat16 (torch's CPU autocast)
    score_current: bool = False  # escher, scored streamed: also score the current policy (see the docstring)
    cfr_target: float = 1e-4  # exploitability the CFR+ reference is solved to
    seed: int = 0  # seeds torch, numpy and the env
    threads: int = 1  # torch threads (exact resume needs the same count)
    plot: bool = True  # write the curve's figure
    quiet: bool = False  # no progress on stderr


def parse_args(argv=None) -> Args:
    """The options, checked: ``ValueError`` names a bad one."""
    from dice_envs.core.resources import check_resources

    args = args_from_dataclass(Args, __doc__.splitlines()[0], wild_flags(sys.argv[1:] if argv is None else argv))
    if args.method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}, got {args.method!r}")
    if args.average_weighting not in ("linear", "uniform"):
        raise ValueError(f"--average-weighting must be linear or uniform, got {args.average_weighting!r}")
    if args.magnet_to not in ("policy", "average"):
        raise ValueError(f"--magnet-to must be policy or average, got {args.magnet_to!r}")
    if args.magnet_to == "average" and not args.average:
        raise ValueError("--magnet-to average needs --average (the average-policy network)")
    args.hidden = layer_sizes("hidden", args.hidden)
    args.critic_hidden = layer_sizes("critic_hidden", args.critic_hidden)
    args.average_hidden = layer_sizes("average_hidden", args.average_hidden)
    check_args(args, at_least_one=("games", "eval_every", "epochs", "minibatch", "threads", "average_buffer",
                                   "average_rows", "average_steps"),
               positive=("learning_rate", "critic_learning_rate", "average_learning_rate", "clip", "eta",
                         "cfr_target", "lr_floor"),
               non_negative=("entropy", "alpha", "alpha_final", "optimism", "magnet_every", "regret_discount",
                             "predictive_steps"),
               ranges={"explore": (0.0, 1.0), "explore_sharpness": (0.0, 1.0), "lr_floor": (0.0, 1.0)})
    for flag, value in (("--regret-ema", args.regret_ema), ("--average-ema", args.average_ema)):
        if not 0.0 <= value < 1.0:
            raise ValueError(f"{flag} must be at least 0 and below 1, got {value}")
    if not 0.0 <= args.average_power <= 4.0:
        raise ValueError(f"--average-power must be between 0 and 4, got {args.average_power}")
    if args.regret_plus and (args.predictive_steps or args.regret_ema):
        raise ValueError("--regret-plus does not combine with --predictive-steps or --regret-ema")
    if not 0.0 <= args.reach_floor < 1.0:
        raise ValueError(f"--reach-floor must be at least 0 and below 1, got {args.reach_floor}")
    if args.reach_floor and not args.regret_plus:
        raise ValueError("--reach-floor is for --regret-plus (its rows' weights)")
    if args.predictive_plus and not args.regret_plus:
        raise ValueError("--predictive-plus is for --regret-plus (it predicts with the last fit's change)")
    if args.method in ("mccfr", "escher"):
        for flag, on in (("--average", args.average), ("--central-critic", args.central_critic)):
            if on:
                raise ValueError(f"{flag} is for the methods ppo and mmd; --method {args.method} keeps its own "
                                 f"average policy" + (" and has no critic" if args.method == "mccfr" else ""))
    if args.method == "mccfr":
        if args.explore == 0:
            raise ValueError("--explore must be above 0 for --method mccfr: outcome sampling must sample every "
                             "action")
    if args.alpha_final > args.alpha:
        raise ValueError(f"--alpha-final must be at most --alpha ({args.alpha}): it is where alpha decays to, got "
                         f"{args.alpha_final}")
    check_args(args, at_least_one=("value_steps", "regret_steps"))
    for name, choices, default in (("other_dice", OTHER_DICE, "sampled"), ("own_dice", OWN_DICE, "dealt")):
        value = getattr(args, name)
        if value not in choices:
            raise ValueError(f"--{name.replace('_', '-')} must be one of {', '.join(choices)}, got {value!r}")
        if value != default and args.method != "escher":
            raise ValueError(f"--{name.replace('_', '-')} is for --method escher, not --method {args.method}")
    for flag, on in (("--merge-rows", args.merge_rows), ("--predictive-steps", args.predictive_steps),
                     ("--regret-ema", args.regret_ema), ("--regret-plus", args.regret_plus),
                     ("--average-ema", args.average_ema), ("--average-hidden", args.average_hidden),
                     ("--average-power", args.average_power != 1.0), ("--bfloat16", args.bfloat16),
                     ("--score-current", args.score_current)):
        if on and args.method != "escher":
            raise ValueError(f"{flag} is for --method escher, not --method {args.method}")
    args.average_hidden = args.average_hidden or args.hidden  # spelled out, so resumes compare the network built
    game = game_of(args)
    if args.method != "escher" and not fits_in_memory(game):
        raise ValueError(f"--method {args.method} is scored on the whole public tree in memory, which "
                         f"{game.describe()} does not fit; --method escher is scored streamed")
    if args.average:  # the buffer, and its copy in every checkpoint
        row = 2 * game.observation_shape[0] + 3 * game.num_actions
        check_resources(f"--average-buffer {args.average_buffer:,} decisions", 2 * row * args.average_buffer)
    if args.method == "escher":  # its two reservoirs of --average-buffer rows, and their copies in a checkpoint
        check_resources(f"--average-buffer {args.average_buffer:,} rows in each of ESCHER's two reservoirs",
                        2 * args.average_buffer * Reservoir.row_bytes(game.observation_shape[0], game.num_actions))
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
    rules recorded ``wild`` as a bool (True: the highest face) and had no ESCHER options (their
    defaults); runs from before ``--other-dice``, ``--own-dice``, ``--merge-rows``,
    ``--predictive-steps``, ``--regret-ema``, ``--regret-plus``, ``--reach-floor``, ``--predictive-plus``,
    ``--average-ema``, ``--average-power``, ``--average-hidden`` and ``--bfloat16`` took the dice
    as dealt, merged no rows, played plain regret matching on the regret network itself, weighted
    the average linearly, scored the average network itself, of ``--hidden``'s layers, and ran
    every product in float32."""
    if not isinstance(saved, dict):
        return saved
    saved = {"other_dice": "sampled", "own_dice": "dealt", "merge_rows": False, "predictive_steps": 0,
             "regret_ema": 0.0, "regret_plus": False, "average_power": 1.0, "reach_floor": 0.0,
             "predictive_plus": False, "average_ema": 0.0, "bfloat16": False, **saved}
    if "hidden" in saved:
        saved.setdefault("average_hidden", saved["hidden"])
    if "dice" in saved:
        return saved
    if isinstance(saved.get("wild"), bool):
        saved["wild"] = "highest" if saved["wild"] else "none"
    for name in ("dice", "value_steps", "regret_steps"):
        saved.setdefault(name, getattr(Args, name))
    return saved


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
    blob, state, report = open_run(args, FORMAT, CHANGEABLE, tensor_names(args), upgrade=legacy_args)
    if report is not None and not (args.score_current and report["current_exploitability"] is None):
        return report  # (a finished run rerun with --score-current goes on to score its current policy)
    if state is not None:
        try:
            check_fields(state, "its state", updates=int)
        except ValueError as err:
            raise damaged(ckpt_path, str(err), run) from None

    scorer = make_scorer(game, args.cfr_target)
    start_run_dir(run)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    modules = new_modules(args, game, getattr(scorer, "states", None))
    net, critic, opt, opt_critic, magnet, avg_net, opt_avg, buffer, central, opt_central = (
        modules.get(name) for name in ("net", "critic", "opt", "opt_critic", "magnet", "average_net", "opt_average",
                                       "average_buffer", "central", "opt_central"))
    cfr = modules["tables"].cfr if args.method == "mccfr" else None
    escher = modules.get("escher")
    critics = Critics(critic, opt_critic, central, opt_central)
    modules = {name: modules[name] for name in tensor_names(args)}
    steps, updates, elapsed, history = 0, 0, 0.0, []
    if blob is not None:
        load_state_dicts(blob, ckpt_path, run, **modules)
        try:
            restore_random_states(state["rng"], {"play": rng})
        except ValueError as err:
            raise damaged(ckpt_path, str(err), run) from None
        steps, updates, elapsed, history = state["steps"], state["updates"], state["elapsed"], state["history"]
        for learner, what in ((cfr, "tables"), (escher, "reservoirs")):
            if learner is not None and learner.iterations != updates:  # the linear weights count the iterations
                raise damaged(ckpt_path, f"its {what} are at iteration {learner.iterations}, its state at update "
                                         f"{updates}", run)
        log(args, f"resumed from {run}: {steps} agent steps, {updates} updates, {elapsed / 60:.1f} min")
    resumed = blob is not None
    del blob
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run / "tb"))
    batch = LiarsDiceBatch(args.games, game=game)
    update = UPDATES.get(args.method)
    saved = {"updates": updates, "at": time.time()}

    def save(report=None):
        """The whole checkpoint, one file, replaced atomically."""
        st = {"steps": steps, "updates": updates, "elapsed": elapsed, "history": history,
              "args": dataclasses.asdict(args), "rng": random_states({"play": rng})}
        if report is not None:
            st["report"] = report
        with atomic_file(ckpt_path) as tmp:
            save_torch(checkpoint_blob(FORMAT, st, **{k: m.state_dict() for k, m in modules.items()}), tmp)
        saved["updates"], saved["at"] = updates, time.time()

    scored = escher.output_net if escher else avg_net if args.average else net  # the network scored and saved
    # the networks being trained, checked for finite weights every update
    trained = () if cfr is not None else escher.networks() if escher else (
        (net, critic) + ((avg_net,) if args.average else ()) + ((central,) if central else ()))
    streamed = isinstance(scorer, StreamedScorer)

    def evaluate_now():
        if streamed and saved["updates"] != updates:
            save()  # the trained state first: a kill during the scoring (minutes) resumes here and owes only it
        began = time.time()
        if cfr is not None:
            scores = scorer.scores_table(cfr.average_policy())
            scores["current_exploitability"] = scorer.scores_table(cfr.current_policy())["exploitability"]
        else:
            scores = scorer.scores(scored)
        if args.average:
            scores["current_exploitability"] = scorer.scores(net)["exploitability"]
        if escher is not None and (args.score_current or not streamed):  # (streamed: an hour at two dice each)
            scores["current_exploitability"] = scorer.policy_exploitability(escher.current_policy)
        scores.update(steps=steps, updates=updates, minutes=elapsed / 60)
        history.append(scores)
        scalars(writer, "exact", {k: scores[k] for k in ("exploitability", "value_vs_equilibrium",
                                                          "current_exploitability") if k in scores}, steps)
        writer.flush()
        if streamed:  # a streamed evaluation (minutes) is not counted in the budget
            clock["start"] += time.time() - began
        versus = scores["value_vs_equilibrium"]
        log(args, f"steps {steps:10d}  updates {updates:6d}  {elapsed / 60:6.2f} min  exploitability "
                  f"{scores['exploitability']:.5f}" + ("" if versus is None else f"  vs CFR+ {versus:+.5f}")
                  + (f"  (current policy {scores['current_exploitability']:.5f})"
                     if "current_exploitability" in scores else ""))
        save()

    def score_current_now():
        """ESCHER's current policy scored, added to the last evaluation (at the current step)."""
        score = history[-1]["current_exploitability"] = scorer.policy_exploitability(escher.current_policy)
        scalars(writer, "exact", {"current_exploitability": score}, steps)
        log(args, f"steps {steps:10d}  updates {updates:6d}  current policy exploitability {score:.5f}")
        save()

    def unevaluated():  # no evaluation is on the curve at the current step yet
        return not history or history[-1]["steps"] != steps

    clock = {"start": time.time() - elapsed}
    start_steps = steps
    t0 = time.time()
    with SignalStop() as stop:
        try:
            owed = updates % args.eval_every == 0 and unevaluated()
            if owed and (updates or not streamed):  # the first (streamed: at --eval-every), or the one a resume owes
                evaluate_now()
            while not stop.flag and not budget_spent(args, steps, elapsed):
                now = scheduled(args, budget_fraction(args, steps, elapsed))
                for optimiser, rate in ((opt, now.learning_rate), (opt_critic, now.critic_learning_rate),
                                        (opt_central, now.critic_learning_rate), (opt_avg, now.average_learning_rate)):
                    if optimiser is not None:
                        set_learning_rate(optimiser, rate)
                if cfr is not None:
                    played, losses = cfr.iterate(batch, rng), {}
                    if not np.isfinite(cfr.regret).all():
                        raise ValueError(f"the regrets stopped being finite at iteration {updates + 1}; the "
                                         f"checkpoint at update {saved['updates']} is kept")
                elif escher is not None:
                    rates = {"regret": now.learning_rate, "last": now.learning_rate,
                             "value": now.critic_learning_rate, "average": now.average_learning_rate}
                    for name, optimiser in escher.optimisers.items():
                        set_learning_rate(optimiser, rates[name])
                    played, losses = escher.iterate(batch, rng)
                    losses.update(learning_rate=now.learning_rate)
                else:
                    net.eval()
                    ro = play(batch, net, rng, *((args.explore, args.explore_sharpness) if args.method == "mmd"
                                                 else ()), other=args.central_critic)
                    net.train()
                    played = len(ro.ret)
                    losses = update(now, net, opt, critics, modules.get("magnet"), ro)
                    if args.average:
                        losses["average_loss"] = average_update(now, avg_net, opt_avg, buffer, ro)
                    losses.update(alpha=now.alpha, learning_rate=now.learning_rate)
                if not all(np.isfinite(v) for v in losses.values()) or not all(
                        bool(torch.isfinite(p).all()) for m in trained for p in m.parameters()):
                    raise ValueError(f"training diverged at update {updates + 1}: losses {losses} (a rate too "
                                     f"large?); the checkpoint at update {saved['updates']} is kept; try smaller "
                                     f"rates with another --run-dir")
                steps += played
                updates += 1
                if args.method == "mmd" and args.magnet_every and updates % args.magnet_every == 0:
                    magnet.load_state_dict((avg_net if args.magnet_to == "average" else net).state_dict())
                elapsed = time.time() - clock["start"]
                scalars(writer, "train", dict(losses, mean_game_length=played / args.games), steps)
                if updates % args.eval_every == 0:
                    evaluate_now()
                elif time.time() - saved["at"] >= CHECKPOINT_SECONDS:
                    save()  # not evaluated: a kill between rare (streamed) evaluations loses minutes, not the run
            interrupted = stop.flag and not budget_spent(args, steps, elapsed)
            if interrupted:
                save()  # the exact state at this update, not evaluated: the curve stays an uninterrupted run's
            elif unevaluated():
                evaluate_now()
            elif args.score_current and "current_exploitability" not in history[-1]:
                score_current_now()  # a finished run rerun with --score-current
        finally:
            writer.close()
    model_path = run / "model.pt"
    if interrupted:  # said even with --quiet
        print(f"interrupted: checkpoint saved at update {updates}; rerun the same command to resume from it",
              file=sys.stderr)
    elif cfr is not None:
        save_table_model(model_path, game, cfr.average_policy())
    else:
        save_model(model_path, game, args.average_hidden if escher else args.hidden, scored)
    # a streamed run (scored only at its end) interrupted before that has no evaluation: its report says None
    unscored = dict.fromkeys(("steps", "exploitability", "value_vs_equilibrium", "value_vs_equilibrium_as_first",
                              "value_vs_equilibrium_as_second"))
    final = history[-1] if history else unscored
    best = min(history, key=lambda h: h["exploitability"]) if history else unscored
    run_seconds = time.time() - t0
    result = jsonable({
        "game": game.config(),
        "method": args.method,
        "description": (f"{DESCRIPTION[args.method]}, tables over {len(scorer.states.mask):,} information states, "
                        f"scored: the average policy") if cfr is not None else (
                        f"{DESCRIPTION[args.method]}, torch MLP {args.hidden}"
                        + (f" (the average network {args.average_hidden})"
                           if escher and args.average_hidden != args.hidden else "")
                        + (", scored: the average-policy network (NFSP-style)" if args.average else "")
                        + (", scored: the average-policy network" if escher else "")),
        "exploitability": final["exploitability"],
        "best_exploitability": best["exploitability"],
        # (None where it was not measured: ESCHER's iterate when the scoring is streamed)
        "current_exploitability": final.get("current_exploitability", None if escher else final["exploitability"]),
        "best_at_steps": best["steps"],
        "value_vs_equilibrium": final["value_vs_equilibrium"],
        "value_vs_equilibrium_as_first": final["value_vs_equilibrium_as_first"],
        "value_vs_equilibrium_as_second": final["value_vs_equilibrium_as_second"],
        **scorer.reference(),
        "steps": steps,
        "updates": updates,
        "evaluated_at": final["steps"],
        "minutes": elapsed / 60,
        "steps_per_second": (steps - start_steps) / run_seconds if run_seconds > 0 else 0.0,
        "interrupted": interrupted,
        "resumed": resumed,
        "model": None if interrupted else str(model_path),
        "curve": curve(history),
        "args": dataclasses.asdict(args),
    })
    if report is not None:  # a finished run rerun with --score-current: its own report (its speed, ...) and that score
        result = dict(report, **{key: result[key] for key in RESCORED})
    if interrupted:
        return result
    scored_label = ("average policy (mccfr, sampled play, tables)" if cfr is not None else
                    ("average-policy network" if args.average or escher else "learned policy")
                    + f" ({args.method}, sampled " + ("games" if escher else "self-play") + ", torch MLP)")
    write_outputs(run, result, history, args.plot, game_title(game) + f": {args.method}, sampled "
                  + ("games" if escher else "self-play"), f"{scored_label}, exact", "agent steps",
                  scorer.cfr_exploitability, target=target_of(args, game),
                  also={"current_exploitability": ("regret matching" if cfr is not None or escher else "policy network")
                        + " (the current iterate), exact"})
    save(report=result)  # a rerun of the finished run prints it
    return result


def target_of(args: Args, game) -> float:
    """The exploitability a run aims at (the issues' targets), drawn on its curve: for ESCHER 0.02
    with one die each and a wild face, 0.01 without, 0.05 with more dice; for the others 0.05 with
    a wild face, 0.02 without."""
    if args.method == "escher":
        return (0.02 if game.wild else 0.01) if game.dice == (1, 1) else 0.05
    return 0.05 if game.wild else 0.02


def main(argv=None) -> int:
    """Train and print the report as one JSON line (:func:`dice_envs.agents.learn.runs.run_script`)."""
    return run_script("train_liars_dice_play", parse_args, train, argv)


if __name__ == "__main__":
    sys.exit(main())
