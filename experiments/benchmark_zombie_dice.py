"""Speed of the AYZD solver and of the Zombie Dice environment (prints measured figures).

Targets (issue 2): the AYZD solve in at most 1 s; the environment at 20,000+ agent
steps per second.  Run: ``.venv/bin/python experiments/benchmark_zombie_dice.py``.

Times are CPU seconds of this process (``time.process_time``), so that other work
on a shared machine disturbs them less than wall-clock time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from dice_envs.agents.evaluate.speed import agent_steps_per_second, roll_often


def time_solve(repeats: int) -> dict:
    from dice_envs.agents.zombie_dice import ayzd_solver as ayzd

    ayzd.solve()  # warm the turn-model cache
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        ayzd.solve()
        times.append(time.process_time() - t0)
    return {"solve_seconds_median": statistics.median(times), "solve_seconds_min": min(times)}


def env_steps_per_second(variant: str, steps: int, seed: int = 0, wrapped: bool = True) -> float:
    """Agent steps per second of random play (70% roll), after a warm-up that fills
    the roll-distribution cache (built once per process and variant)."""
    from dice_envs import zombie_dice_v0

    make = zombie_dice_v0.env if wrapped else zombie_dice_v0.raw_env
    return agent_steps_per_second(
        lambda: make(variant=variant), steps, roll_often(0.7), seed, warmup=steps // 5
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5,
                        help="AYZD solves timed after a warm-up solve; the median is reported (5)")
    parser.add_argument("--steps", type=int, default=100_000,
                        help="agent steps of random play timed in each environment, after a fifth as many "
                             "untimed, rounded up to whole games (100000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = time_solve(args.repeats)
    for variant in ("all_yellow", "official"):
        result[f"env_steps_per_second_{variant}"] = env_steps_per_second(variant, args.steps)
        result[f"raw_env_steps_per_second_{variant}"] = env_steps_per_second(variant, args.steps, wrapped=False)
    result["solve_target_seconds"] = 1.0
    result["env_target_steps_per_second"] = 20_000
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"AYZD solve: {result['solve_seconds_median']:.3f} s median of {args.repeats} "
              f"(min {result['solve_seconds_min']:.3f} s; target <= 1 s)")
        for variant in ("all_yellow", "official"):
            print(f"zombie_dice_v0.env({variant}): {result[f'env_steps_per_second_{variant}']:,.0f} agent steps/s "
                  f"(target >= 20,000); raw_env: {result[f'raw_env_steps_per_second_{variant}']:,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
