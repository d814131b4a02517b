"""Observation encodings shared by the jeopardy games (Pig, Zombie Dice).

A network with a few dozen ReLU units draws a smooth function of a score well, but the
optimal hold boundaries of these games are jagged in the scores (a point more or less
changes the decision).  Sines and cosines of each score at several frequencies, added to
the observation, let a small network draw them: Pig's 2x64 network fitted to the optimum
scores -0.00004 with them and -0.002 without (``experiments/diagnose_pig_capacity.py``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["FOURIER_FREQUENCIES", "fourier_bounds", "fourier_features"]

#: Frequencies ``f`` of the Fourier features, ``sin`` and ``cos`` of ``pi f x`` for ``x`` a score over the goal.
FOURIER_FREQUENCIES = (1, 2, 4, 8, 16)


def fourier_features(signals: np.ndarray) -> np.ndarray:
    """``sin(pi f x)`` then ``cos(pi f x)`` for ``f`` in :data:`FOURIER_FREQUENCIES` and ``x``
    each of the last axis of ``signals`` (scores over the goal): ``signals``'s shape with the
    last axis ``s`` replaced by ``2 * len(FOURIER_FREQUENCIES) * s`` float32 values, sines
    first, then by frequency, then by signal."""
    signals = np.asarray(signals, np.float32)
    angles = np.pi * signals[..., None, :] * np.asarray(FOURIER_FREQUENCIES, np.float32)[:, None]
    waves = np.stack([np.sin(angles), np.cos(angles)], axis=-3)
    return waves.reshape(signals.shape[:-1] + (-1,)).astype(np.float32)


def fourier_bounds(num_signals: int):
    """``(low, high)`` of :func:`fourier_features` of ``num_signals`` signals: -1 and 1."""
    size = 2 * len(FOURIER_FREQUENCIES) * num_signals
    return np.full(size, -1, np.float32), np.ones(size, np.float32)
