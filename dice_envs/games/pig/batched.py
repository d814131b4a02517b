"""Pig, batched: the rules of :mod:`dice_envs.games.pig.rules` over arrays of games.

See :mod:`dice_envs.envs.batched` for the API; ``tests/test_batched_pig.py`` checks this
copy of the rules against :class:`dice_envs.games.pig.rules.PigState` step by step.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.core.dice import Die
from dice_envs.envs.batched import BatchedGame, State, categorical
from dice_envs.games.pig.rules import BUST_FACE, DEFAULT_GOAL, HOLD, ROLL, PigGame, PigState


class PigBatch(BatchedGame):
    """``num_envs`` games of two-player Pig.

    Args:
        num_envs: the number of games.
        goal, die: as :class:`dice_envs.games.pig.rules.PigGame` (or pass ``game=``).
    """

    game: PigGame

    def __init__(self, num_envs: int, goal: int = DEFAULT_GOAL, die: Optional[Die] = None,
                 game: Optional[PigGame] = None):
        game = game if game is not None else PigGame(goal, die)
        distribution = game.die.distribution()
        self.faces = np.array([int(f) for f, _ in distribution], np.int64)
        cumulative = np.cumsum([float(p) for _, p in distribution])
        cumulative[-1] = 1.0
        self.cumulative = cumulative
        super().__init__(game, num_envs)

    def _new_state(self, n: int) -> State:
        return {
            "scores": np.zeros((n, 2), np.int64),
            "mover": np.zeros(n, np.int64),
            "turn_total": np.zeros(n, np.int64),
            "winner": np.full(n, -1, np.int64),
            "face": np.zeros(n, np.int64),  # the face rolled by the last step (0: none)
            "done": np.zeros(n, bool),
        }

    def _reset(self, s: State, rng) -> None:
        s["scores"][:] = 0
        s["mover"][:] = 0
        s["turn_total"][:] = 0
        s["winner"][:] = -1
        s["face"][:] = 0

    def _mover(self, s: State) -> np.ndarray:
        return s["mover"]

    def _legal(self, s: State) -> np.ndarray:
        legal = np.ones((len(s["done"]), 2), bool)
        legal[:, HOLD] = s["turn_total"] > 0
        return legal

    def _step(self, s: State, actions: np.ndarray, rng) -> np.ndarray:
        m = len(actions)
        rows = np.arange(m)
        mover, scores, total = s["mover"], s["scores"], s["turn_total"]
        rewards = np.zeros((m, 2), np.float32)
        roll = actions == ROLL
        face = np.where(roll, self.faces[categorical(rng.random(m), self.cumulative)], 0)
        s["face"][:] = face
        bust = roll & (face == BUST_FACE)
        total += np.where(roll & ~bust, face, 0)
        own = scores[rows, mover]
        won = roll & ~bust & (own + total >= self.game.goal)
        # Holding banks the turn total (never the goal: reaching it ends the game at once).
        gained = np.where(actions == HOLD, total, 0) + np.where(won, total, 0)
        scores[rows, mover] = own + gained
        pass_turn = (actions == HOLD) | bust
        total[pass_turn | won] = 0
        s["winner"][won] = mover[won]
        s["done"] |= won
        mover[pass_turn] ^= 1
        if won.any():
            w = np.flatnonzero(won)
            rewards[w] = -1.0
            rewards[w, mover[w]] = 1.0
        return rewards

    def _bank(self, rows: np.ndarray, gained: np.ndarray) -> np.ndarray:
        s = self.state
        mover = s["mover"][rows]
        banked = s["scores"][rows, mover] + gained
        s["scores"][rows, mover] = banked
        won = banked >= self.game.goal
        s["turn_total"][rows] = 0
        s["face"][rows] = 0
        s["winner"][rows[won]] = mover[won]
        s["done"][rows[won]] = True
        s["mover"][rows[~won]] ^= 1
        rewards = np.zeros((len(rows), 2), np.float32)
        rewards[won] = -1.0
        rewards[won, mover[won]] = 1.0
        return rewards

    def _observe(self, s: State, seats: np.ndarray) -> np.ndarray:
        rows = np.arange(len(seats))
        obs = np.empty((len(seats), 4), np.float32)
        obs[:, 0] = s["scores"][rows, seats]
        obs[:, 1] = s["scores"][rows, 1 - seats]
        obs[:, 2] = s["turn_total"]
        obs[:, 3] = ~s["done"] & (s["mover"] == seats)
        return obs

    def two_player_view(self, where=None):
        """``(i, j, k)`` arrays as :meth:`dice_envs.games.pig.rules.PigState.two_player_view`."""
        s = self._gather(self._select(where))
        rows = np.arange(len(s["done"]))
        return s["scores"][rows, s["mover"]], s["scores"][rows, 1 - s["mover"]], s["turn_total"]

    def rolled(self, where=None) -> np.ndarray:
        return self._gather(self._select(where))["turn_total"] > 0

    def _load(self, s: State, k: int, state: PigState) -> None:  # type: ignore[override]
        s["scores"][k] = state.scores
        s["mover"][k] = state.mover
        s["turn_total"][k] = state.turn_total
        s["winner"][k] = -1 if state.winner is None else state.winner
        s["face"][k] = 0

    def chance_outcome(self, k: int):
        face = int(self.state["face"][k])
        return face or None
