"""experiments/diagnose_zombie_dice_capacity.py: the optimum's decisions in batched self-play, a network
fitted to them, and its exact score."""

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from experiments import diagnose_zombie_dice_capacity as capacity  # noqa: E402

TINY = ["--goal", "2", "--score-cap", "4"]  # a 4-point grid: solved and scored in seconds


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path))


def test_the_decisions_are_the_optimum_s():
    """Every recorded decision is a real one (rolled: both actions open) and is the solved
    optimum's decision in the position and dice state that the observation shows."""
    from dice_envs.agents.zombie_dice import solver as zds

    solution = zds.solved(2, 4)
    obs, rolls = capacity.optimal_decisions(solution, 64, 30, seed=0)
    assert obs.shape == (64 * 30, 24) and rolls.dtype == bool and 0.3 < rolls.mean() < 0.99
    assert (obs[:, 10] == 1).all()
    counts = obs.astype(int)
    d = solution.chain.index(counts[:, 12:15], counts[:, 18:21], counts[:, 21:24])  # cup, shotgun dice, feet
    seat = counts[:, 7]  # the other seat has played this round: the mover is second
    assert np.array_equal(solution.roll_decision(seat, counts[:, 0], counts[:, 1], counts[:, 8], d), rolls)
    again = capacity.optimal_decisions(solution, 64, 30, seed=0)
    assert np.array_equal(again[0], obs) and np.array_equal(again[1], rolls)  # seeded


def test_the_fitted_network_is_scored_as_its_own_greedy_decisions(capsys):
    """The fitted network's exact score through NetworkPolicy (two logits (0, z)) is the score
    of the plain function ``z > 0`` over the encoded observations."""
    import torch

    from dice_envs.agents.zombie_dice import solver as zds
    from dice_envs.games.zombie_dice.rules import ZombieDiceGame
    from dice_envs.agents.learn.runs import fit_classifier

    solution = zds.solved(2, 4)
    obs, rolls = capacity.optimal_decisions(solution, 64, 30, seed=1)
    game = ZombieDiceGame(2, "official", 2)
    net = fit_classifier(game.fourier_observation(obs), rolls, [16], epochs=3, seed=0)

    def plain(raw):
        with torch.no_grad():
            return (net(torch.as_tensor(game.fourier_observation(raw))).squeeze(1) > 0).numpy().astype(float)

    ours = zds.exact_score(capacity.network_policy(net, "fourier", 2), 2, 4, references=False)
    assert ours["difference"] == pytest.approx(zds.exact_score(plain, 2, 4, references=False)["difference"],
                                               abs=1e-12)

    assert capacity.main(["--features", "scaled", "--games", "64", "--steps", "30", "--epochs", "300",
                          "--hidden", "32,32", *TINY]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decisions"] == 64 * 30 and out["accuracy"] > 0.9 and -0.2 < out["difference"] <= 1e-12


def test_bad_options_are_refused():
    with pytest.raises(SystemExit):
        capacity.main(["--score-cap", "3", "--goal", "2"])
    with pytest.raises(SystemExit):
        capacity.main(["--epochs", "0"])
    with pytest.raises(SystemExit):
        capacity.main(["--hidden", "64,0"])
