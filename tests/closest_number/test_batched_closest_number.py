"""The batched Closest Number rules (:mod:`dice_envs.games.closest_number.batched`) against the rules core.

* Differential: a batch and one rules-core state per game go through the same games
  (the batch's starting player applied to the core, the same actions, legal and
  illegal) and must agree on every current player, mask, observation of every seat,
  reward and termination: 10^5 agent steps for the default game, 2-4 x 10^4 for
  other configurations, small boards included so that tiebreak rounds on a shrinking
  board and draws happen.
* Statistical: the starting players drawn on reset follow ``chance_outcomes()``.
* The vectorised scoring against :func:`dice_envs.games.closest_number.rules.score_board`, and
  positions loaded from the rules core (tiebreaks among some seats, game over).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from batched_checks import HEADLINE, chi_square, drive

from dice_envs.games.closest_number.batched import ClosestNumberBatch
from dice_envs.games.closest_number.rules import ClosestNumberGame, score_board


class RecordingBatch(ClosestNumberBatch):
    """A batch that counts, as it steps, the round at which games end by the rules,
    the draws, and tiebreak rounds played without some seat."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.last_rounds = Counter()
        self.draws = 0
        self.partial_tiebreaks = 0

    def step(self, actions, rng, where=None):
        rewards, terminated = super().step(actions, rng, where)
        s = self.state
        ended = terminated & s["ended"]
        self.last_rounds.update(s["round"][ended].tolist())
        self.draws += int((ended & (s["outcome"].max(axis=1) == 0.0)).sum())
        self.partial_tiebreaks += int((~s["done"] & ~s["active"].all(axis=1)).sum())
        return rewards, terminated


CONFIGS = {
    "3 players, numbers 7": (dict(num_players=3, numbers=7), 30_000),
    "round3 one_card": (dict(round3="one_card"), 20_000),
    "numbers 4 (tiny board)": (dict(numbers=4), 30_000),
    "starting player 1": (dict(starting_player=1), 20_000),
}


@pytest.mark.slow
def test_default_game_equals_the_rules_core():
    batch = RecordingBatch(400)
    finished, illegal = drive(batch, HEADLINE, seed=11)
    assert finished > 1000 and illegal > 100  # both endings were exercised
    assert max(batch.last_rounds) >= 4  # tiebreak rounds, on a shorter board


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_batched_closest_number_equals_the_rules_core(name):
    config, steps = CONFIGS[name]
    batch = RecordingBatch(300, **config)
    finished, illegal = drive(batch, steps, seed=3)
    assert finished > 300 and illegal > 50
    if name == "numbers 4 (tiny board)":
        # Rounds on boards of 3, 2 and 1 numbers, and ties after the last one.
        assert batch.last_rounds[batch.game.last_round] > 0 and batch.draws > 0
    if name == "3 players, numbers 7":
        assert max(batch.last_rounds) >= 4 and batch.partial_tiebreaks > 0


def test_starting_players_follow_chance_outcomes():
    game = ClosestNumberGame(4, 10)
    batch = ClosestNumberBatch(40_000, game=game)
    batch.reset(np.random.default_rng(7))
    observed = Counter(batch.chance_outcome(k) for k in range(batch.num_envs))
    assert chi_square(observed, game.new_initial_state().chance_outcomes()) > 1e-3


def test_chance_outcome_is_the_reset_draw_only():
    rng = np.random.default_rng(0)
    batch = ClosestNumberBatch(8)
    batch.reset(rng)
    assert all(batch.chance_outcome(k) in range(2) for k in range(8))
    batch.step(np.argmax(batch.action_mask(), axis=1), rng)
    assert all(batch.chance_outcome(k) is None for k in range(8))
    fixed = ClosestNumberBatch(8, starting_player=1)
    fixed.reset(rng)
    assert all(fixed.chance_outcome(k) is None for k in range(8))
    assert (fixed.current_player() == 1).all()


@pytest.mark.parametrize("num_players, numbers", [(2, 10), (3, 7), (5, 12), (2, 4)])
def test_scoring_equals_score_board(num_players, numbers):
    """Random boards (any seat, decoys, no scoring card at all) on every board size."""
    batch = ClosestNumberBatch(1, num_players, numbers)
    rng = np.random.default_rng(numbers)
    k = 3000
    size = rng.integers(1, numbers + 1, k)
    owner = np.where(rng.random((k, numbers)) < 0.4, rng.integers(0, num_players, (k, numbers)), -1)
    owner[np.arange(numbers) >= size[:, None]] = -1
    owner[:50] = -1  # empty boards
    decoy = (owner >= 0) & (rng.random((k, numbers)) < 0.3)
    points = batch._score(owner.astype(np.int8), decoy, size)
    for i in range(k):
        cards = [(int(owner[i, j]), j + 1) for j in range(numbers) if owner[i, j] >= 0 and not decoy[i, j]]
        assert tuple(points[i]) == score_board(cards, num_players, int(size[i])), (owner[i], decoy[i], size[i])


def reached_states(game, count, seed):
    """Rules-core positions met in random play (decision and terminal nodes)."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        while True:
            if state.is_chance_node():
                state = state.apply(state.sample_chance(rng))
            if rng.random() < 0.3:
                states.append(state)
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state = state.apply(legal[rng.integers(len(legal))])
    return states[:count]


@pytest.mark.parametrize("config", [dict(), dict(num_players=3, numbers=7), dict(numbers=4)])
def test_loaded_positions_equal_the_rules_core(config):
    game = ClosestNumberGame(**config)
    p = game.num_players
    states = reached_states(game, 150, seed=1)
    # Tiebreak rounds among some seats, from the solvers' round starts.
    states += [game.state_at_round(r, [5] * p, first, active=[first, (first + 1) % p])
               for r in (3, 4, game.last_round) for first in range(p)]
    assert any(st.is_terminal() for st in states) and any(st.round >= 3 for st in states)
    batch = ClosestNumberBatch(len(states), game=game)
    batch.load_states(states)
    np.testing.assert_array_equal(batch.current_player(), [st.current_player for st in states])
    np.testing.assert_array_equal(batch.action_mask(), [st.action_mask() for st in states])
    for seat in range(p):
        np.testing.assert_array_equal(batch.observe(seat), [st.observation(seat) for st in states])
    rng = np.random.default_rng(2)
    actions = np.array([st.legal_actions()[rng.integers(len(st.legal_actions()))] if not st.is_terminal() else 0
                        for st in states])
    rewards, terminated = batch.step(actions, rng)
    for k, st in enumerate(states):
        if st.is_terminal():
            assert not terminated[k] and not rewards[k].any()
            continue
        after = st.apply(int(actions[k]))
        np.testing.assert_array_equal(rewards[k], np.asarray(after.returns(), np.float32))
        assert terminated[k] == after.is_terminal()
        for seat in range(p):
            np.testing.assert_array_equal(batch.observe(seat, where=[k])[0], after.observation(seat))


@pytest.mark.parametrize("kwargs", [dict(numbers=3), dict(numbers=41), dict(num_players=6, numbers=10),
                                    dict(num_players=1), dict(starting_player=2), dict(round3="three_cards"),
                                    dict(numbers=10.0)])
def test_bad_configuration_is_refused(kwargs):
    with pytest.raises(ValueError):
        ClosestNumberBatch(4, **kwargs)


def test_bad_batch_size_is_refused():
    with pytest.raises(ValueError, match="num_envs"):
        ClosestNumberBatch(0)
    with pytest.raises(ValueError, match="num_envs"):
        ClosestNumberBatch(True)
