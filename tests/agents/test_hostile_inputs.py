"""Hostile inputs, one regression test each (issue 13): bad arguments and actions get a clear
``ValueError``; requests that would exhaust memory, time or disk are refused before they
start; unwritable or damaged caches never throw a finished result away; the CLI never
shows a traceback.  A hypothesis test drives every environment with actions of every type.
(The training scripts' checkpoints have their own tests, in ``test_train_*.py``.)"""

from __future__ import annotations

import functools
import json
import os
import warnings

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dice_envs
from dice_envs.agents.cli import main as cli_main
from dice_envs.agents.liars_dice import solver as liars_dice_solver
from dice_envs.agents.solve import cache as solver_cache
from dice_envs.core.game import IllegalActionError
from dice_envs.core.resources import ResourceLimitError, parse_size
from dice_envs.games.liars_dice.rules import LiarsDiceGame

# -- arguments: bools are not integers, strings not booleans, non-finite numbers refused ------------

BAD_CONSTRUCTIONS = {
    "ZombieDice-v0 goal=True": (lambda: gymnasium.make("dice_envs/ZombieDice-v0", goal=True), "goal"),
    "ZombieDice-v0 goal=2.0": (lambda: gymnasium.make("dice_envs/ZombieDice-v0", goal=2.0), "goal"),
    "zombie_dice_v0 max_cycles=True": (lambda: dice_envs.zombie_dice_v0.env(max_cycles=True), "max_cycles"),
    "ZombieDice-v0 seat=True": (lambda: gymnasium.make("dice_envs/ZombieDice-v0", seat=True, opponent="random"),
                                "seat"),
    "ZombieDice-v0 auto_forced='no'": (
        lambda: gymnasium.make("dice_envs/ZombieDice-v0", auto_forced="no", opponent="random"), "auto_forced"),
    "Pig-v0 illegal_action=1": (lambda: gymnasium.make("dice_envs/Pig-v0", illegal_action=1), "illegal_action"),
    "LiarsDice-v1 exploitability=inf": (
        lambda: gymnasium.make("dice_envs/LiarsDice-v1", exploitability=float("inf"), faces=3), "finite"),
    "LiarsDice-v1 exploitability=nan": (
        lambda: gymnasium.make("dice_envs/LiarsDice-v1", exploitability=float("nan"), faces=3), "finite"),
    "LiarsDice-v1 exploitability=True": (
        lambda: gymnasium.make("dice_envs/LiarsDice-v1", exploitability=True, faces=3), "number"),
    "LiarsDice-v1 wild='yes'": (lambda: gymnasium.make("dice_envs/LiarsDice-v1", wild="yes"), "wild"),
    "make_vec num_envs=True": (lambda: gymnasium.make_vec("dice_envs/Pig-v0", num_envs=True,
                                                          vectorization_mode="vector_entry_point"), "num_envs"),
    "ClosestNumber-v0 numbers='10'": (lambda: gymnasium.make("dice_envs/ClosestNumber-v0", numbers="10"), "numbers"),
    "shakes_v0 num_players=4.0": (lambda: dice_envs.shakes_v0.env(num_players=4.0), "num_players"),
}


@pytest.mark.parametrize("name", list(BAD_CONSTRUCTIONS))
def test_bad_arguments_are_refused_by_name(name):
    make, message = BAD_CONSTRUCTIONS[name]
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("action", [0.7, 1.0, "1", True, np.bool_(True), np.float64(1.0), [1], np.array([1]), None])
def test_non_integer_actions_are_illegal_with_a_clear_message(action):
    raw = dice_envs.zombie_dice_v0.raw_env()
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match="integer|action space|None"):
        raw.step(action)
    wrapped = dice_envs.zombie_dice_v0.env()
    wrapped.reset(seed=0)
    with pytest.raises(IllegalActionError, match="integer|action space|None"):
        wrapped.step(action)
    single = gymnasium.make("dice_envs/Pig-v0", seat=0, illegal_action="raise")
    single.reset(seed=0)
    with pytest.raises(ValueError):
        single.step(action)


def test_numpy_and_zero_dimensional_integer_actions_are_accepted():
    raw = dice_envs.zombie_dice_v0.raw_env()
    raw.reset(seed=0)
    raw.step(np.int64(1))
    raw.step(np.array(1))


def test_vector_env_refuses_float_actions():
    env = gymnasium.make_vec("dice_envs/Pig-v0", num_envs=4, vectorization_mode="vector_entry_point")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="integer"):
        env.step(np.ones(4) * 0.7)


# -- resources: refused before anything is allocated or written ---------------------------------


def test_oversized_solves_are_refused_naming_the_limit():
    with pytest.raises(ResourceLimitError, match="DICE_ENVS_MAX_MEMORY"):
        gymnasium.make("dice_envs/ZombieDice-v0", goal=100)
    with pytest.raises(ResourceLimitError, match="over the limit"):
        gymnasium.make("dice_envs/ZombieDice-v0", goal=500)
    from dice_envs.agents.closest_number.solver import ClosestNumberSolver
    from dice_envs.agents.pig import solver as pig_solver

    with pytest.raises(ResourceLimitError, match="memory"):
        pig_solver.solve(1000)
    with pytest.raises(ResourceLimitError, match="40 numbers"):
        ClosestNumberSolver(40)


def test_the_limit_can_be_lowered_and_raised(monkeypatch):
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "1G")
    with pytest.raises(ResourceLimitError, match="1.0 GiB"):
        liars_dice_solver.PublicTree(LiarsDiceGame(dice_per_player=2, faces=5))
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "none")
    monkeypatch.setenv("DICE_ENVS_MAX_SECONDS", "1")
    from dice_envs.agents.closest_number.solver import ClosestNumberSolver

    with pytest.raises(ResourceLimitError, match="minutes"):
        ClosestNumberSolver(20)
    # A CFR+ solve is timed after its first iterations and refused before it runs for long.
    with pytest.raises(ResourceLimitError, match=r"about 100,000 iterations.*over the limit of 1 s"):
        liars_dice_solver.solve(LiarsDiceGame(faces=6, wild=True), 1e-12)
    assert parse_size("1.5G") == 3 << 29 and parse_size("none") is None
    with pytest.raises(ValueError, match="size"):
        parse_size("lots")


def test_a_long_run_is_announced_in_one_line_at_the_caller_s_code(monkeypatch):
    """From Python, the announcement names the line of the user's code that asked for the work and
    is one line (it named a line of the library and printed that source line under it)."""
    from dice_envs.agents.closest_number.solver import ClosestNumberSolver
    from dice_envs.core.resources import LongRunWarning

    monkeypatch.setenv("DICE_ENVS_MAX_SECONDS", "none")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ClosestNumberSolver(20)
    announced = [w for w in caught if issubclass(w.category, LongRunWarning)]
    assert len(announced) == 1 and announced[0].filename == __file__
    text = warnings.formatwarning(announced[0].message, announced[0].category, announced[0].filename,
                                  announced[0].lineno)
    assert text.count("\n") == 1 and text.startswith(f"{__file__}:") and "of wall-clock time" in text
    assert warnings.formatwarning("other", UserWarning, __file__, 1).count("\n") == 2  # others as Python shows them


def test_parts_of_an_announced_request_are_checked_but_not_announced_again(monkeypatch):
    from dice_envs.core.resources import LongRunWarning, announced, check_resources

    with pytest.warns(LongRunWarning, match="the whole"):
        check_resources("the whole", 10, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with announced():
            check_resources("a part", 10, 100)
            monkeypatch.setenv("DICE_ENVS_MAX_SECONDS", "50")
            with pytest.raises(ResourceLimitError, match="a part would take about 100 s of wall-clock time"):
                check_resources("a part", 10, 100)
    with pytest.raises(ResourceLimitError, match="100 s of CPU time per thread, over"):
        check_resources("a solve", 10, 100, clock="cpu per thread")
    with pytest.raises(ResourceLimitError, match="100 s of CPU time, over"):
        check_resources("a scoring", 10, 100, clock="cpu")
    with pytest.raises(ValueError, match="clock"):
        check_resources("a scoring", 10, 1, clock="sundial")


def test_estimates_that_are_not_numbers_or_too_large_for_floats_are_refused(monkeypatch):
    from dice_envs.core.resources import check_resources

    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "none")
    for memory in (-1, float("nan"), float("inf"), np.int64(-2**62)):
        with pytest.raises(ResourceLimitError, match="not a finite non-negative number"):
            check_resources("a request", memory)
    with pytest.raises(ResourceLimitError, match=r"2\*\*1101 bytes"):
        check_resources("a request", 2**1100)


def test_an_address_space_limit_is_a_memory_limit():
    """Three six-sided dice each, scored streamed under ulimit -v 4G: refused
    with its estimate (it died with a 5.14 GiB MemoryError traceback)."""
    import resource
    import subprocess
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    run = subprocess.run([sys.executable, "-m", "dice_envs", "evaluate", "liars-dice", "random", "--dice", "3", "3"],
                         preexec_fn=limit, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("dice-envs: error: the streamed evaluation") and len(run.stderr.splitlines()) == 1
    assert "of memory, over the limit" in run.stderr and "ulimit -v" in run.stderr


def test_cli_refusals_and_no_tracebacks(tmp_path, capsys):
    out = tmp_path / "big.efg"
    for argv, message in [
        (["export-efg", "liars-dice", "--faces", "6", "--dice", "2", "--out", str(out)], "DICE_ENVS_MAX_DISK"),
        (["solve", "ayzd", "--goal", "80"], "13.2 GiB"),
        (["--max-memory", "lots", "solve", "pig"], "DICE_ENVS_MAX_MEMORY"),
        (["solve", "ayzd", "--score-cap", "14"], "score_cap"),
        (["solve", "ayzd", "--score-cap", "0"], "score_cap"),
        (["evaluate", "liars-dice", "/etc/passwd"], "not a Stable-Baselines3 model"),
        (["evaluate", "liars-dice", str(tmp_path / "none.pt")], "does not exist"),
        (["evaluate", "ayzd", "os:getcwd"], "agent os:getcwd must take (observations, masks)"),
        (["evaluate", "pig", "os:getcwd"], "agent os:getcwd must take (observations, masks)"),
        (["evaluate", "ayzd", "os:nothing"], "cannot import"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            cli_main(argv)
        assert exit_.value.code == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_cli_debug_variable_shows_the_traceback(monkeypatch):
    monkeypatch.setenv("DICE_ENVS_DEBUG", "1")
    with pytest.raises(ValueError, match="score_cap"):
        cli_main(["solve", "ayzd", "--score-cap", "0"])


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_a_crafted_model_file_is_not_executed(tmp_path):
    import pickle

    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "model.pt"
    path.write_bytes(pickle.dumps({"game": Payload()}))
    from dice_envs.agents.liars_dice.learned import LearnedLiarsDicePolicy

    with pytest.raises(ValueError, match="not a Liar's Dice model"):
        LearnedLiarsDicePolicy.load(path)
    assert not marker.exists()


# -- caches: unwritable or damaged never costs the result ------------------------------------------

GAME = LiarsDiceGame(faces=3)


def test_unwritable_cache_degrades_with_one_warning(tmp_path, monkeypatch):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    solver_cache._warned.clear()
    with pytest.warns(solver_cache.CacheWarning, match="not cached"):
        result = liars_dice_solver.solve(GAME, 1e-3, cache_dir=str(a_file))  # cache_dir names a file
    assert result.exploitability <= 1e-3 and not result.cached

    # the cache path is a directory
    target = liars_dice_solver._cache_path(GAME, 1e-3, "cfr+", 100_000, str(tmp_path / "c"))
    os.makedirs(target)
    with pytest.warns(solver_cache.CacheWarning):
        assert liars_dice_solver.solve(GAME, 1e-3, cache_dir=str(tmp_path / "c")).exploitability <= 1e-3

    # a read-only location (simulated: this test may run as root), warned about once per directory
    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(solver_cache.os, "replace", denied)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            liars_dice_solver.solve(GAME, 2e-3, cache_dir=str(tmp_path / "ro"))
    assert sum(issubclass(w.category, solver_cache.CacheWarning) for w in caught) == 1
    assert not [p for p in (tmp_path / "ro").iterdir()]  # no temporary file left behind


@pytest.mark.parametrize("content", [b"", b"garbage", b"PK\x03\x04 truncated"])
def test_damaged_cache_files_are_recomputed(tmp_path, content):
    first = liars_dice_solver.solve(GAME, 1e-3, cache_dir=str(tmp_path))
    path = liars_dice_solver._cache_path(GAME, 1e-3, "cfr+", 100_000, str(tmp_path))
    assert liars_dice_solver.solve(GAME, 1e-3, cache_dir=str(tmp_path)).cached
    with open(path, "wb") as fh:
        fh.write(content)
    again = liars_dice_solver.solve(GAME, 1e-3, cache_dir=str(tmp_path))
    assert not again.cached and again.value_first_player == pytest.approx(first.value_first_player, abs=1e-3)
    assert liars_dice_solver.solve(GAME, 1e-3, cache_dir=str(tmp_path)).cached  # rewritten


def test_wrong_metadata_reads_as_absent(tmp_path):
    path = solver_cache.cache_path("t", {"a": 1}, str(tmp_path))
    solver_cache.store(path, {"x": np.zeros(2)}, {"a": 1})
    assert solver_cache.load(path)[1] == {"a": 1}
    np.savez(path.replace(".npz", ""), x=np.zeros(2), meta=np.array("[]"))
    assert solver_cache.load(path) is None


def test_a_solve_stopped_by_its_iteration_cap_is_cached_and_announced(tmp_path, monkeypatch):
    from dice_envs.agents.liars_dice.learned import equilibrium

    first = liars_dice_solver.solve(GAME, 1e-12, max_iterations=30, cache_dir=str(tmp_path))
    assert first.iterations == 30 and first.exploitability > 1e-12
    assert liars_dice_solver.solve(GAME, 1e-12, max_iterations=30, cache_dir=str(tmp_path)).cached
    # The CFR+ reference with the cap at 30 (the default, 100,000, takes a minute to reach): the capped
    # solve is read from the cache and announced.
    monkeypatch.setattr(liars_dice_solver, "solve", functools.partial(liars_dice_solver.solve, max_iterations=30))
    with pytest.warns(RuntimeWarning, match="reached an exploitability of .* in 30 iterations, above the 1e-12"):
        assert equilibrium(GAME, 1e-12, cache_dir=str(tmp_path)).cached


def plant_cache_file(game, target, cache_dir, edge, call, iterations=100_000):
    """A cache file for ``game`` holding ``(edge, call)``, with the figures an honest file would
    record: their own exploitability and value, computed as the reader recomputes them."""
    tree = liars_dice_solver.PublicTree(game)
    ev = liars_dice_solver.evaluate(tree, liars_dice_solver.TreePolicy(tree, edge, call))
    meta = {**liars_dice_solver._cache_key(game, target, "cfr+", 100_000), "iterations": iterations, "seconds": 1.0,
            "value_first_player": ev.value_first_player, "exploitability": ev.exploitability, "history": []}
    path = liars_dice_solver._cache_path(game, target, "cfr+", 100_000, str(cache_dir))
    assert solver_cache.store(path, {"edge": edge, "call": call}, meta) == path
    return path, ev


def test_a_poisoned_cache_file_is_not_taken_as_the_equilibrium(tmp_path, capsys):
    """Issue 58's attack: a cache file that is no policy, its iteration count at the cap and its
    figures its own, was taken as the equilibrium, and evaluate scored against it without a word."""
    game = LiarsDiceGame(faces=3)
    honest = liars_dice_solver.solve(game, 1e-3, cache_dir=str(tmp_path / "honest"))
    poison = honest.policy.call.copy()
    poison[1:] = 1.0  # always call: with the bids' own probabilities, each node sums to more than 1
    path, _ = plant_cache_file(game, 1e-3, tmp_path, honest.policy.edge, poison)
    with pytest.warns(RuntimeWarning, match="is ignored and solved again: it is not a policy: at public node"):
        assert liars_dice_solver.load_cached(game, 1e-3, "cfr+", str(tmp_path)) is None
    negative = honest.policy.edge.copy()
    negative[1, 0] = -0.25
    plant_cache_file(game, 1e-3, tmp_path, negative, honest.policy.call)
    with pytest.warns(RuntimeWarning, match="bid probabilities outside"):
        assert liars_dice_solver.load_cached(game, 1e-3, "cfr+", str(tmp_path)) is None
    # Figures that are not the policy's own: named too.
    plant_cache_file(game, 1e-3, tmp_path, honest.policy.edge, honest.policy.call)
    found = solver_cache.load(path)
    found[1]["exploitability"] = 0.0
    solver_cache.store(path, found[0], found[1])
    with pytest.warns(RuntimeWarning, match="recorded exploitability 0.0 and value .* are not its policy's"):
        assert liars_dice_solver.load_cached(game, 1e-3, "cfr+", str(tmp_path)) is None
    # Through the command: the poisoned file is named, solved again and the score is against the true one.
    plant_cache_file(game, 1e-3, tmp_path, honest.policy.edge, poison)
    assert cli_main(["evaluate", "liars-dice", "random", "--faces", "3", "--against", "equilibrium",
                     "--exploitability", "1e-3", "--cache-dir", str(tmp_path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert f"the solver cache file {path} is ignored" in err
    report = json.loads(out)
    assert report["details"]["equilibrium_exploitability"] == pytest.approx(honest.exploitability, abs=1e-12)


def test_a_capped_cached_equilibrium_is_announced_when_scored_against(tmp_path, capsys):
    """A policy whose solve the iteration cap stopped above the target is used, and said to be."""
    game = LiarsDiceGame(faces=3)
    early = liars_dice_solver.solve(game, 1e-12, max_iterations=30, cache_dir=str(tmp_path / "early"))
    plant_cache_file(game, 1e-3, tmp_path, early.policy.edge, early.policy.call)  # at the default cap
    assert cli_main(["evaluate", "liars-dice", "random", "--faces", "3", "--against", "equilibrium",
                     "--exploitability", "1e-3", "--cache-dir", str(tmp_path), "--json"]) == 0
    err = capsys.readouterr().err
    assert f"reached an exploitability of {early.exploitability:.3g} in 100000 iterations, above the 0.001" in err


# -- every env, driven with actions of every type ------------------------------------------------------

ENVS = {
    "zombie_dice": lambda: dice_envs.zombie_dice_v0.raw_env(variant="official", num_players=3),
    "pig": lambda: dice_envs.pig_v0.raw_env(goal=20),
    "liars_dice": lambda: dice_envs.liars_dice_v1.raw_env(faces=3),
    "shakes": lambda: dice_envs.shakes_v0.raw_env(num_players=3, mode="maesters"),
    "closest_number": lambda: dice_envs.closest_number_v0.raw_env(numbers=6),
}

ANY_ACTION = st.one_of(
    st.integers(-3, 30), st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.text(max_size=3),
    st.none(), st.lists(st.integers(0, 3), max_size=2), st.integers(0, 5).map(np.int64),
    st.integers(0, 5).map(np.float32),
)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(ENVS)), actions=st.lists(ANY_ACTION, min_size=1, max_size=60),
       seed=st.integers(0, 1000))
def test_fuzz_every_env_with_actions_of_every_type(name, actions, seed):
    """Each action is played if it is a legal integer, or refused with IllegalActionError
    (never another exception, never a silent reinterpretation); the game goes on either way."""
    env = ENVS[name]()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for action in actions:
        if not env.agents:
            env.reset(seed=seed + 1)
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        legal_int = (isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
                     and 0 <= action < len(mask) and mask[action])
        before = env.num_moves if hasattr(env, "num_moves") else None
        if legal_int:
            env.step(action)
            continue
        with pytest.raises(IllegalActionError):
            env.step(action)
        if before is not None:
            assert env.num_moves == before  # nothing was played
        env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("env_id, kwargs", [("dice_envs/Pig-v0", {}), ("dice_envs/LiarsDice-v1", {"faces": 3}),
                                            ("dice_envs/LiarsDiceMatch-v0", {"faces": 3, "opponent": "random"})])
def test_a_batch_over_the_memory_limit_is_refused_before_it_is_allocated(env_id, kwargs):
    """Issue 23's attack: make_vec(..., num_envs=10**9) raised numpy's _ArrayMemoryError (14.9 GiB)."""
    with pytest.raises(ResourceLimitError, match=r"1,000,000,000 games of .* \(num_envs\) needs about .* over the limit"):
        gymnasium.make_vec(env_id, num_envs=10**9, vectorization_mode="vector_entry_point", **kwargs)


@pytest.mark.parametrize("env_id, kwargs", [("dice_envs/Pig-v0", dict(goal=300, opponent="hold_at_20")),
                                            ("dice_envs/ZombieDice-v0", dict(goal=300, opponent="random"))])
def test_an_opponent_s_turn_table_over_the_memory_limit_is_refused_before_it_is_built(env_id, kwargs, monkeypatch):
    """Issue 58 item 6: make_vec(Pig-v0, num_envs=64, goal=1000, opponent="hold_at_20") (or Zombie Dice to 2000
    against "random") passed the batch's guard, then ran out of memory building the opponent's table of whole
    turns at the first step (a 7.5 GiB MemoryError).  Here the table is 210 MiB (Pig) and 125 MiB (Zombie Dice)."""
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "100M")
    with pytest.raises(ResourceLimitError, match=r"64 games of \w+ at once \(num_envs\) against an opponent with a turn "
                                                 r"table of [\d,]+ positions \(.*goal=300\) x \d+ outcomes needs about "
                                                 r"[\d.]+ MiB of memory, over the limit of 100.0 MiB"):
        gymnasium.make_vec(env_id, num_envs=64, vectorization_mode="vector_entry_point", **kwargs)
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "1G")  # within the limit, the same request is built
    env = gymnasium.make_vec(env_id, num_envs=64, vectorization_mode="vector_entry_point", **kwargs)
    assert env.opponent.table.positions == 0  # nothing worked out (or allocated) before the first turn


def test_a_slow_turn_table_is_announced(monkeypatch):
    """The table of a goal near 1000 takes minutes to work out before the first step: announced, not silent."""
    from dice_envs.agents.pig import opponents as pig_opponents
    from dice_envs.core.resources import LongRunWarning

    monkeypatch.setattr(pig_opponents, "TURN_SECONDS_PER_OUTCOME", 1e-3)
    with pytest.warns(LongRunWarning, match=r"turn table of 10,000 positions \(scores below goal=100\).* will take about"):
        gymnasium.make_vec("dice_envs/Pig-v0", num_envs=4, goal=100, opponent="hold_at_20",
                           vectorization_mode="vector_entry_point")


def test_a_huge_pig_goal_is_refused_before_the_turn_model_is_built(capsys):
    """Issue 23's attack: `solve pig --goal 1000000` hung building its turn model."""
    import time

    t0 = time.perf_counter()
    with pytest.raises(SystemExit):
        cli_main(["solve", "pig", "--goal", "1000000"])
    assert "over the limit" in capsys.readouterr().err and time.perf_counter() - t0 < 60  # it used to hang


@pytest.mark.parametrize("make", [
    lambda: cli_main(["evaluate", "ayzd", "optimal", "--goal", "100000"]),
    lambda: gymnasium.make("dice_envs/ZombieDice-v0", goal=100000),
], ids=["evaluate ayzd", "ZombieDice-v0"])
def test_a_huge_ayzd_goal_is_refused_before_the_turn_model_is_built(make):
    """Issue 23's attacks: both hung (or ran out of memory) building the turn model of a 400,000-wide grid."""
    with pytest.raises((ResourceLimitError, SystemExit)):
        make()


def test_solve_shakes_obeys_the_limits(capsys):
    """Issue 23's attack: `--max-memory 5M --max-seconds 0.1 solve shakes --players 6` ran 8.6 s and 308 MB."""
    from dice_envs.agents.shakes.solver import ShakesModel, record_count
    from dice_envs.games.shakes.rules import ShakesRules

    for n in (2, 3, 4, 5, 6):  # the count the guard uses is the model's
        assert record_count(n, ShakesRules(n).patients) == sum(len(level.rows) for level in ShakesModel(n).levels)
    for argv, limit in ((["--max-memory", "5M", "--max-seconds", "0.1"], "5.0 MiB"), (["--max-seconds", "0.1"], "0 s")):
        with pytest.raises(SystemExit):
            cli_main([*argv, "solve", "shakes", "--players", "6"])
        assert "253,813 public records" in (err := capsys.readouterr().err) and f"over the limit of {limit}" in err


@pytest.mark.parametrize("script, argv", [
    ("train_ayzd", ["--n-envs", "10000000000"]),
    ("train_pig", ["--net-pi", "100000000"]),
    ("train_pig", ["--net-vf", "64,100000000"]),
    ("train_liars_dice", ["--hidden", "100000000"]),
    ("train_liars_dice_play", ["--hidden", "100000000"]),
    ("train_liars_dice_play", ["--games", "10000000000"]),
    ("train_rllib", ["--minutes", "1", "--hidden", "100000000"]),
    ("train_rllib", ["--minutes", "1", "--batch", "10000000000", "--minibatch", "10"]),
    # issue 58 item 10: PPO's rollout buffer, ESCHER's minibatch, the exact score's grid, the self-play tables
    ("train_pig", ["--n-steps", "1000000000"]),
    ("train_ayzd", ["--n-steps", "100000000"]),
    ("train_liars_dice_play", ["--method", "escher", "--minibatch", "1000000000"]),
    ("train_liars_dice_play", ["--method", "mmd", "--minibatch", "1000000000"]),
    ("train_pig", ["--goal", "1000"]),
    ("train_pig", ["--pool-size", "1000000000"]),
    ("train_ayzd", ["--pool-size", "1000000000"]),
])
def test_trainers_refuse_huge_sizes_before_allocating(script, argv, tmp_path, capsys, monkeypatch):
    """Issue 23's attack: these sizes gave allocation tracebacks (74.5 GiB, 13 GB, 52 TB asked of the allocator);
    issue 58's: --n-steps 1000000000 (7.45 TiB), --minibatch 1000000000 (92 GB), --goal 1000 (29.9 GiB)."""
    import importlib

    monkeypatch.chdir(tmp_path)  # each script's default run directory is relative
    module = importlib.import_module(f"experiments.{script}")
    try:
        code = module.main(argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert "over the limit of" in err and "Traceback" not in err


@pytest.mark.parametrize("script", ["train_pig", "train_ayzd", "train_liars_dice", "train_liars_dice_play"])
def test_trainers_refuse_more_threads_than_can_be_made(script, tmp_path, capsys, monkeypatch):
    """Issue 58 item 10: --threads 100000 crashed the process (OpenMP's thread creation fails, or torch
    segfaults) once the first update ran."""
    import importlib

    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(f"experiments.{script}")
    try:
        code = module.main(["--threads", "100000", "--steps", "1"])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert "--threads must be at most 1024 (MAX_THREADS), got 100000" in err and "Traceback" not in err


@pytest.mark.parametrize("where", ["a file", "below a file", "read-only"])
@pytest.mark.parametrize("script", ["train_pig", "train_liars_dice_play"])
def test_a_run_dir_that_cannot_be_used_is_a_one_line_error(script, where, tmp_path, capsys, monkeypatch):
    """Issue 58's attack: ``--run-dir /etc/passwd`` or a read-only file system gave an OSError traceback."""
    import errno
    import importlib
    import pathlib

    a_file = tmp_path / "passwd"
    a_file.write_text("root:x:0:0\n")
    run_dir = {"a file": a_file, "below a file": a_file / "run", "read-only": tmp_path / "ro" / "run"}[where]
    if where == "read-only":  # simulated: the tests may run as root, whom permissions do not stop
        def read_only(self, *args, **kwargs):
            raise OSError(errno.EROFS, "Read-only file system", str(self))

        monkeypatch.setattr(pathlib.Path, "mkdir", read_only)
    module = importlib.import_module(f"experiments.{script}")
    code = module.main(["--run-dir", str(run_dir), "--steps", "10"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert str(run_dir if where != "below a file" else a_file) in err
    assert {"a file": "is a file, not a directory", "below a file": "not a directory",
            "read-only": "read-only file system"}[where] in err


def test_cli_path_errors_are_one_line(tmp_path, capsys):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    with pytest.raises(SystemExit) as exit_:
        cli_main(["export-efg", "liars-dice", "--faces", "2", "--out", str(a_file / "game.efg")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("dice-envs: error: file exists: ") and str(a_file) in err
    assert "(a file is in the way)" in err and "Traceback" not in err
    assert len(err.splitlines()) == 1


def test_a_killed_writer_s_temporary_file_is_removed_by_the_next_write(tmp_path):
    """Issue 23's attack: `export-efg` killed with -9 left a 100 MB temporary file that no later run removed."""
    import subprocess
    import sys

    from dice_envs.core.files import atomic_file

    target = tmp_path / "liars_dice_3.efg"
    writer = subprocess.Popen([sys.executable, "-c", (
        "import os, sys, time\n"
        "from dice_envs.core.files import atomic_file\n"
        f"with atomic_file({str(target)!r}, 'w') as fh:\n"
        "    fh.write('x' * 1000); fh.flush(); print('writing', flush=True); time.sleep(60)\n")],
        stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline().strip() == "writing"
    writer.kill()  # -9: no finally block runs
    writer.wait()
    left = [p for p in tmp_path.iterdir() if p.name != target.name]
    assert len(left) == 1 and left[0].name.startswith(f"liars_dice_3.efg.{writer.pid}.")
    with atomic_file(target, "w") as fh:  # the next write removes it
        fh.write("done")
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name] and target.read_text() == "done"
