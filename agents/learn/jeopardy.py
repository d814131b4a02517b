"""The training loop shared by the jeopardy games (All Yellow Zombie Dice, Pig):
MaskablePPO on a batched single-agent env, scored EXACTLY against optimal play.

It knows no game: a game's room (:mod:`dice_envs.agents.pig.training`,
:mod:`dice_envs.agents.zombie_dice.training`) gives a :class:`GameSpec` (how to build its batched env,
how to freeze the network's policy into plain arrays, how to score a frozen policy
exactly, how the self-play pool plays frozen policies inside the batch) and an options
dataclass derived from :class:`TrainArgs`; :func:`train` does the rest.  Two kinds of
spec exist: :class:`TableSpec` (All Yellow Zombie Dice, Pig: the frozen policy is a
roll-probability table over the solver's grid, played by look-up) and
:class:`NetworkSpec` (Zombie Dice with the official dice, whose dice states make a
table too large: the frozen policy is the actor network's weights as numpy arrays, run on
the observations of a batch, and scored by feeding it every state of the solver's grid as
an observation):

* the agent plays ``--n-envs`` games in one array program (a
  :class:`dice_envs.envs.vector.BatchedSingleAgentEnv` handed to Stable-Baselines3 by
  :class:`dice_envs.envs.sb3_vec_env.SB3VecEnv`), its seat drawn at every game, against
  ``--opponent selfplay`` (default: a pool of its own past policies, one snapshot
  every ``--snapshot-every`` steps (default: ``--eval-every``), the last
  ``--pool-size`` kept; in each game the latest is played half of the time, otherwise
  one drawn uniformly from the pool; each a table look-up or a small numpy network
  inside the batch; a table plays each of its turns in one draw from the exact
  distribution of how the turn ends, unless ``--no-whole-turns``) or a fixed opponent
  the env accepts by name;
* training goes in chunks that end at the multiples of ``--snapshot-every`` and of
  ``--eval-every`` steps (and at ``--steps``); a checkpoint is written after each.  At
  the multiples of ``--eval-every``, at the end of the budget and before the first
  chunk (unless ``--no-eval-start``), the network's greedy decision is taken in every
  state of the solver's grid and evaluated exactly against the optimal policy from both
  seats: the Difference of the Zombie Dice paper, ``2 (w - 1/2)`` for the seat-averaged
  win probability ``w``.  An evaluation is counted in the budget; when it is costly
  (Zombie Dice with the official dice: minutes), ``--eval-every`` above the budget's
  steps with ``--no-eval-start`` and a ``--snapshot-every`` of its own leave one
  evaluation, at the end, after the budget.  Every chunk starts from freshly dealt games
  (the games in progress at a chunk's end are dropped, in a resumed run and an
  uninterrupted one alike), so a checkpoint needs no games in progress;
* the learning rate is constant within a chunk and decays linearly from
  ``--learning-rate`` to ``--lr-floor`` x it over the budget (the larger of the
  fractions of ``--steps`` and ``--minutes`` used so far).

Outputs, in ``--run-dir``:

* ``tb/``: TensorBoard logs (PPO's own, plus ``exact/difference`` and the win rates);
* ``checkpoint/``: written after every chunk (see below); rerunning the same
  command resumes from it;
* ``model.zip`` (+ ``model.json``): the final model, for ``dice-envs evaluate``;
  ``model.json`` says what a loader needs to rebuild the policy without unpickling
  anything: the game's own keys (:meth:`GameSpec.model_info`: ``game``, ``goal``,
  ``observation``, ...), ``net_arch`` (``{"pi": [...], "vf": [...]}``, SB3's
  ``policy_kwargs``), ``activation`` (``"relu"`` or ``"tanh"``), ``steps`` and
  ``difference``;
* ``difference.png`` and ``curve.json``: the exact Difference against training steps.

The last line of stdout is one JSON object: ``difference`` and, for each reference
policy, whether the agent reached its gap (``reached``), with the curve and speed.
``--minutes`` and ``--steps`` are totals over all resumes.

Checkpoint (``checkpoint/``, format 2): ``model-<steps>.zip`` (the SB3 model: policy
and optimiser; on resume only its tensors are read, ``weights_only``),
``pool-<steps>.npz`` (the self-play pool's networks, ``--opponent selfplay`` only) and
``state.json``: ``format``, ``steps``, ``seconds``, ``history`` (the curve),
``result`` (the last exact evaluation), ``args`` (the options), ``rng`` (the states
of Python's, numpy's and torch's generators and of the env's numpy Generator, which
also draws the pool opponents), the names of the two files, and, once the run is
finished, ``report``.  The files are written under new names first and
``state.json`` is switched last by one atomic rename, so a kill at any instant
leaves the previous checkpoint or the new one, whole; files no ``state.json``
names are removed on the next start.  On resume everything is validated: a
``state.json`` that is not such an object, a missing, empty or foreign model or
pool file, or one written by an older version of this script is refused with a
message naming the file and ``remove <dir> to start over`` (exit code 2).

Resuming is exact: a run interrupted after an evaluation and resumed gives the
same curve (same Differences at the same steps, same network) as an uninterrupted
run with the same options and budget, on the same ``--threads``.  Ctrl-C or SIGTERM
stop at once and keep the last checkpoint (the steps since it are redone on
resume, so the result does not depend on where the interruption fell); the report
then says ``"interrupted": true`` and the exit code is 130.  The learning-rate
schedule depends on the budget, so a run extended with a larger ``--steps`` or
``--minutes`` continues on the stretched schedule (it equals an uninterrupted run
of the larger budget only with a constant rate, ``--lr-floor 1``).

On resume these options may differ from the checkpoint's: ``--minutes``,
``--steps`` (a budget already spent just reports), ``--eval-every`` and
``--snapshot-every`` (later evaluations, pool snapshots and fresh deals fall on their
multiples), ``--eval-start``,
``--threads`` (exactness holds for the same count), ``--plot``, ``--quiet`` and
``--run-dir``.  Every other option (the network: ``--net-pi``, ``--net-vf``,
``--activation``; the game: ``--goal``, ``--opponent``, ``--n-envs``; PPO's
hyperparameters and ``--seed``) must equal the checkpoint's, or the run is refused
with the option, both values and what to do (give the checkpoint's value, or
another ``--run-dir``).  A finished run (its budget spent) that is rerun prints
its stored report and exits 0 without training.

Options are checked before anything runs: numbers must be finite (no ``nan`` or
``inf``), counts at least 1, ``--learning-rate`` positive, ``--gamma``,
``--gae-lambda`` and ``--lr-floor`` within ``[0, 1]``, ``--entropy`` >= 0.  If the
network's parameters stop being finite numbers during training (a learning rate
far too large), the run stops with an error and the last checkpoint is kept.
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import json
import re
import shutil
import signal
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

from dice_envs.agents.learn.runs import (
    args_from_dataclass,
    atomic_file,
    atomic_write_text,
    budget_seconds,
    budget_spent,
    check_args,
    check_fields,
    check_resume_args,
    damaged,
    jsonable,
    layer_sizes,
    log,
    note_signal,
    random_states,
    restore_random_states,
    run_script,
)
from dice_envs.core.resources import ResourceLimitError, check_archive, check_resources

ACTIVATIONS = ("relu", "tanh")
#: the action ids of every jeopardy game (dice_envs.games.zombie_dice.rules, dice_envs.games.pig.rules)
HOLD, ROLL = 0, 1
FORMAT = 2  # the checkpoint format written and read (state.json "format")
#: the options that may differ from the checkpoint's on resume (see the module docstring)
CHANGEABLE = ("run_dir", "minutes", "steps", "eval_every", "snapshot_every", "eval_start", "threads", "plot", "quiet")


@dataclass
class TrainArgs:
    """The options every jeopardy training script has (a script's dataclass adds ``goal``
    and may change the defaults)."""

    run_dir: str = "runs/jeopardy"  # outputs and checkpoint
    minutes: float = 30.0  # training wall-clock budget (total over resumes; evaluations included)
    steps: int = 0  # stop after this many agent steps in total (0: no limit)
    opponent: str = "selfplay"  # selfplay (a pool of past policies) or a fixed opponent the env accepts
    pool_size: int = 20  # selfplay: the last this many snapshots are kept
    whole_turns: bool = True  # selfplay: a pool table plays each turn in one exact draw (--no-whole-turns: stepped)
    eval_every: int = 2_000_000  # agent steps between exact evaluations
    snapshot_every: int = 0  # self-play pool snapshots (and checkpoints) every this many steps (0: --eval-every)
    eval_start: bool = True  # evaluate the untrained network too (the curve's first point)
    n_envs: int = 1024  # games in the batched env
    n_steps: int = 32  # steps of each game per rollout (PPO's n_steps)
    minibatch: int = 4096  # PPO's minibatch (SB3's batch_size)
    epochs: int = 4  # PPO's passes over each rollout (SB3's n_epochs)
    learning_rate: float = 3e-4  # Adam's rate at the start
    lr_floor: float = 0.1  # the learning rate decays linearly to lr_floor x its start over the budget
    gamma: float = 1.0  # discount (1: the win probability itself)
    gae_lambda: float = 0.5  # GAE's lambda
    entropy: float = 0.001  # PPO's entropy bonus (SB3's ent_coef)
    net_pi: str = "64,64"  # the policy net is run on the whole grid at every evaluation: keep it small
    net_vf: str = "128,128"  # the value net's hidden layers
    activation: str = "relu"  # relu or tanh (SB3's default; on one CPU thread tanh costs more than the layers)
    seed: int = 0  # seeds torch, numpy and the env
    threads: int = 1  # torch threads (exact resume needs the same count)
    plot: bool = True  # write the curve's figure
    quiet: bool = False  # no progress on stderr


def parse_args(cls, description: str, argv=None, spec=None):
    """Options of the dataclass ``cls`` (a :class:`TrainArgs`), checked: ``ValueError`` names a bad one.
    With ``spec`` (a :class:`GameSpec`, or a function of the options returning one) the game's own
    checks run first (:meth:`GameSpec.check_args`); returns ``(args, spec)`` then."""
    args = args_from_dataclass(cls, description, argv)
    if spec is None:
        return check_options(args)
    spec = spec if isinstance(spec, GameSpec) else spec(args)
    return check_options(args, spec), spec


def check_options(args, spec=None):
    """``args`` checked (``ValueError`` naming a bad option), the game's own checks first
    (:meth:`GameSpec.check_args`, which may fill in defaults); returns ``args``."""
    if spec is not None:
        spec.check_args(args)
    if args.activation not in ACTIVATIONS:
        raise ValueError(f"--activation must be one of {list(ACTIVATIONS)}, got {args.activation!r}")
    args.net_pi = layer_sizes("net_pi", args.net_pi)
    args.net_vf = layer_sizes("net_vf", args.net_vf)
    check_args(args, at_least_one=("n_envs", "n_steps", "minibatch", "epochs", "eval_every", "pool_size",
                                   "threads", "goal"),
               positive=("learning_rate",), non_negative=("entropy", "snapshot_every"),
               ranges={"gamma": (0.0, 1.0), "gae_lambda": (0.0, 1.0), "lr_floor": (0.0, 1.0)})
    if args.minibatch < 2:
        raise ValueError(f"--minibatch must be at least 2 (PPO normalises advantages over a minibatch), "
                         f"got {args.minibatch}")
    if args.n_envs * args.n_steps < 2:
        raise ValueError("--n-envs x --n-steps (the steps of one rollout) must be at least 2")
    table = spec.turn_table(args) if spec is not None and args.opponent == "selfplay" and args.whole_turns else None
    if table is not None:  # each pool policy draws its whole turns from a table of its own
        check_resources(f"--pool-size {args.pool_size:,} self-play policies, each with {table.describe()}",
                        table.memory_bytes() + (args.pool_size - 1) * table.stored_bytes())
    return args


class GameSpec(abc.ABC):
    """What :func:`train` needs to know about one game.

    A *frozen policy* (:meth:`freeze`) is the network's policy detached from torch, as plain
    numpy data: what the exact evaluation scores (greedily) and what the self-play pool
    plays (sampling its roll probabilities)."""

    #: the game's name in reports and ``model.json``
    name: str

    def check_args(self, args) -> None:
        """The game's own option checks (``ValueError`` naming the option); may fill in
        defaults that depend on other options.  Called before the common checks."""

    @abc.abstractmethod
    def make_vector_env(self, args, opponent):
        """The batched single-agent env of ``args.n_envs`` games against ``opponent``
        (a batched opponent or an opponent name)."""

    @abc.abstractmethod
    def freeze(self, policy_net, args):
        """The network's current policy, frozen (see the class docstring)."""

    @abc.abstractmethod
    def evaluate(self, frozen, args) -> dict:
        """Exact score of the greedy policy of ``frozen`` against optimal play:
        ``difference``, ``win_as_first``, ``win_as_second``, ``reached`` and
        ``references`` (reference policy -> its Difference)."""

    @abc.abstractmethod
    def finite(self, frozen) -> bool:
        """Whether every number of ``frozen`` is finite (else training diverged)."""

    @abc.abstractmethod
    def stack(self, frozen: list):
        """The pool's frozen policies, prepared to be played together (:meth:`roll_probability`)."""

    @abc.abstractmethod
    def roll_probability(self, stacked, which: np.ndarray, batch, rows: np.ndarray, args) -> np.ndarray:
        """The probability that the pool's policy ``which[n]`` (an index into ``stacked``)
        rolls in game ``rows[n]`` of ``batch``, for its player to move (only read where
        holding is legal)."""

    def turn_table(self, args):
        """The table of whole turns each pool policy of ``args``'s game builds (unfilled: a
        :class:`dice_envs.agents.evaluate.jeopardy_agents.TurnTable` allocates on first use), for
        the memory check of ``--pool-size``; None where turns are stepped."""
        return None

    def whole_turns(self, frozen, game):
        """``frozen`` playing each of its turns in one draw in ``game``'s batch (a
        :class:`dice_envs.agents.evaluate.jeopardy_agents.BatchedTurnOpponent`, of which the pool uses
        ``play_turns`` only), or None where turns are stepped one decision at a time."""
        return None

    def model_info(self, args) -> dict:
        """What ``model.json`` records other than the network, the steps and the Difference."""
        return {"game": self.name, "goal": args.goal}

    def plot_title(self, args) -> str:
        return f"MaskablePPO on {self.name} ({args.opponent})"


class TableSpec(GameSpec):
    """A game whose frozen policy is a table of roll probabilities over the solver's grid
    (All Yellow Zombie Dice, Pig): computed in one batched pass of the network, played by
    look-up (:meth:`table_index`)."""

    @abc.abstractmethod
    def probability_table(self, policy_net, args) -> np.ndarray:
        """The network's roll probability in every state of the solver's grid."""

    @abc.abstractmethod
    def table_index(self, view: tuple, top: int) -> tuple:
        """Index arrays into a probability table for the batch positions ``view``
        (``batch.two_player_view(rows)``), scores capped at ``top``."""

    def freeze(self, policy_net, args) -> np.ndarray:
        return self.probability_table(policy_net, args)

    def finite(self, frozen) -> bool:
        return bool(np.isfinite(frozen).all())

    def stack(self, frozen: list) -> np.ndarray:
        return np.stack(frozen).astype(np.float32)

    def roll_probability(self, stacked, which, batch, rows, args):
        index = self.table_index(batch.two_player_view(rows), stacked.shape[2] - 1)
        return stacked[(which,) + tuple(index)]


class FrozenActor:
    """The actor of an SB3 ``MlpPolicy`` (features flattened, not shared with anything
    else that changes them) as numpy arrays: ``logits(obs)`` = the action net after the
    policy layers, what ``policy.get_distribution(obs)`` takes its logits from."""

    def __init__(self, policy_net):
        import torch

        layers = [m for m in policy_net.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
        acts = [m for m in policy_net.mlp_extractor.policy_net if not isinstance(m, torch.nn.Linear)]
        if acts and not all(isinstance(m, (torch.nn.ReLU, torch.nn.Tanh)) for m in acts):
            raise ValueError(f"only ReLU and Tanh activations can be frozen, got {acts}")
        self.activation = "relu" if not acts or isinstance(acts[0], torch.nn.ReLU) else "tanh"
        self.weights = [m.weight.detach().cpu().numpy().T.copy() for m in layers + [policy_net.action_net]]
        self.biases = [m.bias.detach().cpu().numpy().copy() for m in layers + [policy_net.action_net]]

    def logits(self, obs: np.ndarray, chunk: int = 1 << 16) -> np.ndarray:
        """``(N, actions)`` float32 logits for ``(N, d)`` observations (in chunks: bounded memory)."""
        obs = np.asarray(obs, np.float32)
        out = np.empty((len(obs), len(self.biases[-1])), np.float32)
        last = len(self.weights) - 1
        for lo in range(0, len(obs), chunk):
            h = obs[lo : lo + chunk]
            for k, (w, b) in enumerate(zip(self.weights, self.biases)):
                h = h @ w
                h += b
                if k < last:
                    if self.activation == "relu":
                        np.maximum(h, 0, out=h)
                    else:
                        np.tanh(h, out=h)
            out[lo : lo + chunk] = h
        return out

    def finite(self) -> bool:
        return all(np.isfinite(a).all() for a in self.weights + self.biases)


class NetworkSpec(GameSpec):
    """A jeopardy game (actions hold and roll) whose frozen policy is the actor network
    itself (:class:`FrozenActor`), run on the observations the env gives the agent
    (:meth:`observe`, the same function on a batch of the solver's states or of the env's
    games): for state spaces a table cannot hold (Zombie Dice with the official dice)."""

    @abc.abstractmethod
    def observe(self, raw: np.ndarray, args) -> np.ndarray:
        """The network's input for ``(N, d)`` AEC observation vectors (the env's
        ``observation`` option applied to them: the identity or a scaling)."""

    def freeze(self, policy_net, args) -> FrozenActor:
        return FrozenActor(policy_net)

    def finite(self, frozen) -> bool:
        return frozen.finite()

    def stack(self, frozen: list) -> list:
        return list(frozen)

    def roll_probability(self, stacked, which, batch, rows, args):
        obs = self.observe(batch.observe_mover(rows), args)
        q = np.empty(len(rows))
        for k in np.unique(which):
            mine = which == k
            logits = stacked[k].logits(obs[mine])
            q[mine] = 1.0 / (1.0 + np.exp(np.clip(logits[:, HOLD] - logits[:, ROLL], -60, 60)))
        return q


def activation_fn(name: str):
    import torch

    return {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[name]


# -- the self-play pool ----------------------------------------------------------------


class Pool:
    """Past policies, frozen by the spec (:meth:`GameSpec.freeze`: tables or small numpy
    networks, fast to play), with their parameters (for checkpoints)."""

    def __init__(self, size: int, spec: GameSpec, args):
        self.size, self.spec, self.args = size, spec, args
        self.snapshots: List[dict] = []  # state_dicts (numpy), for checkpoints
        self.frozen: list = []

    def add(self, policy_net, state_dict: Optional[dict] = None, frozen=None):
        """Add ``policy_net`` (with ``state_dict`` if given; ``frozen``: its frozen policy if known)."""
        if state_dict is not None:
            import torch

            policy_net = copy.deepcopy(policy_net)
            policy_net.load_state_dict({k: torch.as_tensor(v) for k, v in state_dict.items()})
        sd = {k: v.detach().cpu().numpy().copy() for k, v in policy_net.state_dict().items()}
        if frozen is None:
            frozen = self.spec.freeze(policy_net, self.args)
        self.snapshots.append(sd)
        self.frozen.append(frozen)
        del self.snapshots[: -self.size], self.frozen[: -self.size]

    def arrays(self) -> dict:
        return {f"{k}/{name}": v for k, sd in enumerate(self.snapshots) for name, v in sd.items()}

    @staticmethod
    def split(arrays) -> List[dict]:
        out: dict = {}
        for key in arrays.files:
            k, _, name = key.partition("/")
            out.setdefault(int(k), {})[name] = arrays[key]
        return [out[k] for k in sorted(out)]


class PoolOpponent:
    """A batched opponent (:mod:`dice_envs.envs.vector`) drawn from the pool at every game: the
    latest policy half of the time, else one drawn uniformly; each played by the spec
    (:meth:`GameSpec.roll_probability`).  Where the spec can (:meth:`GameSpec.whole_turns`:
    the table specs), a pool policy plays each of its turns in one draw from the exact
    distribution of how the turn ends (``play_turns``), as the env's fixed table opponents do."""

    batched = True

    def __init__(self, pool: Pool, num_envs: int, whole_turns: bool = True):
        self.pool = pool
        self.num_envs = num_envs
        self.which: Any = None  # an int64 array allocated at the first game: the batch checks num_envs first
        self._stacked: Any = None
        self._stacked_from: list = []
        self._turns: Dict[int, Any] = {}  # id(frozen) -> its whole-turn player (or None)
        if whole_turns and type(pool.spec).whole_turns is not GameSpec.whole_turns:  # the spec can
            self.play_turns = self._play_turns

    def start(self, rows: np.ndarray, rng: np.random.Generator) -> None:
        if self.which is None:
            self.which = np.zeros(self.num_envs, np.int64)
        count = len(self.pool.frozen)
        latest = rng.random(len(rows)) < 0.5
        self.which[rows] = np.where(latest, count - 1, rng.integers(count, size=len(rows)))

    def __call__(self, batch, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        spec = self.pool.spec
        if self._stacked_from != [id(t) for t in self.pool.frozen]:  # the pool changed
            self._stacked = spec.stack(self.pool.frozen)
            self._stacked_from = [id(t) for t in self.pool.frozen]
        which = np.minimum(self.which[rows], len(self.pool.frozen) - 1)
        q = np.where(batch.rolled(rows), spec.roll_probability(self._stacked, which, batch, rows, self.pool.args), 1.0)
        return np.where(rng.random(len(rows)) < q, ROLL, HOLD)

    def _play_turns(self, batch, rows: np.ndarray, rng: np.random.Generator):
        """``play_turns`` of :mod:`dice_envs.envs.vector`: in the games at a turn's start, each game's
        pool policy draws how its turn ends from its own table (:class:`TurnTable`, built on first
        use); the turns are then banked together.  Games whose policy has no whole-turn player, or
        whose position its table does not cover, are left to be stepped."""
        frozen = self.pool.frozen
        live = {id(f) for f in frozen}
        for key in [key for key in self._turns if key not in live]:  # policies that left the pool
            del self._turns[key]
        which = np.minimum(self.which[rows], len(frozen) - 1)
        played = ~batch.rolled(rows)
        gained = np.zeros(len(rows), np.int64)
        position: Any = None
        for k in np.unique(which[played]):
            if id(frozen[k]) not in self._turns:
                self._turns[id(frozen[k])] = self.pool.spec.whole_turns(frozen[k], batch.game)
            player = self._turns[id(frozen[k])]
            mine = played & (which == k)
            if player is None:
                played &= ~mine
                continue
            if position is None:  # the same for every pool policy: the game's table coordinates
                position = player.position(batch, rows)
                played &= player.table.covers(position)
                mine &= played
            gained[mine] = player.table.draw(tuple(x[mine] for x in position), rng)
        if not played.any():
            return played, np.zeros((0, batch.num_players), np.float32)
        return played, batch.bank(gained[played], where=rows[played])


# -- plot ------------------------------------------------------------------------------------


def plot_curve(history: list, path: Path, title: str, references: Dict[str, float]) -> None:
    """The exact Difference against training steps, with a dashed line per reference policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    steps = [h["steps"] for h in history]
    ax.plot(steps, [h["difference"] for h in history], "o-", ms=3, label="learned policy (greedy), exact")
    colors = ["tab:red", "tab:orange", "tab:green", "tab:purple", "tab:brown"]
    for (name, gap), color in zip(references.items(), colors):
        ax.axhline(gap, color=color, ls="--", lw=1, label=f"{name} ({gap:+.4f})")
    ax.axhline(0, color="black", lw=0.8)
    lows = [h["difference"] for h in history[len(history) // 4 :]] + list(references.values())
    ax.set_ylim(max(-0.15, min(min(lows), -0.03) - 0.005), 0.003)
    ax.set_xlabel("training steps (agent decisions)")
    ax.set_ylabel("Difference to optimal play")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    with atomic_file(path) as tmp:
        fig.savefig(tmp, dpi=120)
    plt.close(fig)


# -- checkpoints ------------------------------------------------------------------------------


def checkpoint_names(steps: int, selfplay: bool) -> dict:
    """The files of the checkpoint at ``steps`` (other than ``state.json``)."""
    return {"model": f"model-{steps:010d}.zip", "pool": f"pool-{steps:010d}.npz" if selfplay else None}


def read_state(ckpt: Path, args) -> dict:
    """``ckpt/state.json``, validated (``ValueError`` naming the file otherwise) and
    checked against the options (``ValueError`` naming the option)."""
    path = ckpt / "state.json"
    try:
        state = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise damaged(path, f"not JSON: {err}", ckpt) from None
    if isinstance(state, dict) and "model" in state and "format" not in state:
        raise ValueError(f"checkpoint {path} was written by an older version of this script, without the random "
                         f"states an exact resume needs; remove {ckpt} to start over (curve.json and model.zip "
                         f"next to it are not needed for that), or give another --run-dir")
    try:
        check_fields(state, "state.json", format=int, steps=int, seconds=float, history=list, model=str,
                     pool=(str, None), args=dict, rng=dict, result=dict)
        if state["format"] != FORMAT:
            raise ValueError(f"format {state['format']}, this script reads format {FORMAT}")
        if state["seconds"] < 0:
            raise ValueError(f"'seconds' is negative: {state['seconds']}")
        if not state["history"] and (state["result"] or state["args"].get("eval_start", True)):
            raise ValueError("the history is empty (it may be only with --no-eval-start, and no result then)")
        previous = -1
        for entry in state["history"]:
            check_fields(entry, "a history entry", steps=int, minutes=float, difference=float, win_as_first=float,
                         win_as_second=float)
            if entry["steps"] <= previous:
                raise ValueError("the history's steps do not increase")
            previous = entry["steps"]
        if previous > state["steps"]:
            raise ValueError(f"the history ends at {previous} steps, after the checkpoint's {state['steps']}")
        if state["history"]:
            check_fields(state["result"], "'result'", difference=float, win_as_first=float, win_as_second=float,
                         reached=(dict, None), references=(dict, None))
        names = checkpoint_names(state["steps"], state["pool"] is not None)
        if state["model"] != names["model"] or state["pool"] != names["pool"]:
            raise ValueError(f"it names {state['model']!r} and {state['pool']!r}, expected {names['model']!r} and "
                             f"{names['pool']!r}")
        if "report" in state:
            check_fields(state["report"], "'report'", steps=int)
            if state["report"]["steps"] != state["steps"]:
                raise ValueError("the stored report is not for the checkpoint's steps")
    except ValueError as err:
        raise damaged(path, str(err), ckpt) from None
    check_resume_args(state["args"], args, CHANGEABLE, ckpt)
    if (state["pool"] is not None) != (args.opponent == "selfplay"):
        raise damaged(path, "a pool file goes with --opponent selfplay only", ckpt)
    return state


def remove_stray_files(ckpt: Path, state: Optional[dict]) -> None:
    """Remove the checkpoint files ``state`` does not name (older checkpoints, files of a
    checkpoint whose ``state.json`` was never switched, temporary files)."""
    keep = {state["model"], state["pool"]} if state else set()
    for path in ckpt.iterdir():
        ours = re.fullmatch(r"(model-\d+(\.tmp)?\.zip|pool-\d+(\.tmp)?\.npz|state\.tmp\.json)", path.name)
        if ours and path.name not in keep and path.is_file():
            path.unlink()


def load_model_parameters(model, path: Path, ckpt: Path) -> None:
    """Put the policy and optimiser of the model zip ``path`` into ``model`` (tensors only:
    SB3 reads them with ``torch.load(weights_only=True)``; the zip's pickled data is not read; the
    sizes it declares are checked first, :func:`dice_envs.core.resources.check_archive`)."""
    if not path.is_file():
        raise damaged(path, "the model file it names is missing", ckpt)
    if not zipfile.is_zipfile(path):
        raise damaged(path, "the model file is empty or not a zip file", ckpt)
    try:
        check_archive(f"{path}", str(path))  # its declared sizes (and its .pth files'), before SB3 inflates them
    except ResourceLimitError:
        raise
    except ValueError as err:
        raise damaged(path, str(err), ckpt) from None
    try:
        model.set_parameters(str(path), exact_match=True, device="cpu")
    except Exception as err:  # a zip of something else: missing or foreign tensors, wrong shapes
        raise damaged(path, f"not this run's model: {type(err).__name__}: {str(err)[:200]}", ckpt) from None
    if not parameters_finite(model.policy):
        raise damaged(path, "the model's parameters are not all finite numbers", ckpt)


def load_pool(pool: Pool, policy_net, path: Path, ckpt: Path) -> None:
    """Fill ``pool`` from the npz ``path`` (validated: every snapshot must fit ``policy_net``)."""
    import torch

    if not path.is_file():
        raise damaged(path, "the pool file it names is missing", ckpt)
    try:
        check_archive(f"{path}", str(path))  # its declared sizes, before numpy inflates it
    except ResourceLimitError:
        raise
    except ValueError as err:
        raise damaged(path, str(err), ckpt) from None
    try:
        with np.load(path, allow_pickle=False) as arrays:
            snapshots = Pool.split(arrays)
        if not 1 <= len(snapshots) <= pool.size:
            raise ValueError(f"{len(snapshots)} snapshots, expected 1 to --pool-size {pool.size}")
        probe = copy.deepcopy(policy_net)
        for sd in snapshots:
            if not all(np.isfinite(v).all() for v in sd.values()):
                raise ValueError("a snapshot has non-finite parameters")
            probe.load_state_dict({k: torch.as_tensor(v) for k, v in sd.items()})
    except Exception as err:  # a damaged zip, foreign arrays, wrong names or shapes
        raise damaged(path, f"not this run's self-play pool: {type(err).__name__}: {str(err)[:200]}", ckpt) from None
    for sd in snapshots:
        pool.add(policy_net, state_dict=sd)


def parameters_finite(policy_net) -> bool:
    import torch

    return all(bool(torch.isfinite(p).all()) for p in policy_net.parameters())


# -- training -------------------------------------------------------------------------------


def build_env(spec: GameSpec, args, pool: Optional[Pool]):
    """The game's batched env as an SB3 ``VecEnv`` (opponents stepped inside the batch)."""
    from dice_envs.envs.sb3_vec_env import SB3VecEnv

    opponent = (PoolOpponent(pool, args.n_envs, args.whole_turns)  # type: ignore[arg-type]  # selfplay has a pool
                if args.opponent == "selfplay" else args.opponent)
    return SB3VecEnv(spec.make_vector_env(args, opponent))


def env_generator(env) -> np.random.Generator:
    """The numpy Generator of the batched env (``SB3VecEnv.env``): its dice, the seats
    and the pool opponents' draws."""
    return env.env._rng


def network_info(args) -> dict:
    """The network in ``model.json``: SB3's ``net_arch`` and the activation's name."""
    pi, vf = ([int(x) for x in text.split(",") if x] for text in (args.net_pi, args.net_vf))
    return {"net_arch": {"pi": pi, "vf": vf}, "activation": args.activation}


#: Numbers a rollout buffer holds per step besides the observation and the action mask: the action,
#: reward, return, episode start, value, log-probability and advantage (SB3's ``RolloutBuffer``).
ROLLOUT_SCALARS = 7


def rollout_bytes(rows: int, inputs: int, actions: int) -> int:
    """The memory of MaskablePPO's rollout buffer of ``rows`` steps: float32 observations, action
    masks and :data:`ROLLOUT_SCALARS` numbers a step, twice (``get`` flattens a copy of each array)."""
    return 2 * 4 * rows * (inputs + actions + ROLLOUT_SCALARS)


def new_model(args, env, run: Path):
    """A fresh MaskablePPO for the options (the global generators seeded with ``--seed`` first)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import set_random_seed

    from dice_envs.core.resources import check_network

    set_random_seed(args.seed)
    net = network_info(args)
    inputs, actions = int(np.prod(env.observation_space.shape)), int(env.action_space.n)
    for option, layers in (("--net-pi", net["net_arch"]["pi"]), ("--net-vf", net["net_arch"]["vf"])):
        check_network(f"{option} {','.join(map(str, layers))}", [inputs, *layers, actions],
                      rows=max(args.minibatch, args.n_envs))
    rows = args.n_steps * args.n_envs
    check_resources(f"--n-steps {args.n_steps:,} x --n-envs {args.n_envs:,} (a rollout buffer of {rows:,} steps of "
                    f"{inputs} observed numbers and a mask of {actions} actions)", rollout_bytes(rows, inputs, actions))
    return MaskablePPO(
        "MlpPolicy", env, learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.minibatch,
        n_epochs=args.epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, ent_coef=args.entropy,
        policy_kwargs={"net_arch": net["net_arch"], "activation_fn": activation_fn(net["activation"])},
        tensorboard_log=str(run / "tb"), device="cpu", verbose=0,
    )


def make_report(spec: GameSpec, args, state: dict, run: Path, resumed: bool, interrupted: bool) -> dict:
    """The JSON report of the checkpoint ``state`` (its figures are those of the last
    evaluation, at ``evaluated_at`` steps; ``None`` when an interrupted run had none yet)."""
    result, history = state["result"], state["history"]
    best = max(history, key=lambda h: h["difference"]) if history else None
    return {
        "game": spec.name,
        "opponent": args.opponent,
        "difference": result.get("difference"),
        "win_as_first": result.get("win_as_first"),
        "win_as_second": result.get("win_as_second"),
        "evaluated_at": history[-1]["steps"] if history else None,
        "reached": result.get("reached"),
        "references": result.get("references"),
        "steps": state["steps"],
        "minutes": state["seconds"] / 60,
        "steps_per_second": state["steps"] / state["seconds"] if state["seconds"] else None,
        "best": {"steps": best["steps"], "difference": best["difference"]} if best else None,
        "interrupted": interrupted,
        "resumed": resumed,
        "run_dir": str(run),
        "model": None if interrupted else str(run / "model.zip"),
        "plot": str(run / "difference.png") if args.plot else None,
        "history": history,
    }


def train(spec: GameSpec, args) -> dict:
    """Train (or resume, or report a finished run) as the module docstring says; returns the report."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.utils import configure_logger

    torch.set_num_threads(args.threads)
    run = Path(args.run_dir)
    ckpt = run / "checkpoint"
    state_path = ckpt / "state.json"
    resumed = state_path.exists()
    if resumed:
        state = read_state(ckpt, args)
        if budget_spent(args, state["steps"], state["seconds"]) and "report" in state and (run / "model.zip").is_file():
            log(args, f"{run} is finished ({state['steps']:,} steps): its report (a larger --steps or --minutes "
                      f"trains on)")
            return state["report"]
    elif (run / "model.zip").exists():
        raise ValueError(f"{run} has a model.zip but no checkpoint ({state_path}); remove {run} to start over, "
                         f"or give another --run-dir")
    ckpt.mkdir(parents=True, exist_ok=True)
    remove_stray_files(ckpt, state if resumed else None)

    pool = Pool(args.pool_size, spec, args) if args.opponent == "selfplay" else None
    env = build_env(spec, args, pool)
    model = new_model(args, env, run)
    if resumed:
        load_model_parameters(model, ckpt / state["model"], ckpt)
        if pool is not None:
            load_pool(pool, model.policy, ckpt / state["pool"], ckpt)
        model.num_timesteps = state["steps"]
        try:
            restore_random_states(state["rng"], {"env": env_generator(env)})
        except ValueError as err:
            raise damaged(state_path, str(err), ckpt) from None
        log(args, f"resumed from {state['steps']:,} steps ({state['seconds'] / 60:.1f} min)")
    else:
        state = {"format": FORMAT, "steps": 0, "seconds": 0.0, "history": [], "result": {}}
        if pool is not None:
            pool.add(model.policy)
        env.env.reset(seed=args.seed)  # seeds the env's Generator (the games dealt here are dropped)
    # One TensorBoard run for the whole training, continued on resume.
    model.set_logger(configure_logger(0, str(run / "tb"), "MaskablePPO", reset_num_timesteps=not resumed))
    budget = budget_seconds(args)

    class TimeBudget(BaseCallback):
        """Stops learn() when the wall-clock budget is spent (the step budget is the chunk size)."""

        def __init__(self, started: float, seconds_before: float):
            super().__init__()
            self.started, self.seconds_before = started, seconds_before

        def _on_step(self) -> bool:
            return time.perf_counter() - self.started + self.seconds_before < budget

    def save_checkpoint():
        steps = int(model.num_timesteps)
        names = checkpoint_names(steps, pool is not None)
        with atomic_file(ckpt / names["model"]) as tmp:
            model.save(tmp)
        if pool is not None:
            with atomic_file(ckpt / names["pool"]) as tmp:
                np.savez(tmp, **pool.arrays())
        state.update(names, steps=steps, args=dataclasses.asdict(args), format=FORMAT,
                     rng=random_states({"env": env_generator(env)}))
        state.pop("report", None)
        atomic_write_text(state_path, json.dumps(state, indent=1))  # the switch: the checkpoint is this one now
        remove_stray_files(ckpt, state)

    def evaluate_now(frozen=None):
        t0 = time.perf_counter()
        if frozen is None:
            frozen = spec.freeze(model.policy, args)
        result = spec.evaluate(frozen, args)
        steps = int(model.num_timesteps)
        state["result"] = jsonable({key: result.get(key) for key in
                                    ("difference", "win_as_first", "win_as_second", "reached", "references")})
        entry = {"steps": steps, "minutes": state["seconds"] / 60, **{key: state["result"][key] for key in
                                                                       ("difference", "win_as_first", "win_as_second")}}
        if state["history"] and state["history"][-1]["steps"] == steps:
            state["history"][-1] = entry
        else:
            state["history"].append(entry)
        for key in ("difference", "win_as_first", "win_as_second"):
            model.logger.record(f"exact/{key}", result[key])
        model.logger.dump(steps)
        log(args, f"steps {steps:>9,}  {entry['minutes']:5.1f} min  exact Difference {entry['difference']:+.5f}"
                  f"  (evaluated in {time.perf_counter() - t0:.1f} s)")
        return frozen

    def plot():
        if args.plot and state["history"]:
            plot_curve(state["history"], run / "difference.png", spec.plot_title(args),
                       state["result"].get("references") or {})

    def on_sigterm(signum, frame):
        note_signal(signum)  # passed on once the run has saved (run_script)
        raise KeyboardInterrupt

    committed: Any = copy.deepcopy(state) if resumed else None  # the state of the checkpoint on disk
    interrupted = False
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        if not resumed:
            started = time.perf_counter()
            if args.eval_start:
                evaluate_now()
            state["seconds"] = time.perf_counter() - started
            save_checkpoint()
            committed = copy.deepcopy(state)
            plot()
        snapshot_every = args.snapshot_every or args.eval_every
        while not budget_spent(args, int(model.num_timesteps), state["seconds"]):
            steps = int(model.num_timesteps)
            target = min((steps // every + 1) * every for every in (args.eval_every, snapshot_every))
            if args.steps > 0:
                target = min(target, args.steps)
            fraction = min(1.0, max(state["seconds"] / budget, steps / args.steps if args.steps > 0 else 0.0))
            lr = args.learning_rate * (1 - (1 - args.lr_floor) * fraction)
            model.learning_rate = lr
            model.lr_schedule = lambda _progress, lr=lr: lr
            model._last_obs = None  # learn() starts with env.reset(): fresh games (see the module docstring)
            started = time.perf_counter()
            diverged = False
            try:
                model.learn(target - steps, reset_num_timesteps=False, tb_log_name="MaskablePPO",
                            callback=TimeBudget(started, state["seconds"]) if budget < float("inf") else None,
                            progress_bar=False)
            except ValueError as err:  # torch's distributions refuse non-finite logits
                if parameters_finite(model.policy) and "invalid values" not in str(err):
                    raise
                diverged = True
            finally:
                state["seconds"] += time.perf_counter() - started
            started = time.perf_counter()
            frozen = None
            if not diverged and parameters_finite(model.policy):
                frozen = spec.freeze(model.policy, args)
            if frozen is None or not spec.finite(frozen):
                raise ValueError(f"training diverged after {steps:,} steps: the network's outputs are no longer "
                                 f"finite numbers (--learning-rate {args.learning_rate} too large?); the checkpoint "
                                 f"at {committed['steps']:,} steps is kept; try a smaller rate with another --run-dir")
            now = int(model.num_timesteps)
            if now // args.eval_every > steps // args.eval_every or budget_spent(args, now, state["seconds"]):
                evaluate_now(frozen)
            if pool is not None and (now // snapshot_every > steps // snapshot_every
                                     or budget_spent(args, now, state["seconds"])):
                pool.add(model.policy, frozen=frozen)
            state["seconds"] += time.perf_counter() - started
            save_checkpoint()
            committed = copy.deepcopy(state)
            plot()
        if not state["history"] or state["history"][-1]["steps"] != int(model.num_timesteps):
            # the budget was spent before the end was evaluated (a run resumed after a kill in its last chunk)
            started = time.perf_counter()
            evaluate_now()
            state["seconds"] += time.perf_counter() - started
            save_checkpoint()
            committed = copy.deepcopy(state)
    except KeyboardInterrupt:
        if committed is None:
            raise
        interrupted = True
    finally:
        signal.signal(signal.SIGTERM, previous)
        env.close()
    if interrupted:  # said even with --quiet
        print(f"interrupted: the checkpoint at {committed['steps']:,} steps is kept; rerun the same command "
              f"to resume from it", file=sys.stderr)
        return make_report(spec, args, committed, run, resumed, interrupted=True)
    # Finished: the final model is the last checkpoint's.
    with atomic_file(run / "model.zip") as tmp:
        shutil.copyfile(ckpt / state["model"], tmp)
    atomic_write_text(run / "model.json", json.dumps(
        {**spec.model_info(args), **network_info(args), "steps": state["steps"],
         "difference": state["result"]["difference"]}, indent=1))
    plot()
    report = make_report(spec, args, state, run, resumed, interrupted=False)
    atomic_write_text(run / "curve.json", json.dumps(report, indent=1))
    state["report"] = report  # a rerun of the finished run prints it
    atomic_write_text(state_path, json.dumps(state, indent=1))
    return report


def main(spec, args_class, description: str, argv=None) -> int:
    """Parse the options, train, print the report as one JSON line; exit code 2 for bad
    options, a damaged checkpoint or a diverged run (the message on stderr), 130 when
    interrupted (:func:`dice_envs.agents.learn.runs.run_script`).  ``spec``: a
    :class:`GameSpec`, or a function of the parsed options returning one (``train_ayzd.py --variant``)."""
    chosen = {}

    def parse(argv):
        args, chosen["spec"] = parse_args(args_class, description, argv, spec)
        return args

    return run_script(Path(sys.argv[0]).stem or "train", parse, lambda args: train(chosen["spec"], args), argv)
