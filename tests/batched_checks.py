"""Checks shared by the batched-rules tests (``tests/test_batched_*.py``).

* :func:`drive` plays random games in a batch and in the rules core side by side
  (the batch's chance outcomes applied to the core, the same actions, legal and
  illegal) and asserts that they agree on every current player, mask, observation
  of every seat, reward and termination.
* :func:`chi_square` and :func:`outcomes_after_roll` compare the batch's chance draws
  with the rules core's exact ``chance_outcomes()``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy import stats

from dice_envs.core.game import IllegalActionError

HEADLINE = 100_000  # agent steps per headline configuration


def follow_chance(state, batch, k):
    """Apply to the rules-core ``state`` the chance outcomes the batch drew in game ``k``."""
    for outcome in batch.drawn_outcomes(k):
        assert state.is_chance_node(), (k, state, outcome)
        state = state.apply(outcome)
    assert not state.is_chance_node(), (k, state)
    return state


def start(game, batch, k):
    """The rules core's opening state of game ``k``, with the batch's chance outcome."""
    return follow_chance(game.new_initial_state(), batch, k)


def assert_rows_equal(actual: np.ndarray, expected: np.ndarray, cores, what: str, rows=None) -> None:
    """Compare a whole step's rows at once; on a mismatch, name the first game and its core state."""
    rows = np.arange(len(cores)) if rows is None else rows
    if np.array_equal(actual[rows], expected[rows]):
        return
    bad = rows[np.flatnonzero((actual[rows] != expected[rows]).reshape(len(rows), -1).any(axis=1))[0]]
    raise AssertionError(f"{what} differs in game {bad}: batch {actual[bad]}, rules core {expected[bad]}; "
                         f"core state {cores[bad]!r}")


def core_views(cores, players: int, rows=None):
    """Every seat's rules-core observation in every game (or in games ``rows``): ``(n, players) + shape``."""
    rows = range(len(cores)) if rows is None else rows
    return np.stack([np.stack([cores[k].observation(p) for p in range(players)]) for k in rows])


def drive(batch, agent_steps: int, seed: int = 0, illegal_rate: float = 0.05, hold_bias: float = 0.5):
    """Play random games in ``batch`` and in the rules core side by side; assert they agree.

    Each rules-core state's observations are computed once: those after a step are the next
    step's, except in the games dealt again."""
    game = batch.game
    n, players = batch.num_envs, game.num_players
    rng = np.random.default_rng(seed)
    choose = np.random.default_rng(seed + 1)
    batch.reset(rng)
    cores = [start(game, batch, k) for k in range(n)]
    expected_views = core_views(cores, players)  # (n, players) + shape, of the states in ``cores``
    done_steps = finished = illegal_games = 0
    while done_steps < agent_steps:
        assert_rows_equal(batch.current_player(), np.array([c.current_player for c in cores]), cores, "current player")
        assert_rows_equal(batch.action_mask(), np.stack([c.action_mask() for c in cores]), cores, "action mask")
        views = np.stack([batch.observe(p) for p in range(players)])
        assert_rows_equal(views.swapaxes(0, 1), expected_views, cores, "observation")
        actions = np.empty(n, np.int64)
        for k, core in enumerate(cores):
            legal = core.legal_actions()
            if choose.random() < illegal_rate:
                actions[k] = choose.integers(-1, game.num_actions + 1)
            elif len(legal) == 2 and game.num_actions == 2:
                actions[k] = legal[choose.random() < hold_bias]
            else:
                actions[k] = legal[choose.integers(len(legal))]
        rewards, terminated = batch.step(actions, rng)
        expected_rewards = np.zeros((n, players), np.float32)
        expected_terminated = np.zeros(n, bool)
        legal_rows = []
        for k in range(n):
            core = cores[k]
            try:
                core = core.apply(int(actions[k]))
            except IllegalActionError:
                expected_rewards[k, core.current_player] = -1.0
                expected_terminated[k] = True
                illegal_games += 1
                continue
            cores[k] = core = follow_chance(core, batch, k)
            expected_rewards[k] = core.returns()
            expected_terminated[k] = core.is_terminal()
            legal_rows.append(k)
        assert_rows_equal(rewards, expected_rewards, cores, "reward")
        assert_rows_equal(terminated, expected_terminated, cores, "termination")
        legal = np.array(legal_rows, np.intp)
        if len(legal):
            expected_views[legal] = core_views(cores, players, legal)
        after = np.stack([batch.observe(p) for p in range(players)]).swapaxes(0, 1)
        assert_rows_equal(after, expected_views, cores, "observation after the step", rows=legal)
        assert (batch.current_player()[terminated] == -2).all()
        finished += int(terminated.sum())
        batch.reset(rng, where=terminated)
        dealt = np.flatnonzero(terminated)
        for k in dealt:
            cores[k] = start(game, batch, k)
        if len(dealt):
            expected_views[dealt] = core_views(cores, players, dealt)
        done_steps += n
    return finished, illegal_games


def chi_square(observed: Counter, exact) -> float:
    """p-value of the observed outcome counts against the exact ``[(outcome, probability)]``."""
    total = sum(observed.values())
    assert set(observed) <= {o for o, _ in exact}, "an outcome the rules core never gives"
    expected = np.array([float(p) * total for _, p in exact])
    counts = np.array([observed.get(o, 0) for o, _ in exact], float)
    # Pool the rare outcomes so every bin expects at least 5.
    rare = expected < 5
    if rare.any():
        expected = np.append(expected[~rare], expected[rare].sum())
        counts = np.append(counts[~rare], counts[rare].sum())
    return stats.chisquare(counts, expected).pvalue


def outcomes_after_roll(batch, state, draws: int, seed: int) -> Counter:
    """Load ``state`` into every game, roll, and count the chance outcomes drawn."""
    counts = Counter()
    rng = np.random.default_rng(seed)
    for _ in range(draws // batch.num_envs):
        batch.load_states([state] * batch.num_envs)
        batch.step(np.ones(batch.num_envs, np.int64), rng)
        counts.update(batch.chance_outcome(k) for k in range(batch.num_envs))
    return counts
