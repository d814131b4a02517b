"""What the jeopardy games (Pig, Zombie Dice) share: their two actions and their observation encodings.

A network with a few dozen ReLU units draws a smooth function of a score well, but the
optimal hold boundaries of these games are jagged in the scores (a point more or less
changes the decision).  Sines and cosines of each score at several frequencies, added to
the observation, let a small network draw them: Pig's 2x64 network fitted to the optimum
scores -0.00004 with them and -0.002 without (``experiments/diagnose_pig_capacity.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Tuple

import numpy as np

__all__ = ["ENCODINGS", "EncodedObservations", "FOURIER_FREQUENCIES", "HOLD", "ROLL", "fourier_bounds",
           "fourier_features"]

#: A jeopardy game's two actions: bank the turn's points, or roll again.
HOLD, ROLL = 0, 1

#: The encodings of a jeopardy game's observation vector (:meth:`EncodedObservations.encoded_observation`).
ENCODINGS = ("full", "scaled", "fourier")

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


class EncodedObservations:
    """The encodings of :data:`ENCODINGS` for a game (mixed into :class:`dice_envs.games.pig.rules.PigGame` and
    :class:`dice_envs.games.zombie_dice.rules.ZombieDiceGame`) that defines ``observation_bounds``,
    ``scaled_observation``, ``fourier_observation`` (the scaled vector followed by
    :func:`fourier_features` of ``fourier_signals`` signals) and ``fourier_signals``."""

    fourier_signals: int  # how many signals the Fourier waves are of

    if TYPE_CHECKING:
        def observation_bounds(self) -> Tuple[np.ndarray, np.ndarray]: ...

        def scaled_observation(self, observation: np.ndarray) -> np.ndarray: ...

        def fourier_observation(self, observation: np.ndarray) -> np.ndarray: ...

    def scaled_bounds(self) -> Tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` of ``scaled_observation``."""
        low, high = self.observation_bounds()
        return self.scaled_observation(low), self.scaled_observation(high)

    def fourier_bounds(self) -> Tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` of ``fourier_observation``: the scaled bounds, then -1 and 1 for the waves."""
        low, high = self.scaled_bounds()
        wave_low, wave_high = fourier_bounds(self.fourier_signals)
        return np.concatenate([low, wave_low]), np.concatenate([high, wave_high])

    def encoded_observation(self, observation: np.ndarray, kind: str) -> np.ndarray:
        """``observation`` (one vector or a batch) in the encoding ``kind`` of :data:`ENCODINGS`:
        as it is (``"full"``), ``scaled_observation`` or ``fourier_observation``."""
        if kind == "full":
            return np.asarray(observation, np.float32)
        if kind == "scaled":
            return self.scaled_observation(observation)
        if kind == "fourier":
            return self.fourier_observation(observation)
        raise ValueError(f"observation encoding must be one of {list(ENCODINGS)}, got {kind!r}")

    def encoded_bounds(self, kind: str) -> Tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` of :meth:`encoded_observation` in the encoding ``kind``."""
        if kind == "fourier":
            return self.fourier_bounds()
        low, high = self.observation_bounds()
        return self.encoded_observation(low, kind), self.encoded_observation(high, kind)
