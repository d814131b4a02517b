"""Agents that play the jeopardy-game environments (Zombie Dice, Pig) from a policy.

The exact solvers speak in positions ``(p, i, j, b, s)`` (seat, own score, opponent's
score, turn total, shotguns; see :mod:`dice_envs.agents.zombie_dice.ayzd_solver` and :mod:`dice_envs.agents.pig.solver`);
:class:`PolicyAgent` turns such a policy into actions for a rules-core state that
offers ``rolled`` and ``two_player_view()``, so exactly the same decisions are used
by the exact evaluator and in simulated play.  :class:`BatchedTurnOpponent` plays a
fixed policy's whole turns at once in the batched environments, drawn from the exact
distribution of how they end (:class:`TurnTable`).
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

from dice_envs.agents.evaluate.contract import ask_policy
from dice_envs.core.encodings import HOLD, ROLL
from dice_envs.core.resources import check_resources
from dice_envs.core.validation import check_int, check_real


class PolicyAgent:
    """Plays ``policy(p, i, j, b, s) -> probability of rolling``.

    A fresh turn always rolls (holding is illegal); a fractional probability is
    sampled with ``rng``.  Each answer is checked as the scorers check them
    (:func:`dice_envs.agents.evaluate.contract.ask_policy`): a policy that raises, or answers
    anything but a probability, is refused by name.
    """

    def __init__(self, policy, rng: Optional[np.random.Generator] = None):
        self.policy = policy
        self.rng = rng if rng is not None else np.random.default_rng()

    def roll_probability(self, state) -> float:
        if not state.rolled:
            return 1.0
        return float(ask_policy(self.policy, state.two_player_view(), ()))

    def act(self, state) -> int:
        q = self.roll_probability(state)
        if q >= 1.0:
            return ROLL
        if q <= 0.0:
            return HOLD
        return ROLL if self.rng.random() < q else HOLD

    def __call__(self, state) -> int:
        return self.act(state)

    def reset(self, rng: np.random.Generator) -> None:
        """Use ``rng`` from now on (the single-agent env passes its ``np_random``)."""
        self.rng = rng


class BatchedPolicyAgent:
    """:class:`PolicyAgent` for the batched environments: a batched opponent
    (:mod:`dice_envs.envs.vector`) that asks ``policy`` once for all the games it moves in.

    The positions come from the batch's ``two_player_view(rows)`` (``(p, i, j, b, s)``
    for Zombie Dice, ``(i, j, k)`` for Pig), so a table policy such as the solvers'
    optimal one is one array look-up per step.  Its answers are checked
    (:func:`dice_envs.agents.evaluate.contract.ask_policy`), as :class:`PolicyAgent`'s.
    """

    def __init__(self, policy):
        self.policy = policy

    def __call__(self, batch, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        q = np.where(batch.rolled(rows), ask_policy(self.policy, batch.two_player_view(rows), rows.shape), 1.0)
        return np.where(rng.random(len(rows)) < q, ROLL, HOLD)


#: Bytes of outcome rows :class:`TurnTable` works out, or draws from, in one pass; the passes'
#: temporaries are a few times this, whatever the table's or the batch's size.
PASS_BYTES = 16 * 2**20

#: The temporaries of a pass, as multiples of :data:`PASS_BYTES` (the outcomes' own arrays, their
#: clipped copy, their running sum and the rows drawn from), with a margin over the peaks measured.
PASS_TEMPORARIES = 4


class TurnTable:
    """How the turns of a fixed policy end, by the position at their start: the probabilities of
    banking ``g = 0, 1, 2, ...`` points (0: a bust), worked out once per position (on first use,
    or all at once with ``eager``) and drawn from by inverse CDF.

    Nothing is allocated until the first draw; :meth:`memory_bytes` says how much the table will
    hold, so an environment can refuse it first (the table grows as the cube of a jeopardy game's
    goal: Pig to 1000 has a million positions of a thousand outcomes each).  The rows are worked out and drawn from in passes of
    :data:`PASS_BYTES`, so a draw for ten million games needs no more than one for a thousand.

    Args:
        shape: the grid of positions, one size per coordinate (positions outside it are not
            covered: :meth:`covers`).
        outcomes: ``outcomes(*coordinates) -> (N, G)``: for ``N`` positions given as integer
            arrays, the probabilities of banking ``0 .. G - 1`` points (a row may fall short of
            1 by what the solver leaves out; it is scaled up).
        eager: work out every position of the grid at once, when first asked.
        width: the outcomes ``G`` expected per position, for :meth:`memory_bytes` (a row that
            turns out wider is checked against the memory limit again before the table grows).
        label: what sets the grid's size, for messages (``"scores below goal=1000"``).
        seconds_per_outcome: the time ``outcomes`` takes per outcome worked out, for :meth:`seconds`
            (0: unknown).
        model_bytes: the memory ``outcomes`` builds on its first call (a model of the turn), for
            :meth:`memory_bytes`.

    Raises:
        ValueError: for a grid size or a width that is not a positive integer.
    """

    def __init__(self, shape: Sequence[int], outcomes: Callable[..., np.ndarray], eager: bool = False,
                 width: int = 1, label: str = "", seconds_per_outcome: float = 0.0, model_bytes: int = 0):
        self.shape = tuple(check_int("a turn table's grid size", n, 1) for n in shape)
        self.outcomes = outcomes
        self.eager = eager
        self.width = check_int("a turn table's width (outcomes per position)", width, 1)
        self.size = math.prod(self.shape)  # a Python int: no overflow, however large the grid
        self.label = label
        self.seconds_per_outcome = check_real("seconds_per_outcome", seconds_per_outcome, 0.0)
        self.model_bytes = check_int("model_bytes", model_bytes, 0)
        self._known: Optional[np.ndarray] = None  # allocated on the first draw
        self._cumulative: Optional[np.ndarray] = None

    def describe(self, width: Optional[int] = None) -> str:
        """``"a turn table of 1,000,000 positions (scores below goal=1000) x 1,006 outcomes"``."""
        label = f" ({self.label})" if self.label else ""
        return f"a turn table of {self.size:,} positions{label} x {width or self.width:,} outcomes"

    def memory_bytes(self, width: Optional[int] = None) -> int:
        """The bytes the table holds once every position is worked out (at ``width`` outcomes a
        position, default the declared one), with the temporaries of a pass and the model its
        outcomes build."""
        return self.stored_bytes(width) + PASS_TEMPORARIES * PASS_BYTES + self.model_bytes

    def stored_bytes(self, width: Optional[int] = None) -> int:
        """The bytes the table keeps once every position is worked out (at ``width`` outcomes a
        position, default the declared one): :meth:`memory_bytes` without what its work needs."""
        return self.size * (8 * (width or self.width) + 1)

    def seconds(self) -> Optional[float]:
        """The time an eager table takes to work out every position on its first draw (None for a
        table worked out as it is used, or an unknown cost)."""
        if not (self.eager and self.seconds_per_outcome):
            return None
        return self.size * self.width * self.seconds_per_outcome

    @property
    def positions(self) -> int:
        """The positions worked out so far."""
        return 0 if self._known is None else int(self._known.sum())

    def covers(self, position: Tuple[np.ndarray, ...]) -> np.ndarray:
        """Per game, whether ``position`` lies in the grid."""
        inside = np.ones(np.shape(position[0]), bool)
        for x, n in zip(position, self.shape):
            inside &= (x >= 0) & (x < n)
        return inside

    def draw(self, position: Tuple[np.ndarray, ...], rng: np.random.Generator) -> np.ndarray:
        """Points banked by one turn from each of the positions (covered ones)."""
        if self._known is None:
            check_resources(self.describe(), self.memory_bytes())  # the time is announced by who builds it
            self._known = np.zeros(self.size, bool)
            self._cumulative = np.ones((self.size, 1))  # unknown rows: anything (never read)
        flat = np.ravel_multi_index(position, self.shape)
        if not self._known[flat].all():
            todo = np.flatnonzero(~self._known) if self.eager else np.unique(flat[~self._known[flat]])
            for lo in range(0, len(todo), self._pass_rows()):
                self._add(todo[lo : lo + self._pass_rows()])
        # Inverse CDF: the first g whose cumulative probability exceeds u, which is the number of
        # g whose cumulative probability does not (one pass over the rows: the rows are short).
        u = rng.random(len(flat))
        drawn = np.empty(len(flat), np.int64)
        step = self._pass_rows()
        for lo in range(0, len(flat), step):
            part = slice(lo, lo + step)
            drawn[part] = np.count_nonzero(self._table[flat[part]] <= u[part, None], axis=1)
        return drawn

    @property
    def _table(self) -> np.ndarray:
        """The cumulative probabilities, one row per position (allocated by the first draw)."""
        assert self._cumulative is not None, "the table is allocated by the first draw"
        return self._cumulative

    def _pass_rows(self) -> int:
        """Rows worked out or drawn from in one pass (of :data:`PASS_BYTES`)."""
        return max(1, PASS_BYTES // (8 * max(self.width, self._table.shape[1])))

    def _add(self, flat: np.ndarray) -> None:
        probs = np.maximum(np.asarray(self.outcomes(*np.unravel_index(flat, self.shape)), np.float64), 0.0)
        cumulative = np.cumsum(probs, axis=1)  # non-decreasing (a solver's -1e-17 is clipped), as draw needs
        del probs
        cumulative /= cumulative[:, -1:]
        cumulative[:, -1] = 1.0
        width, table = cumulative.shape[1], self._table
        if width > table.shape[1]:
            if width > self.width:  # wider than declared: checked again before the table grows
                check_resources(self.describe(width), self.memory_bytes(width) + table.nbytes)
            grown = np.ones((self.size, width))
            grown[:, : table.shape[1]] = table
            self._cumulative = table = grown
        table[flat, :width] = cumulative
        table[flat, width:] = 1.0
        assert self._known is not None, "allocated with the table, by the first draw"
        self._known[flat] = True


class BatchedTurnOpponent:
    """A fixed policy of a jeopardy game (Pig, Zombie Dice) as a batched opponent that plays
    each of its turns in one draw (``play_turns``, see :mod:`dice_envs.envs.vector`).

    A turn from its start is a small absorbing Markov chain (bank ``g`` points, or bust),
    so the points it banks are drawn from their exact distribution (:class:`TurnTable`)
    and the batch ends the turn with them (:meth:`dice_envs.envs.batched.BatchedGame.bank`):
    the observations and rewards the agent sees are distributed as if each decision had
    been played, in one step instead of a dozen.  Turns already under way and positions
    outside the table are played one decision at a time by ``step``.

    Args:
        step: the same policy as a batched opponent of single decisions.
        table: the :class:`TurnTable` of its turns.
        position: ``position(batch, rows) -> coordinates`` of the table, per game.
    """

    batched = True

    def __init__(self, step, table: TurnTable, position: Callable[..., Tuple[np.ndarray, ...]]):
        self.step = step
        self.table = table
        self.position = position

    def __call__(self, batch, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.step(batch, rows, rng)

    def memory_bytes(self) -> int:
        """The bytes its table will hold (:meth:`TurnTable.memory_bytes`), for the environment's
        guard (:mod:`dice_envs.envs.vector`)."""
        return self.table.memory_bytes()

    def seconds(self) -> Optional[float]:
        """The time its table takes to work out before the first turn (:meth:`TurnTable.seconds`)."""
        return self.table.seconds()

    def describe(self) -> str:
        """What :meth:`memory_bytes` counts (its table)."""
        return self.table.describe()

    def stepped(self) -> Callable[..., np.ndarray]:
        """The same opponent deciding one roll at a time (no ``play_turns``), marked as a
        batched opponent so the envs take it as it is: how they played it before whole turns
        were drawn (for comparisons and benchmarks)."""

        def step(batch, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
            return self.step(batch, rows, rng)

        step.batched = True  # type: ignore[attr-defined]
        return step

    def play_turns(self, batch, rows: np.ndarray, rng: np.random.Generator) -> Tuple[np.ndarray, np.ndarray]:
        """Play whole turns in the games ``rows`` that are at a turn's start; returns
        ``(played, rewards)`` as :mod:`dice_envs.envs.vector` asks."""
        position = self.position(batch, rows)
        played = ~batch.rolled(rows) & self.table.covers(position)
        if not played.any():
            return played, np.zeros((0, batch.num_players), np.float32)
        gained = self.table.draw(tuple(x[played] for x in position), rng)
        return played, batch.bank(gained, where=rows[played])
