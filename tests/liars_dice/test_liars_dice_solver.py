"""Liar's Dice equilibrium: CFR+/CFR on the public tree, the sequence-form LP, exact
evaluation (vectorised and generic), the cache, the Gambit writer and the CLI."""

import io
import json
import os
import re
from contextlib import redirect_stdout
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dice_envs import liars_dice_v1
from dice_envs.agents.liars_dice.solver import CFRSolver, PublicTree, TreePolicy, evaluate, load_cached, solve, tabulate
from dice_envs.agents.solve import exploitability as generic
from dice_envs.agents.solve.gambit import efg_text, write_efg
from dice_envs.agents.solve.interval import ROUNDING_ALLOWANCE, supported_digits
from dice_envs.agents.solve.game_tree import build_tree
from dice_envs.agents.solve.sequence_form import solve_lp
from dice_envs.games.liars_dice.rules import LiarsDiceGame, seed_game

OPENSPIEL_VALUE = Fraction(-7, 258)  # liars_dice, one 6-sided die each, 6s wild

# Exact values for one die each: the sequence-form LP's values, proven exactly by
# certify_value (the rounded LP profile's two best responses, in exact arithmetic,
# meet at this fraction).
LP_VALUES = {2: Fraction(0), 3: Fraction(-1, 9), 4: Fraction(-1, 8), 5: Fraction(-3, 25), 6: Fraction(-1, 9)}
LP_WILD_VALUES = {2: Fraction(1, 2), 3: Fraction(1, 9), 4: Fraction(1, 16), 5: Fraction(1, 125), 6: OPENSPIEL_VALUE}
#: Aces wild (face 1 counts for every other face): proven by the rounded LP profile's best responses.
LP_ACES_VALUES = {2: Fraction(1), 3: Fraction(1, 3), 4: Fraction(0), 5: Fraction(0), 6: Fraction(-7, 327)}


# -- the published value ---------------------------------------------------------------------------


def test_openspiel_value_six_faces_wild_cfr_plus():
    """OpenSpiel's liars_dice value -7/258, by CFR+ to exploitability <= 1e-4 (about 2 s)."""
    result = solve(LiarsDiceGame(faces=6, wild=True), target_exploitability=1e-4)
    assert result.exploitability <= 1e-4
    assert abs(result.value_first_player - float(OPENSPIEL_VALUE)) < 1e-3
    # A value within NashConv of the equilibrium value is what CFR guarantees.
    assert abs(result.value_first_player - float(OPENSPIEL_VALUE)) <= 2 * result.exploitability
    _assert_certifies(result, OPENSPIEL_VALUE)


def _assert_certifies(result, exact) -> None:
    """The solve's interval (its two best responses) holds the exact value, is exactly as wide as its
    NashConv (plus the rounding allowance), and the printed digits are the exact value's."""
    lower, upper = result.value_interval
    assert lower <= float(exact) <= upper
    assert upper - lower == pytest.approx(2 * result.exploitability + 2 * ROUNDING_ALLOWANCE, abs=1e-13)
    assert lower <= result.value_first_player <= upper
    digits = supported_digits(lower, upper)
    if digits is not None:
        assert f"{float(exact):+.{len(digits.split('.')[1])}f}" == digits


def test_cfr_plus_iterates_exactly_like_openspiel():
    """OpenSpiel 2.0.2's C++ CFRPlusSolver on liars_dice, measured with
    experiments/benchmark_liars_dice.py (and CFRSolver likewise):
    pyspiel.exploitability of the average policy after 10 / 50 / 100 iterations.  Ours is the same algorithm (alternating
    updates, regret matching+, linear averaging) on the same game, so it agrees to
    rounding error, not just in the limit."""
    openspiel = {10: 0.14160142622977823, 50: 0.016728288725207298, 100: 0.00490828123405956}
    solver = CFRSolver(LiarsDiceGame(faces=6, wild=True))
    for iteration, expected in openspiel.items():
        solver.iterate(iteration - solver.iteration)
        assert abs(solver.evaluate().exploitability - expected) < 1e-10
    # Plain CFR against OpenSpiel's CFRSolver (alternating updates, uniform averaging).
    openspiel_cfr = {10: 0.18392561817521444, 50: 0.04133166995118604}
    solver = CFRSolver(LiarsDiceGame(faces=6, wild=True), plus=False)
    for iteration, expected in openspiel_cfr.items():
        solver.iterate(iteration - solver.iteration)
        assert abs(solver.evaluate().exploitability - expected) < 1e-10


@pytest.mark.slow
@pytest.mark.parametrize("wild, value", [(True, OPENSPIEL_VALUE), (False, LP_VALUES[6]), ("aces", Fraction(-7, 327))],
                         ids=["wild", "plain", "aces"])
def test_six_faces_lp(wild, value):
    """The sequence-form LP on the full 294,877-node tree, and an exact proof of the
    value from its rounded profile (about 12 s each)."""
    tree = build_tree(LiarsDiceGame(faces=6, wild=wild))
    lp = solve_lp(tree)
    assert abs(lp.value - float(value)) < 1e-9
    assert generic.certify_value(tree, lp.policy) == (value, value)


# -- exact values without the wild face --------------------------------------------------------------


@pytest.mark.parametrize("faces", [2, 3, 4, 5])
@pytest.mark.parametrize("wild", [False, True, "aces"], ids=["plain", "wild", "aces"])
def test_lp_values_and_cfr_agree(faces, wild):
    game = LiarsDiceGame(faces=faces, wild=wild)
    tree = build_tree(game)
    lp = solve_lp(tree)
    value = {False: LP_VALUES, True: LP_WILD_VALUES, "aces": LP_ACES_VALUES}[wild][faces]
    assert abs(lp.value - float(value)) < 1e-9
    assert generic.certify_value(tree, lp.policy) == (value, value)  # a proof, in fractions
    assert generic.exploitability(tree, lp.policy) < 1e-8  # the LP's profile is an equilibrium
    result = solve(game, target_exploitability=1e-4)
    assert result.exploitability <= 1e-4
    assert abs(result.value_first_player - lp.value) <= 2 * result.exploitability + 1e-12
    _assert_certifies(result, value)


def test_six_faces_no_wild_cfr():
    result = solve(LiarsDiceGame(faces=6), target_exploitability=1e-4)
    assert result.exploitability <= 1e-4
    assert abs(result.value_first_player - float(LP_VALUES[6])) <= 2 * result.exploitability


def test_seed_bid_space_has_the_same_value():
    """Bids on more dice than exist only lose when called: the seed's bigger tree has the same value."""
    tree = build_tree(seed_game(3))
    assert generic.certify_value(tree, solve_lp(tree).policy) == (LP_VALUES[3], LP_VALUES[3])


@pytest.mark.parametrize("game", [LiarsDiceGame(faces=4, wild="aces"),
                                  LiarsDiceGame(dice_per_player=(1, 2), faces=3, wild="aces"),
                                  LiarsDiceGame(dice_per_player=(2, 1), faces=3, wild="aces", starting_player=1)],
                         ids=["1v1x4aces", "1v2x3aces", "2v1x3aces-p1first"])
def test_aces_and_unequal_dice_lp_and_cfr_agree(game):
    """CFR+ on the public tree against the sequence-form LP over the explicit tree."""
    tree = build_tree(game)
    lp = solve_lp(tree)
    result = solve(game, target_exploitability=1e-5)
    assert abs(result.value_first_player - lp.value) <= 2 * result.exploitability + 1e-9
    lower, upper = generic.certify_value(tree, lp.policy)
    assert lower == upper  # the LP's rounded profile proves the value
    _assert_certifies(result, lower)


def test_two_dice_each_lp_and_cfr_agree():
    game = LiarsDiceGame(dice_per_player=2, faces=2, wild=True)
    lp = solve_lp(build_tree(game))
    result = solve(game, target_exploitability=1e-4)
    assert abs(result.value_first_player - lp.value) <= 2 * result.exploitability + 1e-12


# -- the vectorised evaluator against the generic tree walk -------------------------------------------


def _random_policy(tree: PublicTree, seed: int) -> TreePolicy:
    rng = np.random.default_rng(seed)
    sparse = rng.random((tree.N, tree.R)) < 0.3
    edge = rng.random((tree.N, tree.R)) * ~sparse
    call = rng.random((tree.N, tree.R))
    call[0] = 0
    from dice_envs.agents.liars_dice.solver import _normalise

    return TreePolicy(tree, *_normalise(tree, edge, call))


@pytest.mark.parametrize(
    "game",
    [LiarsDiceGame(faces=3), LiarsDiceGame(faces=4, wild=True), seed_game(3),
     LiarsDiceGame(dice_per_player=2, faces=2), LiarsDiceGame(faces=4, wild="aces"),
     LiarsDiceGame(dice_per_player=(1, 2), faces=3, wild="aces"),
     LiarsDiceGame(dice_per_player=(2, 1), faces=2, wild="aces", starting_player=1),
     LiarsDiceGame(dice_per_player=(1, 2), faces=3, starting_player=1)],
    ids=["3", "4wild", "seed3", "2d2", "4aces", "1v2x3aces", "2v1x2aces-p1first", "1v2x3-p1first"],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_vectorised_evaluation_matches_tree_walk(game, seed):
    tree = PublicTree(game)
    full = build_tree(game)
    p, q = _random_policy(tree, seed), _random_policy(tree, seed + 10)
    fast = evaluate(tree, p, q)
    assert np.allclose(generic.expected_returns(full, (p, q)), [fast.value_first_player, -fast.value_first_player])
    assert np.isclose(generic.best_response(full, q, 0)[0], fast.best_response[0])
    assert np.isclose(generic.best_response(full, p, 1)[0], fast.best_response[1])
    both = evaluate(tree, p)
    assert np.isclose(generic.exploitability(full, p), both.exploitability)


def test_any_policy_object_can_be_evaluated():
    """A hand-written rule (a 'learned' policy stand-in) is asked once per information state."""
    game = LiarsDiceGame(faces=4, wild=True)
    calls = []

    def cautious(state):
        calls.append(1)
        legal = state.legal_actions()
        mine = state.rolls[state.current_player][0]
        if state.bids:
            return {game.call_action: 1.0}
        return {game.bid_action(1, mine): 1.0} if game.bid_action(1, mine) in legal else {legal[0]: 1.0}

    tree = PublicTree(game)
    fast = evaluate(tree, cautious)
    assert len(calls) == tree.N * tree.R
    assert np.isclose(fast.exploitability, generic.exploitability(build_tree(game), cautious))
    assert fast.exploitability > 0.1


def test_uniform_policy_exploitability_and_bad_policies():
    game = LiarsDiceGame(faces=3)
    tree = PublicTree(game)
    uniform = tree.uniform()
    full = build_tree(game)
    assert np.isclose(evaluate(tree, uniform).exploitability,
                      generic.exploitability(full, generic.uniform_policy(full)))
    with pytest.raises(ValueError, match="sum to"):
        tabulate(tree, lambda s: {s.legal_actions()[0]: 0.5})
    with pytest.raises(ValueError, match="calls before any bid"):
        tabulate(tree, lambda s: {game.call_action: 1.0})


# -- CFR and CFR+ -----------------------------------------------------------------------------------


def test_cfr_and_cfr_plus_converge():
    game = LiarsDiceGame(faces=3)
    for plus in (False, True):
        solver = CFRSolver(game, plus=plus)
        solver.iterate(5)
        early = solver.evaluate().exploitability
        solver.iterate(300)
        late = solver.evaluate().exploitability
        assert late < early / 5 and late < 5e-3
    plain = solve(game, 1e-3, algorithm="cfr")
    assert plain.exploitability <= 1e-3 and plain.algorithm == "cfr"


def test_average_policy_plays_in_the_environment_and_matches_exact_value():
    """Monte Carlo play of the ENVIRONMENT against the exact value of (equilibrium, uniform)."""
    game = LiarsDiceGame(faces=3, wild=True)
    result = solve(game, 1e-3)
    tree = result.policy.tree
    uniform = tree.uniform()
    exact = evaluate(tree, result.policy, uniform).value_first_player
    env = liars_dice_v1.raw_env(faces=3, wild=True)
    rng = np.random.default_rng(7)
    policies = {"player_0": result.policy, "player_1": uniform}
    n, total, squares = 4000, 0.0, 0.0
    for episode in range(n):
        env.reset(seed=episode)
        r = None
        for agent in env.agent_iter():
            _, reward, term, trunc, _ = env.last()
            if term or trunc:
                if agent == "player_0":
                    r = reward
                env.step(None)
                continue
            obs = env.observe(agent)
            policy = policies[agent]
            expected = policy.action_probabilities(env.game_state)
            from_obs = policy.probabilities_from_observation(obs["observation"])
            assert all(np.isclose(from_obs[a], p) for a, p in expected.items())
            env.step(policy.act(obs, rng))
        total += r
        squares += r * r
    mean = total / n
    stderr = np.sqrt((squares / n - mean**2) / n)
    assert abs(mean - exact) < 4 * stderr
    assert exact > 0.2  # the equilibrium beats a uniformly random opponent clearly


@settings(max_examples=40, deadline=None)
@given(
    num_players=st.integers(-1, 8),
    dice=st.integers(-1, 7),
    faces=st.integers(-1, 8),
    max_quantity=st.one_of(st.none(), st.integers(-1, 40)),
)
def test_bad_configuration_is_a_value_error_naming_the_argument(num_players, dice, faces, max_quantity):
    valid = {
        "num_players": 2 <= num_players <= 6,
        "dice_per_player": 1 <= dice <= 5,
        "faces": 2 <= faces <= 6,
        "max_quantity": max_quantity is None or 1 <= max_quantity <= 36,
    }
    try:
        game = LiarsDiceGame(num_players, dice, faces, max_quantity=max_quantity)
    except ValueError as err:
        first_bad = next(name for name, ok in valid.items() if not ok)
        assert str(err).startswith(first_bad)
        return
    assert all(valid.values())
    assert game.num_actions == game.max_quantity * faces + 1


def test_solver_bad_arguments():
    with pytest.raises(ValueError, match="algorithm"):
        solve(LiarsDiceGame(faces=2), algorithm="dcfr")
    with pytest.raises(ValueError, match="target_exploitability"):
        solve(LiarsDiceGame(faces=2), target_exploitability=0)
    with pytest.raises(ValueError, match="max_iterations"):
        solve(LiarsDiceGame(faces=2), max_iterations=0)
    with pytest.raises(ValueError, match="num_players=2"):
        PublicTree(LiarsDiceGame(num_players=3, faces=2))
    with pytest.raises(ValueError, match="over the limit of|too large"):
        PublicTree(LiarsDiceGame(dice_per_player=3, faces=6))


# -- cache ------------------------------------------------------------------------------------------


def test_cache_is_reused_and_damage_is_detected(tmp_path):
    game = LiarsDiceGame(faces=3)
    first = solve(game, 1e-3, cache_dir=str(tmp_path))
    assert not first.cached
    (path,) = list(tmp_path.iterdir())
    again = solve(game, 1e-3, cache_dir=str(tmp_path))
    assert again.cached and again.iterations == first.iterations
    assert np.array_equal(again.policy.edge, first.policy.edge)
    # A different target or game is a different entry, never the stale one.
    assert load_cached(game, 1e-4, "cfr+", str(tmp_path)) is None
    assert load_cached(LiarsDiceGame(faces=3, wild=True), 1e-3, "cfr+", str(tmp_path)) is None
    # Truncated file: detected and rebuilt.
    path.write_bytes(path.read_bytes()[:100])
    assert load_cached(game, 1e-3, "cfr+", str(tmp_path)) is None
    rebuilt = solve(game, 1e-3, cache_dir=str(tmp_path))
    assert not rebuilt.cached
    # A tampered policy (valid file, wrong numbers) fails the exploitability check.
    with np.load(path) as data:
        arrays = dict(data)
    arrays["edge"] = np.full_like(arrays["edge"], 0.5)
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    assert load_cached(game, 1e-3, "cfr+", str(tmp_path)) is None
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


# -- Gambit -----------------------------------------------------------------------------------------


def _parse_efg(text):
    lines = [ln for ln in text.splitlines()[3:] if ln]
    kinds = [ln[0] for ln in lines]
    chance_sums = []
    for ln in lines:
        if ln.startswith("c "):
            probs = re.findall(r'" (\d+(?:/\d+)?)', ln.split("{", 1)[1])
            chance_sums.append(sum(Fraction(p) for p in probs))
    return kinds, chance_sums


def test_gambit_export_seed_tree_and_exact_probabilities(tmp_path):
    text = efg_text(seed_game(2))
    assert text.startswith('EFG 2 R "') and '{ "Player 1" "Player 2" }' in text.splitlines()[0]
    kinds, sums = _parse_efg(text)
    assert len(kinds) == 125 and kinds.count("c") == 1 and kinds.count("t") == 4 * 15
    assert sums == [1] and "1/4" in text
    assert 't "" 1 "Outcome 1" { 1, -1 }' in text
    # Multinomial rolls: 1/16, 1/8, 1/4 ... exact fractions summing to exactly 1.
    kinds, sums = _parse_efg(efg_text(LiarsDiceGame(dice_per_player=2, faces=2)))
    assert sums == [1]
    assert "0.1" not in efg_text(LiarsDiceGame(faces=3))
    path = tmp_path / "seed3.efg"
    assert write_efg(seed_game(3), path) == 9_208
    assert sum(1 for _ in open(path)) == 9_208 + 3


def test_gambit_infosets_are_consistent():
    """Every node of an information set lists the same actions (Gambit requires it)."""
    text = efg_text(LiarsDiceGame(faces=3, wild=True))
    seen = {}
    for ln in text.splitlines():
        if ln.startswith("p "):
            _, _, player, number, rest = ln.split(" ", 4)
            label, actions = rest.rsplit("{", 1)
            assert seen.setdefault((player, number), (label, actions)) == (label, actions)
    assert len(seen) == len(build_tree(LiarsDiceGame(faces=3, wild=True)).infosets)


# -- CLI --------------------------------------------------------------------------------------------


def _run_cli(argv):
    from dice_envs.agents.cli import main

    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_cli_solve_json():
    code, out = _run_cli(["solve", "liars-dice", "--faces", "4", "--exploitability", "1e-3", "--lp", "--json"])
    assert code == 0
    report = json.loads(out)  # exactly one JSON object
    for key in ("value_first_player", "value_interval", "best_response_values", "exploitability", "iterations",
                "seconds"):
        assert key in report
    assert report["exploitability"] <= 1e-3
    assert abs(report["lp_value_first_player"] - float(LP_VALUES[4])) < 1e-9
    # the LP's certificate proves the value, and the interval is the tighter of the two certificates
    assert report["exact_value"] == str(LP_VALUES[4])
    assert report["value_interval"] == [float(LP_VALUES[4])] * 2
    code, out = _run_cli(["solve", "liars-dice", "--faces", "4", "--exploitability", "1e-3", "--lp"])
    assert f"first player's value  {LP_VALUES[4]}  (proven exact)" in out
    code, out = _run_cli(["solve", "liars-dice", "--faces", "4", "--exploitability", "1e-2", "--no-cache"])
    value = next(line for line in out.splitlines() if "first player's value" in line).split()[3]
    assert value == f"{float(LP_VALUES[4]):+.{len(value.split('.')[1])}f}"  # only digits the exact value shares
    assert re.search(r"it lies in \[(\S+), (\S+)\]", out)


def test_cli_solve_caches_where_the_other_commands_look(tmp_path, monkeypatch):
    """A solve (half an hour at two dice each) is kept by default where evaluate, the Gymnasium
    ids and solve liars-dice-match find it; --no-cache neither reads nor writes."""
    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path))
    argv = ["solve", "liars-dice", "--faces", "3", "--exploitability", "1e-3", "--json"]
    assert json.loads(_run_cli(argv)[1])["cached"] is False
    assert len(list(tmp_path.glob("liars_dice_*.npz"))) == 1
    assert json.loads(_run_cli(argv)[1])["cached"] is True
    assert json.loads(_run_cli(argv + ["--no-cache"])[1])["cached"] is False
    from dice_envs.agents.liars_dice.solver import solve

    assert solve(LiarsDiceGame(faces=3), 1e-3, cache_dir=str(tmp_path)).cached


def test_cli_export_and_bad_arguments(tmp_path, capsys):
    out_file = tmp_path / "seed2.efg"
    code, out = _run_cli(["export-efg", "liars-dice", "--faces", "2", "--seed-bids", "-o", str(out_file), "--json"])
    assert code == 0 and json.loads(out)["nodes"] == 125 and out_file.exists()
    with pytest.raises(SystemExit) as exc:
        _run_cli(["solve", "liars-dice", "--faces", "9"])
    assert exc.value.code == 2
    assert "faces must be an integer from 2 to 6" in capsys.readouterr().err


def test_cli_play_scripted(tmp_path, monkeypatch, capsys):
    import argparse

    from dice_envs.agents.liars_dice.cli import play_liars_dice

    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path))
    answers = iter(["nonsense", "9 9", "1 1", "call", "2 3", "call"])
    args = argparse.Namespace(faces=3, dice=1, wild=False, seat=0, seed=5, exploitability=1e-2)
    assert play_liars_dice(args, input_fn=lambda prompt: next(answers)) == 0
    out = capsys.readouterr().out
    assert "please answer" in out and ("you win!" in out or "the computer wins." in out)


# -- the run-time guard: predictions from the solve's own convergence ---------------------------------


def test_predicted_iterations_follow_the_fitted_rate():
    from dice_envs.agents.liars_dice.solver import predict_iterations

    history = [(t, 5.0 / t**2) for t in (10, 20, 40, 60, 80)]  # exploitability = 5 / T^2
    assert predict_iterations(history, 5.0 / 400**2, "cfr+") == pytest.approx(400, rel=1e-9)
    flat = [(t, 1.0 / t**0.3) for t in (10, 20, 40, 80)]  # slower than CFR+'s 1/T: the floor applies
    assert predict_iterations(flat, 1.0 / 80**0.3 / 10, "cfr+") == pytest.approx(800, rel=1e-9)


def test_predictions_are_within_2x_and_a_long_solve_is_refused(monkeypatch):
    from dice_envs.core.resources import ResourceLimitError

    game = LiarsDiceGame(dice_per_player=(1, 2), faces=4, wild=True)
    result = solve(game, 1e-4)
    assert result.predictions and result.predictions[0][0] == 80
    for _, iterations, _ in result.predictions:  # measured: 593, 606, 654, 789 against 780
        assert result.iterations / 2 <= iterations <= 2 * result.iterations
    monkeypatch.setenv("DICE_ENVS_MAX_SECONDS", "0.01")
    with pytest.raises(ResourceLimitError, match="predicted at iteration 80 from the convergence so far"):
        solve(game, 1e-4)


def test_the_ground_truth_table_prints_the_certified_value(capsys):
    """The main job's table: the proven fraction where the LP certificate proves it, the solved strategy's
    value beside it, and every row's interval (from the two best responses and the certificate) holding it."""
    from dice_envs.agents.liars_dice.cli import print_values_table, values_report
    from dice_envs.games.liars_dice.rules import check_wild

    report = values_report(faces=[3], exploitability=1e-3)
    print_values_table(report)
    table = capsys.readouterr().out
    for row in report["rows"]:
        exact = {"none": LP_VALUES, "highest": LP_WILD_VALUES, "aces": LP_ACES_VALUES}[check_wild(row["wild"])][3]
        assert row["exact_value"] == str(exact)
        assert row["value_interval"][0] <= float(exact) <= row["value_interval"][1]
        assert f" {exact} " in table and f"{row['value_first_player']:+.6f}" in table
