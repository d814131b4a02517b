"""The Zombie Dice environment: PettingZoo API, reproducibility, rules, bad input."""

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import dice_envs
from dice_envs import zombie_dice_v0
from dice_envs.core.game import IllegalActionError
from dice_envs.games.zombie_dice.rules import HOLD, ROLL, ZombieDiceGame


@pytest.mark.parametrize("num_players", [2, 3, 8])
@pytest.mark.parametrize("variant", ["official", "all_yellow"])
def test_api(num_players, variant):
    api_test(zombie_dice_v0.env(num_players=num_players, variant=variant), num_cycles=300)


@pytest.mark.parametrize("variant", ["official", "all_yellow"])
def test_seed(variant):
    seed_test(lambda: zombie_dice_v0.env(variant=variant), num_cycles=300)


def test_registry_and_module_forms():
    env = pettingzoo.make("aec", "dice_envs/zombie_dice-v0", variant="all_yellow")
    assert isinstance(env.unwrapped, zombie_dice_v0.raw_env)
    assert env.unwrapped.game.variant == "all_yellow"
    assert dice_envs.all_environments["zombie_dice_v0"] is zombie_dice_v0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(num_players=1), "num_players"),
        (dict(num_players=9), "num_players"),
        (dict(num_players=2.5), "num_players"),
        (dict(variant="purple"), "variant"),
        (dict(goal=0), "goal"),
        (dict(stop_when_won="yes"), "stop_when_won"),
        (dict(render_mode="rgb"), "render_mode"),
        (dict(max_cycles=0), "max_cycles"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        zombie_dice_v0.raw_env(**kwargs)


def test_must_roll_first_and_illegal_action_message():
    env = zombie_dice_v0.raw_env()
    env.reset(seed=0)
    obs = env.observe("player_0")
    assert obs["action_mask"].tolist() == [0, 1]
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0]
    with pytest.raises(IllegalActionError, match="action 0 \\(hold\\) is illegal.*legal actions: 1=roll"):
        env.step(HOLD)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(5)


def test_wrapped_env_punishes_illegal_action():
    env = zombie_dice_v0.env()
    env.reset(seed=0)
    env.step(HOLD)  # PettingZoo logs a warning and ends the game
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1, "player_1": 0}


def play_random_game(env, rng, illegal_every=0):
    steps = 0
    for agent in env.agent_iter(max_iter=20_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.sum() >= 1
        if illegal_every and steps % illegal_every == illegal_every - 1 and mask.sum() < 2:
            with pytest.raises(IllegalActionError):
                env.step(int(np.flatnonzero(mask == 0)[0]))
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    return steps


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    num_players=st.integers(2, 8),
    variant=st.sampled_from(["official", "all_yellow"]),
    goal=st.integers(1, 15),
)
def test_random_play_with_illegal_attempts_never_crashes(seed, num_players, variant, goal):
    env = zombie_dice_v0.raw_env(num_players=num_players, variant=variant, goal=goal)
    env.reset(seed=seed)
    play_random_game(env, np.random.default_rng(seed), illegal_every=3)
    state = env.game_state
    assert state.is_terminal()
    returns = state.returns()
    assert sorted(returns) == [-1.0] * (num_players - 1) + [1.0]
    winner = state.winner
    assert state.scores[winner] >= goal
    assert state.scores[winner] == max(state.scores)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), variant=st.sampled_from(["official", "all_yellow"]))
def test_rules_invariants_along_random_play(seed, variant):
    """Dice are conserved, the cup never runs dry, shotguns end turns, observations fit the space."""
    game = ZombieDiceGame(3, variant)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    space = zombie_dice_v0.raw_env(num_players=3, variant=variant).observation_space("player_0")["observation"]
    for _ in range(400):
        assert all(space.contains(state.observation(seat)) for seat in range(3))  # busts and the end too
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(float(p) for _, p in outcomes) - 1) < 1e-12
            state = state.apply(state.sample_chance(rng))
            continue
        total = sum(state.cup) + sum(state.brain_dice) + sum(state.shotgun_dice) + sum(state.feet)
        assert total == 13
        assert state.shotguns < 3
        assert state.turn_brains >= sum(state.brain_dice)
        for seat in range(3):
            assert space.contains(state.observation(seat))
        state = state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("variant", ["official", "all_yellow"])
def test_the_box_is_finite_but_for_the_scores_and_the_turn_s_brains(variant):
    """Gymnasium's check_env asks for finite bounds: every part the rules bound has one (shotguns
    at most 5, flags 1, dice counts the dice); scores and turn brains have none."""
    n = 2
    space = zombie_dice_v0.raw_env(num_players=n, variant=variant).observation_space("player_0")["observation"]
    assert np.flatnonzero(np.isinf(space.high)).tolist() == [0, 1, 4 * n]
    assert space.high[4 * n + 1] == 5 and np.isfinite(space.low).all()


def test_cup_runs_out_brains_go_back():
    """With the cup empty, the brain dice return to it before drawing (shotguns stay out)."""
    game = ZombieDiceGame(2, "official")
    state = game.new_initial_state()._with(
        cup=(0, 0, 0), brain_dice=(5, 3, 2), shotgun_dice=(1, 0, 1), feet=(0, 1, 0), turn_brains=10,
        rolled=True, pending_roll=True,
    )
    outcomes = state.chance_outcomes()
    drawn_total = {sum(drawn) for (drawn, _), _ in outcomes}
    assert drawn_total == {2}
    (drawn, results), _ = outcomes[0]
    after = state.apply((drawn, results))
    assert after.turn_brains == 10 + sum(r[0] for r in results)
    assert sum(after.cup) == 10 - 2
    assert after.shotgun_dice[0] >= 1 and after.shotgun_dice[2] >= 1


def _play_turn(state, outcome_brains, hold=True):
    """Roll once with an all-yellow outcome of ``outcome_brains`` brains (rest footprints)."""
    state = state.apply(ROLL)
    drawn = (3 - sum(state.feet),)
    outcome = (drawn, ((outcome_brains, 0, 3 - outcome_brains),))
    state = state.apply(outcome)
    if hold and not state.is_terminal() and state.current_player != -1 and state.rolled:
        state = state.apply(HOLD)
    return state


def test_last_round_and_tiebreak_for_leaders_only():
    game = ZombieDiceGame(3, "all_yellow", goal=3, stop_when_won=False)
    state = game.new_initial_state()
    state = _play_turn(state, 3)  # player 0 reaches the goal: last round
    assert state.final and state.winner is None
    state = _play_turn(state, 0)  # player 1 holds nothing
    state = _play_turn(state, 3)  # player 2 ties player 0
    assert state.winner is None and state.active == (0, 2)  # tiebreak for the leaders only
    state = _play_turn(state, 1)
    state = _play_turn(state, 2)
    assert state.winner == 2 and state.returns() == (-1.0, -1.0, 1.0)


def test_stop_when_won_holds_automatically():
    game = ZombieDiceGame(2, "all_yellow", goal=3)
    state = game.new_initial_state()
    state = _play_turn(state, 3)
    state = _play_turn(state, 3, hold=False)  # player 2 ties: not decided, still to play
    assert state.winner is None and state.current_player == 1
    state = state.apply(ROLL).apply(((0,), ((1, 0, 2),)))  # one more brain: holding wins
    assert state.winner == 1


def test_render_ansi_and_human(capsys):
    env = zombie_dice_v0.raw_env(render_mode="ansi")
    env.reset(seed=3)
    env.step(ROLL)
    text = env.render()
    assert "player_0" in text and "brains" in text
    human = zombie_dice_v0.raw_env(render_mode="human")
    human.reset(seed=3)
    human.step(ROLL)
    assert "rolled" in capsys.readouterr().out


@settings(max_examples=30, deadline=None)
@given(actions=st.lists(st.one_of(st.integers(-2, 3), st.none()), min_size=1, max_size=200), seed=st.integers(0, 1000))
def test_wrapped_env_with_arbitrary_actions(actions, seed):
    """Any action sequence either plays on, ends the game with -1 for an illegal move,
    or is refused with a clear error (outside the action space, or None for a live agent)."""
    env = zombie_dice_v0.env(variant="all_yellow")
    env.reset(seed=seed)
    for action in actions:
        if not env.agents:
            break
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if action is None or not 0 <= action < 2:
            with pytest.raises(IllegalActionError, match="action space|only for agents whose game is over"):
                env.step(action)
            continue
        legal = bool(obs["action_mask"][action])
        env.step(action)
        if not legal:
            assert env.rewards[agent] == -1 and all(env.terminations.values())


def test_env_pickles_and_copies():
    import copy
    import pickle

    env = zombie_dice_v0.env(num_players=3)
    env.reset(seed=5)
    env.step(ROLL)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.game_state.scores == env.unwrapped.game_state.scores
    assert copy.deepcopy(env).unwrapped.game_state.turn_brains == env.unwrapped.game_state.turn_brains


def test_the_log_announces_a_bust_and_counts_brains_in_the_singular_too():
    state = ZombieDiceGame(variant="all_yellow").new_initial_state()
    state = state.apply(ROLL)
    text = state.describe_outcome(((3,), ((0, 3, 0),)))  # three yellow shotguns
    assert text.endswith("(3 shotguns: bust, the turn's brains are lost)"), text
    assert "bust" not in state.describe_outcome(((3,), ((1, 2, 0),)))
    rolled = state.apply(((3,), ((1, 0, 2),)))
    assert "turn: 1 brain, 0 shotguns;" in str(rolled)
    assert "player_0:   1 brain\n" in str(rolled.apply(HOLD))
