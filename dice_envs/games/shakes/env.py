"""
# The Shakes

| Import             | `from dice_envs import shakes_v0`                                  |
|--------------------|--------------------------------------------------------------------|
| Registry id        | `pettingzoo.make("aec", "dice_envs/shakes-v0", mode="court")`      |
| Actions            | Discrete                                                           |
| Parallel API       | No                                                                 |
| Agents             | court: `['player_0']`; maesters: `['player_0', ..., 'player_{n-1}']` |
| Action Shape       | (1,)                                                               |
| Action Values      | court: Discrete(n), the treatment; maesters: Discrete(2), 0 = yield, 1 = argue |
| Observation Shape  | court: (2n + 2,); maesters: (2n + 3,)                              |
| Observation Values | [0, patients]                                                      |

The Shakes (Allen Downey) is a cooperative Bayesian dice game for 2 to 6
players: each maester champions a treatment of hidden efficacy (a shuffled
multiset such as 4, 2, 1, 1 sixths), and for each of 12 or 18 patients the
maesters argue with dice over who treats; the team wins if enough patients
survive.  The argument (roll treated + 1 dice, drop one per saved patient from
the lowest, keep the lowest) is a dice form of Thompson sampling.  The rules live
in :mod:`dice_envs.games.shakes.rules`; exact solvers in :mod:`dice_envs.agents.shakes.solver`.

Two modes:

* `mode="court"`: a single agent (the court) decides which treatment each patient
  gets.  It sees only the public record.  This is a Bayesian bandit with a known
  prior; its Bayes-optimal policy is computed exactly by
  `dice-envs solve shakes --players N`.
* `mode="maesters"`: one agent per maester.  Each sees its own efficacy card and
  the public record, and every round chooses to argue (roll by the source document's dice
  rule) or to yield.  The arguing maesters roll; the strongest treats (ties are
  re-rolled by the tied maesters only).  If everyone yields, everyone argues.
  Declarations within a round are simultaneous: a maester does not see the
  others' choices for the current round.

**Best joint play (maesters, cooperative).**  The card holder of the unique
highest efficacy knows it, so the joint policy "argue if and only if your card
is the highest" gives every patient the best treatment: that is the
full-information optimum, an upper bound on any policy, so it is optimal (team
win probability `P(Binomial(patients, e_max / 6) >= threshold)`, e.g. 0.806 with
2 players and 0.996 with 4 to 6; `dice_envs.agents.shakes.policies.argue_if_best`).  The source document's
play (everyone always argues) is the dice rule, and is worth much less (see the table
in ``docs/games/shakes.md``).  In the competitive variant all cards show 3, so cards carry
no information; the source document's play is for everyone to argue, and with 2 and 3 players
that is an equilibrium: against everyone else arguing, yielding is never strictly
better in any state (`dice_envs.agents.shakes.solver.competitive_best_response`, exact).
With everyone arguing, the game is a draw (nobody saves 3 before the patients run
out) with probability 0.066, 0.129, 0.028, 0.048, 0.072 for 2 to 6 players.

### Arguments

``` python
shakes_v0.env(num_players=4, mode="court", variant="cooperative", objective="win",
              until_winner=False, render_mode=None, max_cycles=None,
    observation="dict")
```

`num_players`: 2 to 6 (treatments / maesters).  `mode`: `"court"` or
`"maesters"`.  `variant`: `"cooperative"` or (maesters only) `"competitive"`
(all efficacies 3; first to save 3 wins).  `objective`: cooperative reward,
`"win"` or `"saved"`.  `until_winner`: competitive only; play past the table's
patients until someone saves 3 (default: the game is a draw when they run out).
`render_mode`: `None`, `"ansi"`, `"human"` or `"rgb_array"` (a picture of the table).  `max_cycles`: truncate after this
many decisions.

### Observation Space

A dictionary with `"observation"` (float32 vector) and `"action_mask"`.

| mode | part | size | meaning |
|---|---|---|---|
| maesters | card | 1 | the observer's own efficacy (private) |
| both | treated | n | patients treated by each treatment (maesters: the observer first) |
| both | saved | n | patients saved by each treatment |
| both | patients left | 1 | patients still to treat (0 when unlimited) |
| both | total saved | 1 | patients saved so far |

The court never sees an efficacy; a maester sees only its own.

### Legal Actions Mask

Every action is legal for the agent to act (court: every treatment; maesters:
yield and argue); the mask is all zeros for agents not to act.

### Action Space

court: `i` = give the patient treatment `i`.  maesters: 0 = yield, 1 = argue.

### Rewards

Paid when the game ends.  Cooperative, `objective="win"`: 1 to every agent if the
team saved at least the threshold (5 of 12 with 2-3 players, 7 of 18 with 4-6),
else 0; `objective="saved"`: the number of patients saved.  Competitive: +1 to
the first maester to save 3 patients, -1 to the others; 0 to all in a draw.  In
`env()`, an illegal action ends the game with -1 for the offender.

### Version History

* v0: initial release (dice_envs 0.1.0)
"""

from __future__ import annotations

from typing import Optional, Union

from dice_envs.core.spiel import LONG_GAME, SpielGame
from dice_envs.envs.aec import RulesCoreEnv, wrap_env
from dice_envs.games.shakes.rules import CourtGame, MaestersGame

__all__ = ["env", "raw_env", "OPENSPIEL", "MODES"]

MODES = ("court", "maesters")


def env(**kwargs):
    """The wrapped environment (illegal moves end the game with -1)."""
    return wrap_env(raw_env(**kwargs))


def make_game(num_players: int = 4, mode: str = "court", variant: str = "cooperative", objective: str = "win",
              until_winner: bool = False):
    """The rules-core game for these arguments (raises ``ValueError`` on bad ones)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if mode == "court":
        if variant != "cooperative":
            raise ValueError("variant must be 'cooperative' in mode='court' (the competitive game needs maesters)")
        if until_winner:
            raise ValueError("until_winner is a competitive option; mode='court' is cooperative")
        return CourtGame(num_players, objective)
    return MaestersGame(num_players, variant, objective, until_winner)


class raw_env(RulesCoreEnv):
    """The Shakes as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**RulesCoreEnv.metadata, "name": "shakes_v0"}
    game: Union[CourtGame, MaestersGame]

    def __init__(
        self,
        num_players: int = 4,
        mode: str = "court",
        variant: str = "cooperative",
        objective: str = "win",
        until_winner: bool = False,
        render_mode: Optional[str] = None,
        max_cycles: Optional[int] = None,
        observation: str = "dict",
    ):
        self.mode = mode
        super().__init__(make_game(num_players, mode, variant, objective, until_winner),
                         render_mode=render_mode, max_cycles=max_cycles,
                         observation=observation)


def _spiel_utility(game) -> str:
    """The cooperative game pays every player the same; the competitive one is winner-takes-all."""
    if not game.rules.competitive:
        return "identical"
    return "zero_sum" if game.rules.num_players == 2 else "general_sum"


def _spiel_utilities(game):
    if game.rules.competitive:
        return (-1.0, 1.0)
    if game.objective == "saved":
        return (0.0, float(game.rules.patients))
    return (0.0, 1.0)


#: The Shakes as an OpenSpiel game (``dice_envs_shakes``, :mod:`dice_envs.openspiel`): :func:`make_game`'s
#: arguments are its parameters.
OPENSPIEL = SpielGame(
    "The Shakes (dice_envs)",
    dict(num_players=4, mode="court", variant="cooperative", objective="win", until_winner=False),
    lambda p: make_game(p["num_players"], p["mode"], p["variant"], p["objective"], p["until_winner"]),
    "imperfect", _spiel_utility, lambda g: 6 ** g.rules.num_players, _spiel_utilities,
    lambda g: LONG_GAME if g.rules.until_winner else g.rules.patients * (g.rules.num_players + 1), hidden=True,
    players=(1, 6))
