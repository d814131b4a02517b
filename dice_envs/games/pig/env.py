"""
# Pig

| Import             | `from dice_envs import pig_v0`                                |
|--------------------|---------------------------------------------------------------|
| Registry id        | `pettingzoo.make("aec", "dice_envs/pig-v0")`                  |
| Actions            | Discrete                                                      |
| Parallel API       | No                                                            |
| Agents             | `agents= ['player_0', 'player_1']`                            |
| Action Shape       | (1,)                                                          |
| Action Values      | Discrete(2): 0 = hold, 1 = roll                               |
| Observation Shape  | (4,)                                                          |
| Observation Values | [0, goal + largest face - 1]                                  |

Pig is the classic jeopardy dice game: on your turn you roll one die as often as
you like, adding each roll to a turn total, until you hold (bank the turn total
and pass the turn) or roll a 1 (lose the turn total).  The first player to reach
100 wins.  Neller and Presser ("Optimal Play of the Dice Game Pig", 2004) solved
it exactly: the optimal first player wins with probability 0.5306.  The rules
live in :mod:`dice_envs.games.pig.rules`, the optimal policy and exact evaluation of any
policy in :mod:`dice_envs.agents.pig.solver`.

As in that model, the game ends the moment the mover's score plus turn total
reaches the goal (holding then wins, so no decision is left).

### Arguments

``` python
pig_v0.env(goal=100, die=None, render_mode=None, max_cycles=None,
    observation="dict")
```

`goal`: the winning score, a positive integer.  `die`: a
`dice_envs.core.dice.Die` with distinct positive integer faces (default a fair d6;
1 busts, every other face scores its value), e.g. `d(6).loaded(6, Fraction(5, 4))`
to study an imperfect die.  `render_mode`: `None`, `"ansi"`, `"human"` or `"rgb_array"` (a picture of the table).
`max_cycles`: truncate after this many decisions (`None`: never; the game ends
with probability 1 under any policy that holds with some turn total).

### Observation Space

A dictionary with `"observation"` (float32 vector) and `"action_mask"`.  Pig has
no hidden information: `observation = [own score, opponent score, turn total,
1 if it is the observer's turn]` (the turn total is the mover's).

### Legal Actions Mask

`action_mask[0]` (hold) is 1 only after the player has rolled this turn (a player
must roll at the start of a turn).  `action_mask[1]` (roll) is 1 whenever it is
the player's turn.  Both are 0 for the player who is not to move.

### Action Space

0 = hold (bank the turn total and pass), 1 = roll.

### Rewards

+1 for the winner and -1 for the loser when the game ends; 0 before.  A
truncated game (`max_cycles`) pays 0.  In `env()`, an illegal action ends the
game with -1 for the offender (PettingZoo's `TerminateIllegalWrapper`); in
`raw_env` it raises `IllegalActionError` (a `ValueError`) naming the legal actions.

### Version History

* v0: initial release (dice_envs 0.1.0)
"""

from __future__ import annotations

from typing import Optional

from dice_envs.core.dice import Die, d
from dice_envs.core.spiel import LONG_GAME, SpielGame
from dice_envs.envs.aec import RulesCoreEnv, wrap_env
from dice_envs.games.pig.rules import DEFAULT_GOAL, PigGame

__all__ = ["env", "raw_env", "OPENSPIEL"]


def env(**kwargs):
    """The wrapped environment (illegal moves end the game with -1)."""
    return wrap_env(raw_env(**kwargs))


class raw_env(RulesCoreEnv):
    """Pig as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**RulesCoreEnv.metadata, "name": "pig_v0"}
    game: PigGame

    def __init__(
        self,
        goal: int = DEFAULT_GOAL,
        die: Optional[Die] = None,
        render_mode: Optional[str] = None,
        max_cycles: Optional[int] = None,
        observation: str = "dict",
    ):
        super().__init__(PigGame(goal, die), render_mode=render_mode, max_cycles=max_cycles,
                         observation=observation)


def _spiel_game(p: dict) -> PigGame:
    return PigGame(p["goal"], d(p["sides"]))


#: Pig as an OpenSpiel game (``dice_envs_pig``, :mod:`dice_envs.openspiel`), with a fair die of
#: ``sides`` faces; OpenSpiel's own ``pig`` parameter names are accepted too.
OPENSPIEL = SpielGame(
    "Pig (dice_envs)", dict(goal=100, sides=6), _spiel_game, "perfect", lambda g: "zero_sum",
    lambda g: len(g.die.faces), lambda g: (-1.0, 1.0), lambda g: LONG_GAME, hidden=False,
    aliases={"winscore": "goal", "diceoutcomes": "sides"})
