"""The Shakes (Allen Downey, 2020) rules core: a Bayesian dice game for 2 to 6 players.

This module holds the rules once; the PettingZoo environment
(:mod:`dice_envs.shakes_v0`), the exact solvers (:mod:`dice_envs.agents.shakes.solver`,
:mod:`dice_envs.agents.shakes.argument`) and the tests all use it.

Rules (Allen Downey's *The Shakes*):

* Each of the ``n`` players (maesters) champions one treatment.  The treatments'
  efficacies are a random permutation of a known multiset, dealt face down as cards:

  ======= =================== ======== ============
  players efficacies          patients team wins at
  ======= =================== ======== ============
  2       3, 1                12       5 saved
  3       4, 1, 1             12       5 saved
  4       4, 2, 1, 1          18       7 saved
  5       4, 2, 2, 1, 1       18       7 saved
  6       4, 2, 2, 2, 1, 1    18       7 saved
  ======= =================== ======== ============

  A treatment of efficacy ``e`` saves a patient when a d6 shows ``<= e``.
* **The argument.**  Every round a patient arrives and the maesters argue.  A
  maester who has treated ``t`` patients and saved ``s`` rolls ``t + 1`` dice,
  removes the ``s`` lowest, and keeps the lowest remaining die: its value is the
  strength of the argument (:func:`argument_strength`).  Its distribution is the
  ``(s + 1)``-th order statistic of ``t + 1`` d6 (:func:`strength_distribution`),
  a six-level discretisation of a Beta(s + 1, t - s + 1) draw: the argument is
  Thompson sampling under a *uniform* prior on each efficacy.  The strongest
  argument treats the patient; if several tie for strongest, only the tied
  maesters roll again (same ``t`` and ``s``), until one is strongest alone.
* The cooperative game lasts ``patients`` rounds; the team wins when at least
  ``threshold`` patients were saved.
* **Competitive variation**: every efficacy is 3, and the first maester to save 3
  patients wins.

Two games are built on these rules (see :mod:`dice_envs.shakes_v0`):

* :class:`CourtGame`: one decision maker (the court) chooses which treatment each
  patient gets, seeing only the public record; it is the bandit problem the source document's
  argument approximates, and the one the Bayes-optimal solver solves.
* :class:`MaestersGame`: one agent per maester; each sees its own card and the
  public record and, each round, argues or yields.

Readings of the source document where it is ambiguous (each the default, with the other
reading as an option where it is cheap):

* **Competitive game length.**  "Play as in the cooperative variation" keeps the
  12/18 patients on the table; if they are all treated before anyone has saved 3,
  nobody wins (every seat gets 0).  ``until_winner=True`` plays on until someone
  saves 3 instead (the game then ends with probability 1).
* **Yielding** is not in the source document, where every maester always argues (that is the
  seed's play, and the ``"argue"`` action).  If every maester yields, the round is
  argued by all of them, as in the source document.  Declarations are simultaneous: a maester
  does not see the others' choices for the current round.
* **Rewards.**  A team win pays 1 (0 for a loss) so that the expected return is the
  team-win probability; ``objective="saved"`` pays the number of patients saved.
  The competitive winner gets +1, the others -1.
* **"Optimal".**  The source document's goal is a team win, so the Bayes-optimal court policy
  maximises the team-win probability by default; the source document's background section
  speaks of maximising the patients saved, which is ``objective="saved"``.
* **Which Thompson sampling.**  The argument is Thompson sampling under a uniform
  prior on each efficacy; the game's true prior is a shuffle of a known multiset.
  "Thompson" in :mod:`dice_envs.agents.shakes.policies` is exact Thompson sampling under the
  true prior, and the dice rule is measured against it.
* **The dice rule as a court policy** gives each treatment the probability that
  its maester wins the argument when everyone argues (the source document's play).
* The source document's "argue all at once or one at a time, in any order" does not change
  the outcome (the rolls are independent); the rules core rolls all at once.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Optional, Sequence, Tuple

import numpy as np

from dice_envs.core.dice import Sampler, d, order_statistic
from dice_envs.core.game import CHANCE, TERMINAL, Game, GameState
from dice_envs.core.validation import check_int

D6 = d(6)

EFFICACIES = {
    2: (3, 1),
    3: (4, 1, 1),
    4: (4, 2, 1, 1),
    5: (4, 2, 2, 1, 1),
    6: (4, 2, 2, 2, 1, 1),
}
COMPETITIVE_EFFICACY = 3
COMPETITIVE_SAVES_TO_WIN = 3
VARIANTS = ("cooperative", "competitive")
OBJECTIVES = ("win", "saved")

YIELD, ARGUE = 0, 1
MAESTER_ACTION_NAMES = ("yield", "argue")

Record = Tuple[Tuple[int, int], ...]  # (treated, saved) per treatment


def patients_for(num_players: int) -> int:
    """Patients on the table: 12 with 2-3 players, 18 with 4 or more."""
    return 12 if num_players <= 3 else 18


def threshold_for(num_players: int) -> int:
    """Saved patients the team needs: 5 with 2-3 players, 7 with 4 or more."""
    return 5 if num_players <= 3 else 7


def check_num_players(num_players) -> int:
    return check_int("num_players", num_players, 2, 6)


@dataclass(frozen=True)
class ShakesRules:
    """The configuration of one game of The Shakes.

    Args:
        num_players: 2 to 6 maesters (treatments).
        variant: ``"cooperative"`` (the source document's game) or ``"competitive"``.
        until_winner: competitive only: play on past the table's patients until
            someone saves 3 (default False: the game is a draw when they run out).

    Raises:
        ValueError: for a player count outside 2..6, an unknown variant, or a
            non-boolean ``until_winner``.
    """

    num_players: int = 4
    variant: str = "cooperative"
    until_winner: bool = False

    def __post_init__(self):
        object.__setattr__(self, "num_players", check_num_players(self.num_players))
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        if not isinstance(self.until_winner, (bool, np.bool_)):
            raise ValueError(f"until_winner must be True or False, got {self.until_winner!r}")
        if self.until_winner and self.variant != "competitive":
            raise ValueError("until_winner=True needs variant='competitive'")

    @property
    def competitive(self) -> bool:
        return self.variant == "competitive"

    @property
    def efficacies(self) -> Tuple[int, ...]:
        """The multiset of efficacies (largest first)."""
        if self.competitive:
            return (COMPETITIVE_EFFICACY,) * self.num_players
        return EFFICACIES[self.num_players]

    @property
    def patients(self) -> Optional[int]:
        """Patients to treat (``None``: unlimited, competitive ``until_winner``)."""
        return None if self.until_winner else patients_for(self.num_players)

    @property
    def threshold(self) -> int:
        return threshold_for(self.num_players)

    def deals(self):
        """Exact distribution of the dealt efficacy cards: ``[(efficacies per seat, p)]``.

        Every distinct arrangement of the multiset is equally likely.
        """
        return deal_distribution(self.efficacies)


@lru_cache(maxsize=None)
def deal_distribution(efficacies: Tuple[int, ...]):
    perms = sorted(set(itertools.permutations(efficacies)), reverse=True)
    p = Fraction(1, len(perms))
    return [(perm, p) for perm in perms]


def argument_strength(dice: Sequence[int], saved: int) -> int:
    """The source document's rule, literally: drop the ``saved`` lowest dice, keep the lowest left.

    ``argument_strength([1, 2, 2, 4], 2) == 2`` (the source document's example).
    """
    if not 0 <= saved < len(dice):
        raise ValueError(f"saved must be from 0 to {len(dice) - 1} for {len(dice)} dice, got {saved}")
    remaining = sorted(dice)[saved:]
    return remaining[0]


@lru_cache(maxsize=None)
def strength_distribution(treated: int, saved: int):
    """Exact distribution of a maester's argument strength: ``[(value, Fraction)]``.

    The ``(saved + 1)``-th lowest of ``treated + 1`` d6, from :mod:`dice_envs.core.dice`.
    """
    if not 0 <= saved <= treated:
        raise ValueError(f"need 0 <= saved <= treated, got treated={treated}, saved={saved}")
    return order_statistic(D6, treated + 1, saved + 1)


def roll_argument(treated: int, saved: int, rng: np.random.Generator) -> int:
    """Roll ``treated + 1`` dice and apply :func:`argument_strength`."""
    dice = rng.integers(1, 7, size=treated + 1)
    return int(argument_strength(dice.tolist(), saved))


# -- states ---------------------------------------------------------------------------

DEAL, DECIDE, ARGUMENT, TREAT, OVER = "deal", "decide", "argument", "treat", "over"


class ShakesState(GameState):
    """What both games share: the dealt cards, the public record and the treatment roll.

    Attributes:
        efficacies: the dealt card of each treatment (``None`` before the deal).
        treated, saved: the public record, per treatment.
        phase: ``"deal"``, ``"decide"``, ``"argument"``, ``"treat"`` or ``"over"``.
        patient_to: the treatment about to be tried (phase ``"treat"``).
        contenders: the maesters still arguing (phase ``"argument"``).
        declared: the argue/yield choices made so far this round (maesters game).
    """

    __slots__ = ("game", "efficacies", "treated", "saved", "phase", "patient_to", "contenders", "declared")
    game: _ShakesGame

    def __init__(self, game, efficacies=None, treated=None, saved=None, phase=DEAL, patient_to=None,
                 contenders=(), declared=()):
        n = game.rules.num_players
        self.game = game
        self.efficacies = efficacies
        self.treated = treated if treated is not None else (0,) * n
        self.saved = saved if saved is not None else (0,) * n
        self.phase = phase
        self.patient_to = patient_to
        self.contenders = contenders
        self.declared = declared

    def _with(self, **changes):
        new = object.__new__(type(self))
        for name in ShakesState.__slots__:
            object.__setattr__(new, name, changes[name] if name in changes else getattr(self, name))
        return new

    # -- queries ----------------------------------------------------------------------

    @property
    def rules(self) -> ShakesRules:
        return self.game.rules

    @property
    def record(self) -> Record:
        """The public record: ``((treated, saved), ...)`` per treatment."""
        return tuple(zip(self.treated, self.saved))

    @property
    def total_treated(self) -> int:
        return sum(self.treated)

    @property
    def total_saved(self) -> int:
        return sum(self.saved)

    @property
    def patients_left(self) -> int:
        """Patients still to treat (``-1`` when unlimited)."""
        patients = self.rules.patients
        return -1 if patients is None else patients - self.total_treated

    @property
    def winner(self) -> Optional[int]:
        """Competitive game: the seat that saved 3 first (``None`` otherwise)."""
        if not self.rules.competitive:
            return None
        for seat, s in enumerate(self.saved):
            if s >= COMPETITIVE_SAVES_TO_WIN:
                return seat
        return None

    @property
    def team_won(self) -> bool:
        return self.total_saved >= self.rules.threshold

    def is_over(self) -> bool:
        if self.rules.competitive and self.winner is not None:
            return True
        patients = self.rules.patients
        return patients is not None and self.total_treated >= patients

    @property
    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL
        if self.phase in (DEAL, ARGUMENT, TREAT):
            return CHANCE
        return self._decider()

    def _decider(self) -> int:
        raise NotImplementedError

    def legal_actions(self):
        if self.phase != DECIDE:
            return ()
        return tuple(range(self.game.num_actions))

    # -- chance -----------------------------------------------------------------------

    def chance_outcomes(self):
        if self.phase == DEAL:
            return list(self.rules.deals())
        if self.phase == TREAT:
            return list(D6.distribution())
        if self.phase == ARGUMENT:
            parts = [strength_distribution(self.treated[m], self.saved[m]) for m in self.contenders]
            out = []
            for combo in itertools.product(*parts):
                p = Fraction(1)
                for _, q in combo:
                    p *= q
                out.append((tuple(v for v, _ in combo), p))
            return out
        raise NotImplementedError(f"no chance node in phase {self.phase!r}")

    def sample_chance(self, rng):
        if self.phase == DEAL:
            return _sampler(self.rules.efficacies).sample(rng)
        if self.phase == TREAT:
            return int(rng.integers(1, 7))
        if self.phase == ARGUMENT:
            return tuple(roll_argument(self.treated[m], self.saved[m], rng) for m in self.contenders)
        raise NotImplementedError(f"no chance node in phase {self.phase!r}")

    def describe_outcome(self, outcome, player: Optional[int] = None) -> str:
        if self.phase == DEAL:
            return "the efficacy cards are dealt face down"
        if self.phase == TREAT:
            who = self.patient_to
            result = "saved" if outcome <= self.efficacies[who] else "lost"
            return f"{self._label(who)} rolls {outcome} for the patient: {result}"
        strengths = ", ".join(f"player_{m}: {v}" for m, v in zip(self.contenders, outcome))
        return f"argument strengths: {strengths}"

    def _apply_chance(self, outcome):
        if self.phase == DEAL:
            outcome = tuple(int(e) for e in outcome)
            if sorted(outcome) != sorted(self.rules.efficacies):
                raise ValueError(f"deal {outcome!r} is not an arrangement of {self.rules.efficacies}")
            return self._with(efficacies=outcome, phase=DECIDE)
        if self.phase == TREAT:
            face = int(outcome)
            if not 1 <= face <= 6:
                raise ValueError(f"a treatment roll is a d6 face 1..6, got {outcome!r}")
            who = self.patient_to
            treated = list(self.treated)
            saved = list(self.saved)
            treated[who] += 1
            saved[who] += face <= self.efficacies[who]
            new = self._with(treated=tuple(treated), saved=tuple(saved), patient_to=None, phase=DECIDE,
                             declared=())
            return new._with(phase=OVER) if new.is_over() else new
        if self.phase == ARGUMENT:
            if len(outcome) != len(self.contenders) or not all(1 <= int(v) <= 6 for v in outcome):
                raise ValueError(f"argument outcome must be one d6 value per contender, got {outcome!r}")
            best = max(outcome)
            tied = tuple(m for m, v in zip(self.contenders, outcome) if v == best)
            if len(tied) > 1:
                return self._with(contenders=tied)
            return self._with(contenders=(), patient_to=tied[0], phase=TREAT)
        raise ValueError(f"no chance node in phase {self.phase!r}")

    # -- views ------------------------------------------------------------------------

    def _label(self, i: int) -> str:
        return f"player_{i}" if self.game.num_players > 1 else f"treatment {i}"

    def _record_lines(self):
        lines = []
        for i in range(self.rules.num_players):
            card = ""
            if self.phase == OVER and self.efficacies is not None:
                card = f" (efficacy {self.efficacies[i]})"
            lines.append(f"{self._label(i)}: treated {self.treated[i]:2d}, saved {self.saved[i]:2d}{card}")
        left = self.patients_left
        lines.append(
            f"saved {self.total_saved} of {self.total_treated}"
            + ("" if left < 0 else f"; {left} patients left")
            + ("" if self.rules.competitive else f"; the team needs {self.rules.threshold}")
        )
        return lines

    def __str__(self) -> str:
        lines = self._record_lines()
        if self.phase == OVER:
            if self.rules.competitive:
                w = self.winner
                lines.append("nobody saved 3: a draw" if w is None else f"player_{w} wins")
            else:
                lines.append("the team wins" if self.team_won else "the team loses")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(efficacies={self.efficacies}, treated={self.treated}, saved={self.saved}, "
            f"phase={self.phase!r}, patient_to={self.patient_to}, contenders={self.contenders}, "
            f"declared={self.declared})"
        )


@lru_cache(maxsize=None)
def _sampler(efficacies):
    return Sampler(deal_distribution(efficacies))


def _check_objective(objective) -> str:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    return objective


class _ShakesGame(Game):
    rules: ShakesRules

    def observation_bounds(self):
        low = np.zeros(self.observation_shape, np.float32)
        high = np.full(self.observation_shape, np.inf if self.rules.patients is None else self.rules.patients,
                       np.float32)
        return low, high

    def _record_features(self, state: ShakesState, order) -> list:
        left = state.patients_left
        return (
            [state.treated[i] for i in order]
            + [state.saved[i] for i in order]
            + [max(left, 0), state.total_saved]
        )


# -- the court game -------------------------------------------------------------------


class CourtGame(_ShakesGame):
    """One decision maker assigns every patient to a treatment (cooperative rules).

    Args:
        num_players: 2 to 6 treatments (the source document's player count).
        objective: ``"win"`` (return 1 if the team saves enough patients, else 0) or
            ``"saved"`` (return the number of patients saved).

    The court sees only the public record; the efficacies are hidden.
    """

    name = "shakes_court"
    num_players = 1

    def __init__(self, num_players: int = 4, objective: str = "win"):
        self.rules = ShakesRules(num_players, "cooperative")
        self.objective = _check_objective(objective)
        self.num_actions = self.rules.num_players
        self.action_names = tuple(f"treatment {i}" for i in range(self.num_actions))

    @property
    def observation_shape(self):
        return (2 * self.rules.num_players + 2,)

    def new_initial_state(self) -> "CourtState":
        return CourtState(self)

    def __repr__(self):
        return f"CourtGame(num_players={self.rules.num_players}, objective={self.objective!r})"


class CourtState(ShakesState):
    """A position of :class:`CourtGame`; action ``i`` gives the patient treatment ``i``."""

    __slots__ = ()
    game: CourtGame

    def _decider(self) -> int:
        return 0

    def apply(self, action):
        if self.current_player == CHANCE:
            return self._apply_chance(action)
        action = self.check_action(action)
        return self._with(patient_to=action, phase=TREAT)

    def returns(self):
        if self.phase != OVER:
            return (0.0,)
        if self.game.objective == "saved":
            return (float(self.total_saved),)
        return (1.0 if self.team_won else 0.0,)

    def observation(self, player: int) -> np.ndarray:
        """``treated`` (n), ``saved`` (n), patients left, total saved."""
        n = self.rules.num_players
        return np.array(self.game._record_features(self, range(n)), dtype=np.float32)


# -- the maesters game ----------------------------------------------------------------


class MaestersGame(_ShakesGame):
    """One agent per maester; each round every maester argues or yields.

    Args:
        num_players: 2 to 6 maesters.
        variant: ``"cooperative"`` (shared team reward) or ``"competitive"``.
        objective: cooperative team reward, ``"win"`` (1/0) or ``"saved"``.
        until_winner: competitive only; see :class:`ShakesRules`.
    """

    name = "shakes_maesters"
    num_actions = 2
    action_names = MAESTER_ACTION_NAMES

    def __init__(self, num_players: int = 4, variant: str = "cooperative", objective: str = "win",
                 until_winner: bool = False):
        self.rules = ShakesRules(num_players, variant, until_winner)
        self.objective = _check_objective(objective)
        if self.rules.competitive and objective != "win":
            raise ValueError("objective='saved' is a cooperative reward; the competitive game rewards the winner")
        self.num_players = self.rules.num_players

    @property
    def observation_shape(self):
        return (2 * self.rules.num_players + 3,)

    def observation_bounds(self):
        low, high = super().observation_bounds()
        high[0] = 6
        return low, high

    def new_initial_state(self) -> "MaestersState":
        return MaestersState(self)

    def __repr__(self):
        return (
            f"MaestersGame(num_players={self.num_players}, variant={self.rules.variant!r}, "
            f"objective={self.objective!r}, until_winner={self.rules.until_winner})"
        )


class MaestersState(ShakesState):
    """A position of :class:`MaestersGame`.  Seats declare in order 0..n-1 (unseen by
    the others); then the arguing maesters roll (a chance node, re-rolled for ties)."""

    __slots__ = ()
    game: MaestersGame

    def _decider(self) -> int:
        return len(self.declared)

    def apply(self, action):
        if self.current_player == CHANCE:
            return self._apply_chance(action)
        action = self.check_action(action)
        declared = self.declared + (action,)
        if len(declared) < self.rules.num_players:
            return self._with(declared=declared)
        contenders = tuple(m for m, a in enumerate(declared) if a == ARGUE)
        if not contenders:  # everyone yielded: all argue, as in the source document
            contenders = tuple(range(self.rules.num_players))
        if len(contenders) == 1:
            return self._with(declared=declared, contenders=(), patient_to=contenders[0], phase=TREAT)
        return self._with(declared=declared, contenders=contenders, phase=ARGUMENT)

    def returns(self):
        n = self.rules.num_players
        if self.phase != OVER:
            return (0.0,) * n
        if self.rules.competitive:
            w = self.winner
            if w is None:
                return (0.0,) * n
            return tuple(1.0 if seat == w else -1.0 for seat in range(n))
        if self.game.objective == "saved":
            return (float(self.total_saved),) * n
        return (1.0 if self.team_won else 0.0,) * n

    def observation(self, player: int) -> np.ndarray:
        """Own efficacy card, then ``treated`` (n) and ``saved`` (n) with the
        observer first, patients left, total saved."""
        n = self.rules.num_players
        order = [(player + k) % n for k in range(n)]
        card = 0 if self.efficacies is None else self.efficacies[player]
        return np.array([card] + self.game._record_features(self, order), dtype=np.float32)

    def describe_action(self, action: int, player: Optional[int] = None) -> str:
        """Declarations are simultaneous: the other maesters see that one was made, not which."""
        if player is None or player == self.current_player:
            return super().describe_action(action, player)
        return f"player_{self.current_player}: declared"

    def __str__(self) -> str:
        text = super().__str__()
        if self.phase == ARGUMENT:
            text += "\narguing: " + ", ".join(f"player_{m}" for m in self.contenders)
        return text
