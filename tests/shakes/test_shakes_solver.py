"""The Shakes exact solvers: argument probabilities, policy values, the Bayes-optimal DP, the CLI."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dice_envs.agents.cli import main as cli_main
from dice_envs.agents.shakes.argument import (
    argument_win_probabilities,
    batch_win_probabilities,
    strength_tables,
    win_probabilities,
)
from dice_envs.agents.shakes.policies import POLICIES, dice_rule, greedy, posterior, thompson
from dice_envs.agents.shakes.solver import ShakesModel, pair_index, reference_value, solve
from dice_envs.games.shakes.rules import ARGUE, TREAT, MaestersGame, ShakesRules

records = st.integers(2, 6).flatmap(
    lambda n: st.lists(
        st.integers(0, 8).flatmap(lambda t: st.tuples(st.just(t), st.integers(0, t))), min_size=n, max_size=n
    )
)


@settings(max_examples=40, deadline=None)
@given(records)
def test_batch_argument_probabilities_equal_exact(record):
    exact = argument_win_probabilities(tuple(record))
    assert sum(exact) == 1 and all(p > 0 for p in exact)
    eq, below = strength_tables(8)
    rows = np.array([[pair_index(t, s) for t, s in record]])
    assert np.allclose(batch_win_probabilities(rows, eq, below)[0], [float(p) for p in exact], atol=1e-13)


def test_argument_symmetry_and_simple_cases():
    assert argument_win_probabilities(((0, 0),) * 4) == (Fraction(1, 4),) * 4
    # One die each versus the maximum of two dice (treated 1, saved 1), ties re-rolled:
    # P(win) = P(X > Y) / (1 - P(X = Y)) with X the max of two d6 and Y one d6.
    x = {m: Fraction(2 * m - 1, 36) for m in range(1, 7)}
    gt = sum(x[m] * Fraction(m - 1, 6) for m in x)
    tie = sum(x[m] * Fraction(1, 6) for m in x)
    assert argument_win_probabilities(((1, 1), (0, 0)))[0] == gt / (1 - tie)
    with pytest.raises(ValueError, match="always tie"):
        win_probabilities([[(3, 1)], [(3, 1)]])


def test_argument_probabilities_match_the_environment_rolls():
    """Arguments resolved by the rules core's dice (ties re-rolled) vs the exact recursion."""
    record = ((3, 2), (0, 0), (5, 1), (2, 2))
    game = MaestersGame(4)
    start = game.new_initial_state().apply((4, 2, 1, 1))._with(
        treated=tuple(t for t, _ in record), saved=tuple(s for _, s in record)
    )
    for _ in range(4):
        start = start.apply(ARGUE)
    rng = np.random.default_rng(0)
    games = 20000
    counts = np.zeros(4)
    for _ in range(games):
        state = start
        while state.phase != TREAT:
            state = state.apply(state.sample_chance(rng))
        counts[state.patient_to] += 1
    exact = np.array([float(p) for p in argument_win_probabilities(record)])
    se = np.sqrt(exact * (1 - exact) / games)
    assert (np.abs(counts / games - exact) < 4.5 * se).all()


@pytest.mark.parametrize("n, states", [(2, 924), (3, 3393), (4, 76479), (5, 160541), (6, 253813)])
def test_number_of_exchangeable_states(n, states):
    # Counted independently by enumerating multisets of (treated, saved) pairs.
    assert ShakesModel(n).num_states == states


@pytest.mark.parametrize("name", ["dice_rule", "thompson", "greedy", "random"])
def test_vectorised_values_equal_exact_reference_two_players(name):
    solution = solve(2)
    for objective, attr in (("win", "team_win"), ("saved", "expected_saved")):
        exact = reference_value(2, POLICIES[name], objective)
        assert getattr(solution.policies[name], attr) == pytest.approx(float(exact), abs=1e-13)


@pytest.mark.parametrize("name", ["thompson", "greedy"])
def test_vectorised_values_equal_exact_reference_three_players(name):
    solution = solve(3, policies=(name,))
    exact = reference_value(3, POLICIES[name], "win")
    assert solution.policies[name].team_win == pytest.approx(float(exact), abs=1e-13)


def test_optimal_policy_value_is_reproduced_by_playing_it_exactly():
    solution = solve(3)
    assert float(reference_value(3, solution.policy("optimal"), "win")) == pytest.approx(
        solution.policies["optimal"].team_win, abs=1e-12
    )


def test_table_choices_equal_the_exact_policies():
    model = ShakesModel(4)
    model.add_dice_rule()
    rng = np.random.default_rng(1)
    for level in model.levels[1:-1:3]:
        for i in rng.choice(len(level.rows), size=min(5, len(level.rows)), replace=False):
            record = tuple((int(model.pair_t[x]), int(model.pair_s[x])) for x in level.rows[i])
            for name, fn in (("thompson", thompson), ("greedy", greedy), ("dice_rule", dice_rule)):
                exact = [float(p) for p in fn(model.efficacies, record)]
                assert np.allclose(level.choices[name][i], exact, atol=1e-12), (name, record)


def test_thompson_is_posterior_probability_of_the_top_card():
    efficacies = (4, 2, 1, 1)
    record = ((2, 2), (3, 1), (0, 0), (1, 0))
    post = posterior(efficacies, record)
    assert sum(p for _, p in post) == 1
    ts = thompson(efficacies, record)
    assert ts == tuple(sum(p for perm, p in post if perm[i] == 4) for i in range(4))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_policy_is_binomial_and_optimal_dominates(n):
    rules = ShakesRules(n)
    for objective in ("win", "saved"):
        solution = solve(n, objective)
        big_n, thr = rules.patients, rules.threshold
        win = sum(math.comb(big_n, k) * Fraction(1, 3) ** k * Fraction(2, 3) ** (big_n - k) for k in range(thr, big_n + 1))
        assert solution.policies["random"].team_win == pytest.approx(float(win), abs=1e-13)
        assert solution.policies["random"].expected_saved == pytest.approx(big_n / 3, abs=1e-12)
        best = {"win": "team_win", "saved": "expected_saved"}[objective]
        top = getattr(solution.policies["optimal"], best)
        for name, result in solution.policies.items():
            assert getattr(result, best) <= top + 1e-12, name
        assert top <= getattr(solution.full_information, best) + 1e-12
        assert solution.dice_vs_thompson["tv_by_patient"][0] == pytest.approx(0.0, abs=1e-15)


def test_pinned_two_player_values():
    """Values checked against the exact Fraction reference; pinned to catch regressions."""
    solution = solve(2)
    assert solution.policies["optimal"].team_win == pytest.approx(0.6029663528103897, abs=1e-12)
    assert solution.policies["dice_rule"].team_win == pytest.approx(0.5349369497199244, abs=1e-12)
    assert solution.policies["thompson"].team_win == pytest.approx(0.5526147886198751, abs=1e-12)
    assert solution.full_information.team_win == pytest.approx(3302 / 4096, abs=1e-15)


def test_solution_policy_maps_records_back_to_treatments():
    solution = solve(3)
    probs = solution.policy("thompson")((4, 1, 1), ((0, 0), (3, 3), (1, 0)))
    exact = thompson((4, 1, 1), ((0, 0), (3, 3), (1, 0)))
    assert np.allclose(probs, [float(p) for p in exact])
    with pytest.raises(ValueError, match="not a state"):
        solution.policy()((4, 1, 1), ((13, 0), (0, 0), (0, 0)))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: solve(7), "num_players"),
        (lambda: solve(3, "lives"), "objective"),
        (lambda: solve(3, policies=("oracle",)), "unknown policies"),
        (lambda: ShakesModel(3, efficacies=(4, 1)), "efficacies"),
        (lambda: ShakesModel(3, patients=0), "patients"),
        (lambda: ShakesModel(3, threshold=13), "threshold"),
    ],
)
def test_bad_solver_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_cli_json(capsys):
    assert cli_main(["solve", "shakes", "--players", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["policies"]) == {"optimal", "dice_rule", "thompson", "greedy", "random"}
    for row in report["policies"].values():
        assert 0 <= row["team_win"] <= 1 and 0 <= row["expected_saved"] <= 12
    assert report["seconds"] > 0 and report["objective"] == "win"
    assert cli_main(["solve", "shakes", "--players", "2", "--objective", "saved", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["objective"] == "saved"


def test_cli_bad_players(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["solve", "shakes", "--players", "9"])
    assert exit_info.value.code == 2
    assert "--players must be an integer from 2 to 6" in capsys.readouterr().err


@pytest.mark.parametrize("n", [2, 3])
def test_competitive_always_argue_is_a_best_response(n):
    from dice_envs.agents.shakes.solver import competitive_best_response, competitive_outcome

    outcome = competitive_outcome(n)
    check = competitive_best_response(n)
    win = outcome["each_seat_wins"]
    lose = 1 - outcome["draw"] - win
    assert check["always_argue_value"] == pytest.approx(win - lose, abs=1e-12)
    assert check["best_response_value"] == pytest.approx(check["always_argue_value"], abs=1e-12)
    assert check["states_where_yielding_is_better"] == 0
