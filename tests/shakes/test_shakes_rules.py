"""The Shakes rules core: the seed's tables, the argument rule, ties, both games, bad input."""

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dice_envs import shakes_v0
from dice_envs.core.dice import d, enumerate_rolls
from dice_envs.games.shakes.rules import (
    ARGUE,
    ARGUMENT,
    DECIDE,
    OVER,
    TREAT,
    YIELD,
    CourtGame,
    MaestersGame,
    ShakesRules,
    argument_strength,
    strength_distribution,
)


@pytest.mark.parametrize(
    "n, efficacies, patients, threshold",
    [
        (2, (3, 1), 12, 5),
        (3, (4, 1, 1), 12, 5),
        (4, (4, 2, 1, 1), 18, 7),
        (5, (4, 2, 2, 1, 1), 18, 7),
        (6, (4, 2, 2, 2, 1, 1), 18, 7),
    ],
)
def test_seed_tables(n, efficacies, patients, threshold):
    rules = ShakesRules(n)
    assert rules.efficacies == efficacies
    assert rules.patients == patients and rules.threshold == threshold
    deals = rules.deals()
    assert sum(p for _, p in deals) == 1
    assert all(sorted(perm, reverse=True) == list(efficacies) for perm, _ in deals)
    assert len({perm for perm, _ in deals}) == len(deals)
    # "The average efficacy is 2" (except with 2 players: 3 and 1).
    assert Fraction(sum(efficacies), n) == 2
    competitive = ShakesRules(n, "competitive")
    assert competitive.efficacies == (3,) * n and competitive.deals() == [((3,) * n, 1)]


def test_seed_argument_example():
    # "treated three patients and two survived ... 1, 2, 2, and 4 ... the remaining 2"
    assert argument_strength([1, 2, 2, 4], 2) == 2
    assert argument_strength([4, 2, 1, 2], 2) == 2
    assert argument_strength([6], 0) == 6
    with pytest.raises(ValueError, match="saved"):
        argument_strength([1, 2], 2)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 3), st.data())
def test_strength_distribution_is_the_literal_rule(treated, data):
    saved = data.draw(st.integers(0, treated))
    brute = Counter()
    for faces, p in enumerate_rolls([d(6)] * (treated + 1)):
        brute[argument_strength(faces, saved)] += p
    assert dict(strength_distribution(treated, saved)) == dict(brute)


def _maesters_state(n=3, efficacies=None, **changes):
    game = MaestersGame(n)
    state = game.new_initial_state()
    state = state.apply(efficacies or game.rules.deals()[0][0])
    return state._with(**changes) if changes else state


def test_ties_are_rerolled_by_the_tied_only():
    state = _maesters_state(3)
    for seat in range(3):
        state = state.apply(ARGUE)
    assert state.phase == ARGUMENT and state.contenders == (0, 1, 2)
    state = state.apply((5, 5, 3))
    assert state.phase == ARGUMENT and state.contenders == (0, 1)
    outcomes = state.chance_outcomes()
    assert all(len(o) == 2 for o, _ in outcomes) and sum(p for _, p in outcomes) == 1
    state = state.apply((2, 6))
    assert state.phase == TREAT and state.patient_to == 1


def test_yield_and_everyone_yields():
    state = _maesters_state(3)
    state = state.apply(YIELD).apply(ARGUE).apply(YIELD)
    assert state.phase == TREAT and state.patient_to == 1  # a lone arguer treats without rolling
    state = _maesters_state(3)
    state = state.apply(YIELD).apply(YIELD).apply(YIELD)
    assert state.phase == ARGUMENT and state.contenders == (0, 1, 2)  # all yield: all argue


def test_treatment_roll_saves_at_or_below_efficacy():
    state = _maesters_state(3, (1, 4, 1))
    state = state.apply(YIELD).apply(ARGUE).apply(YIELD)
    assert state.apply(4).record == ((0, 0), (1, 1), (0, 0))
    assert state.apply(5).record == ((0, 0), (1, 0), (0, 0))


def test_competitive_first_to_three_and_draws():
    game = MaestersGame(2, "competitive")
    state = game.new_initial_state().apply((3, 3))
    state = state._with(treated=(4, 3), saved=(2, 2))
    state = state.apply(ARGUE).apply(YIELD).apply(1)
    assert state.phase == OVER and state.winner == 0 and state.returns() == (1.0, -1.0)
    # The table's 12 patients run out with nobody at 3: a draw.
    state = game.new_initial_state().apply((3, 3))._with(treated=(6, 5), saved=(2, 2))
    state = state.apply(ARGUE).apply(YIELD).apply(6)
    assert state.phase == OVER and state.winner is None and state.returns() == (0.0, 0.0)
    # until_winner plays on.
    long_game = MaestersGame(2, "competitive", until_winner=True)
    state = long_game.new_initial_state().apply((3, 3))._with(treated=(6, 5), saved=(2, 2))
    state = state.apply(ARGUE).apply(YIELD).apply(6)
    assert state.phase == DECIDE and state.patients_left == -1


def test_cooperative_end_and_rewards():
    game = CourtGame(2, "win")
    state = game.new_initial_state().apply((3, 1))._with(treated=(10, 1), saved=(4, 0))
    state = state.apply(0).apply(3)
    assert state.phase == OVER and state.total_saved == 5 and state.returns() == (1.0,)
    saved_game = CourtGame(2, "saved")
    state = saved_game.new_initial_state().apply((3, 1))._with(treated=(10, 1), saved=(2, 0))
    assert state.apply(1).apply(1).returns() == (3.0,)
    maesters = MaestersGame(2, objective="saved")
    state = maesters.new_initial_state().apply((1, 3))._with(treated=(10, 1), saved=(2, 0))
    state = state.apply(YIELD).apply(ARGUE).apply(6)
    assert state.phase == OVER and state.returns() == (2.0, 2.0)


def test_observations_hide_the_cards():
    court = CourtGame(4)
    a = court.new_initial_state().apply((4, 2, 1, 1))
    b = court.new_initial_state().apply((1, 1, 2, 4))
    assert np.array_equal(a.observation(0), b.observation(0))
    maesters = MaestersGame(4)
    a = maesters.new_initial_state().apply((4, 2, 1, 1))._with(treated=(3, 0, 1, 0), saved=(2, 0, 0, 0))
    b = a._with(efficacies=(4, 1, 2, 1))
    assert a.observation(1)[0] == 2 and b.observation(1)[0] == 1
    assert np.array_equal(a.observation(0), b.observation(0))  # others' cards do not show
    assert a.observation(1)[1:5].tolist() == [0, 1, 0, 3]  # the observer first


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 6),
    mode=st.sampled_from(["court", "maesters", "competitive", "until_winner"]),
)
def test_random_play_invariants(seed, n, mode):
    kwargs = {
        "competitive": dict(mode="maesters", variant="competitive"),
        "until_winner": dict(mode="maesters", variant="competitive", until_winner=True),
    }.get(mode, dict(mode=mode))
    env = shakes_v0.raw_env(num_players=n, **kwargs)
    game = env.game
    space = env.observation_space(env.possible_agents[0])["observation"]
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(2000):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == 1
            state = state.apply(state.sample_chance(rng))
            continue
        assert all(0 <= s <= t for t, s in state.record)
        for seat in range(game.num_players):
            assert space.contains(state.observation(seat))
        assert state.action_mask().sum() == game.num_actions
        state = state.apply(int(rng.choice(state.legal_actions())))
    assert state.is_terminal()
    rules = game.rules
    if rules.until_winner:
        assert state.winner is not None
    if rules.competitive:
        assert state.winner is not None or state.total_treated == rules.patients
        assert sum(state.returns()) in (0.0, 2.0 - n)
    else:
        assert state.total_treated == rules.patients
        assert state.returns()[0] in (float(state.team_won), float(state.total_saved))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(num_players=1), "num_players"),
        (dict(num_players=7), "num_players"),
        (dict(num_players=3.0), "num_players"),
        (dict(num_players=True), "num_players"),
        (dict(mode="king"), "mode"),
        (dict(variant="chaos"), "variant"),
        (dict(mode="court", variant="competitive"), "variant"),
        (dict(mode="maesters", variant="competitive", objective="saved"), "objective"),
        (dict(objective="lives"), "objective"),
        (dict(mode="maesters", until_winner=True), "until_winner"),
        (dict(mode="maesters", variant="competitive", until_winner="yes"), "until_winner"),
        (dict(render_mode="rgb"), "render_mode"),
        (dict(max_cycles=0), "max_cycles"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        shakes_v0.raw_env(**kwargs)


def test_bad_chance_outcomes_raise():
    state = CourtGame(3).new_initial_state()
    with pytest.raises(ValueError, match="arrangement"):
        state.apply((4, 4, 1))
    state = state.apply((4, 1, 1)).apply(0)
    with pytest.raises(ValueError, match="d6"):
        state.apply(7)


@given(st.one_of(st.integers(-10, 1), st.integers(7, 100), st.floats(), st.text(max_size=3)))
def test_any_bad_player_count_raises(num_players):
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to 6"):
        shakes_v0.raw_env(num_players=num_players)
    with pytest.raises(ValueError, match="num_players"):
        shakes_v0.raw_env(num_players=num_players, mode="maesters")
