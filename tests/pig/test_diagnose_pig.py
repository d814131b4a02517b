"""experiments/diagnose_pig_capacity.py (a network fitted to the optimal Pig policy, scored exactly) and
experiments/diagnose_pig_errors.py (where a Pig policy's wrong decisions are, each group repaired)."""

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from experiments import diagnose_pig_capacity  # noqa: E402


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path))


def run(capsys, *argv):
    assert diagnose_pig_capacity.main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_a_fitted_network_comes_close_to_the_optimum(capsys):
    """Goal 20: the fit gets nearly every decision right, and its exact Difference is a small
    loss (the optimum's own is 0; holding at 20 is far below)."""
    out = run(capsys, "--goal", "20", "--hidden", "32,32", "--features", "fourier", "--epochs", "40")
    assert out["accuracy"] > 0.97
    assert -0.01 < out["difference"] <= 1e-12


def test_the_inputs_are_the_environment_s_observations():
    import gymnasium

    import dice_envs  # noqa: F401

    for kind in ("scaled", "fourier"):
        env = gymnasium.make("dice_envs/Pig-v0", observation=kind, goal=100, seat=0)
        obs, _ = env.reset(seed=0)  # the agent to move at 0-0, turn total 0
        x = diagnose_pig_capacity.features(np.array([0]), np.array([0]), np.array([0]), 100, kind)
        np.testing.assert_array_equal(x[0], obs)


@pytest.mark.parametrize("argv", [["--hidden", "64,x"], ["--epochs", "0"], ["--features", "other"]])
def test_bad_arguments_are_refused(argv):
    with pytest.raises(SystemExit):
        diagnose_pig_capacity.main(argv)


def test_the_pig_error_diagnosis_accounts_for_the_whole_gap():
    """``experiments/diagnose_pig_errors.py`` on hold-at-10 (goal 20): repairing every wrong
    decision gives the optimum's Difference, 0 (a group alone need not help: decisions interact)."""
    from dice_envs.agents.pig import solver as pig_solver
    from experiments import diagnose_pig_errors

    report = diagnose_pig_errors.diagnose(pig_solver.hold_at(10), 20)
    assert report["difference"] < -0.01 and report["wrong"] > 0
    assert report["wrong"] == report["rolls_where_optimum_holds"] + report["holds_where_optimum_rolls"]
    assert report["repaired"]["all"]["wrong"] == report["wrong"]
    assert abs(report["repaired"]["all"]["difference"]) < 1e-12
    assert all(group["difference"] <= 1e-12 for group in report["repaired"].values())  # none beats the optimum
    mine = report["against_itself"]
    assert 0 < mine["agrees_with_optimum"] <= 1 and 0 <= mine["wrong_it_explains"] <= mine["wrong_10_k_30"]
