"""Named Liar's Dice games: the field's benchmark and the rounds the project's learners are scored on.

One name stands for one set of rules, wherever a game is made::

    from dice_envs import liars_dice_v1
    env = liars_dice_v1.env(game="LD2D5F")                       # PettingZoo
    env = gymnasium.make("dice_envs/LiarsDice-v1", game="LD2D5F")  # Gymnasium (after import dice_envs)
    game = pyspiel.load_game("dice_envs_liars_dice(game=LD2D5F)")  # OpenSpiel (after import dice_envs.openspiel)
    # dice-envs solve liars-dice --game LD2D5F; dice-envs evaluate liars-dice MODEL --game LD2D5F

The names follow one rule, the field's (Rudolph et al., ICLR 2026, call OpenSpiel's ``liars_dice``
with two five-sided dice each "LD2D5F"): ``LD<dice>D<faces>F``, then the wild rule unless it is
OpenSpiel's (the highest face wild).  ``<dice>`` is the dice each player holds, or ``<a>v<b>`` for
player 0's and player 1's; ``-aces`` makes face 1 wild, ``-nowild`` no face.  So ``LD1D6F`` is
OpenSpiel's ``liars_dice`` with its default parameters (player 0's value -7/258).  Names are read
without regard to case.

Each named game carries its certified value: player 0's value lies in ``value_interval``, the two
best-response values of a solved profile (:mod:`dice_envs.agents.solve.interval`), or is the exact
fraction ``exact_value`` where the sequence-form LP proves it; ``certified_by`` says how it was
obtained and ``record`` names the file of the repository that records the solve.

Given with a name, an explicit rules argument (``dice_per_player``, ``faces``, ``wild``) must agree
with the named game's; a different one is a ``ValueError``, as is an unknown name (naming the known
ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple, Union

from dice_envs.games.liars_dice.rules import LiarsDiceGame, check_dice, check_wild, information_state_count

__all__ = ["NamedGame", "NAMED_GAMES", "RULES_DEFAULTS", "named_game", "rules_arguments", "same_argument", "name_of"]

#: The rules arguments a name sets, with their defaults where no name is given.
RULES_DEFAULTS: Dict[str, Any] = {"dice_per_player": 1, "faces": 6, "wild": "none"}

_ROUND_VALUES = "experiments/figures/liars_dice_round_values.json"
_NAMED_VALUES = "experiments/figures/liars_dice_named_values.json"


@dataclass(frozen=True)
class NamedGame:
    """One named two-player round of Liar's Dice and its certified value.

    Attributes:
        name: the game's name (``"LD2D5F"``).
        dice_per_player: dice each player holds: one count, or ``(player 0's, player 1's)``.
        faces: sides of each die.
        wild: the wild rule, ``"none"``, ``"highest"`` or ``"aces"``.
        value_interval: ``(lower, upper)``: player 0's value lies in it.
        certified_by: how the interval was obtained.
        record: the repository's file that records the solve.
        exact_value: player 0's value as a fraction, where it is proven (``"-7/258"``).
    """

    name: str
    dice_per_player: Union[int, Tuple[int, int]]
    faces: int
    wild: str
    value_interval: Tuple[float, float]
    certified_by: str
    record: str
    exact_value: Optional[str] = None

    @property
    def arguments(self) -> Dict[str, Any]:
        """The rules arguments of the environments (``dice_per_player``, ``faces``, ``wild``)."""
        return {"dice_per_player": self.dice_per_player, "faces": self.faces, "wild": self.wild}

    def game(self) -> LiarsDiceGame:
        """The rules core of this game."""
        return LiarsDiceGame(**self.arguments)

    @property
    def information_states(self) -> int:
        """Both players' information states (:func:`~dice_envs.games.liars_dice.rules.information_state_count`)."""
        return information_state_count(self.game())

    def describe(self) -> str:
        """``"2 five-sided dice each, highest face wild"``: the rules in words."""
        return self.game().describe()


_LP = "the sequence-form LP: both best responses to its rounded profile give this fraction"
_CFR4 = "CFR+ to exploitability 1e-4: the best responses to its average policy bound the value"
_CFR3 = "CFR+ to exploitability 1e-3: the best responses to its average policy bound the value"
_CFR3_RECORDED = ("CFR+ to exploitability 1e-3: its average policy's value, +- twice the target (the NashConv "
                  "bound; the best responses were not recorded)")

#: Every named game, by name, the field's benchmark first.
NAMED_GAMES: Dict[str, NamedGame] = {g.name: g for g in (
    NamedGame("LD2D5F", 2, 5, "highest", (0.016658965508620026, 0.01843749031833286), _CFR3, _NAMED_VALUES),
    NamedGame("LD1D6F-nowild", 1, 6, "none", (-0.1111111111111111, -0.1111111111111111), _LP, _ROUND_VALUES, "-1/9"),
    NamedGame("LD1D6F", 1, 6, "highest", (-0.027131782945736434, -0.027131782945736434), _LP, _ROUND_VALUES,
              "-7/258"),
    NamedGame("LD1D6F-aces", 1, 6, "aces", (-0.021406727828746176, -0.021406727828746176), _LP, _ROUND_VALUES,
              "-7/327"),
    NamedGame("LD1v2D6F-aces", (1, 2), 6, "aces", (-0.09275764698416426, -0.09256590503929965), _CFR4, _ROUND_VALUES),
    NamedGame("LD2v1D6F-aces", (2, 1), 6, "aces", (0.25912751082696606, 0.2593225300250899), _CFR4, _ROUND_VALUES),
    NamedGame("LD2D6F-aces", 2, 6, "aces", (0.0085095, 0.0125105), _CFR3_RECORDED, _ROUND_VALUES),
)}


def named_game(name: str) -> NamedGame:
    """The named game ``name`` (any case); ``ValueError`` listing the known names for another."""
    if isinstance(name, str):
        for known in NAMED_GAMES.values():
            if known.name.lower() == name.strip().lower():
                return known
    raise ValueError(f"{name!r} is not a named Liar's Dice game; the named games: {', '.join(NAMED_GAMES)}")


def same_argument(key: str, a, b) -> bool:
    """Do two values of the rules argument ``key`` give the same rules (``2`` and ``(2, 2)`` dice,
    ``True`` and ``"highest"``)?"""
    if key == "wild":
        return check_wild(a) == check_wild(b)
    if key == "dice_per_player":
        return check_dice(a, 2) == check_dice(b, 2)
    return a == b


def rules_arguments(game: Optional[str] = None, **given) -> Dict[str, Any]:
    """The rules arguments ``dice_per_player``, ``faces`` and ``wild``: the named ``game``'s, or
    those ``given`` with :data:`RULES_DEFAULTS` for the ones left ``None``.

    Raises:
        ValueError: an unknown name, an argument other than the three, or a given argument (not
            ``None``) that differs from the named game's, naming both.
    """
    unknown = set(given) - set(RULES_DEFAULTS)
    if unknown:
        raise ValueError(f"rules arguments are {sorted(RULES_DEFAULTS)}, got {sorted(unknown)}")
    if game is None:
        return {key: RULES_DEFAULTS[key] if given.get(key) is None else given[key] for key in RULES_DEFAULTS}
    named = named_game(game)
    for key, value in given.items():
        if value is not None and not same_argument(key, value, named.arguments[key]):
            raise ValueError(f"game={named.name!r} has {key}={named.arguments[key]!r}; {key}={value!r} conflicts "
                             f"with it: give the name or the arguments")
    return dict(named.arguments)


def name_of(game: LiarsDiceGame) -> Optional[str]:
    """The name of ``game``'s rules (two players, player 0 first, the usual bids), or ``None``."""
    for named in NAMED_GAMES.values():
        if game == named.game():
            return named.name
    return None
