"""Zombie Dice rules core (Steve Jackson Games, 2010), full game and All Yellow.

This module holds the rules once; the PettingZoo environment
(:mod:`dice_envs.zombie_dice_v0`), the All Yellow solver (:mod:`dice_envs.agents.zombie_dice.ayzd_solver`) and
the tests all use it.

Rules (official, as in ``shared/seeds``):

* 13 dice in a cup: 6 green (3 brains, 1 shotgun, 2 footprints), 4 yellow (2/2/2)
  and 3 red (1/3/2).  The All Yellow variant uses 13 yellow dice.
* A roll always uses 3 dice: the footprint dice kept from the last roll plus new
  dice drawn at random from the cup.  Brains and shotguns are set aside.
* If the cup holds too few dice, the player notes the brains scored so far and
  puts the brain dice back in the cup (shotguns stay out), then draws.
* The turn ends when the player holds (scoring the turn's brains) or when 3 or
  more shotguns have been set aside (scoring nothing).  A player must roll at
  least once per turn.
* A player ending a turn with ``goal`` (13) or more makes this the last round;
  the round is played out, and the highest score wins.  If the highest score is
  tied, only the tied leaders play tiebreaker rounds until one leads alone.
* ``stop_when_won`` (default True): the game ends as soon as it is decided, that
  is, when the last player of a round could win by holding, they hold
  automatically.  This is the AYZD paper's model; the letter of the official
  rules (``False``) lets that player roll on and risk busting, which no sensible
  player does but a learning agent or a fixed rule might.

With the All Yellow dice every die shows brain, shotgun or footprints with
probability 1/3, and 3 dice can always be rolled, so the game is exactly the
model of Neller et al. ("Optimal Play of the All Yellow Zombie Dice Game").
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from dice_envs.core.dice import Die, Sampler, combine, draw_counts, roll_counts
from dice_envs.core.encodings import HOLD, ROLL, EncodedObservations, fourier_features
from dice_envs.core.game import CHANCE, TERMINAL, Game, GameState
from dice_envs.core.validation import check_bool, check_choice, check_int

BRAIN, SHOTGUN, FOOTPRINTS = "brain", "shotgun", "footprints"
FACES = (BRAIN, SHOTGUN, FOOTPRINTS)

GREEN = Die(FACES, (3, 1, 2), name="green")
YELLOW = Die(FACES, (2, 2, 2), name="yellow")
RED = Die(FACES, (1, 3, 2), name="red")

VARIANTS = {
    "official": ((GREEN, 6), (YELLOW, 4), (RED, 3)),
    "all_yellow": ((YELLOW, 13),),
}

_ROLL_CACHE: dict = {}

ACTION_NAMES = ("hold", "roll")
DICE_PER_ROLL = 3
SHOTGUNS_TO_BUST = 3


def _brains(count: int) -> str:
    return "brain" if count == 1 else "brains"


class ZombieDiceGame(EncodedObservations, Game):
    """Configuration of a Zombie Dice game.

    Args:
        num_players: 2 to 8 players.
        variant: ``"official"`` (green/yellow/red) or ``"all_yellow"``.
        goal: brains that trigger the last round (13 in the official rules).
        stop_when_won: the last player of a round holds automatically once holding
            wins the game (see the module docstring).

    Raises:
        ValueError: for a player count outside 2..8, an unknown variant or a goal
            below 1.
    """

    name = "zombie_dice"
    num_actions = 2
    action_names = ACTION_NAMES

    def __init__(self, num_players: int = 2, variant: str = "official", goal: int = 13,
                 stop_when_won: bool = True):
        self.num_players = check_int("num_players", num_players, 2, 8)
        self.variant = check_choice("variant", variant, sorted(VARIANTS))
        self.goal = check_int("goal", goal, 1)
        self.stop_when_won = check_bool("stop_when_won", stop_when_won)
        self.dice: Tuple[Die, ...] = tuple(die for die, _ in VARIANTS[variant])
        self.full_cup: Tuple[int, ...] = tuple(n for _, n in VARIANTS[variant])
        self.fourier_signals = self.num_players + 2  # the scores, the turn's brains, own score plus them
        self.num_colors = len(self.dice)
        # (cup, feet) -> (exact outcomes, Sampler); shared by all games of a variant.
        self._rolls: dict = _ROLL_CACHE.setdefault(variant, {})

    def roll_outcomes(self, cup: Tuple[int, ...], feet: Tuple[int, ...]):
        """``(exact outcomes, sampler)`` for a roll from ``cup`` with ``feet`` kept (cached)."""
        key = (cup, feet)
        entry = self._rolls.get(key)
        if entry is None:
            outcomes = _roll_distribution(self.dice, cup, feet)
            entry = self._rolls[key] = (outcomes, Sampler(outcomes))
        return entry

    @property
    def observation_shape(self):
        return (4 * self.num_players + 4 + 4 * self.num_colors,)

    def observation_bounds(self):
        n = self.num_players
        low = np.zeros(self.observation_shape, np.float32)
        high = np.full(self.observation_shape, np.inf, np.float32)
        high[n : 3 * n] = 1  # to-move one-hot, in-play flags
        high[3 * n : 4 * n] = 1  # played-this-round flags
        high[4 * n + 1] = SHOTGUNS_TO_BUST - 1 + DICE_PER_ROLL  # the most a bust can show
        high[4 * n + 2 : 4 * n + 4] = 1  # rolled, final-round flags
        # scores and turn brains stay infinite: brain dice go back in the cup, so a turn has no end
        cup = np.array(self.full_cup * 4, np.float32)
        high[4 * n + 4 :] = cup
        return low, high

    def observation_scale(self) -> np.ndarray:
        """The divisors of :meth:`scaled_observation`, one per feature of the observation vector:
        the goal for the scores and the turn's brains, 3 for the shotguns, the game's number of
        dice of each colour for the dice counts, 1 for the flags."""
        n = self.num_players
        scale = np.ones(self.observation_shape, np.float32)
        scale[:n] = self.goal
        scale[4 * n] = self.goal
        scale[4 * n + 1] = SHOTGUNS_TO_BUST
        scale[4 * n + 4 :] = np.array(self.full_cup * 4, np.float32)
        return scale

    def scaled_observation(self, observation: np.ndarray) -> np.ndarray:
        """``observation`` (one vector or a batch) divided by :meth:`observation_scale`: the
        ``observation="scaled"`` of ``dice_envs/ZombieDice-v0``, every feature about 0 to 1 (the
        scale a network learns from), nothing lost."""
        return np.asarray(observation, np.float32) / self.observation_scale()

    def fourier_observation(self, observation: np.ndarray) -> np.ndarray:
        """:meth:`scaled_observation` followed by the sines and cosines of ``pi f x / goal``
        (:func:`dice_envs.core.encodings.fourier_features`) for ``x`` each of the scores (the
        observer's first), the turn's brains ``b`` and the observer's score plus ``b`` (what a
        hold banks): the ``observation="fourier"`` of ``dice_envs/ZombieDice-v0``,
        ``(4n + 4 + 4c) + 10 (n + 2)`` values (64 for two players and the official dice).

        The waves depend on the scores and the turn's brains alone, never on the dice, so an
        exact evaluation can still split a network's first layer by dice state and position
        (:class:`dice_envs.agents.zombie_dice.solver.NetworkPolicy`)."""
        n = self.num_players
        scaled = self.scaled_observation(observation)
        brains = scaled[..., 4 * n : 4 * n + 1]
        signals = np.concatenate([scaled[..., :n], brains, scaled[..., :1] + brains], axis=-1)
        return np.concatenate([scaled, fourier_features(signals)], axis=-1)


    def new_initial_state(self) -> "ZombieDiceState":
        n = self.num_players
        zeros = (0,) * self.num_colors
        return ZombieDiceState(
            self, (0,) * n, tuple(range(n)), 0, False, self.full_cup, zeros, zeros, zeros, 0, False, False, None
        )

    def __repr__(self):
        return (
            f"ZombieDiceGame(num_players={self.num_players}, variant={self.variant!r}, goal={self.goal}, "
            f"stop_when_won={self.stop_when_won})"
        )


def _roll_distribution(dice: Tuple[Die, ...], cup: Tuple[int, ...], feet: Tuple[int, ...]):
    """Exact outcomes of drawing ``3 - sum(feet)`` dice from ``cup`` and rolling them with ``feet``.

    An outcome is ``(drawn, results)``: dice drawn per colour, and per colour the
    ``(brains, shotguns, footprints)`` rolled.
    """
    need = DICE_PER_ROLL - sum(feet)
    out = []
    for drawn, p_draw in draw_counts(cup, need):
        per_colour = [roll_counts(die, f + x) for die, f, x in zip(dice, feet, drawn)]
        for results, p_roll in combine(per_colour):
            out.append(((drawn, results), p_draw * p_roll))
    return out


class ZombieDiceState(GameState):
    """An immutable Zombie Dice position.

    Attributes:
        scores: brains banked by each seat.
        active: seats playing the current round, in turn order (all seats, or the
            tied leaders in a tiebreaker round).
        turn_index: index into ``active`` of the seat whose turn it is.
        final: someone has reached the goal; this round is the last (or a tiebreak).
        cup, brain_dice, shotgun_dice, feet: dice per colour in the cup, set aside as
            brains, set aside as shotguns, and kept to re-roll.
        turn_brains: brains scored this turn (brain dice returned to the cup still count).
        rolled: the player has rolled at least once this turn.
        pending_roll: a roll was chosen and the dice are about to be drawn (chance node).
        winner: the winning seat once the game is over.
    """

    __slots__ = (
        "game", "scores", "active", "turn_index", "final", "cup", "brain_dice", "shotgun_dice",
        "feet", "turn_brains", "rolled", "pending_roll", "winner",
    )
    game: ZombieDiceGame

    def __init__(self, game, scores, active, turn_index, final, cup, brain_dice, shotgun_dice, feet,
                 turn_brains, rolled, pending_roll, winner):
        self.game = game
        self.scores = scores
        self.active = active
        self.turn_index = turn_index
        self.final = final
        self.cup = cup
        self.brain_dice = brain_dice
        self.shotgun_dice = shotgun_dice
        self.feet = feet
        self.turn_brains = turn_brains
        self.rolled = rolled
        self.pending_roll = pending_roll
        self.winner = winner

    # -- queries ----------------------------------------------------------------------

    @property
    def seat(self) -> int:
        """The seat whose turn it is (also at a chance node)."""
        return self.active[self.turn_index]

    @property
    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        if self.pending_roll:
            return CHANCE
        return self.active[self.turn_index]

    @property
    def shotguns(self) -> int:
        return sum(self.shotgun_dice)

    def legal_actions(self):
        if self.winner is not None or self.pending_roll:
            return ()
        return (HOLD, ROLL) if self.rolled else (ROLL,)

    def returns(self):
        if self.winner is None:
            return (0.0,) * self.game.num_players
        return tuple(1.0 if s == self.winner else -1.0 for s in range(self.game.num_players))

    def _effective_cup(self):
        """The cup to draw from: brain dice go back in when the cup is short."""
        need = DICE_PER_ROLL - sum(self.feet)
        if sum(self.cup) >= need:
            return self.cup, self.brain_dice
        zeros = (0,) * len(self.cup)
        return tuple(c + b for c, b in zip(self.cup, self.brain_dice)), zeros

    def chance_outcomes(self):
        assert self.pending_roll, "not a chance node"
        cup, _ = self._effective_cup()
        return list(self.game.roll_outcomes(cup, self.feet)[0])

    def sample_chance(self, rng):
        cup, _ = self._effective_cup()
        return self.game.roll_outcomes(cup, self.feet)[1].sample(rng)

    def describe_outcome(self, outcome, player: Optional[int] = None) -> str:
        _, results = outcome
        parts = []
        for die, (b, s, f) in zip(self.game.dice, results):
            for face, count in ((BRAIN, b), (SHOTGUN, s), (FOOTPRINTS, f)):
                parts += [f"{die.name} {face}"] * count
        shotguns = sum(self.shotgun_dice) + sum(s for _, s, _ in results)
        bust = f" ({shotguns} shotguns: bust, the turn's brains are lost)" if shotguns >= SHOTGUNS_TO_BUST else ""
        return f"player_{self.seat} rolled: " + ", ".join(parts) + bust

    # -- transitions ------------------------------------------------------------------

    def _with(self, **changes) -> "ZombieDiceState":
        """A copy with some fields changed (the fields are the constructor's arguments)."""
        fields = {name: getattr(self, name) for name in ZombieDiceState.__slots__}
        fields.update(changes)
        return ZombieDiceState(**fields)

    def apply(self, action) -> "ZombieDiceState":
        if self.pending_roll:
            return self._apply_roll(action)
        action = self.check_action(action)
        if action == ROLL:
            return ZombieDiceState(
                self.game, self.scores, self.active, self.turn_index, self.final, self.cup, self.brain_dice,
                self.shotgun_dice, self.feet, self.turn_brains, self.rolled, True, None,
            )
        return self._end_turn(self.turn_brains)

    def _apply_roll(self, outcome) -> "ZombieDiceState":
        drawn, results = outcome
        cup, brain_dice = self._effective_cup()
        cup = tuple(c - x for c, x in zip(cup, drawn))
        brain_dice = tuple(b + r[0] for b, r in zip(brain_dice, results))
        shotgun_dice = tuple(s + r[1] for s, r in zip(self.shotgun_dice, results))
        feet = tuple(r[2] for r in results)
        if min(cup) < 0:
            raise ValueError(f"roll outcome {outcome!r} draws dice the cup does not hold")
        rolled = ZombieDiceState(
            self.game, self.scores, self.active, self.turn_index, self.final, cup, brain_dice, shotgun_dice, feet,
            self.turn_brains + sum(r[0] for r in results), True, False, None,
        )
        if sum(shotgun_dice) >= SHOTGUNS_TO_BUST:
            return rolled._end_turn(0)
        if self.game.stop_when_won and rolled.holding_wins():
            return rolled._end_turn(rolled.turn_brains)
        return rolled

    def holding_wins(self) -> bool:
        """Would holding now end the game with the mover as the winner?

        True when the mover plays last in the round and banking would give them at
        least the goal and strictly more than everyone else.
        """
        if self.turn_index != len(self.active) - 1:
            return False
        mover = self.seat
        banked = self.scores[mover] + self.turn_brains
        others = max(s for seat, s in enumerate(self.scores) if seat != mover)
        return banked >= self.game.goal and banked > others

    def _end_turn(self, gained: int) -> "ZombieDiceState":
        """Bank ``gained`` brains, pass the turn, and finish the round or the game."""
        game = self.game
        scores = list(self.scores)
        scores[self.seat] += gained
        final = self.final or scores[self.seat] >= game.goal
        active, turn_index, winner = self.active, self.turn_index + 1, None
        if turn_index == len(active):  # the round is over
            turn_index = 0
            if final:
                best = max(scores[s] for s in active)
                leaders = tuple(s for s in active if scores[s] == best)
                if len(leaders) == 1:
                    winner = leaders[0]
                active = leaders
        zeros = (0,) * game.num_colors
        return ZombieDiceState(
            game, tuple(scores), active, turn_index, final, game.full_cup, zeros, zeros, zeros, 0, False, False, winner
        )

    # -- views ------------------------------------------------------------------------

    def observation(self, player: int) -> np.ndarray:
        """Everything at the table, from ``player``'s seat.

        Layout (``n`` players, ``c`` colours; seats rotated so index 0 is ``player``):
        scores (n), to-move one-hot (n), in-this-round flags (n), already-played-this-
        round flags (n), turn brains, shotguns, rolled flag, last-round flag, then per
        colour: dice in the cup (c), brain dice set aside (c), shotgun dice (c),
        footprint dice kept (c).
        """
        n = self.game.num_players
        order = [(player + k) % n for k in range(n)]
        mover = self.seat
        played = set(self.active[: self.turn_index])
        active = set(self.active)
        obs = (
            [self.scores[s] for s in order]
            + [1.0 if s == mover and self.winner is None else 0.0 for s in order]
            + [1.0 if s in active else 0.0 for s in order]
            + [1.0 if s in played else 0.0 for s in order]
            + [self.turn_brains, sum(self.shotgun_dice), float(self.rolled), float(self.final)]
            + list(self.cup) + list(self.brain_dice) + list(self.shotgun_dice) + list(self.feet)
        )
        return np.array(obs, dtype=np.float32)

    def two_player_view(self) -> Tuple[int, int, int, int, int]:
        """``(p, i, j, b, s)`` as in the AYZD paper: ``p`` is 1 for the seat that
        plays first in the round, ``i``/``j`` the mover's/opponent's scores, ``b`` the
        turn's brains and ``s`` its shotguns.  Two players only."""
        if self.game.num_players != 2:
            raise ValueError("two_player_view needs a 2-player game")
        mover = self.seat
        p = 1 if self.turn_index == 0 else 2
        return p, self.scores[mover], self.scores[1 - mover], self.turn_brains, sum(self.shotgun_dice)

    def __str__(self) -> str:
        game = self.game
        lines = []
        for seat in range(game.num_players):
            marks = []
            if self.winner == seat:
                marks.append("winner")
            elif self.winner is None and seat == self.seat:
                marks.append("to play")
            if seat not in self.active and self.winner is None:
                marks.append("out of tiebreak")
            tag = f" ({', '.join(marks)})" if marks else ""
            lines.append(f"player_{seat}: {self.scores[seat]:3d} {_brains(self.scores[seat])}{tag}")
        if self.winner is None:
            if self.final:
                lines.append("last round" if len(self.active) == game.num_players else "tiebreaker round")
            colours = lambda counts: ", ".join(
                f"{n} {d.name}" for d, n in zip(game.dice, counts) if n
            ) or "none"
            lines.append(
                f"turn: {self.turn_brains} {_brains(self.turn_brains)}, {sum(self.shotgun_dice)} shotgun"
                f"{'' if sum(self.shotgun_dice) == 1 else 's'}; "
                f"footprints to re-roll: {colours(self.feet)}; cup: {colours(self.cup)}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"ZombieDiceState(scores={self.scores}, active={self.active}, turn_index={self.turn_index}, "
            f"final={self.final}, turn_brains={self.turn_brains}, shotguns={self.shotgun_dice}, "
            f"feet={self.feet}, cup={self.cup}, rolled={self.rolled}, pending_roll={self.pending_roll}, "
            f"winner={self.winner})"
        )


# -- the compact two-player encoding ---------------------------------------------------
# A function of the AYZD solver's position (p, i, j, b, s) alone, so that a policy
# learned on it can be queried in every state of the solver's grid (the single-agent
# env's observation="compact", the learned-model adapter and the batched env use it).

COMPACT_SIZE = 12


def compact_observation(p, i, j, b, s, goal: int = 13, rolled=1) -> np.ndarray:
    """The compact observation of positions ``(p, i, j, b, s)`` (numpy arrays, broadcast).

    Returns float32 of shape ``broadcast_shape + (12,)``; the features are listed in
    :mod:`dice_envs.agents.zombie_dice.gym` (``dice_envs/ZombieDice-v0``).
    """
    p, i, j, b, s, rolled = np.broadcast_arrays(*(np.asarray(x) for x in (p, i, j, b, s, rolled)))
    i_after = i + b
    g = float(goal)
    features = (
        p == 2, i / g, j / g, b / g, s == 1, s == 2, i_after / g, (i_after - j) / g,
        np.maximum(i, j) >= goal, i_after >= goal, i_after > j, rolled != 0,
    )
    return np.stack([np.asarray(f, dtype=np.float32) for f in features], axis=-1)


def compact_bounds() -> Tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` of the compact observation's Box."""
    low = np.zeros(COMPACT_SIZE, np.float32)
    high = np.ones(COMPACT_SIZE, np.float32)
    high[[1, 2, 3, 6, 7]] = np.inf
    low[7] = -np.inf
    return low, high


def compact_from_state(state: "ZombieDiceState", seat: int) -> np.ndarray:
    """:func:`compact_observation` of one state (a scalar fast path; the tests check they agree)."""
    p, i, j, b, s = state.two_player_view()
    g = float(state.game.goal)
    i_after = i + b
    return np.array(
        (p == 2, i / g, j / g, b / g, s == 1, s == 2, i_after / g, (i_after - j) / g,
         max(i, j) >= g, i_after >= g, i_after > j, bool(state.rolled)),
        dtype=np.float32,
    )
