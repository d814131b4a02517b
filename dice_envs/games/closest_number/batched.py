"""Closest Number, batched: the rules of :mod:`dice_envs.games.closest_number.rules` over arrays of games.

Any player count, board size and reading of round 3.  The only chance node is the
starting player of round 1, drawn uniformly on reset unless the game fixes it.  A
round is scored at once for all the games that end one (each number goes to the
seat whose nearest scoring card is strictly nearest, found from the nearest card
on either side), then the games either go on to the next round (the tied leaders
only, from round 3, on the board of the round) or end: a lone leader after round
2 or later wins, tied leaders after the one-number round draw.

Turn order is clockwise among the seats in contention, from a starter that moves
one seat clockwise every round, as in the rules core.
``tests/closest_number/test_batched_closest_number.py`` checks this copy of the rules against
:class:`dice_envs.games.closest_number.rules.ClosestNumberState` step by step.  See
:mod:`dice_envs.envs.batched` for the API.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.envs.batched import BatchedGame, State
from dice_envs.games.closest_number.rules import ClosestNumberGame, ClosestNumberState


class ClosestNumberBatch(BatchedGame):
    """``num_envs`` games of Closest Number.

    Args:
        num_envs: the number of games.
        num_players, numbers, starting_player, round3: as
            :class:`dice_envs.games.closest_number.rules.ClosestNumberGame` (or pass ``game=``).
    """

    game: ClosestNumberGame

    def __init__(self, num_envs: int, num_players: int = 2, numbers: int = 10,
                 starting_player: Optional[int] = None, round3: str = "two_cards",
                 game: Optional[ClosestNumberGame] = None):
        game = game if game is not None else ClosestNumberGame(num_players, numbers, starting_player, round3)
        rules = [game.round_rules(r) for r in range(1, game.last_round + 1)]
        # Per round (index 0 unused): numbers on the board, cards per seat, decoy round.
        self.round_numbers = np.array([0] + [r.numbers for r in rules], np.int64)
        self.round_cards = np.array([0] + [r.cards for r in rules], np.int64)
        self.round_decoy = np.array([False] + [r.decoy for r in rules], bool)
        self.positions = np.arange(game.numbers)  # number k is position k - 1
        self.positions_col = self.positions.astype(np.int16)[:, None, None]
        self.seats = np.arange(game.num_players)
        super().__init__(game, num_envs)

    def _new_state(self, n: int) -> State:
        g = self.game
        p, k = g.num_players, g.numbers
        return {
            "first": np.zeros(n, np.int64),  # the starter of round 1
            "round": np.ones(n, np.int64),
            "scores": np.zeros((n, p), np.int64),
            "active": np.zeros((n, p), bool),  # seats in contention
            # This round's board: the seat whose card lies on each number (-1: free), its
            # decoy flag and its placement order (1, 2, ...; 0: free).
            "owner": np.full((n, k), -1, np.int8),
            "decoy": np.zeros((n, k), bool),
            "order": np.zeros((n, k), np.int64),
            "free": np.zeros((n, k), bool),  # free numbers of this round's board
            "count": np.zeros(n, np.int64),  # placements this round
            "end_at": np.zeros(n, np.int64),  # the placement count that ends the round
            "size": np.zeros(n, np.int64),  # numbers on this round's board
            "left": np.zeros((n, p), np.int64),  # cards left to place this round, per seat
            "decoy_left": np.zeros((n, p), bool),  # decoy still to place, per seat
            "starter": np.zeros(n, np.int64),  # this round's starter
            "mover": np.zeros(n, np.int64),  # the seat to move (a winner or tied leader once over)
            "ended": np.zeros(n, bool),  # over by the rules (not by an illegal action)
            "outcome": np.zeros((n, p), np.float32),
            "drawn": np.zeros(n, bool),  # the last reset drew the starter (for the tests)
            "done": np.zeros(n, bool),
        }

    def _reset(self, s: State, rng) -> None:
        g = self.game
        m = len(s["done"])
        if g.starting_player is None:
            s["first"][:] = rng.integers(g.num_players, size=m)
            s["drawn"][:] = True
        else:
            s["first"][:] = g.starting_player
            s["drawn"][:] = False
        s["round"][:] = 1
        s["scores"][:] = 0
        s["active"][:] = True
        s["ended"][:] = False
        s["outcome"][:] = 0.0
        self._clear_board(s, slice(None))
        self._start_round(s, np.arange(m))

    @staticmethod
    def _clear_board(s: State, rows) -> None:
        s["owner"][rows] = -1
        s["decoy"][rows] = False
        s["order"][rows] = 0
        s["count"][rows] = 0

    def _start_round(self, s: State, rows: np.ndarray) -> None:
        """Deal the hands of the round ``s["round"]`` and seat its starter (empty board)."""
        p = self.game.num_players
        rnd = s["round"][rows]
        active = s["active"][rows]
        cards = self.round_cards[rnd]
        size = self.round_numbers[rnd]
        s["left"][rows] = active * cards[:, None]
        s["decoy_left"][rows] = active & self.round_decoy[rnd][:, None]
        s["size"][rows] = size
        s["free"][rows] = self.positions < size[:, None]
        s["end_at"][rows] = np.minimum(cards * active.sum(axis=1), size)
        # Round r is started by seat first + r - 1, or the next seat in contention clockwise.
        starter = (s["first"][rows] + rnd - 1) % p
        out = np.flatnonzero(~active[np.arange(len(rows)), starter])
        if len(out):
            seats = (starter[out, None] + self.seats) % p
            starter[out] = seats[np.arange(len(out)), np.argmax(active[out[:, None], seats], axis=1)]
        s["starter"][rows] = starter
        s["mover"][rows] = starter

    def _mover(self, s: State) -> np.ndarray:
        return s["mover"]

    def _legal(self, s: State) -> np.ndarray:
        n = self.game.numbers
        m = len(s["done"])
        rows = np.arange(m)
        mover = s["mover"]
        free = s["free"]
        decoy_ok = s["decoy_left"][rows, mover]
        # The last card of a decoy round must be the decoy if it is still in hand.
        real_ok = (s["left"][rows, mover] > 1) | ~decoy_ok
        legal = np.empty((m, 2 * n), bool)
        np.logical_and(free, real_ok[:, None], out=legal[:, :n])
        np.logical_and(free, decoy_ok[:, None], out=legal[:, n:])
        return legal

    # -- transitions --------------------------------------------------------------------------

    def _step(self, s: State, actions: np.ndarray, rng) -> np.ndarray:
        g = self.game
        n, p = g.numbers, g.num_players
        m = len(actions)
        rows = np.arange(m)
        rewards = np.zeros((m, p), np.float32)
        s["drawn"][:] = False
        mover = s["mover"]
        number = actions % n
        decoy = actions >= n
        count = s["count"]
        count += 1
        s["owner"][rows, number] = mover
        s["free"][rows, number] = False
        s["decoy"][rows, number] = decoy
        s["order"][rows, number] = count
        s["left"][rows, mover] -= 1
        s["decoy_left"][rows, mover] &= ~decoy
        # A round ends when every card is down or the board is full.
        end = count >= s["end_at"]
        on = np.flatnonzero(~end)
        if len(on):
            if p == 2:  # both seats are in contention until the game ends
                mover[on] ^= 1
            else:
                # The next seat in contention clockwise.
                seats = (mover[on, None] + 1 + self.seats) % p
                k = np.arange(len(on))
                mover[on] = seats[k, np.argmax(s["active"][on[:, None], seats], axis=1)]
        e = np.flatnonzero(end)
        if len(e):
            self._end_round(s, e, rewards)
        return rewards

    def _score(self, owner: np.ndarray, decoy: np.ndarray, size: np.ndarray) -> np.ndarray:
        """``(k, num_players)`` points of boards ``owner`` / ``decoy`` (``(k, numbers)``) on
        ``1..size``: a number goes to the one seat whose nearest scoring card is strictly
        nearest (:func:`dice_envs.games.closest_number.rules.score_board`)."""
        n = self.game.numbers
        pos = self.positions_col  # (numbers, 1, 1): the number axis first, the games last
        scoring = (owner.T[:, None, :] == self.seats[:, None]) & ~decoy.T[:, None, :]  # (numbers, seats, k)
        far = np.int16(4 * n)  # a seat with no scoring card is 3n or more away, beyond any card's distance
        # The nearest scoring card of each seat at or below, and at or above, each number.
        below = np.maximum.accumulate(np.where(scoring, pos, -far), axis=0)
        above = np.minimum.accumulate(np.where(scoring, pos, far)[::-1], axis=0)[::-1]
        dist = np.minimum(pos - below, above - pos)
        nearest = dist == dist.min(axis=1)[:, None, :]
        # Several seats at the nearest distance (or none with a card: all "far") score nothing.
        unique = (nearest.sum(axis=1) == 1) & (self.positions[:, None] < size)
        return (nearest & unique[:, None, :]).sum(axis=0).T

    def _end_round(self, s: State, e: np.ndarray, rewards: np.ndarray) -> None:
        """Score the rounds of games ``e``; go on to the next round or end the game
        (rules core's ``_end_round``)."""
        g = self.game
        rnd = s["round"][e]
        scores = s["scores"][e] + self._score(s["owner"][e], s["decoy"][e], s["size"][e])
        active = s["active"][e]
        top = np.where(active, scores, -1).max(axis=1)
        leaders = active & (scores == top[:, None])
        alone = leaders.sum(axis=1) == 1
        after_one = rnd == 1
        finish = ~after_one & (alone | (rnd == g.last_round))
        s["scores"][e] = scores
        s["active"][e] = np.where(after_one[:, None], active, leaders)
        self._clear_board(s, e)
        f = e[finish]
        if len(f):
            outcome = np.where(leaders[finish], np.where(alone[finish], 1.0, 0.0)[:, None], -1.0)
            s["outcome"][f] = outcome
            s["ended"][f] = True
            s["done"][f] = True
            s["left"][f] = 0
            s["decoy_left"][f] = False
            s["mover"][f] = np.argmax(leaders[finish], axis=1)
            rewards[f] = outcome
        c = e[~finish]
        if len(c):
            s["round"][c] += 1
            self._start_round(s, c)

    # -- views ----------------------------------------------------------------------------------

    def _observe(self, s: State, seats: np.ndarray) -> np.ndarray:
        g = self.game
        n, p, ch = g.numbers, g.num_players, g._channels
        m = len(seats)
        rows = np.arange(m)
        obs = np.zeros((m,) + self.observation_shape, np.float32)
        board = obs[:, : n * ch].reshape(m, n, ch)
        owner, decoy = s["owner"], s["decoy"]
        rel = np.where(owner >= 0, (owner - seats[:, None]) % p, -1)  # -1: free
        mine = rel == 0
        board[:, :, 0] = mine & ~decoy
        board[:, :, 1] = mine & decoy
        board[:, :, 2 : p + 1] = rel[:, :, None] == self.seats[1:]
        live = ~s["ended"]
        board[:, :, p + 1] = (self.positions < s["size"][:, None]) & live[:, None]
        board[:, :, p + 2] = s["order"]
        base = n * ch
        order = (seats[:, None] + self.seats) % p
        obs[:, base : base + p] = s["scores"][rows[:, None], order]
        obs[rows[live], base + p + ((s["starter"] - seats) % p)[live]] = 1.0
        obs[:, base + 2 * p : base + 3 * p] = s["active"][rows[:, None], order]
        obs[:, base + 3 * p] = s["round"]
        obs[:, base + 3 * p + 1] = self.round_decoy[s["round"]]
        obs[:, base + 3 * p + 2] = s["left"][rows, seats]
        obs[:, base + 3 * p + 3] = s["decoy_left"][rows, seats]
        return obs

    def _load(self, s: State, k: int, state: ClosestNumberState) -> None:  # type: ignore[override]
        g = self.game
        s["first"][k] = state.first
        s["round"][k] = state.round
        s["scores"][k] = state.scores
        s["active"][k] = False
        s["active"][k, list(state.active)] = True
        self._clear_board(s, k)
        for i, (seat, number, decoy) in enumerate(state.placements, start=1):
            s["owner"][k, number - 1] = seat
            s["decoy"][k, number - 1] = decoy
            s["order"][k, number - 1] = i
        s["count"][k] = len(state.placements)
        rules = state.rules
        s["size"][k] = rules.numbers
        s["free"][k] = (s["owner"][k] < 0) & (self.positions < rules.numbers)
        s["end_at"][k] = min(rules.cards * len(state.active), rules.numbers)
        for seat in range(g.num_players):
            s["left"][k, seat], s["decoy_left"][k, seat] = state.hand(seat)
        s["starter"][k] = state.round_starter
        ended = state.outcome is not None
        s["ended"][k] = ended
        s["outcome"][k] = state.outcome if ended else 0.0
        s["mover"][k] = state.active[0] if ended else state.current_player
        if ended and state.winner is not None:
            s["mover"][k] = state.winner
        s["drawn"][k] = False

    def chance_outcome(self, k: int):
        """The starting player drawn by the reset of game ``k`` (None after a step, or
        when the game fixes the starting player)."""
        return int(self.state["first"][k]) if self.state["drawn"][k] else None
