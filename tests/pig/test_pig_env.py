"""The Pig environment: PettingZoo API, reproducibility, rules, bad input."""

from fractions import Fraction

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import dice_envs
from dice_envs import pig_v0
from dice_envs.core.dice import Die, d
from dice_envs.core.game import IllegalActionError
from dice_envs.games.pig.rules import HOLD, ROLL, PigGame


@pytest.mark.parametrize("kwargs", [dict(), dict(goal=10), dict(die=d(6).loaded(6, 2)), dict(die=d(8))])
def test_api(kwargs):
    api_test(pig_v0.env(**kwargs), num_cycles=300)


def test_seed():
    seed_test(pig_v0.env, num_cycles=300)
    seed_test(lambda: pig_v0.env(goal=20, die=d(6).loaded(1, Fraction(5, 4))), num_cycles=300)


def test_registry_and_module_forms():
    env = pettingzoo.make("aec", "dice_envs/pig-v0", goal=50)
    assert isinstance(env.unwrapped, pig_v0.raw_env)
    assert env.unwrapped.game.goal == 50
    assert dice_envs.all_environments["pig_v0"] is pig_v0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(goal=0), "goal"),
        (dict(goal=2.5), "goal"),
        (dict(goal=True), "goal"),
        (dict(goal="100"), "goal"),
        (dict(die=6), "die must be"),
        (dict(die=Die(("pig", "two"))), "positive integers"),
        (dict(die=Die((0, 1, 2))), "positive integers"),
        (dict(die=Die((1, 2), (1, 0))), "scoring face"),
        (dict(die=Die((1,))), "scoring face"),
        (dict(render_mode="rgb"), "render_mode"),
        (dict(max_cycles=0), "max_cycles"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        pig_v0.raw_env(**kwargs)


def test_must_roll_first_and_illegal_action_message():
    env = pig_v0.raw_env()
    env.reset(seed=0)
    assert env.observe("player_0")["action_mask"].tolist() == [0, 1]
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0]
    with pytest.raises(IllegalActionError, match="action 0 \\(hold\\) is illegal.*legal actions: 1=roll"):
        env.step(HOLD)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(7)


def test_wrapped_env_punishes_illegal_action():
    env = pig_v0.env()
    env.reset(seed=0)
    env.step(HOLD)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1, "player_1": 0}


def test_rules_bust_hold_and_immediate_win():
    game = PigGame(goal=10)
    s = game.new_initial_state()
    s = s.apply(ROLL)
    assert s.is_chance_node() and dict(s.chance_outcomes()) == {f: Fraction(1, 6) for f in range(1, 7)}
    s = s.apply(4)
    assert s.current_player == 0 and s.turn_total == 4 and s.legal_actions() == (HOLD, ROLL)
    s = s.apply(HOLD)
    assert s.scores == (4, 0) and s.current_player == 1 and s.turn_total == 0
    s = s.apply(ROLL).apply(6).apply(ROLL).apply(1)  # bust: nothing banked
    assert s.scores == (4, 0) and s.current_player == 0 and s.turn_total == 0
    s = s.apply(ROLL).apply(2).apply(ROLL).apply(5)  # 4 + 7 >= 10: wins at once
    assert s.is_terminal() and s.winner == 0 and s.scores == (11, 0) and s.returns() == (1.0, -1.0)
    with pytest.raises(IllegalActionError, match="game is over"):
        s.apply(ROLL)


def test_chance_outcome_must_be_a_face_of_the_die():
    s = PigGame(die=Die((1, 2, 3), (1, 1, 0))).new_initial_state().apply(ROLL)
    assert [f for f, _ in s.chance_outcomes()] == [1, 2]
    for bad in (7, 3, "six"):
        with pytest.raises(ValueError, match="not a face"):
            s.apply(bad)


def test_observation_layout():
    s = PigGame(goal=50).new_initial_state().apply(ROLL).apply(5)
    assert s.observation(0).tolist() == [0, 0, 5, 1]
    assert s.observation(1).tolist() == [0, 0, 5, 0]
    s = s.apply(HOLD)
    assert s.observation(0).tolist() == [5, 0, 0, 0]
    assert s.observation(1).tolist() == [0, 5, 0, 1]


dice = st.lists(st.integers(0, 4), min_size=2, max_size=8).filter(lambda w: sum(w[1:]) > 0)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), goal=st.integers(1, 40), weights=dice)
def test_random_play_invariants(seed, goal, weights):
    """Scores never decrease, a 1 loses the turn total, the winner reached the goal first,
    observations fit the space, and illegal actions are refused with a message."""
    die = Die(tuple(range(1, len(weights) + 1)), weights)
    env = pig_v0.raw_env(goal=goal, die=die)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    space = env.observation_space("player_0")["observation"]
    for agent in env.agent_iter(max_iter=5000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        before = env.game_state
        assert space.contains(obs["observation"])
        assert space.contains(env.observe(env.possible_agents[1 - before.mover])["observation"])
        if not before.rolled:
            with pytest.raises(IllegalActionError):
                env.step(HOLD)
        action = ROLL if not before.rolled or rng.random() < 0.8 else HOLD
        env.step(action)
        after = env.game_state
        assert all(a >= b for a, b in zip(after.scores, before.scores))
        if action == HOLD:
            assert after.scores[before.mover] == before.scores[before.mover] + before.turn_total
        elif not after.is_terminal() and after.mover != before.mover:  # bust
            assert after.scores == before.scores
    state = env.game_state
    assert state.is_terminal()
    assert state.scores[state.winner] >= goal > state.scores[1 - state.winner]
    assert sorted(state.returns()) == [-1.0, 1.0]


def test_render_ansi_and_human(capsys):
    env = pig_v0.raw_env(render_mode="ansi")
    env.reset(seed=3)
    env.step(ROLL)
    text = env.render()
    assert "player_0" in text and "rolled" in text
    human = pig_v0.raw_env(render_mode="human")
    human.reset(seed=3)
    human.step(ROLL)
    assert "turn total" in capsys.readouterr().out


@settings(max_examples=50, deadline=None)
@given(goal=st.one_of(st.integers(max_value=0), st.floats(allow_nan=True), st.text(max_size=3), st.booleans()))
def test_any_bad_goal_raises_value_error(goal):
    with pytest.raises(ValueError, match="goal must be a positive integer"):
        PigGame(goal=goal)


@settings(max_examples=50, deadline=None)
@given(faces=st.lists(st.integers(-3, 12), min_size=1, max_size=6, unique=True))
def test_die_faces_are_validated(faces):
    """A die is accepted exactly when its faces are positive integers with a scoring face."""
    die = Die(tuple(faces))
    ok = all(f >= 1 for f in faces) and any(f > 1 for f in faces)
    if ok:
        assert PigGame(goal=5, die=die).die is die
    else:
        with pytest.raises(ValueError, match="die"):
            PigGame(goal=5, die=die)


@pytest.mark.parametrize("opponent", ["optimal", "hold_at_20", "random"])
def test_single_agent_pig_id(opponent):
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("dice_envs/Pig-v0", opponent=opponent, goal=30)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["action_mask"].tolist() == [0, 1]
    with pytest.raises(ValueError, match="opponent"):
        gymnasium.make("dice_envs/Pig-v0", opponent="hold_at")


def paired_observations(kind_a: str, kind_b: str, steps: int = 60):
    """Two ``dice_envs/Pig-v0`` envs (goal 30, seat 0) with the observations ``kind_a`` and
    ``kind_b``, played alike (hold now and then, once it is legal; reset with the same seeds):
    yields ``(a, b, env_b)``, their observations of the same position, before each step."""
    import gymnasium

    env_a = gymnasium.make("dice_envs/Pig-v0", goal=30, seat=0, observation=kind_a)
    env_b = gymnasium.make("dice_envs/Pig-v0", goal=30, seat=0, observation=kind_b)
    a, _ = env_a.reset(seed=4)
    b, _ = env_b.reset(seed=4)
    for step in range(steps):
        yield a, b, env_b
        action = 0 if step % 3 == 0 and a[2] > 0 else 1
        a, _, done, _, _ = env_a.step(action)
        b, _, done_b, _, _ = env_b.step(action)
        assert done == done_b
        if done:
            a, _ = env_a.reset(seed=step)
            b, _ = env_b.reset(seed=step)


def test_scaled_observation_is_the_full_one_over_the_goal():
    import gymnasium

    for a, b, scaled in paired_observations("full", "scaled"):
        np.testing.assert_allclose(b, a * np.array([1 / 30, 1 / 30, 1 / 30, 1], np.float32), rtol=1e-6)
        assert scaled.observation_space.contains(b)
    with pytest.raises(ValueError, match="observation"):
        gymnasium.make("dice_envs/Pig-v0", observation="compact")


def test_fourier_observation_is_the_scaled_one_with_its_waves():
    import gymnasium

    from dice_envs.core.encodings import FOURIER_FREQUENCIES

    vec = gymnasium.make_vec("dice_envs/Pig-v0", num_envs=3, vectorization_mode="vector_entry_point", goal=30,
                             observation="fourier")
    for a, b, fourier in paired_observations("scaled", "fourier"):
        assert fourier.observation_space.shape == (44,) and vec.single_observation_space == fourier.observation_space
        i, j, k = (float(x) for x in a[:3])
        waves = [f(np.pi * freq * x) for f in (np.sin, np.cos) for freq in FOURIER_FREQUENCIES for x in (i, j, k, i + k)]
        np.testing.assert_allclose(b, np.concatenate([a, waves]), atol=1e-5)
        assert fourier.observation_space.contains(b)
    obs, _ = vec.reset(seed=0)
    assert all(vec.single_observation_space.contains(o) for o in obs)

