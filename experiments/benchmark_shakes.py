"""Speed of The Shakes' exact solver and environment (prints measured figures).

Target (issue 4): the 6-player Bayes-optimal DP solves in under a minute.  The
figures: the DP alone (state graph + posterior + backward induction for the
optimal policy), the full solve with every policy evaluated (the dice rule's
argument probabilities dominate), and environment agent steps per second.
Run: ``.venv/bin/python experiments/benchmark_shakes.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from dice_envs.agents.evaluate.speed import agent_steps_per_second


def time_solve(players: int, repeats: int, policies) -> dict:
    from dice_envs.agents.shakes.solver import solve

    times, solution = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        solution = solve(players, "win", policies=policies)
        times.append(time.perf_counter() - t0)
    return {
        "seconds_median": statistics.median(times),
        "seconds_min": min(times),
        "states": solution.model.num_states,
        "optimal_team_win": solution.policies["optimal"].team_win if "optimal" in policies else None,
    }


def env_steps_per_second(mode: str, steps: int, seed: int = 0) -> float:
    """Agent steps per CPU second of uniformly random legal play, 6 players."""
    from dice_envs import shakes_v0

    return agent_steps_per_second(lambda: shakes_v0.env(num_players=6, mode=mode), steps, seed=seed)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=6,
                        help="players of the timed solves; shakes_v0 is always timed with 6 (6)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed runs of each solve; the median is reported (3)")
    parser.add_argument("--steps", type=int, default=20_000,
                        help="agent steps of random play timed in each mode of shakes_v0, rounded up to whole "
                             "games (20000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = {
        "num_players": args.players,
        "dp_optimal": time_solve(args.players, args.repeats, ("optimal",)),
        "solve_all_policies": time_solve(args.players, args.repeats,
                                         ("optimal", "dice_rule", "thompson", "greedy", "random")),
        "env_steps_per_second_court": env_steps_per_second("court", args.steps),
        "env_steps_per_second_maesters": env_steps_per_second("maesters", args.steps),
        "target_seconds": 60.0,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    dp, full = result["dp_optimal"], result["solve_all_policies"]
    print(f"{args.players}-player Bayes-optimal DP ({dp['states']:,} states): {dp['seconds_median']:.2f} s median "
          f"of {args.repeats} (min {dp['seconds_min']:.2f} s; target < 60 s); optimal team win "
          f"{dp['optimal_team_win']:.6f}")
    print(f"full solve, all five policies: {full['seconds_median']:.2f} s median (min {full['seconds_min']:.2f} s)")
    print(f"shakes_v0 court (6 players): {result['env_steps_per_second_court']:,.0f} agent steps/s")
    print(f"shakes_v0 maesters (6 players): {result['env_steps_per_second_maesters']:,.0f} agent steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
