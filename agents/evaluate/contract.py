"""The observation-agent contract: how the exact scorers ask a policy, and check its answers.

An *observation agent* is a callable

``agent(observations, masks) -> probabilities``

* ``observations``: a float32 array ``(N, obs_dim)``, exactly the observations the
  game's single-agent Gymnasium env gives the agent (the same vectors as the AEC
  env's ``observation`` for that seat);
* ``masks``: a bool array ``(N, num_actions)``, the legal actions there;
* the result: an ``(N, num_actions)`` array of action probabilities, each row
  summing to 1, with no mass on illegal actions.

A trained network, a table and a hand-written rule all fit (a greedy agent puts
probability 1 on its choice).  The scorers (:mod:`dice_envs.agents.shakes.evaluation`,
:mod:`dice_envs.agents.closest_number.evaluation`) build every observation the agent
can meet, ask in a few large batches (:func:`ask_agent`) and check each answer
(:func:`check_probabilities`), so a wrong answer is a clear ``ValueError``, never a
silently wrong score.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np
import numpy.typing as npt

__all__ = ["ObservationAgent", "check_probabilities", "ask_agent", "read_only_copies", "uniform_agent", "SUM_TOLERANCE",
           "DEFAULT_BATCH"]

ObservationAgent = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: How far a row of probabilities may sum from 1.
SUM_TOLERANCE = 1e-6
#: Most observations passed to the agent in one call.
DEFAULT_BATCH = 1 << 18


def check_probabilities(probabilities, masks: np.ndarray, what: str = "the agent",
                        observations: Optional[np.ndarray] = None, offset: int = 0) -> np.ndarray:
    """The agent's answer as a float64 ``(N, num_actions)`` array, each row renormalised
    to sum to exactly 1, or ``ValueError`` naming the problem and the first row with it.

    Checks: an array of numbers of the masks' shape, finite, in ``[0, 1]``, rows summing
    to 1 within :data:`SUM_TOLERANCE`, and 0 on every illegal action.  With
    ``observations`` the message shows the observation of the bad row (numbered from
    ``offset``).
    """
    try:
        probs = np.asarray(probabilities, dtype=np.float64)  # not changed here: the result is a new array
    except (TypeError, ValueError) as err:
        raise ValueError(f"{what} must return an array of action probabilities, got {type(probabilities).__name__} "
                         f"({err})") from None
    if probs.shape != masks.shape:
        raise ValueError(f"{what} returned an array of shape {probs.shape}; expected {masks.shape} "
                         f"(one row of {masks.shape[1]} action probabilities per observation)")

    def fail(bad_rows: npt.ArrayLike, problem: str):
        i = int(np.flatnonzero(bad_rows)[0])
        where = f"row {offset + i}"
        if observations is not None:
            where += f", observation {observations[i].tolist()}"
        raise ValueError(f"{what} {problem} ({where}: probabilities {probs[i].tolist()}, legal actions "
                         f"{np.flatnonzero(masks[i]).tolist()})")

    # Each check runs once over the whole answer; the rows are looked at only when it fails.
    if not np.isfinite(probs).all():
        fail(~np.isfinite(probs).all(axis=1), "returned non-finite probabilities")
    if probs.size and (probs.min() < 0 or probs.max() > 1):
        fail(((probs < 0) | (probs > 1)).any(axis=1), "returned probabilities outside [0, 1]")
    illegal_mass = np.where(masks, 0.0, probs)
    if illegal_mass.any():
        fail(illegal_mass.any(axis=1), "put probability on illegal actions")
    sums = probs.sum(axis=1)
    bad = np.abs(sums - 1.0) > SUM_TOLERANCE
    if bad.any():
        fail(bad, f"returned probabilities that do not sum to 1 (within {SUM_TOLERANCE})")
    return probs / sums[:, None]


def ask_agent(agent: ObservationAgent, observations: np.ndarray, masks: np.ndarray,
              batch_size: int = DEFAULT_BATCH, what: str = "the agent") -> np.ndarray:
    """The checked answers (:func:`check_probabilities`) of ``agent`` at every row of
    ``observations`` (float32) and ``masks`` (bool), asked ``batch_size`` rows at a time."""
    observations = np.ascontiguousarray(observations, dtype=np.float32)
    masks = np.ascontiguousarray(masks, dtype=bool)
    out = np.empty(masks.shape, np.float64)
    for lo in range(0, len(masks), batch_size):
        hi = min(lo + batch_size, len(masks))
        try:
            answer = agent(*read_only_copies(observations[lo:hi], masks[lo:hi]))
        except ValueError as err:
            if "read-only" in str(err):
                raise ValueError(f"{what} tried to change the observations or masks it was given; they are "
                                 "read-only (copy them to change them)") from None
            raise
        out[lo:hi] = check_probabilities(answer, masks[lo:hi], what, observations[lo:hi], lo)
    return out


def read_only_copies(*arrays: np.ndarray):
    """Read-only copies of ``arrays``: what an agent is given, so that it can keep them but
    not change the masks (or observations) its answer is checked against."""
    out = []
    for array in arrays:
        copy = np.array(array)
        copy.setflags(write=False)
        out.append(copy)
    return tuple(out)


def uniform_agent(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The uniform random policy: every legal action equally likely."""
    masks = np.asarray(masks, dtype=bool)
    return masks / masks.sum(axis=1, keepdims=True)
