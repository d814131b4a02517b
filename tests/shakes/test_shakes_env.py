"""The Shakes environment: PettingZoo API, reproducibility, and exact values vs Monte Carlo play."""

import math

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import dice_envs
from dice_envs import shakes_v0
from dice_envs.agents.shakes.solver import competitive_outcome, solve
from dice_envs.core.game import IllegalActionError
from dice_envs.games.shakes.rules import ARGUE, YIELD

MODES = [dict(mode="court"), dict(mode="maesters"), dict(mode="maesters", variant="competitive")]


@pytest.mark.parametrize("num_players", [2, 6])
@pytest.mark.parametrize("kwargs", MODES, ids=["court", "maesters", "competitive"])
def test_api(num_players, kwargs):
    api_test(shakes_v0.env(num_players=num_players, **kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", MODES, ids=["court", "maesters", "competitive"])
def test_seed(kwargs):
    seed_test(lambda: shakes_v0.env(num_players=4, **kwargs), num_cycles=300)


def test_registry_and_module_forms():
    env = pettingzoo.make("aec", "dice_envs/shakes-v0", mode="maesters", num_players=5)
    assert isinstance(env.unwrapped, shakes_v0.raw_env)
    assert env.unwrapped.possible_agents == [f"player_{i}" for i in range(5)]
    assert dice_envs.all_environments["shakes_v0"] is shakes_v0
    court = shakes_v0.raw_env(num_players=5)
    assert court.possible_agents == ["player_0"] and court.action_space("player_0").n == 5


def test_masks_and_illegal_action_message():
    env = shakes_v0.raw_env(num_players=3, mode="maesters")
    env.reset(seed=0)
    assert env.observe("player_0")["action_mask"].tolist() == [1, 1]
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0]
    with pytest.raises(IllegalActionError, match="out of range.*legal actions: 0=yield, 1=argue"):
        env.step(2)
    court = shakes_v0.raw_env(num_players=3)
    court.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions: 0=treatment 0"):
        court.step(3)


def test_render_ansi():
    env = shakes_v0.raw_env(num_players=3, mode="maesters", render_mode="ansi")
    env.reset(seed=5)
    for _ in range(3):
        env.step(ARGUE)
    text = env.render()
    assert "player_0: argue" in text and "saved" in text


def _run_court(n, policy, games, seed):
    """Play the court env with ``policy(efficacies, record)``; return (wins, saved) arrays."""
    env = shakes_v0.raw_env(num_players=n)
    rng = np.random.default_rng(seed)
    wins, saved = np.zeros(games), np.zeros(games)
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                wins[g] = reward
                env.step(None)
                continue
            state = env.game_state
            probs = np.array(policy(state.rules.efficacies, state.record), dtype=float)
            env.step(int(rng.choice(n, p=probs / probs.sum())))
        saved[g] = env.game_state.total_saved
    return wins, saved


def _assert_close(samples, exact, sigmas=4.5):
    se = max(samples.std(ddof=1), 1e-9) / math.sqrt(len(samples))
    assert abs(samples.mean() - exact) < sigmas * se + 1e-12, (samples.mean(), exact, se)


@pytest.mark.parametrize("name", ["optimal", "thompson", "greedy", "dice_rule"])
def test_court_exact_values_match_monte_carlo(name):
    solution = solve(3)
    wins, saved = _run_court(3, solution.policy(name), 1500, seed=11)
    _assert_close(wins, solution.policies[name].team_win)
    _assert_close(saved, solution.policies[name].expected_saved)


def _run_maesters(n, joint_policy, games, seed, **kwargs):
    """Play the maesters env; ``joint_policy(observation, rules) -> action``."""
    env = shakes_v0.raw_env(num_players=n, mode="maesters", **kwargs)
    returns = np.zeros((games, n))
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                returns[g, env.agent_name_mapping[agent]] = reward
                env.step(None)
                continue
            env.step(joint_policy(obs["observation"], env.game.rules))
    return returns


def test_maesters_dice_rule_matches_exact_argument_values():
    """Everyone arguing by rolling real dice gives the dice rule's exact team-win value."""
    exact = solve(3, policies=("dice_rule",)).policies["dice_rule"].team_win
    returns = _run_maesters(3, lambda obs, rules: ARGUE, 2500, seed=7)
    assert (returns == returns[:, :1]).all()  # a shared team reward
    _assert_close(returns[:, 0], exact)


def test_maesters_best_joint_play_reaches_full_information():
    solution = solve(4, policies=("random",))
    top = max(solution.model.efficacies)
    returns = _run_maesters(4, lambda obs, rules: ARGUE if obs[0] == top else YIELD, 2000, seed=3)
    _assert_close(returns[:, 0], solution.full_information.team_win)


def test_competitive_draw_probability_matches_monte_carlo():
    exact = competitive_outcome(3)
    returns = _run_maesters(3, lambda obs, rules: ARGUE, 3000, seed=21, variant="competitive")
    draws = (returns == 0).all(axis=1).astype(float)
    _assert_close(draws, exact["draw"])
    for seat in range(3):
        _assert_close((returns[:, seat] == 1).astype(float), exact["each_seat_wins"])


def test_env_pickles_and_copies():
    import copy
    import pickle

    env = shakes_v0.env(num_players=4, mode="maesters")
    env.reset(seed=5)
    for _ in range(9):
        env.step(ARGUE)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.game_state.record == env.unwrapped.game_state.record
    assert copy.deepcopy(env).unwrapped.game_state.efficacies == env.unwrapped.game_state.efficacies
    with pytest.raises(IllegalActionError, match="action space"):
        env.step(2)
