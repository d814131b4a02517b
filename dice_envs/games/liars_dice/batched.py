"""Liar's Dice, batched: the rules of :mod:`dice_envs.games.liars_dice.rules` over arrays of games.

Any number of players, dice per player, faces, wild rule and starting player.  The dice are rolled when a
game starts (the rules core's opening chance node); each die is uniform on
1..faces.  ``tests/test_batched_liars_dice.py`` checks this copy of the rules
against :class:`dice_envs.games.liars_dice.rules.LiarsDiceState` step by step.  See
:mod:`dice_envs.envs.batched` for the API.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from dice_envs.envs.batched import BatchedGame, State
from dice_envs.games.liars_dice.rules import LiarsDiceGame, LiarsDiceState


def roll_counts(rng, dice: np.ndarray, faces: int, most: int) -> np.ndarray:
    """Every held die rolled uniformly: ``dice`` is ``(m, players)`` dice held per game and player
    (at most ``most``), the result ``(m, players, faces)`` the count of each face."""
    m, players = dice.shape
    rolled = rng.integers(0, faces, size=(m, players, most))
    # Dice beyond a player's count go to one spare bin, past every (game, player, face) bin.
    spare = m * players * faces
    held = np.arange(most) < dice[:, :, None]
    flat = np.where(held, np.arange(m * players).reshape(m, players, 1) * faces + rolled, spare)
    return np.bincount(flat.ravel(), minlength=spare + 1)[:spare].reshape(m, players, faces)


def bids_hold(total: np.ndarray, bids: np.ndarray, faces: int, wild_face) -> np.ndarray:
    """Whether each bid (action numbers ``bids``) holds for the face counts of all the dice in
    play ``total`` (``(k, faces)``), the wild face (1-based, or None) counting for every other face."""
    face = bids % faces
    matches = total[np.arange(len(bids)), face]
    if wild_face is not None:
        wild = wild_face - 1
        matches = matches + np.where(face != wild, total[:, wild], 0)
    return matches >= bids // faces + 1


class LiarsDiceBatch(BatchedGame):
    """``num_envs`` rounds of Liar's Dice.

    Args:
        num_envs: the number of games.
        num_players, dice_per_player, faces, wild, max_quantity, starting_player: as
            :class:`dice_envs.games.liars_dice.rules.LiarsDiceGame` (or pass ``game=``).
    """

    game: LiarsDiceGame

    def __init__(self, num_envs: int, num_players: int = 2, dice_per_player=1, faces: int = 6,
                 wild=False, max_quantity: Optional[int] = None, game: Optional[LiarsDiceGame] = None,
                 starting_player: int = 0):
        game = game if game is not None else LiarsDiceGame(num_players, dice_per_player, faces, wild,
                                                             max_quantity, starting_player)
        super().__init__(game, num_envs)

    def _new_state(self, n: int) -> State:
        g = self.game
        return {
            "counts": np.zeros((n, g.num_players, g.faces), np.int64),  # dice per face, per player
            "bids": np.zeros((n, g.num_bids), bool),  # the bids made (the public history)
            "last_bid": np.full(n, -1, np.int64),
            "num_bids": np.zeros(n, np.int64),
            "called": np.zeros(n, bool),
            "dealt": np.zeros(n, bool),  # the dice were rolled by the last reset, with no step since
            "done": np.zeros(n, bool),
        }

    def _reset(self, s: State, rng) -> None:
        g = self.game
        m = len(s["done"])
        s["dealt"][:] = True
        s["counts"][:] = roll_counts(rng, np.broadcast_to(np.array(g.dice), (m, g.num_players)), g.faces,
                                   max(g.dice))
        s["bids"][:] = False
        s["last_bid"][:] = -1
        s["num_bids"][:] = 0
        s["called"][:] = False

    def seat(self, turn: np.ndarray) -> np.ndarray:
        """The player who makes decision number ``turn`` (as :meth:`LiarsDiceState.seat`)."""
        return (self.game.starting_player + turn) % self.game.num_players

    def _mover(self, s: State) -> np.ndarray:
        return self.seat(s["num_bids"])

    def _legal(self, s: State) -> np.ndarray:
        g = self.game
        legal = np.empty((len(s["done"]), g.num_actions), bool)
        legal[:, : g.num_bids] = np.arange(g.num_bids) > s["last_bid"][:, None]
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
        s["num_bids"][bid] += 1
        c = np.flatnonzero(call)
        if len(c):
            true = bids_hold(s["counts"][c].sum(axis=1), s["last_bid"][c], g.faces, g.wild_face)
            caller = self.seat(s["num_bids"][c])
            bidder = self.seat(s["num_bids"][c] - 1)
            winner = np.where(true, bidder, caller)
            loser = np.where(true, caller, bidder)
            rewards[c, winner] = 1.0
            rewards[c, loser] = -1.0
            s["called"][c] = True
            s["done"][c] = True
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
        obs[:, base + g.num_bids] = s["called"]
        obs[:, g.prefix_size :] = g.dice
        return obs

    def _load(self, s: State, k: int, state: LiarsDiceState) -> None:  # type: ignore[override]
        s["counts"][k] = 0
        for p, roll in enumerate(state.rolls):
            for f in roll:
                s["counts"][k, p, f - 1] += 1
        s["bids"][k] = False
        s["bids"][k, list(state.bids)] = True
        s["last_bid"][k] = state.bids[-1] if state.bids else -1
        s["num_bids"][k] = len(state.bids)
        s["called"][k] = state.called
        s["dealt"][k] = False

    def chance_outcome(self, k: int):
        """The opening roll of game ``k`` (one sorted tuple of faces per player) if it was
        dealt by the last reset, else None."""
        if not self.state["dealt"][k]:
            return None
        return tuple(tuple(f + 1 for f, c in enumerate(row) for _ in range(int(c)))
                     for row in self.state["counts"][k])
