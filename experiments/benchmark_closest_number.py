"""Benchmark: the full two-player Closest Number equilibrium on the seed's ten
numbers (both readings of round 3), and round 1 alone for 2 to 5 players.

Prints, per reading: the value for the starting player, the exact whole-game
exploitability of the computed strategy, the wall-clock seconds (the issue asks
for under 10 minutes and exploitability <= 1e-3), the number of round games
solved by LP and the size of the largest one.

    python experiments/benchmark_closest_number.py [--numbers 10]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dice_envs.agents.closest_number.round1 import solve_round1
from dice_envs.agents.closest_number.solver import ClosestNumberSolver


def full_game(numbers: int, round3: str) -> dict:
    t0 = time.perf_counter()
    solver = ClosestNumberSolver(numbers, round3)
    value = solver.solve_all()
    t_solve = time.perf_counter() - t0
    expl = solver.exploitability()
    seconds = time.perf_counter() - t0
    round2 = solver.tree(2)
    out = {
        "round3": round3, "value": value, "exploitability": expl, "seconds": seconds, "solve_seconds": t_solve,
        "lp_games": solver.lp_count, "lp_seconds": solver.lp_seconds,
        "round2_nodes": len(round2), "round2_infosets": len(round2.infosets),
        "round2_terminals": len(round2.payoff),
        "line": ", ".join(f"P{s} {a}" for s, a, _ in solver.principal_line(1, 0)),
        "round2_line": ", ".join(f"{'starter' if s == 0 else 'other'} {a}" for s, a, _ in
                                 solver.principal_line(2, 0)),
    }
    # For scale: the same exact evaluator on uniformly random play (every round's table made uniform).
    for sol in solver._solutions.values():
        sol.table = [np.full(len(row), 1.0 / len(row)) for row in sol.table]
    solver._br.clear()
    out["uniform_exploitability"] = solver.exploitability()
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--numbers", type=int, default=10,
                        help="number cards 1..N of the full game; round 1 alone runs for 2 to min(5, N // 2) "
                             "players (10)")
    args = parser.parse_args(argv)
    n = args.numbers
    print(f"Closest Number, numbers 1..{n}: full two-player game (win +1 / lose -1 / draw 0)")
    for round3 in ("two_cards", "one_card"):
        r = full_game(n, round3)
        print(f"  round 3 = {round3:9s}  value for the starting player {r['value']:+.6f}  "
              f"exploitability {r['exploitability']:.2e}  {r['seconds']:.1f} s "
              f"(solve {r['solve_seconds']:.1f} s; {r['lp_games']} round LPs, {r['lp_seconds']:.1f} s in HiGHS)")
        print(f"      round-2 game: {r['round2_nodes']:,} nodes, {r['round2_terminals']:,} terminals, "
              f"{r['round2_infosets']:,} information states")
        print(f"      exploitability of uniformly random play, same evaluator: {r['uniform_exploitability']:.4f}")
        print(f"      round 1 at equilibrium: {r['line']}; round 2 (tied): {r['round2_line']}")
    print("Round 1 alone (each player maximises own points; ties between equally good numbers: lowest)")
    for players in range(2, min(5, n // 2) + 1):
        t0 = time.perf_counter()
        sol = solve_round1(players, n)
        print(f"  {players} players: picks {sol.placements}, points {sol.points}, "
              f"best first picks {sol.best_first_moves}  ({time.perf_counter() - t0:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
