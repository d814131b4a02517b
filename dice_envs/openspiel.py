"""Every game as an OpenSpiel game: ``import dice_envs.openspiel`` registers them with pyspiel.

After the import, OpenSpiel's algorithms (CFR and its family, exploitability, MCTS,
NFSP, PSRO, ...) run on the project's games through pyspiel's Python-game support::

    import pyspiel
    import dice_envs.openspiel  # registers the games

    game = pyspiel.load_game("dice_envs_liars_dice", {"faces": 6, "wild": True})

The names are ``dice_envs_<game>`` (``dice_envs_liars_dice``, ``dice_envs_pig``, ...: every game
of :data:`GAMES`, as each game's environment module describes it); the
parameters are the project's own argument names (:data:`GAMES` lists them with their
defaults).  OpenSpiel's parameters cannot be None, so ``-1`` stands for None
(``max_quantity``, ``starting_player``); and each has one type, so an argument that takes two
has a second parameter for the other, which overrides the first where it is given: in Liar's
Dice, ``wild`` (a bool: the highest face wild) and ``wild_rule`` (``"aces"``, ``"highest"`` or
``"none"``), ``dice_per_player`` (one count for everybody) and ``dice`` (one count per player,
``"2,1"``).  Both given, away from their defaults, they must describe the same game
(``{"dice_per_player": 2, "dice": "1,1"}`` is refused; ``{"dice_per_player": 2, "dice": "2,2"}``
is the same game).  Liar's Dice's ``game`` names a game of :mod:`dice_envs.games.liars_dice.named`
(``pyspiel.load_game("dice_envs_liars_dice(game=LD2D5F)")``, OpenSpiel's ``liars_dice`` with two
five-sided dice each): it sets the dice, the faces and the wild rule, and ``str(game)`` shows it in
their place; a rules parameter given with it, away from its default, must agree with it.

Where OpenSpiel has a game of the name, its parameter names are accepted too (Liar's Dice's
``players``, ``numdice``, ``dice_sides``; Pig's ``winscore``, ``diceoutcomes``).  pyspiel hands a
game every parameter of its specification, the defaults filled in, so a game cannot tell a
parameter given at its default from one not given; OpenSpiel's names therefore default to
``-1`` ("not given"), and one given names its parameter however it is set: ``numdice=1`` with
``dice_per_player=2`` is refused.  A parameter of ours given at its default (``dice_per_player=1``)
is still indistinguishable from one not given: an OpenSpiel name, or a parameter that overrides it,
then decides.

The rules are the project's rules cores (:mod:`dice_envs.core`), not a re-implementation:
a pyspiel state holds a rules-core state.  Actions are the rules core's action ids;
chance outcomes, which the rules cores describe as objects (a roll, a deal), are numbered
in the order of the state's ``chance_outcomes()``; where that outcome is every player's roll
(Liar's Dice), OpenSpiel draws it one player's roll per chance node, as OpenSpiel's own
``liars_dice`` does, so no node lists the product of all the rolls.  Information states are the rules
core's ``information_state(player)`` where the game has hidden information (Liar's Dice, say),
the full position otherwise (Pig, say); tensors are
the rules core's observation vectors (as in the PettingZoo environments).

A state answers as a C++ game's does: ``current_player()`` is an int (``-1`` at chance nodes, ``-4`` at
the end), and ``information_state_tensor()`` and ``observation_tensor()`` write the tensor once a call
(pyspiel's own methods for Python games write it twice, the first time for a fresh initial state, to
learn its shape), so ``open_spiel.python.rl_environment`` steps the games at the speed of their rules.

**Worker processes.**  OpenSpiel knows a Python game only in a process that has registered it, and a
Python game registers when its module is imported: a process that has not imported
``dice_envs.openspiel`` answers ``pyspiel.load_game("dice_envs_liars_dice")`` with "Unknown game".  A
pickled game or state of this module imports it when it is unpickled (:func:`load_game`), so games sent
to ``multiprocessing`` or Ray workers load there; a worker that loads a game by name imports
``dice_envs.openspiel`` first (in Ray, ``ray.init(runtime_env={"worker_process_setup_hook":
"dice_envs.openspiel.register"})``).

Needs the ``[openspiel]`` extra (``pip install 'dice-envs[openspiel]'``).
"""

from __future__ import annotations

from typing import Dict, Optional

import numpy as np

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - the extra is not installed
    raise ImportError("dice_envs.openspiel needs OpenSpiel: pip install 'dice-envs[openspiel]'") from err

from dice_envs.core.game import CHANCE, TERMINAL
from dice_envs.core.spiel import SpielGame
from dice_envs.registry import GAMES as _REGISTRY
from dice_envs.registry import load

__all__ = ["GAMES", "register", "core_state", "load_game"]

#: The rules cores' pseudo-players as OpenSpiel's integer ids (``current_player()`` returns ints, as a C++
#: game's does, never ``PlayerId`` members).
_PLAYER_IDS = {CHANCE: int(pyspiel.PlayerId.CHANCE), TERMINAL: int(pyspiel.PlayerId.TERMINAL)}
_INFORMATION = {"perfect": pyspiel.GameType.Information.PERFECT_INFORMATION,
                "imperfect": pyspiel.GameType.Information.IMPERFECT_INFORMATION}
_UTILITY = {"zero_sum": pyspiel.GameType.Utility.ZERO_SUM, "constant_sum": pyspiel.GameType.Utility.CONSTANT_SUM,
            "general_sum": pyspiel.GameType.Utility.GENERAL_SUM, "identical": pyspiel.GameType.Utility.IDENTICAL}

#: Every game offered to OpenSpiel, by name (``dice_envs_<name>`` in pyspiel), as its environment
#: module describes it (its :mod:`dice_envs.registry` entry's ``openspiel``).
GAMES: Dict[str, SpielGame] = {entry.name: load(entry.openspiel) for entry in _REGISTRY.values() if entry.openspiel}


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
    Dice, :attr:`~dice_envs.core.spiel.SpielGame.observation_is_information_state`) and refused elsewhere, where the
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
            raise ValueError(_no_information_state_tensor(self.name))
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


def _no_information_state_tensor(name: str) -> str:
    return (f"{name} provides no information-state tensor (provides_information_state_tensor is False): its "
            f"observation tensor is not an information state")


class _Shared:
    """A value the clones of a state share: OpenSpiel clones a Python state by deep-copying each
    attribute, and the chance outcomes cached at a chance node are never changed (deep-copying
    Zombie Dice's took 1.9 ms a clone)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __deepcopy__(self, memo):
        return self


def _game_type(name: str, spec: SpielGame, utility: str) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=f"dice_envs_{name}", long_name=spec.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=_INFORMATION[spec.information], utility=_UTILITY[utility],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        min_num_players=spec.players[0], max_num_players=spec.players[1],
        provides_information_state_string=True,
        provides_information_state_tensor=spec.observation_is_information_state,
        provides_observation_string=True, provides_observation_tensor=True,
        # OpenSpiel's names too, "not given" by default (the game maps them to ours)
        parameter_specification={**spec.parameters, **{alias: spec.not_given(alias) for alias in spec.aliases}})


def _make_classes(name: str, spec: SpielGame):
    # The registry holds one type per name; each game loaded carries the type its parameters make
    # (zero-sum with two players, identical when cooperative, ...), which is what OpenSpiel reads.
    game_type = _game_type(name, spec, spec.utility(spec.make(dict(spec.parameters))))

    class State(pyspiel.State):
        def __init__(self, game, core=None, drawn=()):
            super().__init__(game)
            self.core = core if core is not None else game.core.new_initial_state()
            self.drawn = drawn  # the parts of the chance outcome drawn so far (chance_parts games)
            self._chance = None
            self._player = _player_id(self.core)

        def __deepcopy__(self, memo):  # rules-core states are immutable: share them
            return State(self.get_game(), self.core, self.drawn)

        def current_player(self):
            return self._player

        def _legal_actions(self, player):
            return list(self.core.legal_actions())

        # pyspiel's own methods below reach the state's Python methods through C++ several times a call; these
        # answer the same from the player id kept after each action (C++ callers still reach the ones above).
        def legal_actions(self, player=None):
            """The legal actions of ``player`` (default: the player to act), as pyspiel's: the chance
            outcomes at a chance node, none at the end or for a player not to act."""
            if self._player == _PLAYER_IDS[TERMINAL]:
                return []
            if self._player == _PLAYER_IDS[CHANCE]:
                return [k for k, _ in self._outcomes()[1]]
            if player is None or player == self._player:
                return list(self.core.legal_actions())
            if player < 0:
                raise ValueError(f"legal_actions of the pseudo-player {player}")
            return []

        def is_chance_node(self):
            return self._player == _PLAYER_IDS[CHANCE]

        def rewards(self):
            """Each player's reward for the last action: the returns at the end, 0 before (the games
            pay at the end)."""
            if self._player == _PLAYER_IDS[TERMINAL]:
                return self.returns()
            return [0.0] * self.core.game.num_players

        def _outcomes(self):
            """``(outcomes, [(index, probability as a float), ...])`` of this chance node, made once
            (each player's part from the game's own list where the roll is drawn in parts)."""
            if self._chance is None:
                game = self.get_game()
                if game.chance_parts:
                    self._chance = game.chance_parts[len(self.drawn)]
                else:
                    outcomes = self.core.chance_outcomes()
                    self._chance = _Shared((outcomes, [(k, float(p)) for k, (_, p) in enumerate(outcomes)]))
            return self._chance.value

        def chance_outcomes(self):
            return list(self._outcomes()[1])

        def _apply_action(self, action):
            if self._player != _PLAYER_IDS[CHANCE]:
                self.core = self.core.apply(int(action))
            elif self.get_game().chance_parts:
                self.drawn += (self._outcomes()[0][action][0],)
                if len(self.drawn) == len(self.get_game().chance_parts):
                    self.core, self.drawn = self.core.apply(self.drawn), ()
            else:
                self.core = self.core.apply(self._outcomes()[0][action][0])
            self._chance = None
            self._player = _player_id(self.core)

        # pyspiel's own tensor methods ask the game for the tensor's shape first, which writes the tensor of a
        # fresh initial state: these write the state's tensor once (C++ callers reach the observers, also once).
        def information_state_tensor(self, player=None):
            """``player``'s (default: the player to act) information-state tensor, as pyspiel's: a list of
            floats."""
            if not spec.observation_is_information_state:
                raise ValueError(_no_information_state_tensor(f"dice_envs_{name}"))
            return self._tensor(player)

        def observation_tensor(self, player=None):
            """``player``'s (default: the player to act) observation tensor, as pyspiel's: a list of floats."""
            return self._tensor(player)

        def _tensor(self, player):
            player = self._player if player is None else player
            if not 0 <= player < self.core.game.num_players:
                raise ValueError(f"player must be from 0 to {self.core.game.num_players - 1}, got {player}")
            return np.asarray(self.core.observation(player), np.float32).tolist()

        def _action_to_string(self, player, action):
            if player == _PLAYER_IDS[CHANCE]:  # unique per outcome, as OpenSpiel requires
                outcome = self._outcomes()[0][action][0]
                if self.get_game().chance_parts:
                    return f"player {len(self.drawn)} draws {outcome!r}"
                return f"{self.core.describe_outcome(outcome)} [{outcome!r}]"
            return self.core.game.action_name(action)

        def is_terminal(self):
            return self._player == _PLAYER_IDS[TERMINAL]

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
            # OpenSpiel's names: pyspiel fills every parameter in, so an alias's default says "not given"
            for alias, ours in spec.aliases.items():
                value = params.get(alias, spec.not_given(alias))
                if value != spec.not_given(alias):
                    if values[ours] not in (spec.parameters[ours], value):
                        raise ValueError(f"dice_envs_{name}: {alias}={value!r} and {ours}={values[ours]!r} "
                                         f"name the same parameter; give one")
                    values[ours] = value
            # a parameter that overrides another: both given (neither at its default), they must agree
            # (one that sets several, a named game, is checked by spec.make)
            for by, over in spec.overrides.items():
                if not isinstance(over, str):
                    continue
                if values[by] != spec.parameters[by] and values[over] != spec.parameters[over]:
                    if spec.make(values) != spec.make({**values, by: spec.parameters[by]}):
                        raise ValueError(f"dice_envs_{name}: {by}={values[by]!r} and {over}={values[over]!r} "
                                         f"conflict ({by} overrides {over}); give one")
            self.spec = spec
            self.core = spec.make(values)
            # each part's outcomes, and their probabilities as pyspiel's floats, made once for every state
            self.chance_parts = None if not spec.chance_parts else [
                _Shared((part, [(k, float(p)) for k, (_, p) in enumerate(part)])) for part in spec.chance_parts(self.core)]
            utility = spec.utility(self.core)
            low, high = spec.utilities(self.core)
            info = pyspiel.GameInfo(
                num_distinct_actions=self.core.num_actions,
                max_chance_outcomes=spec.max_chance_outcomes(self.core),
                num_players=self.core.num_players, min_utility=low, max_utility=high,
                utility_sum=0.0 if utility == "zero_sum" else None, max_game_length=spec.max_game_length(self.core))
            # a parameter that another one overrides is left out, so that str(game) names the game played
            shown = {key: value for key, value in values.items()
                     if not any(key in spec.overridden_by(by) and values[by] != spec.parameters[by]
                                for by in spec.overrides)}
            super().__init__(_game_type(name, spec, utility), info, shown)

        def new_initial_state(self):
            return State(self)

        def __reduce__(self):  # loaded again by name, this module first (multiprocessing, Ray: see load_game)
            return load_game, (f"dice_envs_{name}", self.get_parameters())

        def make_py_observer(self, iig_obs_type=None, params=None):
            if params:
                raise ValueError(f"observation parameters are not supported, got {params}")
            return _Observer(self, iig_obs_type)

    OpenSpielGame.__name__ = OpenSpielGame.__qualname__ = f"{name.title().replace('_', '')}OpenSpielGame"
    return game_type, OpenSpielGame


def _player_id(core) -> int:
    player = core.current_player
    return _PLAYER_IDS.get(player, player)


def load_game(name: str, params: Optional[dict] = None) -> "pyspiel.Game":
    """``pyspiel.load_game(name, params)``, with every game of this module registered first.

    pyspiel knows a Python game only in a process that has registered it, and OpenSpiel
    registers a Python game when its module is imported; a worker process that never imported
    this module (a ``multiprocessing`` worker started by spawning, a Ray worker) answers
    "Unknown game".  A pickled game of this module is unpickled through this function, so the
    pickle itself imports the module and the game loads anywhere ``dice_envs`` is installed.
    Elsewhere, import ``dice_envs.openspiel`` in the worker before ``pyspiel.load_game`` (in
    Ray, ``ray.init(runtime_env={"worker_process_setup_hook": "dice_envs.openspiel.register"})``).
    """
    return pyspiel.load_game(name, dict(params or {}))


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
