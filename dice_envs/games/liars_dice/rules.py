"""Liar's Dice rules core: one round of bidding on hidden dice.

This module holds the rules once; the PettingZoo environment
(:mod:`dice_envs.liars_dice_v0`), the equilibrium solvers
(:mod:`dice_envs.agents.liars_dice.solver`, :mod:`dice_envs.agents.solve.sequence_form`), exact evaluation
(:mod:`dice_envs.agents.solve.exploitability`) and the Gambit writer (:mod:`dice_envs.agents.solve.gambit`) all
use it.

Rules (the source document, "A Roll of the Liar's Dice"):

* Each player rolls their dice with ``faces`` sides (1..faces) and sees only
  their own: ``dice_per_player`` dice each, or one count per player such as
  ``(2, 1)`` (the round games of the whole game, where the loser of each round
  loses a die).  How many dice each player holds is public.
* Players take turns, ``starting_player`` (player 0 by default) first.  A *bid* ``(q, f)`` claims "at least ``q``
  of all the dice show face ``f``".  Each bid must be higher than the last: a
  higher quantity with any face, or the same quantity with a higher face.  Bids
  are numbered in that order, ``bid = (q - 1) * faces + (f - 1)`` (OpenSpiel's
  numbering), so a higher bid is simply a higher number.
* Instead of bidding, a player may *call* the last bid (never before the first
  bid).  The dice are revealed: if the bid is true the caller loses, otherwise
  the caller wins.  The winner gets +1, the loser -1 (other players, when there
  are more than two, get 0).  After the highest bid the next player can only
  call.
* ``wild`` names the wild rule: ``"none"`` (``False``), ``"highest"`` (``True``:
  the highest face is wild and counts towards a bid on any face; a die showing
  the wild face counts once, also for a bid on the wild face; this is
  OpenSpiel's ``liars_dice``, whose two-player, one-six-sided-die value for the
  first player is -7/258) or ``"aces"`` (face 1 is wild, as at most tables of
  Dudo and Perudo: it counts for every other face, and a bid on 1s counts only
  1s).  The bid numbering is the same under every rule, so a bid on 1s is the
  lowest bid of its quantity.

Quantities run from 1 to the number of dice in play (``max_quantity=None``).
The source document's F# program instead lets quantities run up to the number of *faces*
(``for amt in 1 .. maxDie``), so with one die each and ``faces > 2`` it also
has bids such as "at least 3 dice show 1" that two dice can never make true.
``max_quantity=faces`` reproduces its tree (125 / 9,208 / 2,097,137 nodes for
2/3/4 faces, see :func:`tree_size`).  Such bids only lose when called, so they
do not change the game's value, but they make the tree far larger.

The dice are rolled at one chance node whose outcome is every player's roll, a
sorted tuple of faces per player (as in the source document's tree, which has one chance
node with ``faces ** 2`` outcomes for one die each).  With more than one die
per player, a roll is the multiset of faces with its multinomial probability
from :func:`dice_envs.core.dice.roll_counts`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional, Tuple

import numpy as np

from dice_envs.core.dice import combine, d, roll_counts
from dice_envs.core.game import CHANCE, TERMINAL, Game, GameState
from dice_envs.core.validation import check_int as _check_int

__all__ = ["BidObservations", "LiarsDiceGame", "LiarsDiceState", "SEED_TREE_SIZES", "WILD_RULES", "check_dice",
           "check_wild", "describe_roll", "information_state_count", "seed_game", "tree_size"]

#: Node counts the source document reports for one die each and quantities up to ``faces``.
SEED_TREE_SIZES = {2: 125, 3: 9_208, 4: 2_097_137}


#: The wild rules, by name; ``wild=True`` is ``"highest"`` and ``wild=False`` is ``"none"``.
WILD_RULES = ("none", "highest", "aces")


def check_wild(wild) -> str:
    """The wild rule ``wild`` names (``"none"``, ``"highest"`` or ``"aces"``; ``True`` and
    ``False`` are ``"highest"`` and ``"none"``), or ``ValueError``."""
    if isinstance(wild, (bool, np.bool_)):
        return "highest" if wild else "none"
    if isinstance(wild, str) and wild in WILD_RULES:
        return wild
    raise ValueError(f"wild must be one of {list(WILD_RULES)} (or True for 'highest', False for 'none'), "
                     f"got {wild!r}")


def check_dice(dice_per_player, num_players: int) -> Tuple[int, ...]:
    """Dice per player as a tuple of ``num_players`` counts, each 1 to 5: from one int (the
    same for everybody) or one count per player; ``ValueError`` naming ``dice_per_player``."""
    if isinstance(dice_per_player, (tuple, list, np.ndarray)):
        counts = tuple(dice_per_player)
        if len(counts) != num_players:
            raise ValueError(f"dice_per_player must give one count per player ({num_players}), got "
                             f"{len(counts)}: {dice_per_player!r}")
        return tuple(_check_int(f"dice_per_player[{p}]", c, 1, 5) for p, c in enumerate(counts))
    return (_check_int("dice_per_player", dice_per_player, 1, 5),) * num_players


class BidObservations:
    """The observation layout of a player of Liar's Dice, shared by the round game and the whole game
    (:class:`~dice_envs.games.liars_dice.match.LiarsDiceMatchGame`): one-hot seat, own dice counted by
    face, the bids made so far and the call, then every player's dice count.  A class using it has
    ``num_players``, ``faces``, ``num_actions`` and ``dice`` (one count per player, the most each can hold)."""

    num_players: int
    faces: int
    num_actions: int
    dice: Tuple[int, ...]

    @property
    def prefix_size(self) -> int:
        """Length of the observation before the dice counts (seat, own dice, bids, call): the
        whole observation of dice_envs 0.1, which the models saved then read."""
        return self.num_players + self.faces + self.num_actions

    @property
    def observation_shape(self):
        return (self.prefix_size + self.num_players,)

    def observation_bounds(self):
        """The observation's bounds, ``(low, high)``: counts are at most the dice a player holds."""
        low = np.zeros(self.observation_shape, np.float32)
        high = np.ones(self.observation_shape, np.float32)
        high[self.num_players : self.num_players + self.faces] = max(self.dice)
        high[self.prefix_size :] = self.dice
        return low, high


class LiarsDiceGame(BidObservations, Game):
    """Configuration of a Liar's Dice round.

    Args:
        num_players: 2 to 6 players (the solvers need exactly 2).
        dice_per_player: dice each player rolls, 1 to 5: one int for everybody, or one
            count per player (``(2, 1)``).
        faces: sides of each die, 2 to 6.
        wild: the wild rule, ``"none"``, ``"highest"`` (OpenSpiel's) or ``"aces"``;
            ``True`` is ``"highest"`` and ``False`` is ``"none"``.
        max_quantity: the highest quantity one may bid (1 to 36); ``None`` means the number of
            dice in play.  ``faces`` gives the source document's bid space (see the module
            docstring).
        starting_player: the player who bids first.

    Attributes:
        dice: dice per player, a tuple; ``dice_per_player`` is the argument as given back
            by :meth:`config` (an int when everybody has the same count).
        wild_rule, wild_face: the wild rule's name, and the wild face (``None``, ``faces`` or 1).
        wild: some face is wild (a bool, for reports).

    Raises:
        ValueError: naming the argument and its allowed range.
    """

    name = "liars_dice"

    def __init__(self, num_players: int = 2, dice_per_player=1, faces: int = 6, wild=False,
                 max_quantity: Optional[int] = None, starting_player: int = 0):
        self.num_players = _check_int("num_players", num_players, 2, 6)
        self.dice = check_dice(dice_per_player, self.num_players)
        self.dice_per_player = self.dice[0] if len(set(self.dice)) == 1 else self.dice
        self.faces = _check_int("faces", faces, 2, 6)
        self.wild_rule = check_wild(wild)
        self.wild_face = {"none": None, "highest": self.faces, "aces": 1}[self.wild_rule]
        self.wild = self.wild_face is not None
        self.starting_player = _check_int("starting_player", starting_player, 0, self.num_players - 1)
        self.total_dice = sum(self.dice)
        if max_quantity is None:
            max_quantity = self.total_dice
        self.max_quantity = _check_int("max_quantity", max_quantity, 1, 36)
        self.num_bids = self.max_quantity * self.faces
        self.call_action = self.num_bids
        self.num_actions = self.num_bids + 1
        self.action_names = tuple(
            [f"bid {q}x{f}" for q in range(1, self.max_quantity + 1) for f in range(1, self.faces + 1)]
            + ["call"]
        )
        self.die = d(self.faces)

    # -- static facts -------------------------------------------------------------

    def bid(self, action: int) -> Tuple[int, int]:
        """``(quantity, face)`` of bid number ``action``."""
        if not 0 <= action < self.num_bids:
            raise ValueError(f"bid number must be from 0 to {self.num_bids - 1}, got {action}")
        return action // self.faces + 1, action % self.faces + 1

    def bid_action(self, quantity: int, face: int) -> int:
        """The action number of the bid "at least ``quantity`` dice show ``face``"."""
        _check_int("quantity", quantity, 1, self.max_quantity)
        _check_int("face", face, 1, self.faces)
        return (quantity - 1) * self.faces + face - 1

    def matches(self, face_counts, face: int) -> int:
        """How many dice count towards a bid on ``face``, given counts per face
        (index 0 is face 1; numpy arrays of counts along the first axis too).  Wild dice count
        for every other face."""
        n = face_counts[face - 1]
        if self.wild_face is not None and face != self.wild_face:
            n = n + face_counts[self.wild_face - 1]
        return n

    def bid_is_true(self, action: int, rolls) -> bool:
        """Is bid ``action`` true for ``rolls`` (one tuple of faces per player)?"""
        quantity, face = self.bid(action)
        counts = [0] * self.faces
        for roll in rolls:
            for f in roll:
                counts[f - 1] += 1
        return self.matches(counts, face) >= quantity

    @lru_cache(maxsize=None)
    def roll_distribution(self, player: int = 0):
        """``player``'s roll: ``[(sorted faces tuple, Fraction), ...]``, exact."""
        out = []
        for counts, p in roll_counts(self.die, self.dice[player]):
            faces = tuple(f for f, c in zip(self.die.faces, counts) for _ in range(c))
            out.append((faces, p))
        return out

    def chance_distribution(self):
        """The opening chance node: every player's roll, ``[(rolls, Fraction), ...]``."""
        return combine([self.roll_distribution(p) for p in range(self.num_players)])

    def new_initial_state(self) -> "LiarsDiceState":
        return LiarsDiceState(self, None, (), False)

    def infoset_label(self, state: "LiarsDiceState", player: int) -> str:
        """A short name for ``player``'s information state (used in Gambit files)."""
        dice = " ".join(map(str, state.rolls[player]))
        bids = " ".join(self.action_name(b)[4:] for b in state.bids) or "-"
        return f"P{player + 1} dice {dice}; bids {bids}"

    def __repr__(self):
        return "LiarsDiceGame(" + ", ".join(f"{k}={v!r}" for k, v in self.config().items()) + ")"

    def describe(self) -> str:
        """``"1 and 2 six-sided dice, aces wild"``: the game in words, for reports."""
        names = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
        counts = (f"{self.dice[0]}" if len(set(self.dice)) == 1 else " and ".join(map(str, self.dice)))
        each = " each" if len(set(self.dice)) == 1 else ""
        plural = "dice" if max(self.dice) > 1 or len(set(self.dice)) > 1 else "die"
        wild = {"none": "", "highest": ", highest face wild", "aces": ", aces wild"}[self.wild_rule]
        return f"{counts} {names[self.faces]}-sided {plural}{each}{wild}"

    def config(self) -> dict:
        """The arguments that rebuild this game (used in caches, saved models and reports).

        ``wild`` is ``True``/``False`` for the highest face or none (as dice_envs 0.1 wrote it)
        and ``"aces"``; ``dice_per_player`` a list where the counts differ (``(2, 2)`` is written
        ``2``: the same game, the same caches); ``starting_player``
        is given only when it is not player 0, so the configurations of dice_envs 0.1 are unchanged."""
        dice = self.dice  # one count per player
        out = dict(num_players=self.num_players,
                   dice_per_player=dice[0] if len(set(dice)) == 1 else list(dice),
                   faces=self.faces, wild=self.wild_rule if self.wild_rule == "aces" else self.wild,
                   max_quantity=self.max_quantity)
        if self.starting_player:
            out["starting_player"] = self.starting_player
        return out


class LiarsDiceState(GameState):
    """An immutable Liar's Dice position.

    Attributes:
        rolls: one sorted tuple of faces per player (``None`` before the roll).
        bids: the bids made so far, in order (strictly increasing action numbers).
        called: the last bid has been called; the game is over.
    """

    __slots__ = ("game", "rolls", "bids", "called")
    game: LiarsDiceGame

    def __init__(self, game: LiarsDiceGame, rolls, bids: Tuple[int, ...], called: bool):
        self.game = game
        self.rolls = rolls
        self.bids = bids
        self.called = called

    # -- queries ----------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        if self.rolls is None:
            return CHANCE
        if self.called:
            return TERMINAL
        return self.seat(len(self.bids))

    def seat(self, turn: int) -> int:
        """The player who makes the ``turn``-th decision of the round (from 0)."""
        return (self.game.starting_player + turn) % self.game.num_players

    @property
    def bidder(self) -> Optional[int]:
        """The seat that made the last bid (``None`` before the first bid)."""
        return self.seat(len(self.bids) - 1) if self.bids else None

    @property
    def caller(self) -> Optional[int]:
        return self.seat(len(self.bids)) if self.called else None

    def legal_actions(self):
        if self.rolls is None or self.called:
            return ()
        start = self.bids[-1] + 1 if self.bids else 0
        actions = tuple(range(start, self.game.num_bids))
        return actions + (self.game.call_action,) if self.bids else actions

    def chance_outcomes(self):
        assert self.rolls is None, "not a chance node"
        return self.game.chance_distribution()

    def sample_chance(self, rng):
        """Roll every player's dice with ``rng`` (each die uniform on 1..faces)."""
        g = self.game
        return tuple(tuple(sorted(int(f) for f in rng.integers(1, g.faces + 1, size=n))) for n in g.dice)

    def describe_outcome(self, outcome, player: Optional[int] = None) -> str:
        """``"dice rolled: player_0 2 5; player_1 ? ?"``: ``player`` sees only their own dice."""
        return describe_roll(outcome, range(len(outcome)), player)

    @property
    def winner(self) -> Optional[int]:
        if not self.called:
            return None
        true = self.game.bid_is_true(self.bids[-1], self.rolls)
        return self.bidder if true else self.caller

    def returns(self):
        out = [0.0] * self.game.num_players
        if self.called:
            winner = self.winner
            loser = self.caller if winner == self.bidder else self.bidder
            out[winner], out[loser] = 1.0, -1.0
        return tuple(out)

    # -- transitions ------------------------------------------------------------------

    def apply(self, action) -> "LiarsDiceState":
        g = self.game
        if self.rolls is None:
            rolls = tuple(tuple(sorted(int(f) for f in roll)) for roll in action)
            if len(rolls) != g.num_players or any(
                len(r) != n or not all(1 <= f <= g.faces for f in r) for r, n in zip(rolls, g.dice)
            ):
                raise ValueError(f"chance outcome {action!r} is not a roll of this game")
            return LiarsDiceState(g, rolls, (), False)
        action = self.check_action(action)
        if action == g.call_action:
            return LiarsDiceState(g, self.rolls, self.bids, True)
        return LiarsDiceState(g, self.rolls, self.bids + (action,), False)

    # -- views ------------------------------------------------------------------------

    def information_state(self, player: int):
        """What ``player`` knows, as a hashable key: own roll and the bids so far
        (perfect recall; who made each bid follows from the turn order)."""
        roll = self.rolls[player] if self.rolls is not None else None
        return (player, roll, self.bids, self.called)

    def observation(self, player: int) -> np.ndarray:
        """``player``'s view: seat one-hot (n), own dice as counts per face (faces),
        one flag per bid made (num_bids), called flag (1), every player's number of dice
        (n, public).  The set of bids made is the whole public history, since bids only go
        up and turns alternate."""
        g = self.game
        obs = np.zeros(g.observation_shape, np.float32)
        obs[player] = 1.0
        if self.rolls is not None:
            for f in self.rolls[player]:
                obs[g.num_players + f - 1] += 1.0
        base = g.num_players + g.faces
        for b in self.bids:
            obs[base + b] = 1.0
        if self.called:
            obs[base + g.num_bids] = 1.0
        obs[g.prefix_size :] = g.dice
        return obs

    def __str__(self) -> str:
        g = self.game
        lines = []
        if self.rolls is None:
            return "dice not rolled yet"
        history = ", ".join(f"player_{self.seat(i)}: {g.action_name(b)}" for i, b in enumerate(self.bids))
        lines.append("bids: " + (history or "none yet"))
        if self.called:
            bid = g.action_name(self.bids[-1])
            dice = "; ".join(f"player_{p} {' '.join(map(str, r))}" for p, r in enumerate(self.rolls))
            verdict = "true" if g.bid_is_true(self.bids[-1], self.rolls) else "false"
            lines.append(f"player_{self.caller} calls {bid}: dice {dice}; the bid is {verdict}; "
                         f"player_{self.winner} wins")
        else:
            lines.append(f"player_{self.current_player} to bid or call")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"LiarsDiceState(rolls={self.rolls}, bids={self.bids}, called={self.called})"


def describe_roll(rolls, seats, viewer: Optional[int] = None) -> str:
    """The text of a roll, ``rolls[i]`` by the seat ``seats[i]``, as the seat ``viewer`` sees it
    (every other seat's dice a ``?``; ``None``: every die)."""
    return "dice rolled: " + "; ".join(
        f"player_{seat} " + " ".join(str(f) if viewer is None or seat == viewer else "?" for f in roll)
        for seat, roll in zip(seats, rolls)
    )


def tree_size(game: LiarsDiceGame) -> int:
    """Number of nodes of the full game tree (chance, decision and terminal), by formula.

    After the roll, a history is a strictly increasing sequence of bids, i.e. a
    subset of the ``B`` bids: ``2**B`` decision nodes, and every non-empty one has
    a call terminal (``2**B - 1``), for each of the roll outcomes, plus the root.
    ``tree_size(LiarsDiceGame(faces=F, max_quantity=F))`` is the source document's count for
    ``F = 2, 3, 4`` (125, 9,208, 2,097,137).  Two players only.
    """
    if game.num_players != 2:
        raise ValueError("tree_size counts 2-player trees only")
    per_roll = 2 ** game.num_bids + 2 ** game.num_bids - 1
    return 1 + len(game.chance_distribution()) * per_roll


def information_state_count(game: LiarsDiceGame) -> int:
    """Number of information states of both players together (decision points: a player's roll and
    the bids so far), by formula.

    The bids made are a subset of the ``B`` bids, and the player to act is fixed by the subset's
    size: player 0 acts after an even number of bids, player 1 after an odd one, ``2**(B - 1)``
    subsets each.  Each player tells apart only their own rolls (multisets of faces), so the count
    is ``2**(B - 1)`` times the sum of the players' numbers of rolls: 24,576 for one six-sided die
    each, 15,728,640 for two five-sided dice each (OpenSpiel's ``liars_dice`` counts the same).
    Two players only.
    """
    if game.num_players != 2:
        raise ValueError("information_state_count counts 2-player games only")
    return 2 ** (game.num_bids - 1) * sum(len(game.roll_distribution(p)) for p in range(2))


def seed_game(faces: int) -> LiarsDiceGame:
    """The source document's game: one die each, quantities up to ``faces``, no wild face."""
    return LiarsDiceGame(faces=faces, max_quantity=faces)
