"""Exact values of The Shakes' court policies and the Bayes-optimal court policy.

The court's problem is a Bayesian bandit with a known prior: the efficacies are a
uniformly random arrangement of a known multiset, and the public record
``((treated, saved), ...)`` is a sufficient statistic.  The record evolves as a
Markov chain under any record-based policy (the next patient is saved with the
posterior mean efficacy of the chosen treatment), so every policy's team-win
probability and expected number saved are computed exactly by backward induction
over records, and the Bayes-optimal policy by dynamic programming on the same
graph.

Treatments are exchangeable under the prior and all the policies are symmetric,
so a state is the *multiset* of ``(treated, saved)`` pairs: 253,813 states for 6
players and 18 patients instead of 86 million ordered records.  States are
processed level by level (``level`` = patients treated) as numpy arrays of pair
indices ``t (t + 1) / 2 + s`` sorted in decreasing order; a level's states are
found by expanding the previous one, and successors by binary search on integer
keys.

The posterior weights ``prod e^s (6 - e)^(t - s)`` are integers below 2^53 for
the source document's games, so they are computed exactly in float64 and ties (for the
greedy policy) are exact.  The values themselves are float64 sums (no sampling).

:func:`reference_value` is a slow exact (Fraction) evaluator over ordered records,
used by the tests to check the vectorised one on small games.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Dict, List, Optional

import numpy as np

from dice_envs.agents.shakes.argument import batch_win_probabilities, strength_tables, win_probabilities
from dice_envs.agents.shakes.policies import success_probabilities
from dice_envs.core.resources import check_resources
from dice_envs.games.shakes.rules import ShakesRules, deal_distribution, patients_for, strength_distribution  # noqa: F401

POLICY_NAMES = ("optimal", "dice_rule", "thompson", "greedy", "random")
OBJECTIVES = ("win", "saved")


def pair_index(t: int, s: int) -> int:
    return t * (t + 1) // 2 + s


@dataclass
class Level:
    """The canonical states with ``treated`` patients treated."""

    treated: int
    rows: np.ndarray  # (M, n) pair indices, decreasing along each row
    keys: np.ndarray  # (M,) int64, increasing
    successors: Optional[np.ndarray] = None  # (M, n, 2): next-level index after slot k fails (0) / saves (1)
    success: Optional[np.ndarray] = None  # (M, n): posterior P(save) per slot
    choices: Dict[str, np.ndarray] = field(default_factory=dict)  # policy -> (M, n) probabilities
    values: Dict[tuple, np.ndarray] = field(default_factory=dict)  # (policy, objective) -> (M,)


class ShakesModel:
    """The state graph of the court game for ``num_players`` treatments.

    Args:
        num_players: 2 to 6.
        efficacies, patients, threshold: override the source document's values (for
            experiments; the defaults are the source document's).
    """

    def __init__(self, num_players: int, efficacies=None, patients: Optional[int] = None,
                 threshold: Optional[int] = None):
        rules = ShakesRules(num_players)
        self.num_players = rules.num_players
        self.efficacies = tuple(sorted(efficacies if efficacies is not None else rules.efficacies, reverse=True))
        if len(self.efficacies) != self.num_players or not all(
            isinstance(e, (int, np.integer)) and 0 <= e <= 6 for e in self.efficacies
        ):
            raise ValueError(f"efficacies must be {self.num_players} integers from 0 to 6, got {efficacies!r}")
        self.patients = patients_for(rules.num_players) if patients is None else int(patients)  # the table's
        if not 1 <= self.patients <= 30:
            raise ValueError(f"patients must be from 1 to 30, got {patients!r}")
        self.threshold = rules.threshold if threshold is None else int(threshold)
        if not 0 <= self.threshold <= self.patients:
            raise ValueError(f"threshold must be from 0 to patients={self.patients}, got {threshold!r}")
        n, big_n = self.num_players, self.patients
        self.perms = np.array([p for p, _ in deal_distribution(self.efficacies)], dtype=np.int64)  # (P, n)
        pairs = [(t, s) for t in range(big_n + 2) for s in range(t + 1)]
        self.pair_t = np.array([t for t, _ in pairs], dtype=np.int64)
        self.pair_s = np.array([s for _, s in pairs], dtype=np.int64)
        self.base = len(pairs)
        if self.base**n >= 2**62:
            raise ValueError("state keys would overflow int64")
        self.powers = np.array([[float(b**k) for k in range(big_n + 1)] for b in range(7)])
        self.exact_weights = max(max(self.efficacies), 6 - min(self.efficacies)) ** big_n * len(self.perms) * 6 < 2**53
        self.levels: List[Level] = []
        self._build()

    # -- the state graph ----------------------------------------------------------------

    def encode(self, rows: np.ndarray) -> np.ndarray:
        keys = np.zeros(len(rows), dtype=np.int64)
        for k in range(rows.shape[1]):
            keys = keys * self.base + rows[:, k]
        return keys

    def canonical(self, rows: np.ndarray) -> np.ndarray:
        return -np.sort(-rows, axis=1)

    def _build(self):
        n = self.num_players
        rows = np.zeros((1, n), dtype=np.int64)
        level = Level(0, rows, self.encode(rows))
        self.levels.append(level)
        for treated in range(self.patients):
            children = []
            for k in range(n):
                for saved in (0, 1):
                    new = level.rows.copy()
                    t, s = self.pair_t[new[:, k]], self.pair_s[new[:, k]]
                    new[:, k] = (t + 1) * (t + 2) // 2 + s + saved
                    children.append(self.canonical(new))
            stacked = np.concatenate(children)
            keys, first = np.unique(self.encode(stacked), return_index=True)
            nxt = Level(treated + 1, stacked[first], keys)
            succ = np.searchsorted(keys, self.encode(stacked)).reshape(n, 2, -1)
            level.successors = np.transpose(succ, (2, 0, 1))
            self._posterior(level)
            self.levels.append(nxt)
            level = nxt

    def _posterior(self, level: Level):
        """Posterior success probability of each slot, and the policies' choices."""
        rows = level.rows
        t, s = self.pair_t[rows], self.pair_s[rows]
        f = t - s
        weights = np.ones((len(rows), len(self.perms)))
        for k in range(self.num_players):
            e = self.perms[:, k]
            weights *= self.powers[e[None, :], s[:, k][:, None]] * self.powers[(6 - e)[None, :], f[:, k][:, None]]
        total = weights.sum(axis=1, keepdims=True)
        numer = weights @ self.perms.astype(float)  # exact integers (see module docstring)
        level.success = numer / (6.0 * total)
        top = (self.perms == self.perms.max()).astype(float)
        top /= top.sum(axis=1, keepdims=True)
        level.choices["thompson"] = (weights @ top) / total
        top_mean = numer.max(axis=1, keepdims=True)
        best = numer == top_mean if self.exact_weights else numer >= top_mean * (1 - 1e-12)
        level.choices["greedy"] = best / best.sum(axis=1, keepdims=True)
        level.choices["random"] = np.full(rows.shape, 1.0 / self.num_players)

    def add_dice_rule(self):
        if "dice_rule" in self.levels[0].choices:
            return
        eq, below = strength_tables(self.patients)
        for level in self.levels[:-1]:
            level.choices["dice_rule"] = batch_win_probabilities(level.rows, eq, below)

    @property
    def num_states(self) -> int:
        return sum(len(level.rows) for level in self.levels)

    def locate(self, record):
        """``(level, index, slot_of_treatment)`` for an ordered record."""
        record = tuple(tuple(int(x) for x in pair) for pair in record)
        total = sum(t for t, _ in record)
        if len(record) != self.num_players or not all(0 <= s <= t for t, s in record) or total > self.patients:
            raise ValueError(
                f"record {record!r} is not a state of this game: need {self.num_players} (treated, saved) "
                f"pairs with 0 <= saved <= treated and at most {self.patients} treated in all"
            )
        idx = np.array([[pair_index(t, s) for t, s in record]], dtype=np.int64)
        order = np.argsort(-idx[0], kind="stable")
        level = self.levels[sum(t for t, _ in record)]
        key = self.encode(idx[:, order])[0]
        i = int(np.searchsorted(level.keys, key))
        if i >= len(level.keys) or level.keys[i] != key:
            raise ValueError(f"record {record!r} is not a state of this game")
        slot = np.empty(len(record), dtype=int)
        slot[order] = np.arange(len(record))
        return level, i, slot


@dataclass
class PolicyResult:
    team_win: float
    expected_saved: float
    best_choice_rate: Optional[float] = None  # P(the chosen treatment has the top card), per patient

    def as_dict(self) -> dict:
        out = {"team_win": self.team_win, "expected_saved": self.expected_saved}
        if self.best_choice_rate is not None:
            out["best_choice_rate"] = self.best_choice_rate
        return out


@dataclass
class Solution:
    """Exact values of every court policy for one player count and objective."""

    model: ShakesModel
    objective: str
    policies: Dict[str, PolicyResult]
    full_information: PolicyResult
    dice_vs_thompson: dict
    seconds: float

    def policy(self, name: str = "optimal"):
        """A court policy ``(efficacies, record) -> probabilities`` from the solved tables."""
        model = self.model

        def play(efficacies, record):
            level, i, slot = model.locate(record)
            if name not in level.choices:
                raise ValueError(f"no choice for policy {name!r} at {record!r} (the game is over or it was not solved)")
            probs = level.choices[name][i][slot]
            idx = [pair_index(t, s) for t, s in record]
            # Identical records are interchangeable: share their slots' probability evenly.
            out = np.array([probs[[j for j in range(len(idx)) if idx[j] == idx[k]]].mean() for k in range(len(idx))])
            return tuple(out / out.sum())

        return play

    def value(self, record, name: str = "optimal", objective: Optional[str] = None) -> float:
        level, i, _ = self.model.locate(record)
        return float(level.values[(name, objective or self.objective)][i])

    def as_dict(self) -> dict:
        return {
            "game": "shakes",
            "num_players": self.model.num_players,
            "efficacies": list(self.model.efficacies),
            "patients": self.model.patients,
            "threshold": self.model.threshold,
            "objective": self.objective,
            "states": self.model.num_states,
            "policies": {name: r.as_dict() for name, r in self.policies.items()},
            "full_information": self.full_information.as_dict(),
            "dice_vs_thompson": self.dice_vs_thompson,
            "seconds": self.seconds,
        }


def full_information(model: ShakesModel) -> PolicyResult:
    """Always treating with the best treatment (what the maesters can do: the top
    card's holder argues alone): ``Binomial(patients, e_max / 6)``."""
    n, p = model.patients, Fraction(max(model.efficacies), 6)
    win = sum(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(model.threshold, n + 1))
    return PolicyResult(float(win), float(n * p), 1.0)


def _optimal_choice(q_primary: np.ndarray, q_secondary: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """Maximise the primary value; among (near-)ties the secondary; split the rest evenly."""
    best = q_primary >= q_primary.max(axis=1, keepdims=True) - tol
    second = np.where(best, q_secondary, -np.inf)
    best &= second >= second.max(axis=1, keepdims=True) - tol
    return best / best.sum(axis=1, keepdims=True)


#: Peak memory and CPU time of :func:`solve` per public record (measured: 254 k records with six
#: players, 308 MB and 8.6 s in all, about 42 MB of it the interpreter; with a margin).
BYTES_PER_RECORD = 1200
SECONDS_PER_RECORD = 40e-6


def record_count(num_players: int, patients: int) -> int:
    """How many public records (:class:`ShakesModel` states, all levels) the court game has:
    multisets of ``num_players`` (treated, saved) pairs, ``saved <= treated``, whose treated sum
    to at most ``patients``; counted without building them, so a solve can be refused first."""
    ways = [[0] * (patients + 1) for _ in range(num_players + 1)]  # ways[k][L]: k pairs, L treated
    ways[0][0] = 1
    for t in range(patients + 1):
        for _ in range(t + 1):  # every pair (t, s), s = 0..t, is one kind of element
            new = [row[:] for row in ways]
            for k in range(num_players):
                for level in range(patients + 1):
                    if ways[k][level]:
                        for c in range(1, num_players - k + 1):
                            if level + c * t > patients:
                                break
                            new[k + c][level + c * t] += ways[k][level]
            ways = new
    return sum(ways[num_players])


def solve(num_players: int, objective: str = "win", model: Optional[ShakesModel] = None,
          policies=POLICY_NAMES) -> Solution:
    """Solve the court game exactly and evaluate the policies.

    Args:
        num_players: 2 to 6.
        objective: what "optimal" maximises: ``"win"`` (team-win probability; ties
            broken by expected saved) or ``"saved"`` (expected saved; ties by win).
        model: a prebuilt :class:`ShakesModel` (default: the source document's game).
        policies: which of :data:`POLICY_NAMES` to evaluate.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    unknown = set(policies) - set(POLICY_NAMES)
    if unknown:
        raise ValueError(f"unknown policies {sorted(unknown)}; choose from {POLICY_NAMES}")
    start = time.perf_counter()
    if model is None:
        rules = ShakesRules(num_players)
        records = record_count(rules.num_players, patients_for(rules.num_players))  # the table's patients
        check_resources(f"solve shakes --players {num_players} ({records:,} public records)",
                        42 * 2**20 + BYTES_PER_RECORD * records, SECONDS_PER_RECORD * records)
    model = model or ShakesModel(num_players)
    if "dice_rule" in policies:
        model.add_dice_rule()
    levels = model.levels
    last = levels[-1]
    saved_total = model.pair_s[last.rows].sum(axis=1).astype(float)
    terminal = {"win": (saved_total >= model.threshold).astype(float), "saved": saved_total}
    other = {"win": "saved", "saved": "win"}[objective]
    last.values = {(name, obj): terminal[obj] for name in policies for obj in OBJECTIVES}
    # Backward induction: values of every policy for both objectives; the optimal policy's choice.
    for level in reversed(levels[:-1]):
        p, successors = level.success, level.successors
        assert p is not None and successors is not None  # every level but the last has them
        fail, save = successors[:, :, 0], successors[:, :, 1]
        nxt = levels[level.treated + 1].values
        level.values = {}
        for name in policies:
            q = {obj: p * nxt[(name, obj)][save] + (1 - p) * nxt[(name, obj)][fail] for obj in OBJECTIVES}
            if name == "optimal":
                level.choices["optimal"] = _optimal_choice(q[objective], q[other])
            pi = level.choices[name]
            for obj in OBJECTIVES:
                level.values[(name, obj)] = (pi * q[obj]).sum(axis=1)
    results = {}
    thompson_share = "thompson" in levels[0].choices
    for name in policies:
        best_rate = _best_choice_rate(model, name) if thompson_share else None
        results[name] = PolicyResult(
            float(levels[0].values[(name, "win")][0]), float(levels[0].values[(name, "saved")][0]), best_rate
        )
    comparison = dice_vs_thompson(model) if {"dice_rule", "thompson"} <= set(policies) else {}
    return Solution(model, objective, results, full_information(model), comparison, time.perf_counter() - start)


def occupancy(model: ShakesModel, name: str) -> List[np.ndarray]:
    """Probability of reaching each state of each level under policy ``name``."""
    levels = model.levels
    mass = [np.zeros(len(level.rows)) for level in levels]
    mass[0][0] = 1.0
    for level in levels[:-1]:
        pi, p, successors = level.choices[name], level.success, level.successors
        assert p is not None and successors is not None  # every level but the last has them
        flow = mass[level.treated][:, None] * pi
        nxt = mass[level.treated + 1]
        np.add.at(nxt, successors[:, :, 1].ravel(), (flow * p).ravel())
        np.add.at(nxt, successors[:, :, 0].ravel(), (flow * (1 - p)).ravel())
    return mass


def _best_choice_rate(model: ShakesModel, name: str) -> float:
    """Average over the patients of P(the chosen treatment holds the top card)."""
    mass = occupancy(model, name)
    total = 0.0
    for level in model.levels[:-1]:
        total += (mass[level.treated] * (level.choices[name] * level.choices["thompson"]).sum(axis=1)).sum()
    return float(total / model.patients)


def dice_vs_thompson(model: ShakesModel, reach: float = 1e-3) -> dict:
    """How close the dice rule's choice probabilities are to exact Thompson sampling's.

    Total variation ``TV = 1/2 sum_i |dice_i - thompson_i|`` per state, averaged over
    the patients with the states weighted by how likely the dice rule is to reach
    them (``mean_tv``), its largest value over states the dice rule reaches with
    probability >= ``reach`` (``max_tv``, with that state as ``worst_state``), and
    the mean TV at each patient number (``tv_by_patient``).
    """
    mass = occupancy(model, "dice_rule")
    per_patient, max_tv, worst_detail = [], 0.0, None
    for level in model.levels[:-1]:
        tv = 0.5 * np.abs(level.choices["dice_rule"] - level.choices["thompson"]).sum(axis=1)
        w = mass[level.treated]
        per_patient.append(float((w * tv).sum()))
        reached = w >= reach
        if reached.any():
            j = int(np.argmax(np.where(reached, tv, -1)))
            if tv[j] > max_tv:
                max_tv = float(tv[j])
                worst_record = [
                    (int(model.pair_t[x]), int(model.pair_s[x])) for x in level.rows[j]
                ]
                worst_detail = {
                    "record": worst_record,
                    "dice_rule": level.choices["dice_rule"][j].tolist(),
                    "thompson": level.choices["thompson"][j].tolist(),
                    "reach_probability": float(w[j]),
                }
    return {
        "mean_tv": float(np.mean(per_patient)),
        "max_tv": max_tv,
        "max_tv_reach": reach,
        "tv_by_patient": per_patient,
        "worst_state": worst_detail,
    }


# -- slow exact reference (tests) -------------------------------------------------------


def reference_value(num_players: int, policy, objective: str = "win") -> Fraction:
    """Exact (Fraction) value of a court policy by recursion over ordered records.

    Feasible for 2 and 3 players; the tests check :func:`solve` against it.
    """
    rules = ShakesRules(num_players)
    efficacies, patients, threshold = rules.efficacies, rules.patients, rules.threshold

    @lru_cache(maxsize=None)
    def value(record):
        treated = sum(t for t, _ in record)
        saved = sum(s for _, s in record)
        if treated == patients:
            return Fraction(int(saved >= threshold)) if objective == "win" else Fraction(saved)
        probs = policy(efficacies, record)
        succ = success_probabilities(efficacies, record)
        total = Fraction(0)
        for i, (pi, p) in enumerate(zip(probs, succ)):
            if not pi:
                continue
            t, s = record[i]
            win = record[:i] + ((t + 1, s + 1),) + record[i + 1 :]
            lose = record[:i] + ((t + 1, s),) + record[i + 1 :]
            total += Fraction(pi) * (p * value(win) + (1 - p) * value(lose))
        return total

    return value(((0, 0),) * num_players)


def competitive_outcome(num_players: int) -> dict:
    """Competitive variant, everyone always arguing (the source document's play): the exact
    probability that the table's patients run out before anyone saves 3 (a draw),
    each seat's win probability (equal by symmetry), and the expected number of
    patients treated."""
    rules = ShakesRules(num_players, "competitive")
    patients = rules.patients
    assert patients is not None  # not until_winner: the table's patients
    model = ShakesModel(num_players, efficacies=rules.efficacies)
    model.add_dice_rule()
    mass = np.zeros(1)
    mass[0] = 1.0
    decided, patients_used = 0.0, 0.0
    for level in model.levels:
        over = model.pair_s[level.rows].max(axis=1) >= 3
        decided += mass[over].sum()
        patients_used += level.treated * mass[over].sum()
        if level.successors is None:
            break
        live = np.where(over, 0.0, mass)
        pi, p = level.choices["dice_rule"], level.success
        assert p is not None  # set with the successors
        flow = live[:, None] * pi
        nxt = np.zeros(len(model.levels[level.treated + 1].rows))
        np.add.at(nxt, level.successors[:, :, 1].ravel(), (flow * p).ravel())
        np.add.at(nxt, level.successors[:, :, 0].ravel(), (flow * (1 - p)).ravel())
        mass = nxt
    draw = 1.0 - decided
    return {
        "num_players": rules.num_players,
        "patients": rules.patients,
        "draw": float(draw),
        "each_seat_wins": float(decided / rules.num_players),
        "expected_patients_treated": float(patients_used + draw * patients),
    }


def competitive_best_response(num_players: int) -> dict:
    """Competitive variant: is always arguing a best response when everyone else argues?

    Solves seat 0's single-agent problem exactly (others always argue; ties and
    treatment by the rules) by recursion over ``(own record, others' records)``,
    and returns seat 0's expected reward (+1 win, -1 loss, 0 draw) under always
    arguing and under its best response, and the number of states where yielding
    is strictly better.  Feasible for 2 and 3 players.
    """
    rules = ShakesRules(num_players, "competitive")
    if rules.num_players > 3:
        raise ValueError(f"num_players must be 2 or 3 for this check, got {num_players!r}")
    patients, goal = rules.patients, 3
    yield_better = set()

    @lru_cache(maxsize=None)
    def argue_odds(pairs):
        dists = [[(v, float(p)) for v, p in strength_distribution(t, s)] for t, s in pairs]
        return win_probabilities(dists)

    @lru_cache(maxsize=None)
    def value(me, others, best):
        if me[1] >= goal:
            return 1.0
        if any(s >= goal for _, s in others):
            return -1.0
        if me[0] + sum(t for t, _ in others) >= patients:
            return 0.0

        def after(who_probs):
            total = 0.0
            for who, p in who_probs:
                if who == 0:
                    a, b = (me[0] + 1, me[1] + 1), (me[0] + 1, me[1])
                    outcomes = [(a, others), (b, others)]
                else:
                    j = who - 1
                    t, s = others[j]
                    outcomes = [
                        (me, tuple(sorted(others[:j] + ((t + 1, s + 1),) + others[j + 1 :]))),
                        (me, tuple(sorted(others[:j] + ((t + 1, s),) + others[j + 1 :]))),
                    ]
                for m, o in outcomes:
                    total += p * 0.5 * value(m, o, best)
            return total

        argue = after(enumerate(argue_odds((me,) + others)))
        if not best:
            return argue
        odds = argue_odds(others) if len(others) > 1 else (1.0,)
        yielded = after((j + 1, p) for j, p in enumerate(odds))
        if yielded > argue + 1e-12:
            yield_better.add((me, others))
            return yielded
        return argue

    start = ((0, 0), tuple(((0, 0),) * (rules.num_players - 1)))
    always = value(*start, False)
    best = value(*start, True)
    return {"num_players": rules.num_players, "always_argue_value": always, "best_response_value": best,
            "states_where_yielding_is_better": len(yield_better)}
