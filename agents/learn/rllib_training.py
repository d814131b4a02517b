"""Self-play PPO with Ray RLlib, scored exactly: the ``rllib-ppo`` learner of ``dice-envs train``.

RLlib's multi-agent API plays both seats with one shared module (RLlib's
``ActionMaskingTorchRLModule``; :func:`dice_envs.rllib.ppo_config`), sampling games in
``env_runners`` remote env runners.  Every ``eval_every`` iterations the module is asked for its
decision in every information state and scored exactly by the scorer the command hands over
(``dice-envs evaluate``'s, :func:`dice_envs.agents.scoring.score`): the exploitability and the
value against the CFR+ equilibrium for Liar's Dice (its probabilities: a mixed strategy is the
goal), the Difference against optimal play for All Yellow Zombie Dice (its greedy decisions).  It
knows no game: a game's room gives its options (:class:`RLlibArgs` and the game's own) and a
function of them that names the PettingZoo game, its arguments, the evaluator's game and its
settings.

It runs on a local Ray instance by default; killed with ``kill -9``, it leaves none of Ray's
processes behind (:mod:`dice_envs.agents.learn.process_reaper`).  Across machines: start a
cluster, ``ray start --head`` on one machine and ``ray start --address HEAD_IP:6379`` on the
others (each with ``pip install 'dice-envs[rllib]'``), then train on the head with
``address = "auto"`` and as many ``env_runners`` as the cluster has CPUs to spare.

Outputs in ``run_dir``: ``checkpoint/`` (RLlib's ``algo.save_to_path``; rerunning the same command
resumes from it, after checking that the checkpoint has its learner and its game and was made with
the same options but the budget, the logging and where Ray runs, and ``dice-envs evaluate GAME
RUN_DIR/checkpoint`` re-scores it), ``curve.json``, and one JSON object on stdout (``game``,
``iterations``, ``steps``, ``minutes``, ``steps_per_second``, the last exact score and the curve).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict

from dice_envs.agents.evaluate.rllib_models import DESCRIPTION
from dice_envs.agents.learn import process_reaper
from dice_envs.agents.learn.runs import (
    atomic_write_text,
    budget_spent,
    check_args,
    check_resume_args,
    layer_sizes,
    log,
)
from dice_envs.core.resources import check_network

@dataclass
class RLlibArgs:
    """The options of every game's RLlib run (a game's room adds its own: the dice, the goal)."""

    minutes: float = 0.0  # wall-clock budget, in total over resumes (0: no limit)
    steps: int = 0  # env steps sampled (all seats), in total over resumes
    eval_every: int = 10  # iterations between exact evaluations
    env_runners: int = 2  # remote env runners (0: sample in the driver)
    envs_per_runner: int = 16  # games each env runner steps together
    batch: int = 4000  # env steps per iteration
    minibatch: int = 500  # rows per Adam step
    epochs: int = 5  # passes over each update's rows
    learning_rate: float = 3e-4  # the policy's Adam rate
    entropy: float = 0.01  # the entropy bonus of PPO
    hidden: str = "64,64"  # the policy network's hidden layers
    seed: int = 0  # seeds the run (RLlib seeds its workers from it)
    address: str = ""  # a Ray cluster to join ("auto": the one started with `ray start` here); empty: local
    run_dir: str = ""  # outputs and checkpoint (default: runs/rllib_<game>)
    quiet: bool = False  # no progress on stderr


def check(args, game):
    """The options checked (``ValueError`` naming a bad one); ``game(args)`` gives the PettingZoo
    game, its arguments, the evaluator's game and its settings (a game's room's function)."""
    check_args(args, at_least_one=("eval_every", "batch", "minibatch", "epochs", "envs_per_runner"),
               positive=("learning_rate",), non_negative=("env_runners", "entropy"))
    if args.minibatch > args.batch:
        raise ValueError(f"--minibatch ({args.minibatch}) must not exceed --batch ({args.batch})")
    cpus = os.cpu_count() or 1
    if not args.address and args.env_runners > cpus:  # Ray would wait for the CPUs, forever
        raise ValueError(f"--env-runners {args.env_runners} asks the local Ray instance for one CPU per env runner; "
                         f"this machine has {cpus}: give at most {cpus}, or join a cluster with --address")
    args.hidden = layer_sizes("hidden", args.hidden)
    # the observation and action sizes are not known yet: one unit each stands for them (the
    # hidden layers and the batch's activations are what can be huge)
    check_network(f"--hidden {args.hidden} with --batch {args.batch}",
                  [1, *[int(h) for h in args.hidden.split(",") if h], 1], rows=args.batch)
    args.run_dir = args.run_dir or f"runs/rllib_{game(args)[2]}"
    return args


def exact_score(algo, args: RLlibArgs, game, score) -> dict:
    """The shared module scored by ``score`` (``dice-envs evaluate``'s), greedy but in Liar's Dice."""
    from dice_envs.agents.evaluate.observation_agents import RLlibAgent

    _, _, name, settings = game(args)
    agent = RLlibAgent(algo.get_module("shared"), "rllib", greedy=name != "liars-dice")
    report = score(name, agent, **settings)
    keys = ("value", "gap", "exploitability", "seats")
    out = {key: report[key] for key in keys}
    if "difference" in report["details"]:
        out["difference"] = report["details"]["difference"]
    return out


def save_checkpoint(algo, ckpt: Path, args: RLlibArgs, game) -> None:
    """``algo.save_to_path``, and the checkpoint's description (``dice_envs.json``: the game and
    its settings), which lets ``dice-envs evaluate`` refuse the checkpoint on another game."""
    algo.save_to_path(str(ckpt.resolve()))
    _, _, name, settings = game(args)
    atomic_write_text(ckpt / DESCRIPTION, json.dumps({"game": name, "config": settings}))


#: the options that may differ from the checkpoint's on resume (the budget, the logging, where Ray runs)
RESUMABLE = ("minutes", "steps", "eval_every", "quiet", "address", "env_runners", "envs_per_runner", "run_dir")

#: the parts of a checkpoint without which it cannot be resumed exactly: the learner (the module's
#: weights and the optimiser, RLlib's learner_group) and the game it was trained on
REQUIRED_PARTS = ("learner_group", DESCRIPTION)


def resume_state(ckpt: Path, curve_path: Path, args: RLlibArgs) -> dict:
    """The run's state from ``curve.json``, after checking that the checkpoint has every part
    (:data:`REQUIRED_PARTS`) and was made with the same options (all but :data:`RESUMABLE`);
    a ``ValueError`` naming the difference otherwise."""
    try:
        state = json.loads(curve_path.read_text())
        if not isinstance(state, dict) or not {"iterations", "steps", "seconds", "curve"} <= state.keys():
            raise ValueError("fields missing")
    except (OSError, ValueError) as err:
        raise ValueError(f"{curve_path} is damaged ({err}); give another --run-dir or remove "
                         f"{curve_path.parent} to start over") from None
    missing = [part for part in REQUIRED_PARTS if not (ckpt / part).exists()]
    if missing:
        raise ValueError(f"the checkpoint {ckpt} has no {', '.join(missing)}: it cannot be resumed exactly; give "
                         f"another --run-dir or remove {curve_path.parent} to start over")
    check_resume_args(state.get("options"), args, RESUMABLE, curve_path)
    state["options"] = asdict(args)
    return state


def train(args: RLlibArgs, game, score) -> dict:
    """Train (or resume) and return the report; ``game`` as :func:`check` takes it, ``score`` the
    exact scorer (:func:`dice_envs.agents.scoring.score`'s signature)."""
    import ray

    from dice_envs.rllib import ppo_config

    run = Path(args.run_dir)
    ckpt, curve_path = run / "checkpoint", run / "curve.json"
    pz_game, game_args, name, _ = game(args)
    config = ppo_config(pz_game, game_args, num_env_runners=args.env_runners,
                        envs_per_runner=args.envs_per_runner,
                        hidden=[int(h) for h in args.hidden.split(",") if h], seed=args.seed,
                        lr=args.learning_rate, entropy_coeff=args.entropy, train_batch_size_per_learner=args.batch,
                        minibatch_size=args.minibatch, num_epochs=args.epochs, gamma=1.0)
    state: Dict[str, Any] = {"iterations": 0, "steps": 0, "seconds": 0.0, "curve": [], "options": asdict(args)}
    resumed = ckpt.exists() and curve_path.exists()
    if resumed:  # checked before Ray starts: a refusal costs nothing
        state = resume_state(ckpt, curve_path, args)
    process_reaper.start()  # ends Ray's local processes if this one is killed with -9
    ray.init(address=args.address or None, include_dashboard=False, log_to_driver=not args.quiet,
             ignore_reinit_error=True)
    algo = config.build_algo()
    if resumed:
        algo.restore_from_path(str(ckpt.resolve()))
        log(args, f"resumed at iteration {state['iterations']} ({state['steps']:,} steps)")
    t0 = time.perf_counter() - state["seconds"]
    while not budget_spent(args, state["steps"], time.perf_counter() - t0):
        result = algo.train()
        state["iterations"] += 1
        # (an iteration whose env runners sampled nothing in time reports no env_runners figures)
        state["steps"] = int(result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", state["steps"]))
        if state["iterations"] % args.eval_every == 0:
            point = {"iteration": state["iterations"], "steps": state["steps"],
                     "minutes": (time.perf_counter() - t0) / 60, **exact_score(algo, args, game, score)}
            state["curve"].append(point)
            log(args, json.dumps(point))
            state["seconds"] = time.perf_counter() - t0
            save_checkpoint(algo, ckpt, args, game)
            atomic_write_text(curve_path, json.dumps(state))
    state["seconds"] = time.perf_counter() - t0
    final = exact_score(algo, args, game, score)
    save_checkpoint(algo, ckpt, args, game)
    atomic_write_text(curve_path, json.dumps(state))
    algo.stop()
    ray.shutdown()
    minutes = state["seconds"] / 60
    return {"game": name, "method": "rllib_ppo_selfplay", **final, "iterations": state["iterations"],
            "steps": state["steps"], "minutes": minutes,
            "steps_per_second": state["steps"] / max(state["seconds"], 1e-9), "resumed": resumed,
            "checkpoint": str(ckpt), "options": asdict(args), "curve": state["curve"]}
