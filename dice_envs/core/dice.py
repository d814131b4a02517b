"""Exact dice algebra: dice with arbitrary faces and weights, and the exact
distributions of rolling several of them or drawing them from a cup.

Every probability that a solver in this project uses comes from here, and the
environments sample from the same objects, so the two cannot drift apart.

Distributions are lists of ``(outcome, probability)`` pairs whose probabilities
are :class:`fractions.Fraction` and sum to exactly 1.  Use :func:`as_floats` to
turn them into numpy arrays for vectorised solvers, and :class:`Sampler` to draw
from them quickly with a :class:`numpy.random.Generator`.

Example::

    >>> from dice_envs.core.dice import Die, roll_counts
    >>> yellow = Die(("brain", "shotgun", "footprints"), (2, 2, 2), name="yellow")
    >>> dist = dict(roll_counts(yellow, 3))
    >>> dist[(1, 1, 1)]
    Fraction(2, 9)
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Hashable, Iterable, Sequence, Tuple, TypeVar, Union

import numpy as np

from dice_envs.core.validation import check_int

Outcome = TypeVar("Outcome", bound=Hashable)
Distribution = list  # list[tuple[Outcome, Fraction]]

__all__ = [
    "Die",
    "Sampler",
    "as_floats",
    "combine",
    "d",
    "draw_counts",
    "order_statistic",
    "roll_counts",
    "roll_pool",
    "total_distribution",
]


def _as_fraction(weight) -> Fraction:
    if isinstance(weight, float):
        # Exact binary value; callers who care pass ints or Fractions.
        return Fraction(weight)
    return Fraction(weight)


@dataclass(frozen=True)
class Die:
    """A die with named (or numbered) faces and non-negative weights.

    Args:
        faces: the distinct face labels, in a fixed order.  Faces may be any
            hashable values (numbers for totals, strings for symbols).
        weights: one non-negative weight per face (ints, Fractions or floats);
            they are normalised, so ``(3, 1, 2)`` means 3/6, 1/6 and 2/6.  A die
            with six sides showing three brains is ``weights=(3, 1, 2)``.
        name: a label used in messages and renders.

    Raises:
        ValueError: if faces repeat, lengths differ, a weight is negative, or all
            weights are zero.
    """

    faces: Tuple[Hashable, ...]
    weights: Tuple[Fraction, ...] = ()  # normalised by __post_init__: exact, summing to 1
    name: str = "die"

    if TYPE_CHECKING:  # what the generated __init__ accepts: weights as ints, Fractions or floats
        def __init__(self, faces: Tuple[Hashable, ...], weights: Sequence[Union[Fraction, float]] = (),
                     name: str = "die") -> None: ...

    def __post_init__(self):
        faces = tuple(self.faces)
        if not faces:
            raise ValueError("Die needs at least one face")
        if len(set(faces)) != len(faces):
            raise ValueError(f"Die faces must be distinct, got {faces!r}")
        weights = tuple(self.weights) if self.weights else (1,) * len(faces)
        if len(weights) != len(faces):
            raise ValueError(
                f"Die has {len(faces)} faces but {len(weights)} weights"
            )
        fractions = tuple(_as_fraction(w) for w in weights)
        if any(w < 0 for w in fractions):
            raise ValueError(f"Die weights must be non-negative, got {weights!r}")
        total = sum(fractions)
        if total == 0:
            raise ValueError("Die weights must not all be zero")
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "weights", tuple(w / total for w in fractions))

    @property
    def probabilities(self) -> Tuple[Fraction, ...]:
        """Exact probability of each face, in face order (sums to 1)."""
        return self.weights

    def distribution(self) -> Distribution:
        """``[(face, probability), ...]`` for one roll, zero-weight faces dropped."""
        return [(f, p) for f, p in zip(self.faces, self.weights) if p > 0]

    def probability(self, face) -> Fraction:
        """Exact probability of rolling ``face`` (0 for a face the die lacks)."""
        try:
            return self.weights[self.faces.index(face)]
        except ValueError:
            return Fraction(0)

    def loaded(self, face, factor) -> "Die":
        """A copy whose ``face`` has its weight multiplied by ``factor``.

        ``die.loaded(6, Fraction(5, 4))`` makes the six 25% more likely before
        renormalising: the usual model of a slightly unfair die.
        """
        if face not in self.faces:
            raise ValueError(f"{self.name} has no face {face!r}; faces are {self.faces}")
        factor = _as_fraction(factor)
        if factor < 0:
            raise ValueError(f"load factor must be non-negative, got {factor}")
        weights = tuple(w * factor if f == face else w for f, w in zip(self.faces, self.weights))
        return Die(self.faces, weights, name=f"{self.name}*")

    def sample(self, rng: np.random.Generator, size=None):
        """Roll with ``rng``; returns a face (or an array of face indices if ``size``)."""
        probs = np.array([float(p) for p in self.weights])
        if size is None:
            return self.faces[int(rng.choice(len(self.faces), p=probs))]
        return rng.choice(len(self.faces), size=size, p=probs)

    def __str__(self) -> str:
        return self.name


def d(sides: int, name: str | None = None) -> Die:
    """A fair die numbered ``1..sides`` (``d(6)`` is the ordinary cube)."""
    check_int("sides", sides, 1)
    return Die(tuple(range(1, sides + 1)), name=name or f"d{sides}")


@lru_cache(maxsize=4096)
def roll_counts(die: Die, n: int) -> Distribution:
    """Exact distribution of face *counts* when rolling ``n`` copies of ``die``.

    Outcomes are tuples ``(c_0, ..., c_{k-1})`` counting each face in
    ``die.faces`` order; their probabilities are multinomial and sum to 1.
    """
    if n < 0:
        raise ValueError(f"number of dice must be >= 0, got {n}")
    k = len(die.faces)
    out = []
    for counts in _compositions(n, k):
        coef = math.factorial(n)
        p = Fraction(1)
        for c, w in zip(counts, die.weights):
            coef //= math.factorial(c)
            p *= w**c
        if p:
            out.append((counts, coef * p))
    return out


def _compositions(n: int, k: int) -> Iterable[Tuple[int, ...]]:
    """All tuples of ``k`` non-negative ints summing to ``n``, in lexicographic order."""
    if k == 1:
        yield (n,)
        return
    for first in range(n, -1, -1):
        for rest in _compositions(n - first, k - 1):
            yield (first,) + rest


def roll_pool(dice: Sequence[Die]) -> Distribution:
    """Exact distribution of rolling a pool of (possibly different) dice.

    Identical dice are grouped, so the outcome is a tuple with one entry per
    distinct die (in order of first appearance): that die type's face counts.
    """
    groups = Counter(dice)
    order = list(dict.fromkeys(dice))
    parts = [roll_counts(die, groups[die]) for die in order]
    return combine(parts)


def combine(parts: Sequence[Distribution]) -> Distribution:
    """Product distribution of independent parts; outcomes are tuples of parts."""
    out: Distribution = [((), Fraction(1))]
    for part in parts:
        out = [(o + (x,), p * q) for o, p in out for x, q in part]
    return out


@lru_cache(maxsize=4096)
def draw_counts(cup: Tuple[int, ...], k: int) -> Distribution:
    """Exact distribution of drawing ``k`` items without replacement from a cup.

    ``cup[c]`` is how many items of kind ``c`` the cup holds.  Outcomes are
    tuples of how many of each kind were drawn (multivariate hypergeometric).
    """
    cup = tuple(int(c) for c in cup)
    if any(c < 0 for c in cup):
        raise ValueError(f"cup counts must be non-negative, got {cup}")
    if not 0 <= k <= sum(cup):
        raise ValueError(f"cannot draw {k} from a cup of {sum(cup)}")
    total = math.comb(sum(cup), k)
    out = []
    for counts in _compositions(k, len(cup)):
        ways = math.prod(math.comb(c, x) for c, x in zip(cup, counts))
        if ways:
            out.append((counts, Fraction(ways, total)))
    return out


@lru_cache(maxsize=4096)
def order_statistic(die: Die, n: int, k: int) -> Distribution:
    """Exact distribution of the ``k``-th lowest face when rolling ``n`` copies of ``die``.

    ``k = 1`` is the minimum and ``k = n`` the maximum; the faces must be
    orderable (numbers).  Uses ``P(X_(k) <= v) = P(at least k dice show <= v)``,
    a binomial tail, so it is exact and fast for any ``n``.  Outcomes are the
    faces in increasing order (zero-probability faces dropped).
    """
    n = check_int("number of dice", n, 1)
    check_int("k", k, 1, n)
    out = []
    below = Fraction(0)  # P(one die <= previous face)
    tail_prev = Fraction(0)  # P(X_(k) <= previous face)
    for face, p in sorted(die.distribution()):
        below += p
        tail = sum(
            (math.comb(n, j) * below**j * (1 - below) ** (n - j) for j in range(k, n + 1)), Fraction(0)
        )
        if tail > tail_prev:
            out.append((face, tail - tail_prev))
        tail_prev = tail
    return out


def total_distribution(dice: Sequence[Die]) -> dict:
    """Exact distribution of the *sum* of numeric faces over independent dice.

    Returns ``{total: Fraction}`` sorted by total.
    """
    dist = {0: Fraction(1)}
    for die in dice:
        new: dict = {}
        for t, p in dist.items():
            for f, q in die.distribution():
                new[t + f] = new.get(t + f, Fraction(0)) + p * q
        dist = new
    return dict(sorted(dist.items()))


def as_floats(dist: Distribution) -> Tuple[list, np.ndarray]:
    """Split a distribution into ``(outcomes, float64 probabilities)``."""
    outcomes = [o for o, _ in dist]
    return outcomes, np.array([float(p) for _, p in dist], dtype=np.float64)


class Sampler:
    """Fast repeated sampling from a fixed exact distribution.

    Builds the cumulative table once; each :meth:`sample` is one uniform draw and
    a binary search, which is what the environments use on every roll.
    """

    __slots__ = ("outcomes", "cumulative")

    def __init__(self, dist: Distribution):
        if not dist:
            raise ValueError("cannot sample from an empty distribution")
        total = sum(p for _, p in dist)
        if total != 1:
            raise ValueError(f"probabilities must sum to 1, got {total}")
        self.outcomes, probs = as_floats(dist)
        self.cumulative = np.cumsum(probs)
        self.cumulative[-1] = 1.0

    def sample(self, rng: np.random.Generator):
        i = int(np.searchsorted(self.cumulative, rng.random(), side="right"))
        return self.outcomes[min(i, len(self.outcomes) - 1)]


def enumerate_rolls(dice: Sequence[Die]) -> Iterable[Tuple[tuple, Fraction]]:
    """Every ordered face tuple of ``dice`` with its exact probability.

    The brute-force counterpart of :func:`roll_pool`, used to prove identities by
    enumeration (feasible for a handful of dice).
    """
    for combo in itertools.product(*(die.distribution() for die in dice)):
        faces = tuple(f for f, _ in combo)
        yield faces, math.prod((p for _, p in combo), start=Fraction(1))
