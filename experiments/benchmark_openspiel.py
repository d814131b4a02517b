"""OpenSpiel's view of Liar's Dice, side by side with OpenSpiel's own C++ ``liars_dice`` (prints measured figures).

1. ``rl_environment`` steps per CPU second of whole games with uniformly random legal actions, on
   OpenSpiel's ``liars_dice(numdice=D, dice_sides=F)`` and on ``dice_envs_liars_dice`` with the same
   rules (the highest face wild), the two in turn in one process, ``--rounds`` times; each round's
   figures, the ratio ours / OpenSpiel's, and their medians.  ``--only openspiel|dice-envs`` steps
   one game alone (for timing whole processes with outside tools).
2. ``--tensor-calls N``: microseconds per ``information_state_tensor(player)`` call: pyspiel's own
   method for Python games (``pyspiel.State.information_state_tensor``, which writes a fresh initial
   state's tensor to learn the shape, then the state's), the state's own (one write), and OpenSpiel's
   C++ game.
3. ``--hook``: the exact exploitability of an actor over OpenSpiel's tensors
   (:func:`dice_envs.agents.liars_dice.openspiel_agents.exploitability`, IIG-RL-Benchmark's hook), its
   wall and CPU seconds and peak memory, with ``--hidden`` layers of tanh (IIG-RL-Benchmark's actor
   is 512,512,512); ``--openspiel-hook`` also times OpenSpiel's own route on the same actor
   (``tabular_policy_from_callable`` then ``exploitability``), feasible for one die each.

Run: ``.venv/bin/python experiments/benchmark_openspiel.py [--dice 2] [--faces 5] [--rounds 7]
[--steps 20000] [--tensor-calls 20000] [--hook] [--hidden 512,512,512] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time

import numpy as np


def games(dice: int, faces: int):
    """OpenSpiel's ``liars_dice`` and ``dice_envs_liars_dice`` with the same rules."""
    import pyspiel

    import dice_envs.openspiel  # noqa: F401  (registers the games)

    return {"openspiel": pyspiel.load_game("liars_dice", {"numdice": dice, "dice_sides": faces}),
            "dice-envs": pyspiel.load_game("dice_envs_liars_dice", {"dice_per_player": dice, "faces": faces,
                                                                     "wild_rule": "highest"})}


def steps_per_cpu_second(game, steps: int, seed: int) -> float:
    """``rl_environment`` steps per CPU second (``time.process_time``) of ``steps`` steps of whole games."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(game, seed=seed)
    rng = np.random.default_rng(seed)
    done, t0 = 0, time.process_time()
    while done < steps:
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([int(rng.choice(time_step.observations["legal_actions"][player]))])
            done += 1
    return done / (time.process_time() - t0)


def side_by_side(dice: int, faces: int, rounds: int, steps: int) -> dict:
    both = games(dice, faces)
    for game in both.values():  # warm up: imports, caches built on first use
        steps_per_cpu_second(game, 500, 0)
    rows = []
    for r in range(rounds):
        row = {name: steps_per_cpu_second(game, steps, r) for name, game in both.items()}
        row["ratio"] = row["dice-envs"] / row["openspiel"]
        rows.append(row)
        print(f"round {r}: OpenSpiel's liars_dice {row['openspiel']:,.0f}, dice_envs_liars_dice {row['dice-envs']:,.0f} "
              f"steps per CPU second; ratio {row['ratio']:.2f}", file=sys.stderr)
    return {"rounds": rows, "median": {key: statistics.median(row[key] for row in rows)
                                       for key in ("openspiel", "dice-envs", "ratio")}}


def tensor_calls(dice: int, faces: int, calls: int) -> dict:
    import pyspiel

    both = games(dice, faces)
    states = {}
    for name, game in both.items():
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        state.apply_action(3)
        states[name] = state
    ours = states["dice-envs"]
    ways = {"pyspiel's method, Python game": lambda: pyspiel.State.information_state_tensor(ours, 0),
            "the state's own method": lambda: ours.information_state_tensor(0),
            "OpenSpiel's C++ liars_dice": lambda: states["openspiel"].information_state_tensor(0)}
    out = {}
    for name, call in ways.items():
        t0 = time.process_time()
        for _ in range(calls):
            call()
        out[name] = 1e6 * (time.process_time() - t0) / calls
        print(f"{name}: {out[name]:.2f} us per call", file=sys.stderr)
    return out


def actor(game, hidden, seed: int = 0):
    """IIG-RL-Benchmark's actor shape: linear layers with tanh between them, logits out."""
    import torch

    torch.manual_seed(seed)
    sizes = [game.information_state_tensor_shape()[0], *hidden, game.num_distinct_actions()]
    layers = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers += [torch.nn.Linear(a, b)] + ([torch.nn.Tanh()] if i < len(sizes) - 2 else [])
    return torch.nn.Sequential(*layers).eval()


def hook(dice: int, faces: int, hidden, openspiel_route: bool) -> dict:
    from dice_envs.agents.liars_dice.openspiel_agents import exploitability

    game = games(dice, faces)["openspiel"]
    net = actor(game, hidden)
    wall, cpu = time.perf_counter(), time.process_time()
    ev = exploitability(net, game)
    out = {"game": str(game), "hidden": list(hidden), "exploitability": ev.exploitability,
           "best_response_values": list(ev.best_response), "value_first_player": ev.value_first_player,
           "wall_seconds": time.perf_counter() - wall, "cpu_seconds": time.process_time() - cpu}
    print(f"ours: exploitability {ev.exploitability:.6f} in {out['wall_seconds']:.1f} s wall, "
          f"{out['cpu_seconds']:.1f} s CPU", file=sys.stderr)
    if openspiel_route:
        import torch
        from open_spiel.python import policy as os_policy
        from open_spiel.python.algorithms import exploitability as os_exploitability

        def probabilities(state):
            with torch.no_grad():
                z = net(torch.tensor([state.information_state_tensor(state.current_player())])).numpy()[0]
            legal = state.legal_actions()
            e = np.exp(z[legal].astype(np.float64) - z[legal].max())
            return dict(zip(legal, e / e.sum()))

        wall, cpu = time.perf_counter(), time.process_time()
        theirs = os_exploitability.exploitability(game, os_policy.tabular_policy_from_callable(game, probabilities))
        out["openspiel"] = {"exploitability": theirs, "wall_seconds": time.perf_counter() - wall,
                            "cpu_seconds": time.process_time() - cpu}
        print(f"OpenSpiel's: exploitability {theirs:.6f} in {out['openspiel']['wall_seconds']:.1f} s wall, "
              f"{out['openspiel']['cpu_seconds']:.1f} s CPU", file=sys.stderr)
    out["peak_memory_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", type=int, default=2, help="dice per player (2)")
    parser.add_argument("--faces", type=int, default=5, help="faces of each die (5)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the side-by-side step count (7; 0: none)")
    parser.add_argument("--steps", type=int, default=20_000, help="rl_environment steps per game and round (20000)")
    parser.add_argument("--only", choices=["openspiel", "dice-envs"], default=None,
                        help="step this game alone, --steps steps, and print its steps per CPU second")
    parser.add_argument("--tensor-calls", type=int, default=0, metavar="N",
                        help="time N information_state_tensor calls each way (0: not measured)")
    parser.add_argument("--hook", action="store_true", help="time the exact exploitability of an actor")
    parser.add_argument("--hidden", default="512,512,512", help="the actor's hidden layers (512,512,512)")
    parser.add_argument("--openspiel-hook", action="store_true",
                        help="with --hook, also time OpenSpiel's exploitability of the same actor")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    if args.only:
        print(f"{steps_per_cpu_second(games(args.dice, args.faces)[args.only], args.steps, 0):.0f}")
        return 0
    report: dict = {"dice": args.dice, "faces": args.faces}
    if args.rounds:
        report["steps_per_cpu_second"] = side_by_side(args.dice, args.faces, args.rounds, args.steps)
    if args.tensor_calls:
        report["tensor_call_microseconds"] = tensor_calls(args.dice, args.faces, args.tensor_calls)
    if args.hook:
        report["hook"] = hook(args.dice, args.faces, [int(h) for h in args.hidden.split(",") if h],
                              args.openspiel_hook)
    print(json.dumps(report, indent=2) if args.json else report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
