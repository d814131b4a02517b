"""The Shakes, batched: the rules of :mod:`dice_envs.games.shakes.rules` over arrays of games.

Both games of the rules core: :class:`ShakesCourtBatch` (one court assigns every
patient, :class:`dice_envs.games.shakes.rules.CourtGame`) and :class:`ShakesMaestersBatch` (one
agent per maester argues or yields, :class:`dice_envs.games.shakes.rules.MaestersGame`, either
variant).  They share one private base, which holds the deal, the treatment roll,
the public record, the record part of the observations and the returns.

The chance nodes are drawn as in the rules core:

* the deal is a uniformly random arrangement of the efficacy multiset (a uniform
  shuffle of the seats, which makes every distinct arrangement equally likely);
* an argument draws each contender's strength by inverse CDF from the exact
  distribution :func:`dice_envs.games.shakes.rules.strength_distribution` (a table over
  treated and saved, grown on demand when ``until_winner`` lets the record grow);
  the maesters tied for strongest roll again, repeatedly, on a shrinking subset of
  the games, until one is strongest alone;
* the treatment roll is a d6, saving the patient when it shows at most the
  treatment's efficacy.

So a maesters step may cross several chance nodes (the tie re-rolls, then the
treatment); :meth:`_ShakesBatch.drawn_outcomes` gives them in the rules core's
terms, and ``tests/shakes/test_batched_shakes.py`` checks this copy of the rules against
:class:`dice_envs.games.shakes.rules.CourtState` and :class:`dice_envs.games.shakes.rules.MaestersState` step
by step and its draws against ``chance_outcomes()``.  See :mod:`dice_envs.envs.batched`
for the API.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Dict, List, Optional, Union

import numpy as np

from dice_envs.envs.batched import BatchedGame, State
from dice_envs.games.shakes.rules import (
    ARGUE,
    COMPETITIVE_SAVES_TO_WIN,
    CourtGame,
    MaestersGame,
    ShakesState,
    strength_distribution,
)

# What the last step or reset that touched a game drew (``state["drew"]``).
_DREW_NOTHING, _DREW_DEAL, _DREW_TREATMENT = 0, 1, 2


@lru_cache(maxsize=None)
def strength_cumulative(treated: int, saved: int) -> np.ndarray:
    """``(5,)`` float: P(strength <= v) for v = 1..5, from the exact
    :func:`dice_envs.games.shakes.rules.strength_distribution` of a maester who treated ``treated``
    and saved ``saved``."""
    p = dict(strength_distribution(treated, saved))
    return np.cumsum([float(p.get(v, 0)) for v in range(1, 6)])


class _ShakesBatch(BatchedGame):
    """What both games share: the deal, the public record, the treatment roll, the
    record features of the observation and the returns."""

    _card = 0  # observation entries before the record (the maesters' own card)
    game: Union[CourtGame, MaestersGame]

    def __init__(self, game, num_envs: int):
        rules = game.rules
        self.rules = rules
        self.seats = rules.num_players  # treatments (maesters)
        self.multiset = np.array(rules.efficacies, np.int64)
        self.shuffle = len(set(rules.efficacies)) > 1
        self._serial = 0  # counts the steps and resets, to tell their argument logs apart
        self._log: Dict[int, List[list]] = {}  # serial -> the argument rounds that step drew (see _argue)
        super().__init__(game, num_envs)

    def _new_state(self, n: int) -> State:
        p = self.seats
        return {
            "efficacies": np.zeros((n, p), np.int64),
            "treated": np.zeros((n, p), np.int64),
            "saved": np.zeros((n, p), np.int64),
            "total_treated": np.zeros(n, np.int64),
            "total_saved": np.zeros(n, np.int64),
            # For drawn_outcomes: what the last step drew, when, the treatment face, the game's index.
            "drew": np.zeros(n, np.int8),
            "stamp": np.zeros(n, np.int64),
            "face": np.zeros(n, np.int64),
            "row": np.arange(n),
            "done": np.zeros(n, bool),
        }

    def _reset(self, s: State, rng) -> None:
        m = len(s["done"])
        if self.shuffle:
            s["efficacies"][:] = rng.permuted(np.broadcast_to(self.multiset, (m, self.seats)), axis=1)
        else:
            s["efficacies"][:] = self.multiset
        for key in ("treated", "saved", "total_treated", "total_saved"):
            s[key][:] = 0
        self._serial += 1
        s["drew"][:] = _DREW_DEAL
        s["stamp"][:] = self._serial

    def _legal(self, s: State) -> np.ndarray:
        return np.ones((len(s["done"]), self.num_actions), bool)

    def step(self, actions, rng: np.random.Generator, where=None):
        # A game the step touches but does not advance (illegal action, already over) draws nothing.
        idx = self._select(where)
        self.state["drew"][slice(None) if idx is None else idx] = _DREW_NOTHING
        return super().step(actions, rng, where)

    # -- the treatment and the end of the game ----------------------------------------------

    def _treat(self, s: State, rows: np.ndarray, who: np.ndarray, rng, rewards: np.ndarray) -> None:
        """Treatment ``who`` treats the patient of each game ``rows``: roll, record, maybe end."""
        face = rng.integers(1, 7, len(rows))
        saved_now = face <= s["efficacies"][rows, who]
        s["treated"][rows, who] += 1
        s["saved"][rows, who] += saved_now
        total_treated = s["total_treated"][rows] + 1
        s["total_treated"][rows] = total_treated
        s["total_saved"][rows] += saved_now
        s["face"][rows] = face
        over = np.zeros(len(rows), bool)
        if self.rules.competitive:
            over |= s["saved"][rows, who] >= COMPETITIVE_SAVES_TO_WIN
        if self.rules.patients is not None:
            over |= total_treated >= self.rules.patients
        if over.any():
            ended = rows[over]
            s["done"][ended] = True
            rewards[ended] = self._payoff(s, ended)

    def _payoff(self, s: State, rows: np.ndarray) -> np.ndarray:
        """``(len(rows), num_players)``: the rules core's ``returns()`` of finished games."""
        rules = self.rules
        if rules.competitive:
            won = s["saved"][rows] >= COMPETITIVE_SAVES_TO_WIN
            winner = np.argmax(won, axis=1)  # the first seat with 3 saved, as the rules core reads it
            pay = np.where(np.arange(self.seats) == winner[:, None], 1.0, -1.0)
            return pay * won.any(axis=1)[:, None]
        total = s["total_saved"][rows]
        value = total if self.game.objective == "saved" else total >= rules.threshold
        return np.repeat(value[:, None].astype(np.float32), self.num_players, axis=1)

    # -- views --------------------------------------------------------------------------------

    def _observe(self, s: State, seats: np.ndarray) -> np.ndarray:
        """The record features (``treated``, ``saved``, patients left, total saved), after
        :attr:`_card` entries; the seats in the observer's order when :attr:`_card` is set."""
        p, c = self.seats, self._card
        m = len(seats)
        obs = np.empty((m,) + self.observation_shape, np.float32)
        if c:
            order = (seats[:, None] + np.arange(p)) % p
            rows = np.arange(m)[:, None]
            obs[:, c : c + p] = s["treated"][rows, order]
            obs[:, c + p : c + 2 * p] = s["saved"][rows, order]
        else:
            obs[:, :p] = s["treated"]
            obs[:, p : 2 * p] = s["saved"]
        patients = self.rules.patients
        obs[:, c + 2 * p] = 0 if patients is None else np.maximum(patients - s["total_treated"], 0)
        obs[:, c + 2 * p + 1] = s["total_saved"]
        return obs

    def _load(self, s: State, k: int, state: ShakesState) -> None:  # type: ignore[override]
        s["efficacies"][k] = 0 if state.efficacies is None else state.efficacies
        s["treated"][k] = state.treated
        s["saved"][k] = state.saved
        s["total_treated"][k] = state.total_treated
        s["total_saved"][k] = state.total_saved
        s["drew"][k] = _DREW_NOTHING

    def drawn_outcomes(self, k: int) -> list:
        """The rules-core chance outcomes drawn in game ``k`` by the last step or reset that
        touched it: the deal (a reset); or each argument's strengths (one per contender,
        in seat order), then the treatment face (a step that treated a patient)."""
        st = self.state
        drew = st["drew"][k]
        if drew == _DREW_DEAL:
            return [tuple(int(e) for e in st["efficacies"][k])]
        if drew == _DREW_NOTHING:
            return []
        out: list = []
        for entry in self._log.get(int(st["stamp"][k]), ()):
            ids, contenders, strengths, order = entry
            if order is None:  # sort the games' indices once, on first look-up
                order = entry[3] = np.argsort(ids, kind="stable")
            j = order[min(np.searchsorted(ids, k, sorter=order), len(ids) - 1)]
            if ids[j] != k:
                break  # each round's games are some of the previous round's
            out.append(tuple(int(v) for v in strengths[j][contenders[j]]))
        out.append(int(st["face"][k]))
        return out


class ShakesCourtBatch(_ShakesBatch):
    """``num_envs`` games of The Shakes' court game: action ``i`` gives the patient treatment ``i``.

    Args:
        num_envs: the number of games.
        num_players, objective: as :class:`dice_envs.games.shakes.rules.CourtGame` (or pass ``game=``).
    """

    def __init__(self, num_envs: int, num_players: int = 4, objective: str = "win",
                 game: Optional[CourtGame] = None):
        game = game if game is not None else CourtGame(num_players, objective)
        if not isinstance(game, CourtGame):
            raise ValueError(f"game must be a CourtGame, got {game!r}")
        super().__init__(game, num_envs)

    def _mover(self, s: State) -> np.ndarray:
        return np.zeros(len(s["done"]), np.int64)

    def _step(self, s: State, actions: np.ndarray, rng) -> np.ndarray:
        m = len(actions)
        rewards = np.zeros((m, 1), np.float32)
        self._serial += 1
        s["drew"][:] = _DREW_TREATMENT
        s["stamp"][:] = self._serial
        self._treat(s, np.arange(m), actions, rng, rewards)
        return rewards

    def chance_outcome(self, k: int):
        """The treatment face (a step) or the deal (a reset) drawn last in game ``k``."""
        out = self.drawn_outcomes(k)
        return out[0] if out else None


class ShakesMaestersBatch(_ShakesBatch):
    """``num_envs`` games of The Shakes with one agent per maester (0 = yield, 1 = argue).

    Seats declare in order 0..n-1; after the last declaration the arguing maesters
    (everyone if all yielded) argue, ties re-rolled, and the strongest treats.

    Args:
        num_envs: the number of games.
        num_players, variant, objective, until_winner: as
            :class:`dice_envs.games.shakes.rules.MaestersGame` (or pass ``game=``).
    """

    _card = 1
    _log_size = 8  # argument logs kept before forgetting those no game refers to

    def __init__(self, num_envs: int, num_players: int = 4, variant: str = "cooperative",
                 objective: str = "win", until_winner: bool = False, game: Optional[MaestersGame] = None):
        game = game if game is not None else MaestersGame(num_players, variant, objective, until_winner)
        if not isinstance(game, MaestersGame):
            raise ValueError(f"game must be a MaestersGame, got {game!r}")
        # The strength CDFs by (treated, saved), filled in as records appear, grown on demand.
        size = game.rules.patients or 32
        self._table = np.ones((size, size, 5))
        self._filled = np.zeros((size, size), bool)
        super().__init__(game, num_envs)

    def _new_state(self, n: int) -> State:
        s = super()._new_state(n)
        s["argue"] = np.zeros((n, self.seats), bool)  # the declarations so far this round
        s["declared"] = np.zeros(n, np.int64)  # how many seats declared (the seat to move)
        return s

    def _reset(self, s: State, rng) -> None:
        super()._reset(s, rng)
        s["argue"][:] = False
        s["declared"][:] = 0

    def _mover(self, s: State) -> np.ndarray:
        return s["declared"]

    def _step(self, s: State, actions: np.ndarray, rng) -> np.ndarray:
        m = len(actions)
        rewards = np.zeros((m, self.seats), np.float32)
        self._serial += 1
        s["stamp"][:] = self._serial
        declared = s["declared"]
        s["argue"][np.arange(m), declared] = actions == ARGUE
        last = declared == self.seats - 1
        declared += 1
        s["drew"][:] = np.where(last, _DREW_TREATMENT, _DREW_NOTHING)
        rows = np.flatnonzero(last)
        if len(rows):
            argue = s["argue"][rows]
            argue[~argue.any(axis=1)] = True  # everyone yielded: all argue, as in the seed
            who = np.argmax(argue, axis=1)
            several = np.flatnonzero(argue.sum(axis=1) > 1)
            if len(several):
                who[several] = self._argue(s, rows[several], argue[several], rng)
            s["argue"][rows] = False
            declared[rows] = 0
            self._treat(s, rows, who, rng, rewards)
        return rewards

    def _argue(self, s: State, rows: np.ndarray, contenders: np.ndarray, rng) -> np.ndarray:
        """The argument in games ``rows`` among ``contenders`` ((k, n) bool); the winners' seats.

        Every round draws a strength for each contender by inverse CDF; the games with a
        tie for strongest roll again among the tied maesters only.  The rounds are logged
        for :meth:`drawn_outcomes`.
        """
        cumulative = self._cumulative(s["treated"][rows], s["saved"][rows])  # (k, n, 5)
        ids = s["row"][rows]
        winner = np.empty(len(rows), np.int64)
        live = np.arange(len(rows))
        rounds = []
        while True:
            u = rng.random(contenders.shape)
            strength = np.where(contenders, 1 + (u[..., None] >= cumulative).sum(axis=2, dtype=np.int8), 0)
            rounds.append([ids, contenders, strength, None])
            tied = strength == strength.max(axis=1)[:, None]
            alone = tied.sum(axis=1) == 1
            winner[live[alone]] = np.argmax(tied[alone], axis=1)
            if alone.all():
                break
            again = ~alone
            live, ids, contenders, cumulative = live[again], ids[again], tied[again], cumulative[again]
        self._log[self._serial] = rounds
        if len(self._log) > self._log_size:  # forget the logs no game refers to any more
            st = self.state
            wanted = set(np.unique(st["stamp"][st["drew"] == _DREW_TREATMENT]).tolist()) | {self._serial}
            self._log = {key: value for key, value in self._log.items() if key in wanted}
        return winner

    def _cumulative(self, treated: np.ndarray, saved: np.ndarray) -> np.ndarray:
        """The strength CDFs of the records ``(treated, saved)``, from the table."""
        size = len(self._table)
        top = int(treated.max())
        if top >= size:  # until_winner: a record outgrew the table
            grown = max(2 * size, top + 1)
            table, filled = np.ones((grown, grown, 5)), np.zeros((grown, grown), bool)
            table[:size, :size], filled[:size, :size] = self._table, self._filled
            self._table, self._filled = table, filled
        missing = ~self._filled[treated, saved]
        if missing.any():
            for t, v in set(zip(treated[missing].tolist(), saved[missing].tolist())):
                self._table[t, v] = strength_cumulative(t, v)
                self._filled[t, v] = True
        return self._table[treated, saved]

    def _observe(self, s: State, seats: np.ndarray) -> np.ndarray:
        obs = super()._observe(s, seats)
        obs[:, 0] = s["efficacies"][np.arange(len(seats)), seats]
        return obs

    def _load(self, s: State, k: int, state: ShakesState) -> None:  # type: ignore[override]
        super()._load(s, k, state)
        s["argue"][k] = False
        s["argue"][k, : len(state.declared)] = np.array(state.declared, np.int64) == ARGUE
        s["declared"][k] = len(state.declared)
