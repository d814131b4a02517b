"""Exact scoring of court agents in The Shakes (dice_envs.agents.shakes.evaluation):
the solver's policies as observation agents score the solver's values, asymmetric
agents match the exact (Fraction) reference evaluator and Monte Carlo play of
dice_envs/Shakes-v0, and bad answers are clear errors."""

from fractions import Fraction
from itertools import product
from math import comb

import gymnasium
import numpy as np
import pytest

import dice_envs  # noqa: F401  (registers the Gymnasium ids)
from dice_envs.agents.evaluate.contract import uniform_agent
from dice_envs.agents.shakes.evaluation import (
    REFERENCE_POLICIES,
    _level_keys,
    _solved,
    observations,
    ordered_states,
    score_agent,
    solver_agent,
)
from dice_envs.agents.shakes.solver import pair_index, reference_value
from dice_envs.core.resources import ResourceLimitError
from dice_envs.games.shakes.rules import ShakesRules


# An order-dependent court: the first treatment (in the treatments' order) with fewer than
# two failures, else the one with the most saves (the lowest index on ties), played with
# probability 7/10; treatment 0 with the remaining 3/10.
def _asymmetric_choice(record):
    for i, (t, s) in enumerate(record):
        if t - s < 2:
            return i
    return max(range(len(record)), key=lambda i: (record[i][1], -i))


def asymmetric_policy(efficacies, record):
    """The court above as a record policy for shakes_solver.reference_value (exact)."""
    out = [Fraction(0)] * len(record)
    out[_asymmetric_choice(record)] += Fraction(7, 10)
    out[0] += Fraction(3, 10)
    return tuple(out)


def asymmetric_agent(obs, masks):
    """The same court as an observation agent over Shakes-v0's observations."""
    n = masks.shape[1]
    out = np.zeros(masks.shape)
    for row, o in enumerate(obs):
        record = tuple(zip(o[:n].astype(int), o[n:2 * n].astype(int)))
        out[row, _asymmetric_choice(record)] += 0.7
        out[row, 0] += 0.3
    return out


def vectorised_asymmetric_agent(obs, masks):
    n = masks.shape[1]
    t, s = obs[:, :n], obs[:, n:2 * n]
    ok = (t - s) < 2
    first_ok = np.argmax(ok, axis=1)
    most_saved = np.argmax(s, axis=1)  # the lowest index among the most saves
    choice = np.where(ok.any(axis=1), first_ok, most_saved)
    out = np.zeros(masks.shape)
    out[np.arange(len(obs)), choice] += 0.7
    out[:, 0] += 0.3
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_optimal_agent_scores_the_optimum(players):
    result = score_agent(solver_agent("optimal", players), players)
    assert abs(result["gap"]) < 1e-12
    assert result["optimal_value"] == _solved(players, "win").policies["optimal"].team_win
    assert result["states"] == ordered_states(players) == {2: 1820, 3: 18564, 4: 1562275}[players]
    assert set(result["references"]) == set(REFERENCE_POLICIES)


def test_optimal_agent_for_expected_saved():
    result = score_agent(solver_agent("optimal", 3, "saved"), 3, objective="saved")
    assert abs(result["gap"]) < 1e-12
    assert result["optimal_value"] == pytest.approx(_solved(3, "saved").policies["optimal"].expected_saved)


@pytest.mark.parametrize("players", [3, 4])
def test_named_policies_as_observation_agents_match_the_solver(players):
    solution = _solved(players, "win")
    for name in ("thompson", "greedy", "random"):
        result = score_agent(solver_agent(name, players), players)
        assert result["value"] == pytest.approx(solution.policies[name].team_win, abs=1e-12)
        assert result["gap"] == pytest.approx(result["references"][name], abs=1e-12)
    assert score_agent(uniform_agent, players)["value"] == pytest.approx(solution.policies["random"].team_win,
                                                                          abs=1e-12)


@pytest.mark.parametrize("players,objective", [(2, "win"), (2, "saved"), (3, "win")])
def test_asymmetric_agent_matches_the_exact_reference(players, objective):
    exact = reference_value(players, asymmetric_policy, objective)
    result = score_agent(asymmetric_agent, players, objective)
    assert result["value"] == pytest.approx(float(exact), abs=1e-12)


def test_asymmetric_agent_matches_monte_carlo_play_of_the_env():
    players, episodes = 4, 3000
    exact = score_agent(vectorised_asymmetric_agent, players)["value"]
    env = gymnasium.make("dice_envs/Shakes-v0", num_players=players)
    rng = np.random.default_rng(7)
    returns = []
    obs, _ = env.reset(seed=11)
    for _ in range(episodes):
        total, done = 0.0, False
        while not done:
            probs = vectorised_asymmetric_agent(obs[None], np.ones((1, players), bool))[0]
            obs, reward, terminated, truncated, _ = env.step(int(rng.choice(players, p=probs)))
            total += reward
            done = terminated or truncated
        returns.append(total)
        obs, _ = env.reset()
    mean, se = np.mean(returns), np.std(returns) / np.sqrt(episodes)
    assert abs(mean - exact) < 4 * se, (mean, se, exact)


def test_observations_equal_the_envs():
    env = gymnasium.make("dice_envs/Shakes-v0", num_players=5)
    rules = ShakesRules(5)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        record = env.unwrapped.game_state.record
        t = np.array([[x for x, _ in record]])
        s = np.array([[y for _, y in record]])
        np.testing.assert_array_equal(observations(t, s, rules.patients)[0], obs)
        obs, _, terminated, truncated, _ = env.step(int(rng.integers(5)))
        if terminated or truncated:
            obs, _ = env.reset()


@pytest.mark.parametrize("players,treated", [(2, 0), (2, 4), (3, 5), (4, 3)])
def test_level_keys_are_every_ordered_record_once_in_order(players, treated):
    model = _solved(players, "win").model
    keys = _level_keys(model, treated)
    pairs = [(t, s) for t in range(treated + 1) for s in range(t + 1)]
    brute = sorted(
        model.encode(np.array([[pair_index(t, s) for t, s in record]]))[0]
        for record in product(pairs, repeat=players) if sum(t for t, _ in record) == treated
    )
    assert len(keys) == comb(treated + 2 * players - 1, 2 * players - 1)
    np.testing.assert_array_equal(keys, brute)


@pytest.mark.parametrize("answer,message", [
    (lambda obs, masks: np.ones((len(obs), 2)), "shape"),
    (lambda obs, masks: np.full(masks.shape, np.nan), "non-finite"),
    (lambda obs, masks: np.full(masks.shape, 0.5), "sum to 1"),
    (lambda obs, masks: np.tile([1.5, -0.5, 0.0], (len(obs), 1)), r"outside \[0, 1\]"),
    (lambda obs, masks: "treatment 0", "array of action probabilities"),
])
def test_bad_answers_are_clear_errors(answer, message):
    with pytest.raises(ValueError, match=message):
        score_agent(answer, 3)


def test_bad_arguments_and_the_resource_guard(monkeypatch):
    with pytest.raises(ValueError, match="num_players"):
        score_agent(uniform_agent, 7)
    with pytest.raises(ValueError, match="objective"):
        score_agent(uniform_agent, 3, objective="lives")
    monkeypatch.setenv("DICE_ENVS_MAX_SECONDS", "60")
    with pytest.raises(ResourceLimitError, match="86,493,225 ordered records"):
        score_agent(uniform_agent, 6)  # refused before anything is built
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "100M")
    with pytest.raises(ResourceLimitError, match="memory"):
        score_agent(uniform_agent, 4)


def test_named_agents():
    from dice_envs.agents.shakes.evaluation import named_agents

    names = named_agents(2)
    assert set(names) == {"optimal", *REFERENCE_POLICIES}
    solution = _solved(2, "win")
    for name, make in names.items():
        assert score_agent(make(), 2)["value"] == pytest.approx(solution.policies[name].team_win, abs=1e-12)
