"""How a game is offered to OpenSpiel, written without OpenSpiel.

Each game's environment module describes its OpenSpiel game with a :class:`SpielGame` (named by its
:mod:`dice_envs.registry` entry's ``openspiel``); :mod:`dice_envs.openspiel` turns the descriptions
into pyspiel game types when OpenSpiel is installed.  The description's information and utility
are OpenSpiel's ``GameType.Information`` and ``GameType.Utility``, as lower-case names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, Generic, List, Optional, Tuple, TypeVar, Union

from dice_envs.core.game import Game

__all__ = ["SpielGame", "INFORMATION", "UTILITIES", "LONG_GAME", "NOT_GIVEN", "none_for_minus_one", "winner_takes_all"]

#: OpenSpiel's ``GameType.Information`` members, by their names here.
INFORMATION = ("perfect", "imperfect")
#: OpenSpiel's ``GameType.Utility`` members, by their names here.
UTILITIES = ("zero_sum", "constant_sum", "general_sum", "identical")

#: A length bound for games that have none (Pig, Zombie Dice): OpenSpiel needs one; it is never
#: reached in practice.
LONG_GAME = 100_000

#: The default of an alias (:attr:`SpielGame.aliases`), by the type of its parameter: a value no
#: parameter an alias names takes.
NOT_GIVEN = {int: -1, str: ""}

_G = TypeVar("_G", bound=Game)


@dataclass(frozen=True)
class SpielGame(Generic[_G]):
    """One game as OpenSpiel sees it (``_G``: the class of its rules-core game).

    Attributes:
        long_name: OpenSpiel's long name (``"Pig (dice_envs)"``).
        parameters: the game's parameters, the project's argument names, with their defaults;
            OpenSpiel's parameters cannot be None, so ``-1`` stands for None.
        make: the rules-core game for a dict of parameters.
        information: ``"perfect"`` or ``"imperfect"``.
        utility: of the game its parameters make: one of :data:`UTILITIES`.
        max_chance_outcomes: of a game.
        utilities: ``(min, max)`` of a game; the sum is 0 where the game is zero-sum.
        max_game_length: of a game.
        hidden: information states are the rules core's ``information_state()``.
        players: the fewest and the most players the parameters allow.
        aliases: OpenSpiel's names for parameters, where OpenSpiel has a game of this name
            (``{its name: ours}``); both are accepted.  Each defaults to a value its parameter
            never takes (:meth:`not_given`), so a game can tell one that was given.
        overrides: ``{parameter: the parameter it overrides}`` where an argument of two types has
            a parameter for each (OpenSpiel's parameters have one type): given, the first
            replaces the second, which the game's parameters then leave out.  A tuple of parameters
            is a parameter that sets several (a named game): given, ``make`` refuses the ones given
            away from their defaults that disagree with it, and the game's parameters leave them out.
        private: the observation entries that are the player's private information (a public-only
            observer hides them); hidden-information games without it refuse public-only observers.
        chance_parts: where the rules core's chance outcome is a tuple of independent parts (every
            player's roll), the parts' distributions: OpenSpiel then draws them one chance node each,
            never the product.
        observation_is_information_state: the observation vector is an information state (perfect
            recall): the game then declares an information-state tensor, which OpenSpiel's Deep CFR,
            ESCHER and NFSP read.
    """

    long_name: str
    parameters: Dict[str, object]
    make: Callable[[dict], _G]
    information: str
    utility: Callable[[_G], str]
    max_chance_outcomes: Callable[[_G], int]
    utilities: Callable[[_G], Tuple[float, float]]
    max_game_length: Callable[[_G], int]
    hidden: bool
    players: Tuple[int, int] = (2, 2)
    aliases: Dict[str, str] = field(default_factory=dict)
    overrides: Dict[str, Union[str, Tuple[str, ...]]] = field(default_factory=dict)
    private: Optional[Callable[[_G], slice]] = None
    chance_parts: Optional[Callable[[_G], List[list]]] = None
    observation_is_information_state: bool = False

    def __post_init__(self) -> None:
        if self.information not in INFORMATION:
            raise ValueError(f"information must be one of {INFORMATION}, got {self.information!r}")
        overridden = {name for by in self.overrides for name in self.overridden_by(by)}
        unknown = (set(self.aliases.values()) | set(self.overrides) | overridden) - set(self.parameters)
        if unknown:
            raise ValueError(f"aliases and overrides name parameters the game does not have: {sorted(unknown)}")
        for alias, ours in self.aliases.items():
            if type(self.parameters[ours]) not in NOT_GIVEN:
                raise ValueError(f"alias {alias!r} names {ours!r}, a {type(self.parameters[ours]).__name__}; an alias "
                                 f"needs a parameter of a type with a 'not given' value: {sorted(t.__name__ for t in NOT_GIVEN)}")

    def overridden_by(self, parameter: str) -> Tuple[str, ...]:
        """The parameters that ``parameter`` overrides (:attr:`overrides`; none for another)."""
        over = self.overrides.get(parameter, ())
        return (over,) if isinstance(over, str) else tuple(over)

    def not_given(self, alias: str):
        """The default of OpenSpiel's name ``alias``: a value its parameter never takes (``-1``
        for a count, ``""`` for a string), which says it was not given."""
        return NOT_GIVEN[type(self.parameters[self.aliases[alias]])]


def none_for_minus_one(value):
    """OpenSpiel's ``-1`` for an argument that is None."""
    return None if value == -1 else value


def winner_takes_all(game) -> str:
    """+1 to the winner, -1 to every other player (0 to all in a draw): zero-sum with two players."""
    return "zero_sum" if game.num_players == 2 else "general_sum"
