"""Exact score of any court agent in The Shakes (``dice_envs/Shakes-v0``).

The court game is a single-agent game: one decision maker gives each patient one of
the ``n`` treatments.  An *observation agent* (:mod:`dice_envs.agents.evaluate.contract`)
sees what ``gymnasium.make("dice_envs/Shakes-v0", num_players=n)`` shows it,
``treated`` and ``saved`` per treatment (in the treatments' order), the patients left
and the total saved, and answers with the probability of each treatment.

The Bayes-optimal solver (:mod:`dice_envs.agents.shakes.solver`) works on *sorted*
records, since every policy it knows treats the treatments alike.  A learned agent
need not: it may favour treatment 0, or read the record in order.  So
:func:`score_agent` evaluates it exactly over the **ordered** records
``((t_1, s_1), ..., (t_n, s_n))`` with ``sum t <= patients``:

* the records with ``T`` patients treated (``C(T + 2n - 1, 2n - 1)`` of them) are
  generated level by level, in increasing order of their integer keys (the solver's
  mixed-radix :meth:`~dice_envs.agents.shakes.solver.ShakesModel.encode`);
* the agent is asked at every non-terminal record, a level (at most
  :data:`~dice_envs.agents.evaluate.contract.DEFAULT_BATCH` records) per call;
* the chance of saving the next patient with each treatment is the solver's
  posterior mean (:attr:`Level.success <dice_envs.agents.shakes.solver.Level>`) of the
  record's sorted form, carried back to the treatments' order;
* backward induction from the last level: the value of a record is
  ``sum_i pi_i (p_i V(save with i) + (1 - p_i) V(fail with i))``, the successors
  found by binary search among the next level's keys.  Only two levels are kept.

There are 1,820 ordered records for 2 players, 18,564 for 3, 1.56 million for 4, 13.1
million for 5 and 86 million for 6 (against 924 to 253,813 sorted ones).  The memory
and time are estimated and checked by :func:`dice_envs.core.resources.check_resources`
before anything is allocated: 4 players takes seconds, 6 players several minutes
(announced) plus the agent's own time.

:func:`solver_agent` turns one of the solver's policies into an observation agent,
which is how the tests check the scorer (the optimal agent scores the optimum).
"""

from __future__ import annotations

import time
from functools import lru_cache, partial
from math import comb
from typing import Callable, Dict, Optional

import numpy as np

from dice_envs.agents.evaluate.contract import DEFAULT_BATCH, ObservationAgent, ask_agent
from dice_envs.agents.evaluate.observation_agents import Agent
from dice_envs.agents.evaluate.report import named_agent, report
from dice_envs.agents.shakes.solver import ShakesModel, Solution, solve
from dice_envs.core.resources import check_resources
from dice_envs.games.shakes.rules import OBJECTIVES, ShakesRules, check_num_players, patients_for

__all__ = ["score_court", "score_agent", "solver_agent", "named_agents", "observations", "REFERENCE_POLICIES", "ordered_states"]

#: The solver's named policies whose gaps are reported beside the agent's.
REFERENCE_POLICIES = ("thompson", "greedy", "dice_rule", "random")

#: Measured cost of the ordered evaluation per record (numpy work, not the agent's),
#: with a margin: about 0.85 microseconds per record on the 2-core development machine (5 treatments).
SECONDS_PER_STATE = 1.5e-6
#: Peak bytes per record of the largest level (keys and values of two levels, the
#: temporaries of generating a level's keys), and per record of a batch.
BYTES_PER_LEVEL_STATE = 72
BYTES_PER_BATCH_STATE = 200


def _check_objective(objective) -> str:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    return objective


def ordered_states(num_players: int) -> int:
    """Ordered records of the court game with ``num_players`` treatments (all levels)."""
    rules = ShakesRules(check_num_players(num_players))
    return comb(patients_for(rules.num_players) + 2 * rules.num_players, 2 * rules.num_players)  # cooperative


@lru_cache(maxsize=4)
def _solved(num_players: int, objective: str) -> Solution:
    """The solver's model and solution (every named policy), kept for the process."""
    return solve(num_players, objective)


def observations(treated: np.ndarray, saved: np.ndarray, patients: int) -> np.ndarray:
    """The court's observations (float32 ``(N, 2n + 2)``) at the records ``treated``
    and ``saved`` (``(N, n)`` each): treated per treatment, saved per treatment,
    patients left, total saved, as :meth:`dice_envs.games.shakes.rules.CourtState.observation`."""
    treated = np.asarray(treated)
    saved = np.asarray(saved)
    left = patients - treated.sum(axis=1, keepdims=True)
    return np.concatenate([treated, saved, np.maximum(left, 0), saved.sum(axis=1, keepdims=True)],
                          axis=1).astype(np.float32)


def _to_ordered(model: ShakesModel, table: np.ndarray, rows: np.ndarray, level_keys: np.ndarray) -> np.ndarray:
    """``table`` (per sorted record and sorted slot) read at the ordered ``rows``
    (pair indices), in the rows' own treatment order."""
    order = np.argsort(-rows, axis=1, kind="stable")  # sorted slot j holds treatment order[:, j]
    keys = model.encode(np.take_along_axis(rows, order, axis=1))
    idx = _find(level_keys, keys)
    out = np.empty(rows.shape, np.float64)
    np.put_along_axis(out, order, table[idx], axis=1)
    return out


def _pair_rows(treated: np.ndarray, saved: np.ndarray) -> np.ndarray:
    """Pair indices ``t (t + 1) / 2 + s`` (the solver's :func:`~dice_envs.agents.shakes.solver.pair_index`)."""
    return treated * (treated + 1) // 2 + saved


def _find(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Positions of ``wanted`` in the increasing ``keys`` (every one must be there)."""
    at = np.searchsorted(keys, wanted)
    if not np.array_equal(keys[np.minimum(at, len(keys) - 1)], wanted):
        raise AssertionError("a successor record is missing from the next level")
    return at


def solver_agent(name: str = "optimal", num_players: int = 4, objective: str = "win") -> ObservationAgent:
    """One of the solver's court policies (``"optimal"`` for ``objective``, or one of
    :data:`REFERENCE_POLICIES`) as an observation agent for ``dice_envs/Shakes-v0``.

    Treatments with identical records share the policy's probability for that record
    as the solver's sorted tables list it (any split among them plays the same)."""
    n = check_num_players(num_players)
    solution = _solved(n, _check_objective(objective))
    model = solution.model
    if name not in model.levels[0].choices:
        raise ValueError(f"unknown policy {name!r}; choose from {('optimal',) + REFERENCE_POLICIES}")

    def agent(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs)
        treated = np.rint(obs[:, :n]).astype(np.int64)
        saved = np.rint(obs[:, n:2 * n]).astype(np.int64)
        total = treated.sum(axis=1)
        out = np.empty((len(obs), n))
        for level_t in np.unique(total):
            level = model.levels[int(level_t)]
            sel = total == level_t
            out[sel] = _to_ordered(model, level.choices[name], _pair_rows(treated[sel], saved[sel]), level.keys)
        return out

    agent.__name__ = name
    return agent


def named_agents(num_players: int = 4, objective: str = "win") -> Dict[str, Callable[[], ObservationAgent]]:
    """The solver's policies by name (``"optimal"`` and :data:`REFERENCE_POLICIES`), each
    a function making its observation agent (:func:`solver_agent`)."""
    return {name: partial(solver_agent, name, num_players, objective) for name in ("optimal",) + REFERENCE_POLICIES}


def _ranges(counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(c) for c in counts])`` without the loop."""
    ends = np.cumsum(counts)
    return np.arange(ends[-1] if len(ends) else 0) - np.repeat(ends - counts, counts)


def _level_keys(model: ShakesModel, treated: int) -> np.ndarray:
    """The keys of every ordered record with ``treated`` patients treated, increasing.

    Records are built treatment by treatment in lexicographic order of their pair
    indices ``t (t + 1) / 2 + s``: a treatment other than the last may take any pair
    with ``t`` at most what is left (the first ``(left + 1)(left + 2) / 2`` pair
    indices), the last takes what is left (the ``left + 1`` pairs with ``t = left``)."""
    n, base = model.num_players, model.base
    keys = np.zeros(1, np.int64)
    left = np.full(1, treated, np.int64)
    for k in range(n):
        if k < n - 1:
            first, counts = np.zeros_like(left), (left + 1) * (left + 2) // 2
        else:
            first, counts = left * (left + 1) // 2, left + 1
        pair = np.repeat(first, counts) + _ranges(counts)
        left = np.repeat(left, counts) - model.pair_t[pair]
        keys = np.repeat(keys, counts) * base + pair
    return keys


def score_agent(agent: ObservationAgent, num_players: int = 4, objective: str = "win",
                batch_size: int = DEFAULT_BATCH) -> dict:
    """Exact expected return of a court agent in ``dice_envs/Shakes-v0``.

    Args:
        agent: an observation agent ``agent(observations, masks) -> probabilities``
            (:mod:`dice_envs.agents.evaluate.contract`); every treatment is legal.
        num_players: 2 to 6 treatments.
        objective: ``"win"`` (the team-win probability, the env's default reward) or
            ``"saved"`` (the expected number of patients saved).
        batch_size: most observations per call of the agent.

    Returns:
        A dict with ``value`` (the agent's expected return), ``optimal_value`` (the
        Bayes-optimal policy's, :func:`dice_envs.agents.shakes.solver.solve`), ``gap``
        (``value - optimal_value``: 0 is optimal, negative is worse), ``states``
        (ordered records evaluated), ``references`` (the gap of each of the solver's
        :data:`REFERENCE_POLICIES`), ``num_players``, ``objective`` and ``seconds``.

    Raises:
        ValueError: a bad argument, a bad answer of the agent (naming the problem and
            the observation), or a game over the memory or time limit
            (:class:`dice_envs.core.resources.ResourceLimitError`).
    """
    start = time.perf_counter()
    n = check_num_players(num_players)
    objective = _check_objective(objective)
    rules = ShakesRules(n)
    patients, threshold = patients_for(n), rules.threshold  # the cooperative rules' patients
    states = ordered_states(n)
    level_size = [comb(t + 2 * n - 1, 2 * n - 1) for t in range(patients + 1)]
    biggest = max(level_size[:-1])  # the terminal level is never built
    batch = min(batch_size, biggest)
    check_resources(f"scoring a court agent of The Shakes exactly with {n} treatments ({states:,} ordered records)",
                    200 * 2**20 + BYTES_PER_LEVEL_STATE * biggest + BYTES_PER_BATCH_STATE * n * batch,
                    SECONDS_PER_STATE * states)
    solution = _solved(n, objective)
    model = solution.model
    base = model.base
    weights = np.array([base ** (n - 1 - k) for k in range(n)], np.int64)  # key = rows @ weights

    def terminal(saved_total: np.ndarray) -> np.ndarray:
        return (saved_total >= threshold).astype(float) if objective == "win" else saved_total.astype(float)

    next_keys: Optional[np.ndarray] = None
    next_values: Optional[np.ndarray] = None
    for level_t in range(patients - 1, -1, -1):
        level = model.levels[level_t]
        assert level.success is not None  # every level but the last has it
        keys = _level_keys(model, level_t)
        values = np.empty(len(keys))
        for lo in range(0, len(keys), batch):
            kb = keys[lo:lo + batch]
            rows = (kb[:, None] // weights[None, :]) % base
            treated, saved = model.pair_t[rows], model.pair_s[rows]
            probs = ask_agent(agent, observations(treated, saved, patients), np.ones(rows.shape, bool), batch)
            p = _to_ordered(model, level.success, rows, level.keys)
            fail_pair = (treated + 1) * (treated + 2) // 2 + saved
            if level_t == patients - 1:
                total = saved.sum(axis=1, keepdims=True)
                v_fail, v_save = terminal(total), terminal(total + 1)
            else:
                assert next_keys is not None and next_values is not None  # the level after, done first
                fail_keys = kb[:, None] + (fail_pair - rows) * weights[None, :]
                v_fail = next_values[_find(next_keys, fail_keys)]
                v_save = next_values[_find(next_keys, fail_keys + weights[None, :])]
            values[lo:lo + batch] = (probs * (p * v_save + (1 - p) * v_fail)).sum(axis=1)
        next_keys, next_values = keys, values
    assert next_values is not None  # the first level's (patients >= 1)
    value = float(next_values[0])
    optimal = solution.policies["optimal"]
    pick = (lambda r: r.team_win) if objective == "win" else (lambda r: r.expected_saved)
    optimal_value = pick(optimal)
    return {
        "num_players": n,
        "objective": objective,
        "value": value,
        "optimal_value": optimal_value,
        "gap": value - optimal_value,
        "states": states,
        "references": {name: pick(solution.policies[name]) - optimal_value for name in REFERENCE_POLICIES},
        "seconds": time.perf_counter() - start,
    }


def score_court(spec, num_players: int = 4, objective: str = "win") -> dict:
    """The court with ``num_players`` treatments: ``spec`` (an agent, or ``optimal``, ``thompson``,
    ``greedy``, ``dice_rule``, ``random``) against the Bayes-optimal policy, for the team's win
    probability (``objective="win"``) or the patients saved (``"saved"``)."""
    agent = spec if isinstance(spec, Agent) else named_agent(spec, named_agents(num_players, objective))
    result = score_agent(agent, num_players=num_players, objective=objective)
    payoff = "team win probability" if objective == "win" else "expected patients saved"
    return report(payoff, None, result["value"], result["optimal_value"], None, None, result["references"],
                  {"states": result["states"]})
