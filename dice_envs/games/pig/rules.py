"""Pig rules core: the classic two-player jeopardy dice game.

This module holds the rules once; the PettingZoo environment
(:mod:`dice_envs.pig_v0`), the exact solver (:mod:`dice_envs.agents.pig.solver`) and the tests all
use it.

Rules (as solved by Neller and Presser, "Optimal Play of the Dice Game Pig",
The UMAP Journal 25(1), 2004):

* Two players take turns; a turn is a series of rolls of one die.
* Rolling a 1 ends the turn and scores nothing for it (a *bust*).
* Rolling any other face adds it to the *turn total*; the player then decides to
  roll again or to *hold*: bank the turn total and pass the turn.
* A player must roll at the start of a turn (holding with nothing is not allowed).
* The first player to reach the goal (100) wins.  As in Neller and Presser's model
  the game ends the moment the mover's score plus turn total reaches the goal: the
  points are banked automatically, since holding then wins and no decision is left.

The die is pluggable: any :class:`dice_envs.core.dice.Die` whose faces are distinct
positive integers can be used (1 busts, every other face scores its value), so a
loaded die (``d(6).loaded(6, Fraction(5, 4))``) or a d8 can be studied with the
same environment and solver.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional, Tuple

import numpy as np

from dice_envs.core.dice import Die, Sampler, d
from dice_envs.core.encodings import ENCODINGS, HOLD, ROLL, EncodedObservations, fourier_features
from dice_envs.core.game import CHANCE, TERMINAL, Game, GameState
from dice_envs.core.validation import check_int

ACTION_NAMES = ("hold", "roll")
BUST_FACE = 1
DEFAULT_GOAL = 100
#: The encodings of the observation vector that ``dice_envs/Pig-v0`` offers (:meth:`PigGame.encoded_observation`).
OBSERVATIONS = ENCODINGS


def check_pig_die(die) -> Die:
    """Return ``die`` if Pig can be played with it, else raise ``ValueError``.

    Faces must be distinct positive integers (``1`` busts, others score their value),
    and some scoring face (not 1) must have positive probability, or nobody could
    ever score.
    """
    if not isinstance(die, Die):
        raise ValueError(f"die must be a dice_envs.core.dice.Die, got {die!r}")
    for face in die.faces:
        if isinstance(face, (bool, np.bool_)) or not isinstance(face, (int, np.integer)) or face < 1:
            raise ValueError(f"die faces must be positive integers (1 busts), got {die.faces!r}")
    if all(p == 0 for f, p in zip(die.faces, die.probabilities) if f != BUST_FACE):
        raise ValueError(f"die must have a scoring face (not 1) with positive probability, got {die.faces!r}")
    return die


@lru_cache(maxsize=64)
def _roll_sampler(die: Die) -> Sampler:
    return Sampler(die.distribution())


class PigGame(EncodedObservations, Game):
    """Configuration of a two-player Pig game.

    Args:
        goal: the score that wins (100 in the classic game); a positive integer.
        die: the die rolled (default a fair d6); see :func:`check_pig_die`.

    Raises:
        ValueError: for a goal below 1 or a die Pig cannot be played with.
    """

    name = "pig"
    fourier_signals = 4  # own score, the opponent's, the turn total, own score plus turn total
    num_players = 2
    num_actions = 2
    action_names = ACTION_NAMES

    def __init__(self, goal: int = DEFAULT_GOAL, die: Optional[Die] = None):
        self.goal = check_int("goal", goal, 1)
        self.die = check_pig_die(d(6) if die is None else die)
        self.max_face = max(int(f) for f in self.die.faces)  # type: ignore[call-overload]  # int faces (checked)

    @property
    def observation_shape(self):
        return (4,)

    def observation_bounds(self):
        top = self.goal + self.max_face - 1  # the largest score or turn total possible
        low = np.zeros(4, np.float32)
        high = np.array([top, top, top, 1], np.float32)
        return low, high

    def scaled_observation(self, observation: np.ndarray) -> np.ndarray:
        """``observation`` (one vector or a batch) with the scores and the turn total divided
        by the goal: the ``observation="scaled"`` of ``dice_envs/Pig-v0``, the scale a
        network learns from (the raw values reach the goal, 100)."""
        scaled = np.array(observation, dtype=np.float32)
        scaled[..., :3] /= self.goal
        return scaled

    def fourier_observation(self, observation: np.ndarray) -> np.ndarray:
        """:meth:`scaled_observation` followed by the sines and cosines of ``pi f x / goal`` for
        ``f`` in :data:`dice_envs.core.encodings.FOURIER_FREQUENCIES` and ``x`` each of the own score ``i``, the
        opponent's ``j``, the turn total ``k`` and ``i + k`` (the score a hold banks): the
        ``observation="fourier"`` of ``dice_envs/Pig-v0``, 44 values.  With them a small
        network can draw the optimal policy's jagged hold boundary: fitted to it, a 2x64
        network's greedy policy scores -0.00004 against the optimum, -0.002 on the scaled
        observation alone (``experiments/diagnose_pig_capacity.py``)."""
        scaled = self.scaled_observation(observation)
        signals = np.stack([scaled[..., 0], scaled[..., 1], scaled[..., 2], scaled[..., 0] + scaled[..., 2]], -1)
        return np.concatenate([scaled, fourier_features(signals)], axis=-1)

    def position_observation(self, i, j, k, kind: str = "full") -> np.ndarray:
        """``(N, d)`` observations of the player to move at the positions ``(i, j, k)`` (own
        score, opponent's score, turn total; arrays, broadcast together and flattened), in the
        encoding ``kind`` (:meth:`encoded_observation`): what a learned policy is asked on the
        solver's grid."""
        i, j, k = np.broadcast_arrays(*(np.asarray(x) for x in (i, j, k)))
        raw = np.stack([i, j, k, np.ones_like(i)], axis=-1).reshape(-1, 4).astype(np.float32)
        return self.encoded_observation(raw, kind)

    def new_initial_state(self) -> "PigState":
        return PigState(self, (0, 0), 0, 0, False, None)

    def __repr__(self):
        return f"PigGame(goal={self.goal}, die={self.die!r})"


class PigState(GameState):
    """An immutable Pig position.

    Attributes:
        scores: points banked by each seat.
        mover: the seat whose turn it is.
        turn_total: points scored this turn so far (0 until the first scoring roll).
        pending_roll: a roll was chosen and the die is in the air (chance node).
        winner: the winning seat once the game is over.
    """

    __slots__ = ("game", "scores", "mover", "turn_total", "pending_roll", "winner")
    game: PigGame

    def __init__(self, game, scores, mover, turn_total, pending_roll, winner):
        self.game = game
        self.scores = scores
        self.mover = mover
        self.turn_total = turn_total
        self.pending_roll = pending_roll
        self.winner = winner

    @property
    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        if self.pending_roll:
            return CHANCE
        return self.mover

    @property
    def rolled(self) -> bool:
        """Has the mover rolled (and not bust) this turn?  Only then may they hold."""
        return self.turn_total > 0

    def legal_actions(self):
        if self.winner is not None or self.pending_roll:
            return ()
        return (HOLD, ROLL) if self.rolled else (ROLL,)

    def returns(self):
        if self.winner is None:
            return (0.0, 0.0)
        return tuple(1.0 if s == self.winner else -1.0 for s in range(2))

    def chance_outcomes(self):
        assert self.pending_roll, "not a chance node"
        return self.game.die.distribution()

    def sample_chance(self, rng):
        return _roll_sampler(self.game.die).sample(rng)

    def describe_outcome(self, outcome, player: Optional[int] = None) -> str:
        return f"player_{self.mover} rolled {outcome}" + (" (bust)" if outcome == BUST_FACE else "")

    def apply(self, action) -> "PigState":
        if self.pending_roll:
            if action not in self.game.die.faces or self.game.die.probability(action) == 0:
                raise ValueError(f"{action!r} is not a face the die can roll ({self.game.die.faces})")
            return self._apply_roll(int(action))
        action = self.check_action(action)
        if action == ROLL:
            return PigState(self.game, self.scores, self.mover, self.turn_total, True, None)
        return self._end_turn(self.turn_total)

    def _apply_roll(self, face: int) -> "PigState":
        if face == BUST_FACE:
            return self._end_turn(0)
        total = self.turn_total + face
        if self.scores[self.mover] + total >= self.game.goal:
            scores = list(self.scores)
            scores[self.mover] += total
            return PigState(self.game, tuple(scores), self.mover, 0, False, self.mover)
        return PigState(self.game, self.scores, self.mover, total, False, None)

    def _end_turn(self, gained: int) -> "PigState":
        scores = list(self.scores)
        scores[self.mover] += gained
        return PigState(self.game, tuple(scores), 1 - self.mover, 0, False, None)

    def two_player_view(self) -> Tuple[int, int, int]:
        """``(i, j, k)`` as in Neller and Presser: the mover's score, the opponent's,
        and the turn total."""
        return self.scores[self.mover], self.scores[1 - self.mover], self.turn_total

    def observation(self, player: int) -> np.ndarray:
        """``[own score, opponent score, turn total, 1 if it is player's turn]``.

        The turn total is the mover's (Pig has no hidden information)."""
        to_move = 1.0 if self.winner is None and self.mover == player else 0.0
        return np.array(
            [self.scores[player], self.scores[1 - player], self.turn_total, to_move], dtype=np.float32
        )

    def __str__(self) -> str:
        lines = []
        for seat in range(2):
            tag = ""
            if self.winner == seat:
                tag = " (winner)"
            elif self.winner is None and seat == self.mover:
                tag = " (to play)"
            lines.append(f"player_{seat}: {self.scores[seat]:3d} points{tag}")
        if self.winner is None:
            lines.append(f"turn total: {self.turn_total}  (goal {self.game.goal})")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"PigState(scores={self.scores}, mover={self.mover}, turn_total={self.turn_total}, "
            f"pending_roll={self.pending_roll}, winner={self.winner})"
        )
