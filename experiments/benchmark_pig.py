"""Speed of the Pig solver and of the Pig environment (prints measured figures).

Target (issue 6): the goal-100 solve in a few seconds at most.  Run:
``.venv/bin/python experiments/benchmark_pig.py [--repeats 3] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from dice_envs.agents.evaluate.speed import agent_steps_per_second, roll_often


def time_solve(goal: int, repeats: int) -> dict:
    from dice_envs.agents.pig import solver as pig

    pig.turn_model.cache_clear()
    t0 = time.perf_counter()
    solution = pig.solve(goal)  # includes building the turn model
    cold = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        pig.solve(goal)
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    pig.evaluate(pig.hold_at_20, pig.hold_at_20, goal)
    evaluation = time.perf_counter() - t0
    return {
        "goal": goal,
        "first_player_win": solution.first_player_win,
        "solve_seconds_cold": cold,
        "solve_seconds_median": statistics.median(times),
        "solve_seconds_min": min(times),
        "evaluate_seconds": evaluation,
    }


def env_steps_per_second(steps: int, seed: int = 0) -> float:
    """Agent steps per CPU second of random play (80% roll) in ``pig_v0.env()``."""
    from dice_envs import pig_v0

    return agent_steps_per_second(pig_v0.env, steps, roll_often(0.8), seed)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--goal", type=int, default=100,
                        help="winning score of the timed solve; pig_v0 is timed at its own default (100)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="solves timed after the first call; the median is reported (3)")
    parser.add_argument("--steps", type=int, default=50_000,
                        help="agent steps of random play timed in pig_v0, rounded up to whole games (50000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = time_solve(args.goal, args.repeats)
    result["env_steps_per_second"] = env_steps_per_second(args.steps)
    result["solve_target_seconds"] = 3.0
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"Pig goal {args.goal}: solve {result['solve_seconds_median']:.3f} s median of {args.repeats} "
              f"(min {result['solve_seconds_min']:.3f} s, first call {result['solve_seconds_cold']:.3f} s; "
              f"target: a few seconds); first player wins {result['first_player_win']:.6f}")
        print(f"exact evaluation of hold-at-20 vs hold-at-20: {result['evaluate_seconds']:.3f} s")
        print(f"pig_v0: {result['env_steps_per_second']:,.0f} agent steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
