"""Closest Number solvers: round 1 (brute force through the rules core), the
full two-player equilibrium (checked on the explicit whole-game tree), and Monte
Carlo play of the environment."""

import itertools
import json

import numpy as np
import pytest

from dice_envs import closest_number_v0
from dice_envs.agents.cli import main
from dice_envs.agents.closest_number.round1 import solve_round1
from dice_envs.agents.closest_number.solver import ClosestNumberSolver, solve
from dice_envs.agents.solve.exploitability import expected_returns, exploitability, uniform_policy
from dice_envs.agents.solve.game_tree import build_tree
from dice_envs.agents.solve.sequence_form import solve_lp
from dice_envs.games.closest_number.rules import ClosestNumberGame, score_board

# -- round 1 alone ---------------------------------------------------------------------


def _brute_force_round1(players, numbers, tie_break):
    """Subgame-perfect round 1 by walking the rules core's own states (no shortcuts)."""
    game = ClosestNumberGame(players, numbers, starting_player=0)

    def walk(state):
        if state.round == 2:  # round 1 scored
            return (), state.scores
        best = None
        p = state.current_player
        for action in sorted(state.legal_actions()):
            picks, points = walk(state.apply(action))
            candidate = ((game.decode(action)[0],) + picks, points)
            if best is None:
                best = candidate
                continue
            new, old = candidate[1], best[1]
            if new[p] > old[p] or (new[p] == old[p] and (
                    tie_break == "highest"
                    or (tie_break == "spiteful" and sum(new) - new[p] < sum(old) - old[p]))):
                best = candidate
        return best

    return walk(game.new_initial_state())


@pytest.mark.parametrize("players, numbers", [(2, 4), (2, 7), (3, 6), (3, 7), (4, 8)])
@pytest.mark.parametrize("tie_break", ["lowest", "highest", "spiteful"])
def test_round1_matches_brute_force_through_the_rules_core(players, numbers, tie_break):
    solution = solve_round1(players, numbers, tie_break)
    picks, points = _brute_force_round1(players, numbers, tie_break)
    assert solution.placements == picks and solution.points == points


def test_round1_is_subgame_perfect_on_the_path():
    """Nobody on the equilibrium path gains by picking another number, the later
    players answering subgame-perfectly."""
    for players, numbers in [(2, 10), (3, 10), (3, 9)]:
        sol = solve_round1(players, numbers)
        for i in range(players):
            for k in set(range(1, numbers + 1)) - set(sol.placements[:i]):
                rest = _continue(players, numbers, sol.placements[:i] + (k,))
                assert score_board(enumerate(rest), players, numbers)[i] <= sol.points[i]


def _continue(players, numbers, prefix):
    while len(prefix) < players:
        i = len(prefix)
        options = [k for k in range(1, numbers + 1) if k not in prefix]
        finals = [_continue(players, numbers, prefix + (k,)) for k in options]
        prefix = max(finals, key=lambda f: (score_board(enumerate(f), players, numbers)[i], -f[i]))
    return prefix


def test_round1_answers_on_ten_numbers():
    # two players: the halves, 5 points each (1..5 and 6..10)
    two = solve_round1(2, 10)
    assert two.placements == (5, 6) and two.points == (5, 5) and two.best_first_moves == (5, 6)
    # three players: 5 would be surrounded (4 and 6); the first player takes 8 and keeps 6..10
    three = solve_round1(3, 10)
    assert three.placements == (8, 3, 2) and three.points == (5, 3, 2) and three.best_first_moves == (8,)
    assert solve_round1(3, 10, "highest").placements == (3, 8, 9)  # the mirror image
    spiteful = solve_round1(3, 10, "spiteful")
    assert spiteful.points == (4, 3, 2) and spiteful.best_first_moves == (8, 9)


def test_round1_bad_arguments():
    with pytest.raises(ValueError, match="tie_break must be one of"):
        solve_round1(2, 10, "random")
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to 5"):
        solve_round1(6, 10)
    with pytest.raises(ValueError, match="pick sequences"):
        solve_round1(6, 40)


# -- the full two-player game ------------------------------------------------------------


@pytest.fixture(scope="module")
def small():
    """The whole game on four numbers (round 3 = one card) as an explicit tree (144,305 nodes)."""
    game = ClosestNumberGame(2, 4, starting_player=0, round3="one_card")
    return game, build_tree(game)


def test_full_game_value_and_exploitability_agree_with_the_explicit_tree(small):
    game, tree = small
    solver = ClosestNumberSolver(4, "one_card")
    value = solver.solve_all()
    assert value == pytest.approx(solve_lp(tree).value, abs=1e-7)
    assert solver.exploitability() == pytest.approx(exploitability(tree, solver.policy()), abs=1e-9)
    assert solver.exploitability() <= 1e-9


def test_round_decomposed_best_responses_match_the_whole_game_for_any_strategy(small):
    """Scramble every round strategy: the round-by-round best responses still give
    the whole game's exploitability (the decomposition is exact, not just at equilibrium)."""
    game, tree = small
    solver = ClosestNumberSolver(4, "one_card")
    solver.solve_all()
    rng = np.random.default_rng(5)
    for sol in solver._solutions.values():
        sol.table = [rng.dirichlet(np.ones(len(row))) for row in sol.table]
    expected = exploitability(tree, solver.policy())
    assert expected > 0.05
    assert solver.exploitability() == pytest.approx(expected, abs=1e-9)


def test_round2_values_by_independent_pure_strategy_search():
    """Round 2's values are +-1: check them without the LP.  The starter wins if it has a pure
    strategy that wins against everything (its second card may depend on where the other's first
    card lies, not on its hidden flag); it loses if the other player has one."""
    for numbers in (5, 6, 7):
        solver = ClosestNumberSolver(numbers, "two_cards")
        for lead in (-1, 0, 1):
            payoff = {x: solver._leaf(2, lead + x) for x in range(-numbers, numbers + 1)}
            value = solver.value(2, lead)
            assert abs(value) == pytest.approx(1.0)
            if value > 0:
                assert _starter_forces(numbers, payoff, +1)
            else:
                assert _other_forces(numbers, payoff, -1)


def test_face_up_decoys_would_not_change_any_round_value():
    """The same solver with every decoy flag visible (a perfect-information variant) gives the same
    value in every round game: on these boards the hidden decoy does not change who wins."""
    from dice_envs.agents.closest_number.solver import RoundGame

    class FaceUp(ClosestNumberSolver):
        def tree(self, round_):
            if round_ not in self._trees:
                def key(s, p):
                    start = s.inner.round_starter
                    return ((p - start) % 2, tuple(((a - start) % 2, k, d) for a, k, d in s.inner.placements))
                self._trees[round_] = build_tree(RoundGame(self.round_start(round_)), infoset_key=key)
            return self._trees[round_]

    for numbers in (6, 7):
        hidden, face_up = ClosestNumberSolver(numbers), FaceUp(numbers)
        assert len(face_up.tree(2).infosets) > len(hidden.tree(2).infosets)
        assert face_up.solve_all() == pytest.approx(hidden.solve_all())
        for key in hidden._solutions:
            assert face_up.solution(*key).value == pytest.approx(hidden.solution(*key).value, abs=1e-7)


def _diff(numbers, a_real, b_real):
    points = score_board([(0, a_real), (1, b_real)], 2, numbers)
    return points[0] - points[1]


def _starter_forces(numbers, payoff, target):
    cells = range(1, numbers + 1)
    for a1, f in itertools.product(cells, (False, True)):
        def answer(b1):
            for a2 in cells:
                if a2 in (a1, b1):
                    continue
                a_real = a2 if f else a1
                if all(payoff[_diff(numbers, a_real, b1 if g else b2)] == target
                       for g in (False, True) for b2 in cells if b2 not in (a1, b1, a2)):
                    return True
            return False
        if all(answer(b1) for b1 in cells if b1 != a1):
            return True
    return False


def _other_forces(numbers, payoff, target):
    cells = range(1, numbers + 1)
    for a1 in cells:
        found = False
        for b1, g in itertools.product(cells, (False, True)):
            if b1 == a1:
                continue
            ok = True
            for a2 in cells:
                if a2 in (a1, b1):
                    continue
                if not any(all(payoff[_diff(numbers, a2 if f else a1, b1 if g else b2)] == target
                               for f in (False, True))
                           for b2 in cells if b2 not in (a1, b1, a2)):
                    ok = False
                    break
            if ok:
                found = True
                break
        if not found:
            return False
    return True


def test_exact_values_match_monte_carlo_play_of_the_environment(small):
    """The computed strategy (seat 1) against uniform random play (seat 0): exact
    expectation on the explicit tree vs games played in the environment."""
    game, tree = small
    solver = ClosestNumberSolver(4, "one_card")
    solver.solve_all()
    policy = solver.policy()
    exact = expected_returns(tree, (uniform_policy(tree), policy.action_probabilities))[1]
    assert 0.0 < exact < 1.0
    env = closest_number_v0.raw_env(numbers=4, starting_player=0, round3="one_card")
    rng = np.random.default_rng(0)
    total, games = 0.0, 3000
    for g in range(games):
        env.reset(seed=g)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                total += reward if agent == "player_1" else 0.0
                env.step(None)
                continue
            if agent == "player_1":
                env.step(policy.sample(env.game_state, rng))
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    mean = total / games
    assert abs(mean - exact) < 4 * np.sqrt(1 - exact**2) / np.sqrt(games) + 1e-9


@pytest.mark.parametrize("numbers, value", [(5, 1.0), (6, -1.0), (7, 1.0), (8, -1.0)])
def test_full_game_values_small_boards(numbers, value):
    result = solve(numbers, "two_cards")
    assert result.value_first_player == pytest.approx(value, abs=1e-7)
    assert result.exploitability <= 1e-6


def test_policy_plays_either_seat_and_rejects_another_game():
    solver = ClosestNumberSolver(5)
    policy = solver.policy()
    for first in (0, 1):
        state = ClosestNumberGame(2, 5, starting_player=first).new_initial_state()
        rng = np.random.default_rng(first)
        while not state.is_terminal():
            probs = policy.action_probabilities(state)
            assert set(probs) <= set(state.legal_actions()) and sum(probs.values()) == pytest.approx(1.0)
            state = state.apply(policy.sample(state, rng))
        assert state.winner == first  # on five numbers the starting player wins
    with pytest.raises(ValueError, match="this policy plays"):
        policy.action_probabilities(ClosestNumberGame(2, 6).new_initial_state().apply(0))


# -- command line ------------------------------------------------------------------------


def test_cli_solve_json_full_game(capsys):
    assert main(["solve", "closest-number", "--players", "2", "--numbers", "10", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["round1"]["placements_in_order"] == [5, 6] and report["round1"]["points_in_order"] == [5, 5]
    full = report["full_game"]
    assert full["value_first_player"] == pytest.approx(-1.0, abs=1e-7) and full["exploitability"] <= 1e-3
    assert [m["action"] for m in full["round1_equilibrium_line"]] == ["card on 5", "card on 6"]
    assert report["seconds"] > 0


def test_cli_solve_three_players_and_bad_arguments(capsys):
    assert main(["solve", "closest-number", "--players", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["round1"]["placements_in_order"] == [8, 3, 2] and "full_game" not in report
    with pytest.raises(SystemExit) as exc:
        main(["solve", "closest-number", "--players", "6"])
    assert exc.value.code == 2 and "num_players must be an integer from 2 to 5" in capsys.readouterr().err


def test_cli_play_to_the_end(monkeypatch, capsys):
    answers = iter(["x", "9"] + [w for k in range(1, 6) for w in (str(k), f"d {k}")] * 40)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", "closest-number", "--numbers", "5", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "please answer a number from 1 to 5" in out
    assert "you win!" in out or "the computer wins." in out or "a draw." in out


def test_cli_solve_text(capsys):
    assert main(["solve", "closest-number", "--numbers", "5", "--round3", "one_card"]) == 0
    out = capsys.readouterr().out
    assert "picks in order   [3, 2]" in out and "points in order  [3, 2]" in out
    assert "value for the starting player  +1.000000" in out and "round 3 reading: one_card" in out
