"""Liar's Dice, the whole game: rounds of :mod:`dice_envs.games.liars_dice.rules` until one player has dice left.

This is the game as people play it (Dudo, Perudo, the "game of losing dice").  Each round is
a round of :class:`~dice_envs.games.liars_dice.rules.LiarsDiceGame` among the players who still have
dice, every one of them rolling all the dice they hold:

* the loser of the call loses one die;
* the loser starts the next round (``next_starter="loser"``, the usual rule), or the
  winner does (``next_starter="winner"``); a player left without dice is out, and the round
  is then started by the next player in turn order after the loser who still has dice;
* the game ends when one player has dice left.

The wild rule, the faces and the numbering of the bids are the round game's.  Quantities
run up to the number of dice in play in the current round, so every round is exactly the
round game with those dice (:meth:`LiarsDiceMatchState.round_game`), and the action space
is the first round's: bid ``(q, f)`` is ``(q - 1) * faces + (f - 1)``, the call is
``max_dice * faces`` where ``max_dice`` is the number of dice at the start.

Rewards: +1 to the last player with dice and -1 to the other with two players; with more,
+1 to the winner and ``-1 / (num_players - 1)`` to each other player, so the payoffs sum to
0 (the game stays zero-sum and every loser is paid the same, whenever they went out).

The observation (the same layout for every round) is the round game's with the bids of the
first round's size: seat one-hot (n), own dice as counts per face (F), one flag per bid made
this round (``max_dice * F``), the call flag (1, always 0 when a player is to act) and every
player's number of dice (n).  Earlier rounds are not part of it: the dice are rolled anew
each round, so they carry no information about the rest of the game.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional, Tuple

import numpy as np

from dice_envs.core.game import CHANCE, TERMINAL, Game, GameState
from dice_envs.core.validation import check_choice
from dice_envs.core.validation import check_int as _check_int
from dice_envs.games.liars_dice.rules import (BidObservations, LiarsDiceGame, LiarsDiceState, check_dice, check_wild,
                                              describe_roll)

__all__ = ["LiarsDiceMatchGame", "LiarsDiceMatchState", "NEXT_STARTERS"]

#: Who starts the next round.
NEXT_STARTERS = ("loser", "winner")


class LiarsDiceMatchGame(BidObservations, Game):
    """Configuration of a whole game of Liar's Dice.

    Args:
        num_players: 2 to 6.
        dice_per_player: dice each player starts with, 1 to 5 (one int, or one count per player).
        faces: sides of each die, 2 to 6.
        wild: ``"none"``, ``"highest"`` or ``"aces"`` (``True``/``False`` as in the round game).
        starting_player: who starts the first round.
        next_starter: ``"loser"`` (the loser of a round starts the next) or ``"winner"``.

    Raises:
        ValueError: naming the argument and its allowed range.
    """

    name = "liars_dice_match"

    def __init__(self, num_players: int = 2, dice_per_player=1, faces: int = 6, wild=False,
                 starting_player: int = 0, next_starter: str = "loser"):
        self.num_players = _check_int("num_players", num_players, 2, 6)
        self.dice = check_dice(dice_per_player, self.num_players)
        self.faces = _check_int("faces", faces, 2, 6)
        self.wild_rule = check_wild(wild)
        self.starting_player = _check_int("starting_player", starting_player, 0, self.num_players - 1)
        self.next_starter = check_choice("next_starter", next_starter, NEXT_STARTERS)
        self.max_dice = sum(self.dice)
        self.num_bids = self.max_dice * self.faces
        self.call_action = self.num_bids
        self.num_actions = self.num_bids + 1
        self.first_round = self.round_game(self.dice, self.starting_player)
        self.action_names = self.first_round.action_names

    def bid(self, action: int) -> Tuple[int, int]:
        """``(quantity, face)`` of bid number ``action`` (the round game's numbering)."""
        return self.first_round.bid(action)

    def bid_action(self, quantity: int, face: int) -> int:
        """The action number of the bid "at least ``quantity`` dice show ``face``"."""
        return self.first_round.bid_action(quantity, face)

    @lru_cache(maxsize=None)
    def round_game(self, dice: Tuple[int, ...], starter: int) -> LiarsDiceGame:
        """The round game played when the players still in hold ``dice`` (one count per player
        still in, in seat order) and ``starter`` (an index into them) starts."""
        return LiarsDiceGame(len(dice), dice, self.faces, self.wild_rule, None, starter)

    def payoff(self, winner: int) -> Tuple[float, ...]:
        """Every player's payoff when ``winner`` is the last player with dice."""
        other = -1.0 / (self.num_players - 1)
        return tuple(1.0 if p == winner else other for p in range(self.num_players))

    def new_initial_state(self) -> "LiarsDiceMatchState":
        return LiarsDiceMatchState.start_round(self, self.dice, self.starting_player)

    def config(self) -> dict:
        return dict(num_players=self.num_players,
                    dice_per_player=self.dice[0] if len(set(self.dice)) == 1 else list(self.dice),
                    faces=self.faces, wild=self.wild_rule, starting_player=self.starting_player,
                    next_starter=self.next_starter)

    def __repr__(self):
        return "LiarsDiceMatchGame(" + ", ".join(f"{k}={v!r}" for k, v in self.config().items()) + ")"


class LiarsDiceMatchState(GameState):
    """An immutable position of the whole game.

    Attributes:
        dice: every player's number of dice (0 once out).
        players: the players still in, in seat order (the seats of the round).
        round: the current round (a :class:`~dice_envs.games.liars_dice.rules.LiarsDiceState` over
            ``players``); ``None`` once the game is over.
        winner: the last player with dice, once the game is over.
    """

    __slots__ = ("game", "dice", "players", "round", "winner")
    game: LiarsDiceMatchGame

    def __init__(self, game: LiarsDiceMatchGame, dice: Tuple[int, ...], players: Tuple[int, ...],
                 round_state: Optional[LiarsDiceState], winner: Optional[int]):
        self.game, self.dice, self.players, self.round, self.winner = game, dice, players, round_state, winner

    @classmethod
    def start_round(cls, game: LiarsDiceMatchGame, dice: Tuple[int, ...], starter: int) -> "LiarsDiceMatchState":
        """A new round (its dice not rolled yet) with ``dice`` per player, ``starter`` (a seat) first."""
        players = tuple(p for p in range(game.num_players) if dice[p] > 0)
        if len(players) == 1:
            return cls(game, dice, players, None, players[0])
        round_game = game.round_game(tuple(dice[p] for p in players), players.index(starter))
        return cls(game, dice, players, round_game.new_initial_state(), None)

    # -- queries ----------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        if self.round is None:
            return TERMINAL
        seat = self.round.current_player
        return seat if seat == CHANCE else self.players[seat]

    def round_game(self) -> Optional[LiarsDiceGame]:
        """The round game being played (``None`` once the game is over)."""
        return None if self.round is None else self.round.game

    def legal_actions(self):
        if self.round is None or self.round.current_player == CHANCE:
            return ()
        inner = self.round.legal_actions()
        call = self.round.game.call_action
        return tuple(a for a in inner if a != call) + ((self.game.call_action,) if call in inner else ())

    def chance_outcomes(self):
        assert self.is_chance_node(), "not a chance node"
        return self.round.chance_outcomes()

    def sample_chance(self, rng):
        return self.round.sample_chance(rng)

    def describe_outcome(self, outcome, player: Optional[int] = None) -> str:
        """The round's roll, as the seat ``player`` sees it (only their own dice)."""
        return describe_roll(outcome, self.players, player)

    def returns(self):
        if self.winner is None:
            return (0.0,) * self.game.num_players
        return self.game.payoff(self.winner)

    # -- transitions ------------------------------------------------------------------

    def apply(self, action) -> "LiarsDiceMatchState":
        g = self.game
        if self.is_chance_node():
            assert self.round is not None  # a chance node is a round's roll
            return LiarsDiceMatchState(g, self.dice, self.players, self.round.apply(action), None)
        action = self.check_action(action)
        assert self.round is not None  # check_action refuses every action once the game is over
        inner = self.round.apply(self.round.game.call_action if action == g.call_action else action)
        if not inner.is_terminal():
            return LiarsDiceMatchState(g, self.dice, self.players, inner, None)
        round_winner, caller, bidder = inner.winner, inner.caller, inner.bidder
        assert round_winner is not None and caller is not None and bidder is not None  # a bid was called
        winner, loser = self.players[round_winner], self.players[caller if round_winner == bidder else bidder]
        dice = tuple(n - (p == loser) for p, n in enumerate(self.dice))
        if g.next_starter == "winner":
            starter = winner
        else:  # the loser, or the next player after it who still has dice
            starter = next((loser + k) % g.num_players for k in range(g.num_players)
                           if dice[(loser + k) % g.num_players] > 0)
        return LiarsDiceMatchState.start_round(g, dice, starter)

    # -- views ------------------------------------------------------------------------

    def information_state(self, player: int):
        """What ``player`` knows that matters for the rest of the game: every player's dice,
        own roll, and this round's bids (earlier rounds' dice are rolled anew)."""
        if self.round is None:
            return (player, self.dice, None, (), True)
        roll = self.round.rolls[self.players.index(player)] if self.round.rolls and player in self.players else None
        return (player, self.dice, self.players, roll, self.round.bids)

    def observation(self, player: int) -> np.ndarray:
        """``player``'s view (see the module docstring)."""
        g = self.game
        obs = np.zeros(g.observation_shape, np.float32)
        obs[player] = 1.0
        if self.round is not None and self.round.rolls is not None and player in self.players:
            for f in self.round.rolls[self.players.index(player)]:
                obs[g.num_players + f - 1] += 1.0
        if self.round is not None:
            base = g.num_players + g.faces
            for b in self.round.bids:
                obs[base + b] = 1.0
        obs[g.prefix_size :] = self.dice
        return obs

    def __str__(self) -> str:
        dice = ", ".join(f"player_{p} {n}" for p, n in enumerate(self.dice))
        if self.round is None:
            return f"dice left: {dice}; player_{self.winner} wins the game"
        lines = [f"dice left: {dice}"]
        if self.round.rolls is not None:
            history = ", ".join(f"player_{self.players[self.round.seat(i)]}: {self.game.action_name(b)}"
                                for i, b in enumerate(self.round.bids))
            lines.append("bids this round: " + (history or "none yet"))
            lines.append(f"player_{self.current_player} to bid or call")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"LiarsDiceMatchState(dice={self.dice}, round={self.round!r}, winner={self.winner})"
