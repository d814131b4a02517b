"""Zombie Dice, batched: the rules of :mod:`dice_envs.games.zombie_dice.rules` over arrays of games.

Any variant (official or all yellow) and player count.  A roll draws the missing
dice from the cup (after putting the brain dice back when the cup is short) and rolls
them with the footprints kept, in two draws from exact tables: how many dice of each
colour come out of the cup (multivariate hypergeometric, by cup and number missing),
then the faces of the three dice in hand (multinomial per colour, by the colours in
hand).  ``tests/envs/test_batched_rules.py`` checks that these draws follow the rules
core's exact ``chance_outcomes()`` and that the whole copy agrees with
:class:`dice_envs.games.zombie_dice.rules.ZombieDiceState` step by step.

Turn order is seat order among the seats still in the round (all seats, or the tied
leaders in a tiebreak), as in the rules core.  See :mod:`dice_envs.envs.batched` for the API.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.core.dice import combine, draw_counts, roll_counts
from dice_envs.envs.batched import BatchedGame, State, categorical, first_true, row_any, row_max, row_sum
from dice_envs.games.zombie_dice.rules import (
    DICE_PER_ROLL,
    HOLD,
    ROLL,
    SHOTGUNS_TO_BUST,
    ZombieDiceGame,
    ZombieDiceState,
    compact_observation,
)


class ZombieDiceBatch(BatchedGame):
    """``num_envs`` games of Zombie Dice.

    Args:
        num_envs: the number of games.
        num_players, variant, goal, stop_when_won: as :class:`dice_envs.games.zombie_dice.rules.ZombieDiceGame`
            (or pass ``game=``).
    """

    game: ZombieDiceGame

    def __init__(self, num_envs: int, num_players: int = 2, variant: str = "official", goal: int = 13,
                 stop_when_won: bool = True, game: Optional[ZombieDiceGame] = None):
        game = game if game is not None else ZombieDiceGame(num_players, variant, goal, stop_when_won)
        self.num_colors = game.num_colors
        self.full_cup = np.array(game.full_cup, np.int64)
        self._build_roll_tables(game)
        super().__init__(game, num_envs)

    def _build_roll_tables(self, game: ZombieDiceGame) -> None:
        """The two tables a roll draws from, exact (from :func:`dice_envs.core.dice.draw_counts` and
        :func:`dice_envs.core.dice.roll_counts`), as cumulative probabilities and outcomes:

        * by cup (radix ``full_cup + 1``) and dice missing (0-3): the dice drawn per colour;
        * by dice in hand per colour (radix 4; the hands of three dice): brains, shotguns,
          footprints per colour.
        """
        c = self.num_colors
        self.cup_radix = self.full_cup + 1
        self.hand_radix = np.full(c, DICE_PER_ROLL + 1, np.int64)

        def tables(keys, distribution):
            found = [[(outcome, float(p)) for outcome, p in distribution(key)] for key in keys]
            width = max(len(f) for f in found)
            cumulative = np.ones((len(keys), width))
            outcomes = np.zeros((len(keys), width) + np.shape(found[0][0][0]), np.int64)
            for k, f in enumerate(found):
                cumulative[k, : len(f)] = np.cumsum([p for _, p in f])
                cumulative[k, len(f) - 1 :] = 1.0
                outcomes[k, : len(f)] = [o for o, _ in f]
            return cumulative, outcomes

        cups = list(np.ndindex(*self.cup_radix))
        self.draw_cumulative, self.draw_outcomes = tables(
            [(cup, need) for cup in cups for need in range(DICE_PER_ROLL + 1)],
            lambda key: draw_counts(key[0], key[1]) if key[1] <= sum(key[0]) else [((0,) * c, 1)])
        self.face_cumulative, self.face_outcomes = tables(
            list(np.ndindex(*self.hand_radix)),
            lambda hand: combine([roll_counts(die, n) if sum(hand) == DICE_PER_ROLL else [((0, 0, 0), 1)]
                                  for die, n in zip(game.dice, hand)]))
        self.face_brains = self.face_outcomes[..., 0].sum(axis=-1).ravel()  # brains of each faces code

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
            # The last step's roll, for the tests (-1: none): its outcomes in the two roll tables.
            "last_roll": np.full(n, -1, np.int64),
            "done": np.zeros(n, bool),
        }

    def _reset(self, s: State, rng) -> None:
        s["scores"][:] = 0
        s["active"][:] = True
        s["mover"][:] = 0
        s["final"][:] = False
        s["winner"][:] = -1
        s["last_roll"][:] = -1
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
        s["last_roll"][:] = -1
        ended = actions == HOLD  # holds, busts, and (stop_when_won) rolls after which holding wins
        roll = np.flatnonzero(actions == ROLL)
        if len(roll):
            ended[roll] = self._roll(s, roll, rng)
        ended = np.flatnonzero(ended)
        if len(ended):  # a bust has no turn brains left to bank
            self._end_turn(s, ended, s["turn_brains"][ended], rewards)
        return rewards

    def _roll(self, s: State, rows: np.ndarray, rng) -> np.ndarray:
        """Roll in the games ``rows``; return where the turn ends (a bust: its turn brains
        are set to 0; or, with ``stop_when_won``, holding wins)."""
        cup, brain_dice, feet = s["cup"][rows], s["brain_dice"][rows], s["feet"][rows]
        need = DICE_PER_ROLL - row_sum(feet)
        short = row_sum(cup) < need  # brain dice go back in the cup
        cup[short] += brain_dice[short]
        brain_dice[short] = 0
        u = rng.random((len(rows), 2))
        key = np.ravel_multi_index(tuple(cup.T), self.cup_radix) * (DICE_PER_ROLL + 1) + need
        drawn_code = key * self.draw_cumulative.shape[1] + categorical(u[:, 0], self.draw_cumulative[key])
        drawn = self.draw_outcomes.reshape(-1, self.num_colors)[drawn_code]
        cup -= drawn
        hand = np.ravel_multi_index(tuple((feet + drawn).T), self.hand_radix)
        faces_code = hand * self.face_cumulative.shape[1] + categorical(u[:, 1], self.face_cumulative[hand])
        results = self.face_outcomes.reshape(-1, self.num_colors, 3)[faces_code]
        s["last_roll"][rows] = drawn_code * self.face_cumulative.size + faces_code
        brain_dice += results[:, :, 0]
        shotgun_dice = s["shotgun_dice"][rows] + results[:, :, 1]
        s["cup"][rows] = cup
        s["brain_dice"][rows] = brain_dice
        s["shotgun_dice"][rows] = shotgun_dice
        s["feet"][rows] = results[:, :, 2]
        bust = row_sum(shotgun_dice) >= SHOTGUNS_TO_BUST
        s["turn_brains"][rows] = np.where(bust, 0, s["turn_brains"][rows] + self.face_brains[faces_code])
        s["rolled"][rows] = True
        if self.game.stop_when_won:
            return bust | self._holding_wins(s, rows)
        return bust

    def _holding_wins(self, s: State, rows: np.ndarray) -> np.ndarray:
        """Would holding end the game with the mover as the winner (see the rules core)?"""
        seats = np.arange(self.game.num_players)
        mover = s["mover"][rows]
        scores = s["scores"][rows]
        last = ~row_any(s["active"][rows] & (seats > mover[:, None]))
        banked = scores[np.arange(len(rows)), mover] + s["turn_brains"][rows]
        others = row_max(np.where(seats == mover[:, None], -1, scores))
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
        round_over = ~row_any(later)
        best = row_max(np.where(active, scores, -1))
        leaders = active & (scores == best[:, None])
        settle = round_over & final
        active = np.where(settle[:, None], leaders, active)
        won = settle & (row_sum(leaders.astype(np.int64)) == 1)
        # The next mover: the next seat in the round, or the first one of the next round.
        mover = np.where(round_over, first_true(active), first_true(later))
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

    def _bank(self, rows: np.ndarray, gained: np.ndarray) -> np.ndarray:
        rewards = np.zeros((self.num_envs, self.game.num_players), np.float32)
        self.state["last_roll"][rows] = -1
        self._end_turn(self.state, rows, gained, rewards)
        return rewards[rows]

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
        obs[:, 4 * n + 1] = row_sum(s["shotgun_dice"])
        obs[:, 4 * n + 2] = s["rolled"]
        obs[:, 4 * n + 3] = s["final"]
        c = self.num_colors
        base = 4 * n + 4
        for j, key in enumerate(("cup", "brain_dice", "shotgun_dice", "feet")):
            obs[:, base + j * c : base + (j + 1) * c] = s[key]
        return obs

    def two_player_view(self, where=None):
        """``(p, i, j, b, s)`` arrays as :meth:`dice_envs.games.zombie_dice.rules.ZombieDiceState.two_player_view`
        (two players)."""
        if self.game.num_players != 2:
            raise ValueError("two_player_view needs a 2-player game")
        s = self._gather(self._select(where))
        mover = s["mover"]
        rows = np.arange(len(mover))
        # The mover plays first in the round unless the other seat is in it and sits before.
        second = (mover == 1) & s["active"][:, 0]
        return (1 + second.astype(np.int64), s["scores"][rows, mover], s["scores"][rows, 1 - mover],
                s["turn_brains"], row_sum(s["shotgun_dice"]))

    def rolled(self, where=None) -> np.ndarray:
        return self._gather(self._select(where))["rolled"].copy()

    def compact_observation(self, where=None) -> np.ndarray:
        """:func:`dice_envs.games.zombie_dice.rules.compact_observation` of the mover's position (two players)."""
        p, i, j, b, sh = self.two_player_view(where)
        return compact_observation(p, i, j, b, sh, self.game.goal, self.rolled(where))

    def _load(self, s: State, k: int, state: ZombieDiceState) -> None:  # type: ignore[override]
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
        s["last_roll"][k] = -1

    def chance_outcome(self, k: int):
        code = int(self.state["last_roll"][k])
        if code < 0:
            return None
        drawn_code, faces_code = divmod(code, self.face_cumulative.size)
        drawn = self.draw_outcomes.reshape(-1, self.num_colors)[drawn_code]
        results = self.face_outcomes.reshape(-1, self.num_colors, 3)[faces_code]
        return tuple(int(x) for x in drawn), tuple(tuple(int(x) for x in r) for r in results)
