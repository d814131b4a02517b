"""
# Pig (single agent)

| Import             | `gymnasium.make("dice_envs/Pig-v0", opponent="optimal")` (after `import dice_envs`) |
|--------------------|-----------------------------------------------------------------|
| Batched            | `gymnasium.make_vec("dice_envs/Pig-v0", num_envs=N, vectorization_mode="vector_entry_point")` |
| Action Space       | Discrete(2): 0 = hold, 1 = roll                                 |
| Observation Space  | Box(4,): own score, opponent score, turn total, to-move flag (`observation="scaled"`: the first three divided by the goal; `"fourier"`: Box(44,), with waves of them) |
| Action mask        | `env.unwrapped.action_masks()` (sb3-contrib finds it), also `info["action_mask"]`   |
| Opponents          | `"optimal"`, `"hold_at_N"` (e.g. `"hold_at_20"`), `"random"`, a policy `(i, j, k)` |

### Description

The Pig game of :mod:`dice_envs.pig_v0` seen from one seat: the other seat is
played by a chosen opponent inside :meth:`step`.  ``"optimal"`` is Neller and
Presser's optimal policy, solved exactly for the game's goal and die
(:mod:`dice_envs.agents.pig.solver`), so a learned agent's distance from optimal play
can be measured exactly.

### Rewards

+1 if the agent wins, -1 if it loses, on the last step; 0 otherwise.

### Episode End

The game is over (or ``max_cycles`` decisions were played: truncation).

### Arguments

``` python
gymnasium.make("dice_envs/Pig-v0", opponent="optimal", goal=100, die=None, seat=None,
               observation="full", auto_forced=False, render_mode=None, max_cycles=None, illegal_action="terminate")
```

``observation``: ``"full"`` (default), the AEC observation vector; ``"scaled"``, the
same vector with the scores and the turn total divided by the goal (the scale a
network learns from; ``experiments/train_pig.py`` uses it); or ``"fourier"``, the
scaled vector followed by sines and cosines of the scores, the turn total and the
score a hold banks at five frequencies
(:meth:`dice_envs.games.pig.rules.PigGame.fourier_observation`), with which a small network can
draw the optimal policy's jagged hold boundary.
``seat``: the agent's seat, or None to draw it at every reset.  ``auto_forced``: the
first roll of a turn (the only legal action) is made for the agent.  The rest as in
:mod:`dice_envs.pig_v0` and :class:`dice_envs.envs.single_agent.SingleAgentEnv`.

### Version History

* v0: initial release (dice_envs 0.1.0)
"""

from __future__ import annotations

from typing import Callable, Optional, Tuple

import numpy as np
from gymnasium import spaces

from dice_envs.core.dice import Die
from dice_envs.envs.single_agent import SingleAgentEnv
from dice_envs.envs.vector import BatchedSingleAgentEnv
from dice_envs.games.pig.batched import PigBatch
from dice_envs.games.pig.env import raw_env
from dice_envs.games.pig.rules import DEFAULT_GOAL, OBSERVATIONS, PigGame

__all__ = ["PigEnv", "PigVectorEnv"]

def _encoding(observation: str, game: PigGame) -> Tuple[Optional[Callable[[np.ndarray], np.ndarray]],
                                                        Optional[spaces.Box]]:
    """``(transform, observation_space)`` of ``observation``: how the AEC observation vector is
    encoded (:meth:`dice_envs.games.pig.rules.PigGame.encoded_observation`), and the Box of the result
    (both None for the AEC's own)."""
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {list(OBSERVATIONS)}, got {observation!r}")
    if observation == "full":
        return None, None
    space = spaces.Box(*game.encoded_bounds(observation), dtype=np.float32)
    return (lambda obs: game.encoded_observation(obs, observation)), space


class PigEnv(SingleAgentEnv):
    """Pig from one seat against a fixed opponent (see the module docstring)."""

    def __init__(self, opponent="optimal", goal: int = DEFAULT_GOAL, die: Optional[Die] = None,
                 seat: Optional[int] = None, observation: str = "full", auto_forced: bool = False,
                 render_mode: Optional[str] = None, max_cycles: Optional[int] = None,
                 illegal_action: str = "terminate"):
        aec = raw_env(goal=goal, die=die, max_cycles=max_cycles)
        encode, space = _encoding(observation, aec.game)
        fn = None if encode is None else (lambda state, seat: encode(state.observation(seat)))
        from dice_envs.agents.pig.opponents import make_opponent  # solvers only for opponents

        self.opponent = make_opponent(opponent, aec.game)
        self.observation_kind = observation
        super().__init__(aec, self.opponent, seat=seat, observation_fn=fn, observation_space=space,
                         auto_forced=auto_forced, render_mode=render_mode, illegal_action=illegal_action)


class PigVectorEnv(BatchedSingleAgentEnv):
    """``num_envs`` games of :class:`PigEnv` in one array program (:class:`dice_envs.games.pig.batched.PigBatch`);
    the opponent moves inside the batch.  See :class:`dice_envs.envs.vector.BatchedSingleAgentEnv`."""

    def __init__(self, num_envs: int, opponent="optimal", goal: int = DEFAULT_GOAL, die: Optional[Die] = None,
                 seat: Optional[int] = None, observation: str = "full", auto_forced: bool = False,
                 render_mode: Optional[str] = None, max_cycles: Optional[int] = None,
                 illegal_action: str = "terminate"):
        if render_mode is not None:
            raise ValueError(f"the batched Pig env does not render; render_mode must be None, got {render_mode!r}")
        game = PigGame(goal, die)
        encode, space = _encoding(observation, game)
        fn = None if encode is None else (lambda batch, rows, seats: encode(batch.observe(seats, where=rows)))
        from dice_envs.agents.pig.opponents import make_batched_opponent  # solvers only for opponents

        self.observation_kind = observation
        super().__init__(PigBatch(num_envs, game=game), make_batched_opponent(opponent, game), seat=seat,
                         observation_fn=fn, observation_space=space, auto_forced=auto_forced,
                         max_cycles=max_cycles, illegal_action=illegal_action)
