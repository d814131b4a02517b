"""Certified value intervals (:mod:`dice_envs.agents.solve.interval`): the digits a table prints are the
rounding of every value in the interval, and bad intervals are refused."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dice_envs.agents.solve.interval import ROUNDING_ALLOWANCE, format_value, supported_digits, value_interval

unit = st.floats(-1, 1, allow_nan=False)


@given(unit, unit, st.floats(0, 1))
def test_every_value_of_the_interval_rounds_to_the_printed_digits(a, b, t):
    lower, upper = min(a, b), max(a, b)
    inside = lower + t * (upper - lower)
    digits = supported_digits(lower, upper)
    if digits is None:  # no decimal is shared with a non-zero digit: the table prints the interval
        assert format_value(lower, upper).startswith("[")
        return
    decimals = len(digits.split(".")[1])
    assert f"{min(max(inside, lower), upper):+.{decimals}f}" == digits
    assert digits.strip("+-0.")  # never a bare -0.0
    if decimals < 6:  # one more decimal would not be shared
        assert f"{lower:+.{decimals + 1}f}" != f"{upper:+.{decimals + 1}f}"


def test_the_published_values_print_as_their_digits():
    # Thomas Ahle's exact 1v2 aces value, -5/54 = -0.0925926, in an interval a 1e-4 solve gives
    assert format_value(-0.092758, -0.092566) == "-0.093"
    assert format_value(-0.0925940, -0.0925740) == "-0.0926"
    assert format_value(-0.0925928, -0.0925926) == "-0.092593"
    assert format_value(0.1, 0.2, exact=Fraction(-7, 258)) == "-7/258"
    assert format_value(-0.035, -0.017) == "[-0.035000, -0.017000]"
    assert format_value(0.4999, 0.5001, sign=False) == "0.500"


def test_the_interval_is_minus_one_best_response_to_the_other():
    lower, upper = value_interval((-0.0925, 0.0927))
    assert (lower, upper) == pytest.approx((-0.0927, -0.0925), abs=2 * ROUNDING_ALLOWANCE)
    assert lower < -0.0927 and upper > -0.0925
    with pytest.raises(ValueError, match="bound no interval"):
        value_interval((-0.2, 0.1))  # a NashConv below zero: not best responses to one profile
    with pytest.raises(ValueError, match="lower <= upper"):
        supported_digits(0.2, 0.1)
