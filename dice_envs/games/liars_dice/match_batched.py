"""Liar's Dice, the whole game, batched: the rules of :mod:`dice_envs.games.liars_dice.match` over arrays of games.

Every game's dice per player, this round's roll and bids, and who is to act live in arrays;
a call that ends a round takes a die from its loser and rolls the next round in the same
step (the rules core's chance node), or ends the game.  ``tests/envs/test_batched_rules.py``
checks this copy of the rules against :class:`dice_envs.games.liars_dice.match.LiarsDiceMatchState`
step by step.  See :mod:`dice_envs.envs.batched` for the API.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.envs.batched import BatchedGame, State
from dice_envs.games.liars_dice.batched import bids_hold, roll_counts
from dice_envs.games.liars_dice.match import LiarsDiceMatchGame, LiarsDiceMatchState

__all__ = ["LiarsDiceMatchBatch"]


class LiarsDiceMatchBatch(BatchedGame):
    """``num_envs`` whole games of Liar's Dice.

    Args:
        num_envs: the number of games.
        game: a :class:`~dice_envs.games.liars_dice.match.LiarsDiceMatchGame`, or its arguments as
            keywords (``dice_per_player=2, wild="aces"``...).
    """

    game: LiarsDiceMatchGame

    def __init__(self, num_envs: int, game: Optional[LiarsDiceMatchGame] = None, **kwargs):
        game = game if game is not None else LiarsDiceMatchGame(**kwargs)
        self.bid_quantity = np.arange(game.num_bids) // game.faces + 1
        self.payoffs = np.array([game.payoff(w) for w in range(game.num_players)], np.float32)
        super().__init__(game, num_envs)

    def _new_state(self, n: int) -> State:
        g = self.game
        return {
            "dice": np.zeros((n, g.num_players), np.int64),  # dice each player holds
            "counts": np.zeros((n, g.num_players, g.faces), np.int64),  # this round's roll, per face
            "bids": np.zeros((n, g.num_bids), bool),  # this round's bids
            "last_bid": np.full(n, -1, np.int64),
            "bidder": np.zeros(n, np.int64),  # who made the last bid
            "mover": np.zeros(n, np.int64),
            "dealt": np.zeros(n, bool),  # a round was rolled by the last reset or step
            "done": np.zeros(n, bool),
        }

    def _roll(self, s: State, rows: np.ndarray, rng) -> None:
        """Roll every held die of the games ``rows`` (each uniform on 1..faces)."""
        g = self.game
        s["counts"][rows] = roll_counts(rng, s["dice"][rows], g.faces, max(g.dice))
        s["bids"][rows] = False
        s["last_bid"][rows] = -1
        s["dealt"][rows] = True

    def _next_in(self, dice: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """The first player at or after ``seat`` (in turn order) who holds dice."""
        n = self.game.num_players
        order = (seat[:, None] + np.arange(n)) % n
        holds = np.take_along_axis(dice, order, axis=1) > 0
        return order[np.arange(len(seat)), np.argmax(holds, axis=1)]

    def _reset(self, s: State, rng) -> None:
        g = self.game
        m = len(s["done"])
        s["dice"][:] = g.dice
        s["mover"][:] = g.starting_player
        s["bidder"][:] = 0
        self._roll(s, np.arange(m), rng)

    def _mover(self, s: State) -> np.ndarray:
        return s["mover"]

    def _legal(self, s: State) -> np.ndarray:
        g = self.game
        legal = np.empty((len(s["done"]), g.num_actions), bool)
        in_play = s["dice"].sum(axis=1)
        legal[:, : g.num_bids] = (np.arange(g.num_bids) > s["last_bid"][:, None]) & (
            self.bid_quantity <= in_play[:, None])
        legal[:, g.call_action] = s["last_bid"] >= 0
        return legal

    def _step(self, s: State, actions: np.ndarray, rng) -> np.ndarray:
        g = self.game
        m = len(actions)
        s["dealt"][:] = False
        rewards = np.zeros((m, g.num_players), np.float32)
        call = actions == g.call_action
        bid = np.flatnonzero(~call)
        s["bids"][bid, actions[bid]] = True
        s["last_bid"][bid] = actions[bid]
        s["bidder"][bid] = s["mover"][bid]
        s["mover"][bid] = self._next_in(s["dice"][bid], s["mover"][bid] + 1)
        c = np.flatnonzero(call)
        if len(c):
            true = bids_hold(s["counts"][c].sum(axis=1), s["last_bid"][c], g.faces, g.first_round.wild_face)
            caller, bidder = s["mover"][c], s["bidder"][c]
            winner, loser = np.where(true, bidder, caller), np.where(true, caller, bidder)
            dice = s["dice"][c]
            dice[np.arange(len(c)), loser] -= 1
            s["dice"][c] = dice
            over = (dice > 0).sum(axis=1) == 1
            ended = c[over]
            if len(ended):
                rewards[ended] = self.payoffs[np.argmax(dice[over] > 0, axis=1)]
                s["done"][ended] = True
                s["counts"][ended] = 0
                s["bids"][ended] = False
                s["last_bid"][ended] = -1
            go_on = ~over
            if go_on.any():
                rows = c[go_on]
                starter = winner[go_on] if g.next_starter == "winner" else loser[go_on]
                s["mover"][rows] = self._next_in(dice[go_on], starter)
                self._roll(s, rows, rng)
        return rewards

    def _observe(self, s: State, seats: np.ndarray) -> np.ndarray:
        g = self.game
        m = len(seats)
        rows = np.arange(m)
        obs = np.zeros((m,) + self.observation_shape, np.float32)
        obs[rows, seats] = 1.0
        obs[:, g.num_players : g.num_players + g.faces] = s["counts"][rows, seats]
        base = g.num_players + g.faces
        obs[:, base : base + g.num_bids] = s["bids"]
        obs[:, g.prefix_size :] = s["dice"]
        return obs

    def _load(self, s: State, k: int, state: LiarsDiceMatchState) -> None:  # type: ignore[override]
        s["dice"][k] = state.dice
        s["counts"][k] = 0
        s["bids"][k] = False
        s["last_bid"][k] = -1
        s["dealt"][k] = False
        if state.round is None:
            s["done"][k] = True
            return
        for seat, roll in zip(state.players, state.round.rolls):
            for f in roll:
                s["counts"][k, seat, f - 1] += 1
        bids = state.round.bids
        s["bids"][k, list(bids)] = True
        s["last_bid"][k] = bids[-1] if bids else -1
        bidder = state.round.bidder  # None before the first bid
        s["bidder"][k] = state.players[bidder] if bidder is not None else 0
        s["mover"][k] = state.current_player

    def chance_outcome(self, k: int):
        """The roll of the round that game ``k``'s last reset or step started (one sorted tuple
        of faces per player still in), or None."""
        if not self.state["dealt"][k]:
            return None
        return tuple(tuple(f + 1 for f, c in enumerate(row) for _ in range(int(c)))
                     for p, row in enumerate(self.state["counts"][k]) if self.state["dice"][k, p] > 0)
