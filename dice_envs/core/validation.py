"""Argument checks shared by every game, env, solver and command.

One helper per kind of value, each raising ``ValueError`` that names the argument,
what is allowed and what was given.  The rules they enforce everywhere:

* a bool is not an integer (``goal=True`` is refused although ``True == 1``);
* a float is not an integer, even ``2.0``, and not an action (``step(0.7)`` is
  refused, not played as 0);
* strings are not numbers (``"1"`` is refused);
* non-finite numbers (``inf``, ``nan``) are refused wherever a number is expected.

Integers may be Python or numpy integers (also 0-d integer arrays, as a policy's
``predict`` returns them).
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Iterable, Optional

import numpy as np

__all__ = ["check_int", "check_optional_int", "check_bool", "check_real", "check_choice", "as_action",
           "describe"]


def describe(value) -> str:
    """``repr(value)`` with its type, for error messages (``True (bool)``)."""
    return f"{value!r} ({type(value).__name__})"


def _integer(value) -> Optional[int]:
    """``value`` as an int if it is an integer and not a bool, else None."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        return None
    return int(value)


def _int_range(low: Optional[int], high: Optional[int]) -> str:
    if low is not None and high is not None:
        return f"an integer from {low} to {high}"
    if low == 1:
        return "a positive integer"
    if low == 0:
        return "a non-negative integer"
    if low is not None:
        return f"an integer >= {low}"
    return "an integer" if high is None else f"an integer <= {high}"


def check_int(name: str, value, low: Optional[int] = None, high: Optional[int] = None) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (either bound may be None), or ``ValueError``
    ("goal must be a positive integer, got True (bool)")."""
    out = _integer(value)
    if out is None or (low is not None and out < low) or (high is not None and out > high):
        shown = describe(value) if out is None else out
        raise ValueError(f"{name} must be {_int_range(low, high)}, got {shown}")
    return out


def check_optional_int(name: str, value, low: Optional[int] = None, high: Optional[int] = None) -> Optional[int]:
    """As :func:`check_int`, with ``None`` allowed (and returned)."""
    return None if value is None else check_int(name, value, low, high)


def check_bool(name: str, value) -> bool:
    """``value`` if it is ``True`` or ``False`` (numpy bools too), else ``ValueError``
    (``"no"``, ``0`` and ``None`` are refused)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def check_real(name: str, value, low: Optional[float] = None, high: Optional[float] = None,
               low_open: bool = False, high_open: bool = False) -> float:
    """``value`` as a finite ``float`` in the given range (open ends with ``*_open``), or
    ``ValueError``.  Bools and strings are refused; integers are accepted."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {describe(value)}")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be a finite number, got {out}")
    too_low = low is not None and (out <= low if low_open else out < low)
    too_high = high is not None and (out >= high if high_open else out > high)
    if too_low or too_high:
        parts = []
        if low is not None:
            parts.append(f"{'>' if low_open else '>='} {low}")
        if high is not None:
            parts.append(f"{'<' if high_open else '<='} {high}")
        raise ValueError(f"{name} must be {' and '.join(parts)}, got {out}")
    return out


def check_choice(name: str, value, choices: Iterable):
    """``value`` if it is one of ``choices`` (of the same type: ``True`` is not ``1``), else
    ``ValueError`` listing them."""
    choices = tuple(choices)

    def same(c) -> bool:
        if isinstance(value, (bool, np.bool_)) != isinstance(c, (bool, np.bool_)):
            return False
        return isinstance(value, type(c)) and value == c

    if not any(same(c) for c in choices):
        raise ValueError(f"{name} must be one of {list(choices)}, got {describe(value)}")
    return value


def as_action(action) -> Optional[int]:
    """``action`` as an int if it is an integer action (Python or numpy integer, or a 0-d
    integer array), else None: bools, floats, strings and arrays of other shapes are not
    actions.  Range and legality are the caller's to check."""
    return _integer(action)
