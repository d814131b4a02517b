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

from typing import Callable, Optional, Sequence, Tuple

import numpy as np

from dice_envs.agents.evaluate.contract import ask_policy
from dice_envs.core.encodings import HOLD, ROLL


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


class TurnTable:
    """How the turns of a fixed policy end, by the position at their start: the probabilities of
    banking ``g = 0, 1, 2, ...`` points (0: a bust), worked out once per position (on first use,
    or all at once with ``eager``) and drawn from by inverse CDF.

    Args:
        shape: the grid of positions, one size per coordinate (positions outside it are not
            covered: :meth:`covers`).
        outcomes: ``outcomes(*coordinates) -> (N, G)``: for ``N`` positions given as integer
            arrays, the probabilities of banking ``0 .. G - 1`` points (a row may fall short of
            1 by what the solver leaves out; it is scaled up).
        eager: work out every position of the grid at once, when first asked.
    """

    def __init__(self, shape: Sequence[int], outcomes: Callable[..., np.ndarray], eager: bool = False):
        self.shape = tuple(int(n) for n in shape)
        self.outcomes = outcomes
        self.eager = eager
        size = int(np.prod(self.shape))
        self._known = np.zeros(size, bool)
        self._cumulative = np.ones((size, 1))  # unknown rows: anything (never read)

    @property
    def positions(self) -> int:
        """The positions worked out so far."""
        return int(self._known.sum())

    def covers(self, position: Tuple[np.ndarray, ...]) -> np.ndarray:
        """Per game, whether ``position`` lies in the grid."""
        inside = np.ones(np.shape(position[0]), bool)
        for x, n in zip(position, self.shape):
            inside &= (x >= 0) & (x < n)
        return inside

    def draw(self, position: Tuple[np.ndarray, ...], rng: np.random.Generator) -> np.ndarray:
        """Points banked by one turn from each of the positions (covered ones)."""
        flat = np.ravel_multi_index(position, self.shape)
        if not self._known[flat].all():
            self._add(np.arange(len(self._known)) if self.eager else np.unique(flat[~self._known[flat]]))
        # Inverse CDF: the first g whose cumulative probability exceeds u, which is the number of
        # g whose cumulative probability does not (one pass over the rows: the rows are short).
        u = rng.random(len(flat))
        return np.count_nonzero(self._cumulative[flat] <= u[:, None], axis=1)

    def _add(self, flat: np.ndarray) -> None:
        probs = np.maximum(np.asarray(self.outcomes(*np.unravel_index(flat, self.shape)), np.float64), 0.0)
        cumulative = np.cumsum(probs, axis=1)  # non-decreasing (a solver's -1e-17 is clipped), as draw needs
        cumulative /= cumulative[:, -1:]
        cumulative[:, -1] = 1.0
        width = cumulative.shape[1]
        if width > self._cumulative.shape[1]:
            grown = np.ones((len(self._known), width))
            grown[:, : self._cumulative.shape[1]] = self._cumulative
            self._cumulative = grown
        self._cumulative[flat, :width] = cumulative
        self._cumulative[flat, width:] = 1.0
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
