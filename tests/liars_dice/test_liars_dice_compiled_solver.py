"""The compiled CFR+ solver (depth-first walks, numba) against the numpy solver it replaces at scale."""

import numpy as np
import pytest
from memory_checks import traced_peak

from dice_envs.agents.liars_dice import compiled_solver as compiled
from dice_envs.agents.liars_dice.solver import (
    CFRSolver,
    CompiledCFRSolver,
    PublicTree,
    TreePolicy,
    evaluate,
    make_solver,
    solve,
    tree_for,
)
from dice_envs.core.resources import ResourceLimitError
from dice_envs.games.liars_dice.rules import LiarsDiceGame, LiarsDiceState

GAMES = [
    dict(faces=3),
    dict(faces=4, wild=True),
    dict(faces=3, wild="aces", dice_per_player=(1, 2)),
    dict(faces=3, dice_per_player=(2, 1), starting_player=1),
    dict(faces=2, wild="aces", dice_per_player=2),
]


@pytest.mark.parametrize("plus", [True, False], ids=["cfr+", "cfr"])
@pytest.mark.parametrize("kwargs", GAMES, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_the_same_iterates_as_the_numpy_solver(kwargs, plus):
    """Alternating CFR(+) is deterministic: with float64 storage the compiled walks reproduce
    the numpy solver's regrets, averages and evaluations, on one thread or several."""
    game = LiarsDiceGame(**kwargs)
    reference = CFRSolver(game, plus=plus)
    reference.iterate(25)
    ref_eval = reference.evaluate()
    for threads in (1, 3):
        solver = CompiledCFRSolver(game, plus=plus, average_dtype=np.float64, threads=threads)
        solver.iterate(25)
        reg_edge, reg_call = compiled.to_tree_layout(solver.tables, solver.regrets)
        avg_edge, avg_call = compiled.to_tree_layout(solver.tables, solver.sums)
        for p in (0, 1):  # each player's columns where it acts
            cols = solver.tables.num_rolls[p]
            own = reference.tree.edge_mask[p][:, :cols] > 0
            mine = reference.tree.node_mask[p][:, :cols] > 0
            for ours, theirs, where in ((reg_edge, reference.reg_edge, own), (reg_call, reference.reg_call, mine),
                                        (avg_edge, reference.avg_edge, own), (avg_call, reference.avg_call, mine)):
                assert np.allclose(ours[:, :cols][where], theirs[:, :cols][where], atol=1e-9)
        ev = solver.evaluate()
        assert ev.exploitability == pytest.approx(ref_eval.exploitability, abs=1e-12)
        assert ev.value_first_player == pytest.approx(ref_eval.value_first_player, abs=1e-12)
        assert ev.best_response == pytest.approx(ref_eval.best_response, abs=1e-12)
        policy, ref_policy = solver.average_policy(), reference.average_policy()
        for p in (0, 1):  # the columns past a player's own rolls are never read
            cols = solver.tables.num_rolls[p]
            own = reference.tree.edge_mask[p][:, :cols] > 0
            mine = reference.tree.node_mask[p][:, :cols] > 0
            assert np.allclose(policy.edge[:, :cols][own], ref_policy.edge[:, :cols][own], atol=1e-12)
            assert np.allclose(policy.call[:, :cols][mine], ref_policy.call[:, :cols][mine], atol=1e-12)


@pytest.mark.parametrize("kwargs", GAMES[:4], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_compiled_evaluation_of_any_tree_policy_equals_the_in_memory_one(kwargs):
    """A random behaviour policy (not an average of anything) and the uniform one: value, both best responses."""
    game = LiarsDiceGame(**kwargs)
    tree = PublicTree(game)
    rng = np.random.default_rng(0)
    weights = TreePolicy(tree, rng.random((tree.N, tree.R)), rng.random((tree.N, tree.R)))
    weights.call[0] = 0.0  # no call at the root
    from dice_envs.agents.liars_dice.solver import _normalise

    for policy in (tree.uniform(), TreePolicy(tree, *_normalise(tree, weights.edge, weights.call))):
        expected = evaluate(tree, policy)
        value, br0, br1 = compiled.policy_values(game, policy.edge, policy.call)
        assert (value, br0, br1) == pytest.approx(
            (expected.value_first_player, *expected.best_response), abs=1e-12)
        # float32 probabilities (how the compiled solver stores them) change the figures only by rounding
        value32, *_ = compiled.policy_values(game, policy.edge.astype(np.float32), policy.call.astype(np.float32))
        assert value32 == pytest.approx(expected.value_first_player, abs=1e-6)


def test_the_compiled_solve_reaches_the_published_value():
    """-7/258 (one six-sided die each, highest face wild), as the numpy engine and OpenSpiel."""
    result = solve(LiarsDiceGame(faces=6, wild=True), 1e-4, engine="compiled")
    assert result.exploitability <= 1e-4
    assert result.value_first_player == pytest.approx(-7 / 258, abs=2e-4)
    assert isinstance(result.policy.tree, PublicTree)


def test_a_compiled_solve_is_cached_and_reloaded(tmp_path):
    """The compiled solver's float32 policy, stored and validated on load like the numpy one's."""
    game = LiarsDiceGame(faces=4, wild="aces")
    first = solve(game, 1e-3, engine="compiled", cache_dir=str(tmp_path))
    again = solve(game, 1e-3, cache_dir=str(tmp_path))  # any engine: the cache does not depend on it
    assert not first.cached and again.cached
    assert again.policy.edge.dtype == np.float32
    assert again.exploitability == pytest.approx(first.exploitability, abs=1e-6)


def test_a_policy_on_the_round_tables_answers_as_on_the_public_tree():
    """Above the in-memory limit a TreePolicy lives on RoundTables; it must read the same arrays."""
    game = LiarsDiceGame(faces=3, wild="aces", dice_per_player=(2, 1))
    solver = CompiledCFRSolver(game)
    solver.iterate(30)
    policy = solver.average_policy()
    light = TreePolicy(compiled.RoundTables(game), policy.edge, policy.call)
    assert np.array_equal(light.tree.highbit, PublicTree(game).highbit)
    assert np.array_equal(light.tree.player, PublicTree(game).player)
    rng = np.random.default_rng(1)
    for _ in range(50):
        root = game.new_initial_state()
        state = root.apply(root.sample_chance(rng))
        while not state.is_terminal():
            assert light.action_probabilities(state) == policy.action_probabilities(state)
            state = state.apply(policy.sample(state, rng))
    # the compiled walks renormalise the float32 probabilities in float64; the in-memory passes take them as they are
    assert evaluate(light.tree, light).exploitability == pytest.approx(evaluate(policy.tree, policy).exploitability,
                                                                       abs=1e-6)


def test_auto_engine_and_tree_by_size():
    small, big = LiarsDiceGame(faces=6, wild=True), LiarsDiceGame(dice_per_player=2, faces=6, wild="aces")
    assert isinstance(make_solver(small), CFRSolver)
    assert isinstance(tree_for(big), compiled.RoundTables)  # 352 M states: no in-memory tree
    rows, _ = compiled.block_rows(24)
    assert rows == 2 * (2**24 - 1)  # a bid edge into every node but the root, a call from every node but the root
    scratch = (1 + 24 + compiled._default_threads()) * 8 * 26 * 21 * (4 + 3 * 25)  # the walks' buffers
    assert compiled.memory_bytes(big) == rows * 21 * (8 + 4 + 4) + scratch + compiled.FIXED_BYTES  # regrets, sums, the average policy at the end


def test_the_block_layout_round_trips():
    tables = compiled.RoundTables(LiarsDiceGame(faces=3, wild="aces", dice_per_player=(1, 2)))
    rng = np.random.default_rng(0)
    edge, call = rng.random((tables.N, tables.R)), rng.random((tables.N, tables.R))
    edge[0], call[0] = 0.0, 0.0  # nothing leads to the root; no call from it
    block = compiled.from_tree_layout(tables, edge, call)
    assert block.shape == (tables.rows, tables.R)
    back = compiled.to_tree_layout(tables, block)
    assert np.array_equal(back[0], edge) and np.array_equal(back[1], call)


def test_bad_arguments_and_sizes_are_refused_before_allocating(monkeypatch):
    game = LiarsDiceGame(faces=3)
    with pytest.raises(ValueError, match="threads"):
        CompiledCFRSolver(game, threads=0)
    with pytest.raises(ValueError, match="regret_dtype"):
        CompiledCFRSolver(game, regret_dtype=np.int32)
    with pytest.raises(ValueError, match="engine"):
        solve(game, engine="gpu")
    with pytest.raises(ValueError, match="num_players=2"):
        CompiledCFRSolver(LiarsDiceGame(num_players=3, faces=2))
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "4G")
    with pytest.raises(ResourceLimitError, match="10.5 GiB.*over the limit of 4.0 GiB"):
        CompiledCFRSolver(LiarsDiceGame(dice_per_player=2, faces=6, wild="aces"))


def test_state_type_unchanged():
    """The policy answers rules-core states (the type a solver's policy is asked with)."""
    game = LiarsDiceGame(faces=3)
    policy = CompiledCFRSolver(game).average_policy()
    root = game.new_initial_state()
    state = root.apply(root.sample_chance(np.random.default_rng(0)))
    assert isinstance(state, LiarsDiceState)
    assert sum(policy.action_probabilities(state).values()) == pytest.approx(1.0)


def test_without_numba_the_solver_names_its_extra(monkeypatch):
    from gymnasium.error import DependencyNotInstalled

    from dice_envs.agents.liars_dice import compiled_solver

    monkeypatch.setattr(compiled_solver, "numba", None)  # as if the [numba] extra were not installed
    with pytest.raises(DependencyNotInstalled, match=r"pip install 'dice-envs\[numba\]'"):
        compiled_solver.CompiledCFR(LiarsDiceGame(faces=3))


def test_a_game_of_hundreds_of_bids_is_refused_by_its_estimate_not_by_an_overflow():
    """36 quantities of six faces: 216 bids, 2**216 public nodes; the estimate is a Python integer,
    refused by the guard (an int64 estimate overflowed to a negative number and passed it)."""
    game = LiarsDiceGame(max_quantity=36)
    assert compiled.memory_bytes(game) > 2 * (2**216 - 1) * 6 * 16
    with pytest.raises(ResourceLimitError, match=r"compiled CFR solver .* over the limit"):
        solve(game, 1e-4)
    with pytest.raises(ResourceLimitError, match="over the limit"):
        solve(game, 1e-4, engine="numpy")


@pytest.mark.parametrize("kwargs", [dict(faces=6), dict(faces=4, wild="aces", dice_per_player=(1, 2)),
                                    dict(faces=3, dice_per_player=2)],
                         ids=["1v1 x6", "1v2 x4 aces", "2v2 x3"])
@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_a_solve_s_memory_estimate_covers_its_measured_peak_within_2x(kwargs, engine):
    """The estimate checked before a solve (:func:`memory_bytes`) against the peak the whole solve
    allocates, the policy's tree at the end included (the compiled solve's estimate left that
    tree out: 480 MiB announced, 1.56 GiB measured on two five-faced dice each)."""
    from dice_envs.agents.liars_dice.solver import memory_bytes

    game = LiarsDiceGame(**kwargs)
    solve(LiarsDiceGame(faces=3), 1e-2, engine=engine)  # the compiled code is loaded once, not counted
    peak = traced_peak(lambda: solve(game, 1e-3, engine=engine))
    assert peak <= memory_bytes(game, engine) <= 2 * peak
