"""
# The Shakes (single agent: the court)

| Import             | `gymnasium.make("dice_envs/Shakes-v0", num_players=4)` (after `import dice_envs`) |
|--------------------|-----------------------------------------------------------------|
| Batched            | `gymnasium.make_vec("dice_envs/Shakes-v0", num_envs=N, vectorization_mode="vector_entry_point")` |
| Action Space       | Discrete(n): the treatment the patient gets                      |
| Observation Space  | Box `(2n + 2,)`: treated and saved per treatment, patients left, total saved |
| Action mask        | `env.unwrapped.action_masks()` (sb3-contrib finds it), also `info["action_mask"]` (every treatment is legal) |

### Description

The court game of :mod:`dice_envs.shakes_v0` (``mode="court"``): one decision maker
gives each of the 12 or 18 patients one of the ``n`` treatments, whose efficacies (a
shuffled known multiset) it never sees.  It is a single-agent game already, so no
opponent is involved; its Bayes-optimal policy and value are solved exactly by
``dice-envs solve shakes --players N`` (:mod:`dice_envs.agents.shakes.solver`), the
yardstick for a learned court.

### Rewards

``objective="win"``: 1 if the team saved enough patients (5 of 12 with 2-3
treatments, 7 of 18 with 4-6), else 0; ``objective="saved"``: the patients saved.
Paid on the last step.

### Arguments

``` python
gymnasium.make("dice_envs/Shakes-v0", num_players=4, objective="win", render_mode=None,
               max_cycles=None, illegal_action="terminate")
```

``illegal_action``: ``"terminate"`` (-1 and the episode ends, PettingZoo's
convention) or ``"raise"``; every treatment is legal, so only an action out of range
is illegal.

### Version History

* v0: initial release (dice_envs 0.1.0)
"""

from __future__ import annotations

from typing import Optional

from dice_envs.envs.single_agent import SingleAgentEnv
from dice_envs.envs.vector import BatchedSingleAgentEnv, random_opponent
from dice_envs.games.shakes.batched import ShakesCourtBatch
from dice_envs.games.shakes.env import raw_env
from dice_envs.games.shakes.rules import CourtGame

__all__ = ["ShakesEnv", "ShakesVectorEnv"]


class ShakesEnv(SingleAgentEnv):
    """The Shakes' court game as a Gymnasium env (see the module docstring)."""

    def __init__(self, num_players: int = 4, objective: str = "win", render_mode: Optional[str] = None,
                 max_cycles: Optional[int] = None, illegal_action: str = "terminate"):
        aec = raw_env(num_players=num_players, mode="court", objective=objective, max_cycles=max_cycles)
        super().__init__(aec, {}, seat=0, render_mode=render_mode, illegal_action=illegal_action)


class ShakesVectorEnv(BatchedSingleAgentEnv):
    """``num_envs`` court games in one array program (:class:`dice_envs.games.shakes.batched.ShakesCourtBatch`).
    See :class:`dice_envs.envs.vector.BatchedSingleAgentEnv`."""

    def __init__(self, num_envs: int, num_players: int = 4, objective: str = "win",
                 render_mode: Optional[str] = None, max_cycles: Optional[int] = None,
                 illegal_action: str = "terminate"):
        if render_mode is not None:
            raise ValueError(f"the batched Shakes env does not render; render_mode must be None, got {render_mode!r}")
        batch = ShakesCourtBatch(num_envs, game=CourtGame(num_players, objective))
        # The court is the only seat: the opponent is never asked.
        super().__init__(batch, random_opponent, seat=0, max_cycles=max_cycles, illegal_action=illegal_action)
