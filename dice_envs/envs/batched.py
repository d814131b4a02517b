"""Batched rules: N games of one rules core held in numpy arrays and stepped at once.

A :class:`BatchedGame` is the array twin of a rules core (:mod:`dice_envs.core`):
the state of every game lives in arrays with one row per game, and
:meth:`BatchedGame.step` advances all of them by one decision of each game's
player to move, drawing the chance outcomes that follow from a numpy
``Generator``.  Chance nodes never show: a step returns at the next decision (or
the end of the game), as the AEC environment does.

The rules are written a second time here, for speed, so every game's batched copy
is tested against its rules core step by step (same chance outcomes, same
actions, legal and illegal) and its chance draws against ``chance_outcomes()``
(``tests/test_batched_*.py``).  :meth:`BatchedGame.load_states` and
:meth:`BatchedGame.chance_outcome` exist for those tests.

Conventions shared with the AEC environment (:mod:`dice_envs.envs.aec`):

* observations are the rules core's ``observation(seat)`` vectors, the mask the
  rules core's ``action_mask()`` of the player to move;
* the payoff of every seat is paid as the reward of the step that ends a game;
* an illegal action ends that game with -1 for the player who made it and 0 for
  the others (PettingZoo's ``TerminateIllegalWrapper``, as ``env()`` applies it).

Finished games stay finished until :meth:`BatchedGame.reset` starts them again
(``where=`` selects the games); the vector environments built on this
(:mod:`dice_envs.envs.vector`) reset them automatically.
"""

from __future__ import annotations

import abc
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from dice_envs.core.game import TERMINAL, Game, GameState
from dice_envs.core.resources import check_resources
from dice_envs.core.validation import check_int

State = Dict[str, np.ndarray]


class _Rows(dict):
    """The arrays of some games (``idx``) of ``source``, gathered on first access only
    (a step of a few games touches a few arrays); :meth:`write_back` scatters what was
    fetched."""

    def __init__(self, source, idx: np.ndarray):
        super().__init__()
        self._source, self._idx = source, idx

    def __missing__(self, key):
        value = self[key] = self._source[key][self._idx]
        return value

    def write_back(self) -> None:
        for key, value in self.items():
            self._source[key][self._idx] = value


def check_num_envs(num_envs) -> int:
    return check_int("num_envs", num_envs, 1)


def categorical(u: np.ndarray, cumulative: np.ndarray) -> np.ndarray:
    """Indices drawn by inverse CDF: ``u`` uniform in [0, 1) of shape (M,), ``cumulative``
    the cumulative probabilities, shape (K,) or (M, K), last entry 1."""
    if cumulative.ndim == 1:
        return np.searchsorted(cumulative, u, side="right").clip(max=len(cumulative) - 1)
    return np.argmin(cumulative <= u[:, None], axis=1)  # the first entry above u (the last is 1)


# numpy's reductions over a short last axis (a few seats or colours) cost about ten times
# what adding the columns does; the rules' hot paths use these instead.

def row_sum(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=1)`` of a 2-D integer array with a few columns."""
    total = x[:, 0].copy()
    for c in range(1, x.shape[1]):
        total += x[:, c]
    return total


def row_any(x: np.ndarray) -> np.ndarray:
    """``x.any(axis=1)`` of a 2-D bool array with a few columns."""
    out = x[:, 0].copy()
    for c in range(1, x.shape[1]):
        out |= x[:, c]
    return out


def row_max(x: np.ndarray) -> np.ndarray:
    """``x.max(axis=1)`` of a 2-D array with a few columns."""
    out = x[:, 0].copy()
    for c in range(1, x.shape[1]):
        np.maximum(out, x[:, c], out=out)
    return out


def first_true(x: np.ndarray) -> np.ndarray:
    """``np.argmax(x, axis=1)`` of a 2-D bool array with a few columns (0 where none is true)."""
    out = np.zeros(len(x), np.int64)
    for c in range(x.shape[1] - 1, -1, -1):
        out[x[:, c]] = c
    return out


class BatchedGame(abc.ABC):
    """``num_envs`` games of one rules core, in arrays.

    Subclasses declare their arrays in :meth:`_new_state` (a dict of arrays whose
    first axis is the game) and write the rules as functions over such a dict for a
    subset of the games (:meth:`_step`, :meth:`_observe`, ...), so the same code steps
    the whole batch or the games selected by ``where``.

    Attributes:
        game: the rules core's :class:`~dice_envs.core.Game` (configuration).
        num_envs: the number of games.
        state: the arrays (``state["done"]`` marks finished games).
    """

    def __init__(self, game: Game, num_envs: int):
        self.game = game
        self.num_envs = check_num_envs(num_envs)
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        self.observation_shape: Tuple[int, ...] = tuple(game.observation_shape)
        self._check_memory()
        self.state: State = self._new_state(self.num_envs)

    #: Bytes a step may hold per game beyond the state's arrays (observations, masks, rewards,
    #: the vector env's buffers and numpy's temporaries), as multiples of the state.
    MEMORY_FACTOR = 8

    def memory_bytes(self) -> int:
        """The bytes the batch and its steps hold, from one game's arrays and observation (nothing
        of the batch's size is allocated to work it out)."""
        one = sum(a.nbytes for a in self._new_state(1).values())
        per_game = self.MEMORY_FACTOR * one + 4 * (int(np.prod(self.observation_shape)) + self.num_actions) * 4
        return per_game * self.num_envs

    def describe(self) -> str:
        """``"1,000 games of pig at once (num_envs)"``: what :meth:`memory_bytes` counts."""
        return f"{self.num_envs:,} games of {self.game.name} at once (num_envs)"

    def _check_memory(self) -> None:
        """Refuse a batch whose arrays would exceed the memory limit, before anything of the
        batch's size is allocated."""
        check_resources(self.describe(), self.memory_bytes())

    # -- what a game implements ---------------------------------------------------------

    @abc.abstractmethod
    def _new_state(self, n: int) -> State:
        """Arrays for ``n`` games (contents arbitrary; :meth:`reset` initialises them)."""

    @abc.abstractmethod
    def _reset(self, s: State, rng: np.random.Generator) -> None:
        """Put the games of ``s`` at the start of a new game (chance included), in place."""

    @abc.abstractmethod
    def _step(self, s: State, actions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Apply ``actions`` (legal ones: the caller has checked) in place; return the
        ``(M, num_players)`` rewards.  Sets ``s["done"]`` where a game ends."""

    @abc.abstractmethod
    def _mover(self, s: State) -> np.ndarray:
        """The seat to act in each game of ``s`` (any value where ``done``)."""

    @abc.abstractmethod
    def _legal(self, s: State) -> np.ndarray:
        """``(M, num_actions)`` bool: legal actions of the mover (games not done)."""

    @abc.abstractmethod
    def _observe(self, s: State, seats: np.ndarray) -> np.ndarray:
        """``(M,) + observation_shape`` float32: what ``seats[m]`` sees in game ``m``."""

    @abc.abstractmethod
    def _load(self, s: State, k: int, state: GameState) -> None:
        """Write the rules-core ``state`` (a decision or terminal node) into row ``k``."""

    def _bank(self, rows: np.ndarray, gained: np.ndarray) -> np.ndarray:
        """End the mover's turn in the games ``rows`` of :attr:`state` banking ``gained`` points
        (jeopardy games); see :meth:`bank`."""
        raise NotImplementedError(f"{type(self).__name__} has no turns to bank")

    def chance_outcome(self, k: int) -> Any:
        """The rules-core chance outcome drawn in game ``k`` by the last :meth:`step` or
        :meth:`reset` that touched it, or None if it drew none (for the tests)."""
        return None

    def drawn_outcomes(self, k: int) -> list:
        """Every rules-core chance outcome drawn in game ``k`` by the last :meth:`step` or
        :meth:`reset` that touched it, in order (for the tests).  Games whose steps cross
        at most one chance node implement :meth:`chance_outcome` instead."""
        outcome = self.chance_outcome(k)
        return [] if outcome is None else [outcome]

    # -- the batch API ----------------------------------------------------------------------

    def _select(self, where) -> Optional[np.ndarray]:
        if where is None:
            return None
        where = np.asarray(where)
        if where.dtype == bool:
            if where.shape != (self.num_envs,):
                raise ValueError(f"where must have shape ({self.num_envs},), got {where.shape}")
            return np.flatnonzero(where)
        return where.astype(np.intp, copy=False)

    def _gather(self, idx: Optional[np.ndarray]) -> State:
        return self.state if idx is None else _Rows(self.state, idx)

    @staticmethod
    def _scatter(s: State) -> None:
        if isinstance(s, _Rows):
            s.write_back()

    def reset(self, rng: np.random.Generator, where=None) -> None:
        """Start new games in every slot, or in the slots ``where`` selects (a bool mask
        or indices)."""
        idx = self._select(where)
        if idx is not None and len(idx) == 0:
            return
        s = self._gather(idx)
        self._reset(s, rng)
        s["done"][:] = False
        self._scatter(s)

    def step(self, actions, rng: np.random.Generator, where=None) -> Tuple[np.ndarray, np.ndarray]:
        """One decision in every game (or in the games ``where`` selects).

        ``actions`` has one entry per selected game (per game if ``where`` is None).
        Games already finished are left as they are (their action is ignored).

        Returns:
            ``(rewards, terminated)``: ``(M, num_players)`` float32 payoffs paid by this
            step and ``(M,)`` bool, the games that ended on this step.
        """
        idx = self._select(where)
        s = self._gather(idx)
        m = len(s["done"])
        actions = np.asarray(actions)
        if actions.shape != (m,):
            raise ValueError(f"actions must have shape ({m},), got {actions.shape}")
        if not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
        live = ~s["done"]
        in_range = (actions >= 0) & (actions < self.num_actions)
        legal = live & in_range & self._legal(s)[np.arange(m), np.where(in_range, actions, 0)]
        rewards = np.zeros((m, self.num_players), np.float32)
        go = np.flatnonzero(legal)
        if len(go) == m:
            rewards = self._step(s, actions, rng)
        elif len(go):
            sub = _Rows(s, go)
            rewards[go] = self._step(sub, actions[go], rng)
            sub.write_back()
        illegal = np.flatnonzero(live & ~legal)
        if len(illegal):
            rewards[illegal, self._mover(_Rows(s, illegal))] = -1.0
            s["done"][illegal] = True
        terminated = live & s["done"]
        self._scatter(s)
        return rewards, terminated

    def bank(self, gained, where=None) -> np.ndarray:
        """End the turn of the mover in every game (or the games ``where`` selects) as its last
        step would, ``gained`` points banked: 0 for a bust (or a hold with nothing), the turn's
        total for a hold, or the total that reached the goal.  For the jeopardy games (Pig,
        Zombie Dice), whose opponents' whole turns are drawn at once (:mod:`dice_envs.envs.vector`).

        Returns:
            ``(M, num_players)`` float32 payoffs of the games that this ends.
        """
        idx = self._select(where)
        rows = np.arange(self.num_envs) if idx is None else idx
        gained = np.asarray(gained, np.int64)
        if gained.shape != rows.shape:
            raise ValueError(f"gained must have shape {rows.shape}, got {gained.shape}")
        if self.state["done"][rows].any():
            raise ValueError("bank() needs games in play; some selected games are over")
        return self._bank(rows, gained)

    @property
    def done(self) -> np.ndarray:
        """``(num_envs,)`` bool: finished games."""
        return self.state["done"]

    def current_player(self, where=None) -> np.ndarray:
        """The seat to act in each game, or :data:`~dice_envs.core.TERMINAL` (-2) where it is over."""
        s = self._gather(self._select(where))
        return np.where(s["done"], TERMINAL, self._mover(s))

    def action_mask(self, where=None) -> np.ndarray:
        """``(M, num_actions)`` int8 mask of the player to move (all zeros where a game is over)."""
        s = self._gather(self._select(where))
        legal = self._legal(s)
        legal[s["done"]] = False
        return legal.astype(np.int8)

    def observe(self, seats, where=None) -> np.ndarray:
        """What ``seats`` (one seat per game, or one seat for all) sees in each game."""
        s = self._gather(self._select(where))
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), s["done"].shape)
        return self._observe(s, seats)

    def observe_mover(self, where=None) -> np.ndarray:
        """The observation of the player to move in each game (the winner's view where it is over)."""
        s = self._gather(self._select(where))
        return self._observe(s, self._mover(s))

    def load_states(self, states: Sequence[GameState]) -> None:
        """Set game ``k`` to the rules-core ``states[k]`` (decision or terminal nodes; for the tests)."""
        if len(states) != self.num_envs:
            raise ValueError(f"need {self.num_envs} states, got {len(states)}")
        for k, st in enumerate(states):
            if st.game != self.game:
                raise ValueError(f"state {k} belongs to another game ({st.game!r})")
            if st.is_chance_node():
                raise ValueError(f"state {k} is a chance node; load decision or terminal nodes")
            self._load(self.state, k, st)
            self.state["done"][k] = st.is_terminal()
