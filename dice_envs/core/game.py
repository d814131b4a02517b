"""The rules-core protocol every game in ``dice_envs`` implements.

A game is written once, as plain Python over an immutable state with explicit
chance nodes (the OpenSpiel idea).  The PettingZoo adapter
(:mod:`dice_envs.envs.aec`), the solvers in ``agents/`` and the tests are all derived
from it, so a rule is never written twice.

A :class:`Game` holds the configuration; :meth:`Game.new_initial_state` gives a
:class:`GameState`.  A state is one of three kinds:

* **chance** (``current_player == CHANCE``): :meth:`GameState.chance_outcomes`
  lists ``(outcome, probability)`` with exact probabilities, and
  :meth:`GameState.sample_chance` draws one with a numpy ``Generator``;
* **decision**: :meth:`GameState.legal_actions` lists the legal action ids;
* **terminal**: :meth:`GameState.returns` gives each player's payoff.

:meth:`GameState.apply` returns a *new* state, for actions and chance outcomes
alike.
"""

from __future__ import annotations

import abc
from typing import Any, Mapping, Optional, Sequence, Tuple

import numpy as np

from dice_envs.core.dice import Sampler
from dice_envs.core.validation import as_action, describe

CHANCE = -1
TERMINAL = -2


class IllegalActionError(ValueError):
    """Raised when an action is not legal in the current state."""


class GameState(abc.ABC):
    """An immutable game position."""

    game: "Game"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        """An immutable position is its own copy.  (``copy.deepcopy`` would otherwise copy the
        game and its tables with it: OpenSpiel clones a Python state by deep-copying its
        attributes, and took 12 s for five random Zombie Dice games, 840 s once under load.)"""
        return self

    @property
    @abc.abstractmethod
    def current_player(self) -> int:
        """Seat index to act, :data:`CHANCE`, or :data:`TERMINAL`."""

    def is_terminal(self) -> bool:
        return self.current_player == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player == CHANCE

    @abc.abstractmethod
    def legal_actions(self) -> Tuple[int, ...]:
        """Legal action ids for the player to act (empty at chance/terminal)."""

    def chance_outcomes(self) -> Sequence[Tuple[Any, Any]]:
        """Exact ``[(outcome, probability), ...]`` at a chance node."""
        raise NotImplementedError(f"{type(self).__name__} has no chance nodes")

    def sample_chance(self, rng: np.random.Generator):
        """Draw one chance outcome with ``rng`` (override to use a cached sampler)."""
        return Sampler(list(self.chance_outcomes())).sample(rng)

    def describe_outcome(self, outcome, player: Optional[int] = None) -> str:
        """Text for the chance ``outcome`` at this node, as ``player`` sees it (``None``: everything).

        Renders write it from the seat of the player to move, so a game whose chance outcomes are
        private (dealt cards, dice under a cup) hides in it what ``player`` may not see."""
        return f"chance: {outcome}"

    def describe_action(self, action: int, player: Optional[int] = None) -> str:
        """Text for the decision ``action`` of the player to move here, as ``player`` sees it
        (``None``: everything); a game whose moves are made unseen overrides it."""
        return f"player_{self.current_player}: {self.game.action_name(action)}"

    def describe(self, player: Optional[int] = None) -> str:
        """The position as text, as ``player`` sees it (``None``: everything).  ``str(state)`` is the
        public view; a game whose text would show a secret overrides this."""
        return str(self)

    @abc.abstractmethod
    def apply(self, action) -> "GameState":
        """The state after ``action`` (a decision id, or a chance outcome)."""

    @abc.abstractmethod
    def returns(self) -> Tuple[float, ...]:
        """Payoff of every seat (all zeros until the game is over)."""

    @abc.abstractmethod
    def observation(self, player: int) -> np.ndarray:
        """What ``player`` sees, as a flat float32 vector of ``game.observation_shape``."""

    def action_mask(self) -> np.ndarray:
        """int8 mask over ``game.num_actions`` for the player to act."""
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        mask[list(self.legal_actions())] = 1
        return mask

    def check_action(self, action) -> int:
        """Return ``action`` as an int, or raise :class:`IllegalActionError` saying why."""
        if self.is_terminal():
            raise IllegalActionError("the game is over; no action is legal")
        if self.is_chance_node():
            raise IllegalActionError("a chance node is not decided by a player")
        a = as_action(action)
        if a is None:
            raise IllegalActionError(f"an action must be an integer (not a bool, float or string), "
                                     f"got {describe(action)}")
        legal = self.legal_actions()
        if a not in legal:
            names = ", ".join(f"{i}={self.game.action_name(i)}" for i in legal)
            what = self.game.action_name(a) if 0 <= a < self.game.num_actions else "out of range"
            raise IllegalActionError(
                f"action {a} ({what}) is illegal for player {self.current_player} here; "
                f"legal actions: {names}"
            )
        return a


class Game(abc.ABC):
    """A game's configuration and its static facts."""

    name: str = "game"
    num_players: int
    num_actions: int
    action_names: Tuple[str, ...] = ()

    @abc.abstractmethod
    def new_initial_state(self) -> GameState:
        ...

    @property
    @abc.abstractmethod
    def observation_shape(self) -> Tuple[int, ...]:
        ...

    def observation_bounds(self) -> Tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` arrays for the observation Box (default: 0 to +inf)."""
        shape = self.observation_shape
        return np.zeros(shape, np.float32), np.full(shape, np.inf, np.float32)

    def config(self) -> Optional[dict]:
        """The arguments that rebuild this game, or None (then a game equals only itself).

        Games that return their configuration compare and hash by it, so equal
        configurations can share caches.
        """
        return None

    def __eq__(self, other):
        mine = self.config()
        if mine is None:
            return self is other
        return isinstance(other, type(self)) and mine == other.config()

    def __hash__(self):
        mine = self.config()
        return id(self) if mine is None else hash(repr(sorted(mine.items())))  # repr: values may be lists

    def action_name(self, action: int) -> str:
        if self.action_names and 0 <= action < len(self.action_names):
            return self.action_names[action]
        return str(action)


def sample_action(probabilities: Mapping[int, float], rng: np.random.Generator) -> int:
    """Draw an action from ``{action: probability}`` (what a policy's
    ``action_probabilities(state)`` answers); the weights are renormalised."""
    actions = list(probabilities)
    p = np.array([probabilities[a] for a in actions], dtype=float)
    return int(actions[int(rng.choice(len(actions), p=p / p.sum()))])


def play_out(state: GameState, policies, rng: np.random.Generator) -> GameState:
    """Play ``state`` to the end: ``policies[seat](state) -> action``; chance by ``rng``."""
    while not state.is_terminal():
        if state.is_chance_node():
            state = state.apply(state.sample_chance(rng))
        else:
            state = state.apply(policies[state.current_player](state))
    return state
