"""One sample frame of every game's picture (``render_mode="rgb_array"``), saved as PNG.

Each sample is a mid-game position reached from a fixed seed with a simple policy, so the
files are the same on every run.  Run:
``.venv/bin/python experiments/render_samples.py [--out docs/images] [--only pig ...] [--time]``
(``--time`` also prints the median milliseconds per frame of each sample's game).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

import dice_envs
from dice_envs import closest_number_v0, liars_dice_match_v0, liars_dice_v0, pig_v0, shakes_v0, zombie_dice_v0

ROOT = Path(__file__).resolve().parents[1]


def random_policy(rng):
    return lambda env, state, mask: int(rng.choice(np.flatnonzero(mask)))


def roll_until(total):
    """Pig/Zombie Dice: roll on while the turn's total is below ``total`` (then hold, action 0)."""
    def policy(env, state, mask):
        at_stake = getattr(state, "turn_total", getattr(state, "turn_brains", 0))
        return 1 if at_stake < total or not mask[0] else 0
    return policy


def cautious_bidder(rng):
    """Liar's Dice: raise to the next bid most of the time, call once the quantity is high."""
    def policy(env, state, mask):
        legal = np.flatnonzero(mask)
        call = env.game.num_actions - 1
        bids = [a for a in legal if a != call]
        rnd = getattr(state, "round", state)
        if mask[call] and (not bids or env.game.bid(int(bids[0]))[0] > len(rnd.bids) // 2 + 2):
            return call
        return int(rng.choice(bids[:4]))
    return policy


#: name -> (module, env kwargs, policy factory, stop condition on the state, seed)
SAMPLES = {
    "pig": (pig_v0, {}, lambda rng: roll_until(18),
            lambda s, n: n > 30 and s.turn_total >= 8 and s.winner is None, 3),
    "zombie_dice": (zombie_dice_v0, dict(num_players=3), lambda rng: roll_until(4),
                    lambda s, n: n > 10 and s.turn_brains >= 2 and s.shotguns >= 1 and s.winner is None, 5),
    "liars_dice": (liars_dice_v0, dict(num_players=3, dice_per_player=2, wild="aces"), cautious_bidder,
                   lambda s, n: len(s.bids) >= 4, 2),
    "liars_dice_called": (liars_dice_v0, dict(num_players=2, dice_per_player=3, wild="highest"), cautious_bidder,
                          lambda s, n: s.called, 4),
    "liars_dice_match": (liars_dice_match_v0, dict(num_players=3, dice_per_player=3), cautious_bidder,
                         lambda s, n: s.round is not None and sum(s.dice) <= 7 and len(s.round.bids) >= 2, 1),
    "shakes": (shakes_v0, dict(num_players=4, mode="maesters"), random_policy,
               lambda s, n: s.total_treated >= 9 and s.phase == "decide" and len(s.declared) == 1, 0),
    "shakes_court": (shakes_v0, dict(num_players=3, mode="court"), random_policy,
                     lambda s, n: s.total_treated >= 6, 0),
    "closest_number": (closest_number_v0, dict(num_players=3, numbers=12), random_policy,
                       lambda s, n: s.round == 2 and len(s.placements) == 4, 0),
}


def sample_env(name):
    """The environment of sample ``name``, played to its position (its next ``render()`` is the sample)."""
    module, kwargs, make_policy, stop, seed = SAMPLES[name]
    env = module.raw_env(render_mode="rgb_array", **kwargs)
    rng = np.random.default_rng(seed)
    policy = make_policy(rng)
    for attempt in range(200):
        env.reset(seed=seed + 1000 * attempt)
        for n in range(1000):
            state = env.game_state
            if stop(state, n):
                return env
            if state.is_terminal():
                break
            agent = env.agent_selection
            env.step(policy(env, state, env.action_mask(agent)))
    raise RuntimeError(f"sample {name}: the position was not reached")


def median_ms(name, frames=15):
    """Median milliseconds per frame of a random game of sample ``name``'s environment."""
    module, kwargs, _, _, seed = SAMPLES[name]
    env = module.raw_env(render_mode="rgb_array", **kwargs)
    env.reset(seed=seed)
    env.render()  # the first frame builds the figure
    rng = np.random.default_rng(seed)
    times = []
    while len(times) < frames:
        if env.game_state.is_terminal():
            env.reset(seed=int(rng.integers(1 << 30)))
        else:
            env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
        t0 = time.perf_counter()
        env.render()
        times.append(1000 * (time.perf_counter() - t0))
    return statistics.median(times)


def main(argv=None) -> int:
    import matplotlib.image

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images",
                        help="folder the PNG files are written to (docs/images)")
    parser.add_argument("--only", nargs="*", choices=sorted(SAMPLES),
                        help="render only these samples (default: all)")
    parser.add_argument("--time", action="store_true", help="print the median ms per frame")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or SAMPLES:
        env = sample_env(name)
        path = args.out / f"{name}.png"
        matplotlib.image.imsave(path, env.render())
        line = f"{name}: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"
        if args.time:
            line += f"  {median_ms(name):.1f} ms per frame (median)"
        print(line, flush=True)
    assert set(dice_envs.all_environments) <= {m.__name__.rsplit(".", 1)[1] for m, *_ in SAMPLES.values()}
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
