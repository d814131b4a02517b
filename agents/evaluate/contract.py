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

The contract holds for every agent in every scorer, whether it is a saved model, a
``module:function`` or a callable, and for the jeopardy games' policies
``policy(*position) -> probability of rolling`` (:func:`ask_policy`, which the solvers and the
batched opponents use):

* an exception the agent raises while it is asked, ``SystemExit`` included, is an
  :class:`AgentError`: one line naming the agent and what it raised (the command line prints it
  and exits with status 1); ``KeyboardInterrupt`` still interrupts;
* an answer must be real numbers (not complex, not strings), finite, in ``[0, 1]``, and the
  probabilities of a decision must sum to 1; anything else is a :class:`ContractError` (a
  ``ValueError``, status 2 on the command line) naming the agent and the first bad row.
"""

from __future__ import annotations

import inspect
from numbers import Real
from typing import Callable, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

__all__ = ["ObservationAgent", "AgentError", "ContractError", "call_agent", "real_array", "check_probabilities",
           "check_roll_probabilities", "ask_agent", "ask_policy", "read_only_copies", "uniform_agent",
           "SUM_TOLERANCE", "DEFAULT_BATCH"]

ObservationAgent = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: How far a row of probabilities may sum from 1.
SUM_TOLERANCE = 1e-6
#: Most observations passed to the agent in one call.
DEFAULT_BATCH = 1 << 18
#: Most characters of an agent's own error message kept in an :class:`AgentError`.
MESSAGE_CHARACTERS = 300


class AgentError(RuntimeError):
    """An agent failed while it was asked: its own exception (``SystemExit`` included), in one line
    that names the agent.  The exception it raised is the ``__cause__``."""


class ContractError(ValueError):
    """An agent's answer breaks the contract (its type, shape or numbers), or the agent does not
    take the arguments the contract gives it."""


def _one_line(err: BaseException) -> str:
    """What ``err`` raised, in one line of at most :data:`MESSAGE_CHARACTERS` characters."""
    if isinstance(err, SystemExit):
        return f"SystemExit({err.code!r})"
    text = " ".join(str(err).split())
    if len(text) > MESSAGE_CHARACTERS:
        text = text[: MESSAGE_CHARACTERS - 3] + "..."
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _binds(fn, count: int) -> bool:
    """Whether ``fn`` can be called with ``count`` positional arguments (True when its signature
    cannot be read)."""
    try:
        inspect.signature(fn).bind(*range(count))
    except TypeError:
        return False
    except ValueError:  # no signature to read (some built-ins)
        return True
    return True


def call_agent(agent: Callable, what: str, *arguments, takes: Optional[str] = None):
    """``agent(*arguments)``, with the agent's own exceptions as one-line errors that name it.

    Args:
        agent: the agent or policy to call.
        what: how messages name it (``"agent my_module:play"``).
        arguments: what it is given.
        takes: the arguments as the contract names them (``"(observations, masks)"``): a
            ``TypeError`` from an agent that cannot take that many is a :class:`ContractError`
            saying so.

    Raises:
        AgentError: the agent raised an exception, ``SystemExit`` included.
        ContractError: the agent cannot take the arguments, or it tried to change a read-only
            argument (:func:`read_only_copies`); a :class:`ContractError` or :class:`AgentError`
            raised inside (a wrapped agent's) passes through as it is.
    """
    try:
        return agent(*arguments)
    except (AgentError, ContractError):
        raise
    except ValueError as err:
        if "read-only" in str(err):
            raise ContractError(f"{what} tried to change the observations or masks it was given; they are "
                                "read-only (copy them to change them)") from None
        raise AgentError(f"{what} raised {_one_line(err)}") from err
    except TypeError as err:
        if takes is not None and not _binds(agent, len(arguments)):
            raise ContractError(f"{what} must take {takes}: {_one_line(err)}") from None
        raise AgentError(f"{what} raised {_one_line(err)}") from err
    except (Exception, SystemExit) as err:
        raise AgentError(f"{what} raised {_one_line(err)}") from err


def real_array(values, what: str, kind: str = "probabilities") -> np.ndarray:
    """``values`` as a numpy array of real numbers (bool, integer or float), or :class:`ContractError`
    if they are not: complex numbers (whose imaginary part a cast would drop), strings, or other
    objects."""
    try:
        array = np.asarray(values)
    except Exception as err:  # noqa: BLE001 - an agent's answer may be anything
        raise ContractError(f"{what} must return an array of {kind}, got {type(values).__name__} "
                            f"({_one_line(err)})") from None
    if array.dtype.kind == "c":
        raise ContractError(f"{what} returned complex {kind} ({array.dtype}); they must be real numbers")
    if array.dtype.kind == "O" and all(isinstance(v, Real) for v in array.flat):
        array = array.astype(np.float64)
    if array.dtype.kind not in "biuf":
        raise ContractError(f"{what} must return an array of {kind} as real numbers, got "
                            f"{type(values).__name__} of {array.dtype}")
    return array


def check_probabilities(probabilities, masks: np.ndarray, what: str = "the agent",
                        observations: Optional[np.ndarray] = None, offset: int = 0) -> np.ndarray:
    """The agent's answer as a float64 ``(N, num_actions)`` array, each row renormalised
    to sum to exactly 1, or :class:`ContractError` (a ``ValueError``) naming the problem and the
    first row with it.

    Checks: an array of real numbers of the masks' shape, finite, in ``[0, 1]``, rows summing
    to 1 within :data:`SUM_TOLERANCE`, and 0 on every illegal action.  With
    ``observations`` the message shows the observation of the bad row (numbered from
    ``offset``).
    """
    probs = real_array(probabilities, what, "action probabilities").astype(np.float64, copy=False)
    if probs.shape != masks.shape:
        raise ContractError(f"{what} returned an array of shape {probs.shape}; expected {masks.shape} "
                         f"(one row of {masks.shape[1]} action probabilities per observation)")

    def fail(bad_rows: npt.ArrayLike, problem: str):
        i = int(np.flatnonzero(bad_rows)[0])
        where = f"row {offset + i}"
        if observations is not None:
            where += f", observation {observations[i].tolist()}"
        raise ContractError(f"{what} {problem} ({where}: probabilities {probs[i].tolist()}, legal actions "
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
    ``observations`` (float32) and ``masks`` (bool), asked ``batch_size`` rows at a time
    (:func:`call_agent`: the agent's own exceptions are :class:`AgentError`)."""
    observations = np.ascontiguousarray(observations, dtype=np.float32)
    masks = np.ascontiguousarray(masks, dtype=bool)
    out = np.empty(masks.shape, np.float64)
    for lo in range(0, len(masks), batch_size):
        hi = min(lo + batch_size, len(masks))
        answer = call_agent(agent, what, *read_only_copies(observations[lo:hi], masks[lo:hi]),
                            takes="(observations, masks)")
        out[lo:hi] = check_probabilities(answer, masks[lo:hi], what, observations[lo:hi], lo)
    return out


def check_roll_probabilities(values, what: str) -> np.ndarray:
    """A jeopardy policy's answer as a float64 array of probabilities of rolling, or
    :class:`ContractError` naming the policy unless it is real, finite and in ``[0, 1]``."""
    q = real_array(values, what, "roll probabilities").astype(np.float64, copy=False)
    bad = ~np.isfinite(q) | (q < 0) | (q > 1)
    if bad.any():
        first = float(q[bad].flat[0])
        raise ContractError(f"{what} must return roll probabilities in [0, 1], got {first!r} "
                            f"({int(bad.sum()):,} of {q.size:,} answers outside)")
    return q


def ask_policy(policy: Callable, arguments: Sequence, shape: Tuple[int, ...], signature: str = "",
               what: Optional[str] = None) -> np.ndarray:
    """``policy(*arguments)``, a jeopardy game's policy (the probability of rolling at each
    position), broadcast to ``shape`` and checked (:func:`check_roll_probabilities`).

    Args:
        policy: ``policy(*position) -> P(roll)``, vectorised over numpy arrays.
        arguments: the positions' coordinates (``(i, j, k)`` in Pig).
        shape: the shape of the answer wanted.
        signature: the coordinates' names for messages (``"(i, j, k)"``).
        what: how messages name the policy (default: ``policy`` and its ``__name__``).

    Raises:
        AgentError: the policy raised an exception (:func:`call_agent`).
        ContractError: it cannot take the coordinates, or its answer is not roll probabilities
            of a shape that broadcasts to ``shape``.
    """
    what = what or f"policy {getattr(policy, '__name__', type(policy).__name__)}"
    takes = f"numpy arrays {signature}" if signature else f"{len(arguments)} numpy arrays"
    q = check_roll_probabilities(call_agent(policy, what, *arguments, takes=takes), what)
    if not shape and q.size == 1:  # one position: a (1,) answer is its probability
        q = q.reshape(())
    try:
        return np.broadcast_to(q, shape)
    except ValueError:
        raise ContractError(f"{what} returned roll probabilities of shape {q.shape} for positions of shape "
                            f"{shape}") from None


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
