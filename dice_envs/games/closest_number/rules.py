"""Closest Number rules core: number cards, a hidden decoy and tiebreak rounds.

This module holds the rules once; the PettingZoo environment
(:mod:`dice_envs.closest_number_v0`), the round-1 solver
(:mod:`dice_envs.agents.closest_number.round1`) and the full-game equilibrium solver
(:mod:`dice_envs.agents.closest_number.solver`) all use it.

Rules (a number-card game by Jorge Zhang; we call it
Closest Number):

* The number cards ``1..numbers`` lie face up in a row.  Players take turns
  clockwise (seat ``i`` is followed by seat ``i + 1``) from the round's starting
  player, each turn putting one of their own cards on a free number.  The
  starting player rotates clockwise every round (round ``r`` is started by
  seat ``first + r - 1``, ``first`` being round 1's starter, chosen at random on
  reset unless given).
* **Round 1**: one card each.  **Round 2**: two cards each (turns go round the
  table twice); exactly one of each player's two cards is a *decoy*, chosen when
  the card is placed and placed face down, so opponents see where the card lies
  but not whether it is the decoy.  A decoy occupies its number but does not
  score.  The first card may be the decoy or not; the second card is then the
  other kind (a second decoy, or a second scoring card, is illegal).
* **Scoring** (at the end of every round): a player gets one point for each
  number on the board (including the numbers under cards) to which one of their
  scoring cards is strictly closer than every other player's scoring cards;
  numbers at equal distance from two players' cards score nothing.  At the end
  of a round every card is turned face up, so decoys are public from then on.
* After round 2 the player with the most points (rounds 1 and 2 added) wins.
  Tied leaders play tiebreak rounds **among themselves** (players who are not
  tied for the lead have lost; the source document does not say who plays on, and this is
  the Zombie Dice convention); the scores keep adding up, and the first round
  after which one of them leads alone decides the game.
* **Round 3** (the source document: "the same as round 1, except now the decoy card also
  counts during scoring") can be read two ways, chosen with ``round3``:

  - ``"two_cards"`` (default): the exception only makes sense if there is a
    decoy card to count, so round 3 is played with two cards each, as round 2,
    but both cards score (no decoy);
  - ``"one_card"``: round 3 is literally round 1 again, one scoring card each
    (the exception is void, round 1 having no decoy).

* **Rounds 4, 5, ...** follow round 2's rules (two cards, one decoy) on a board
  with the highest number removed each time: round ``r >= 4`` uses numbers
  ``1..numbers - (r - 3)``.  A round ends at once when the player to move has no
  free number (so a small board can leave a player with one card, or none).
  A round would need at least one number: if the leaders are still tied after
  the one-number round (round ``numbers + 2``) the game is a **draw**.
* **Payoff**: +1 to the winner and -1 to everyone else; in a draw the tied
  leaders get 0 (and the others -1).

``num_players`` may be 2 up to ``numbers // 2``, so that round 2's cards fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, Iterable, Optional, Sequence, Tuple

import numpy as np

from dice_envs.core.game import CHANCE, TERMINAL, Game, GameState, IllegalActionError
from dice_envs.core.validation import as_action
from dice_envs.core.validation import check_int as _check_int

__all__ = [
    "ClosestNumberGame",
    "ClosestNumberState",
    "RoundRules",
    "ROUND3_READINGS",
    "MAX_NUMBERS",
    "score_board",
]

ROUND3_READINGS = ("two_cards", "one_card")
MAX_NUMBERS = 40


def score_board(cards: Iterable[Tuple[int, int]], num_players: int, numbers: int) -> Tuple[int, ...]:
    """Points of every seat for scoring ``cards`` ``[(seat, number), ...]`` on the
    board ``1..numbers``: one point per number to which the seat's nearest card is
    strictly nearer than every other seat's nearest card."""
    cards = list(cards)
    points = [0] * num_players
    if not cards:
        return tuple(points)
    for k in range(1, numbers + 1):
        best: Dict[int, int] = {}
        for seat, n in cards:
            dist = abs(n - k)
            if dist < best.get(seat, numbers + 1):
                best[seat] = dist
        ranked = sorted(best.items(), key=lambda item: item[1])
        if len(ranked) == 1 or ranked[0][1] < ranked[1][1]:
            points[ranked[0][0]] += 1
    return tuple(points)


@dataclass(frozen=True)
class RoundRules:
    """What a round is played with: the board ``1..numbers``, cards per player,
    and whether one of the (two) cards is a decoy."""

    numbers: int
    cards: int
    decoy: bool


class ClosestNumberGame(Game):
    """Configuration of a game of Closest Number.

    Args:
        num_players: 2 to ``numbers // 2``.
        numbers: the number cards ``1..numbers``, 4 to 40 (10 in the source document).
        starting_player: the seat that starts round 1, or ``None`` to draw it
            uniformly at random (a chance node at the start of the game).
        round3: ``"two_cards"`` or ``"one_card"``, the two readings of the source document's
            round-3 rule (see the module docstring).

    Raises:
        ValueError: naming the argument and its allowed range.
    """

    name = "closest_number"

    def __init__(self, num_players: int = 2, numbers: int = 10, starting_player: Optional[int] = None,
                 round3: str = "two_cards"):
        self.numbers = _check_int("numbers", numbers, 4, MAX_NUMBERS)
        self.num_players = _check_int("num_players", num_players, 2, self.numbers // 2)
        if starting_player is not None:
            starting_player = _check_int("starting_player", starting_player, 0, self.num_players - 1)
        self.starting_player = starting_player
        if round3 not in ROUND3_READINGS:
            raise ValueError(f"round3 must be one of {ROUND3_READINGS}, got {round3!r}")
        self.round3 = round3
        n = self.numbers
        self.num_actions = 2 * n
        self.action_names = tuple([f"card on {k}" for k in range(1, n + 1)]
                                  + [f"decoy on {k}" for k in range(1, n + 1)])
        #: The last round that can be played (one number on the board); a tie after it is a draw.
        self.last_round = n + 2
        p = self.num_players
        self._channels = p + 3  # own card, own decoy, one per opponent, in play, order
        self._obs_size = n * self._channels + 3 * p + 4
        self._rules = tuple(self._make_round_rules(r) for r in range(1, self.last_round + 1))

    # -- static facts -------------------------------------------------------------

    def round_rules(self, round_: int) -> RoundRules:
        """The rules of round ``round_`` (1-based; up to :attr:`last_round`)."""
        return self._rules[_check_int("round", round_, 1, self.last_round) - 1]

    def _make_round_rules(self, round_: int) -> RoundRules:
        if round_ == 1:
            return RoundRules(self.numbers, 1, False)
        if round_ == 2:
            return RoundRules(self.numbers, 2, True)
        if round_ == 3:
            return RoundRules(self.numbers, 2 if self.round3 == "two_cards" else 1, False)
        return RoundRules(self.numbers - (round_ - 3), 2, True)

    def action(self, number: int, decoy: bool = False) -> int:
        """The action id that places a card (or the decoy) on ``number``."""
        _check_int("number", number, 1, self.numbers)
        return number - 1 + (self.numbers if decoy else 0)

    def decode(self, action: int) -> Tuple[int, bool]:
        """``(number, is_decoy)`` of action ``action``."""
        _check_int("action", action, 0, self.num_actions - 1)
        return action % self.numbers + 1, action >= self.numbers

    @property
    def observation_shape(self):
        return (self._obs_size,)

    def observation_bounds(self):
        n, p = self.numbers, self.num_players
        low = np.zeros(self.observation_shape, np.float32)
        high = np.ones(self.observation_shape, np.float32)
        board = high[: n * self._channels].reshape(n, self._channels)
        board[:, -1] = 2 * p  # placement order
        rest = n * self._channels
        high[rest : rest + p] = n * self.last_round  # scores
        high[rest + 3 * p] = self.last_round  # round
        high[rest + 3 * p + 2] = 2  # cards left in hand
        return low, high

    def new_initial_state(self) -> "ClosestNumberState":
        return ClosestNumberState(self, self.starting_player, 1, (0,) * self.num_players,
                                  tuple(range(self.num_players)), (), (), None)

    def state_at_round(self, round_: int, scores: Sequence[int], first: int,
                       active: Optional[Sequence[int]] = None) -> "ClosestNumberState":
        """The position at the start of round ``round_`` with cumulative ``scores``,
        round 1 having been started by seat ``first``, and ``active`` seats still
        in contention (default: all).  Earlier rounds' placements are not recorded
        (solvers treat every round start as a fresh public position)."""
        _check_int("round", round_, 1, self.last_round)
        _check_int("first", first, 0, self.num_players - 1)
        scores = tuple(_check_int("score", s, 0, None) for s in scores)
        if len(scores) != self.num_players:
            raise ValueError(f"scores must have {self.num_players} entries, got {len(scores)}")
        active = tuple(sorted(active)) if active is not None else tuple(range(self.num_players))
        return ClosestNumberState(self, first, round_, scores, active, (), (), None)

    def config(self) -> dict:
        """The arguments that rebuild this game (used in caches and reports)."""
        return dict(num_players=self.num_players, numbers=self.numbers, starting_player=self.starting_player,
                    round3=self.round3)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        return f"ClosestNumberGame({args})"


class ClosestNumberState(GameState):
    """An immutable Closest Number position.

    Attributes:
        first: the seat that started round 1 (``None`` before the chance node).
        round: the round being played (1-based).
        scores: every seat's points so far (earlier rounds only).
        active: the seats still in contention (all but in tiebreak rounds).
        placements: this round's cards in order, ``(seat, number, is_decoy)``.
        history: the placements of the finished rounds (face up).
        outcome: the returns once the game is over, else ``None``.
    """

    __slots__ = ("game", "first", "round", "scores", "active", "placements", "history", "outcome",
                 "_order", "_legal")
    game: ClosestNumberGame

    def __init__(self, game, first, round_, scores, active, placements, history, outcome) -> None:
        self.game = game
        self.first = first
        self.round = round_
        self.scores = scores
        self.active = active
        self.placements = placements
        self.history = history
        self.outcome = outcome
        # Derived once, on first use (the state is immutable).
        self._order: Optional[Tuple[int, ...]] = None
        self._legal: Optional[Tuple[int, ...]] = None

    # -- queries ----------------------------------------------------------------------

    @property
    def rules(self) -> RoundRules:
        return self.game._rules[self.round - 1]

    @property
    def round_starter(self) -> int:
        """The seat that starts this round: round 1's starter moved ``round - 1``
        seats clockwise, skipping seats that are out of contention."""
        p = self.game.num_players
        seat = (self.first + self.round - 1) % p
        while seat not in self.active:
            seat = (seat + 1) % p
        return seat

    def turn_order(self) -> Tuple[int, ...]:
        """The active seats in this round's playing order."""
        if self._order is None:
            start = self.round_starter
            p = self.game.num_players
            self._order = tuple(s for s in ((start + i) % p for i in range(p)) if s in self.active)
        return self._order

    @property
    def current_player(self) -> int:
        if self.outcome is not None:
            return TERMINAL
        if self.first is None:
            return CHANCE
        order = self.turn_order()
        return order[len(self.placements) % len(order)]

    def occupied(self) -> set:
        return {n for _, n, _ in self.placements}

    def hand(self, seat: int) -> Tuple[int, bool]:
        """``(cards left to place this round, decoy still to place)`` for ``seat``."""
        rules = self.rules
        if seat not in self.active or self.outcome is not None:
            return 0, False
        mine = [d for s, _, d in self.placements if s == seat]
        return rules.cards - len(mine), rules.decoy and not any(mine)

    def legal_actions(self):
        if self._legal is None:
            self._legal = self._legal_actions()
        return self._legal

    def _legal_actions(self) -> Tuple[int, ...]:
        p = self.current_player
        if p < 0:
            return ()
        game, rules = self.game, self.rules
        occupied = self.occupied()
        free = [k for k in range(1, rules.numbers + 1) if k not in occupied]
        left, decoy_left = self.hand(p)
        real_ok = not rules.decoy or left > 1 or not decoy_left
        decoy_ok = rules.decoy and decoy_left
        actions = [k - 1 for k in free] if real_ok else []
        if decoy_ok:
            actions += [game.numbers + k - 1 for k in free]
        return tuple(actions)

    def chance_outcomes(self):
        assert self.first is None, "not a chance node"
        p = self.game.num_players
        return [(seat, Fraction(1, p)) for seat in range(p)]

    def sample_chance(self, rng):
        return int(rng.integers(self.game.num_players))

    def describe_outcome(self, outcome, player: Optional[int] = None) -> str:
        return f"player_{outcome} starts round 1"

    def describe_action(self, action: int, player: Optional[int] = None) -> str:
        """In a decoy round the other players see a card placed, not whether it is the decoy."""
        mover = self.current_player
        if player is None or player == mover or not self.rules.decoy:
            return super().describe_action(action, player)
        return f"player_{mover}: a card (or the decoy) on {self.game.decode(action)[0]}"

    def returns(self):
        return self.outcome if self.outcome is not None else (0.0,) * self.game.num_players

    @property
    def winner(self) -> Optional[int]:
        """The winning seat once the game is over (``None`` while playing or in a draw)."""
        if self.outcome is None:
            return None
        best = max(self.outcome)
        return self.outcome.index(best) if best > 0 else None

    def check_action(self, action) -> int:
        """Like :meth:`GameState.check_action`, saying why a placement is illegal
        (number taken or off the board, a second decoy, a decoy outside a decoy round,
        a second scoring card where the decoy is due)."""
        if self.is_terminal() or self.is_chance_node():
            return super().check_action(action)
        a = as_action(action)
        if a is None:
            return super().check_action(action)  # says why it is not an action
        legal = self.legal_actions()
        if a in legal:
            return a
        if not 0 <= a < self.game.num_actions:
            return super().check_action(a)
        number, decoy = self.game.decode(a)
        p, rules = self.current_player, self.rules
        left, decoy_left = self.hand(p)
        if number > rules.numbers:
            why = f"number {number} is not on the board in round {self.round} (numbers 1..{rules.numbers})"
        elif number in self.occupied():
            why = f"number {number} is already taken"
        elif decoy and not rules.decoy:
            why = f"round {self.round} has no decoys"
        elif decoy:
            why = f"player {p} has already placed a decoy this round (only one card per round is a decoy)"
        else:
            why = f"player {p}'s last card this round must be the decoy"
        names = ", ".join(f"{i}={self.game.action_name(i)}" for i in legal)
        raise IllegalActionError(f"action {a} ({self.game.action_name(a)}) is illegal: {why}; "
                                 f"legal actions: {names}")

    # -- transitions ------------------------------------------------------------------

    def apply(self, action) -> "ClosestNumberState":
        g = self.game
        if self.first is None and self.outcome is None:
            seat = _check_int("starting player", action, 0, g.num_players - 1)
            return ClosestNumberState(g, seat, 1, self.scores, self.active, (), (), None)
        a = self.check_action(action)
        number, decoy = g.decode(a)
        placements = self.placements + ((self.current_player, number, decoy),)
        rules = self.rules
        if len(placements) < rules.cards * len(self.active) and len(placements) < rules.numbers:
            return ClosestNumberState(g, self.first, self.round, self.scores, self.active, placements,
                                      self.history, None)
        return self._end_round(placements)

    def _end_round(self, placements) -> "ClosestNumberState":
        g = self.game
        points = score_board(((s, n) for s, n, d in placements if not d), g.num_players, self.rules.numbers)
        scores = tuple(s + q for s, q in zip(self.scores, points))
        history = self.history + (placements,)
        if self.round == 1:
            return ClosestNumberState(g, self.first, 2, scores, self.active, (), history, None)
        top = max(scores[s] for s in self.active)
        leaders = tuple(s for s in self.active if scores[s] == top)
        if len(leaders) == 1 or self.round == g.last_round:
            outcome = tuple(
                (1.0 if len(leaders) == 1 else 0.0) if s in leaders else -1.0 for s in range(g.num_players)
            )
            return ClosestNumberState(g, self.first, self.round, scores, leaders, (), history, outcome)
        return ClosestNumberState(g, self.first, self.round + 1, scores, leaders, (), history, None)

    # -- views ------------------------------------------------------------------------

    def visible_placements(self, player: Optional[int]) -> Tuple[Tuple[int, int, Optional[bool]], ...]:
        """This round's placements as ``player`` sees them: other players' decoy
        flags are ``None`` (unknown) in a decoy round; ``player=None`` sees all."""
        if player is None or not self.rules.decoy:
            return self.placements
        return tuple((s, n, d if s == player else None) for s, n, d in self.placements)

    def information_state(self, player: int):
        """What ``player`` knows, as a hashable key with perfect recall: round 1's
        starter, every finished round face up, and this round as ``player`` sees it."""
        return (player, self.first, self.history, self.visible_placements(player))

    def observation(self, player: int) -> np.ndarray:
        """``player``'s view, with the other seats in clockwise order after ``player``:

        * per number ``1..numbers``: own scoring card, own decoy, one flag per
          opponent (a card of theirs lies there, decoy or not), the number is on
          this round's board, and the order in which its card was placed (1, 2, ...;
          0 if free);
        * scores so far (``num_players``), the round's starter one-hot
          (``num_players``), seats in contention (``num_players``);
        * the round number, 1 in a decoy round, cards left in hand, decoy left in hand.
        """
        g = self.game
        n, p, ch = g.numbers, g.num_players, g._channels
        obs = np.zeros(g.observation_shape, np.float32)
        if self.first is None:
            return obs
        rel = [(s - player) % p for s in range(p)]
        board = obs[: n * ch].reshape(n, ch)
        rules = self.rules
        if self.outcome is None:
            board[: rules.numbers, p + 1] = 1.0
        for order, (s, k, d) in enumerate(self.placements, start=1):
            if s == player:
                board[k - 1, 1 if d else 0] = 1.0
            else:
                board[k - 1, 1 + rel[s]] = 1.0
            board[k - 1, p + 2] = order
        base = n * ch
        for s in range(p):
            obs[base + rel[s]] = self.scores[s]
            if s in self.active:
                obs[base + 2 * p + rel[s]] = 1.0
        if self.outcome is None:
            obs[base + p + rel[self.round_starter]] = 1.0
        obs[base + 3 * p] = self.round
        obs[base + 3 * p + 1] = float(rules.decoy)
        left, decoy_left = self.hand(player)
        obs[base + 3 * p + 2] = left
        obs[base + 3 * p + 3] = float(decoy_left)
        return obs

    def describe(self, player: Optional[int] = None) -> str:
        """The position as text, as ``player`` sees it (``None``: everything)."""
        if self.first is None:
            return "starting player not drawn yet"
        rules = self.rules
        cells = {}
        for s, k, d in self.visible_placements(player):
            cells[k] = f"P{s}" + ("?" if d is None else "d" if d else "")
        numbers = range(1, rules.numbers + 1)
        row1 = " ".join(f"{k:>4}" for k in numbers)
        row2 = " ".join(f"{cells.get(k, '.'):>4}" for k in numbers)
        scores = ", ".join(f"player_{s} {v}" for s, v in enumerate(self.scores))
        lines = []
        if self.outcome is None:
            kind = "two cards, one a decoy" if rules.decoy else "one card" if rules.cards == 1 else "two cards"
            lines.append(f"round {self.round} ({kind}; numbers 1..{rules.numbers}); scores: {scores}")
            lines += [row1, row2]
        else:
            last = {k: f"P{s}" + ("d" if d else "") for s, k, d in self.history[-1]} if self.history else {}
            lines.append(f"game over after round {self.round} (its cards face up); scores: {scores}")
            lines += [row1, " ".join(f"{last.get(k, '.'):>4}" for k in numbers)]
            w = self.winner
            lines.append(f"player_{w} wins" if w is not None else "draw")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe(None)

    def __repr__(self) -> str:
        return (f"ClosestNumberState(first={self.first}, round={self.round}, scores={self.scores}, "
                f"active={self.active}, placements={self.placements}, outcome={self.outcome})")
