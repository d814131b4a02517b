"""
# Liar's Dice

| Import             | `from dice_envs import liars_dice_v0`                          |
|--------------------|----------------------------------------------------------------|
| Registry id        | `pettingzoo.make("aec", "dice_envs/liars_dice-v0")`            |
| Actions            | Discrete                                                       |
| Parallel API       | No                                                             |
| Agents             | `agents= ['player_0', 'player_1']` (2 to 6 players)            |
| Action Shape       | (1,)                                                           |
| Action Values      | Discrete(Q * F + 1): bids `0 .. Q*F-1`, the call `Q*F`         |
| Observation Shape  | (n + F + Q * F + 1 + n,)                                       |
| Observation Values | [0, the most dice a player holds]                              |

(`n` players, `F` faces, `Q` the highest quantity one may bid: the number of
dice in play unless `max_quantity` says otherwise.)

Every player rolls their dice in secret.  Then, player 0 first (or
`starting_player`), each player
either bids "at least q dice on the table show face f" (a higher quantity with
any face, or the same quantity with a higher face than the last bid) or calls
the last bid.  On a call the dice are shown: a true bid wins for the bidder, a
false one for the caller.  This is the game of the source document "A Roll of the
Liar's Dice" (one die each by default); `wild="highest"` (or `True`) makes the
highest face wild, which is OpenSpiel's `liars_dice`, and `wild="aces"` makes
face 1 wild, as at most tables (a bid on 1s then counts only 1s).  The rules live in :mod:`dice_envs.games.liars_dice.rules`;
the equilibrium (CFR+, exploitability) in :mod:`dice_envs.agents.liars_dice.solver`.

### Arguments

``` python
liars_dice_v1.env(num_players=2, dice_per_player=None, faces=None, wild=None, max_quantity=None,
                  starting_player=0, render_mode=None, max_cycles=None,
    observation="dict", game=None)
```

`num_players`: 2 to 6.  `dice_per_player`: 1 to 5 (1 when not given), the same for everybody, or one
count per player such as `(2, 1)`.  `faces`: 2 to 6 (6 when not given).  `wild`: `"none"` (`False`,
when not given), `"highest"` (`True`) or `"aces"`.  `game`: a named game
(:mod:`dice_envs.games.liars_dice.named`: `"LD2D5F"`, the field's benchmark, `"LD1D6F"`, ...), which
sets `dice_per_player`, `faces` and `wild`; given with it, they must agree with it (`ValueError`).
`max_quantity`: highest quantity one
may bid (`None`: the number of dice in play; the source document's F# program uses
`faces`).  `starting_player`: who bids first.  `render_mode`: `None`, `"ansi"`, `"human"` or `"rgb_array"` (a picture of the table).  `max_cycles`:
truncate after this many decisions (a round never takes more than
`Q * F + 1` decisions anyway).

### Observation Space

A dictionary with `"observation"` (float32 vector) and `"action_mask"`.  The
observation is the player's information state, with perfect recall:

| part | size | meaning |
|---|---|---|
| seat | n | one-hot of the observing player |
| own dice | F | how many of the player's dice show each face |
| bids | Q * F | 1 for every bid made so far |
| call | 1 | 1 once the last bid has been called |
| dice counts | n | how many dice each player holds (public) |

Bids only go up and players bid in turn, so the set of bids made is the whole
public history (the k-th smallest bid was made by player
`(starting_player + k) mod n`).  The first four parts are the whole observation
of v0 (`liars_dice_v0`, kept for the models trained on it).

### Legal Actions Mask

The bids above the last one, and the call once there has been a bid.  All zero
for the player who is not to move.

### Action Space

Bid `(q, f)` is action `(q - 1) * F + (f - 1)` (OpenSpiel's numbering); the call
is action `Q * F`.

### Rewards

+1 for the winner of the call and -1 for the loser (0 for the other players
when there are more than two).  In `env()`, an illegal action ends the game with
-1 for the offender (PettingZoo's `TerminateIllegalWrapper`); in `raw_env` it
raises `IllegalActionError` (a `ValueError`) naming the legal actions.

### Version History

* v1: the dice counts appended to the observation (the first four parts are v0's); dice per
  player, the aces-wild rule and the starting player (their defaults play v0's game).
* v0: initial release (dice_envs 0.1.0): the observation is seat, own dice, bids and call
  (`(n + F + Q * F + 1,)`); kept as `dice_envs.liars_dice_v0` and `dice_envs/liars_dice-v0`,
  with v1's arguments.
"""

from __future__ import annotations

from typing import Optional, cast

import numpy as np
from gymnasium import spaces

from dice_envs.core.game import GameState
from dice_envs.core.spiel import SpielGame, none_for_minus_one
from dice_envs.envs.aec import RulesCoreEnv, wrap_env
from dice_envs.games.liars_dice.named import RULES_DEFAULTS, rules_arguments, same_argument
from dice_envs.games.liars_dice.rules import LiarsDiceGame

__all__ = ["env", "raw_env", "env_v0", "raw_env_v0", "observation_v0", "observation_space_v0", "OPENSPIEL"]


def env(**kwargs):
    """The wrapped environment (illegal moves end the game with -1)."""
    return wrap_env(raw_env(**kwargs))


def env_v0(**kwargs):
    """The wrapped environment of version 0 (:class:`raw_env_v0`)."""
    return wrap_env(raw_env_v0(**kwargs))


def observation_v0(state: GameState, seat: int) -> np.ndarray:
    """``seat``'s observation in version 0 (``state`` a Liar's Dice state): seat, own dice, bids and
    call (the current observation without the dice counts)."""
    return state.observation(seat)[: cast(LiarsDiceGame, state.game).prefix_size]


def observation_space_v0(game: LiarsDiceGame) -> spaces.Box:
    """The Box of :func:`observation_v0`."""
    low, high = game.observation_bounds()
    return spaces.Box(low[: game.prefix_size], high[: game.prefix_size], dtype=np.float32)


class raw_env(RulesCoreEnv):
    """Liar's Dice as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**RulesCoreEnv.metadata, "name": "liars_dice_v1"}
    game: LiarsDiceGame

    def __init__(
        self,
        num_players: int = 2,
        dice_per_player=None,
        faces: Optional[int] = None,
        wild=None,
        max_quantity: Optional[int] = None,
        starting_player: int = 0,
        render_mode: Optional[str] = None,
        max_cycles: Optional[int] = None,
        observation: str = "dict",
        game: Optional[str] = None,
    ):
        rules = rules_arguments(game, dice_per_player=dice_per_player, faces=faces, wild=wild)
        game_ = LiarsDiceGame(num_players, rules["dice_per_player"], rules["faces"], rules["wild"], max_quantity,
                              starting_player)
        super().__init__(game_, render_mode=render_mode, max_cycles=max_cycles,
                         observation=observation)


class raw_env_v0(raw_env):
    """Version 0 of :class:`raw_env`: the same game and arguments, the observation without the
    dice counts (:func:`observation_v0`), as the models trained on it read it."""

    metadata = {**raw_env.metadata, "name": "liars_dice_v0"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        vector = observation_space_v0(self.game)
        self._observation_space = vector if self.flat else spaces.Dict(
            {"observation": vector, "action_mask": self._observation_space["action_mask"]})
        self.observation_spaces = {a: self._observation_space for a in self.possible_agents}

    def observe(self, agent):
        vector = observation_v0(self.state_, self.agent_name_mapping[agent])
        return vector if self.flat else {"observation": vector, "action_mask": self.action_mask(agent)}


def _spiel_game(p: dict) -> LiarsDiceGame:
    """``dice``, a string such as ``"2,1"``, gives one count per player (empty: ``dice_per_player``
    each); ``wild_rule`` (``"aces"``, ``"highest"``, ``"none"``; empty: the bool ``wild``) the wild rule;
    ``game`` a named game (empty: none), which the rules parameters given away from their defaults
    must agree with (pyspiel hands a game every parameter, so one at its default counts as not given)."""
    dice = p["dice_per_player"]
    if p["dice"]:
        try:
            dice = tuple(int(n) for n in p["dice"].replace(" ", ",").split(",") if n)
        except ValueError:
            raise ValueError(f"dice must be counts such as '2,1', got {p['dice']!r}") from None
    given = {"dice_per_player": dice, "faces": p["faces"], "wild": p["wild_rule"] or p["wild"]}
    if p["game"]:
        given = {key: None if same_argument(key, value, RULES_DEFAULTS[key]) else value for key, value in given.items()}
    rules = rules_arguments(p["game"] or None, **given)
    return LiarsDiceGame(p["num_players"], rules["dice_per_player"], rules["faces"], rules["wild"],
                         none_for_minus_one(p["max_quantity"]), p["starting_player"])


#: The round as an OpenSpiel game (``dice_envs_liars_dice``, :mod:`dice_envs.openspiel`); OpenSpiel's own
#: ``liars_dice`` parameter names are accepted too, and ``game`` names a game of
#: :mod:`dice_envs.games.liars_dice.named` (``dice_envs_liars_dice(game=LD2D5F)``).
OPENSPIEL = SpielGame(
    "Liar's Dice (dice_envs)",
    dict(num_players=2, dice_per_player=1, faces=6, wild=False, max_quantity=-1, dice="", wild_rule="",
         starting_player=0, game=""), _spiel_game,
    "imperfect", lambda g: "zero_sum",  # +1, -1 and 0s with any number of players
    lambda g: max(len(g.roll_distribution(p)) for p in range(g.num_players)),
    lambda g: (-1.0, 1.0), lambda g: g.num_bids + 1, hidden=True, players=(2, 6),
    aliases={"players": "num_players", "numdice": "dice_per_player", "dice_sides": "faces"},
    overrides={"wild_rule": "wild", "dice": "dice_per_player",
               "game": ("dice_per_player", "faces", "wild", "dice", "wild_rule")},
    private=lambda g: slice(g.num_players, g.num_players + g.faces),  # own dice
    chance_parts=lambda g: [g.roll_distribution(p) for p in range(g.num_players)],
    observation_is_information_state=True)
