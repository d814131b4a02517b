"""
# Zombie Dice

| Import             | `from dice_envs import zombie_dice_v0`                        |
|--------------------|---------------------------------------------------------------|
| Registry id        | `pettingzoo.make("aec", "dice_envs/zombie_dice-v0")`          |
| Actions            | Discrete                                                      |
| Parallel API       | No                                                            |
| Agents             | `agents= ['player_0', 'player_1']` (2 to 8 players)           |
| Action Shape       | (1,)                                                          |
| Action Values      | Discrete(2): 0 = hold, 1 = roll                               |
| Observation Shape  | (4n + 16,) official, (4n + 8,) all yellow                     |
| Observation Values | [0, inf): scores and turn brains; the rest bounded            |

Zombie Dice is a push-your-luck dice game: on your turn you roll three dice,
keep the brains, suffer the shotguns, and re-roll the footprints until you hold
(bank the brains) or collect three shotguns (lose the turn's brains).  The first
player to end a turn with 13 brains makes it the last round; the highest score
after the round wins, and tied leaders play tiebreaker rounds among themselves.
The rules live in :mod:`dice_envs.games.zombie_dice.rules`.

`variant="all_yellow"` plays with 13 yellow dice, the game solved exactly by
Neller et al.; its optimal policy is in :mod:`dice_envs.agents.zombie_dice.ayzd_solver`.

### Arguments

``` python
zombie_dice_v0.env(num_players=2, variant="official", goal=13, stop_when_won=True,
                   render_mode=None, max_cycles=None,
    observation="dict")
```

`num_players`: 2 to 8.  `variant`: `"official"` or `"all_yellow"`.  `goal`: the
score that triggers the last round.  `stop_when_won`: the game ends as soon as
it is decided (the last player of a round holds automatically when holding wins,
as in the AYZD paper's model); `False` follows the letter of the official rules,
where that player may roll on and bust.  `render_mode`: `None`, `"ansi"`, `"human"`
or `"rgb_array"` (a picture of the table).  `max_cycles`: truncate after this many decisions (`None`: never; a
game ends with probability 1 under any policy that ever holds with brains).

### Observation Space

A dictionary with `"observation"` (float32 vector) and `"action_mask"`.  The
game has no hidden information, so every player sees the whole table, with the
seats rotated so that index 0 is the observer:

| part | size | meaning |
|---|---|---|
| scores | n | brains banked, observer first |
| to move | n | one-hot of the seat whose turn it is |
| in round | n | seats still playing (only the tied leaders in a tiebreak) |
| played | n | seats that already had their turn this round |
| turn | 4 | turn brains, shotguns, has rolled this turn, last round |
| dice | 4c | per colour (green, yellow, red; or yellow): in the cup, brain dice set aside, shotgun dice set aside, footprint dice to re-roll |

The Box's bounds are finite where the rules bound the value: flags 1, shotguns 5 (two, then a
roll of three), dice counts the dice of each colour.  Scores and turn brains have no bound (brain
dice go back in the cup when it runs low, so a turn may roll on for ever), so their upper bound
is `inf`, which Gymnasium's `check_env` mentions; the scaled and compact observations of
`dice_envs/ZombieDice-v0` divide them by the goal.

### Legal Actions Mask

`action_mask[0]` (hold) is 1 only after the player has rolled this turn; a player
must roll at least once.  `action_mask[1]` (roll) is 1 whenever it is the
player's turn.  Both are 0 for the player who is not to move.

### Action Space

0 = hold (bank this turn's brains and pass), 1 = roll.

### Rewards

+1 for the winner and -1 for every other player, when the game ends.  Ties
cannot end a game: tied leaders keep playing tiebreaker rounds.  A truncated
game (`max_cycles`) pays 0.  In `env()`, an illegal action ends the game with -1
for the offender (PettingZoo's `TerminateIllegalWrapper`); in `raw_env` it
raises `IllegalActionError` (a `ValueError`) naming the legal actions.

### Version History

* v0: initial release (dice_envs 0.1.0)
"""

from __future__ import annotations

from typing import Optional

from dice_envs.core.spiel import LONG_GAME, SpielGame, winner_takes_all
from dice_envs.envs.aec import RulesCoreEnv, wrap_env
from dice_envs.games.zombie_dice.rules import ZombieDiceGame

__all__ = ["env", "raw_env", "OPENSPIEL"]


def env(**kwargs):
    """The wrapped environment (illegal moves end the game with -1)."""
    return wrap_env(raw_env(**kwargs))


class raw_env(RulesCoreEnv):
    """Zombie Dice as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**RulesCoreEnv.metadata, "name": "zombie_dice_v0"}
    game: ZombieDiceGame

    def __init__(
        self,
        num_players: int = 2,
        variant: str = "official",
        goal: int = 13,
        stop_when_won: bool = True,
        render_mode: Optional[str] = None,
        max_cycles: Optional[int] = None,
        observation: str = "dict",
    ):
        super().__init__(ZombieDiceGame(num_players, variant, goal, stop_when_won), render_mode=render_mode, max_cycles=max_cycles,
                         observation=observation)


#: Zombie Dice as an OpenSpiel game (``dice_envs_zombie_dice``, :mod:`dice_envs.openspiel`).
OPENSPIEL = SpielGame(
    "Zombie Dice (dice_envs)", dict(num_players=2, variant="official", goal=13, stop_when_won=True),
    lambda p: ZombieDiceGame(p["num_players"], p["variant"], p["goal"], p["stop_when_won"]), "perfect",
    winner_takes_all, lambda g: 4096, lambda g: (-1.0, 1.0), lambda g: LONG_GAME, hidden=False, players=(2, 8))
