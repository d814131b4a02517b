"""Speed of the batched environments against the AEC env and Gymnasium's SyncVectorEnv, in one run.

For each game: agent steps per second of the batched rules (one random legal action
per game per step, finished games restarted) at N = 1, 64, 1024 and 16384 games; of
the AEC environment as users get it (``pettingzoo.make``, random legal play); and,
for the single-agent ids, of ``gymnasium.make_vec`` with ``vectorization_mode="sync"``
(SyncVectorEnv of the single env) against the batched ``vector_entry_point`` version
(agent steps only; the opponent's moves happen inside).  Prints the ratios.

Against fixed opponents (``--opponents``): for Pig, All Yellow and full Zombie Dice and every
table opponent, agent steps per second of ``gymnasium.make`` (one game) against
``gymnasium.make_vec(..., num_envs=4096, vectorization_mode="vector_entry_point")``, masked
random actions, and of the same make_vec with the opponent stepped one decision at a time
(``stepped``: how the envs played before whole turns were drawn at once), each after
``--warmup`` untimed CPU seconds (a solve, and the turn tables filled on first use).  Then the
training scripts' self-play pool (``dice_envs.agents.learn.jeopardy``) of six tables for Pig
and for All Yellow (the optimum and five others): make_vec with the pool's whole turns drawn
against the same pool stepped.

Run: ``.venv/bin/python experiments/benchmark_batched.py [--json] [--seconds 1.0] [--opponents]``.
Times are CPU seconds of this process (``time.process_time``); on a shared machine
other work disturbs them less than wall-clock time.  Under a minute by default.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pettingzoo

import dice_envs  # noqa: F401  (registers the ids)
from dice_envs.agents.evaluate.speed import agent_steps_per_second

SIZES = (1, 64, 1024, 16384)

# game -> (AEC registry id and kwargs, batched class factory, Gymnasium single-agent id and kwargs)
GAMES = {
    "zombie_dice": ("dice_envs/zombie_dice-v0", dict(variant="all_yellow"), "zombie_dice_batched",
                    "ZombieDiceBatch", dict(variant="all_yellow"),
                    ("dice_envs/ZombieDice-v0", dict(opponent="optimal"))),
    "pig": ("dice_envs/pig-v0", dict(), "pig_batched", "PigBatch", dict(),
            ("dice_envs/Pig-v0", dict(opponent="optimal"))),
    "liars_dice": ("dice_envs/liars_dice-v0", dict(faces=6, wild=True), "liars_dice_batched", "LiarsDiceBatch",
                   dict(faces=6, wild=True), ("dice_envs/LiarsDice-v0", dict(opponent="equilibrium", wild=True))),
    "shakes": ("dice_envs/shakes-v0", dict(), "shakes_batched", "ShakesCourtBatch", dict(),
               ("dice_envs/Shakes-v0", dict())),
    "closest_number": ("dice_envs/closest_number-v0", dict(), "closest_number_batched", "ClosestNumberBatch", dict(),
                       ("dice_envs/ClosestNumber-v0", dict(opponent="random"))),
}


def batched_steps_per_second(make_batch, num_envs: int, seconds: float, seed: int = 0) -> float:
    """Agent steps per CPU second of the batched rules under random legal play."""
    batch = make_batch(num_envs)
    rng = np.random.default_rng(seed)
    batch.reset(rng)
    steps, t0 = 0, time.process_time()
    while True:
        mask = batch.action_mask()
        _, terminated = batch.step(np.argmax(rng.random(mask.shape) * mask, axis=1), rng)
        batch.reset(rng, where=terminated)
        steps += num_envs
        elapsed = time.process_time() - t0
        if elapsed >= seconds:
            return steps / elapsed


def vector_steps_per_second(env_id: str, kwargs: dict, mode: str, num_envs: int, seconds: float,
                            warmup: float = 0.0) -> float:
    """Agent steps per CPU second of ``gymnasium.make_vec`` (random legal actions), after
    ``warmup`` CPU seconds of untimed steps (tables built on first use, a solve)."""
    import gymnasium

    env = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, **kwargs)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    for limit in (warmup, seconds):  # untimed, then timed
        steps, t0 = 0, time.process_time()
        while time.process_time() - t0 < limit:
            mask = info["action_mask"]
            obs, _, _, _, info = env.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
            steps += num_envs
    env.close()
    return steps / (time.process_time() - t0)


# game -> (Gymnasium id, kwargs, table opponents) for the fixed-opponent comparison
HUMAN = ("fixed_hold_at", "minh", "llano", "neller")
OPPONENT_GAMES = {
    "pig": ("dice_envs/Pig-v0", dict(), ("optimal", "hold_at_20", "random")),
    "all_yellow": ("dice_envs/ZombieDice-v0", dict(variant="all_yellow"), ("optimal",) + HUMAN + ("random",)),
    "official": ("dice_envs/ZombieDice-v0", dict(variant="official"), ("optimal",) + HUMAN + ("random",)),
}


def single_env_steps_per_second(env_id: str, kwargs: dict, seconds: float, warmup: float = 0.0) -> float:
    """Agent steps per CPU second of ``gymnasium.make`` (one game; random legal actions), after
    ``warmup`` CPU seconds of untimed steps."""
    import gymnasium

    env = gymnasium.make(env_id, **kwargs)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    for limit in (warmup, seconds):  # untimed, then timed
        steps, t0 = 0, time.process_time()
        while time.process_time() - t0 < limit:
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if terminated or truncated:
                _, info = env.reset()
            steps += 1
    env.close()
    return steps / (time.process_time() - t0)


def measure_opponents(seconds: float, warmup: float, num_envs: int = 4096) -> dict:
    """For each game and table opponent: single env, make_vec, make_vec with the opponent stepped
    (each after ``warmup`` untimed CPU seconds: the solve, and the turn tables filled on first use)."""
    import gymnasium

    out = {}
    for game, (env_id, kwargs, opponents) in OPPONENT_GAMES.items():
        for opponent in opponents:
            single = single_env_steps_per_second(env_id, dict(kwargs, opponent=opponent), seconds, warmup)
            batched = vector_steps_per_second(env_id, dict(kwargs, opponent=opponent), "vector_entry_point",
                                              num_envs, seconds, warmup)
            whole = gymnasium.make_vec(env_id, num_envs=1, vectorization_mode="vector_entry_point",
                                       opponent=opponent, **kwargs).opponent
            by_step = vector_steps_per_second(env_id, dict(kwargs, opponent=whole.stepped()), "vector_entry_point",
                                              num_envs, seconds, warmup)
            out[f"{game}/{opponent}"] = {"single_env_steps_per_s": single, "make_vec_steps_per_s": batched,
                                         "make_vec_stepped_steps_per_s": by_step, "ratio": batched / single,
                                         "stepped_ratio": by_step / single}
    return out


def pool_opponent(game: str, policies: list, goal: int, whole_turns: bool, num_envs: int):
    """The self-play pool of ``dice_envs.agents.learn.jeopardy`` (``game`` ``"pig"`` or
    ``"all_yellow"``) holding the tables of ``policies`` (over the solver's positions), its whole
    turns drawn or stepped."""
    import importlib

    from dice_envs.agents.learn.jeopardy import Pool, PoolOpponent

    if game == "pig":
        from dice_envs.agents.pig import solver as pig_solver

        from dice_envs.agents.pig import training as script

        spec, args = script.PigSpec(), script.Args(goal=goal)
        tables = [pig_solver.policy_table(policy, goal) for policy in policies]
    else:
        from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
        from dice_envs.agents.zombie_dice.opponents import solved

        from dice_envs.agents.zombie_dice import training as script

        spec, args = script.AYZDSpec(), script.Args(goal=goal, variant="all_yellow")
        tables = [ayzd.policy_table(policy, solved(goal).score_cap) for policy in policies]
    pool = Pool(len(tables), spec, args)
    pool.frozen = tables
    return PoolOpponent(pool, num_envs, whole_turns=whole_turns)


def six_policies(game: str) -> list:
    """The benchmark's pool: Pig's optimum and hold-at 20 to 24 (goal 100), or the All Yellow
    optimum, the four human policies and the random one (goal 13)."""
    if game == "pig":
        from dice_envs.agents.pig import solver as pig_solver

        return [pig_solver.solved(100).as_policy()] + [pig_solver.hold_at(n) for n in range(20, 25)]
    from dice_envs.agents.zombie_dice.opponents import solved
    from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES, random_policy

    return [solved(13).as_policy(), *HUMAN_POLICIES.values(), random_policy]


def measure_pools(seconds: float, warmup: float, num_envs: int = 4096) -> dict:
    """make_vec against the self-play pool, its whole turns drawn and stepped."""
    out = {}
    for game, goal, env_id, kwargs in (("pig", 100, "dice_envs/Pig-v0", {}),
                                       ("all_yellow", 13, "dice_envs/ZombieDice-v0", dict(variant="all_yellow"))):
        whole, by_step = (vector_steps_per_second(
            env_id, dict(kwargs, opponent=pool_opponent(game, six_policies(game), goal, w, num_envs)),
            "vector_entry_point", num_envs, seconds, warmup) for w in (True, False))
        out[f"{game}/selfplay pool of 6 tables"] = {"make_vec_steps_per_s": whole,
                                                    "make_vec_stepped_steps_per_s": by_step,
                                                    "whole_over_stepped": whole / by_step}
    return out


def measure(name: str, seconds: float) -> dict:
    import importlib

    aec_id, aec_kwargs, module, cls, batch_kwargs, single = GAMES[name]
    aec = agent_steps_per_second(lambda: pettingzoo.make("aec", aec_id, **aec_kwargs), 20_000, warmup=2_000)
    row = {"aec_steps_per_s": aec, "batched_steps_per_s": None, "ratio": None}
    if module is None:
        row["note"] = "no batched version yet"
        return row
    make = lambda n: getattr(importlib.import_module(f"dice_envs.{module}"), cls)(n, **batch_kwargs)  # noqa: E731
    by_size = {n: batched_steps_per_second(make, n, seconds) for n in SIZES}
    peak = max(by_size.values())
    row.update(batched_steps_per_s=peak, ratio=peak / aec,
               by_num_envs={str(n): v for n, v in by_size.items()})
    if single is not None:
        env_id, kwargs = single
        sync = vector_steps_per_second(env_id, kwargs, "sync", 8, seconds)
        batched = vector_steps_per_second(env_id, kwargs, "vector_entry_point", 4096, seconds)
        row["single_agent"] = {"sync_vector_env_steps_per_s": sync, "batched_vector_env_steps_per_s": batched,
                               "ratio": batched / sync}
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds timed per measurement")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--opponents", action="store_true",
                        help="only the fixed-opponent comparison (single env vs make_vec, every table opponent)")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="untimed CPU seconds before each --opponents measurement (tables built on first use)")
    args = parser.parse_args(argv)
    if not args.seconds > 0:
        parser.error("--seconds must be positive")
    if args.warmup < 0:
        parser.error("--warmup must not be negative")
    if args.opponents:
        rows = measure_opponents(args.seconds, args.warmup)
        pools = measure_pools(args.seconds, args.warmup)
        if args.json:
            print(json.dumps({"opponents": rows, "pools": pools}, indent=2))
            return 0
        print(f"{'game/opponent':28s} {'single env':>11s} {'make_vec(4096)':>15s} {'ratio':>6s} "
              f"{'stepped':>11s} {'ratio':>6s}  (agent steps per CPU second)")
        for key, r in rows.items():
            print(f"{key:28s} {r['single_env_steps_per_s']:>11,.0f} {r['make_vec_steps_per_s']:>15,.0f} "
                  f"{r['ratio']:>5.0f}x {r['make_vec_stepped_steps_per_s']:>11,.0f} {r['stepped_ratio']:>5.0f}x")
        for key, r in pools.items():
            print(f"{key:40s} make_vec(4096) {r['make_vec_steps_per_s']:>10,.0f}, stepped "
                  f"{r['make_vec_stepped_steps_per_s']:>10,.0f}: whole turns {r['whole_over_stepped']:.1f}x")
        return 0
    result = {"games": {name: measure(name, args.seconds) for name in GAMES}}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name, row in result["games"].items():
        line = f"{name:15s} AEC {row['aec_steps_per_s']:>10,.0f} agent steps/s"
        if row["batched_steps_per_s"] is None:
            print(f"{line}; {row['note']}")
            continue
        sizes = ", ".join(f"N={n}: {v:,.0f}" for n, v in row["by_num_envs"].items())
        print(f"{line}; batched peak {row['batched_steps_per_s']:,.0f} ({row['ratio']:.0f}x AEC) [{sizes}]")
        if "single_agent" in row:
            s = row["single_agent"]
            print(f"{'':15s} single-agent id: SyncVectorEnv(8) {s['sync_vector_env_steps_per_s']:,.0f}, "
                  f"batched make_vec(4096) {s['batched_vector_env_steps_per_s']:,.0f} ({s['ratio']:.0f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
