"""
# Closest Number (single agent)

| Import             | `gymnasium.make("dice_envs/ClosestNumber-v0", opponent="equilibrium")` (after `import dice_envs`) |
|--------------------|-----------------------------------------------------------------|
| Batched            | `gymnasium.make_vec("dice_envs/ClosestNumber-v0", num_envs=N, vectorization_mode="vector_entry_point", opponent="random")` |
| Action Space       | Discrete(2N): card on 1..N, then decoy on 1..N (as :mod:`dice_envs.closest_number_v0`) |
| Observation Space  | Box `(N * (n + 3) + 3n + 4,)`: the AEC observation of the agent's seat |
| Action mask        | `env.unwrapped.action_masks()` (sb3-contrib finds it), also `info["action_mask"]`   |
| Opponents          | `"equilibrium"` (exact, two players), `"random"`, a policy with `action_probabilities(state)` |

### Description

The Closest Number game of :mod:`dice_envs.closest_number_v0` seen from one seat:
the other seats are played by a chosen opponent inside :meth:`step`.  Against
``"equilibrium"`` (the exact equilibrium of
:mod:`dice_envs.agents.closest_number.solver`, for two players) no agent averages
more than 0 over both seats and a random starter, so the agent's average reward
there measures how far it is from equilibrium play.  The equilibrium's round games
are solved on first use (about 5 s for 10 numbers) and kept for the process.

The batched version (:class:`ClosestNumberVectorEnv`, over
:class:`dice_envs.games.closest_number.batched.ClosestNumberBatch`) takes ``"random"`` or a
batched opponent; the equilibrium is a look-up over rules-core states, not batched yet.

### Rewards

+1 if the agent wins, -1 if it loses, 0 in a draw, on the last step.

### Arguments

``` python
gymnasium.make("dice_envs/ClosestNumber-v0", opponent="equilibrium", num_players=2, numbers=10,
               starting_player=None, round3="two_cards", seat=None, render_mode=None,
               max_cycles=None, illegal_action="terminate")
```

As :mod:`dice_envs.closest_number_v0`, plus ``opponent``, ``seat`` (the agent's seat,
or ``None`` to draw it at every reset) and ``illegal_action`` (``"terminate"``: -1
and the episode ends, PettingZoo's convention; or ``"raise"``).

### Version History

* v0: initial release (dice_envs 0.1.0)
"""

from __future__ import annotations

from typing import Optional

from dice_envs.envs.single_agent import SingleAgentEnv
from dice_envs.envs.vector import BatchedSingleAgentEnv
from dice_envs.games.closest_number.batched import ClosestNumberBatch
from dice_envs.games.closest_number.env import raw_env
from dice_envs.games.closest_number.rules import ClosestNumberGame

__all__ = ["ClosestNumberEnv", "ClosestNumberVectorEnv"]


class ClosestNumberEnv(SingleAgentEnv):
    """Closest Number from one seat against a fixed opponent (see the module docstring)."""

    def __init__(self, opponent="equilibrium", num_players: int = 2, numbers: int = 10,
                 starting_player: Optional[int] = None, round3: str = "two_cards", seat: Optional[int] = None,
                 render_mode: Optional[str] = None, max_cycles: Optional[int] = None,
                 illegal_action: str = "terminate"):
        aec = raw_env(num_players=num_players, numbers=numbers, starting_player=starting_player, round3=round3,
                      max_cycles=max_cycles)
        from dice_envs.agents.closest_number.opponents import make_opponent  # solvers only for opponents

        self.opponent = make_opponent(opponent, aec.game)
        super().__init__(aec, self.opponent, seat=seat, render_mode=render_mode, illegal_action=illegal_action)


class ClosestNumberVectorEnv(BatchedSingleAgentEnv):
    """``num_envs`` games of :class:`ClosestNumberEnv` in one array program; the opponent
    (``"random"`` by default, or a batched opponent) moves inside the batch.  See
    :class:`dice_envs.envs.vector.BatchedSingleAgentEnv`."""

    def __init__(self, num_envs: int, opponent="random", num_players: int = 2, numbers: int = 10,
                 starting_player: Optional[int] = None, round3: str = "two_cards", seat: Optional[int] = None,
                 render_mode: Optional[str] = None, max_cycles: Optional[int] = None,
                 illegal_action: str = "terminate"):
        if render_mode is not None:
            raise ValueError(f"the batched Closest Number env does not render; render_mode must be None, "
                             f"got {render_mode!r}")
        game = ClosestNumberGame(num_players, numbers, starting_player, round3)
        from dice_envs.agents.closest_number.opponents import make_batched_opponent  # solvers only for opponents

        super().__init__(ClosestNumberBatch(num_envs, game=game), make_batched_opponent(opponent, game), seat=seat,
                         max_cycles=max_cycles, illegal_action=illegal_action)
