"""Zombie Dice, batched: the rules of :mod:`dice_envs.zombie_dice` over arrays of games.

Any variant (official or all yellow) and player count.  A roll draws the missing
dice one at a time from the cup (after putting the brain dice back when the cup is
short) and rolls each die with its colour's faces; ``tests/test_batched_zombie_dice.py``
checks that these draws follow the rules core's exact ``chance_outcomes()`` and that
the whole copy agrees with :class:`dice_envs.zombie_dice.ZombieDiceState` step by step.

Turn order is seat order among the seats still in the round (all seats, or the tied
leaders in a tiebreak), as in the rules core.  See :mod:`dice_envs.batched` for the API.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .batched import BatchedGame, State, categorical
from .zombie_dice import (DICE_PER_ROLL, HOLD, ROLL, SHOTGUNS_TO_BUST, ZombieDiceGame, ZombieDiceState,
                          compact_observation)


class ZombieDiceBatch(BatchedGame):
    """``num_envs`` games of Zombie Dice.

    Args:
        num_envs: the number of games.
        num_players, variant, goal, stop_when_won: as :class:`dice_envs.zombie_dice.ZombieDiceGame`
            (or pass ``game=``).
    """

    def __init__(self, num_envs: int, num_players: int = 2, variant: str = "official", goal: int = 13,
                 stop_when_won: bool = True, game: Optional[ZombieDiceGame] = None):
        game = game if game is not None else ZombieDiceGame(num_players, variant, goal, stop_when_won)
        self.num_colors = game.num_colors
        self.full_cup = np.array(game.full_cup, np.int64)
        # Per colour, the cumulative probabilities of brain, shotgun, footprints.
        probs = np.array([[float(die.probability(face)) for face in die.faces] for die in game.dice])
        self.face_cumulative = np.cumsum(probs, axis=1)
        self.face_cumulative[:, -1] = 1.0
        super().__init__(game, num_envs)

    def _new_state(self, n: int) -> State:
        p, c = self.game.num_players, self.num_colors
        return {
            "scores": np.zeros((n, p), np.int64),
            "active": np.zeros((n, p), bool),  # seats in this round (all, or the tied leaders)
            "mover": np.zeros(n, np.int64),
            "final": np.zeros(n, bool),
            "cup": np.zeros((n, c), np.int64),
            "brain_dice": np.zeros((n, c), np.int64),
            "shotgun_dice": np.zeros((n, c), np.int64),
            "feet": np.zeros((n, c), np.int64),
            "turn_brains": np.zeros(n, np.int64),
            "rolled": np.zeros(n, bool),
            "winner": np.full(n, -1, np.int64),
            # The last roll, for the tests: dice drawn and (brains, shotguns, feet) per colour.
            "rolled_now": np.zeros(n, bool),
            "drawn": np.zeros((n, c), np.int64),
            "results": np.zeros((n, c, 3), np.int64),
            "done": np.zeros(n, bool),
        }

    def _reset(self, s: State, rng) -> None:
        s["scores"][:] = 0
        s["active"][:] = True
        s["mover"][:] = 0
        s["final"][:] = False
        s["winner"][:] = -1
        s["rolled_now"][:] = False
        self._new_turn(s, slice(None))

    def _new_turn(self, s: State, rows) -> None:
        s["cup"][rows] = self.full_cup
        s["brain_dice"][rows] = 0
        s["shotgun_dice"][rows] = 0
        s["feet"][rows] = 0
        s["turn_brains"][rows] = 0
        s["rolled"][rows] = False

    def _mover(self, s: State) -> np.ndarray:
        return s["mover"]

    def _legal(self, s: State) -> np.ndarray:
        legal = np.ones((len(s["done"]), 2), bool)
        legal[:, HOLD] = s["rolled"]
        return legal

    # -- transitions --------------------------------------------------------------------------

    def _step(self, s: State, actions: np.ndarray, rng) -> np.ndarray:
        m = len(actions)
        rewards = np.zeros((m, self.game.num_players), np.float32)
        s["rolled_now"][:] = actions == ROLL
        hold = np.flatnonzero(actions == HOLD)
        if len(hold):
            self._end_turn(s, hold, s["turn_brains"][hold], rewards)
        roll = np.flatnonzero(actions == ROLL)
        if len(roll):
            self._roll(s, roll, rng, rewards)
        return rewards

    def _roll(self, s: State, rows: np.ndarray, rng, rewards: np.ndarray) -> None:
        c = self.num_colors
        k = len(rows)
        cup, brain_dice, feet = s["cup"][rows], s["brain_dice"][rows], s["feet"][rows]
        need = DICE_PER_ROLL - feet.sum(axis=1)
        short = cup.sum(axis=1) < need  # brain dice go back in the cup
        cup[short] += brain_dice[short]
        brain_dice[short] = 0
        # Draw the missing dice one by one; the colours of the 3 dice rolled.
        colours = np.empty((k, DICE_PER_ROLL), np.int64)
        kept = feet.copy()
        drawn = np.zeros((k, c), np.int64)
        u = rng.random((k, 2 * DICE_PER_ROLL))
        for slot in range(DICE_PER_ROLL):
            from_feet = kept.sum(axis=1) > 0
            kept_colour = np.argmax(kept > 0, axis=1)
            if c == 1:
                pick = np.zeros(k, np.int64)
            else:
                total = cup.sum(axis=1)
                cumulative = np.cumsum(cup, axis=1) / np.maximum(total, 1)[:, None]
                pick = categorical(u[:, slot], cumulative)
            colour = np.where(from_feet, kept_colour, pick)
            one_hot = np.arange(c) == colour[:, None]
            kept -= one_hot & from_feet[:, None]
            draw = one_hot & ~from_feet[:, None]
            cup -= draw
            drawn += draw
            colours[:, slot] = colour
        # Roll each die with its colour's faces (0 brain, 1 shotgun, 2 footprints).
        cumulative = self.face_cumulative[colours]  # (k, 3 dice, 3 faces)
        faces = (u[:, DICE_PER_ROLL:, None] >= cumulative[..., :-1]).sum(axis=2)
        flat = (np.arange(k)[:, None] * c + colours) * 3 + faces
        results = np.bincount(flat.ravel(), minlength=k * c * 3).reshape(k, c, 3)
        s["drawn"][rows] = drawn
        s["results"][rows] = results
        brain_dice += results[:, :, 0]
        shotgun_dice = s["shotgun_dice"][rows] + results[:, :, 1]
        s["cup"][rows] = cup
        s["brain_dice"][rows] = brain_dice
        s["shotgun_dice"][rows] = shotgun_dice
        s["feet"][rows] = results[:, :, 2]
        s["turn_brains"][rows] += results[:, :, 0].sum(axis=1)
        s["rolled"][rows] = True
        bust = shotgun_dice.sum(axis=1) >= SHOTGUNS_TO_BUST
        if bust.any():
            self._end_turn(s, rows[bust], np.zeros(int(bust.sum()), np.int64), rewards)
        if self.game.stop_when_won:
            alive = rows[~bust]
            wins = alive[self._holding_wins(s, alive)]
            if len(wins):
                self._end_turn(s, wins, s["turn_brains"][wins], rewards)

    def _holding_wins(self, s: State, rows: np.ndarray) -> np.ndarray:
        """Would holding end the game with the mover as the winner (see the rules core)?"""
        seats = np.arange(self.game.num_players)
        mover = s["mover"][rows]
        scores = s["scores"][rows]
        last = ~(s["active"][rows] & (seats > mover[:, None])).any(axis=1)
        banked = scores[np.arange(len(rows)), mover] + s["turn_brains"][rows]
        others = np.where(seats == mover[:, None], -1, scores).max(axis=1)
        return last & (banked >= self.game.goal) & (banked > others)

    def _end_turn(self, s: State, rows: np.ndarray, gained: np.ndarray, rewards: np.ndarray) -> None:
        """Bank ``gained``, pass the turn, finish the round or the game (rules core's ``_end_turn``)."""
        n = self.game.num_players
        seats = np.arange(n)
        k = np.arange(len(rows))
        mover = s["mover"][rows]
        scores = s["scores"][rows]
        active = s["active"][rows]
        scores[k, mover] += gained
        final = s["final"][rows] | (scores[k, mover] >= self.game.goal)
        later = active & (seats > mover[:, None])
        round_over = ~later.any(axis=1)
        best = np.where(active, scores, -1).max(axis=1)
        leaders = active & (scores == best[:, None])
        settle = round_over & final
        active = np.where(settle[:, None], leaders, active)
        won = settle & (leaders.sum(axis=1) == 1)
        # The next mover: the next seat in the round, or the first one of the next round.
        mover = np.where(round_over, np.argmax(active, axis=1), np.argmax(later, axis=1))
        s["scores"][rows] = scores
        s["final"][rows] = final
        s["active"][rows] = active
        s["mover"][rows] = mover
        self._new_turn(s, rows)
        if won.any():
            w = rows[won]
            s["winner"][w] = mover[won]
            s["done"][w] = True
            rewards[w] = -1.0
            rewards[w, mover[won]] = 1.0

    # -- views ----------------------------------------------------------------------------------

    def _observe(self, s: State, seats: np.ndarray) -> np.ndarray:
        n = self.game.num_players
        m = len(seats)
        rows = np.arange(m)[:, None]
        order = (seats[:, None] + np.arange(n)) % n
        mover = s["mover"]
        obs = np.empty((m,) + self.observation_shape, np.float32)
        obs[:, :n] = s["scores"][rows, order]
        obs[:, n : 2 * n] = (order == mover[:, None]) & ~s["done"][:, None]
        active = s["active"][rows, order]
        obs[:, 2 * n : 3 * n] = active
        obs[:, 3 * n : 4 * n] = active & (order < mover[:, None])
        obs[:, 4 * n] = s["turn_brains"]
        obs[:, 4 * n + 1] = s["shotgun_dice"].sum(axis=1)
        obs[:, 4 * n + 2] = s["rolled"]
        obs[:, 4 * n + 3] = s["final"]
        c = self.num_colors
        base = 4 * n + 4
        for j, key in enumerate(("cup", "brain_dice", "shotgun_dice", "feet")):
            obs[:, base + j * c : base + (j + 1) * c] = s[key]
        return obs

    def two_player_view(self, where=None):
        """``(p, i, j, b, s)`` arrays as :meth:`dice_envs.zombie_dice.ZombieDiceState.two_player_view`
        (two players)."""
        if self.game.num_players != 2:
            raise ValueError("two_player_view needs a 2-player game")
        s = self._gather(self._select(where))
        mover = s["mover"]
        rows = np.arange(len(mover))
        # The mover plays first in the round unless the other seat is in it and sits before.
        second = (mover == 1) & s["active"][:, 0]
        return (1 + second.astype(np.int64), s["scores"][rows, mover], s["scores"][rows, 1 - mover],
                s["turn_brains"], s["shotgun_dice"].sum(axis=1))

    def rolled(self, where=None) -> np.ndarray:
        return self._gather(self._select(where))["rolled"].copy()

    def compact_observation(self, where=None) -> np.ndarray:
        """:func:`dice_envs.zombie_dice.compact_observation` of the mover's position (two players)."""
        p, i, j, b, sh = self.two_player_view(where)
        return compact_observation(p, i, j, b, sh, self.game.goal, self.rolled(where))

    def _load(self, s: State, k: int, state: ZombieDiceState) -> None:
        s["scores"][k] = state.scores
        s["active"][k] = False
        s["active"][k, list(state.active)] = True
        s["mover"][k] = state.seat
        s["final"][k] = state.final
        for key in ("cup", "brain_dice", "shotgun_dice", "feet"):
            s[key][k] = getattr(state, key)
        s["turn_brains"][k] = state.turn_brains
        s["rolled"][k] = state.rolled
        s["winner"][k] = -1 if state.winner is None else state.winner
        s["rolled_now"][k] = False

    def chance_outcome(self, k: int):
        if not self.state["rolled_now"][k]:
            return None
        drawn = tuple(int(x) for x in self.state["drawn"][k])
        results = tuple(tuple(int(x) for x in r) for r in self.state["results"][k])
        return drawn, results
