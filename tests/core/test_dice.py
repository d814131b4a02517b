"""The exact dice algebra: distributions checked against brute-force enumeration."""

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dice_envs.core.dice import (
    Die,
    Sampler,
    d,
    draw_counts,
    enumerate_rolls,
    roll_counts,
    roll_pool,
    total_distribution,
)

weights = st.lists(st.integers(0, 5), min_size=2, max_size=4).filter(lambda w: sum(w) > 0)


@given(weights, st.integers(0, 4))
def test_roll_counts_match_enumeration(ws, n):
    die = Die(tuple(range(len(ws))), ws)
    exact = dict(roll_counts(die, n))
    brute = Counter()
    for faces, p in enumerate_rolls([die] * n):
        brute[tuple(faces.count(f) for f in die.faces)] += p
    assert sum(exact.values()) == 1
    assert exact == {k: v for k, v in brute.items() if v}


@given(st.lists(st.integers(0, 4), min_size=1, max_size=3).filter(lambda c: sum(c) > 0), st.data())
def test_draw_counts_is_hypergeometric(cup, data):
    k = data.draw(st.integers(0, sum(cup)))
    dist = dict(draw_counts(tuple(cup), k))
    assert sum(dist.values()) == 1
    # Brute force: draw k distinct labelled items.
    import itertools

    items = [kind for kind, c in enumerate(cup) for _ in range(c)]
    combos = list(itertools.combinations(range(len(items)), k))
    brute = Counter(tuple(sum(items[i] == kind for i in combo) for kind in range(len(cup))) for combo in combos)
    assert dist == {key: Fraction(v, len(combos)) for key, v in brute.items()}


def test_two_d6_totals():
    dist = total_distribution([d(6), d(6)])
    assert dist[7] == Fraction(1, 6) and dist[2] == Fraction(1, 36) and sum(dist.values()) == 1


def test_roll_pool_groups_identical_dice():
    a, b = d(2), d(3)
    dist = dict(roll_pool([a, b, a]))
    assert sum(dist.values()) == 1
    assert dist[((2, 0), (1, 0, 0))] == Fraction(1, 4) * Fraction(1, 3)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(faces=()), "at least one face"),
        (dict(faces=(1, 1)), "distinct"),
        (dict(faces=(1, 2), weights=(1,)), "2 faces but 1 weights"),
        (dict(faces=(1, 2), weights=(1, -1)), "non-negative"),
        (dict(faces=(1, 2), weights=(0, 0)), "not all be zero"),
    ],
)
def test_bad_dice_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Die(**kwargs)


def test_loaded_die_and_errors():
    die = d(6).loaded(6, Fraction(5, 4))
    assert die.probability(6) == Fraction(5, 4) / Fraction(25, 4)
    with pytest.raises(ValueError, match="no face 7"):
        d(6).loaded(7, 2)
    with pytest.raises(ValueError, match="positive integer"):
        d(0)


def test_sampler_frequencies_match_probabilities():
    dist = roll_counts(Die(("a", "b", "c"), (3, 1, 2)), 2)
    sampler = Sampler(dist)
    rng = np.random.default_rng(0)
    n = 60_000
    counts = Counter(sampler.sample(rng) for _ in range(n))
    for outcome, p in dist:
        sd = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(counts[outcome] / n - float(p)) < 5 * sd


def test_sampler_rejects_bad_distribution():
    with pytest.raises(ValueError, match="sum to 1"):
        Sampler([("a", Fraction(1, 2))])


@settings(max_examples=60)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=4).filter(lambda w: sum(w) > 0), st.data())
def test_order_statistic_matches_enumeration(ws, data):
    from dice_envs.core.dice import order_statistic

    die = Die(tuple(range(1, len(ws) + 1)), ws)
    n = data.draw(st.integers(1, 4))
    k = data.draw(st.integers(1, n))
    brute = Counter()
    for faces, p in enumerate_rolls([die] * n):
        brute[sorted(faces)[k - 1]] += p
    exact = dict(order_statistic(die, n, k))
    assert sum(exact.values()) == 1
    assert exact == {key: v for key, v in brute.items() if v}


def test_order_statistic_bad_arguments():
    from dice_envs.core.dice import order_statistic

    with pytest.raises(ValueError, match="k must be"):
        order_statistic(d(6), 3, 4)
    with pytest.raises(ValueError, match="number of dice"):
        order_statistic(d(6), 0, 1)
