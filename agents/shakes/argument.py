"""Exact probability that each maester wins The Shakes' argument.

Each arguing maester's strength is an order statistic of d6
(:func:`dice_envs.games.shakes.rules.strength_distribution`, from :mod:`dice_envs.core.dice`);
the strongest wins and a tie for strongest is re-rolled by the tied maesters
only, until one is strongest alone.  With ``q(T | A)`` the probability that,
among the arguing set ``A``, exactly the set ``T`` ties for the highest value,

    W_i(A) = sum_{T subset of A, i in T} q(T | A) W_i(T),     W_i({i}) = 1,

and the term ``T = A`` (everyone tied again) is moved to the left-hand side:
``W_i(A) = sum_{T proper} q(T | A) W_i(T) / (1 - q(A | A))``.

:func:`win_probabilities` evaluates this exactly (Fractions) for one argument;
:func:`batch_win_probabilities` evaluates it in float64 for many records at
once, which the dynamic programme in :mod:`dice_envs.agents.shakes.solver` needs.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Dict, Sequence, Tuple

import numpy as np

from dice_envs.games.shakes.rules import strength_distribution

FACES = range(1, 7)


def _face_tables(dist) -> Tuple[list, list]:
    """``(P(X = m), P(X < m))`` for m = 1..6 from ``[(value, p)]``."""
    pm = {v: p for v, p in dist}
    zero = Fraction(0) if any(isinstance(p, Fraction) for p in pm.values()) else 0.0
    eq = [pm.get(m, zero) for m in FACES]
    below, acc = [], zero
    for p in eq:
        below.append(acc)
        acc = acc + p
    return eq, below


def win_probabilities(distributions: Sequence) -> tuple:
    """Probability that each contender wins an argument (ties re-rolled by the tied).

    Args:
        distributions: one strength distribution ``[(value in 1..6, probability)]``
            per contender (Fractions give an exact answer).

    Returns:
        one probability per contender, summing to 1.
    """
    if not distributions:
        raise ValueError("an argument needs at least one contender")
    tables = [_face_tables(dist) for dist in distributions]
    memo: Dict[Tuple[int, ...], dict] = {}

    def solve(group: Tuple[int, ...]):
        if len(group) == 1:
            return {group[0]: 1}
        if group in memo:
            return memo[group]
        total = {i: 0 for i in group}
        again = 0
        for size in range(1, len(group) + 1):
            for tied in itertools.combinations(group, size):
                rest = [j for j in group if j not in tied]
                q = 0
                for m in range(6):
                    term = 1
                    for j in tied:
                        term *= tables[j][0][m]
                    for j in rest:
                        term *= tables[j][1][m]
                    q += term
                if not q:
                    continue
                if tied == group:
                    again = q
                    continue
                for i, w in solve(tied).items():
                    total[i] += q * w
        if again == 1:
            raise ValueError("the contenders always tie: the argument never ends")
        result = {i: w / (1 - again) for i, w in total.items()}
        memo[group] = result
        return result

    answer = solve(tuple(range(len(distributions))))
    return tuple(answer[i] for i in range(len(distributions)))


def argument_win_probabilities(record) -> Tuple[Fraction, ...]:
    """Exact probability that each maester wins the argument when all argue.

    ``record`` is ``((treated, saved), ...)`` per maester.
    """
    return win_probabilities([strength_distribution(t, s) for t, s in record])


# -- vectorised -----------------------------------------------------------------------


def strength_tables(max_treated: int) -> Tuple[np.ndarray, np.ndarray]:
    """Float tables over pair indices ``t (t + 1) / 2 + s`` for ``t <= max_treated``:
    ``eq[idx, m - 1] = P(strength = m)`` and ``below[idx, m - 1] = P(strength < m)``."""
    pairs = [(t, s) for t in range(max_treated + 1) for s in range(t + 1)]
    eq = np.zeros((len(pairs), 6))
    below = np.zeros((len(pairs), 6))
    for k, (t, s) in enumerate(pairs):
        e, b = _face_tables(strength_distribution(t, s))
        eq[k] = [float(x) for x in e]
        below[k] = [float(x) for x in b]
    return eq, below


def batch_win_probabilities(rows: np.ndarray, eq: np.ndarray, below: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """Argument-win probabilities for many all-argue records at once.

    Args:
        rows: ``(M, n)`` integer pair indices (see :func:`strength_tables`).
        eq, below: the tables from :func:`strength_tables`.

    Returns:
        ``(M, n)`` float64 probabilities, rows summing to 1.
    """
    rows = np.asarray(rows)
    m_total, n = rows.shape
    out = np.empty((m_total, n))
    # For every (tied set T, arguing set A) pair, each seat is out of A (code 0),
    # in A but below the top (code 1) or tied at the top (code 2): a base-3 index.
    masks = sorted(range(1, 1 << n), key=lambda a: (bin(a).count("1"), a))
    subsets = {a: [t for t in range(1, a + 1) if t & a == t] for a in masks}

    def code(tied: int, group: int) -> int:
        c = 0
        for j in range(n):
            c = c * 3 + (2 if tied >> j & 1 else 1 if group >> j & 1 else 0)
        return c

    codes = {(t, a): code(t, a) for a in masks for t in subsets[a]}
    for start in range(0, m_total, chunk):
        block = rows[start : start + chunk]
        size = len(block)
        q = np.zeros((size, 3**n))
        for m in range(6):
            g = np.ones((size, 1))
            for j in range(n):
                factor = np.stack([np.ones(size), below[block[:, j], m], eq[block[:, j], m]], axis=1)
                g = (g[:, :, None] * factor[:, None, :]).reshape(size, -1)
            q += g
        win = {}
        for a in masks:
            members = [j for j in range(n) if a >> j & 1]
            w = np.zeros((size, n))
            if len(members) == 1:
                w[:, members[0]] = 1.0
                win[a] = w
                continue
            for t in subsets[a]:
                if t == a:
                    continue
                w += q[:, codes[(t, a)], None] * win[t]
            w /= (1.0 - q[:, codes[(a, a)]])[:, None]
            win[a] = w
        out[start : start + size] = win[(1 << n) - 1]
    return out
