"""
# Liar's Dice, the whole game

| Import             | `from dice_envs import liars_dice_match_v0`                    |
|--------------------|----------------------------------------------------------------|
| Registry id        | `pettingzoo.make("aec", "dice_envs/liars_dice_match-v0")`      |
| Actions            | Discrete                                                       |
| Parallel API       | No                                                             |
| Agents             | `agents= ['player_0', 'player_1']` (2 to 6 players)            |
| Action Shape       | (1,)                                                           |
| Action Values      | Discrete(D * F + 1): bids 0..D*F-1, call = D*F                 |
| Observation Shape  | (n + F + D * F + 1 + n,)                                       |
| Observation Values | [0, the most dice a player starts with]                        |

(`n` players, `F` faces, `D` the number of dice at the start.)

The game of losing dice (Dudo, Perudo): rounds of :mod:`dice_envs.liars_dice_v0` until one
player has dice left.  In each round everybody still in rolls all the dice they hold and
bids or calls in turn; the loser of the call loses a die and starts the next round (or the
winner does, `next_starter="winner"`).  A player without dice is out.  Bids in a round go
up to the number of dice in play then.  The rules live in :mod:`dice_envs.games.liars_dice.match`;
the solver, which solves the whole game from its round games, in
:mod:`dice_envs.agents.liars_dice.match_solver`.

### Arguments

``` python
liars_dice_match_v0.env(num_players=2, dice_per_player=2, faces=6, wild="aces", starting_player=0,
                        next_starter="loser", render_mode=None, max_cycles=None,
    observation="dict")
```

`dice_per_player`: 1 to 5 each, one count for everybody or one per player (`(2, 1)`).
`wild`: `"aces"` (face 1 wild, as most tables play), `"highest"` or `"none"`.
`starting_player`: who starts the first round.

### Observation Space

A dictionary with `"observation"` (float32 vector) and `"action_mask"`:

| part | size | meaning |
|---|---|---|
| seat | n | one-hot of the observing player |
| own dice | F | how many of the player's dice show each face (0 once out) |
| bids | D * F | 1 for every bid made this round |
| call | 1 | always 0 for the player to act |
| dice counts | n | how many dice each player holds (public) |

Bids only go up and the players still in bid in turn, so the set of this round's bids, with
the dice counts, is all of this round's public history; earlier rounds' dice are rolled anew
and tell nothing about the rest of the game.

### Legal Actions Mask

The bids above the last one whose quantity is at most the dice in play, and the call once
there has been a bid.

### Rewards

At the end: +1 to the last player with dice, -1 to the other (two players); with more
players, -1 / (n - 1) to each other player.  In `env()`, an illegal action ends the game with
-1 for the offender (PettingZoo's `TerminateIllegalWrapper`); `raw_env` raises
`IllegalActionError` (a `ValueError`).

### Version History

* v0: initial release
"""

from __future__ import annotations

from typing import Optional

from dice_envs.envs.aec import RulesCoreEnv, wrap_env
from dice_envs.games.liars_dice.match import LiarsDiceMatchGame

__all__ = ["env", "raw_env"]


def env(**kwargs):
    """The wrapped environment (illegal moves end the game with -1)."""
    return wrap_env(raw_env(**kwargs))


class raw_env(RulesCoreEnv):
    """The whole game of Liar's Dice as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**RulesCoreEnv.metadata, "name": "liars_dice_match_v0"}
    game: LiarsDiceMatchGame

    def __init__(
        self,
        num_players: int = 2,
        dice_per_player=2,
        faces: int = 6,
        wild="aces",
        starting_player: int = 0,
        next_starter: str = "loser",
        render_mode: Optional[str] = None,
        max_cycles: Optional[int] = None,
        observation: str = "dict",
    ):
        game = LiarsDiceMatchGame(num_players, dice_per_player, faces, wild, starting_player, next_starter)
        super().__init__(game, render_mode=render_mode, max_cycles=max_cycles,
                         observation=observation)
