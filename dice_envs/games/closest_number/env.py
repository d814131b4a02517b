"""
# Closest Number

| Import             | `from dice_envs import closest_number_v0`                      |
|--------------------|----------------------------------------------------------------|
| Registry id        | `pettingzoo.make("aec", "dice_envs/closest_number-v0")`        |
| Actions            | Discrete                                                       |
| Parallel API       | No                                                             |
| Agents             | `agents= ['player_0', 'player_1']` (2 to N // 2 players)       |
| Action Shape       | (1,)                                                           |
| Action Values      | Discrete(2N): card on 1..N = 0..N-1, decoy on 1..N = N..2N-1   |
| Observation Shape  | (N * (n + 3) + 3n + 4,)                                        |
| Observation Values | [0, N * (N + 2)]                                               |

(`N` number cards, 10 by default; `n` players.)

The number cards 1..N lie in a row.  Players take turns putting their own cards
on free numbers; a player scores one point for every number their card is
strictly closer to than anyone else's.  Round 1: one card each.  Round 2: two
cards each, one of them a face-down decoy that occupies its number but does not
score.  The most points after round 2 wins; tied leaders play tiebreak rounds
(round 3, then rounds under round 2's rules with the highest number removed
each time).  The starting player rotates every round.  This is a number-card game by Jorge
Zhang; the rules and the two readings of its round-3 rule are in :mod:`dice_envs.games.closest_number.rules`, the exact
solutions in :mod:`dice_envs.agents.closest_number.round1` (round 1 alone, any number of
players) and :mod:`dice_envs.agents.closest_number.solver` (the full two-player game).

### Arguments

``` python
closest_number_v0.env(num_players=2, numbers=10, starting_player=None, round3="two_cards",
                      render_mode=None, max_cycles=None,
    observation="dict")
```

`num_players`: 2 to `numbers // 2`.  `numbers`: 4 to 40.  `starting_player`:
the seat that starts round 1, or `None` to draw it at random on `reset`
(with the environment's `np_random`, so `reset(seed=...)` fixes it).
`round3`: `"two_cards"` (round 3 is round 2 with both cards scoring) or
`"one_card"` (round 3 is round 1 again).  `render_mode`: `None`, `"ansi"`, `"human"`
or `"rgb_array"` (a picture of the table).  `max_cycles`: truncate after this many placements.

### Observation Space

A dictionary with `"observation"` (float32 vector) and `"action_mask"`.  Other
seats are listed clockwise from the observer.

| part | size | meaning |
|---|---|---|
| board | N x (n + 3) | per number: own scoring card, own decoy, a card of each opponent (decoy or not: face down), number on this round's board, placement order (1, 2, ...; 0 if free) |
| scores | n | points so far |
| starter | n | one-hot of this round's starting player |
| in contention | n | 1 for the seats still playing (tied leaders in tiebreak rounds) |
| round | 1 | round number (1, 2, 3, ...) |
| decoy round | 1 | 1 in round 2 and rounds 4 and later |
| hand | 2 | own cards left to place this round, 1 if the decoy is still to place |

Opponents' decoys are hidden until the round is scored (then every card is
turned face up; the scores show the result).

### Legal Actions Mask

The free numbers on this round's board; in a decoy round, a player's first card
may be a scoring card or the decoy, and the second card must be the other kind.
All zero for the players who are not to move.

### Action Space

Action `k - 1` puts a scoring card on number `k`; action `N + k - 1` puts the
decoy on number `k`.

### Rewards

+1 for the winner and -1 for every other player, paid when the game ends; in a
draw (still tied after the last, one-number round) the tied leaders get 0.  In
`env()`, an illegal action ends the game with -1 for the offender (PettingZoo's
`TerminateIllegalWrapper`); in `raw_env` it raises `IllegalActionError` (a
`ValueError`) saying why (number taken or off the board, a second decoy, ...)
and listing the legal actions.

### Version History

* v0: initial release (dice_envs 0.1.0)
"""

from __future__ import annotations

from typing import Optional

from dice_envs.core.spiel import SpielGame, none_for_minus_one, winner_takes_all
from dice_envs.envs.aec import RulesCoreEnv, wrap_env
from dice_envs.games.closest_number.rules import MAX_NUMBERS, ClosestNumberGame

__all__ = ["env", "raw_env", "OPENSPIEL"]


def env(**kwargs):
    """The wrapped environment (illegal moves end the game with -1)."""
    return wrap_env(raw_env(**kwargs))


class raw_env(RulesCoreEnv):
    """Closest Number as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**RulesCoreEnv.metadata, "name": "closest_number_v0"}
    game: ClosestNumberGame

    def __init__(
        self,
        num_players: int = 2,
        numbers: int = 10,
        starting_player: Optional[int] = None,
        round3: str = "two_cards",
        render_mode: Optional[str] = None,
        max_cycles: Optional[int] = None,
        observation: str = "dict",
    ):
        game = ClosestNumberGame(num_players, numbers, starting_player, round3)
        super().__init__(game, render_mode=render_mode, max_cycles=max_cycles,
                         observation=observation)


#: Closest Number as an OpenSpiel game (``dice_envs_closest_number``, :mod:`dice_envs.openspiel`).
OPENSPIEL = SpielGame(
    "Closest Number (dice_envs)", dict(num_players=2, numbers=10, starting_player=-1, round3="two_cards"),
    lambda p: ClosestNumberGame(p["num_players"], p["numbers"], none_for_minus_one(p["starting_player"]),
                                p["round3"]),
    "imperfect", winner_takes_all, lambda g: g.num_players, lambda g: (-1.0, 1.0),
    lambda g: 2 * g.num_players * g.numbers * (g.last_round + 1), hidden=True, players=(2, MAX_NUMBERS // 2))
