"""Certified intervals for the value of a two-player zero-sum game, and the digits they support.

Any strategy profile ``(x, y)`` bounds the game's value ``v*`` from both sides, whatever its quality:
player 1's best response to ``x`` holds player 0 to at most ``v*``, and player 0's best response to
``y`` gets at least ``v*``::

    -br1(x)  <=  v*  <=  br0(y)

where ``br0`` is player 0's best-response value against ``y`` and ``br1`` player 1's against ``x``
(so ``br0 + br1`` is the profile's NashConv, twice its exploitability). Every iterative solve
(CFR+, the whole game of Liar's Dice built from its rounds, Closest Number's round LPs) computes both
best responses to report its exploitability; :func:`value_interval` turns them into the interval its
reports carry as ``value_interval``, and :func:`supported_digits` / :func:`format_value` print only
the digits that the interval supports.

Example:
    >>> lower, upper = value_interval((-0.09257, 0.09259))
    >>> format_value(lower, upper)
    '-0.0926'
    >>> format_value(*value_interval((0.25, -0.25)), exact="1/4")
    '1/4'
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional, Sequence, Tuple, Union

#: Added on each side of an interval computed in floating point: the best responses are sums of
#: products of probabilities and payoffs in [-1, 1], computed in float64, so their rounding error
#: is many orders of magnitude below this.
ROUNDING_ALLOWANCE = 1e-12


def value_interval(best_response_values: Sequence[float]) -> Tuple[float, float]:
    """Player 0's certified interval for the game's value, from the two best-response values
    ``(br0, br1)`` (player 0's against player 1's part of a profile, player 1's against player
    0's; each in its own player's payoff): ``(-br1, br0)``, widened by :data:`ROUNDING_ALLOWANCE`.

    Raises:
        ValueError: if the two values do not bound an interval (``-br1 > br0``: the best responses
            are not best responses to the same profile).
    """
    br0, br1 = (float(v) for v in best_response_values)
    lower, upper = -br1 - ROUNDING_ALLOWANCE, br0 + ROUNDING_ALLOWANCE
    if not lower <= upper:
        raise ValueError(f"best-response values {br0!r} and {br1!r} bound no interval: their sum (the NashConv) "
                         f"must be non-negative")
    return lower, upper


def supported_digits(lower: float, upper: float, *, max_decimals: int = 6, sign: bool = True) -> Optional[str]:
    """The value rounded to the most decimals (at most ``max_decimals``) at which both ends of
    ``[lower, upper]`` round alike, so every number of the interval, the exact value among them, rounds
    to the string returned; ``None`` where no such rounding has a non-zero digit (print the interval
    then: ``-0.0`` would say little).

    Rounding is monotone, so when both ends give the same string, so does everything between them.
    """
    if not lower <= upper:
        raise ValueError(f"an interval needs lower <= upper, got [{lower!r}, {upper!r}]")
    for decimals in range(max_decimals, 0, -1):
        low = f"{lower:{'+' if sign else ''}.{decimals}f}"
        if low == f"{upper:{'+' if sign else ''}.{decimals}f}":
            return low if low.strip("+-0.") else None
    return None


def format_value(lower: float, upper: float, *, exact: Union[str, Fraction, None] = None, max_decimals: int = 6,
                 sign: bool = True) -> str:
    """How a table prints a value known to lie in ``[lower, upper]``: the exact fraction where one is
    proven (``exact``), else :func:`supported_digits`, else the interval itself."""
    if exact is not None:
        return str(exact)
    digits = supported_digits(lower, upper, max_decimals=max_decimals, sign=sign)
    if digits is not None:
        return digits
    return f"[{lower:{'+' if sign else ''}.{max_decimals}f}, {upper:{'+' if sign else ''}.{max_decimals}f}]"


def read_value(text: str) -> Tuple[float, float]:
    """The interval a printed value stands for, the inverse of :func:`format_value`: a fraction is
    exact, ``d`` digits after the point stand for the numbers that round to them (half a unit of the
    last digit either side), and ``[a, b]`` for itself.

    Raises:
        ValueError: for text :func:`format_value` does not print.
    """
    text = text.strip()
    try:
        if text.startswith("[") and text.endswith("]"):
            lower, upper = (float(part) for part in text[1:-1].split(","))
            return lower, upper
        if "/" in text or "." not in text:
            exact = float(Fraction(text))
            return exact, exact
        half_unit = 0.5 * 10.0 ** -len(text.split(".")[1])
        return float(text) - half_unit, float(text) + half_unit
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{text!r} is not a value as format_value prints it (a fraction, digits, or [a, b])") from None


def as_win_probability(interval: Sequence[float]) -> Tuple[float, float]:
    """A +1/-1 value's interval as the probability of winning, ``(1 + v) / 2``."""
    lower, upper = interval
    return (1.0 + lower) / 2.0, (1.0 + upper) / 2.0
