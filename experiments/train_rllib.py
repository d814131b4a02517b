"""Self-play PPO with Ray RLlib on Liar's Dice or All Yellow Zombie Dice, scored EXACTLY.

RLlib's multi-agent API plays both seats with one shared module (RLlib's
``ActionMaskingTorchRLModule``; :func:`dice_envs.rllib.ppo_config`), sampling games in
``--env-runners`` remote env runners.  Every ``--eval-every`` iterations the module is
asked for its decision in every information state and scored with the project's exact
evaluators (:func:`dice_envs.agents.scoring.score`): the exploitability and the
value against the CFR+ equilibrium for Liar's Dice (its probabilities: a mixed strategy
is the goal), the Difference against optimal play for AYZD (its greedy decisions).

It runs on a local Ray instance by default; killed with ``kill -9``, it leaves none of Ray's
processes behind (:mod:`dice_envs.agents.learn.process_reaper`).  Across machines: start a
cluster, ``ray start --head`` on one machine and ``ray start --address HEAD_IP:6379`` on the others (each with
this project installed, ``pip install 'dice-envs[rllib]'``), then run this script on the
head with ``--address auto`` and as many ``--env-runners`` as the cluster has CPUs to spare.

Outputs in ``--run-dir`` (default ``runs/rllib_<game>``): ``checkpoint/`` (RLlib's
``algo.save_to_path``; rerunning the same command resumes from it, after checking that the
checkpoint has its learner and its game and was made with the same options but the budget,
the logging and where Ray runs, and
``dice-envs evaluate liars-dice|ayzd runs/.../checkpoint`` re-scores it), ``curve.json``,
and one JSON object on stdout (``game``, ``iterations``, ``steps``, ``minutes``,
``steps_per_second``, the last exact score and the curve).

Run: ``.venv/bin/python experiments/train_rllib.py --game liars_dice --minutes 30`` (needs
the ``[rllib]`` extra).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from dice_envs.agents.evaluate.rllib_models import DESCRIPTION
from dice_envs.agents.learn import process_reaper
from dice_envs.agents.learn.runs import (
    args_from_dataclass,
    atomic_write_text,
    budget_spent,
    check_args,
    check_resume_args,
    layer_sizes,
    log,
    run_script,
)
from dice_envs.core.resources import check_network

#: game -> (the PettingZoo game, its arguments, the evaluator's game and settings)
GAMES = {
    "liars_dice": ("liars_dice_v0", lambda a: {"faces": a.faces, "wild": a.wild},
                   "liars-dice", lambda a: {"faces": a.faces, "wild": a.wild}),
    "ayzd": ("zombie_dice_v0", lambda a: {"variant": "all_yellow", "goal": a.goal, "observation": "compact"},
             "ayzd", lambda a: {"goal": a.goal}),
}


@dataclass
class Args:
    game: str = "liars_dice"  # liars_dice | ayzd
    faces: int = 6  # liars_dice: faces of each die
    wild: bool = True  # liars_dice: the highest face is wild
    goal: int = 13  # ayzd: brains to win
    minutes: float = 0.0  # wall-clock budget, in total over resumes (0: no limit)
    steps: int = 0  # env steps sampled (all seats), in total over resumes
    eval_every: int = 10  # iterations
    env_runners: int = 2  # remote env runners (0: sample in the driver)
    envs_per_runner: int = 16  # games each env runner steps together
    batch: int = 4000  # env steps per iteration
    minibatch: int = 500  # env steps per SGD step
    epochs: int = 5  # passes over each iteration's batch
    lr: float = 3e-4  # the learner's Adam rate
    entropy: float = 0.01  # PPO's entropy bonus
    hidden: str = "64,64"  # the RLModule's hidden layers
    seed: int = 0  # the algorithm's seed (RLlib seeds its workers from it)
    address: str = ""  # a Ray cluster to join ("auto": the one started with `ray start` here); empty: local
    run_dir: str = ""  # outputs and checkpoint (default: runs/rllib_<game>)
    quiet: bool = False  # no progress on stderr


def check(args: Args) -> Args:
    if args.game not in GAMES:
        raise ValueError(f"--game must be one of {list(GAMES)}, got {args.game!r}")
    check_args(args, at_least_one=("eval_every", "batch", "minibatch", "epochs", "faces", "goal", "envs_per_runner"),
               positive=("lr",), non_negative=("env_runners", "entropy"))
    if args.minibatch > args.batch:
        raise ValueError(f"--minibatch ({args.minibatch}) must not exceed --batch ({args.batch})")
    args.hidden = layer_sizes("hidden", args.hidden)
    # the observation and action sizes are not known yet: one unit each stands for them (the
    # hidden layers and the batch's activations are what can be huge)
    check_network(f"--hidden {args.hidden} with --batch {args.batch}",
                  [1, *[int(h) for h in args.hidden.split(",") if h], 1], rows=args.batch)
    args.run_dir = args.run_dir or f"runs/rllib_{args.game}"
    return args


def exact_score(algo, args: Args) -> dict:
    from dice_envs.agents.evaluate.observation_agents import RLlibAgent
    from dice_envs.agents.scoring import score

    _, _, game, settings = GAMES[args.game]
    agent = RLlibAgent(algo.get_module("shared"), "rllib", greedy=args.game != "liars_dice")
    report = score(game, agent, **settings(args))
    keys = ("value", "gap", "exploitability", "seats")
    out = {key: report[key] for key in keys}
    if "difference" in report["details"]:
        out["difference"] = report["details"]["difference"]
    return out


def save_checkpoint(algo, ckpt: Path, args: Args) -> None:
    """``algo.save_to_path``, and the checkpoint's description (``dice_envs.json``: the game and
    its settings), which lets ``dice-envs evaluate`` refuse the checkpoint on another game."""
    algo.save_to_path(str(ckpt.resolve()))
    _, _, game, settings = GAMES[args.game]
    atomic_write_text(ckpt / DESCRIPTION, json.dumps({"game": game, "config": settings(args)}))


#: the options that may differ from the checkpoint's on resume (the budget, the logging, where Ray runs)
RESUMABLE = ("minutes", "steps", "eval_every", "quiet", "address", "env_runners", "envs_per_runner", "run_dir")

#: the parts of a checkpoint without which it cannot be resumed exactly: the learner (the module's
#: weights and the optimiser, RLlib's learner_group) and the game it was trained on
REQUIRED_PARTS = ("learner_group", DESCRIPTION)


def resume_state(ckpt: Path, curve_path: Path, args: Args) -> dict:
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


def train(args: Args) -> dict:
    import ray

    from dice_envs.rllib import ppo_config

    run = Path(args.run_dir)
    ckpt, curve_path = run / "checkpoint", run / "curve.json"
    pz_game, game_args, _, _ = GAMES[args.game]
    config = ppo_config(pz_game, game_args(args), num_env_runners=args.env_runners,
                        envs_per_runner=args.envs_per_runner,
                        hidden=[int(h) for h in args.hidden.split(",") if h], seed=args.seed,
                        lr=args.lr, entropy_coeff=args.entropy, train_batch_size_per_learner=args.batch,
                        minibatch_size=args.minibatch, num_epochs=args.epochs, gamma=1.0)
    state = {"iterations": 0, "steps": 0, "seconds": 0.0, "curve": [], "options": asdict(args)}
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
                     "minutes": (time.perf_counter() - t0) / 60, **exact_score(algo, args)}
            state["curve"].append(point)
            log(args, json.dumps(point))
            state["seconds"] = time.perf_counter() - t0
            save_checkpoint(algo, ckpt, args)
            atomic_write_text(curve_path, json.dumps(state))
    state["seconds"] = time.perf_counter() - t0
    final = exact_score(algo, args)
    save_checkpoint(algo, ckpt, args)
    atomic_write_text(curve_path, json.dumps(state))
    algo.stop()
    ray.shutdown()
    minutes = state["seconds"] / 60
    return {"game": args.game, "method": "rllib_ppo_selfplay", **final, "iterations": state["iterations"],
            "steps": state["steps"], "minutes": minutes,
            "steps_per_second": state["steps"] / max(state["seconds"], 1e-9), "resumed": resumed,
            "checkpoint": str(ckpt), "options": asdict(args), "curve": state["curve"]}


def main(argv=None) -> int:
    """Train and print the report as one JSON line (:func:`dice_envs.agents.learn.runs.run_script`)."""
    return run_script("train_rllib", lambda a: check(args_from_dataclass(Args, __doc__.splitlines()[0], a)), train,
                      argv)


if __name__ == "__main__":
    sys.exit(main())
