"""How fast an environment steps: agent steps per CPU second of whole games played by a
simple agent (a uniformly random legal action, or "roll with probability p" in the
jeopardy games).

The benchmark scripts of ``experiments/`` measure every game with these loops, so their
figures compare.  Times are CPU seconds of this process (``time.process_time``): on a
shared machine, other work disturbs them far less than wall-clock time.
"""

from __future__ import annotations

import time
from typing import Callable, Optional

import numpy as np


def uniform_legal(obs, rng: np.random.Generator) -> int:
    """A uniformly random legal action."""
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def roll_often(p_roll: float) -> Callable:
    """For roll(1)/hold(0) games: roll with probability ``p_roll`` whenever holding is legal."""

    def choose(obs, rng):
        return 1 if obs["action_mask"][0] == 0 or rng.random() < p_roll else 0

    return choose


def agent_steps_per_second(
    make_env: Callable, steps: int, choose: Optional[Callable] = None, seed: int = 0, warmup: int = 0
) -> float:
    """Agent steps per CPU second of ``env.last()`` + ``env.step()`` over whole games.

    ``choose(obs, rng)`` picks the action (default :func:`uniform_legal`);
    ``warmup`` steps are played first and not timed (to fill caches built on first use).
    """
    choose = choose or uniform_legal
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done, timed_from, t0 = 0, None, None
    while done < warmup + steps:
        for _ in env.agent_iter():
            if timed_from is None and done >= warmup:
                timed_from, t0 = done, time.process_time()
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(choose(obs, rng))
            done += 1
        env.reset()
    return (done - timed_from) / (time.process_time() - t0)  # type: ignore[operator]  # both set when timing began
