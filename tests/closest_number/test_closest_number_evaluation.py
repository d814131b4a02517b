"""Exact scoring of agents in two-player Closest Number
(dice_envs.agents.closest_number.evaluation): the round-tree evaluators against the
generic ones, the whole-game figures against the explicit whole-game tree, the
equilibrium as an observation agent, Monte Carlo play of dice_envs/ClosestNumber-v0,
and the observations the scorer builds against the env's."""

import dataclasses

import gymnasium
import numpy as np
import pytest

import dice_envs  # noqa: F401  (registers the Gymnasium ids)
from dice_envs.agents.closest_number.evaluation import (
    TreeArrays,
    best_response_values,
    equilibrium_agent,
    expected_values,
    score_agent,
    scored_game,
)
from dice_envs.agents.closest_number.opponents import equilibrium
from dice_envs.agents.evaluate.contract import uniform_agent
from dice_envs.agents.solve.exploitability import best_response, expected_returns, exploitability
from dice_envs.agents.solve.game_tree import build_tree
from dice_envs.core.resources import ResourceLimitError
from dice_envs.games.closest_number.rules import ClosestNumberGame


def score_dependent_agent(obs, masks):
    """A stochastic agent that reads its own score, the other's score and the round
    (their positions in the observation: the last 10 entries are 2 scores, 2 starter
    flags, 2 contention flags, round, decoy round, cards left, decoy left)."""
    own, other, round_ = obs[:, [-10]], obs[:, [-9]], obs[:, [-4]]
    actions = np.arange(masks.shape[1])[None, :]
    w = masks * (1.0 + actions * (1 + own % 3) + (actions % 2) * other + round_)
    return w / w.sum(axis=1, keepdims=True)


def _table_list(table, k):
    return [row[:, k] for row in table]


def test_round_tree_evaluators_match_the_generic_ones():
    scored = scored_game(6)
    tree = scored.solver.tree(2)
    arrays = TreeArrays.from_tree(tree)
    rng = np.random.default_rng(1)
    variants = 3
    table = np.zeros((len(tree.infosets), arrays.num_actions, variants))
    for j, info in enumerate(tree.infosets):
        table[j, : len(info.actions)] = rng.dirichlet(np.ones(len(info.actions)), size=variants).T
    leaf = rng.normal(size=(len(arrays.terminals), variants))
    ours = expected_values(arrays, table, leaf)
    for player in (0, 1):
        br = best_response_values(arrays, table, leaf * (1 if player == 0 else -1), player)
        for k in range(variants):
            payoff = {i: (leaf[t, k], -leaf[t, k]) for t, i in enumerate(arrays.terminals)}
            variant = dataclasses.replace(tree, payoff=payoff)
            policy = [row[: len(info.actions), k] for row, info in zip(table, tree.infosets)]
            assert ours[k] == pytest.approx(expected_returns(variant, policy)[0], abs=1e-12)
            assert br[k] == pytest.approx(best_response(variant, policy, player)[0], abs=1e-12)


def _tabulate(tree, game, agent):
    """The agent's table on an explicit tree, asked in one batch."""
    obs = np.array([info.state.observation(info.player) for info in tree.infosets])
    masks = np.zeros((len(obs), game.num_actions), bool)
    for j, info in enumerate(tree.infosets):
        masks[j, list(info.actions)] = True
    probs = agent(obs, masks)
    return [probs[j, list(info.actions)] for j, info in enumerate(tree.infosets)]


def test_whole_game_figures_match_the_explicit_whole_game_tree():
    """On four numbers (round 3 = one card) the whole game is an explicit tree: the
    scorer's exploitability and payoffs against the equilibrium, chained round by round
    over the scores the agent sees, equal the generic evaluators' on it."""
    game = ClosestNumberGame(2, 4, starting_player=0, round3="one_card")
    tree = build_tree(game)
    eq = equilibrium(4, "one_card")
    from dice_envs.agents.solve.exploitability import tabulate_policy

    eq_table = tabulate_policy(tree, eq)
    for agent in (score_dependent_agent,):
        table = _tabulate(tree, game, agent)
        result = score_agent(agent, 4, "one_card")
        assert result["exploitability"] == pytest.approx(exploitability(tree, table), abs=1e-12)
        first = [table[j] if info.player == 0 else eq_table[j] for j, info in enumerate(tree.infosets)]
        second = [eq_table[j] if info.player == 0 else table[j] for j, info in enumerate(tree.infosets)]
        assert result["value_as_first"] == pytest.approx(expected_returns(tree, first)[0], abs=1e-12)
        assert result["value_as_second"] == pytest.approx(expected_returns(tree, second)[1], abs=1e-12)


def test_equilibrium_agent_scores_the_equilibrium():
    result = score_agent(equilibrium_agent(10), 10)
    solver = scored_game(10).solver
    assert result["exploitability"] == pytest.approx(solver.exploitability(), abs=1e-9)
    assert result["equilibrium_exploitability"] == solver.exploitability()
    assert abs(result["gap"]) < 1e-12
    assert result["value_as_first"] == pytest.approx(solver.value(1, 0), abs=1e-12)
    assert result["optimal_value"] == 0.0
    assert result["positions"] == 48
    assert set(result) >= {"value_as_first", "value_as_second", "value", "optimal_value", "gap", "exploitability",
                           "references"}
    assert result["references"]["random"] == pytest.approx(score_agent(uniform_agent, 10)["gap"], abs=1e-15)
    assert result["reference_exploitability"]["random"] > 0.9


def test_scorer_observations_and_equilibrium_agent_equal_the_envs():
    """At the agent's decisions in played games: the observation the scorer builds for
    that round start and information state is the env's, the position is one the scorer
    reached, and the equilibrium agent answers as the solver's policy."""
    scored = scored_game(10)
    agent = equilibrium_agent(10)
    policy = equilibrium(10, "two_cards")
    env = gymnasium.make("dice_envs/ClosestNumber-v0", opponent="random", numbers=10)
    rng = np.random.default_rng(2)
    seen = set()
    for episode in range(25):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            state, seat = env.unwrapped.game_state, env.unwrapped.seat
            r, a, b, j = scored.locate(state, seat)
            assert (a, b) in scored.rounds[r].positions
            np.testing.assert_array_equal(scored.observations(r, np.array([j]), np.array([a]), np.array([b]))[0], obs)
            mask = info["action_mask"].astype(bool)
            expected = np.zeros(len(mask))
            for action, p in policy.action_probabilities(state).items():
                expected[action] = p
            np.testing.assert_allclose(agent(obs[None], mask[None])[0], expected, atol=1e-12)
            seen.add(r)
            obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = terminated or truncated
    assert {1, 2} <= seen


@pytest.mark.parametrize("agent,numbers,episodes", [(uniform_agent, 6, 1500), (score_dependent_agent, 6, 1500)])
def test_agents_match_monte_carlo_play_of_the_env_against_the_equilibrium(agent, numbers, episodes):
    result = score_agent(agent, numbers)
    env = gymnasium.make("dice_envs/ClosestNumber-v0", opponent="equilibrium", numbers=numbers)
    rng = np.random.default_rng(3)
    returns = []
    for episode in range(episodes):
        obs, info = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            mask = info["action_mask"].astype(bool)
            probs = agent(obs[None], mask[None])[0]
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(len(probs), p=probs)))
            total += reward
            done = terminated or truncated
        returns.append(total)
    mean, se = np.mean(returns), np.std(returns) / np.sqrt(episodes)
    assert abs(mean - result["value"]) < 4 * se + 1e-12, (mean, se, result["value"])


@pytest.mark.parametrize("answer,message", [
    (lambda obs, masks: np.ones((len(obs), 3)), "shape"),
    (lambda obs, masks: np.full(masks.shape, np.inf), "non-finite"),
    (lambda obs, masks: np.full(masks.shape, 1.0 / masks.shape[1]), "illegal actions"),
    (lambda obs, masks: masks * 1.0, "sum to 1"),
    (lambda obs, masks: -uniform_agent(obs, masks), r"outside \[0, 1\]"),
])
def test_bad_answers_are_clear_errors(answer, message):
    with pytest.raises(ValueError, match=message):
        score_agent(answer, 6)


def test_bad_arguments():
    with pytest.raises(ValueError, match="numbers"):
        score_agent(uniform_agent, 3)
    with pytest.raises(ValueError, match="round3"):
        score_agent(uniform_agent, 6, round3="three_cards")
    with pytest.raises(ResourceLimitError, match="40 numbers"):
        score_agent(uniform_agent, 40)  # refused before anything is built


def test_named_agents():
    from dice_envs.agents.closest_number.evaluation import named_agents

    names = named_agents(6)
    assert set(names) == {"equilibrium", "random"}
    assert score_agent(names["equilibrium"](), 6)["gap"] == 0.0
    assert score_agent(names["random"](), 6)["gap"] == score_agent(uniform_agent, 6)["references"]["random"]
