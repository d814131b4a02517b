"""Speed of the AYZD solver and of the Zombie Dice environment (prints measured figures).

Targets (issue 2): the AYZD solve in at most 1 s; the environment at 20,000+ agent
steps per second.  Run: ``.venv/bin/python experiments/benchmark_zombie_dice.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def time_solve(repeats: int) -> dict:
    from agents import ayzd

    ayzd.solve()  # warm the turn-model cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ayzd.solve()
        times.append(time.perf_counter() - t0)
    return {"solve_seconds_median": statistics.median(times), "solve_seconds_min": min(times)}


def env_steps_per_second(variant: str, steps: int, seed: int = 0) -> float:
    from dice_envs import zombie_dice_v0

    env = zombie_dice_v0.env(variant=variant)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    t0 = time.perf_counter()
    while done < steps:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            env.step(1 if mask[0] == 0 or rng.random() < 0.7 else 0)
            done += 1
        env.reset()
    return done / (time.perf_counter() - t0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = time_solve(args.repeats)
    for variant in ("all_yellow", "official"):
        result[f"env_steps_per_second_{variant}"] = env_steps_per_second(variant, args.steps)
    result["solve_target_seconds"] = 1.0
    result["env_target_steps_per_second"] = 20_000
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"AYZD solve: {result['solve_seconds_median']:.3f} s median of {args.repeats} "
              f"(min {result['solve_seconds_min']:.3f} s; target <= 1 s)")
        for variant in ("all_yellow", "official"):
            print(f"zombie_dice_v0 ({variant}): {result[f'env_steps_per_second_{variant}']:,.0f} agent steps/s "
                  f"(target >= 20,000)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
