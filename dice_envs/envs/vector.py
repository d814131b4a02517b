"""Vector environments over the batched rules (:mod:`dice_envs.envs.batched`).

* :class:`BatchedSingleAgentEnv`: a ``gymnasium.vector.VectorEnv`` in which each game
  has one learning seat and every other seat is played by a *batched opponent*
  stepped inside :meth:`~BatchedSingleAgentEnv.step`, for all games at once.  It is
  what ``gymnasium.make_vec("dice_envs/<Game>-v0", num_envs=N,
  vectorization_mode="vector_entry_point")`` returns, with ``action_masks()`` for
  sb3-contrib's ``MaskablePPO`` (through :mod:`dice_envs.envs.sb3_vec_env`).  Episodes
  reset automatically in the same step (``metadata["autoreset_mode"]`` is
  ``SAME_STEP``): the observation returned for a finished game is the first of its
  next episode, and ``info["final_obs"]`` (with the mask ``info["_final_obs"]``)
  holds the last one.
* :class:`BatchedSelfPlayEnv`: the batched multi-agent form, in which one policy acts
  for every seat: it gives the observation and mask of the player to move, the
  current player of each game and the rewards of every seat.

A batched opponent is a callable ``opponent(batch, rows, rng) -> actions``: the
actions of the players to move in the games ``rows`` of ``batch`` (a
:class:`~dice_envs.envs.batched.BatchedGame`).  If it has a method ``start(rows, rng)``,
it is called whenever the games ``rows`` start (to draw a policy per game, say).
:func:`random_opponent` plays uniformly among the legal actions; the games' solvers
provide table look-ups of their optimal policies
(``dice_envs.agents.evaluate.jeopardy_agents.BatchedPolicyAgent``).

An opponent may also play whole turns at once: a method ``play_turns(batch, rows, rng)
-> (played, rewards)`` is offered the games ``rows`` where it is to move, plays the whole
turn of those it can (``played``, bool per game; ``rewards`` ``(played.sum(),
num_players)``, paid by the turns it played) and leaves the others to be stepped one
decision at a time.  The jeopardy games' fixed policies do this
(``dice_envs.agents.evaluate.jeopardy_agents.BatchedTurnOpponent``): a turn from its start is a
small absorbing Markov chain, so how it ends is drawn from its exact distribution in one
step.  It is used only without ``max_cycles`` (the decisions of a drawn turn are not
counted).

An opponent that allocates memory of its own (a table of whole turns) says how much with
``memory_bytes()``, what it is with ``describe()`` and, if it is worked out before the first
turn, how long that takes with ``seconds()`` (None if unknown); the environment refuses the
batch and the opponent together if they would exceed the memory or time limit, and announces
long work (:func:`dice_envs.core.resources.check_resources`), before either allocates anything.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from dice_envs.core.game import IllegalActionError
from dice_envs.core.resources import check_resources
from dice_envs.core.validation import check_bool, check_choice, check_optional_int
from dice_envs.envs.batched import BatchedGame

BatchedOpponent = Callable[[BatchedGame, np.ndarray, np.random.Generator], np.ndarray]
ObservationFn = Callable[[BatchedGame, np.ndarray, np.ndarray], np.ndarray]


def random_opponent(batch: BatchedGame, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniformly random among the legal actions of each game in ``rows``."""
    mask = batch.action_mask(rows)
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def _check_seat(seat, num_players: int) -> Optional[int]:
    return check_optional_int("seat (None or a seat)", seat, 0, num_players - 1)


def _check_max_cycles(max_cycles) -> Optional[int]:
    return check_optional_int("max_cycles (None or a number of decisions)", max_cycles, 1)


def _actions_array(actions, num_envs: int, num_actions: int) -> np.ndarray:
    actions = np.asarray(actions)
    if actions.shape != (num_envs,) or not np.issubdtype(actions.dtype, np.integer):
        raise IllegalActionError(
            f"actions must be {num_envs} integers (one per game, each in Discrete({num_actions})), "
            f"got shape {actions.shape} and dtype {actions.dtype}"
        )
    return actions.astype(np.int64, copy=False)


class BatchedSingleAgentEnv(VectorEnv):
    """``num_envs`` games, one learning seat each, the other seats played by ``opponent``.

    Args:
        batch: the batched game (its ``num_envs`` is the vector's).
        opponent: a batched opponent (see the module docstring) for every other seat.
        seat: the agent's seat, or ``None`` (default) to draw it per game at every
            episode start (``info["seat"]``).
        observation_fn: ``(batch, rows, seats) -> (len(rows), d) float32``; default the
            rules core's observation of the seat (``batch.observe``).
        observation_space: the single-game Box of ``observation_fn`` (needed with it).
        auto_forced: decisions with a single legal action are made for the agent.
        max_cycles: decisions (all seats) after which a game is truncated; None: no limit.
        illegal_action: ``"terminate"`` (the game ends with -1 for the agent,
            ``info["illegal_action"]``) or ``"raise"`` (:class:`~dice_envs.core.IllegalActionError`).

    ``info`` holds ``"action_mask"`` ``(num_envs, n)`` and ``"seat"`` ``(num_envs,)``.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, batch: BatchedGame, opponent: BatchedOpponent, seat: Optional[int] = None,
                 observation_fn: Optional[ObservationFn] = None, observation_space: Optional[spaces.Box] = None,
                 auto_forced: bool = False, max_cycles: Optional[int] = None, illegal_action: str = "terminate"):
        check_choice("illegal_action", illegal_action, ("terminate", "raise"))
        check_bool("auto_forced", auto_forced)
        if (observation_fn is None) != (observation_space is None):
            raise ValueError("observation_fn and observation_space go together")
        if not callable(opponent):
            raise ValueError(f"opponent must be a batched opponent (batch, rows, rng) -> actions, got {opponent!r}")
        sized: Any = opponent if hasattr(opponent, "memory_bytes") else None  # a turn table's, counted before it is built
        if sized is not None:
            seconds = sized.seconds() if hasattr(sized, "seconds") else None
            check_resources(f"{batch.describe()} against an opponent with {sized.describe()}",
                            batch.memory_bytes() + sized.memory_bytes(), seconds)
        self.batch = batch
        self.game = batch.game
        self.num_envs = batch.num_envs
        self.opponent = opponent
        self.fixed_seat = _check_seat(seat, self.game.num_players)
        self.auto_forced = bool(auto_forced)
        self.max_cycles = _check_max_cycles(max_cycles)
        self.illegal_action = illegal_action
        self._all = np.arange(self.num_envs)
        if observation_fn is None:
            low, high = self.game.observation_bounds()
            observation_space = spaces.Box(low, high, dtype=np.float32)
            observation_fn = lambda b, rows, seats: b.observe(  # noqa: E731
                seats, where=None if rows is self._all else rows)
        assert observation_space is not None  # given with observation_fn (checked above)
        self._observation_fn = observation_fn
        self.single_observation_space = observation_space
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.seat = np.zeros(self.num_envs, np.int64)
        self.cycles = np.zeros(self.num_envs, np.int64)
        self._play_turns = getattr(opponent, "play_turns", None) if self.max_cycles is None else None
        self._rng = np.random.default_rng()
        self._needs_reset = True

    # -- Gymnasium VectorEnv API ------------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.action_space.seed(seed)
            self.observation_space.seed(seed)
        self._start(self._all)
        self._needs_reset = False
        return self._observation(self._all), self._info()

    def step(self, actions):
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        batch, n = self.batch, self.num_envs
        actions = _actions_array(actions, n, self.game.num_actions)
        mask = batch.action_mask()
        in_range = (actions >= 0) & (actions < self.game.num_actions)
        illegal = ~in_range | (mask[self._all, np.where(in_range, actions, 0)] == 0)
        if illegal.any() and self.illegal_action == "raise":
            k = int(np.flatnonzero(illegal)[0])
            legal = np.flatnonzero(mask[k]).tolist()
            raise IllegalActionError(
                f"game {k}, seat {self.seat[k]}: action {int(actions[k])} is illegal; legal actions: {legal}"
            )
        rewards, _ = batch.step(actions, self._rng)
        reward = rewards[self._all, self.seat]
        self.cycles += 1
        reward += self._advance(self._all)
        terminated = batch.done.copy()
        truncated = np.zeros(n, bool)
        if self.max_cycles is not None:
            truncated = ~terminated & (self.cycles >= self.max_cycles)
        info = {}
        over = terminated | truncated
        observation = self._observation(self._all)
        if over.any():
            ended = np.flatnonzero(over)
            final = np.full(n, None, dtype=object)
            final[ended] = list(observation[ended])
            info["final_obs"], info["_final_obs"] = final, over
            if illegal.any():
                info["illegal_action"], info["_illegal_action"] = illegal, illegal
            self._start(ended)
            observation[ended] = self._observation(ended)
        info.update(self._info())
        return observation, reward.astype(np.float32), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n)`` bool: the agent's legal actions in each game (sb3-contrib's ``MaskablePPO``)."""
        return self.batch.action_mask().astype(bool)

    def close_extras(self, **kwargs):
        pass

    # -- helpers ------------------------------------------------------------------------------------

    def _start(self, rows: np.ndarray) -> None:
        """New games in ``rows`` (seats drawn), advanced to the agent's first decision.
        A game decided before the agent's first move is dealt again, as in the single env."""
        while len(rows):
            self.batch.reset(self._rng, where=rows)
            if self.fixed_seat is None:
                self.seat[rows] = self._rng.integers(self.game.num_players, size=len(rows))
            else:
                self.seat[rows] = self.fixed_seat
            self.cycles[rows] = 0
            if hasattr(self.opponent, "start"):
                self.opponent.start(rows, self._rng)
            self._advance(rows)
            rows = rows[self.batch.done[rows]]

    def _advance(self, rows: np.ndarray) -> np.ndarray:
        """Play the opponents (and the agent's forced moves) in ``rows`` until the agent
        must decide; return the agent's rewards earned meanwhile (per game)."""
        batch = self.batch
        earned = np.zeros(self.num_envs, np.float32)
        while len(rows):
            live = ~batch.done[rows]
            if self.max_cycles is not None:
                live &= self.cycles[rows] < self.max_cycles
            rows = rows[live]
            if not len(rows):
                break
            theirs = batch.current_player(rows) != self.seat[rows]
            if self.auto_forced:
                forced = ~theirs & (batch.action_mask(rows).sum(axis=1) == 1)
                rows = rows[theirs | forced]
                theirs = theirs[theirs | forced]
            else:
                rows = rows[theirs]
                theirs = theirs[theirs]
            played = np.zeros(len(rows), bool)
            if self._play_turns is not None and theirs.any():
                mine = np.flatnonzero(theirs)
                whole, rewards = self._play_turns(batch, rows[mine], self._rng)
                played[mine[whole]] = True
                earned[rows[played]] += rewards[np.arange(len(rewards)), self.seat[rows[played]]]
            if played.all():
                continue  # looked at again: the game may be over, or the agent's to move
            stepped, theirs = rows[~played], theirs[~played]
            actions = np.empty(len(stepped), np.int64)
            if theirs.any():
                actions[theirs] = self.opponent(batch, stepped[theirs], self._rng)
            if not theirs.all():
                actions[~theirs] = np.argmax(batch.action_mask(stepped[~theirs]), axis=1)
            rewards, _ = batch.step(actions, self._rng, where=stepped)
            earned[stepped] += rewards[np.arange(len(stepped)), self.seat[stepped]]
            self.cycles[stepped] += 1
        return earned

    def _observation(self, rows: np.ndarray) -> np.ndarray:
        return np.asarray(self._observation_fn(self.batch, rows, self.seat[rows]), dtype=np.float32)

    def _info(self) -> dict:
        return {"action_mask": self.batch.action_mask(), "seat": self.seat.copy()}


class BatchedSelfPlayEnv:
    """``num_envs`` games in which one policy plays every seat.

    ``reset(seed)`` and ``step(actions)`` return ``(observation, info)`` and
    ``(observation, rewards, terminated, truncated, info)``: the observation
    ``(num_envs, d)`` of the player to move in each game, the rewards ``(num_envs,
    num_players)`` of every seat paid by this step, and ``info`` with
    ``"action_mask"`` (the mover's), ``"current_player"`` (the seat to move) and, for
    games that ended and were started again, ``"final_obs"`` (the last observation,
    from the seat that moved last) with its mask ``"_final_obs"``.

    Args:
        batch: the batched game.
        max_cycles: decisions after which a game is truncated; None: no limit.
    """

    def __init__(self, batch: BatchedGame, max_cycles: Optional[int] = None):
        self.batch = batch
        self.game = batch.game
        self.num_envs = batch.num_envs
        self.num_players = self.game.num_players
        self.max_cycles = _check_max_cycles(max_cycles)
        low, high = self.game.observation_bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space: spaces.Discrete = spaces.Discrete(self.game.num_actions)
        self.cycles = np.zeros(self.num_envs, np.int64)
        self._rng = np.random.default_rng()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.batch.reset(self._rng)
        self.cycles[:] = 0
        return self.batch.observe_mover(), self._info()

    def step(self, actions):
        batch = self.batch
        actions = _actions_array(actions, self.num_envs, self.game.num_actions)
        movers = batch.current_player()
        rewards, terminated = batch.step(actions, self._rng)
        self.cycles += 1
        truncated = np.zeros(self.num_envs, bool)
        if self.max_cycles is not None:
            truncated = ~terminated & (self.cycles >= self.max_cycles)
        over = terminated | truncated
        info = {}
        if over.any():
            ended = np.flatnonzero(over)
            final = np.full(self.num_envs, None, dtype=object)
            final[ended] = list(batch.observe(movers[ended], where=ended))
            info["final_obs"], info["_final_obs"] = final, over
            batch.reset(self._rng, where=ended)
            self.cycles[ended] = 0
        info.update(self._info())
        return batch.observe_mover(), rewards, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.batch.action_mask().astype(bool)

    def _info(self) -> dict:
        return {"action_mask": self.batch.action_mask(), "current_player": self.batch.current_player()}
