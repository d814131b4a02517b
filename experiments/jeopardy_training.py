"""The training loop shared by the jeopardy games (All Yellow Zombie Dice, Pig):
MaskablePPO on a batched single-agent env, scored EXACTLY against optimal play.

A game script (``train_ayzd.py``, ``train_pig.py``) gives a :class:`GameSpec` (how to
build its batched env, how to turn a network into a roll-probability table over the
solver's grid, how to score such a table exactly, how to index it from a batch) and
an options dataclass derived from :class:`TrainArgs`; :func:`train` does the rest:

* the agent plays ``--n-envs`` games in one array program (a
  :class:`dice_envs.vector.BatchedSingleAgentEnv` handed to Stable-Baselines3 by
  :class:`dice_envs.sb3_vec_env.SB3VecEnv`), its seat drawn at every game, against
  ``--opponent selfplay`` (default: a pool of its own past policies, one snapshot
  per evaluation, the last ``--pool-size`` kept; in each game the latest is played
  half of the time, otherwise one drawn uniformly from the pool; each a table
  look-up inside the batch) or a fixed opponent the env accepts by name;
* every ``--eval-every`` steps, and at the end, the network's greedy decision is
  taken in every state of the solver's grid (one batch) and evaluated exactly
  against the optimal policy from both seats: the Difference of the Zombie Dice
  paper, ``2 (w - 1/2)`` for the seat-averaged win probability ``w``.

Outputs, in ``--run-dir``:

* ``tb/``: TensorBoard logs (PPO's own, plus ``exact/difference`` and the win rates);
* ``checkpoint/``: the model, the self-play pool and ``state.json`` (steps, time,
  the curve), each written atomically after every evaluation; rerunning the same
  command resumes from it.  Ctrl-C or SIGTERM save a checkpoint first, so an
  interrupted run loses nothing (a hard kill loses at most the steps since the last
  evaluation, never the checkpoint);
* ``model.zip`` (+ ``model.json``): the final model, for ``dice-envs evaluate``;
* ``difference.png`` and ``curve.json``: the exact Difference against training steps.

The last line of stdout is one JSON object: ``difference`` and, for each reference
policy, whether the agent reached its gap (``reached``), with the curve and speed.
``--minutes`` and ``--steps`` are totals over all resumes.
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import json
import os
import signal
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from experiments.training_common import args_from_dataclass, atomic_write_text, budget_seconds, check_args, log

ACTIVATIONS = ("relu", "tanh")
HOLD, ROLL = 0, 1  # the action ids of every jeopardy game (dice_envs.zombie_dice, dice_envs.pig)


@dataclass
class TrainArgs:
    """The options every jeopardy training script has (a script's dataclass adds ``goal``
    and may change the defaults)."""

    run_dir: str = "runs/jeopardy"
    minutes: float = 30.0  # training wall-clock budget (total over resumes; evaluations included)
    steps: int = 0  # stop after this many agent steps in total (0: no limit)
    opponent: str = "selfplay"
    pool_size: int = 20
    eval_every: int = 2_000_000
    n_envs: int = 1024  # games in the batched env
    n_steps: int = 32
    batch_size: int = 4096
    n_epochs: int = 4
    learning_rate: float = 3e-4
    lr_floor: float = 0.1  # the learning rate decays linearly to lr_floor x its start over the budget
    gamma: float = 1.0
    gae_lambda: float = 0.5
    ent_coef: float = 0.001
    net_pi: str = "64,64"  # the policy net is run on the whole grid at every evaluation: keep it small
    net_vf: str = "128,128"
    activation: str = "relu"  # relu or tanh (SB3's default; on one CPU thread tanh costs more than the layers)
    seed: int = 0
    threads: int = 1
    plot: bool = True
    quiet: bool = False


def parse_args(cls, description: str, argv=None):
    """Options of the dataclass ``cls`` (a :class:`TrainArgs`), checked: ``ValueError`` names a bad one."""
    args = args_from_dataclass(cls, description, argv)
    if args.activation not in ACTIVATIONS:
        raise ValueError(f"--activation must be one of {list(ACTIVATIONS)}, got {args.activation!r}")
    check_args(args, at_least_one=("n_envs", "n_steps", "batch_size", "n_epochs", "eval_every", "pool_size",
                                   "threads", "goal"))
    return args


class GameSpec(abc.ABC):
    """What :func:`train` needs to know about one game."""

    #: the game's name in reports and ``model.json``
    name: str
    #: the keys of the options a checkpoint must agree with to be resumed
    resume_keys: Tuple[str, ...] = ("opponent", "goal")

    @abc.abstractmethod
    def make_vector_env(self, args, opponent):
        """The batched single-agent env of ``args.n_envs`` games against ``opponent``
        (a batched opponent or an opponent name)."""

    @abc.abstractmethod
    def probability_table(self, policy_net, args) -> np.ndarray:
        """The network's roll probability in every state of the solver's grid."""

    @abc.abstractmethod
    def evaluate(self, table: np.ndarray, args) -> dict:
        """Exact score of the greedy policy of ``table`` against optimal play:
        ``difference``, ``win_as_first``, ``win_as_second``, ``reached`` and
        ``references`` (reference policy -> its Difference)."""

    @abc.abstractmethod
    def table_index(self, view: tuple, top: int) -> tuple:
        """Index arrays into a probability table for the batch positions ``view``
        (``batch.two_player_view(rows)``), scores capped at ``top``."""

    def model_info(self, args) -> dict:
        """What ``model.json`` records besides the steps and the Difference."""
        return {"game": self.name, "goal": args.goal}

    def plot_title(self, args) -> str:
        return f"MaskablePPO on {self.name} ({args.opponent})"


def activation_fn(name: str):
    import torch

    return {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[name]


# -- atomic files ---------------------------------------------------------------------


def atomic_save_model(model, path: Path) -> None:
    tmp = path.with_name(path.stem + ".tmp.zip")
    model.save(tmp)
    os.replace(tmp, path)


def atomic_save_npz(path: Path, arrays: dict) -> None:
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, path)


# -- the self-play pool ----------------------------------------------------------------


class Pool:
    """Past policies as roll-probability tables over the solver's grid (fast to play)."""

    def __init__(self, size: int, spec: GameSpec, args):
        self.size, self.spec, self.args = size, spec, args
        self.snapshots: List[dict] = []  # state_dicts (numpy), for checkpoints
        self.tables: List[np.ndarray] = []

    def add(self, policy_net, state_dict: Optional[dict] = None, table: Optional[np.ndarray] = None):
        """Add ``policy_net`` (with ``state_dict`` if given; ``table``: its probability table if known)."""
        if state_dict is not None:
            import torch

            policy_net = copy.deepcopy(policy_net)
            policy_net.load_state_dict({k: torch.as_tensor(v) for k, v in state_dict.items()})
        sd = {k: v.detach().cpu().numpy().copy() for k, v in policy_net.state_dict().items()}
        if table is None:
            table = self.spec.probability_table(policy_net, self.args)
        self.snapshots.append(sd)
        self.tables.append(table.astype(np.float32))
        del self.snapshots[: -self.size], self.tables[: -self.size]

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
    """A batched opponent (:mod:`dice_envs.vector`) drawn from the pool at every game: the
    latest policy half of the time, else one drawn uniformly; each a table look-up."""

    batched = True

    def __init__(self, pool: Pool, num_envs: int):
        self.pool = pool
        self.which = np.zeros(num_envs, np.int64)
        self._stacked = None
        self._stacked_from: list = []

    def start(self, rows: np.ndarray, rng: np.random.Generator) -> None:
        count = len(self.pool.tables)
        latest = rng.random(len(rows)) < 0.5
        self.which[rows] = np.where(latest, count - 1, rng.integers(count, size=len(rows)))

    def __call__(self, batch, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self._stacked_from != [id(t) for t in self.pool.tables]:  # the pool changed
            self._stacked = np.stack(self.pool.tables)
            self._stacked_from = [id(t) for t in self.pool.tables]
        tables = self._stacked
        which = np.minimum(self.which[rows], len(tables) - 1)
        index = self.pool.spec.table_index(batch.two_player_view(rows), tables.shape[2] - 1)
        q = np.where(batch.rolled(rows), tables[(which,) + tuple(index)], 1.0)
        return np.where(rng.random(len(rows)) < q, ROLL, HOLD)


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
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.replace(tmp, path)


# -- training -------------------------------------------------------------------------------


def build_env(spec: GameSpec, args, pool: Optional[Pool], seed: int):
    """The game's batched env as an SB3 ``VecEnv`` (opponents stepped inside the batch)."""
    from dice_envs.sb3_vec_env import SB3VecEnv

    opponent = PoolOpponent(pool, args.n_envs) if args.opponent == "selfplay" else args.opponent
    env = SB3VecEnv(spec.make_vector_env(args, opponent))
    env.seed(seed)
    return env


def train(spec: GameSpec, args) -> dict:
    """Train (or resume) as the module docstring says; returns the report."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(args.threads)
    run = Path(args.run_dir)
    ckpt = run / "checkpoint"
    ckpt.mkdir(parents=True, exist_ok=True)
    state_path = ckpt / "state.json"
    pool = Pool(args.pool_size, spec, args) if args.opponent == "selfplay" else None

    state = {"steps": 0, "seconds": 0.0, "history": [], "model": None, "pool": None, "args": dataclasses.asdict(args)}
    resumed = state_path.exists()
    if resumed:
        try:
            state = json.loads(state_path.read_text())
        except (OSError, ValueError) as err:
            raise ValueError(f"checkpoint {state_path} is damaged ({err}); remove {ckpt} to start over") from None
        saved = state["args"]
        for key in spec.resume_keys:
            if saved[key] != getattr(args, key):
                raise ValueError(f"--{key} {getattr(args, key)!r} differs from the checkpoint's {saved[key]!r}; "
                                 f"use another --run-dir")
    env = build_env(spec, args, pool, seed=args.seed + int(state["steps"]))
    if resumed:
        try:
            model = MaskablePPO.load(ckpt / state["model"], env=env, device="cpu", tensorboard_log=str(run / "tb"))
            if pool is not None:
                with np.load(ckpt / state["pool"]) as arrays:
                    for sd in Pool.split(arrays):
                        pool.add(model.policy, state_dict=sd)
        except (OSError, KeyError, ValueError, RuntimeError, zipfile.BadZipFile) as err:
            raise ValueError(f"checkpoint in {ckpt} is damaged ({err}); remove it to start over") from None
        log(args, f"resumed from {state['steps']} steps ({state['seconds'] / 60:.1f} min)")
    else:
        pi, vf = ([int(x) for x in spec_.split(",") if x] for spec_ in (args.net_pi, args.net_vf))
        model = MaskablePPO(
            "MlpPolicy", env, learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
            n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, ent_coef=args.ent_coef,
            policy_kwargs={"net_arch": {"pi": pi, "vf": vf}, "activation_fn": activation_fn(args.activation)},
            tensorboard_log=str(run / "tb"),
            seed=args.seed, device="cpu", verbose=0,
        )
        if pool is not None:
            pool.add(model.policy)
    budget = budget_seconds(args)
    max_steps = args.steps if args.steps > 0 else None

    class Budget(BaseCallback):
        """Stops learn() when the time or step budget is spent."""

        def __init__(self, started: float, seconds_before: float):
            super().__init__()
            self.started, self.seconds_before = started, seconds_before

        def _on_step(self) -> bool:
            if time.perf_counter() - self.started + self.seconds_before >= budget:
                return False
            return max_steps is None or self.num_timesteps < max_steps

    def save_checkpoint():
        steps = int(model.num_timesteps)
        names = {"model": f"model-{steps:010d}.zip", "pool": f"pool-{steps:010d}.npz" if pool else None}
        atomic_save_model(model, ckpt / names["model"])
        if pool is not None:
            atomic_save_npz(ckpt / names["pool"], pool.arrays())
        state.update(names, steps=steps)
        atomic_write_text(state_path, json.dumps(state, indent=1))
        keep = set(n for n in names.values() if n)
        for old in ckpt.glob("*-*.*"):
            if old.name not in keep and not old.name.endswith(".tmp.zip"):
                old.unlink(missing_ok=True)

    def evaluate_now():
        t0 = time.perf_counter()
        table = spec.probability_table(model.policy, args)
        result = spec.evaluate(table, args)
        result["table"] = table
        entry = {"steps": int(model.num_timesteps), "minutes": state["seconds"] / 60,
                 "difference": result["difference"], "win_as_first": result["win_as_first"],
                 "win_as_second": result["win_as_second"]}
        if not state["history"] or state["history"][-1]["steps"] != entry["steps"]:
            state["history"].append(entry)
        for key in ("difference", "win_as_first", "win_as_second"):
            model.logger.record(f"exact/{key}", result[key])
        model.logger.dump(entry["steps"])
        log(args, f"steps {entry['steps']:>9,}  {entry['minutes']:5.1f} min  exact Difference {entry['difference']:+.5f}"
                  f"  (evaluated in {time.perf_counter() - t0:.1f} s)")
        return result

    def plot(result):
        if args.plot:
            plot_curve(state["history"], run / "difference.png", spec.plot_title(args), result.get("references", {}))

    interrupted = False

    def on_sigterm(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    result = None
    try:
        if not resumed:
            started = time.perf_counter()
            model._setup_learn(0, reset_num_timesteps=True, tb_log_name="MaskablePPO")  # logger for step 0
            result = evaluate_now()
            state["seconds"] = time.perf_counter() - started
        while True:
            if state["seconds"] >= budget or (max_steps is not None and model.num_timesteps >= max_steps):
                break
            chunk = args.eval_every if max_steps is None else min(args.eval_every, max_steps - model.num_timesteps)
            fraction = min(1.0, max(state["seconds"] / budget if budget < float("inf") else 0.0,
                                    model.num_timesteps / max_steps if max_steps else 0.0))
            lr = args.learning_rate * (1 - (1 - args.lr_floor) * fraction)
            model.learning_rate = lr
            model.lr_schedule = lambda _progress, lr=lr: lr
            started = time.perf_counter()
            try:
                model.learn(chunk, reset_num_timesteps=False, tb_log_name="MaskablePPO",
                            callback=Budget(started, state["seconds"]), progress_bar=False)
            finally:
                state["seconds"] += time.perf_counter() - started
            started = time.perf_counter()
            result = evaluate_now()
            if pool is not None:
                pool.add(model.policy, table=result["table"])
            save_checkpoint()
            plot(result)
            state["seconds"] += time.perf_counter() - started
    except KeyboardInterrupt:
        interrupted = True
        log(args, "interrupted: saving a checkpoint")
        save_checkpoint()
    finally:
        signal.signal(signal.SIGTERM, previous)
    if result is None or state["history"][-1]["steps"] != model.num_timesteps:
        result = evaluate_now()
        save_checkpoint()
    atomic_save_model(model, run / "model.zip")
    atomic_write_text(run / "model.json", json.dumps(
        {**spec.model_info(args), "steps": int(model.num_timesteps), "difference": result["difference"]}, indent=1))
    plot(result)
    env.close()
    train_steps = int(model.num_timesteps)
    best = max(state["history"], key=lambda h: h["difference"])
    report = {
        "game": spec.name,
        "opponent": args.opponent,
        "difference": result["difference"],
        "win_as_first": result["win_as_first"],
        "win_as_second": result["win_as_second"],
        "reached": result.get("reached"),
        "references": result.get("references"),
        "steps": train_steps,
        "minutes": state["seconds"] / 60,
        "steps_per_second": train_steps / state["seconds"] if state["seconds"] else None,
        "best": {"steps": best["steps"], "difference": best["difference"]},
        "interrupted": interrupted,
        "resumed": resumed,
        "run_dir": str(run),
        "model": str(run / "model.zip"),
        "plot": str(run / "difference.png") if args.plot else None,
        "history": state["history"],
    }
    atomic_write_text(run / "curve.json", json.dumps(report, indent=1))
    return report


def main(spec: GameSpec, args_class, description: str, argv=None) -> int:
    """Parse the options, train, print the report as one JSON line; exit code 2 for bad
    options or a damaged checkpoint (the message on stderr), 130 when interrupted."""
    script = Path(sys.argv[0]).stem or spec.name
    try:
        args = parse_args(args_class, description, argv)
        report = train(spec, args)
    except ValueError as err:
        print(f"{script}: error: {err}", file=sys.stderr)
        return 2
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    return 130 if report["interrupted"] else 0
