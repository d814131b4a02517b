"""Speed of the batched environments against the AEC env and Gymnasium's SyncVectorEnv, in one run.

For each game: agent steps per second of the batched rules (one random legal action
per game per step, finished games restarted) at N = 1, 64, 1024 and 16384 games; of
the AEC environment as users get it (``pettingzoo.make``, random legal play); and,
for the single-agent ids, of ``gymnasium.make_vec`` with ``vectorization_mode="sync"``
(SyncVectorEnv of the single env) against the batched ``vector_entry_point`` version
(agent steps only; the opponent's moves happen inside).  Prints the ratios.

Run: ``.venv/bin/python experiments/benchmark_batched.py [--json] [--seconds 1.0]``.
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
from benchmark_common import agent_steps_per_second

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


def vector_steps_per_second(env_id: str, kwargs: dict, mode: str, num_envs: int, seconds: float) -> float:
    """Agent steps per CPU second of ``gymnasium.make_vec`` (random legal actions)."""
    import gymnasium

    env = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, **kwargs)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    steps, t0 = 0, time.process_time()
    while True:
        mask = info["action_mask"]
        obs, _, _, _, info = env.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
        steps += num_envs
        elapsed = time.process_time() - t0
        if elapsed >= seconds:
            env.close()
            return steps / elapsed


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds timed per measurement")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not args.seconds > 0:
        parser.error("--seconds must be positive")
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
