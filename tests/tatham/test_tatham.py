"""Tatham's dice (seed 001): the faces as the seed defines them, its claims proved by
enumeration, and the exact fault sensitivity."""

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dice_envs.core.dice import Die
from dice_envs.games.tatham import dice as T


def two_d6_ways(t):
    return 6 - abs(7 - t)


def test_faces_are_the_seeds():
    assert sorted(T.EVEN.faces) == [2, 4, 6, 8, 10, 12]
    assert set(T.ODD.faces) == {7, 5, 9, 3, 11, T.BLANK}
    assert set(T.ODD_D5.faces) == {3, 5, 9, 11, T.BLANK}  # the odd die without its 7 face
    assert Counter(T.label(f) for f in T.ODD_D10.faces) == {3: 2, 5: 2, 9: 2, 11: 2, T.BLANK: 2}
    seed_d30 = "2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6, 8, 8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 11, 11, 12"
    assert [T.label(f) for f in T.D30.faces] == [int(x) for x in seed_d30.split(", ")]
    # "six dots on the 7, five on the 6 and the 8, ..., one on the 2 and the 12, nothing on the blank"
    assert {f: T.dots(f) for f in (7, 6, 8, 5, 9, 4, 10, 3, 11, 2, 12, T.BLANK)} == {
        7: 6, 6: 5, 8: 5, 5: 4, 9: 4, 4: 3, 10: 3, 3: 2, 11: 2, 2: 1, 12: 1, T.BLANK: 0}
    # "2, 4, 6, 8, 10 and 12 are annotated with the numbers 1, 2, 3, 4, 5 and 6"; +1, +2, -1, -2 on 3, 5, 11, 9
    assert T.EVEN_RED == {2: 1, 4: 2, 6: 3, 8: 4, 10: 5, 12: 6}
    assert {f: T.ODD_SHIFT[f] for f in (T.BLANK, 3, 5, 11, 9)} == {T.BLANK: 0, 3: 1, 5: 2, 11: -1, 9: -2}


def test_even_odd_pair_is_2d6_by_brute_force():
    """36 face pairs, counted by hand: each total t comes up in 6 - |7 - t| of them."""
    counts = Counter(T.tatham_total(e, o) for e, o in itertools.product(T.EVEN_FACES, T.ODD_FACES))
    assert counts == {t: two_d6_ways(t) for t in range(2, 13)}
    no7 = Counter(T.tatham_total(e, o) for e, o in itertools.product(T.EVEN_FACES, T.NO_SEVEN_FACES))
    assert no7 == {t: two_d6_ways(t) for t in range(2, 13) if t != 7}


def test_red_numbers_by_brute_force():
    """Every (total, red) cell of two ordinary dice appears exactly once among the 36 pairs."""
    cells = Counter((T.tatham_total(e, o), T.red_number(e, o)) for e, o in itertools.product(T.EVEN_FACES, T.ODD_FACES))
    ordinary = Counter((r + w, r) for r in range(1, 7) for w in range(1, 7))
    assert cells == ordinary


def test_every_check_passes():
    results = T.checks()
    assert len(results) >= 15
    failed = [c["check"] for c in results if not c["passed"]]
    assert not failed


def test_checks_can_fail():
    """A wrong annotation (3 and 5 swapped) is caught: the joint distribution is no longer exact."""
    wrong = {**T.ODD_SHIFT, 3: +2, 5: +1}
    mech = T.Mechanism("wrong", "", (T.EVEN, T.ODD), lambda f: (T.tatham_total(*f), T.red_number(*f, wrong)), True, True)
    assert T.totals(mech) == T.target_totals(True)
    assert T.distribution(mech) != T.target_joint(True)


def test_exact_distributions_of_every_mechanism():
    for key, mech in T.MECHANISMS.items():
        dist = T.totals(mech)
        assert sum(dist.values()) == 1
        assert dist == T.target_totals(mech.rolls_seven), key
        if mech.has_red:
            assert T.distribution(mech) == T.target_joint(mech.rolls_seven), key


def test_symmetric_red_grid_is_circulant():
    assert T.red_grid(T.SYMMETRIC_SHIFT) == [[(r + c) % 6 + 1 for c in range(6)] for r in range(6)]
    # The seed's dice leave the 7 face unannotated: only the 7 column differs.
    grid = T.red_grid()
    assert [row[3] for row in grid] == [1, 2, 3, 4, 5, 6]


def test_fault_sensitivity_exact_values():
    """Worked by hand for one face 25% heavier (weight x 5/4, then renormalised)."""
    m = T.MECHANISMS
    f = Fraction(5, 4)
    # Tatham: loading the 7 face moves P(7) from 1/6 to 1/5 and nothing else: TV = 1/30.
    assert T.fault_sensitivity(m["tatham"], f).total_variation == Fraction(1, 30)
    # 2d6: the loaded die's error is spread by the other die: TV = 1/60.
    assert T.fault_sensitivity(m["2d6"], f).total_variation == Fraction(1, 60)
    # d30: one face goes from 1/30 to 5/121, the 29 others to 4/121: TV = 29/3630.
    assert T.fault_sensitivity(m["d30"], f).total_variation == Fraction(29, 3630)
    # The whole error of the even die reaches the totals: 6 and 8 off by 20% (1/5 vs 1/6).
    s = T.fault_sensitivity(m["tatham_no7_d5"], f)
    assert s.relative_error_by_total[6] == s.relative_error_by_total[8] == Fraction(1, 5)
    assert T.fault_sensitivity(m["2d6"], f).relative_error_by_total[6] == Fraction(1, 25)
    # With paired faces, loading one face of a pair hurts 3, 5, 9, 11 half as much as on the d5.
    d10 = T.fault_sensitivity(m["tatham_no7_d10"], f).relative_error_by_total
    d5 = T.fault_sensitivity(m["tatham_no7_d5"], f).relative_error_by_total
    assert all(d10[t] < d5[t] for t in (3, 5, 9, 11))
    # A fair "load" changes nothing.
    assert T.fault_sensitivity(m["tatham"], 1).total_variation == 0


def test_two_d6_spreads_one_faces_error():
    """The seed: one die more likely to roll 3 makes 4..9 more likely.  Exactly, 7 is
    unchanged (P(7) = 1/6 whatever one die does) and 4, 5, 6, 8, 9 gain."""
    change = T.two_d6_one_face_loaded(3, Fraction(5, 4))
    assert sum(change.values()) == 0
    assert {t for t, c in change.items() if c > 0} == {4, 5, 6, 8, 9}
    assert change[7] == 0


weights6 = st.lists(st.integers(1, 20), min_size=6, max_size=6)


@settings(max_examples=40, deadline=None)
@given(even=weights6, odd=weights6)
def test_any_imperfect_even_die_passes_straight_through(even, odd):
    """For any weights, P(total 8)/P(total 6) equals the even die's P(8 face)/P(6 face),
    and with ordinary dice P(7) stays 1/6 however one die is loaded."""
    even_die = Die(T.EVEN_FACES, even, name="even")
    odd_die = Die(T.ODD_FACES, odd, name="odd")
    dist = T.totals(T.MECHANISMS["tatham"], (even_die, odd_die))
    assert sum(dist.values()) == 1
    assert dist[8] / dist[6] == even_die.probability(8) / even_die.probability(6)
    plain = T.totals(T.MECHANISMS["2d6"], (Die(tuple(range(1, 7)), even), T.WHITE_D6))
    assert plain[7] == Fraction(1, 6)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: T.report(-1), "load"),
        (lambda: T.report("heavy"), "load"),
        (lambda: T.fault_sensitivity(T.MECHANISMS["d30"], 0), "load factor"),
        (lambda: T.fault_sensitivity(T.MECHANISMS["d30"], "x"), "load factor"),
        (lambda: T.dots(13), "Tatham face"),
        (lambda: T.distribution(T.MECHANISMS["tatham"], (T.EVEN,)), "rolls 2 dice"),
    ],
)
def test_bad_arguments_raise_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_report_is_exact_and_complete():
    report = T.report(Fraction(1, 4))
    assert report["all_checks_passed"] and report["load_factor"] == "5/4"
    rows = {row["mechanism"]: row for row in report["sensitivity"]}
    assert set(rows) == set(T.MECHANISMS)
    assert rows["tatham"]["total_variation_exact"] == "1/30"
    assert set(rows["2d6"]["max_relative_error_by_total"]) == {str(t) for t in range(2, 13)}
