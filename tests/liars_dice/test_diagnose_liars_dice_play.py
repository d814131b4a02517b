"""experiments/diagnose_liars_dice_play.py: the exact diagnostics of the sampled-play
Liar's Dice learner (the iterate's and the reach-weighted average's exploitability, the
critic's error, and the run with the exact action values in place of the critic)."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

TINY = ["--", "--faces", "3", "--hidden", "32,32", "--critic-hidden", "32,32", "--games", "256", "--minibatch", "512",
        "--minutes", "1"]


@pytest.fixture(scope="module")
def diag(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("DICE_ENVS_CACHE", str(tmp_path_factory.mktemp("cache")))
    from experiments import diagnose_liars_dice_play

    yield diagnose_liars_dice_play
    mp.undo()


def run(diag, capsys, *argv):
    assert diag.main(list(argv)) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_exact_values_make_the_iterate_fall(diag, capsys):
    """Uniform play is exploitable by 0.72 on 3 faces; with the exact action values the
    iterate is at 0.17 after 60 updates (seed 0, measured), and the average of one
    policy is that policy."""
    lines = run(diag, capsys, "--updates", "60", "--every", "20", "--exact-critic", *TINY, "--optimism", "1")
    assert [line["updates"] for line in lines] == [20, 40, 60]
    assert lines[0]["average"] == pytest.approx(lines[0]["current"], abs=1e-12)
    assert lines[-1]["current"] < 0.25 and lines[-1]["average"] < 0.3
    assert all(line["critic_error"] == 0.0 for line in lines)


def test_the_learned_critic_has_an_error(diag, capsys):
    lines = run(diag, capsys, "--updates", "40", "--every", "20", *TINY)
    assert all(0.01 < line["critic_error"] < 1.0 for line in lines)
    assert lines[-1]["current"] < 0.5


def test_reach_average_weights_by_own_reach(diag):
    """Two policies for the first player's opening bid, averaged with equal weights: at a
    node the first player reaches only through its own bid, the average is the policy of
    whichever iterate made that bid, not the plain mean."""
    from dice_envs.agents.liars_dice.learned import InfoStates
    from dice_envs.agents.liars_dice.solver import PublicTree
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    states = InfoStates(PublicTree(LiarsDiceGame(faces=2)))
    uniform = states.mask / states.mask.sum(1, keepdims=True)
    avg = diag.ReachAverage(states)
    first, second = uniform.copy(), uniform.copy()
    R = states.tree.R
    first[:R] = 0
    first[:R, 0] = 1.0  # always opens with bid 0
    second[:R] = 0
    second[:R, 1] = 1.0  # always opens with bid 1
    deep = 2 ** 0 + 2 ** 2  # bids 0 then 2: the first player acts again (node 5), reached only via bid 0
    first[deep * R:(deep + 1) * R] = 0
    first[deep * R:(deep + 1) * R, states.tree.game.call_action] = 1.0
    avg.add(first, 1.0)
    avg.add(second, 1.0)
    policy = avg.policy()
    assert np.allclose(policy[:R, :2], 0.5)
    assert np.allclose(policy[deep * R:(deep + 1) * R], first[deep * R:(deep + 1) * R])


def test_bad_options(diag, capsys):
    assert diag.main(["--updates", "0"]) == 2
    assert "--updates" in capsys.readouterr().err
    assert diag.main(["--", "--method", "ppo"]) == 2
    assert "--method mmd" in capsys.readouterr().err
