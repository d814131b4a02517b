"""Every game as an OpenSpiel game: ``import dice_envs.openspiel`` registers them with pyspiel.

After the import, OpenSpiel's algorithms (CFR and its family, exploitability, MCTS,
NFSP, PSRO, ...) run on the project's games through pyspiel's Python-game support::

    import pyspiel
    import dice_envs.openspiel  # registers the games

    game = pyspiel.load_game("dice_envs_liars_dice", {"faces": 6, "wild": True})

The names are ``dice_envs_<game>``: ``dice_envs_liars_dice``, ``dice_envs_pig``,
``dice_envs_zombie_dice``, ``dice_envs_shakes`` and ``dice_envs_closest_number``; the
parameters are the project's own argument names (:data:`GAMES` lists them with their
defaults).  OpenSpiel's parameters cannot be None, so ``-1`` stands for None
(``max_quantity``, ``starting_player``).

The rules are the project's rules cores (:mod:`dice_envs.core`), not a re-implementation:
a pyspiel state holds a rules-core state.  Actions are the rules core's action ids;
chance outcomes, which the rules cores describe as objects (a roll, a deal), are numbered
in the order of the state's ``chance_outcomes()``; where that outcome is every player's roll
(Liar's Dice), OpenSpiel draws it one player's roll per chance node, as OpenSpiel's own
``liars_dice`` does, so no node lists the product of all the rolls.  Information states are the rules
core's ``information_state(player)`` where the game has hidden information (Liar's Dice,
Closest Number, The Shakes), the full position otherwise (Pig, Zombie Dice); tensors are
the rules core's observation vectors (as in the PettingZoo environments).

Needs the ``[openspiel]`` extra (``pip install 'dice-envs[openspiel]'``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Dict, Generic, Optional, Tuple, TypeVar

import numpy as np

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - the extra is not installed
    raise ImportError("dice_envs.openspiel needs OpenSpiel: pip install 'dice-envs[openspiel]'") from err

from dice_envs.core.game import CHANCE, TERMINAL, Game
from dice_envs.games.closest_number.rules import MAX_NUMBERS

if TYPE_CHECKING:
    from dice_envs.games.closest_number.rules import ClosestNumberGame
    from dice_envs.games.liars_dice.rules import LiarsDiceGame
    from dice_envs.games.pig.rules import PigGame
    from dice_envs.games.zombie_dice.rules import ZombieDiceGame

__all__ = ["GAMES", "register", "core_state"]

_PLAYER_IDS = {CHANCE: pyspiel.PlayerId.CHANCE, TERMINAL: pyspiel.PlayerId.TERMINAL}
_I = pyspiel.GameType.Information
_U = pyspiel.GameType.Utility

_G = TypeVar("_G", bound=Game)


@dataclass(frozen=True)
class GameSpec(Generic[_G]):
    """How one game is offered to OpenSpiel (``_G``: the class of its rules-core game)."""

    long_name: str
    parameters: Dict[str, object]  # the project's argument names and their defaults
    make: Callable[[dict], _G]  # the rules-core game for the parameters
    information: "pyspiel.GameType.Information"
    utility: Callable[[_G], "pyspiel.GameType.Utility"]  # of the game its parameters make
    max_chance_outcomes: Callable[[_G], int]
    utilities: Callable[[_G], tuple]  # (min, max); the sum is 0 where the game is zero-sum
    max_game_length: Callable[[_G], int]
    hidden: bool  # information states are the rules core's information_state()
    players: Tuple[int, int] = (2, 2)  # the fewest and the most players the parameters allow
    #: OpenSpiel's names for parameters, where OpenSpiel has a game of this name
    #: (``{its name: ours}``); both are accepted
    aliases: Dict[str, str] = field(default_factory=dict)
    #: the observation entries that are the player's private information (a public-only observer
    #: hides them); hidden-information games without it refuse public-only observers
    private: Optional[Callable[[_G], slice]] = None
    #: where the rules core's chance outcome is a tuple of independent parts (every player's roll),
    #: the parts' distributions: OpenSpiel then draws them one chance node each, never the product
    chance_parts: Optional[Callable[[_G], list]] = None
    #: the observation vector is an information state (perfect recall): the game then declares an
    #: information-state tensor, the observation (Liar's Dice: one's dice, the bids made, which
    #: being increasing give their order, and the seat), which OpenSpiel's Deep CFR, ESCHER and
    #: NFSP read
    observation_is_information_state: bool = False


def _none(value):
    return None if value == -1 else value


def _liars_dice(p) -> LiarsDiceGame:
    """``dice``, a string such as ``"2,1"``, gives one count per player (empty: ``dice_per_player``
    each); ``wild_rule`` (``"aces"``, ``"highest"``, ``"none"``; empty: the bool ``wild``) the wild rule."""
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    dice = p["dice_per_player"]
    if p["dice"]:
        try:
            dice = tuple(int(n) for n in p["dice"].replace(" ", ",").split(",") if n)
        except ValueError:
            raise ValueError(f"dice must be counts such as '2,1', got {p['dice']!r}") from None
    return LiarsDiceGame(p["num_players"], dice, p["faces"], p["wild_rule"] or p["wild"], _none(p["max_quantity"]),
                         p["starting_player"])


def _pig(p) -> PigGame:
    from dice_envs.core.dice import d
    from dice_envs.games.pig.rules import PigGame

    return PigGame(p["goal"], d(p["sides"]))


def _zombie_dice(p) -> ZombieDiceGame:
    from dice_envs.games.zombie_dice.rules import ZombieDiceGame

    return ZombieDiceGame(p["num_players"], p["variant"], p["goal"], p["stop_when_won"])


def _shakes(p):
    from dice_envs.games.shakes.env import make_game

    return make_game(p["num_players"], p["mode"], p["variant"], p["objective"], p["until_winner"])


def _closest_number(p) -> ClosestNumberGame:
    from dice_envs.games.closest_number.rules import ClosestNumberGame

    return ClosestNumberGame(p["num_players"], p["numbers"], _none(p["starting_player"]), p["round3"])


def _shakes_utilities(game):
    if game.rules.competitive:
        return (-1.0, 1.0)
    if game.objective == "saved":
        return (0.0, float(game.rules.patients))
    return (0.0, 1.0)


def _winner_takes_all(game):
    """+1 to the winner, -1 to every other player (0 to all in a draw): zero-sum with two players."""
    return _U.ZERO_SUM if game.num_players == 2 else _U.GENERAL_SUM


def _shakes_utility(game):
    """The cooperative game pays every player the same; the competitive one is winner-takes-all."""
    if not game.rules.competitive:
        return _U.IDENTICAL
    return _U.ZERO_SUM if game.rules.num_players == 2 else _U.GENERAL_SUM


# A long game's length has no bound (Pig, Zombie Dice): OpenSpiel needs one; this one is never reached in practice.
_LONG = 100_000
GAMES: Dict[str, GameSpec] = {
    "liars_dice": GameSpec(
        "Liar's Dice (dice_envs)",
        dict(num_players=2, dice_per_player=1, faces=6, wild=False, max_quantity=-1, dice="", wild_rule="",
             starting_player=0), _liars_dice,
        _I.IMPERFECT_INFORMATION, lambda g: _U.ZERO_SUM,  # +1, -1 and 0s with any number of players
        lambda g: max(len(g.roll_distribution(p)) for p in range(g.num_players)),
        lambda g: (-1.0, 1.0), lambda g: g.num_bids + 1, hidden=True, players=(2, 6),
        private=lambda g: slice(g.num_players, g.num_players + g.faces),  # own dice
        aliases={"players": "num_players", "numdice": "dice_per_player", "dice_sides": "faces"},
        chance_parts=lambda g: [g.roll_distribution(p) for p in range(g.num_players)],
        observation_is_information_state=True),
    "pig": GameSpec(
        "Pig (dice_envs)", dict(goal=100, sides=6), _pig, _I.PERFECT_INFORMATION, lambda g: _U.ZERO_SUM,
        lambda g: len(g.die.faces), lambda g: (-1.0, 1.0), lambda g: _LONG, hidden=False,
        aliases={"winscore": "goal", "diceoutcomes": "sides"}),
    "zombie_dice": GameSpec(
        "Zombie Dice (dice_envs)", dict(num_players=2, variant="official", goal=13, stop_when_won=True),
        _zombie_dice, _I.PERFECT_INFORMATION, _winner_takes_all,
        lambda g: 4096, lambda g: (-1.0, 1.0), lambda g: _LONG, hidden=False, players=(2, 8)),
    "shakes": GameSpec(
        "The Shakes (dice_envs)",
        dict(num_players=4, mode="court", variant="cooperative", objective="win", until_winner=False), _shakes,
        _I.IMPERFECT_INFORMATION, _shakes_utility,
        lambda g: 6 ** g.rules.num_players, _shakes_utilities,
        lambda g: _LONG if g.rules.until_winner else g.rules.patients * (g.rules.num_players + 1), hidden=True,
        players=(1, 6)),
    "closest_number": GameSpec(
        "Closest Number (dice_envs)", dict(num_players=2, numbers=10, starting_player=-1, round3="two_cards"),
        _closest_number, _I.IMPERFECT_INFORMATION, _winner_takes_all,
        lambda g: g.num_players, lambda g: (-1.0, 1.0),
        lambda g: 2 * g.num_players * g.numbers * (g.last_round + 1), hidden=True, players=(2, MAX_NUMBERS // 2)),
}


def core_state(state) -> object:
    """The rules-core state behind a pyspiel state of a registered game."""
    return state.core


class _Observer:
    """pyspiel's Python observer: the rules core's observation vector as the tensor; as the
    string, the information state (hidden-information games, perfect recall) or the
    position (otherwise).

    The observation type asked for is obeyed: a public-only observer
    (``private_info=PrivateInfoType.NONE``) hides the player's private entries (Liar's Dice:
    its own dice; other hidden-information games refuse it), and a perfect-recall *tensor* (an
    information-state tensor) is the observation where that is an information state (Liar's
    Dice, :attr:`GameSpec.observation_is_information_state`) and refused elsewhere, where the
    games do not declare one."""

    def __init__(self, game, iig_obs_type):
        spec = game.spec
        self.tensor = np.zeros(game.core.observation_shape, np.float32)
        self.dict = {"observation": self.tensor}
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.recall_tensor = spec.observation_is_information_state
        self.hidden = spec.hidden
        public_only = iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        self.private = None
        if public_only and self.hidden:
            if spec.private is None:
                raise ValueError(f"{game.get_type().short_name} provides no public-only observation")
            self.private = spec.private(game.core)
        self.name = game.get_type().short_name

    def _observation(self, state, player) -> np.ndarray:
        obs = np.asarray(state.core.observation(player), np.float32)
        if self.private is not None:
            obs = obs.copy()
            obs[self.private] = 0.0
        return obs

    def set_from(self, state, player):
        if self.perfect_recall and not self.recall_tensor:
            raise ValueError(f"{self.name} provides no information-state tensor (provides_information_state_tensor "
                             f"is False): its observation tensor is not an information state")
        self.tensor[:] = self._observation(state, player)

    def string_from(self, state, player):
        core = state.core
        if self.private is not None:
            return f"p{player} public " + " ".join(f"{x:g}" for x in self._observation(state, player))
        if self.hidden and self.perfect_recall and hasattr(core, "information_state"):
            return repr(core.information_state(player))
        if self.hidden:
            return f"p{player} " + " ".join(f"{x:g}" for x in core.observation(player))
        return repr(core)


class _Shared:
    """A value the clones of a state share: OpenSpiel clones a Python state by deep-copying each
    attribute, and the chance outcomes cached at a chance node are never changed (deep-copying
    Zombie Dice's took 1.9 ms a clone)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __deepcopy__(self, memo):
        return self


def _game_type(name: str, spec: GameSpec, utility) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=f"dice_envs_{name}", long_name=spec.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=spec.information, utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        min_num_players=spec.players[0], max_num_players=spec.players[1],
        provides_information_state_string=True,
        provides_information_state_tensor=spec.observation_is_information_state,
        provides_observation_string=True, provides_observation_tensor=True,
        # OpenSpiel's names too, with our defaults (the game maps them to ours)
        parameter_specification={**spec.parameters,
                                 **{alias: spec.parameters[ours] for alias, ours in spec.aliases.items()}})


def _make_classes(name: str, spec: GameSpec):
    # The registry holds one type per name; each game loaded carries the type its parameters make
    # (zero-sum with two players, identical when cooperative, ...), which is what OpenSpiel reads.
    game_type = _game_type(name, spec, spec.utility(spec.make(dict(spec.parameters))))

    class State(pyspiel.State):
        def __init__(self, game, core=None, drawn=()):
            super().__init__(game)
            self.core = core if core is not None else game.core.new_initial_state()
            self.drawn = drawn  # the parts of the chance outcome drawn so far (chance_parts games)
            self._chance = None

        def __deepcopy__(self, memo):  # rules-core states are immutable: share them
            return State(self.get_game(), self.core, self.drawn)

        def current_player(self):
            player = self.core.current_player
            return _PLAYER_IDS.get(player, player)

        def _legal_actions(self, player):
            return list(self.core.legal_actions())

        def _outcomes(self):
            if self._chance is None:
                parts = self.get_game().chance_parts
                self._chance = _Shared(parts[len(self.drawn)] if parts else self.core.chance_outcomes())
            return self._chance.value

        def chance_outcomes(self):
            return [(k, float(p)) for k, (_, p) in enumerate(self._outcomes())]

        def _apply_action(self, action):
            parts = self.get_game().chance_parts
            if self.core.is_chance_node() and parts:
                self.drawn += (self._outcomes()[action][0],)
                if len(self.drawn) == len(parts):
                    self.core, self.drawn = self.core.apply(self.drawn), ()
            elif self.core.is_chance_node():
                self.core = self.core.apply(self._outcomes()[action][0])
            else:
                self.core = self.core.apply(int(action))
            self._chance = None

        def _action_to_string(self, player, action):
            if player == pyspiel.PlayerId.CHANCE:  # unique per outcome, as OpenSpiel requires
                outcome = self._outcomes()[action][0]
                if self.get_game().chance_parts:
                    return f"player {len(self.drawn)} draws {outcome!r}"
                return f"{self.core.describe_outcome(outcome)} [{outcome!r}]"
            return self.core.game.action_name(action)

        def is_terminal(self):
            return self.core.is_terminal()

        def returns(self):
            return [float(r) for r in self.core.returns()]

        def __str__(self):
            return str(self.core)

        def __reduce__(self):  # the class is made here, so pickle replays the state's history in its game
            return _restore_state, (self.get_game(), self.history())

    State.__name__ = State.__qualname__ = f"{name.title().replace('_', '')}State"

    class OpenSpielGame(pyspiel.Game):
        def __init__(self, params=None):
            values = dict(spec.parameters)
            params = dict(params or {})
            for key, value in params.items():
                if key in spec.aliases:
                    continue
                if key not in values:
                    raise ValueError(f"dice_envs_{name} has no parameter {key!r}; its parameters: "
                                     f"{sorted(values)}" + (f" (and OpenSpiel's {sorted(spec.aliases)})"
                                                            if spec.aliases else ""))
                values[key] = value
            # OpenSpiel's names: pyspiel fills every parameter in, so an alias counts where it is not the default
            for alias, ours in spec.aliases.items():
                value, default = params.get(alias, spec.parameters[ours]), spec.parameters[ours]
                if value != default:
                    if values[ours] not in (default, value):
                        raise ValueError(f"dice_envs_{name}: {alias}={value!r} and {ours}={values[ours]!r} "
                                         f"name the same parameter; give one")
                    values[ours] = value
            self.spec = spec
            self.core = spec.make(values)
            self.chance_parts = spec.chance_parts(self.core) if spec.chance_parts else None
            utility = spec.utility(self.core)
            low, high = spec.utilities(self.core)
            info = pyspiel.GameInfo(
                num_distinct_actions=self.core.num_actions,
                max_chance_outcomes=spec.max_chance_outcomes(self.core),
                num_players=self.core.num_players, min_utility=low, max_utility=high,
                utility_sum=0.0 if utility == _U.ZERO_SUM else None, max_game_length=spec.max_game_length(self.core))
            super().__init__(_game_type(name, spec, utility), info, values)

        def new_initial_state(self):
            return State(self)

        def __reduce__(self):  # loaded again by name (multiprocessing, Ray)
            return pyspiel.load_game, (f"dice_envs_{name}", self.get_parameters())

        def make_py_observer(self, iig_obs_type=None, params=None):
            if params:
                raise ValueError(f"observation parameters are not supported, got {params}")
            return _Observer(self, iig_obs_type)

    OpenSpielGame.__name__ = OpenSpielGame.__qualname__ = f"{name.title().replace('_', '')}OpenSpielGame"
    return game_type, OpenSpielGame


def _restore_state(game, history):
    """A pickled state: its game's initial state after the actions ``history`` (chance
    outcomes included), so OpenSpiel's record of the history is rebuilt too."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def register() -> None:
    """Register every game of :data:`GAMES` with pyspiel (done on import; idempotent)."""
    registered = set(pyspiel.registered_names())
    for name, spec in GAMES.items():
        if f"dice_envs_{name}" not in registered:
            pyspiel.register_game(*_make_classes(name, spec))


register()
