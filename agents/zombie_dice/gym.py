"""
# Zombie Dice (single agent)

| Import             | `gymnasium.make("dice_envs/ZombieDice-v0", opponent="optimal")` (after `import dice_envs`) |
|--------------------|-----------------------------------------------------------------|
| Action Space       | Discrete(2): 0 = hold, 1 = roll                                 |
| Observation Space  | Box: full, scaled `(4n + 8,)` all yellow, `(4n + 16,)` official; fourier +10(n+2); compact `(12,)` |
| Action mask        | `env.unwrapped.action_masks()` (sb3-contrib finds it), also `info["action_mask"]`   |
| Opponents          | `"optimal"`, `"fixed_hold_at"`, `"minh"`, `"llano"`, `"neller"`, `"random"`, a saved model, a policy |

### Description

The Zombie Dice game of :mod:`dice_envs.zombie_dice_v0` seen from one seat: the
other seats are played by a chosen opponent inside :meth:`step` (the generic
:class:`dice_envs.envs.single_agent.SingleAgentEnv`).  With the default
``variant="all_yellow"`` and two players, ``"optimal"`` is the exactly optimal
policy of :mod:`dice_envs.agents.zombie_dice.ayzd_solver`; in the official variant it is the exactly
optimal policy of :mod:`dice_envs.agents.zombie_dice.solver`, which reads the dice colours (solved
once in about a minute, then loaded from the on-disk cache, ``$DICE_ENVS_CACHE`` or
``~/.cache/dice_envs``).

### Observation Space

``observation="full"`` (default): the AEC observation vector of the seat
(see :mod:`dice_envs.zombie_dice_v0`).

``observation="scaled"``: the same vector divided feature by feature by
:meth:`dice_envs.games.zombie_dice.rules.ZombieDiceGame.observation_scale` (scores and turn brains by the goal,
shotguns by 3, each colour's dice counts by that colour's dice in the game), so every feature is
about 0 to 1: the scale a network learns from.  A network trained on it is scored exactly with
:func:`dice_envs.agents.zombie_dice.solver.exact_score` by scaling the solver's observations the
same way (``experiments/train_ayzd.py --variant official``).

``observation="fourier"``: the scaled vector followed by sines and cosines of the scores, the
turn's brains and the score a hold would bank, each over the goal, at five frequencies
(:meth:`dice_envs.games.zombie_dice.rules.ZombieDiceGame.fourier_observation`; 64 values for two players with
the official dice), with which a small network can draw a hold boundary that is jagged in the
scores.  It is scored exactly as the scaled one.

``observation="compact"`` (two-player All Yellow only): a function of the solver's
position ``(p, i, j, b, s)`` alone (:func:`dice_envs.games.zombie_dice.rules.compact_observation`), so a policy
learned on it can be queried in every state of the solver's grid and evaluated
exactly (:mod:`dice_envs.agents.zombie_dice.learned`).  With all-yellow dice the cup and footprint
counts do not change the odds, so nothing the game depends on is lost.

| index | feature |
|---|---|
| 0 | 1 if the agent moves second in the round (``p = 2``) |
| 1, 2, 3 | own score ``i``, opponent score ``j``, turn brains ``b``, each / goal |
| 4, 5 | shotguns ``s`` = 1, ``s`` = 2 (one-hot; 0 is neither) |
| 6, 7 | score after holding ``(i + b) / goal`` and lead after holding ``(i + b - j) / goal`` |
| 8 | someone has reached the goal (last or tiebreaker round) |
| 9, 10 | holding would reach the goal; holding would lead |
| 11 | has rolled this turn (holding is legal) |

### Rewards

+1 if the agent wins, -1 if it loses, on the last step; 0 otherwise.

### Starting State

A new game; the agent's seat is drawn at every reset (``seat=None``) or fixed.

### Episode End

The game is over (or ``max_cycles`` decisions were played: truncation).

### Arguments

``` python
gymnasium.make("dice_envs/ZombieDice-v0", opponent="optimal", variant="all_yellow", num_players=2,
               goal=13, stop_when_won=True, seat=None, observation="full", auto_forced=False,
               render_mode=None, max_cycles=None, illegal_action="terminate")
```

``opponent``: a name above, a path to a model saved by ``experiments/train_ayzd.py``
(``.zip``), an agent with ``act(state)``, or a policy ``policy(p, i, j, b, s)``
over numpy arrays returning the probability of rolling.  With more than two players
only ``"random"`` and agents are possible.  ``auto_forced``: the first roll of a
turn (the only legal action) is made for the agent.  ``illegal_action``:
``"terminate"`` (an illegal action ends the episode with -1, PettingZoo's
convention) or ``"raise"``.  The rest as in
:mod:`dice_envs.zombie_dice_v0`.

### Version History

* v0: initial release (dice_envs 0.1.0)
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
from gymnasium import spaces

from dice_envs.envs.single_agent import SingleAgentEnv
from dice_envs.envs.vector import BatchedSingleAgentEnv
from dice_envs.games.zombie_dice.batched import ZombieDiceBatch
from dice_envs.games.zombie_dice.env import raw_env
from dice_envs.games.zombie_dice.rules import ZombieDiceGame, compact_bounds, compact_from_state

__all__ = ["ZombieDiceEnv", "ZombieDiceVectorEnv", "OBSERVATIONS"]

OBSERVATIONS = ("full", "compact", "scaled", "fourier")


def _observation_kind(observation: str, variant: str, num_players: int) -> str:
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {list(OBSERVATIONS)}, got {observation!r}")
    if observation == "compact" and (variant != "all_yellow" or num_players != 2):
        raise ValueError(
            "observation='compact' needs variant='all_yellow' and num_players=2 "
            f"(got variant={variant!r}, num_players={num_players})"
        )
    return observation


class ZombieDiceEnv(SingleAgentEnv):
    """Zombie Dice from one seat against a fixed opponent (see the module docstring)."""

    def __init__(
        self,
        opponent="optimal",
        variant: str = "all_yellow",
        num_players: int = 2,
        goal: int = 13,
        stop_when_won: bool = True,
        seat: Optional[int] = None,
        observation: str = "full",
        auto_forced: bool = False,
        render_mode: Optional[str] = None,
        max_cycles: Optional[int] = None,
        illegal_action: str = "terminate",
    ):
        aec = raw_env(num_players=num_players, variant=variant, goal=goal, stop_when_won=stop_when_won,
                      max_cycles=max_cycles)
        fn: Optional[Callable[[Any, int], np.ndarray]] = None  # (the env's ZombieDiceState, seat) -> vector
        space = None
        kind = _observation_kind(observation, variant, num_players)
        if kind == "compact":
            fn, space = compact_from_state, spaces.Box(*compact_bounds(), dtype=np.float32)
        elif kind != "full":
            game = aec.game
            fn = lambda state, seat: game.encoded_observation(state.observation(seat), kind)  # noqa: E731
            space = spaces.Box(*game.encoded_bounds(kind), dtype=np.float32)
        from dice_envs.agents.zombie_dice.opponents import make_opponent  # agents depends on dice_envs, not the reverse

        self.observation_kind = observation
        self.opponent = make_opponent(opponent, aec.game)
        super().__init__(aec, self.opponent, seat=seat, observation_fn=fn, observation_space=space,
                         auto_forced=auto_forced, render_mode=render_mode, illegal_action=illegal_action)


class ZombieDiceVectorEnv(BatchedSingleAgentEnv):
    """``num_envs`` games of :class:`ZombieDiceEnv` in one array program.

    ``gymnasium.make_vec("dice_envs/ZombieDice-v0", num_envs=N, vectorization_mode="vector_entry_point",
    ...)`` returns it; the arguments are :class:`ZombieDiceEnv`'s (``render_mode`` must be
    None), and the opponent moves inside the batch (``"optimal"`` and the human
    policies are array look-ups; an agent over single states is not accepted).  Built on
    :class:`dice_envs.games.zombie_dice.batched.ZombieDiceBatch`; see
    :class:`dice_envs.envs.vector.BatchedSingleAgentEnv` for autoreset and ``info``.
    """

    def __init__(
        self,
        num_envs: int,
        opponent="optimal",
        variant: str = "all_yellow",
        num_players: int = 2,
        goal: int = 13,
        stop_when_won: bool = True,
        seat: Optional[int] = None,
        observation: str = "full",
        auto_forced: bool = False,
        render_mode: Optional[str] = None,
        max_cycles: Optional[int] = None,
        illegal_action: str = "terminate",
    ):
        if render_mode is not None:
            raise ValueError(f"the batched Zombie Dice env does not render; render_mode must be None, got {render_mode!r}")
        game = ZombieDiceGame(num_players, variant, goal, stop_when_won)
        fn: Optional[Callable[..., np.ndarray]] = None  # (ZombieDiceBatch, rows, seats) -> observations
        space = None
        kind = _observation_kind(observation, variant, num_players)
        if kind == "compact":
            fn = lambda batch, rows, seats: batch.compact_observation(rows)  # noqa: E731
            space = spaces.Box(*compact_bounds(), dtype=np.float32)
        elif kind != "full":
            fn = lambda batch, rows, seats: game.encoded_observation(batch.observe(seats, where=rows), kind)  # noqa: E731
            space = spaces.Box(*game.encoded_bounds(kind), dtype=np.float32)
        from dice_envs.agents.zombie_dice.opponents import make_batched_opponent  # solvers only for opponents

        self.observation_kind = observation
        super().__init__(ZombieDiceBatch(num_envs, game=game), make_batched_opponent(opponent, game), seat=seat,
                         observation_fn=fn, observation_space=space, auto_forced=auto_forced,
                         max_cycles=max_cycles, illegal_action=illegal_action)
